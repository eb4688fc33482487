// Fusion into kernels: materialization decisions, then one KernelPlan per materialized node.
#include "passes/fusion.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;

// Cheap enough to recompute in every consumer: literals, iotas, buffers (including nodes already
// chosen to be materialized), and movement ops (index arithmetic, selects) or casts over those.
constexpr int max_inline_depth = 64;

// Work worth a buffer when it would be repeated under a broadcast: a transcendental function,
// a division or a power somewhere in the inlined computation. Comparisons, selects and
// arithmetic are cheaper to recompute (and LLVM hoists what does not depend on inner loops).
bool expensive(const Node &n, std::unordered_map<const Node *, bool> &memo) {
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  bool result = false;
  if (!n.realized() && op_kind(n.op) != OpKind::Leaf) {
    switch (n.op) {
    case Op::Exp:
    case Op::Expm1:
    case Op::Log:
    case Op::Log1p:
    case Op::Sqrt:
    case Op::Sin:
    case Op::Cos:
    case Op::Tan:
    case Op::Tanh:
    case Op::ErfInv:
    case Op::Div:
    case Op::Rem:
    case Op::FloorDiv:
    case Op::Pow:
    case Op::ReduceSum:
    case Op::ReduceProd:
    case Op::ReduceMax:
    case Op::ReduceMin:
    case Op::ArgMax:
    case Op::ArgMin:
    case Op::DotGeneral: result = true; break;
    default:
      result = std::any_of(n.inputs.begin(), n.inputs.end(),
                           [&](const ir::NodePtr &in) { return expensive(*in, memo); });
    }
  }
  memo[&n] = result;
  return result;
}

// A literal, or a broadcast or cast of one: what NumPy handles as a scalar inside a loop.
bool scalar(const Node &n) {
  if (n.op == Op::Literal) return true;
  return (n.op == Op::Broadcast || n.op == Op::Convert || n.op == Op::Reshape) &&
         scalar(*n.inputs[0]);
}

bool trivial(const Node &n, std::unordered_map<const Node *, bool> &memo,
             const std::unordered_set<const Node *> &buffers = {}) {
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  bool result = false;
  if (buffers.count(&n) || n.realized() || n.op == Op::Literal || n.op == Op::Iota ||
      n.op == Op::Constant || n.op == Op::Parameter) {
    result = true;
  } else if (op_kind(n.op) == OpKind::Movement || n.op == Op::Convert) {
    result = std::all_of(n.inputs.begin(), n.inputs.end(),
                         [&](const ir::NodePtr &in) { return trivial(*in, memo, buffers); });
  }
  memo[&n] = result;
  return result;
}

} // namespace

std::vector<Step> plan_steps(const std::vector<ir::NodePtr> &roots, bool fuse) {
  const std::vector<const Node *> order = ir::topological_order(roots);
  std::unordered_map<const Node *, ir::NodePtr> owner;
  // Users of each node, and how many read it through an index rewrite (a movement op): only
  // those read it at other indices than the consumer's own, where recomputing would repeat work.
  std::unordered_map<const Node *, int> users, remapped_users;
  for (const ir::NodePtr &r : roots)
    owner[r.get()] = r;
  for (const Node *n : order) {
    if (n->realized()) continue;
    for (const ir::NodePtr &in : n->inputs) {
      owner[in.get()] = in;
      ++users[in.get()];
      if (op_kind(n->op) == OpKind::Movement) ++remapped_users[in.get()];
    }
  }
  std::unordered_set<const Node *> root_set;
  for (const ir::NodePtr &r : roots)
    root_set.insert(r.get());

  // Expensive work under an expanding broadcast would be repeated for every copy: compute it once
  // into a (small) buffer instead. With sink_movement having moved elementwise ops below
  // broadcasts, this is what hoists exp(-x) and log(x) out of the Simpson seed's function axis.
  std::unordered_set<const Node *> hoisted;
  std::unordered_map<const Node *, bool> costly;
  for (const Node *n : order)
    if (n->op == Op::Broadcast && !n->realized() && n->size() > n->inputs[0]->size() &&
        expensive(*n->inputs[0], costly))
      hoisted.insert(n->inputs[0].get());
  std::unordered_set<const Node *> materialized;
  std::unordered_map<const Node *, bool> cheap_now; // trivial, given what is materialized so far
  // Inline depth of each node within its kernel; long chains are cut so kernels (and the
  // emitter's recursion) stay bounded.
  std::unordered_map<const Node *, int> depth;
  for (const Node *n : order) {
    const OpKind kind = op_kind(n->op);
    int d = 0;
    if (!n->realized())
      for (const ir::NodePtr &in : n->inputs)
        if (!materialized.count(in.get())) d = std::max(d, depth[in.get()] + 1);
    bool m = root_set.count(n) || n->realized() || n->op == Op::Constant ||
             n->op == Op::RandomUniform || n->op == Op::Parameter || kind == OpKind::Reduce ||
             kind == OpKind::Contraction ||
             (users[n] > 1 && remapped_users[n] > 0 && !trivial(*n, cheap_now, materialized)) ||
             hoisted.count(n) || d >= max_inline_depth || (!fuse && !scalar(*n));
    if (m) materialized.insert(n);
    depth[n] = m ? 0 : d;
  }

  std::vector<Step> steps;
  for (const Node *n : order) {
    if (!materialized.count(n)) continue;
    ir::NodePtr node = owner.at(n);
    if (n->realized() || n->op == Op::Constant) {
      steps.push_back({Step::Kind::Buffer, node, {}});
      continue;
    }
    if (n->op == Op::Parameter) {
      steps.push_back({Step::Kind::Parameter, node, {}});
      continue;
    }
    if (n->op == Op::RandomUniform) {
      steps.push_back({Step::Kind::Random, node, {}});
      continue;
    }
    // The kernel's inputs: materialized nodes reachable without crossing another one.
    codegen::KernelPlan plan{node, {}};
    std::unordered_set<const Node *> seen{n};
    std::vector<const Node *> stack{n};
    while (!stack.empty()) {
      const Node *cur = stack.back();
      stack.pop_back();
      for (const ir::NodePtr &in : cur->inputs) {
        if (!seen.insert(in.get()).second) continue;
        if (materialized.count(in.get()))
          plan.inputs.push_back(in.get());
        else
          stack.push_back(in.get());
      }
    }
    plan.collect_literals();
    steps.push_back({Step::Kind::Kernel, node, std::move(plan)});
  }
  return steps;
}

} // namespace jx::passes
