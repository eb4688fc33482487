// The caching allocator behind every Buffer: freed blocks are kept per size class and reused, so
// steady-state calls neither fault pages in nor return memory to the OS.
#pragma once

#include <cstddef>

namespace jx::runtime {

// A block of at least `bytes`, 64-byte aligned (2 MiB aligned and backed by huge pages when
// large); *capacity receives its real size, which deallocate needs back.
void *allocate(size_t bytes, size_t *capacity);
void deallocate(void *block, size_t capacity);
// The capacity allocate gives a request of `bytes`.
size_t block_capacity(size_t bytes);

struct AllocatorStats {
  size_t cached_bytes; // free blocks held for reuse
  size_t hits, misses; // allocations served from the cache / from the system
};
AllocatorStats allocator_stats();
// Returns every cached block to the system.
void release_cached_memory();

} // namespace jx::runtime
