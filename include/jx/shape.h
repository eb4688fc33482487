// Array shapes: a list of dimension sizes, row-major.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jx {

using Shape = std::vector<int64_t>;

// Number of elements; 1 for a 0-d shape.
inline int64_t shape_size(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

// The most dimensions an array may have (NumPy's limit).
inline constexpr size_t max_rank = 64;

// shape's element count, checked as NumPy checks a new array's shape: a jx::ValueError for a
// negative dimension, more than max_rank dimensions, or size * itemsize past the largest
// possible size (no product wraps around).
int64_t checked_size(const Shape &shape, size_t itemsize);

// Element strides of a C-order (row-major) array of this shape.
inline std::vector<int64_t> row_major_strides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

// "(3, 4)", "(5,)", "()" as Python prints a tuple.
std::string shape_str(const Shape &shape);
// "(3,4)", "(5,)": the compact form NumPy's broadcasting errors use.
std::string shape_str_compact(const Shape &shape);

} // namespace jx
