#include "passes/reduction_interval.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/builder.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;

// n is the index along axis of its own shape: an iota over it, broadcast or cast to an integer
// type that holds every index.
bool index_along(const Node &n, int64_t axis) {
  if (n.realized()) return false;
  if (n.op == Op::Iota) return n.attrs[0] == axis;
  if (n.op == Op::Convert)
    return is_integer(n.dtype) && itemsize(n.dtype) >= 4 &&
           n.shape[size_t(axis)] <= std::numeric_limits<int32_t>::max() &&
           index_along(*n.inputs[0], axis);
  if (n.op == Op::Broadcast)
    for (size_t i = 0; i < n.attrs.size(); ++i)
      if (n.attrs[i] == axis) return index_along(*n.inputs[0], int64_t(i));
  return false;
}

// n takes one value along axis (where `mask`, if given, is false): literals, broadcasts along it,
// iotas over other axes, and elementwise ops and 1-D gathers of such values.
bool invariant(const Node &n, int64_t axis, const Node *mask) {
  if (n.shape[size_t(axis)] == 1 || n.op == Op::Literal) return true;
  if (n.realized()) return false;
  if (n.op == Op::Iota) return n.attrs[0] != axis;
  if (n.op == Op::Broadcast) {
    for (size_t i = 0; i < n.attrs.size(); ++i)
      if (n.attrs[i] == axis) return invariant(*n.inputs[0], int64_t(i), mask);
    return true;
  }
  if (n.op == Op::Select && n.inputs[0].get() == mask) return invariant(*n.inputs[2], axis, mask);
  if (n.op == Op::Take) // a vector gathered at indices of n's shape
    return n.inputs[0]->ndim() == 1 && invariant(*n.inputs[1], axis, mask);
  const OpKind kind = op_kind(n.op);
  if (kind != OpKind::Unary && kind != OpKind::Binary && kind != OpKind::Ternary &&
      n.op != Op::Convert)
    return false;
  for (const ir::NodePtr &in : n.inputs)
    if (!invariant(*in, axis, mask)) return false;
  return true;
}

// Integer types whose values int64 holds.
bool bound_type(DType t) { return is_integer(t) && t != DType::uint64; }

// Through a broadcast b along the reduced axis (from an axis of the same extent): what `find`
// states about b's operand, its bounds broadcast as b is.
template <class F>
bool through_broadcast(const Node &b, int64_t axis, ReductionInterval &out, F &&find) {
  const auto from = std::find(b.attrs.begin(), b.attrs.end(), axis);
  if (b.op != Op::Broadcast || b.realized() || from == b.attrs.end() ||
      b.inputs[0]->shape[size_t(from - b.attrs.begin())] != b.shape[size_t(axis)])
    return false;
  ReductionInterval inner{0, {}, {}, false};
  if (!find(*b.inputs[0], from - b.attrs.begin(), inner)) return false;
  for (auto [found, into] : {std::pair{&inner.lower, &out.lower}, {&inner.upper, &out.upper}})
    for (const IndexBound &bound : *found)
      into->push_back({ir::broadcast(bound.value, b.shape, b.attrs), bound.offset});
  return true;
}

// Adds to `out` the bounds mask states on the index along axis: a conjunction of comparisons of
// the index with values that do not vary along it.
bool bounds(const Node &mask, int64_t axis, ReductionInterval &out) {
  if (mask.realized()) return false;
  if (mask.op == Op::And)
    return bounds(*mask.inputs[0], axis, out) && bounds(*mask.inputs[1], axis, out);
  if (mask.op == Op::Broadcast) // a mask of fewer axes (sink_movement moved it below)
    return through_broadcast(mask, axis, out, bounds);
  if (mask.op != Op::Lt && mask.op != Op::Le && mask.op != Op::Gt && mask.op != Op::Ge)
    return false;
  const Node &a = *mask.inputs[0], &b = *mask.inputs[1];
  if (!bound_type(a.dtype)) return false;
  // index < b, index <= b, index > b, index >= b; with the index second, the mirror images.
  const bool index_first = index_along(a, axis) && invariant(b, axis, nullptr);
  if (!index_first && !(index_along(b, axis) && invariant(a, axis, nullptr))) return false;
  const ir::NodePtr &value = mask.inputs[index_first ? 1 : 0];
  const bool below = (mask.op == Op::Lt || mask.op == Op::Le) == index_first;
  const bool strict = mask.op == Op::Lt || mask.op == Op::Gt;
  if (below)
    out.upper.push_back({value, strict ? 0 : 1});
  else
    out.lower.push_back({value, strict ? 1 : 0});
  return true;
}

// n is v at every element.
bool literal_equal(const Node &n, double v) {
  const Node *lit = ir::splat_literal(n);
  return lit && (is_integer(lit->dtype) ? double(lit->ivalue) == v : lit->fvalue == v);
}

// select(mask, terms, identity) masking its index along axis, or a broadcast of one.
bool masked(const Node &operand, int64_t axis, double identity, ReductionInterval &out) {
  if (operand.op == Op::Broadcast)
    return through_broadcast(operand, axis, out,
                             [&](const Node &n, int64_t a, ReductionInterval &inner) {
                               return masked(n, a, identity, inner);
                             });
  return operand.op == Op::Select && !operand.realized() &&
         literal_equal(*operand.inputs[2], identity) && bounds(*operand.inputs[0], axis, out);
}

// The vector n is along axis: n itself, or the operand of its broadcast (a matrix product's
// row or column); null otherwise.
const Node *vector_of(const Node &n, int64_t axis) {
  if (n.ndim() == 1) return &n;
  const bool spread = n.op == Op::Broadcast && !n.realized() && n.inputs[0]->ndim() == 1 &&
                      n.attrs[0] == axis && n.inputs[0]->shape[0] == n.shape[size_t(axis)];
  return spread ? n.inputs[0].get() : nullptr;
}

} // namespace

std::optional<ReductionInterval> reduction_interval(const ir::Node &n) {
  if (n.realized() || n.dtype == DType::bool_ || is_complex(n.dtype)) return std::nullopt;
  ReductionInterval out{0, {}, {}, false};
  if (n.op == Op::DotGeneral) {
    const ir::DotDims d = ir::dot_dims(n);
    if (d.lhs_contract.size() != 1) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      out = ReductionInterval{side, {}, {}, false};
      const Node &operand = *n.inputs[size_t(side)], &other = *n.inputs[size_t(1 - side)];
      const int64_t axis = (side == 0 ? d.lhs_contract : d.rhs_contract)[0];
      if (!masked(operand, axis, 0, out)) continue;
      if (is_integer(n.dtype)) return out;
      // Both vectors (or their broadcasts): the mask is read at the same index wherever the
      // other operand reads it.
      const Node *masked_vector = vector_of(operand, axis);
      const Node *other_vector = vector_of(other, (side == 0 ? d.rhs_contract : d.lhs_contract)[0]);
      if (masked_vector && other_vector && masked_vector->op == Op::Select &&
          invariant(*other_vector, 0, masked_vector->inputs[0].get())) {
        out.complement_term = true;
        return out;
      }
    }
    return std::nullopt;
  }
  const double inf = std::numeric_limits<double>::infinity();
  double identity = 0;
  switch (n.op) {
  case Op::ReduceSum: identity = 0; break;
  case Op::ReduceProd: identity = 1; break;
  case Op::ReduceMax: identity = -inf; break;
  case Op::ReduceMin: identity = inf; break;
  default: return std::nullopt;
  }
  if (n.attrs.size() != 1 || (std::isinf(identity) && !is_floating(n.dtype))) return std::nullopt;
  if (!masked(*n.inputs[0], n.attrs[0], identity, out)) return std::nullopt;
  return out;
}

} // namespace jx::passes
