// The machine's limit for seed 001: Simpson's rule for x^(f/10) exp(-x), f < 200, over 100
// intervals with N = 512, as a hand-written loop nest (libmvec vector exp/log/pow, OpenMP over the
// intervals). Times 1 and 2 threads for two kernels, exp(c log x) and pow(x, c), and checks each
// against NumPy's result (examples/data/simpson_numpy.npy).
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <string>
#include <vector>

// glibc's <math.h> declares libmvec's vector variants only under -ffast-math; declaring them here
// keeps IEEE semantics (no reassociation outside the `omp simd` reductions, no finite-math).
extern "C" {
#pragma omp declare simd notinbranch
double exp(double) noexcept;
#pragma omp declare simd notinbranch
double log(double) noexcept;
#pragma omp declare simd notinbranch
double pow(double, double) noexcept;
}

namespace {

constexpr int functions = 200, intervals = 100, N = 512, points = N + 1;

enum class Kernel { exp_log, pow };

// S[f * intervals + j] for f < functions, j < intervals.
void simpson(Kernel kernel, int threads, double *S) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int j = 0; j < intervals; ++j) {
    // a = np.arange(0, 10, 0.1), b = a + 0.05, x = np.linspace(a, b, N + 1) as NumPy computes them.
    const double a = j * 0.1, b = a + 0.05, dx = (b - a) / N;
    alignas(64) double x[points], log_x[points], w_exp[points];
    for (int i = 0; i < N; ++i)
      x[i] = i * dx + a;
    x[N] = b;
    // The weights 1, 4, 2, ..., 2, 4, 1 are powers of two: folding them into exp(-x) is exact.
#pragma omp simd
    for (int i = 0; i < points; ++i) {
      const double w = i == 0 || i == N ? 1. : i % 2 ? 4. : 2.;
      w_exp[i] = w * exp(-x[i]);
      log_x[i] = log(x[i]);
    }
    for (int f = 0; f < functions; ++f) {
      const double c = f / 10.;
      double sum = 0;
      if (f == 0) { // x^0 = 1, also at x = 0 where c * log(x) would be 0 * -inf
#pragma omp simd reduction(+ : sum)
        for (int i = 0; i < points; ++i)
          sum += w_exp[i];
      } else if (kernel == Kernel::exp_log) {
#pragma omp simd reduction(+ : sum)
        for (int i = 0; i < points; ++i)
          sum += w_exp[i] * exp(c * log_x[i]);
      } else {
#pragma omp simd reduction(+ : sum)
        for (int i = 0; i < points; ++i)
          sum += w_exp[i] * pow(x[i], c);
      }
      S[f * intervals + j] = dx / 3 * sum;
    }
  }
}

struct Timing {
  double median_ms, min_ms;
};

Timing time_kernel(Kernel kernel, int threads, int reps, std::vector<double> &S) {
  using Clock = std::chrono::steady_clock;
  simpson(kernel, threads, S.data()); // warm-up: starts the OpenMP team
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    simpson(kernel, threads, S.data());
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times[0]};
}

double max_relative_error(const std::vector<double> &S, const std::vector<double> &expected) {
  double err = 0;
  for (size_t k = 0; k < S.size(); ++k)
    err = std::max(err, std::abs(S[k] - expected[k]) / std::abs(expected[k]));
  return err;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 20;
  bool json = false;
  std::string reference = JX_EXAMPLES_DATA "/simpson_numpy.npy";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--reference") && i + 1 < argc) {
      reference = argv[++i];
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--reference FILE.npy] [--json]\n", argv[0]);
      return 2;
    }
  }
  const auto expected = jx::numpy::load(reference).to_vector<double>();
  if (expected.size() != size_t(functions * intervals)) {
    std::fprintf(stderr, "%s: expected a (200, 100) array\n", reference.c_str());
    return 1;
  }

  struct Result {
    const char *name;
    Kernel kernel;
    Timing one, two;
    double error;
  };
  std::vector<Result> results{{"exp_log", Kernel::exp_log, {}, {}, 0},
                              {"pow", Kernel::pow, {}, {}, 0}};
  std::vector<double> S(expected.size());
  for (Result &r : results) {
    r.one = time_kernel(r.kernel, 1, reps, S);
    r.two = time_kernel(r.kernel, 2, reps, S);
    r.error = max_relative_error(S, expected);
  }

  // The limit is the fastest kernel (two threads) that is accurate to 1e-13.
  const Result *best = nullptr;
  for (const Result &r : results)
    if (r.error <= 1e-13 && (!best || r.two.median_ms < best->two.median_ms)) best = &r;

  if (json) {
    std::string line = "{";
    if (best)
      line += fmt::format("\"kernel\": \"{}\", \"median_ms\": {:.3f}, \"min_ms\": {:.3f}, "
                          "\"median_ms_1t\": {:.3f}, ",
                          best->name, best->two.median_ms, best->two.min_ms, best->one.median_ms);
    for (const Result &r : results)
      line += fmt::format("\"{0}_median_ms\": {1:.3f}, \"{0}_median_ms_1t\": {2:.3f}, "
                          "\"{0}_max_rel_err\": {3:.3g}, ",
                          r.name, r.two.median_ms, r.one.median_ms, r.error);
    line.resize(line.size() - 2);
    fmt::print("{}}}\n", line);
  } else {
    fmt::print("simpson limit: 200 functions x 100 intervals x 513 points, medians of {} reps\n",
               reps);
    fmt::print("{:<8} | {:>12} | {:>12} | {:>16}\n", "kernel", "1 thread ms", "2 threads ms",
               "max rel err");
    for (const Result &r : results)
      fmt::print("{:<8} | {:>12.2f} | {:>12.2f} | {:>16.3g}\n", r.name, r.one.median_ms,
                 r.two.median_ms, r.error);
    fmt::print("limit: {}\n", best ? best->name : "none accurate to 1e-13");
  }
  return best ? 0 : 1;
}
