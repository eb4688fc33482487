// What the hand-written limits allocate: memory as jx's allocator hands out large buffers.
#pragma once

#include <cstdlib>
#include <new>
#include <sys/mman.h>

namespace limits {

inline constexpr size_t huge_page = size_t(2) << 20;

// count doubles, 2 MiB aligned with transparent huge pages.
inline double *allocate(size_t count) {
  const size_t bytes = (count * sizeof(double) + huge_page - 1) / huge_page * huge_page;
  void *p = std::aligned_alloc(huge_page, bytes);
  if (!p) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);
  return static_cast<double *>(p);
}

} // namespace limits
