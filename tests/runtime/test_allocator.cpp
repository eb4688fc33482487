// The caching allocator: alignment, size classes, reuse of freed blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/buffer.h"

using namespace jx::runtime;

TEST(Allocator, BlocksAreAlignedAndLargeEnough) {
  for (size_t bytes : {size_t(0), size_t(1), size_t(65), size_t(96), size_t(1000), size_t(4097),
                       size_t(3) << 20}) {
    size_t capacity = 0;
    void *p = allocate(bytes, &capacity);
    EXPECT_GE(capacity, bytes);
    EXPECT_EQ(capacity % 64, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    if (capacity >= (size_t(2) << 20)) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
    }
    deallocate(p, capacity);
  }
}

TEST(Allocator, SizeClassesWasteAtMostAQuarter) {
  for (size_t bytes = 257; bytes < (size_t(1) << 22); bytes = bytes * 5 / 4 + 3) {
    size_t capacity = 0;
    void *p = allocate(bytes, &capacity);
    if (capacity < (size_t(2) << 20)) {
      EXPECT_LE(capacity, bytes + bytes / 4 + 64) << bytes;
    }
    deallocate(p, capacity);
  }
}

TEST(Allocator, FreedBlocksAreReused) {
  release_cached_memory();
  void *first = nullptr;
  {
    Buffer b(1 << 20);
    first = b.data();
  }
  AllocatorStats before = allocator_stats();
  Buffer again(1 << 20);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(allocator_stats().hits, before.hits + 1);
}
