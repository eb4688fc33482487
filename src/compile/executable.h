// A graph compiled once (lower.h) into kernels over numbered buffer slots, then run many times:
// the engine behind jx::jit's Compiled and behind eager evaluation.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "compile/lower.h"

namespace jx::compile {

class Executable {
public:
  using Cost = compile::Cost;

  // Compiles outputs as functions of params (lower.h; options there). across_processes: a placed
  // program is run by every process of jx::distributed together, each computing its devices'
  // boxes (distribute.h).
  Executable(std::vector<ir::NodePtr> params, std::vector<ir::NodePtr> outputs, bool fuse = true,
             const std::vector<int> &donated = {},
             const std::vector<sharding::Placement> &placements = {},
             const std::vector<sharding::Placement> &param_placements = {},
             bool across_processes = false);

  // Across processes, every process must call it (one call at a time per process); the first
  // call compares the programs' fingerprints (jx::Error naming both when they differ).
  std::vector<runtime::BufferPtr> run(const std::vector<runtime::BufferPtr> &args) const;

  // Whether the program runs across processes.
  bool distributed() const { return program_.distributed; }
  // Across processes: whether this process holds less than the whole of output i.
  bool partial_output(size_t i) const {
    return i < program_.partial_outputs.size() && program_.partial_outputs[i];
  }

  // The kernel plan: one line per step, then each kernel's optimized LLVM IR.
  std::string as_text() const;
  // The plan in Graphviz's language (src/compile/dot.cpp): each kernel a cluster of the nodes it
  // computes inline, buffers between them, types on the edges, device boxes and transfers.
  std::string as_dot() const;

  Cost cost() const { return plan_.cost; }

  // What one call holds (jx::MemoryAnalysis).
  struct Memory {
    int64_t argument_bytes = 0, output_bytes = 0, alias_bytes = 0, temp_bytes = 0, arena_bytes = 0;
  };
  Memory memory() const;

  // Bytes of the per-call arena holding the intermediates, which share memory when their
  // lifetimes do not overlap; and what they would take each in its own buffer.
  size_t arena_bytes() const { return plan_.arena_bytes; }
  size_t intermediate_bytes() const { return plan_.intermediate_bytes; }

  // What jx::aot compiles ahead of time: the runtime program, and the plan of each of its kernels
  // in step order (steps with a null kernel have none), a control step's regions' kernels in
  // their place, depth first.
  const runtime::Program &program() const { return program_; }
  std::vector<const passes::KernelPlan *> kernel_plans() const;

private:
  std::vector<ir::NodePtr> params_, outputs_; // kept alive for the value callbacks
  ProgramPlan plan_;
  runtime::Program program_; // what run() hands the runtime
  mutable std::once_flag fingerprint_checked_;
};

// Eager evaluation: the values of roots through compiled kernels.
std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots);

} // namespace jx::compile
