// fold_constants: elementwise ops on literals become literals, computed with the reference
// evaluator's scalar functions in the node's dtype, so a folded graph computes exactly what the
// unfolded one would. An operand may be a literal under movement ops (broadcast, reshape,
// transpose: the same scalar at every element); the folded scalar is then broadcast to the node's
// shape. Small arrays computed from constants only (iota, constant buffers) fold into constant
// buffers through the evaluator. Left alone: erf_inv (not folded by design), ops the evaluator
// rejects for a dtype, realized nodes, and anything with a non-literal operand.
#include <jx/dtype.h>

#include <algorithm>
#include <stdexcept>

#include "interp/dispatch.h"
#include "interp/interp.h"
#include "interp/scalar_ops.h"
#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

// The literal a node holds at every element, or null.
const Node *scalar_of(const Node &n) {
  const Node *x = &n;
  while (x->op == Op::Broadcast || x->op == Op::Reshape || x->op == Op::Transpose)
    x = x->inputs[0].get();
  return x->op == Op::Literal ? x : nullptr;
}

template <class T> T value_of(const Node &lit) {
  return is_floating(lit.dtype) ? T(lit.fvalue) : T(lit.ivalue);
}

template <class T> NodePtr literal_of(T v, DType dtype, bool weak) {
  if constexpr (ir::is_float_v<T>)
    return ir::literal(double(v), dtype, weak);
  else
    return ir::literal_int(int64_t(v), dtype, weak);
}

// The folded literal of n (dtype and weak flag of n) from its operands' literals.
NodePtr fold(const Node &n, const std::vector<const Node *> &in) {
  return dispatch_dtype(n.dtype, [&](auto out_tag) -> NodePtr {
    using T = decltype(out_tag);
    if (n.op == Op::Select)
      return literal_of(value_of<T>(*in[value_of<bool>(*in[0]) ? 1 : 2]), n.dtype, n.weak);
    // Ops whose operands have another dtype than the result.
    if (n.op == Op::Convert || n.op == Op::IsNan || n.op == Op::IsFinite || n.op == Op::SignBit ||
        ir::op_info(n.op).dtype_rule == ir::DTypeRule::Bool) {
      return dispatch_dtype(in[0]->dtype, [&](auto in_tag) -> NodePtr {
        using F = decltype(in_tag);
        T v;
        if (n.op == Op::Convert)
          v = T(interp::convert_scalar<T, F>(value_of<F>(*in[0])));
        else if (in.size() == 1)
          v = T(interp::predicate_scalar<F>(n.op, value_of<F>(*in[0])));
        else
          v = T(interp::compare_scalar<F>(n.op, value_of<F>(*in[0]), value_of<F>(*in[1])));
        return literal_of(v, n.dtype, n.weak);
      });
    }
    if (in.size() == 1)
      return literal_of(interp::unary_scalar<T>(n.op, value_of<T>(*in[0])), n.dtype, n.weak);
    return literal_of(interp::binary_scalar<T>(n.op, value_of<T>(*in[0]), value_of<T>(*in[1])),
                      n.dtype, n.weak);
  });
}

// Small arrays computed from constants alone (iotas, constant buffers, literals) are folded too,
// as XLA folds small constant subgraphs: arange(200) / 10 becomes the same constant as a stack of
// the 200 literals i / 10, and predicates on it cost nothing at run time.
constexpr int64_t max_folded_elements = 4096;

// A literal, or an iota or constant buffer as it is: under a broadcast, sink_movement first moves
// the work below it, so that it is folded at the smaller shape.
bool constant_array(const Node &n) {
  return scalar_of(n) || n.op == Op::Iota || n.op == Op::Constant;
}

NodePtr fold_array(const NodePtr &n) {
  // Kernels compute libm functions through libmvec, which may differ from the evaluator's libm by
  // a few ulp: folding them would make a value depend on whether its inputs were constants.
  if (n->size() > max_folded_elements || ir::is_libm_function(n->op) ||
      !std::all_of(n->inputs.begin(), n->inputs.end(),
                   [](const NodePtr &x) { return constant_array(*x); }))
    return n;
  try {
    return ir::constant(interp::evaluate({n})[0], n->dtype, n->shape);
  } catch (const std::exception &) {
    return n; // the evaluator rejects this op for this dtype; leave that to it
  }
}

NodePtr fold_rule(const NodePtr &n) {
  if (n->realized() || !ir::is_elementwise(n->op) || n->op == Op::ErfInv) return n;
  std::vector<const Node *> in;
  for (const NodePtr &x : n->inputs) {
    in.push_back(scalar_of(*x));
    if (!in.back()) return fold_array(n);
  }
  NodePtr lit;
  try {
    lit = fold(*n, in);
  } catch (const std::logic_error &) {
    return n; // the evaluator rejects this op for this dtype; leave that to it
  }
  return ir::broadcast(lit, n->shape, {});
}

} // namespace

std::vector<ir::NodePtr> fold_constants(const std::vector<ir::NodePtr> &roots) {
  return rewrite(roots, fold_rule);
}

} // namespace jx::passes
