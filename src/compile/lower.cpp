// The compile driver: the stages of lower.h, in order, and nothing else.
#include "compile/lower.h"

#include <algorithm>

#include "compile/distribute.h"
#include "passes/pipeline.h"
#include "runtime/trace.h"

namespace jx::compile {

namespace {

// Runs one stage under a span of the trace named after it.
template <class F> auto stage(const char *name, F &&run) {
  runtime::trace::Span span("compile", name);
  return run();
}

bool any_placed(const LowerOptions &options) {
  const auto any = [](const std::vector<sharding::Placement> &list) {
    return std::any_of(list.begin(), list.end(), [](const auto &p) { return !p.empty(); });
  };
  return any(options.placements) || any(options.param_placements);
}

} // namespace

Lowered lower(const std::vector<ir::NodePtr> &params, const std::vector<ir::NodePtr> &outputs,
              const LowerOptions &options) {
  // Other threads' realizations wait until the plan is made: every pass sees one graph.
  ir::GraphReadLock graph_lock;
  const bool across = options.devices_per_process > 0;
  const std::vector<ir::NodePtr> roots =
      stage("1. graph passes", [&] { return options.fuse ? passes::optimize(outputs) : outputs; });
  std::vector<passes::Step> steps =
      stage("2. fusion plan", [&] { return passes::plan_steps(roots, options.fuse, !across); });
  std::vector<sharding::StepPlacement> placed = stage("3. sharding", [&] {
    return sharding::place(steps, roots, options.placements, params, options.param_placements,
                           options.devices_per_process);
  });
  ProgramPlan plan = stage("4. buffer assignment", [&] {
    return assign_buffers(steps, std::move(placed), params, roots, options.donated, across);
  });
  stage("5. control regions", [&] { compile_regions(plan, across); });
  // Any placement at all: a region whose params are placed runs across processes even when it
  // computes nothing placed, so that its caller hands it shards throughout.
  if (across && any_placed(options))
    stage("6. process partition", [&] { partition_processes(plan, options); });
  stage("7. code generation", [&] { compile_kernels(plan); });
  plan.cost = stage("8. cost analysis", [&] { return cost_analysis(steps, plan); });
  runtime::Program program =
      stage("9. runtime program", [&] { return runtime_program(plan, params); });
  return {std::move(plan), std::move(program)};
}

} // namespace jx::compile
