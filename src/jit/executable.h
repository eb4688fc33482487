// A graph compiled once into kernels over numbered buffer slots, then run many times: the
// engine behind jx::jit's Compiled and behind eager evaluation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/node.h"
#include "jit/jit.h"
#include "passes/fusion.h"
#include "runtime/program.h"

namespace jx::backend {

// The part of an array a device computes and owns: [lo, hi) along each axis of one global buffer.
struct DeviceBox {
  int device;
  std::vector<int64_t> lo, hi;
};
// Where an array lives: one box per device (equal boxes for replicas); empty: one device.
using Placement = std::vector<DeviceBox>;

// What the devices of a placed kernel read from other devices' shards of one input, as the
// collective a distributed runtime would run for it (on shared memory: direct reads after the
// producing step's barrier).
struct Transfer {
  int input; // slot
  const char *collective;
  double bytes;
};

class Executable {
public:
  // params: Parameter nodes in argument order (bound at run time); outputs: the values returned.
  // fuse = false runs every op as its own kernel (the unfused baseline of the benchmarks).
  // donated: argument positions whose memory an output of the same size may take (the caller's
  // array is then deleted), as jax.jit's donate_argnums.
  // placements: per output (or none), the devices computing it, each its own box; kernels of
  // intermediates with an output's shape follow that output's placement. param_placements: where
  // each argument's shards live (for the communication the plan reports).
  Executable(std::vector<ir::NodePtr> params, std::vector<ir::NodePtr> outputs, bool fuse = true,
             const std::vector<int> &donated = {}, const std::vector<Placement> &placements = {},
             const std::vector<Placement> &param_placements = {});

  std::vector<runtime::BufferPtr> run(const std::vector<runtime::BufferPtr> &args) const;

  // The kernel plan: one line per step, then each kernel's optimized LLVM IR.
  std::string as_text() const;

  // Operation counts and bytes moved by one run (see jx::CostAnalysis).
  struct Cost {
    double flops = 0, transcendentals = 0, bytes_accessed = 0;
    double communication_bytes = 0; // read by devices from other devices' shards
  };
  Cost cost() const { return cost_; }

  // Bytes of the per-call arena holding the intermediates, which share memory when their
  // lifetimes do not overlap; and what they would take each in its own buffer.
  size_t arena_bytes() const { return arena_bytes_; }
  size_t intermediate_bytes() const { return intermediate_bytes_; }

  // What jx::aot compiles ahead of time: the runtime program, and the plan of each of its kernels
  // in step order (steps with a null kernel have none).
  const runtime::Program &program() const { return program_; }
  std::vector<const codegen::KernelPlan *> kernel_plans() const;

private:
  struct Step {
    enum class Kind { Buffer, Parameter, Random, Kernel, Contraction } kind;
    ir::NodePtr node;                 // the value, or a kernel's first root
    std::vector<ir::NodePtr> roots{}; // Kind::Kernel: what the kernel writes
    std::shared_ptr<const CompiledKernel> kernel{};
    std::shared_ptr<const codegen::KernelPlan> plan{}; // of kernel
    // Placed kernels: the devices' distinct boxes (run.tasks splits them for the pool).
    Placement boxes{};
    std::vector<Transfer> transfers{};
    // What the runtime needs: slots, literals, chunking, tasks, donations, frees
    // (runtime_program completes it).
    runtime::Step run{.kind = runtime::Step::Kind::Value};
  };
  void donate(int position, const std::vector<passes::Step> &plan);
  void assign_arena(const std::vector<int> &last_reader);
  runtime::Program runtime_program() const;
  std::vector<ir::NodePtr> params_, outputs_;
  std::vector<Step> steps_;
  std::vector<int> output_slots_;
  int slot_count_ = 0;
  std::vector<int64_t> arena_offset_; // per slot: offset in the arena, or -1 (own buffer)
  size_t arena_bytes_ = 0, intermediate_bytes_ = 0;
  runtime::Program program_; // what run() hands the runtime
  Cost cost_;
};

// Eager evaluation: the values of roots through compiled kernels.
std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots);

} // namespace jx::backend
