// Stage 5, control regions: each region of a control step compiled as a program of its own.
// Stage 7, code generation: every kernel of a program emitted into one LLVM module, optimized
// and compiled together (backend::compile_all; the disk and memory caches answer what they can).
#include "compile/executable.h"
#include "compile/lower.h"

namespace jx::compile {

namespace {

// A region's placements from its control step's operands (sharding::StepPlacement): params are
// placed as the operands they stand for (a scan's rows of xs and a case's index excepted), a
// loop body's carries as the carries' initial values; the rest whole.
std::vector<sharding::Placement> region_placements(const ir::Node &op, const ir::Region &region,
                                                   const ProgramStep &s, bool outputs) {
  const std::vector<sharding::Placement> &operands = s.placement.operands;
  std::vector<sharding::Placement> out(outputs ? region.outputs.size() : region.params.size());
  if (operands.empty()) return out;
  const size_t carries = op.op == ir::Op::Case ? 0 : size_t(op.attrs[0]);
  const size_t rows = op.op == ir::Op::Scan ? size_t(op.attrs[1]) : 0;
  const bool body =
      op.op == ir::Op::Scan || (op.op == ir::Op::While && &region == &(*op.regions)[1]);
  for (size_t i = 0; i < out.size(); ++i) {
    if (outputs) {
      if (body && i < carries) out[i] = operands[i];
    } else if (op.op == ir::Op::Case) {
      out[i] = operands[i + 1];
    } else if (i < carries || i >= carries + rows) {
      out[i] = operands[i];
    }
  }
  return out;
}

// A loop body's carries, donated to it: the runtime hands it carries that only the loop holds
// from the second iteration on, so an update of one runs in place.
std::vector<int> donated_carries(const ir::Node &op, const ir::Region &region) {
  const bool body =
      op.op == ir::Op::Scan || (op.op == ir::Op::While && &region == &(*op.regions)[1]);
  std::vector<int> carries;
  if (body)
    for (int64_t i = 0; i < op.attrs[0]; ++i)
      carries.push_back(int(i));
  return carries;
}

} // namespace

void compile_regions(ProgramPlan &program, bool across_processes) {
  for (ProgramStep &s : program.steps)
    if (s.kind == ProgramStep::Kind::Control)
      for (const ir::Region &r : *s.node->regions)
        s.regions.push_back(std::make_shared<const Executable>(
            r.params, r.outputs, true, donated_carries(*s.node, r),
            region_placements(*s.node, r, s, true), region_placements(*s.node, r, s, false),
            across_processes));
}

void compile_kernels(ProgramPlan &program) {
  std::vector<const passes::KernelPlan *> plans;
  std::vector<ProgramStep *> owners;
  for (ProgramStep &s : program.steps)
    if (s.kind == ProgramStep::Kind::Kernel && s.node->size() > 0) {
      plans.push_back(s.plan.get());
      owners.push_back(&s);
    }
  std::vector<std::shared_ptr<const backend::CompiledKernel>> kernels = backend::compile_all(plans);
  for (size_t k = 0; k < kernels.size(); ++k)
    owners[k]->kernel = std::move(kernels[k]);
}

} // namespace jx::compile
