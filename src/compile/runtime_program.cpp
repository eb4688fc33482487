// Stage 9: each step's run part, completed with what follows from its nodes (kinds, sizes,
// kernel entry points; the graph only behind the value callback), and across processes the
// windows and exchanges of stage 6.
#include "compile/executable.h"
#include "compile/lower.h"
#include "ir/builder.h"

namespace jx::compile {

runtime::Program runtime_program(const ProgramPlan &plan, const std::vector<ir::NodePtr> &params) {
  runtime::Program program{.steps = {},
                           .outputs = plan.output_slots,
                           .arena_offset = plan.arena_offset,
                           .arena_bytes = plan.arena_bytes,
                           .slot_count = plan.slot_count};
  for (const ir::NodePtr &p : params)
    program.argument_bytes.push_back(p->size() * int64_t(itemsize(p->dtype)));
  if (const std::optional<ProcessPart> &part = plan.processes) {
    program.distributed = true;
    program.layouts = part->layouts;
    program.gather = part->gather;
    program.partial_outputs = part->partial_outputs;
    program.fingerprint = part->fingerprint;
  }
  for (const ProgramStep &s : plan.steps) {
    runtime::Step r = s.run;
    const ir::NodePtr node = s.node;
    switch (s.kind) {
    case ProgramStep::Kind::Buffer:
      r.kind = runtime::Step::Kind::Value;
      r.value = [node] { return node->value(); };
      break;
    case ProgramStep::Kind::Parameter:
      r.kind = runtime::Step::Kind::Argument;
      r.argument = int(node->attrs[0]);
      break;
    case ProgramStep::Kind::Random:
      r.kind = runtime::Step::Kind::Fill;
      r.out_bytes = {size_t(node->size()) * itemsize(node->dtype)};
      r.key_hi = uint32_t(node->attrs[0]);
      r.key_lo = uint32_t(node->attrs[1]);
      r.dtype = node->dtype;
      r.extent = node->shape;
      break;
    case ProgramStep::Kind::Contraction:
      r.kind = runtime::Step::Kind::Contraction;
      r.out_bytes = {size_t(node->size()) * itemsize(node->dtype)};
      r.extent = node->shape;
      break;
    case ProgramStep::Kind::Library:
      r.kind = runtime::Step::Kind::Library;
      r.out_bytes = {size_t(node->size()) * itemsize(node->dtype)};
      r.extent = ir::library_extent(*node);
      break;
    case ProgramStep::Kind::Control:
      r.kind = node->op == ir::Op::While  ? runtime::Step::Kind::While
               : node->op == ir::Op::Scan ? runtime::Step::Kind::Scan
                                          : runtime::Step::Kind::Case;
      if (node->op != ir::Op::Case) r.carries = node->attrs[0];
      if (node->op == ir::Op::Scan) {
        r.xs = node->attrs[1];
        r.length = node->attrs[2];
        r.reverse = node->attrs[3] != 0;
      }
      for (const ir::NodePtr &root : s.roots)
        r.out_bytes.push_back(size_t(root->size()) * itemsize(root->dtype));
      for (const std::shared_ptr<const Executable> &e : s.regions)
        r.regions.push_back(std::shared_ptr<const runtime::Program>(e, &e->program()));
      break;
    case ProgramStep::Kind::Kernel:
      r.kind = runtime::Step::Kind::Kernel;
      for (const ir::NodePtr &root : s.roots)
        r.out_bytes.push_back(size_t(root->size()) * itemsize(root->dtype));
      r.kernel = s.kernel ? s.kernel->fn : nullptr;
      r.name = s.kernel ? s.kernel->name : "empty kernel";
      r.extent = s.plan->loop_shape();
      break;
    }
    program.steps.push_back(std::move(r));
  }
  return program;
}

} // namespace jx::compile
