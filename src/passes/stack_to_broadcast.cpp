// stack_to_broadcast: a concatenation of expressions that differ only in scalar literals (what
// jnp.stack([f(c) for c in cs]) builds) becomes one expression over a constant vector of the
// literals, broadcast along the concatenation axis.
//
// Supported: a Concatenate whose N >= 2 operands all have size 1 along the axis and are either
// all reshape(e_i) inserting that unit axis (jnp.stack's expand_dims) or all the expressions
// themselves. The e_i must match position by position, walking down from the root through
// elementwise ops only (unary, convert, binary, select): at each position the nodes are the same
// node (kept, broadcast along the axis), or all literals / all broadcasts of literals to the
// expression's shape (replaced by a constant vector of their values in operand order, of the
// literal's dtype, broadcast along the axis), or all the same elementwise op with identical
// op/dtype/weak/shape/attrs (matched input by input). Anything else leaves the Concatenate
// unchanged: differing movement ops, reductions, constants, iotas or parameters, realized nodes,
// runs of matching operands among non-matching ones, and weak results with differing literals
// (a constant vector is never weak).
#include <jx/dtype.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "interp/dispatch.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

// The nodes at one position of the matched expressions, one per operand.
using Tuple = std::vector<const Node *>;

struct TupleHash {
  size_t operator()(const Tuple &t) const {
    size_t h = t.size();
    for (const Node *n : t)
      h ^= std::hash<const Node *>()(n) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
};

bool identical(const Tuple &t) {
  for (const Node *n : t)
    if (n != t[0]) return false;
  return true;
}

// The literal of a position that may vary: a literal, or a literal broadcast to a shape.
const Node *literal_leaf(const Node &n) {
  if (n.op == Op::Literal) return &n;
  if (n.op == Op::Broadcast && !n.realized() && n.inputs[0]->op == Op::Literal)
    return n.inputs[0].get();
  return nullptr;
}

// Same node apart from inputs and literal value.
bool same_spec_but_inputs(const Node &a, const Node &b) {
  return a.op == b.op && a.dtype == b.dtype && a.weak == b.weak && a.shape == b.shape &&
         a.attrs == b.attrs && a.inputs.size() == b.inputs.size() && a.data == b.data;
}

enum class Kind { Literal, Elementwise };

struct Entry {
  Tuple nodes;
  Kind kind;
};

// A Concatenate matched position by position; entries are the positions where the operands
// differ, inputs before users.
struct Match {
  int64_t axis;
  bool inserted; // the expressions lack the unit axis (operands insert it into e_i)
  Tuple roots;
  NodePtr first_root; // owns roots[0]
  std::vector<Entry> entries;
  std::unordered_map<Tuple, size_t, TupleHash> index;
};

// Bounds the work on pathological graphs (a DAG that shares nodes in one operand only can have
// exponentially many position tuples).
constexpr size_t max_tuple_nodes = size_t(1) << 22;

std::optional<Match> match_stack(const Node &concat) {
  if (concat.op != Op::Concatenate || concat.realized() || concat.inputs.size() < 2)
    return std::nullopt;
  Match m;
  m.axis = concat.attrs[0];
  for (const NodePtr &op : concat.inputs)
    if (op->shape[m.axis] != 1) return std::nullopt;
  Shape without_axis = concat.inputs[0]->shape;
  without_axis.erase(without_axis.begin() + m.axis);
  m.inserted = true;
  for (const NodePtr &op : concat.inputs)
    m.inserted = m.inserted && (op->op == Op::Reshape || op->op == Op::Broadcast) &&
                 !op->realized() && op->inputs[0]->shape == without_axis;
  for (const NodePtr &op : concat.inputs)
    m.roots.push_back(m.inserted ? op->inputs[0].get() : op.get());
  m.first_root = m.inserted ? concat.inputs[0]->inputs[0] : concat.inputs[0];

  // Iterative post-order walk over position tuples.
  std::vector<std::pair<Tuple, bool>> stack{{m.roots, false}};
  size_t budget = max_tuple_nodes;
  while (!stack.empty()) {
    if (stack.back().second) {
      m.index.emplace(stack.back().first, m.entries.size());
      m.entries.push_back({std::move(stack.back().first), Kind::Elementwise});
      stack.pop_back();
      continue;
    }
    Tuple t = std::move(stack.back().first);
    stack.pop_back();
    if (identical(t) || m.index.count(t)) continue;
    if (budget < t.size()) return std::nullopt;
    budget -= t.size();
    const Node &first = *t[0];
    bool literals = true, same = true;
    for (const Node *n : t) {
      literals = literals && literal_leaf(*n) && same_spec_but_inputs(*n, first) &&
                 same_spec_but_inputs(*literal_leaf(*n), *literal_leaf(first));
      same = same && same_spec_but_inputs(*n, first) && !n->realized();
    }
    if (literals) {
      m.index.emplace(t, m.entries.size());
      m.entries.push_back({std::move(t), Kind::Literal});
      continue;
    }
    if (!same || !ir::is_elementwise(first.op)) return std::nullopt;
    stack.push_back({t, true});
    for (size_t i = 0; i < first.inputs.size(); ++i) {
      Tuple child;
      for (const Node *n : t)
        child.push_back(n->inputs[i].get());
      stack.push_back({std::move(child), false});
    }
  }
  // A constant vector is strong: a weak result cannot be rebuilt over one.
  for (const Entry &e : m.entries)
    if (concat.weak && e.kind == Kind::Literal) return std::nullopt;
  return m;
}

// Replaces a matched Concatenate by its single expression.
class StackMerger {
public:
  StackMerger(const Node &concat, const Match &m) : concat_(concat), m_(m) {
    for (int64_t d = 0; d < concat.ndim(); ++d)
      if (!m.inserted || d != m.axis) expr_dims_.push_back(d);
  }

  NodePtr run() {
    built_.reserve(m_.entries.size());
    for (const Entry &e : m_.entries)
      built_.push_back(e.kind == Kind::Literal ? vector_of(e.nodes) : elementwise(e.nodes));
    return node_for(m_.roots, m_.first_root);
  }

private:
  // The merged node of a position; first owns the position's node in the first operand.
  NodePtr node_for(const Tuple &t, const NodePtr &first) const {
    return identical(t) ? lift(first) : built_[m_.index.at(t)];
  }

  // A node shared by every operand, broadcast along the concatenation axis; a broadcast is
  // folded into the new one.
  NodePtr lift(const NodePtr &n) const {
    if (n->op == Op::Broadcast && !n->realized()) {
      std::vector<int64_t> dims;
      for (int64_t d : n->attrs)
        dims.push_back(expr_dims_[d]);
      return ir::broadcast(n->inputs[0], concat_.shape, dims);
    }
    return ir::broadcast(n, concat_.shape, expr_dims_);
  }

  NodePtr vector_of(const Tuple &t) const {
    const Node &lit0 = *literal_leaf(*t[0]);
    auto buffer = runtime::make_buffer(t.size() * itemsize(lit0.dtype));
    dispatch_dtype(lit0.dtype, [&](auto tag) {
      using T = decltype(tag);
      T *out = buffer->template as<T>();
      for (size_t i = 0; i < t.size(); ++i) {
        const Node &lit = *literal_leaf(*t[i]);
        out[i] = is_floating(lit.dtype) ? T(lit.fvalue) : T(lit.ivalue);
      }
    });
    NodePtr vec = ir::constant(std::move(buffer), lit0.dtype, {int64_t(t.size())});
    return ir::broadcast(std::move(vec), concat_.shape, {m_.axis});
  }

  NodePtr elementwise(const Tuple &t) {
    const Node &n = *t[0];
    std::vector<NodePtr> in;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      Tuple child;
      for (const Node *x : t)
        child.push_back(x->inputs[i].get());
      in.push_back(node_for(child, n.inputs[i]));
    }
    // The builders recompute weak flags from the new inputs.
    switch (ir::op_kind(n.op)) {
    case ir::OpKind::Unary:
      return n.op == Op::Convert ? ir::convert(in[0], n.dtype, n.weak) : ir::unary(n.op, in[0]);
    case ir::OpKind::Binary: return ir::binary(n.op, in[0], in[1]);
    default: return ir::select(in[0], in[1], in[2]);
    }
  }

  const Node &concat_;
  const Match &m_;
  std::vector<int64_t> expr_dims_; // output axis of each axis of the expressions
  std::vector<NodePtr> built_;
};

} // namespace

// The literal nodes (literals or broadcasts of literals) that stack_to_broadcast will replace by
// constant vectors: simplify must not rewrite them by value, or the operands stop matching.
std::unordered_set<const ir::Node *> stack_varying_literals(const std::vector<ir::NodePtr> &roots) {
  std::unordered_set<const Node *> out;
  for (const Node *n : ir::topological_order(roots))
    if (auto m = match_stack(*n))
      for (const Entry &e : m->entries)
        if (e.kind == Kind::Literal) out.insert(e.nodes.begin(), e.nodes.end());
  return out;
}

std::vector<ir::NodePtr> stack_to_broadcast(const std::vector<ir::NodePtr> &roots) {
  return rewrite(roots, [](const NodePtr &n) {
    std::optional<Match> m = match_stack(*n);
    if (!m) return n;
    NodePtr merged = StackMerger(*n, *m).run();
    bool same_type =
        merged->dtype == n->dtype && merged->shape == n->shape && merged->weak == n->weak;
    return same_type ? merged : n;
  });
}

} // namespace jx::passes
