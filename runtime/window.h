// The part of a global array that a buffer of a multi-process program holds: a box of it, laid
// out row-major as an array of the box's own extent. Kernels index such a buffer with global
// indices through its base (the address global element 0 would have) and the box's strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <jx/shape.h>

namespace jx::runtime {

struct Window {
  std::vector<int64_t> lo, hi; // the box [lo, hi) of the global array

  static Window whole(const Shape &shape) { return {std::vector<int64_t>(shape.size(), 0), shape}; }
  Shape extent() const;
  int64_t elements() const;
  bool empty() const { return elements() == 0; }
  // The offset, in elements, of the box's first element from where global element 0 would be.
  int64_t origin() const;
  bool operator==(const Window &) const = default;
  // Whether a buffer laid out as this window serves code compiled for `w`: it holds all of w with
  // the same strides (the same extent on every axis but the first).
  bool serves(const Window &w) const;
  // The smallest window holding both.
  Window hull(const Window &other) const;
};

// Copies the box of `count` elements per axis from src (of src_shape, starting at src_lo) to dst
// (of dst_shape, at dst_lo): row by row, the innermost axis one memcpy.
void copy_box(const char *src, const Shape &src_shape, const std::vector<int64_t> &src_lo,
              char *dst, const Shape &dst_shape, const std::vector<int64_t> &dst_lo,
              const std::vector<int64_t> &count, size_t itemsize);

// Copies what the windows `from` and `to` (of one global array) share from src to dst.
void copy_window(const char *src, const Window &from, char *dst, const Window &to, size_t itemsize);

} // namespace jx::runtime
