// Fusion: decides which nodes are materialized in memory and which are computed inline inside
// the kernel of their consumer. Produces the program's steps in execution order.
#pragma once

#include <vector>

#include "passes/contraction.h"
#include "passes/kernel_plan.h"

namespace jx::passes {

struct Step {
  enum class Kind {
    Buffer,      // the value already exists: a constant or a realized node
    Parameter,   // a jit argument, bound when the program runs
    Random,      // filled by the runtime's threefry (a library call, not a generated kernel)
    Kernel,      // computed by a generated kernel
    Contraction, // a dot_general computed by BLAS (plan_gemm): plan.inputs are {lhs, rhs}
    Control,     // while / case: plan.roots are its results, plan.inputs its operands
    Library,     // a runtime routine (sort, cumsum): plan.roots = {node}, plan.inputs its operands
  };
  Kind kind;
  ir::NodePtr node;        // the value, or a kernel's first root
  passes::KernelPlan plan; // Kind::Kernel; for Kind::Contraction only its roots and inputs
  GemmPlan gemm{};         // Kind::Contraction only
};

// Contractions that plan_gemm accepts run as BLAS calls on buffers: what their operands'
// transposes and broadcasts read is materialized, the rest of each operand is not copied.
// A node is materialized when it is a root, already has data, is a reduction or contraction
// read by a later kernel (inlining would repeat the whole reduction per element), is work of 4
// or more arithmetic ops per element (or a costly op) read by several consumers of which some
// read it at other indices (through a movement op; less is recomputed at each index), or is
// real work under an expanding broadcast (it is then computed once per distinct element: a
// hoisted buffer). Consumers that read a node at their own index share one computation of it
// inside their kernel. Elementwise kernels of one shape that do not depend on each other then
// merge into one kernel with several roots (multi-output fusion).
// With fuse = false every non-leaf node is its own kernel (op-by-op, like eager NumPy): the
// baseline the fusion benchmarks compare against.
// With sequential_loops, a loop that updates one array carry a little per step runs inside one
// kernel (sequential_loop_veto); not in a program split across processes, whose kernels write
// windows of their outputs.
std::vector<Step> plan_steps(const std::vector<ir::NodePtr> &roots, bool fuse = true,
                             bool sequential_loops = true);

} // namespace jx::passes
