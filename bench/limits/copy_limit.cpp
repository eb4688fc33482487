// The memory-bandwidth limits: copying an n x n float64 array into a preallocated, pre-faulted
// buffer with 1 and 2 threads (memcpy of each thread's contiguous share, so glibc may use
// non-temporal stores), the same copy with explicit streaming stores on 2 threads (no
// read-for-ownership of the lines written: the floor for any kernel that streams its output),
// seed 000's difference as a plain loop with ordinary stores, and reading the array once (a sum
// with independent vector accumulators) with 1 and 2 threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <functional>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <new>
#include <omp.h>
#include <sys/mman.h>
#include <vector>

#include "huge_pages.h"
#include "read_once.h"

namespace {

using limits::allocate;

using limits::share;

void copy(const double *x, double *y, int64_t n, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const auto [begin, end] = share(n);
    std::memcpy(y + begin * n, x + begin * n, size_t(end - begin) * n * sizeof(double));
  }
}

// Each thread's share with non-temporal vector stores (buffers are 2 MiB aligned, rows a
// multiple of the vector width when n is; the rest is copied plainly), then a fence.
void stream_copy(const double *x, double *y, int64_t n, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const auto [begin, end] = share(n);
    int64_t k = begin * n;
    const int64_t stop = end * n;
#if defined(__AVX512F__)
    for (; k + 8 <= stop && (k % 8 == 0); k += 8)
      _mm512_stream_pd(y + k, _mm512_load_pd(x + k));
#elif defined(__AVX__)
    for (; k + 4 <= stop && (k % 4 == 0); k += 4)
      _mm256_stream_pd(y + k, _mm256_load_pd(x + k));
#elif defined(__x86_64__)
    for (; k + 2 <= stop && (k % 2 == 0); k += 2)
      _mm_stream_pd(y + k, _mm_load_pd(x + k));
#endif
    std::memcpy(y + k, x + k, size_t(stop - k) * sizeof(double));
#if defined(__x86_64__)
    _mm_sfence();
#endif
  }
}

// jnp.diff(x, axis=0, prepend=0): y[0] = x[0], y[i] = x[i] - x[i-1].
void diff(const double *x, double *y, int64_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const double *row = x + i * n, *above = row - n;
    double *out = y + i * n;
    if (i == 0)
      std::memcpy(out, row, n * sizeof(double));
    else
      for (int64_t k = 0; k < n; ++k)
        out[k] = row[k] - above[k];
  }
}

// The n x n array read once.
void read_once(const double *x, int64_t n, int threads) { limits::read_once(x, n * n, threads); }

struct Timing {
  double median_ms, min_ms;
};

Timing time_it(const std::function<void()> &run, int reps) {
  using Clock = std::chrono::steady_clock;
  run(); // warm-up: starts the OpenMP team
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times[0]};
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = 4096;
  int reps = 20;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::max<int64_t>(2, std::atoll(argv[++i]));
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: %s [--n N] [--reps N] [--json]\n", argv[0]);
      return 2;
    }
  }
  const size_t count = size_t(n) * size_t(n);
  double *x = allocate(count), *y = allocate(count);
  for (size_t k = 0; k < count; ++k) // touches every page of both buffers before timing
    x[k] = y[k] = double(k % 1000) * 0.5;

  const Timing copy1 = time_it([&] { copy(x, y, n, 1); }, reps);
  const Timing copy2 = time_it([&] { copy(x, y, n, 2); }, reps);
  const Timing stream2 = time_it([&] { stream_copy(x, y, n, 2); }, reps);
  const Timing diff2 = time_it([&] { diff(x, y, n, 2); }, reps);
  const Timing read1 = time_it([&] { read_once(x, n, 1); }, reps);
  const Timing read2 = time_it([&] { read_once(x, n, 2); }, reps);
  // Copies count bytes read plus bytes written, as stream benchmarks do; the sums bytes read.
  const double gb = 2.0 * double(count) * sizeof(double) / 1e9, read_gb = gb / 2;

  if (json) {
    fmt::print(
        "{{\"n\": {}, \"median_ms\": {:.3f}, \"min_ms\": {:.3f}, \"gb_per_s\": {:.1f}, "
        "\"median_ms_1t\": {:.3f}, \"stream_copy_ms\": {:.3f}, \"diff_loop_median_ms\": {:.3f}, "
        "\"read_ms\": {:.3f}, \"read_min_ms\": {:.3f}, \"read_ms_1t\": {:.3f}, "
        "\"read_gb_per_s\": {:.1f}}}\n",
        n, copy2.median_ms, copy2.min_ms, gb / copy2.median_ms * 1e3, copy1.median_ms,
        stream2.median_ms, diff2.median_ms, read2.median_ms, read2.min_ms, read1.median_ms,
        read_gb / read2.median_ms * 1e3);
  } else {
    fmt::print("copy limit: {}x{} float64 ({:.0f} MiB), medians of {} reps\n", n, n,
               double(count) * sizeof(double) / (1 << 20), reps);
    fmt::print("{:<22} | {:>9} | {:>9} | {:>10}\n", "", "median ms", "min ms", "GB/s");
    auto row = [&](const char *name, Timing t, double bytes) {
      fmt::print("{:<22} | {:>9.2f} | {:>9.2f} | {:>10.1f}\n", name, t.median_ms, t.min_ms,
                 bytes / t.median_ms * 1e3);
    };
    row("memcpy, 1 thread", copy1, gb);
    row("memcpy, 2 threads", copy2, gb);
    row("streamed, 2 threads", stream2, gb);
    row("diff loop, 2 threads", diff2, gb);
    row("read (sum), 1 thread", read1, read_gb);
    row("read (sum), 2 threads", read2, read_gb);
    fmt::print("GB/s counts bytes read plus bytes written for the copies, bytes read for the "
               "sums\n");
  }
  std::free(x);
  std::free(y);
  return 0;
}
