// The kernel compiler: LLVM O3 for the host CPU, ORC LLJIT, and an in-memory cache keyed by the
// kernel's structure. No LLVM types in this header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel.h"

namespace jx::backend {

struct CompiledKernel {
  codegen::KernelFn fn;
  std::string name;
  std::string optimized_ir; // kept for Compiled::as_text and tests
  double compile_ms;
};

// The compiled form of plan: from the cache when a structurally equal kernel was compiled
// before, else compiled now. Thread-safe.
std::shared_ptr<const CompiledKernel> compile(const codegen::KernelPlan &plan);

// compile() for many plans at once: the missing kernels share one module, one O3 run and one
// code generation, which costs far less than compiling them one by one.
std::vector<std::shared_ptr<const CompiledKernel>>
compile_all(const std::vector<const codegen::KernelPlan *> &plans);

// Number of kernels compiled (not served from the cache) so far, for tests.
size_t compiled_kernel_count();

// Host assembly for plan's kernel (for tests and inspection; not cached).
std::string assembly(const codegen::KernelPlan &plan);

} // namespace jx::backend
