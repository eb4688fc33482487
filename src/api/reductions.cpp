// jnp reductions: sum, prod, max, min, mean, all, any, argmax, argmin.
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::wrap;
using ir::Op;

namespace {

Array keep_dims(const Array &reduced, const Shape &in_shape, const std::vector<int64_t> &axes,
                bool keepdims) {
  if (!keepdims) return reduced;
  Shape s = in_shape;
  for (int64_t a : axes)
    s[a] = 1;
  return wrap(ir::reshape(node_of(reduced), s));
}

NodePtr accumulator_input(const Array &x) {
  const NodePtr &n = node_of(x);
  return ir::convert(n, api::accumulator_dtype(n->dtype), n->weak);
}

Array reduce_op(Op op, NodePtr n, const Shape &in_shape, const Axes &axis, bool keepdims,
                std::string_view name) {
  std::vector<int64_t> axes = api::normalize_axes(axis, int64_t(in_shape.size()));
  if (op == Op::ReduceMax || op == Op::ReduceMin)
    for (int64_t a : axes)
      if (in_shape[a] == 0)
        throw ValueError(
            fmt::format("zero-size array to reduction operation {} which has no identity", name));
  return keep_dims(wrap(ir::reduce(op, n, axes)), in_shape, axes, keepdims);
}

Array arg_op(Op op, const Array &x, std::optional<int64_t> axis, bool keepdims,
             std::string_view name) {
  Array in = axis ? x : ravel(x);
  int64_t a = api::normalize_axis(axis.value_or(0), in.ndim());
  if (in.shape()[a] == 0)
    throw ValueError(fmt::format("attempt to get {} of an empty sequence", name));
  Array out = wrap(ir::arg_reduce(op, node_of(in), a));
  if (!keepdims) return out;
  if (!axis) return reshape(out, Shape(x.ndim(), 1));
  return keep_dims(out, x.shape(), {a}, true);
}

} // namespace

Array sum(const Array &x, const Axes &axis, bool keepdims) {
  return reduce_op(Op::ReduceSum, accumulator_input(x), x.shape(), axis, keepdims, "add");
}
Array prod(const Array &x, const Axes &axis, bool keepdims) {
  return reduce_op(Op::ReduceProd, accumulator_input(x), x.shape(), axis, keepdims, "multiply");
}
Array max(const Array &x, const Axes &axis, bool keepdims) {
  return reduce_op(Op::ReduceMax, node_of(x), x.shape(), axis, keepdims, "maximum");
}
Array min(const Array &x, const Axes &axis, bool keepdims) {
  return reduce_op(Op::ReduceMin, node_of(x), x.shape(), axis, keepdims, "minimum");
}
Array amax(const Array &x, const Axes &axis, bool keepdims) { return max(x, axis, keepdims); }
Array amin(const Array &x, const Axes &axis, bool keepdims) { return min(x, axis, keepdims); }

Array all(const Array &x, const Axes &axis, bool keepdims) {
  NodePtr b = ir::convert(node_of(x), DType::bool_);
  std::vector<int64_t> axes = api::normalize_axes(axis, x.ndim());
  // min over bools, with True for empty axes (reduce_min would have no identity).
  NodePtr padded =
      ir::pad(b, ir::literal_int(1, DType::bool_, false), std::vector<int64_t>(x.ndim(), 0), [&] {
        std::vector<int64_t> hi(x.ndim(), 0);
        for (int64_t a : axes)
          hi[a] = 1;
        return hi;
      }());
  return keep_dims(wrap(ir::reduce(Op::ReduceMin, padded, axes)), x.shape(), axes, keepdims);
}

Array any(const Array &x, const Axes &axis, bool keepdims) {
  return logical_not(all(logical_not(x), axis, keepdims));
}

Array mean(const Array &x, const Axes &axis, bool keepdims) {
  // float16 and bfloat16: the whole mean in float32, rounded once (jnp's _upcast_f16).
  if (is_storage_float(x.dtype()))
    return mean(x.astype(DType::float32), axis, keepdims).astype(x.dtype());
  NodePtr n = node_of(x);
  if (!is_inexact(n->dtype)) n = ir::convert(n, default_float, n->weak);
  std::vector<int64_t> axes = api::normalize_axes(axis, x.ndim());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= x.shape()[a];
  Array total = reduce_op(Op::ReduceSum, n, x.shape(), axis, keepdims, "add");
  return total / wrap(ir::literal(double(count), n->dtype, true));
}

Array argmax(const Array &x, std::optional<int64_t> axis, bool keepdims) {
  return arg_op(Op::ArgMax, x, axis, keepdims, "argmax");
}
Array argmin(const Array &x, std::optional<int64_t> axis, bool keepdims) {
  return arg_op(Op::ArgMin, x, axis, keepdims, "argmin");
}

} // namespace jx::numpy
