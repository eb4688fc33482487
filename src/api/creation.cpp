// jnp array creation: array, zeros/ones/full(_like), arange, linspace, logspace, geomspace, eye,
// identity, meshgrid, indices, mgrid, ogrid, window functions.
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
template Array array(const std::vector<int8_t> &, std::optional<Shape>);
template Array array(const std::vector<int16_t> &, std::optional<Shape>);
template Array array(const std::vector<int32_t> &, std::optional<Shape>);
template Array array(const std::vector<int64_t> &, std::optional<Shape>);
template Array array(const std::vector<uint8_t> &, std::optional<Shape>);
template Array array(const std::vector<uint16_t> &, std::optional<Shape>);
template Array array(const std::vector<uint32_t> &, std::optional<Shape>);
template Array array(const std::vector<uint64_t> &, std::optional<Shape>);
template Array array(const std::vector<std::complex<float>> &, std::optional<Shape>);
template Array array(const std::vector<std::complex<double>> &, std::optional<Shape>);
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
  // Negative lengths (stop before start) are empty: compared as doubles, since a length below
  // INT64_MIN does not convert.
  int64_t n = length > 0 ? int64_t(length) : 0;
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
  // arange(n) is the index itself: as it is traced (no loop body's graph is simplified, and the
  // compiler recognizes an iota where it bounds a loop by a mask).
  if (start == 0 && step == 1 && !is_complex(dt)) return wrap(ir::iota(dt, {n}, 0));
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

Array linspace(const Array &start, const Array &stop, const LinspaceOptions &o) {
  const int64_t num = o.num;
  const bool endpoint = o.endpoint;
  if (num < 0) throw ValueError(fmt::format("Number of samples, {}, must be non-negative.", num));
  // NumPy: step = (stop - start) / div; y = iota * step + start; y[-1] = stop when endpoint.
  std::vector<NodePtr> bounds{node_of(start), node_of(stop)};
  api::ResultType type = api::result_type(bounds);
  DType compute = is_inexact(type.dtype) ? type.dtype : default_float;
  std::vector<NodePtr> b = api::promote_and_broadcast(bounds, {compute, false});
  const Shape &bshape = b[0]->shape;
  const int64_t out_rank = int64_t(bshape.size()) + 1;
  const int64_t axis = api::normalize_axis(o.axis, out_rank);
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
  DType result = o.dtype ? *o.dtype : compute;
  if (!is_inexact(result)) out = floor(out);
  return out.astype(result);
}

Array eye(int64_t n, const EyeOptions &o) {
  const int64_t cols = o.M ? *o.M : n, k = o.k;
  if (n < 0 || cols < 0) throw ValueError("negative dimensions are not allowed");
  Shape shape{n, cols};
  NodePtr row = ir::iota(DType::int64, shape, 0), col = ir::iota(DType::int64, shape, 1);
  NodePtr diag =
      ir::binary(ir::Op::Eq,
                 ir::binary(ir::Op::Add, row,
                            api::broadcast_node(ir::literal_int(k, DType::int64, false), shape)),
                 col);
  return wrap(ir::convert(diag, o.dtype));
}

Array identity(int64_t n, DType dtype) { return eye(n, std::nullopt, 0, dtype); }
Array empty(const Shape &shape, DType dtype) { return zeros(shape, dtype); }
Array empty_like(const Array &x, std::optional<DType> dtype) { return zeros_like(x, dtype); }
Array copy(const Array &x) { return x; }

Array logspace(const Array &start, const Array &stop, const LogspaceOptions &o) {
  const Array lin = linspace(start, stop, {.num = o.num, .endpoint = o.endpoint, .axis = o.axis});
  Array b = api::to_inexact(o.base);
  if (b.ndim() > 0) b = expand_dims(b, api::normalize_axis(o.axis, lin.ndim()));
  const Array out = power(b, lin);
  return o.dtype ? out.astype(*o.dtype) : out;
}

// NumPy's: a logspace between the magnitudes, in the sign of start, with the endpoints exact.
Array geomspace(const Array &start, const Array &stop, const LinspaceOptions &o) {
  const int64_t num = o.num;
  const bool endpoint = o.endpoint;
  const DType type = result_type({api::to_inexact(start), api::to_inexact(stop)});
  const Array sign = numpy::sign(start.astype(type));
  const Array lo = start.astype(type) / sign, hi = stop.astype(type) / sign;
  Array out = logspace(log10(lo), log10(hi), num, endpoint, 10.0);
  if (num > 0) out = out.at(0).set(lo);
  if (num > 1 && endpoint) out = out.at(-1).set(hi);
  out = out * sign;
  if (o.axis != 0) out = moveaxis(out, 0, o.axis);
  return o.dtype ? out.astype(*o.dtype) : out;
}

std::vector<Array> meshgrid(const std::vector<Array> &xi, std::string_view indexing) {
  if (indexing != "xy" && indexing != "ij")
    throw ValueError("Valid values for `indexing` are 'xy' and 'ij'.");
  const int64_t n = int64_t(xi.size());
  Shape shape(n, 1);
  for (int64_t i = 0; i < n; ++i)
    shape[i] = xi[i].size();
  if (indexing == "xy" && n > 1) std::swap(shape[0], shape[1]);
  std::vector<Array> out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = indexing == "xy" && n > 1 && i < 2 ? 1 - i : i;
    Shape along(n, 1);
    along[at] = xi[i].size();
    out.push_back(broadcast_to(reshape(xi[i], along), shape));
  }
  return out;
}

Array indices(const Shape &dimensions, DType dtype) {
  std::vector<Array> grids;
  for (size_t i = 0; i < dimensions.size(); ++i)
    grids.push_back(wrap(ir::iota(dtype, dimensions, int64_t(i))));
  if (grids.empty()) return zeros({0}, dtype);
  return stack(grids);
}

GridSlice::GridSlice(const Slice &s)
    : start(double(s.start.value_or(0))), stop(double(s.stop.value_or(0))),
      step(double(s.step.value_or(1))), integral(true) {
  if (!s.stop) throw ValueError("mgrid and ogrid need a stop in every slice");
}

namespace {

// One slice's values, as JAX's _make_1d_grid_from_slice: a complex step counts points.
Array grid_axis(const GridSlice &s) {
  if (s.step.imag() != 0) return linspace(s.start, s.stop, int64_t(std::abs(s.step)));
  return arange_impl(s.start, s.stop, s.step.real(), s.integral, std::nullopt);
}

} // namespace

Array mgrid(const std::vector<GridSlice> &slices) {
  if (slices.empty()) return arange(0);
  std::vector<Array> axes;
  for (const GridSlice &s : slices)
    axes.push_back(grid_axis(s));
  return stack(meshgrid(axes, "ij"));
}

Array mgrid(const GridSlice &slice) { return grid_axis(slice); }

std::vector<Array> ogrid(const std::vector<GridSlice> &slices) {
  std::vector<Array> out;
  for (size_t i = 0; i < slices.size(); ++i) {
    const Array values = grid_axis(slices[i]);
    Shape along(slices.size(), 1);
    along[i] = values.size();
    out.push_back(reshape(values, along));
  }
  return out;
}

Array ogrid(const GridSlice &slice) { return grid_axis(slice); }

namespace {
// a0 + a1 cos(pi n / (M - 1)) + a2 cos(2 pi n / (M - 1)) over n = 1 - M, 3 - M, ..., M - 1.
Array cosine_window(int64_t m, double a0, double a1, double a2) {
  if (m < 1) return zeros({0});
  if (m == 1) return ones({1});
  const Array n = arange(1 - m, m, 2);
  const Array out = a0 + a1 * cos(pi * n / double(m - 1));
  return a2 == 0 ? out : out + a2 * cos(2.0 * pi * n / double(m - 1));
}
} // namespace

Array bartlett(int64_t m) {
  if (m < 1) return zeros({0});
  if (m == 1) return ones({1});
  const Array r = arange(1 - m, m, 2) / double(m - 1);
  return where(r <= 0, 1.0 + r, 1.0 - r);
}
Array blackman(int64_t m) { return cosine_window(m, 0.42, 0.5, 0.08); }
Array hamming(int64_t m) { return cosine_window(m, 0.54, 0.46, 0); }
Array hanning(int64_t m) { return cosine_window(m, 0.5, 0.5, 0); }
Array kaiser(int64_t m, double beta) {
  if (m < 1) return zeros({0});
  if (m == 1) return ones({1});
  const double alpha = double(m - 1) / 2;
  const Array ratio = (arange(m) - alpha) / alpha;
  return i0(beta * sqrt(1.0 - ratio * ratio)) / i0(Array(beta));
}

} // namespace jx::numpy
