// The exact sum of doubles, rounded once (Shewchuk's msum, as Python's math.fsum): the reference
// that test_accuracy and bench/reduce_bench measure float sums against.
#pragma once

#include <cmath>
#include <utility>
#include <vector>

namespace test_util {

inline double exact_sum(const std::vector<double> &xs) {
  std::vector<double> partials; // non-overlapping, increasing magnitude
  for (double x : xs) {
    size_t i = 0;
    for (double y : partials) {
      if (std::abs(x) < std::abs(y)) std::swap(x, y);
      const double hi = x + y, lo = y - (hi - x);
      if (lo != 0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  double sum = 0;
  for (double p : partials)
    sum += p;
  return sum;
}

} // namespace test_util
