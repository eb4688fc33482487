// The compile driver: a traced graph through every stage to a program the runtime runs. The
// stages, in order (lower.cpp, whose body is this list):
//   1. graph passes          passes::optimize          src/passes/pipeline.cpp
//   2. fusion plan           passes::plan_steps        src/passes/fusion.cpp
//   3. sharding              sharding::place           src/sharding/placement.cpp
//   4. buffer assignment     assign_buffers            src/compile/buffers.cpp
//   5. control regions       compile_regions           src/compile/kernels.cpp (each a program)
//   6. process partition     partition_processes       src/compile/distribute.cpp (across
//                                                      processes only)
//   7. code generation       compile_kernels           src/compile/kernels.cpp (codegen, backend)
//   8. cost analysis         cost_analysis             src/compile/cost.cpp
//   9. runtime program       runtime_program           src/compile/runtime_program.cpp
// Tracing (a function to its graph) comes before them: src/api/tracing.cpp.
#pragma once

#include <memory>
#include <optional>
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

// Stage 6's result for a program that spans processes (distribute.h): per slot the window of its
// array this process holds, the exchange after the last step that leaves each output's
// addressable shards here, per output whether this process holds less than the whole of it, the
// hash of the global program (the same on every process that compiled the same function), and
// the bytes all processes together move per call.
struct ProcessPart {
  std::vector<runtime::Program::Layout> layouts;
  runtime::Exchange gather;
  std::vector<bool> partial_outputs;
  uint64_t fingerprint = 0;
  double moved_bytes = 0;
};

struct ProgramPlan {
  std::vector<ProgramStep> steps;
  std::vector<int> output_slots;
  int slot_count = 0;
  std::vector<int64_t> arena_offset; // per slot: offset in the arena, or -1 (own buffer)
  size_t arena_bytes = 0, intermediate_bytes = 0;
  std::optional<ProcessPart> processes; // across processes only
  Cost cost;
};

// What lower() makes: the plan (as_text, as_dot, AOT's kernel plans) and the program the runtime
// runs.
struct Lowered {
  ProgramPlan plan;
  runtime::Program program;
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
  // Across processes: this process and their count (partition_processes).
  int process = 0, processes = 1;
};

// Every stage in order. params: Parameter nodes in argument order (bound at run time); outputs:
// the values returned.
Lowered lower(const std::vector<ir::NodePtr> &params, const std::vector<ir::NodePtr> &outputs,
              const LowerOptions &options);

// Stage 4: a buffer slot per value, the runtime's view of each step, streamed outputs, frees
// after each intermediate's last reader, donations, and the arena of intermediates.
ProgramPlan assign_buffers(std::vector<passes::Step> &plan,
                           std::vector<sharding::StepPlacement> placed,
                           const std::vector<ir::NodePtr> &params,
                           const std::vector<ir::NodePtr> &roots, const std::vector<int> &donated,
                           bool across_processes = false);

// Stage 5: control flow's regions, each compiled as a program of its own (across processes when
// across_processes: their placed steps computed per process, as the program's own).
void compile_regions(ProgramPlan &program, bool across_processes);

// Stage 7: every kernel of the program compiled together (one module, one optimization run), for
// the windows of its buffers where stage 6 gave them.
void compile_kernels(ProgramPlan &program);

// Stage 8: what a run computes and moves, as XLA's cost analysis counts it.
Cost cost_analysis(const std::vector<passes::Step> &plan, const ProgramPlan &program);

// Stage 9: the steps as the runtime runs them; params give the arguments' sizes.
runtime::Program runtime_program(const ProgramPlan &program,
                                 const std::vector<ir::NodePtr> &params);

} // namespace jx::compile
