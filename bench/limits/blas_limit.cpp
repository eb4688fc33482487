// What a tuned BLAS reaches on this machine: C = A @ B (row-major, square n, float32 and float64)
// through cblas_sgemm/cblas_dgemm, timed two ways: one call on the library's own threads, and
// 1-thread calls on each of `threads` std::threads, each computing a band of C's rows (what jx's
// dot_general does on its own pool). Built against OpenBLAS (blas_limit) and, where installed,
// BLIS (blis_limit, JX_BENCH_BLIS).
#ifdef JX_BENCH_BLIS
#include <blis.h>
#else
#include <cblas.h>
// OpenBLAS's extensions, declared here in case cblas.h is another implementation's.
extern "C" {
void openblas_set_num_threads(int num_threads);
char *openblas_get_config(void);
}
#endif

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

#ifdef JX_BENCH_BLIS
constexpr const char *library = "BLIS";
void set_threads(int n) { bli_thread_set_num_threads(n); }
std::string config() { return fmt::format("BLIS {}", bli_info_get_version_str()); }
#else
constexpr const char *library = "OpenBLAS";
void set_threads(int n) { openblas_set_num_threads(n); }
std::string config() {
  std::string s = openblas_get_config();
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}
#endif

void gemm(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a, int(k), b,
              int(n), 0.0f, c, int(n));
}
void gemm(int64_t m, int64_t n, int64_t k, const double *a, const double *b, double *c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0, a, int(k), b,
              int(n), 0.0, c, int(n));
}

// `threads` workers (the caller is worker 0) that run one job at a time, each with its index;
// waiting threads sleep in std::barrier, as a thread pool's workers would.
class Team {
public:
  explicit Team(int threads) : threads_(threads), start_(threads), done_(threads) {
    for (int t = 1; t < threads; ++t)
      workers_.emplace_back([this, t] {
        for (;;) {
          start_.arrive_and_wait();
          if (stop_) return;
          job_(t);
          done_.arrive_and_wait();
        }
      });
  }
  ~Team() {
    stop_ = true;
    start_.arrive_and_wait();
    for (std::thread &w : workers_)
      w.join();
  }
  int size() const { return threads_; }
  void run(const std::function<void(int)> &job) {
    job_ = job;
    start_.arrive_and_wait();
    job_(0);
    done_.arrive_and_wait();
  }

private:
  int threads_;
  std::barrier<> start_, done_;
  std::function<void(int)> job_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

struct Timing {
  double median_ms = 0;
  int reps = 0;
};

using Clock = std::chrono::steady_clock;

// One warm-up call, then timed calls until at least `min_reps` and `min_seconds` in all.
Timing time_it(const std::function<void()> &run, int min_reps, double min_seconds) {
  run();
  std::vector<double> times;
  double total = 0;
  while (int(times.size()) < min_reps || total < min_seconds * 1e3) {
    const auto start = Clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    total += times.back();
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], int(times.size())};
}

struct Result {
  int64_t n;
  const char *dtype, *mode;
  Timing timing;
  double gflops;
  double max_diff; // the banded result against the library-threaded one (banded rows only)
};

// Deterministic values in [-1, 1).
template <class T> std::vector<T> filled(size_t count, uint64_t seed) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = T(double(seed >> 11) * 0x1p-52 - 1.0);
  }
  return v;
}

template <class T>
void measure(int64_t n, const char *dtype, Team &team, int min_reps, double min_seconds,
             std::vector<Result> &results) {
  const size_t count = size_t(n) * size_t(n);
  const std::vector<T> a = filled<T>(count, 1), b = filled<T>(count, 2);
  std::vector<T> c(count), banded(count);
  const double flops = 2.0 * double(n) * double(n) * double(n);

  set_threads(team.size());
  const Timing own =
      time_it([&] { gemm(n, n, n, a.data(), b.data(), c.data()); }, min_reps, min_seconds);
  set_threads(1);
  auto bands = [&] {
    team.run([&](int t) {
      const int64_t lo = n * t / team.size(), hi = n * (t + 1) / team.size();
      if (hi > lo) gemm(hi - lo, n, n, a.data() + lo * n, b.data(), banded.data() + lo * n);
    });
  };
  const Timing split = time_it(bands, min_reps, min_seconds);

  double max_diff = 0;
  for (size_t i = 0; i < count; ++i)
    max_diff = std::max(max_diff, std::abs(double(c[i]) - double(banded[i])));
  results.push_back({n, dtype, "library_threads", own, flops / own.median_ms / 1e6, 0});
  results.push_back({n, dtype, "banded_1t_calls", split, flops / split.median_ms / 1e6, max_diff});
}

std::vector<int64_t> parse_sizes(const char *list) {
  std::vector<int64_t> sizes;
  for (const char *p = list; *p;) {
    char *end;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || v <= 0) return {};
    sizes.push_back(v);
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return {};
  }
  return sizes;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes{256, 512, 1024, 2048, 4096};
  bool f32 = true, f64 = true, json = false;
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  int min_reps = 3;
  double min_seconds = 1.0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes = parse_sizes(argv[++i]);
      if (sizes.empty()) {
        std::fprintf(stderr, "--sizes: a comma-separated list of positive integers\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--dtypes") && i + 1 < argc) {
      const std::string d = argv[++i];
      f32 = d.find("float32") != std::string::npos;
      f64 = d.find("float64") != std::string::npos;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--min-reps") && i + 1 < argc) {
      min_reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc) {
      min_seconds = std::max(0.0, std::atof(argv[++i]));
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--sizes N,N,...] [--dtypes float32,float64] [--threads N] "
                   "[--min-reps N] [--min-time S] [--json]\n",
                   argv[0]);
      return 2;
    }
  }

  Team team(threads);
  std::vector<Result> results;
  for (int64_t n : sizes) {
    if (f32) measure<float>(n, "float32", team, min_reps, min_seconds, results);
    if (f64) measure<double>(n, "float64", team, min_reps, min_seconds, results);
  }
  // The best of either way at any size, per dtype.
  auto best = [&](const char *dtype) -> const Result * {
    const Result *b = nullptr;
    for (const Result &r : results)
      if (!std::strcmp(r.dtype, dtype) && (!b || r.gflops > b->gflops)) b = &r;
    return b;
  };

  if (json) {
    std::string rows;
    for (const Result &r : results)
      rows += fmt::format("{}{{\"n\": {}, \"dtype\": \"{}\", \"mode\": \"{}\", \"median_ms\": "
                          "{:.3f}, \"gflops\": {:.1f}, \"reps\": {}}}",
                          rows.empty() ? "" : ", ", r.n, r.dtype, r.mode, r.timing.median_ms,
                          r.gflops, r.timing.reps);
    std::string bests;
    for (const char *dtype : {"float32", "float64"})
      if (const Result *b = best(dtype))
        bests += fmt::format(", \"best_{}\": {{\"n\": {}, \"mode\": \"{}\", \"gflops\": {:.1f}}}",
                             dtype, b->n, b->mode, b->gflops);
    fmt::print(
        "{{\"library\": \"{}\", \"config\": \"{}\", \"threads\": {}, \"results\": [{}]{}}}\n",
        library, config(), threads, rows, bests);
  } else {
    fmt::print("{} ({}): C = A @ B, square n, row-major; library: one call on {} threads of its "
               "own; banded: 1-thread calls on {} std::threads, each a band of C's rows; medians "
               "of at least {} calls and {:g} s\n",
               library, config(), threads, threads, min_reps, min_seconds);
    fmt::print("{:>5} | {:<7} | {:>10} | {:>8} | {:>10} | {:>8} | {:>16}\n", "n", "dtype",
               "library ms", "GFLOP/s", "banded ms", "GFLOP/s", "max |banded-lib|");
    for (size_t i = 0; i + 1 < results.size(); i += 2) {
      const Result &own = results[i], &split = results[i + 1];
      fmt::print("{:>5} | {:<7} | {:>10.3f} | {:>8.1f} | {:>10.3f} | {:>8.1f} | {:>16.2g}\n", own.n,
                 own.dtype, own.timing.median_ms, own.gflops, split.timing.median_ms, split.gflops,
                 split.max_diff);
    }
    for (const char *dtype : {"float32", "float64"})
      if (const Result *b = best(dtype))
        fmt::print("best {}: {:.1f} GFLOP/s ({}, n = {})\n", dtype, b->gflops, b->mode, b->n);
  }
  return 0;
}
