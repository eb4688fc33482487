// The compile driver: the stages of lower.h, in order, and nothing else.
#include "compile/lower.h"

#include "passes/pipeline.h"
#include "runtime/trace.h"

namespace jx::compile {

ProgramPlan lower(const std::vector<ir::NodePtr> &params, const std::vector<ir::NodePtr> &outputs,
                  const LowerOptions &options) {
  // Other threads' realizations wait until the plan is made: every pass sees one graph.
  ir::GraphReadLock graph_lock;
  // 1. Graph passes.
  std::vector<ir::NodePtr> roots;
  {
    runtime::trace::Span span("compile", "1. graph passes");
    roots = options.fuse ? passes::optimize(outputs) : outputs;
  }
  // 2. Fusion plan: kernels, contractions, buffers.
  std::vector<passes::Step> plan;
  {
    runtime::trace::Span span("compile", "2. fusion plan");
    plan = passes::plan_steps(roots, options.fuse, options.devices_per_process == 0);
  }
  // 3. Sharding: device boxes per kernel, transfers between devices.
  std::vector<sharding::StepPlacement> placed;
  {
    runtime::trace::Span span("compile", "3. sharding");
    placed = sharding::place(plan, roots, options.placements, params, options.param_placements,
                             options.devices_per_process);
  }
  // 4. Buffer assignment.
  ProgramPlan program = [&] {
    runtime::trace::Span span("compile", "4. buffer assignment");
    return assign_buffers(plan, std::move(placed), params, roots, options.donated,
                          options.devices_per_process > 0);
  }();
  // 5. Code generation.
  {
    runtime::trace::Span span("compile", "5. code generation");
    compile_kernels(program, options.devices_per_process > 0);
  }
  // 6. Cost analysis.
  program.cost = cost_analysis(plan, program);
  return program;
}

} // namespace jx::compile
