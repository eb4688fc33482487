// Stage 8, cost analysis: flops, transcendentals and bytes per kernel, as XLA's cost analysis
// counts per instruction, and the bytes the devices read from each other.
#include <unordered_set>

#include "compile/executable.h"
#include "compile/lower.h"
#include "ir/builder.h"

namespace jx::compile {

namespace {

// What one kernel costs: every node it computes inline, at the node's own element count, plus the
// bytes of its buffers (unless only the work is asked for).
Cost kernel_cost(const passes::KernelPlan &plan, bool buffers = true) {
  Cost cost;
  std::unordered_set<const ir::Node *> inputs(plan.inputs.begin(), plan.inputs.end()), seen;
  std::vector<const ir::Node *> stack;
  for (const ir::NodePtr &root : plan.roots)
    if (seen.insert(root.get()).second) stack.push_back(root.get());
  while (!stack.empty()) {
    const ir::Node *n = stack.back();
    stack.pop_back();
    const double size = double(n->size());
    switch (op_kind(n->op)) {
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
      if (ir::is_libm_function(n->op) || n->op == ir::Op::Sqrt || n->op == ir::Op::ErfInv)
        cost.transcendentals += size;
      else if (n->op != ir::Op::Convert)
        cost.flops += size;
      break;
    case ir::OpKind::Reduce:
    case ir::OpKind::Library: {
      // Linear algebra: m n min(m, n) per matrix, the order of every factorization here.
      const Shape &x = n->inputs[0]->shape;
      const double depth =
          ir::is_linalg(n->op) ? double(std::min(x[x.size() - 2], x[x.size() - 1])) : 1;
      cost.flops += double(n->inputs[0]->size()) * depth;
      break;
    }
    case ir::OpKind::Contraction: {
      double k = 1;
      for (int64_t axis : ir::dot_dims(*n).lhs_contract)
        k *= double(n->inputs[0]->shape[axis]);
      cost.flops += 2 * size * k;
      break;
    }
    case ir::OpKind::Control:
      // A scan run inside the kernel: its body's nodes, per element, times its length.
      if (n->op == ir::Op::Scan) {
        const ir::Region &body = (*n->regions)[0];
        passes::KernelPlan step{body.outputs, {}};
        for (const ir::NodePtr &p : body.params)
          step.inputs.push_back(p.get());
        cost += kernel_cost(step, false) * double(n->attrs[2]);
      }
      break;
    case ir::OpKind::Leaf:
    case ir::OpKind::Movement:
    case ir::OpKind::Marker: break;
    }
    for (const ir::NodePtr &in : n->inputs)
      if (!inputs.count(in.get()) && seen.insert(in.get()).second) stack.push_back(in.get());
  }
  if (!buffers) return cost;
  for (const ir::NodePtr &root : plan.roots)
    cost.bytes_accessed += double(root->size() * itemsize(root->dtype));
  for (const ir::Node *in : plan.inputs)
    cost.bytes_accessed += double(in->size() * itemsize(in->dtype));
  return cost;
}

// A control step's regions (compiled in stage 5, their own costs counted there): a scan's body
// times its length, a while's condition and body once (its trip count is not known before it
// runs; XLA's cost analysis counts a while's body once too), a case's costliest branch.
Cost control_cost(const ProgramStep &s) {
  Cost cost;
  const ir::Node &op = *s.node;
  for (const std::shared_ptr<const Executable> &region : s.regions) {
    const Cost c = region->cost();
    if (op.op == ir::Op::Case) {
      cost.flops = std::max(cost.flops, c.flops);
      cost.transcendentals = std::max(cost.transcendentals, c.transcendentals);
      cost.bytes_accessed = std::max(cost.bytes_accessed, c.bytes_accessed);
      cost.communication_bytes = std::max(cost.communication_bytes, c.communication_bytes);
    } else {
      cost += op.op == ir::Op::Scan ? c * double(op.attrs[2]) : c;
    }
  }
  return cost;
}

} // namespace

Cost cost_analysis(const std::vector<passes::Step> &plan, const ProgramPlan &program) {
  Cost cost;
  // Kernels with work, and contractions, whose plans list their root and the buffers BLAS reads.
  for (const passes::Step &p : plan) {
    const bool kernel = p.kind == passes::Step::Kind::Kernel && p.node->size() > 0;
    if (!kernel && p.kind != passes::Step::Kind::Contraction &&
        p.kind != passes::Step::Kind::Library)
      continue;
    cost += kernel_cost(p.plan);
  }
  for (const ProgramStep &s : program.steps) {
    for (const sharding::Transfer &t : s.placement.transfers)
      cost.communication_bytes += t.bytes;
    if (s.kind == ProgramStep::Kind::Control) cost += control_cost(s);
  }
  // Across processes, what moves is what crosses them: devices of one process read each other's
  // boxes in place.
  if (program.processes) cost.communication_bytes = program.processes->moved_bytes;
  return cost;
}

} // namespace jx::compile
