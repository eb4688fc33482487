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
#include <unordered_map>
#include <unordered_set>

#include "interp/dispatch.h"
#include "interp/interp.h"
#include "interp/scalar_ops.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

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

// A literal, or an iota or constant buffer as it is: under a broadcast, sink_movement first moves
// the work below it, so that it is folded at the smaller shape.
bool constant_array(const Node &n) {
  return ir::splat_literal(n) || n.op == Op::Iota || n.op == Op::Constant;
}

// Whether n is a small array computed elementwise from constant arrays (or from `deferred` nodes,
// foldable ones whose evaluation waits for their user). Kernels compute libm functions through
// libmvec, which may differ from the evaluator's libm by a few ulp: folding them would make a
// value depend on whether its inputs were constants.
bool foldable_array(const Node &n, const std::unordered_set<const Node *> &deferred) {
  return !n.realized() && ir::is_elementwise(n.op) && n.op != Op::ErfInv &&
         n.size() <= max_folded_elements && !ir::is_libm_function(n.op) &&
         std::all_of(n.inputs.begin(), n.inputs.end(), [&](const NodePtr &x) {
           return constant_array(*x) || deferred.count(x.get());
         });
}

// n's value as a constant (n computed from constants only), or n when the evaluator rejects it.
NodePtr fold_array(const NodePtr &n) {
  try {
    return ir::constant(interp::evaluate({n})[0], n->dtype, n->shape);
  } catch (const std::exception &) {
    return n; // the evaluator rejects this op for this dtype; leave that to it
  }
}

NodePtr fold_rule(const NodePtr &n) {
  if (n->realized() || !ir::is_elementwise(n->op) || n->op == Op::ErfInv) return n;
  // Literals are real: complex(literal, literal) stays as it is (a complex literal's parts).
  if (is_complex(n->dtype) || std::any_of(n->inputs.begin(), n->inputs.end(),
                                          [](const NodePtr &x) { return is_complex(x->dtype); }))
    return n;
  std::vector<const Node *> in;
  for (const NodePtr &x : n->inputs) {
    in.push_back(ir::splat_literal(*x));
    if (!in.back()) return n; // arrays: see fold_constants
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

// rewrite() with fold_rule, plus small arrays computed from constants. Two things keep a long
// chain of them (x = x + 1 a million times from a constant: 8.7 GiB and 17 s before) linear and
// small: a node's replacement is dropped after its last user is rebuilt, and a foldable array
// with a single user is not evaluated until that user is not foldable (or it is a root), so the
// evaluator computes the whole chain once, freeing each step after its use.
std::vector<ir::NodePtr> fold_constants(const std::vector<ir::NodePtr> &roots) {
  ir::GraphReadLock graph_lock; // realized() must not change during the walk
  const std::vector<const Node *> order = ir::topological_order(roots);
  std::unordered_map<const Node *, NodePtr> owner;
  std::unordered_map<const Node *, int64_t> uses;
  for (const NodePtr &r : roots) {
    owner[r.get()] = r;
    uses[r.get()] += 2; // roots stay until the end, and are folded, not deferred
  }
  for (const Node *n : order)
    if (!n->realized())
      for (const NodePtr &in : n->inputs) {
        owner[in.get()] = in;
        ++uses[in.get()];
      }
  std::unordered_map<const Node *, NodePtr> replaced;
  // Foldable replacements whose evaluation waits for their one user (the tops of chains only).
  std::unordered_set<const Node *> deferred;
  for (const Node *n : order) {
    NodePtr node = std::move(owner.at(n));
    owner.erase(n);
    if (!n->realized() && !n->inputs.empty()) {
      std::vector<NodePtr> inputs;
      for (const NodePtr &in : n->inputs)
        inputs.push_back(replaced.at(in.get()));
      if (inputs != n->inputs) node = ir::rebuild(*n, inputs);
      if (!foldable_array(*node, deferred)) {
        bool evaluated = false; // a chain ends here: its top is evaluated
        for (NodePtr &in : inputs)
          if (deferred.erase(in.get())) {
            in = fold_array(in);
            evaluated = true;
          }
        if (evaluated) node = ir::rebuild(*n, std::move(inputs));
      }
      for (const NodePtr &in : n->inputs)
        if (--uses.at(in.get()) == 0) replaced.erase(in.get());
    }
    NodePtr out = fold_rule(node);
    if (out == node && foldable_array(*node, deferred)) {
      if (uses.at(n) == 1)
        deferred.insert(node.get());
      else
        out = fold_array(node);
    }
    for (const NodePtr &in : node->inputs)
      deferred.erase(in.get()); // now inside node's chain, or evaluated with it
    replaced[n] = std::move(out);
  }
  std::vector<NodePtr> out;
  for (const NodePtr &r : roots)
    out.push_back(replaced.at(r.get()));
  return out;
}

} // namespace jx::passes
