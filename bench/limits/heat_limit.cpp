// The limit for loop_bench's heat workload: the same explicit heat step (u + 0.1 * laplacian,
// zero padding, the additions in jx's order) hand-written with OpenMP, two buffers taking turns,
// one parallel region per step as a time-stepping code would have it. Prints the per-step median
// over --rounds runs of --steps steps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <new>
#include <omp.h>
#include <random>
#include <string>
#include <sys/mman.h>
#include <vector>

#include "huge_pages.h"

namespace {

using limits::allocate;

// One step; `zeros` is a row of zeros (the padding above the first row and below the last).
void step(const double *u, double *out, int64_t n, const double *zeros) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const double *row = u + i * n, *up = i > 0 ? row - n : zeros,
                 *down = i + 1 < n ? row + n : zeros;
    double *o = out + i * n;
    o[0] = row[0] + 0.1 * ((((up[0] + down[0]) + 0.0) + row[1]) - 4.0 * row[0]);
#pragma omp simd
    for (int64_t j = 1; j < n - 1; ++j)
      o[j] = row[j] + 0.1 * ((((up[j] + down[j]) + row[j - 1]) + row[j + 1]) - 4.0 * row[j]);
    o[n - 1] =
        row[n - 1] + 0.1 * ((((up[n - 1] + down[n - 1]) + row[n - 2]) + 0.0) - 4.0 * row[n - 1]);
  }
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = 1024, steps = 1000; // n >= 2
  int rounds = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--n" && i + 1 < argc)
      n = std::atoll(argv[++i]);
    else if (arg == "--steps" && i + 1 < argc)
      steps = std::atoll(argv[++i]);
    else if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: %s [--n 1024] [--steps 1000] [--rounds 5] [--json]\n", argv[0]);
      return 2;
    }
  }
  double *a = allocate(size_t(n * n)), *b = allocate(size_t(n * n));
  const std::vector<double> zeros(size_t(n), 0.0);
  std::mt19937_64 rng(0);
  std::normal_distribution<double> normal;
  std::vector<double> start(size_t(n * n));
  for (double &v : start)
    v = normal(rng);
  std::vector<double> per_step;
  for (int r = 0; r < rounds; ++r) {
    std::copy(start.begin(), start.end(), a);
    std::fill(b, b + n * n, 0.0);
    const auto t0 = std::chrono::steady_clock::now();
    double *u = a, *v = b;
    for (int64_t s = 0; s < steps; ++s) {
      step(u, v, n, zeros.data());
      std::swap(u, v);
    }
    per_step.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        double(steps));
  }
  std::sort(per_step.begin(), per_step.end());
  const double median = per_step[per_step.size() / 2];
  if (json)
    fmt::print("{{\"n\": {}, \"steps\": {}, \"step_ms\": {:.6g}, \"threads\": {}}}\n", n, steps,
               median, omp_get_max_threads());
  else
    fmt::print("heat limit: {}x{} float64, {} steps, {} threads (OpenMP): {:.4f} ms per step "
               "(median of {} rounds)\n",
               n, n, steps, omp_get_max_threads(), median, rounds);
  return 0;
}
