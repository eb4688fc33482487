// The machine's FMA peak, the ceiling for contractions: independent register-only FMA chains
// (AVX-512 zmm where the compiler targets it, else AVX2 ymm, else 16-byte GCC vectors) on 1 thread
// and on every thread, float64 and float32, in GFLOP/s (one FMA lane is 2 flops).
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <thread>
#include <vector>

namespace {

// Independent accumulators: enough to cover the FMA latency (4 cycles) times its throughput (2 per
// cycle) with room to spare, and few enough to stay in the 32 (16 for AVX2) vector registers.
constexpr int chains = 16;

#if defined(__AVX512F__)
constexpr int vector_bits = 512;
using VecD = __m512d;
using VecF = __m512;
inline VecD fma(VecD a, VecD b, VecD c) { return _mm512_fmadd_pd(a, b, c); }
inline VecF fma(VecF a, VecF b, VecF c) { return _mm512_fmadd_ps(a, b, c); }
inline VecD splat(double x) { return _mm512_set1_pd(x); }
inline VecF splat(float x) { return _mm512_set1_ps(x); }
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int vector_bits = 256;
using VecD = __m256d;
using VecF = __m256;
inline VecD fma(VecD a, VecD b, VecD c) { return _mm256_fmadd_pd(a, b, c); }
inline VecF fma(VecF a, VecF b, VecF c) { return _mm256_fmadd_ps(a, b, c); }
inline VecD splat(double x) { return _mm256_set1_pd(x); }
inline VecF splat(float x) { return _mm256_set1_ps(x); }
#else // another target: GCC vectors; -ffp-contract=fast (GCC's default) makes a * b + c an FMA
constexpr int vector_bits = 128;
using VecD = double __attribute__((vector_size(16)));
using VecF = float __attribute__((vector_size(16)));
inline VecD fma(VecD a, VecD b, VecD c) { return a * b + c; }
inline VecF fma(VecF a, VecF b, VecF c) { return a * b + c; }
inline VecD splat(double x) { return VecD{} + x; }
inline VecF splat(float x) { return VecF{} + x; }
#endif

// The sum of a vector's lanes.
template <class T, class Vec> double total(Vec v) {
  T lanes[sizeof(Vec) / sizeof(T)];
  std::memcpy(lanes, &v, sizeof v);
  double s = 0;
  for (T x : lanes)
    s += x;
  return s;
}

// Keeps the chains' results alive.
std::atomic<double> sink{0};

// `iterations` rounds of one FMA per chain: acc = acc * m + a converges to a / (1 - m), so values
// stay normal. Returns the number of flops done.
template <class Vec, class T> double chains_of_fma(int64_t iterations) {
  // Every loop over the chains is unrolled, so the accumulators live in registers, not in memory.
  Vec acc[chains];
#pragma GCC unroll 16
  for (int c = 0; c < chains; ++c)
    acc[c] = splat(T(c));
  const Vec m = splat(T(0.999)), a = splat(T(0.001));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < chains; ++c)
      acc[c] = fma(acc[c], m, a);
      // An empty asm the compiler must assume reads and writes the accumulators: no chain can be
      // folded, hoisted or shortened.
#pragma GCC unroll 16
    for (int c = 0; c < chains; ++c)
      asm volatile("" : "+v"(acc[c]));
  }
  double s = 0;
#pragma GCC unroll 16
  for (int c = 0; c < chains; ++c)
    s += total<T>(acc[c]);
  sink.store(sink.load(std::memory_order_relaxed) + s, std::memory_order_relaxed);
  constexpr int lanes = sizeof(Vec) / sizeof(T);
  return 2.0 * lanes * chains * double(iterations);
}

using Clock = std::chrono::steady_clock;

// GFLOP/s of `threads` threads each running `iterations` rounds, timed from a common start until
// the last thread is done.
template <class Vec, class T> double gflops_on(int threads, int64_t iterations) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      chains_of_fma<Vec, T>(iterations);
    });
  while (ready.load() < threads - 1)
    std::this_thread::yield();
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  const double flops = chains_of_fma<Vec, T>(iterations) * threads;
  for (std::thread &t : pool)
    t.join();
  return flops / std::chrono::duration<double>(Clock::now() - start).count() / 1e9;
}

// Median over `reps` runs of about `seconds` each (the iteration count calibrated on 1 thread).
template <class Vec, class T> double peak(int threads, int reps, double seconds) {
  int64_t iterations = 1 << 16;
  for (;;) { // calibrate: grow until one run takes a tenth of the target
    const auto start = Clock::now();
    chains_of_fma<Vec, T>(iterations);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (s > seconds / 10) {
      iterations = std::max<int64_t>(1, int64_t(double(iterations) * seconds / s));
      break;
    }
    iterations *= 4;
  }
  gflops_on<Vec, T>(threads, iterations / 10 + 1); // warm-up: threads, frequency
  std::vector<double> runs;
  for (int r = 0; r < reps; ++r)
    runs.push_back(gflops_on<Vec, T>(threads, iterations));
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  int reps = 5;
  double seconds = 0.2;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::max(1e-3, std::atof(argv[++i]));
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: %s [--threads N] [--reps N] [--seconds S] [--json]\n", argv[0]);
      return 2;
    }
  }
  const double f64_1t = peak<VecD, double>(1, reps, seconds);
  const double f64_all = peak<VecD, double>(threads, reps, seconds);
  const double f32_1t = peak<VecF, float>(1, reps, seconds);
  const double f32_all = peak<VecF, float>(threads, reps, seconds);

  if (json) {
    fmt::print(
        "{{\"f64_1t\": {:.1f}, \"f64_all\": {:.1f}, \"f32_1t\": {:.1f}, \"f32_all\": {:.1f}, "
        "\"threads\": {}, \"vector_bits\": {}, \"chains\": {}}}\n",
        f64_1t, f64_all, f32_1t, f32_all, threads, vector_bits, chains);
  } else {
    fmt::print("FMA peak: {}-bit vectors, {} independent chains per thread, medians of {} runs "
               "of about {:.2f} s\n",
               vector_bits, chains, reps, seconds);
    fmt::print("float64, 1 thread:  {:8.1f} GFLOP/s\n", f64_1t);
    fmt::print("float64, {} threads: {:8.1f} GFLOP/s\n", threads, f64_all);
    fmt::print("float32, 1 thread:  {:8.1f} GFLOP/s\n", f32_1t);
    fmt::print("float32, {} threads: {:8.1f} GFLOP/s\n", threads, f32_all);
  }
  return 0;
}
