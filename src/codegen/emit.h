// Fused kernel -> LLVM IR. One of the few files that see LLVM types (with src/backend and
// src/aot/object.cpp).
#pragma once

#include <memory>
#include <string>

#include "passes/kernel_plan.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace jx::codegen {

using passes::KernelPlan;

// Emits `plan` as an externally visible function `name` of type runtime::KernelFn into a new
// module.
std::unique_ptr<llvm::Module> emit_kernel(llvm::LLVMContext &context, const KernelPlan &plan,
                                          const std::string &name);
// The same into an existing module (kernels compiled together share one optimization run).
void emit_kernel_into(llvm::Module &module, const KernelPlan &plan, const std::string &name);

// The loops of plan's kernel as emitted (before LLVM optimizes them): how many, and the deepest
// nesting. For tests of the loop structure (unit axes and deep nests collapsed).
struct LoopCount {
  int loops = 0;
  int depth = 0;
};
LoopCount count_loops(const KernelPlan &plan);

} // namespace jx::codegen
