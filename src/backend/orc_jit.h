// The kernel compiler: LLVM O3 for the host CPU, ORC LLJIT, an in-memory cache keyed by the
// kernel's structure and, under JX_CACHE_DIR, a persistent cache of compiled object files. No
// LLVM types in this header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/kernel_plan.h"

namespace jx::backend {

struct CompiledKernel {
  runtime::KernelFn fn;
  std::string name;
  std::string optimized_ir; // kept for Compiled::as_text and tests
  double compile_ms;        // of its whole batch; when loaded from the disk cache, the load time
};

// The compiled form of plan: from the cache when a structurally equal kernel was compiled
// before, else compiled now. Thread-safe.
std::shared_ptr<const CompiledKernel> compile(const passes::KernelPlan &plan);

// compile() for many plans at once: the missing kernels are split into up to one module per
// thread (JX_NUM_THREADS), compiled in parallel, each with one O3 run and one code generation,
// which costs far less than compiling them one by one.
std::vector<std::shared_ptr<const CompiledKernel>>
compile_all(const std::vector<const passes::KernelPlan *> &plans);

// Number of kernels compiled or loaded from the disk cache (not served from the in-memory cache)
// so far, for tests.
size_t compiled_kernel_count();

// The persistent cache: with a directory set (JX_CACHE_DIR at start-up), each batch of kernels
// missing from memory is looked up in one file keyed by a hash of the LLVM version, the host CPU
// and its features, jx's LLVM options and the batch's kernels. A file that fails its checks
// (corrupt, truncated, another format or identity, a MAC that the directory's per-user key does
// not verify) is never executed: the batch is compiled and the file rewritten. Writes are atomic
// and best-effort. A directory that is not the user's own, or that others may write, is not used
// (one warning).
struct DiskCacheStats {
  size_t hits = 0;           // kernels loaded from the disk cache
  size_t misses = 0;         // kernels compiled while the disk cache was on
  size_t rejected = 0;       // entries found but unusable (their kernels count as misses)
  size_t write_failures = 0; // entries that could not be written
  DiskCacheStats &operator+=(const DiskCacheStats &o) {
    hits += o.hits;
    misses += o.misses;
    rejected += o.rejected;
    write_failures += o.write_failures;
    return *this;
  }
};
DiskCacheStats disk_cache_stats();
// The disk cache's directory; "" when it is off.
std::string disk_cache_dir();
// Replaces JX_CACHE_DIR's directory for the rest of the process ("" turns the cache off). For
// tests.
void set_disk_cache_dir(const std::string &dir);

// Host assembly for plan's kernel (for tests and inspection; not cached).
std::string assembly(const passes::KernelPlan &plan);

} // namespace jx::backend
