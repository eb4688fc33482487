// Reading an array once: a sum of each thread's contiguous share with independent vector
// accumulators, bound by memory rather than by the adds' latency (copy_limit's read, and the
// baseline of reduce_bench's sums). Compile with OpenMP.
#pragma once

#include <cstdint>
#include <cstring>
#include <omp.h>
#include <type_traits>
#include <utility>

namespace limits {

// Elements [begin, end) of this thread's share of `count` under the team's threads.
inline std::pair<int64_t, int64_t> share(int64_t count) {
  const int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
  return {count * t / threads, count * (t + 1) / threads};
}

// Keeps the sums alive.
inline volatile double sink = 0;

// 32 bytes, AVX2's width: GCC splits a wider generic vector on AVX2 through the stack, which
// made this limit compute-bound (5.2 ms for 64 MiB on one Zen 3 core, against 3.2 ms when the
// accumulators stay in registers).
typedef double Doubles __attribute__((vector_size(32)));
typedef float Floats __attribute__((vector_size(32)));

// Sums `count` values with 8 independent 32-byte accumulators per thread.
template <class T> void read_once(const T *x, int64_t count, int threads) {
  constexpr int lanes = 32 / sizeof(T), accumulators = 8, step = lanes * accumulators;
  using Vec = std::conditional_t<sizeof(T) == 8, Doubles, Floats>;
  double total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    const auto [begin, end] = share(count);
    const T *p = x + begin, *stop = x + end;
    Vec acc[accumulators] = {};
    for (; p + step <= stop; p += step) {
#pragma GCC unroll 8
      for (int a = 0; a < accumulators; ++a) {
        Vec v;
        std::memcpy(&v, p + a * lanes, sizeof v);
        acc[a] += v;
      }
    }
    double s = 0;
    for (; p < stop; ++p)
      s += *p;
    for (int a = 0; a < accumulators; ++a)
      for (int l = 0; l < lanes; ++l)
        s += acc[a][l];
    total += s;
  }
  sink = total;
}

} // namespace limits
