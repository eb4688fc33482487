// jnp array creation: array, zeros/ones/full(_like), arange, linspace, eye.
#include <jx/numpy.h>

#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::wrap;

namespace {

void check_shape(const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0) throw ValueError("negative dimensions are not allowed");
}

} // namespace

template <class T> Array array(const std::vector<T> &data, std::optional<Shape> shape) {
  Shape s = shape ? *shape : Shape{int64_t(data.size())};
  check_shape(s);
  if (shape_size(s) != int64_t(data.size()))
    throw ShapeError(
        fmt::format("cannot reshape array of size {} into shape {}", data.size(), shape_str(s)));
  constexpr DType dt = dtype_of_v<T>;
  runtime::BufferPtr buffer = runtime::make_buffer(data.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < data.size(); ++i)
      buffer->as<bool>()[i] = data[i];
  } else if (!data.empty()) { // memcpy from an empty vector's null data is undefined
    std::memcpy(buffer->data(), data.data(), data.size() * sizeof(T));
  }
  return wrap(ir::constant(std::move(buffer), dt, std::move(s)));
}

template Array array(const std::vector<bool> &, std::optional<Shape>);
template Array array(const std::vector<int32_t> &, std::optional<Shape>);
template Array array(const std::vector<int64_t> &, std::optional<Shape>);
template Array array(const std::vector<float> &, std::optional<Shape>);
template Array array(const std::vector<double> &, std::optional<Shape>);

Array array(double value, DType dtype) { return wrap(ir::literal(value, dtype, false)); }

Array asarray(const Array &x, std::optional<DType> dtype) {
  return x.astype(dtype ? *dtype : x.dtype());
}

Array full(const Shape &shape, const Array &fill_value, std::optional<DType> dtype) {
  check_shape(shape);
  NodePtr v = node_of(fill_value);
  NodePtr cast = api::cast_node(v, dtype ? *dtype : v->dtype, false);
  return wrap(api::broadcast_node(cast, shape));
}

Array zeros(const Shape &shape, DType dtype) { return full(shape, 0, dtype); }
Array ones(const Shape &shape, DType dtype) { return full(shape, 1, dtype); }
Array zeros_like(const Array &x, std::optional<DType> dtype) {
  return full(x.shape(), 0, dtype ? *dtype : x.dtype());
}
Array ones_like(const Array &x, std::optional<DType> dtype) {
  return full(x.shape(), 1, dtype ? *dtype : x.dtype());
}
Array full_like(const Array &x, const Array &fill_value, std::optional<DType> dtype) {
  return full(x.shape(), fill_value, dtype ? *dtype : x.dtype());
}

Array arange_impl(double start, double stop, double step, bool integral,
                  std::optional<DType> dtype) {
  if (step == 0) throw ValueError("arange: step cannot be zero");
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw ValueError("arange: cannot compute length");
  DType dt = dtype ? *dtype : integral ? default_int : default_float;
  const double length = std::ceil((stop - start) / step);
  if (length >= 0x1p63) throw ValueError("Maximum allowed size exceeded");
  int64_t n = std::max<int64_t>(0, int64_t(length));
  if (n == 0) return wrap(api::broadcast_node(api::scalar_node(0, dt), {0}));
  if (dt == DType::bool_) {
    // NumPy: bool has no arithmetic, so only [bool(start), bool(start + step)][:n] exists.
    if (n > 2)
      throw TypeError("arange() is only supported for booleans when the result has at most "
                      "length 2.");
    std::vector<bool> values{start != 0, start + step != 0};
    values.resize(size_t(n));
    return numpy::array(values);
  }
  // NumPy fills in the target dtype: first = T(start), delta = T(start + step) - first, and
  // element i = first + i * delta.
  NodePtr first = api::cast_node(ir::literal(start, DType::float64, false), dt, false);
  NodePtr second = api::cast_node(ir::literal(start + step, DType::float64, false), dt, false);
  NodePtr delta = ir::binary(ir::Op::Sub, second, first);
  NodePtr i = ir::iota(dt, {n}, 0);
  NodePtr v = ir::binary(ir::Op::Add, api::broadcast_node(first, {n}),
                         ir::binary(ir::Op::Mul, i, api::broadcast_node(delta, {n})));
  return wrap(v);
}

Array linspace(const Array &start, const Array &stop, int64_t num, bool endpoint, int64_t axis,
               std::optional<DType> dtype) {
  if (num < 0) throw ValueError(fmt::format("Number of samples, {}, must be non-negative.", num));
  // NumPy: step = (stop - start) / div; y = iota * step + start; y[-1] = stop when endpoint.
  std::vector<NodePtr> bounds{node_of(start), node_of(stop)};
  api::ResultType type = api::result_type(bounds);
  DType compute = is_floating(type.dtype) ? type.dtype : default_float;
  std::vector<NodePtr> b = api::promote_and_broadcast(bounds, {compute, false});
  const Shape &bshape = b[0]->shape;
  const int64_t out_rank = int64_t(bshape.size()) + 1;
  axis = api::normalize_axis(axis, out_rank);
  Shape shape = bshape;
  shape.insert(shape.begin(), num);
  auto spread = [&](const NodePtr &n) {
    std::vector<int64_t> dims;
    for (int64_t i = 1; i < out_rank; ++i)
      dims.push_back(i);
    return ir::broadcast(n, shape, dims);
  };
  const int64_t div = endpoint ? num - 1 : num;
  NodePtr lo = spread(b[0]), hi = spread(b[1]);
  NodePtr delta = ir::binary(ir::Op::Sub, hi, lo);
  NodePtr i = ir::iota(compute, shape, 0);
  NodePtr y;
  if (div > 0) {
    NodePtr divisor = api::broadcast_node(api::scalar_node(double(div), compute), shape);
    NodePtr step = ir::binary(ir::Op::Div, delta, divisor);
    // NumPy divides first where the step underflows to zero (denormal ranges).
    NodePtr zero = api::broadcast_node(api::scalar_node(0, compute), shape);
    y = ir::select(ir::binary(ir::Op::Eq, step, zero),
                   ir::binary(ir::Op::Mul, ir::binary(ir::Op::Div, i, divisor), delta),
                   ir::binary(ir::Op::Mul, i, step));
  } else {
    y = ir::binary(ir::Op::Mul, i, delta);
  }
  y = ir::binary(ir::Op::Add, y, lo);
  Array out = wrap(y);
  if (endpoint && num > 1) out = out.at(-1).set(wrap(b[1]));
  if (axis != 0) out = moveaxis(out, 0, axis);
  DType result = dtype ? *dtype : compute;
  if (!is_floating(result)) out = floor(out);
  return out.astype(result);
}

Array eye(int64_t n, std::optional<int64_t> m, int64_t k, DType dtype) {
  int64_t cols = m ? *m : n;
  if (n < 0 || cols < 0) throw ValueError("negative dimensions are not allowed");
  Shape shape{n, cols};
  NodePtr row = ir::iota(DType::int64, shape, 0), col = ir::iota(DType::int64, shape, 1);
  NodePtr diag =
      ir::binary(ir::Op::Eq,
                 ir::binary(ir::Op::Add, row,
                            api::broadcast_node(ir::literal_int(k, DType::int64, false), shape)),
                 col);
  return wrap(ir::convert(diag, dtype));
}

} // namespace jx::numpy
