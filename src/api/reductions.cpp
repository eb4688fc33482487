// jnp reductions: sum, prod, max, min, mean, all, any, argmax, argmin, with NumPy's keywords:
// keepdims, initial, and where (the masked-out elements replaced by the reduction's identity).
#include <jx/numpy.h>

#include <fmt/format.h>

#include <algorithm>

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

// The reduction's identity in n's dtype: what a masked-out element contributes (max: the lowest
// value, min: the highest).
NodePtr identity_of(Op op, const NodePtr &n) {
  const DType t = n->dtype;
  if (op == Op::ReduceSum) return ir::literal(0, t, n->weak);
  if (op == Op::ReduceProd) return ir::literal(1, t, n->weak);
  const bool max = op == Op::ReduceMax;
  if (t == DType::bool_) return ir::literal_int(max ? 0 : 1, t, n->weak);
  if (is_integer(t)) return ir::literal_int(api::integer_limit(t, !max), t, n->weak);
  return ir::literal(max ? -inf : inf, t, n->weak);
}

// where= broadcast to x's shape (the mask never widens x, as NumPy's), as bools (JAX's truthiness).
Array mask_for(const Array &x, const Array &where) {
  return broadcast_to(where.astype(DType::bool_), x.shape());
}

// initial= as a scalar of the reduction's dtype (JAX's check).
NodePtr initial_node(const Array &initial, const NodePtr &like) {
  if (initial.ndim() != 0)
    throw ValueError(fmt::format("initial value must be a scalar. Got array of shape {}",
                                 shape_str(initial.shape())));
  return api::cast_node(node_of(initial), like->dtype, like->weak);
}

// op over the axes of n (x's values, in the dtype op accumulates in), with NumPy's where= and
// initial=. name: NumPy's name of the ufunc for the zero-size error, jnp's for the where one.
Array reduce_op(Op op, NodePtr n, const Shape &in_shape, const Axes &axis, bool keepdims,
                const std::optional<Array> &initial, const std::optional<Array> &where,
                std::string_view ufunc_name, std::string_view jnp_name) {
  std::vector<int64_t> axes = api::normalize_axes(axis, int64_t(in_shape.size()));
  const bool has_identity = op == Op::ReduceSum || op == Op::ReduceProd;
  if (where && !initial && !has_identity)
    throw ValueError(fmt::format("reduction operation {} does not have an identity, so to use a "
                                 "where mask one has to specify 'initial'",
                                 jnp_name));
  bool empty = false;
  for (int64_t a : axes)
    empty = empty || in_shape[a] == 0;
  if (empty && !initial && !has_identity)
    throw ValueError(
        fmt::format("zero-size array to reduction operation {} which has no identity", ufunc_name));
  const NodePtr init = initial ? initial_node(*initial, n) : nullptr;
  if (where)
    n = node_of(numpy::where(mask_for(wrap(n), *where), wrap(n), wrap(identity_of(op, n))));
  NodePtr out;
  if (empty && !has_identity) { // a max or min of nothing but initial
    Shape s;
    for (int64_t d = 0; d < int64_t(in_shape.size()); ++d)
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) s.push_back(in_shape[d]);
    out = api::broadcast_node(init, s);
  } else {
    out = ir::reduce(op, n, axes);
    if (init) {
      const Op combine = op == Op::ReduceSum    ? Op::Add
                         : op == Op::ReduceProd ? Op::Mul
                         : op == Op::ReduceMax  ? Op::Max
                                                : Op::Min;
      out = ir::binary(combine, api::broadcast_node(init, out->shape), out);
    }
  }
  return keep_dims(wrap(out), in_shape, axes, keepdims);
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

// all(x) over the axes, where= masking with true.
Array all_of(const Array &x, const Axes &axis, bool keepdims, const std::optional<Array> &where) {
  Array b = x.astype(DType::bool_);
  if (where) b = numpy::where(mask_for(b, *where), b, Array(true));
  std::vector<int64_t> axes = api::normalize_axes(axis, b.ndim());
  // min over bools, with True for empty axes (reduce_min would have no identity).
  std::vector<int64_t> hi(b.ndim(), 0);
  for (int64_t a : axes)
    hi[a] = 1;
  NodePtr padded = ir::pad(node_of(b), ir::literal_int(1, DType::bool_, false),
                           std::vector<int64_t>(b.ndim(), 0), hi);
  return keep_dims(wrap(ir::reduce(Op::ReduceMin, padded, axes)), b.shape(), axes, keepdims);
}

} // namespace

Array sum(const Array &x, const ReduceOptions &o) {
  return reduce_op(Op::ReduceSum, accumulator_input(x), x.shape(), o.axis, o.keepdims, o.initial,
                   o.where, "add", "sum");
}
Array prod(const Array &x, const ReduceOptions &o) {
  return reduce_op(Op::ReduceProd, accumulator_input(x), x.shape(), o.axis, o.keepdims, o.initial,
                   o.where, "multiply", "prod");
}
Array max(const Array &x, const ReduceOptions &o) {
  return reduce_op(Op::ReduceMax, node_of(x), x.shape(), o.axis, o.keepdims, o.initial, o.where,
                   "maximum", "max");
}
Array min(const Array &x, const ReduceOptions &o) {
  return reduce_op(Op::ReduceMin, node_of(x), x.shape(), o.axis, o.keepdims, o.initial, o.where,
                   "minimum", "min");
}
Array amax(const Array &x, const ReduceOptions &o) { return max(x, o); }
Array amin(const Array &x, const ReduceOptions &o) { return min(x, o); }

Array all(const Array &x, const MeanOptions &o) { return all_of(x, o.axis, o.keepdims, o.where); }
Array any(const Array &x, const MeanOptions &o) {
  return logical_not(all_of(logical_not(x), o.axis, o.keepdims, o.where));
}

Array mean(const Array &x, const MeanOptions &o) {
  // float16 and bfloat16: the whole mean in float32, rounded once (jnp's _upcast_f16).
  if (is_storage_float(x.dtype())) return mean(x.astype(DType::float32), o).astype(x.dtype());
  NodePtr n = node_of(x);
  if (!is_inexact(n->dtype)) n = ir::convert(n, default_float, n->weak);
  Array total = reduce_op(Op::ReduceSum, n, x.shape(), o.axis, o.keepdims, std::nullopt, o.where,
                          "add", "sum");
  if (o.where) // the count of the elements kept (JAX's normalizer): 0/0 is NaN for none
    return total /
           sum(mask_for(x, *o.where), {.axis = o.axis, .keepdims = o.keepdims}).astype(n->dtype);
  int64_t count = 1;
  for (int64_t a : api::normalize_axes(o.axis, x.ndim()))
    count *= x.shape()[a];
  return total / wrap(ir::literal(double(count), n->dtype, true));
}

Array argmax(const Array &x, const ArgReduceOptions &o) {
  return arg_op(Op::ArgMax, x, o.axis, o.keepdims, "argmax");
}
Array argmin(const Array &x, const ArgReduceOptions &o) {
  return arg_op(Op::ArgMin, x, o.axis, o.keepdims, "argmin");
}

} // namespace jx::numpy
