// jnp's shared rules: axes (negative ones counted from the end), dtype promotion with weak
// scalars, broadcasting, casts and the helpers the functions build on them.
#include "api/internal.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace jx::api {

int64_t normalize_axis(int64_t axis, int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    throw AxisError(fmt::format("axis {} is out of bounds for array of dimension {}", axis, ndim));
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int64_t> normalize_axes(const numpy::Axes &axes, int64_t ndim) {
  if (axes.is_none()) return iota_vector(ndim);
  std::vector<int64_t> out;
  for (int64_t a : axes.axes())
    out.push_back(normalize_axis(a, ndim));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) throw ValueError("repeated axis");
  return out;
}

DType default_dtype(DTypeKind kind) {
  switch (kind) {
  case DTypeKind::boolean: return DType::bool_;
  case DTypeKind::integer: return default_int;
  case DTypeKind::floating: return default_float;
  case DTypeKind::complex: return default_complex;
  }
  return default_float;
}

ResultType result_type(const std::vector<NodePtr> &xs) {
  std::optional<DType> strong;
  for (const NodePtr &x : xs)
    if (!x->weak) strong = strong ? promote_types(*strong, x->dtype) : x->dtype;
  DType weak_join = DType::bool_;
  bool any_weak = false;
  for (const NodePtr &x : xs)
    if (x->weak) {
      weak_join = any_weak ? promote_types(weak_join, x->dtype) : x->dtype;
      any_weak = true;
    }
  if (!strong) return {weak_join, true};
  if (any_weak && kind_of(weak_join) > kind_of(*strong)) {
    // A weak complex keeps a float's precision (f32 * 1j is complex64, as JAX and NumPy 2).
    if (is_complex(weak_join) && is_floating(*strong)) return {complex_dtype(*strong), false};
    return {default_dtype(kind_of(weak_join)), false};
  }
  return {*strong, false};
}

Shape broadcast_shapes(const std::vector<Shape> &shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1) {
        std::string list;
        for (const Shape &t : shapes)
          list += shape_str_compact(t) + " ";
        list.pop_back();
        throw ShapeError("operands could not be broadcast together with shapes " + list);
      }
      o = d;
    }
  }
  return out;
}

NodePtr broadcast_node(const NodePtr &x, const Shape &shape) {
  if (x->shape == shape) return x;
  const size_t offset = shape.size() - x->shape.size();
  std::vector<int64_t> dims(x->shape.size());
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = int64_t(offset + i);
  return ir::broadcast(x, shape, dims);
}

DType accumulator_dtype(DType t) {
  if (is_inexact(t)) return t;
  return is_unsigned(t) ? default_uint : default_int;
}

int64_t integer_limit(DType t, bool max) {
  const int bits = int(itemsize(t)) * 8;
  if (is_unsigned(t)) return max ? int64_t(~uint64_t(0) >> (64 - bits)) : 0;
  const int64_t top = int64_t(~uint64_t(0) >> (65 - bits));
  return max ? top : -top - 1;
}

NodePtr cast_node(const NodePtr &x, DType dtype, bool weak) {
  checked_dtype(dtype); // before integer_limit reads its width
  // A weak literal's value is a C++ int64_t; only a narrower (or unsigned) dtype can miss it.
  if (x->op == ir::Op::Literal && x->weak && is_integer(x->dtype) && is_integer(dtype) &&
      dtype != DType::int64 &&
      (x->ivalue < integer_limit(dtype, false) ||
       (dtype != DType::uint64 && x->ivalue > integer_limit(dtype, true))))
    throw OverflowError(
        fmt::format("Python integer {} out of bounds for {}", x->ivalue, dtype_name(dtype)));
  return ir::convert(x, dtype, weak);
}

NodePtr index_node(const NodePtr &indices) {
  if (indices->dtype == DType::int64) return indices;
  if (indices->dtype != DType::uint64) return ir::convert(indices, DType::int64);
  const NodePtr top = broadcast_node(
      ir::literal_int(std::numeric_limits<int64_t>::max(), DType::uint64, false), indices->shape);
  return ir::convert(ir::binary(ir::Op::Min, indices, top), DType::int64);
}

std::vector<NodePtr> promote_and_broadcast(const std::vector<NodePtr> &xs, ResultType type) {
  std::vector<Shape> shapes;
  for (const NodePtr &x : xs)
    shapes.push_back(x->shape);
  Shape shape = broadcast_shapes(shapes);
  std::vector<NodePtr> out;
  for (const NodePtr &x : xs)
    out.push_back(broadcast_node(cast_node(x, type.dtype, type.weak), shape));
  return out;
}

double epsilon(DType dtype) {
  switch (dtype) {
  case DType::float16: return 0x1p-10;
  case DType::bfloat16: return 0x1p-7;
  case DType::float32: return double(std::numeric_limits<float>::epsilon());
  default: return std::numeric_limits<double>::epsilon();
  }
}

bool is_concrete(const Array &x) { return !ir::tracing() || x.node()->realized(); }

void require_concrete(const Array &x, const std::string &what) {
  if (!is_concrete(x)) throw ConcretizationTypeError(what);
}

Array to_inexact(const Array &x) {
  const NodePtr &n = node_of(x);
  return is_inexact(n->dtype) ? x : wrap(ir::convert(n, default_float, n->weak));
}

Array slice_along(const Array &x, int64_t axis, std::optional<int64_t> lo,
                  std::optional<int64_t> hi) {
  std::vector<IndexItem> idx(normalize_axis(axis, x.ndim()), Slice{});
  idx.push_back(slice(lo, hi));
  return x.index(idx);
}

NodePtr scalar_node(double value, DType dtype) { return ir::literal(value, dtype, false); }

std::vector<int64_t> iota_vector(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = i;
  return v;
}

} // namespace jx::api
