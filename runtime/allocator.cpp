// Size-class caching allocator. Classes are 4 per power of two (at most 25% slack); blocks of
// 2 MiB and more are 2 MiB aligned with MADV_HUGEPAGE over the huge pages the first request fills,
// as a fresh 128 MiB block costs far more in page faults than most kernels cost in work. The cache
// is capped (JX_ALLOCATOR_CACHE_MB, default 4096); past the cap, freed blocks go back to the
// system. A request the system refuses, even after the cache is returned to it, is a
// jx::MemoryError naming the size (NumPy's wording).
#include "runtime/allocator.h"

#include "runtime/trace.h"

#include <jx/error.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <sys/mman.h>
#include <unordered_map>
#include <vector>

namespace jx::runtime {
namespace {

constexpr size_t min_block = 64, huge_page = size_t(2) << 20;

size_t size_class(size_t bytes) {
  if (bytes <= min_block) return min_block;
  // Round up to the next of 1, 1.25, 1.5, 1.75 times a power of two.
  const int top = 63 - std::countl_zero(bytes - 1);
  const size_t step = std::max(size_t(1) << (top - 2), min_block); // aligned_alloc: a multiple
  return (bytes + step - 1) / step * step;
}

size_t cache_limit() {
  const char *env = std::getenv("JX_ALLOCATOR_CACHE_MB");
  if (env) {
    char *end = nullptr;
    long long mb = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && mb >= 0) return size_t(mb) << 20;
  }
  return size_t(4096) << 20;
}

struct Cache {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free_blocks;
  size_t cached = 0, hits = 0, misses = 0;
  const size_t limit = cache_limit();
};

Cache &cache() {
  static Cache *c = new Cache; // never destroyed: buffers may be freed during static teardown
  return *c;
}

[[noreturn]] void unable_to_allocate(size_t bytes) {
  char text[128];
  std::snprintf(text, sizeof text, "Unable to allocate %.3g GiB (%zu bytes) for an array",
                double(bytes) / double(size_t(1) << 30), bytes);
  throw MemoryError(text);
}

void *system_allocate(size_t capacity, size_t requested) {
  const bool huge = capacity >= huge_page;
  const size_t alignment = huge ? huge_page : min_block;
  void *p = std::aligned_alloc(alignment, capacity);
  if (!p) {
    release_cached_memory();
    p = std::aligned_alloc(alignment, capacity);
  }
  if (!p) unable_to_allocate(requested);
  // Huge pages over the whole ones the request fills: a partly used huge page would be resident
  // whole (a 2.1 MiB arena would cost 4 MiB); the tail keeps 4 KiB pages.
  const size_t whole = requested / huge_page * huge_page;
  if (huge && whole > 0) madvise(p, whole, MADV_HUGEPAGE);
  // Only the system's allocations: served from the cache, a block is not an event.
  if (trace::recording())
    trace::instant("memory", "allocate from the system",
                   "\"bytes\": " + std::to_string(capacity) +
                       ", \"huge page bytes\": " + std::to_string(huge ? whole : 0));
  return p;
}

} // namespace

size_t block_capacity(size_t bytes) {
  const size_t size = size_class(bytes);
  return size >= huge_page ? (size + huge_page - 1) / huge_page * huge_page : size;
}

void *allocate(size_t bytes, size_t *capacity) {
  // Larger requests would wrap around in the size classes.
  if (bytes > size_t(PTRDIFF_MAX) / 2) unable_to_allocate(bytes);
  const size_t size = block_capacity(bytes);
  *capacity = size;
  Cache &c = cache();
  {
    std::lock_guard lock(c.mutex);
    auto it = c.free_blocks.find(size);
    if (it != c.free_blocks.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      c.cached -= size;
      ++c.hits;
      return p;
    }
    ++c.misses;
  }
  return system_allocate(size, bytes);
}

void deallocate(void *block, size_t capacity) {
  if (!block) return;
  Cache &c = cache();
  {
    std::lock_guard lock(c.mutex);
    if (c.cached + capacity <= c.limit) {
      c.free_blocks[capacity].push_back(block);
      c.cached += capacity;
      return;
    }
  }
  std::free(block);
}

AllocatorStats allocator_stats() {
  Cache &c = cache();
  std::lock_guard lock(c.mutex);
  return {c.cached, c.hits, c.misses};
}

void release_cached_memory() {
  Cache &c = cache();
  std::lock_guard lock(c.mutex);
  for (auto &[size, blocks] : c.free_blocks)
    for (void *p : blocks)
      std::free(p);
  c.free_blocks.clear();
  c.cached = 0;
}

} // namespace jx::runtime
