// The compile driver: a traced graph through every stage to a program the runtime runs. The
// stages, in order (lower.cpp):
//   1. graph passes          passes::optimize          src/passes/pipeline.cpp
//   2. fusion plan           passes::plan_steps        src/passes/fusion.cpp
//   3. sharding              sharding::place           src/sharding/placement.cpp
//   4. buffer assignment     assign_buffers            src/compile/buffers.cpp
//   5. code generation       compile_kernels           src/compile/kernels.cpp (codegen, backend)
//   6. cost analysis         cost_analysis             src/compile/cost.cpp
//   7. runtime program       runtime_program           src/compile/runtime_program.cpp
#pragma once

#include <memory>
#include <vector>

#include "backend/orc_jit.h"
#include "ir/node.h"
#include "passes/fusion.h"
#include "runtime/program.h"
#include "sharding/placement.h"

namespace jx::compile {

class Executable;

// Operation counts and bytes moved by one run (see jx::CostAnalysis).
struct Cost {
  double flops = 0, transcendentals = 0, bytes_accessed = 0;
  double communication_bytes = 0; // read by devices from other devices' shards

  Cost &operator+=(const Cost &c) {
    flops += c.flops;
    transcendentals += c.transcendentals;
    bytes_accessed += c.bytes_accessed;
    communication_bytes += c.communication_bytes;
    return *this;
  }
  Cost operator*(double times) const {
    return {flops * times, transcendentals * times, bytes_accessed * times,
            communication_bytes * times};
  }
};

// One step of a compiled program: what the plan says, and what the runtime needs.
struct ProgramStep {
  enum class Kind { Buffer, Parameter, Random, Kernel, Contraction, Control, Library } kind;
  ir::NodePtr node;                 // the value, a kernel's first root, or the control op
  std::vector<ir::NodePtr> roots{}; // Kind::Kernel: what the kernel writes; Control: the results
  std::shared_ptr<const passes::KernelPlan> plan{};        // Kind::Kernel
  std::shared_ptr<const backend::CompiledKernel> kernel{}; // of plan; none for empty outputs
  // Kind::Control: each region compiled as a program of its own (stage 5).
  std::vector<std::shared_ptr<const Executable>> regions{};
  sharding::StepPlacement placement{};
  // Kind::Kernel updating its operand (run.update_input): whether it runs in place, and why
  // (as_text prints it).
  std::string update_note{};
  // What the runtime needs: slots, literals, chunking, tasks, donations, frees
  // (runtime_program completes it).
  runtime::Step run{.kind = runtime::Step::Kind::Value};
};

// A plan step kind's name (as_text, as_dot).
const char *step_kind_name(ProgramStep::Kind kind);
// A device's box as the plans print it: dev3[0:512,0:4096].
std::string box_text(const sharding::DeviceBox &box);

struct ProgramPlan {
  std::vector<ProgramStep> steps;
  std::vector<int> output_slots;
  int slot_count = 0;
  std::vector<int64_t> arena_offset; // per slot: offset in the arena, or -1 (own buffer)
  size_t arena_bytes = 0, intermediate_bytes = 0;
  Cost cost;
};

struct LowerOptions {
  // false runs every op as its own kernel and skips the graph passes: the op-by-op program as
  // written (the unfused baseline of the benchmarks).
  bool fuse = true;
  // Argument positions whose memory an output of the same size may take (jax.jit's
  // donate_argnums).
  std::vector<int> donated{};
  // Per output (or none): the devices computing it, each its own box.
  std::vector<sharding::Placement> placements{};
  // Per argument (or none): where its shards live.
  std::vector<sharding::Placement> param_placements{};
  // Across processes: each process's device count (sharding::place); 0 for one process.
  int devices_per_process = 0;
};

// Every stage in order. params: Parameter nodes in argument order (bound at run time); outputs:
// the values returned.
ProgramPlan lower(const std::vector<ir::NodePtr> &params, const std::vector<ir::NodePtr> &outputs,
                  const LowerOptions &options);

// Stage 4: a buffer slot per value, the runtime's view of each step, streamed outputs, frees
// after each intermediate's last reader, donations, and the arena of intermediates.
ProgramPlan assign_buffers(std::vector<passes::Step> &plan,
                           std::vector<sharding::StepPlacement> placed,
                           const std::vector<ir::NodePtr> &params,
                           const std::vector<ir::NodePtr> &roots, const std::vector<int> &donated,
                           bool across_processes = false);

// Stage 5: every kernel of the program compiled together (one module, one optimization run);
// control flow's regions each compiled as a program of their own (across processes when
// across_processes: their placed steps computed per process, as the program's own).
void compile_kernels(ProgramPlan &program, bool across_processes = false);

// Stage 6: what a run computes and moves, as XLA's cost analysis counts it.
Cost cost_analysis(const std::vector<passes::Step> &plan, const ProgramPlan &program);

// Stage 7: the steps as the runtime runs them.
runtime::Program runtime_program(const ProgramPlan &program);

} // namespace jx::compile
