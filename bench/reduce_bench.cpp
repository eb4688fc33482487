// Float sums (issue 32): jx::jit's sum(x) and sum(x, 0) of an n x n array (default 4096) in
// float32 and float64, beside reading the same bytes once on the pool's threads (the sum's limit,
// as copy_limit's read), in one process, alternating rounds; then the accuracy of the sums that
// were 0.25% off: 16,777,217 x float32 0.1 and 2^24 uniform float64 values, against exact sums.
// --json prints one object per line (bench/peers/peers.py --group reduce adds NumPy's).
#include <jx/jx.h>

#include <cmath>
#include <cstdlib>
#include <fmt/core.h>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "exact_sum.h"
#include "limits/read_once.h"
#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;
using test_util::exact_sum;

} // namespace

int main(int argc, char **argv) {
  // OpenMP's idle threads spin after a parallel region unless OMP_WAIT_POLICY=passive; on 2 cores
  // the spinning thread takes a core from the jx sum timed next (1.5x its time measured). libgomp
  // reads the variable as it loads, so the bench sets it and starts itself again.
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
  int64_t n = 4096;
  int rounds = 20;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (arg == "--json") json = true;
  }
  // jx's pool runs a thread per core unless JX_NUM_THREADS says otherwise.
  const char *env_threads = std::getenv("JX_NUM_THREADS");
  const int threads =
      env_threads ? std::atoi(env_threads) : int(std::thread::hardware_concurrency());
  auto total = jx::jit([](const Array &x) { return jnp::sum(x); });
  auto columns = jx::jit([](const Array &x) { return jnp::sum(x, 0); });
  for (jx::DType t : {jnp::float32, jnp::float64}) {
    const Array x = jx::random::uniform(jx::random::PRNGKey(0), {n, n}, t).block_until_ready();
    total(x).block_until_ready(); // compile and warm up
    columns(x).block_until_ready();
    std::vector<double> sum_ms, columns_ms, read_ms;
    for (int r = 0; r < rounds; ++r) {
      auto start = Clock::now();
      total(x).block_until_ready();
      sum_ms.push_back(ms_since(start));
      start = Clock::now();
      columns(x).block_until_ready();
      columns_ms.push_back(ms_since(start));
      start = Clock::now();
      if (t == jnp::float32)
        limits::read_once(static_cast<const float *>(x.data()), n * n, threads);
      else
        limits::read_once(static_cast<const double *>(x.data()), n * n, threads);
      read_ms.push_back(ms_since(start));
    }
    const double read = median(read_ms);
    const std::string type(jx::dtype_name(t));
    for (const auto &[name, ms] :
         {std::pair{"sum", median(sum_ms)}, std::pair{"sum_axis0", median(columns_ms)}}) {
      if (json)
        fmt::print("{{\"name\": \"{}_{}_{}\", \"jx_ms\": {:.3f}, \"read_ms\": {:.3f}}}\n", name,
                   type, n, ms, read);
      else
        fmt::print("{}_{}_{}: jx {:.2f} ms, read once {:.2f} ms ({} threads), jx / read {:.2f}\n",
                   name, type, n, ms, read, threads, ms / read);
    }
  }

  const int64_t count = 16777217;
  const double tenth = double(0.1f);
  const double f32_error =
      std::abs(jnp::sum(jnp::full({count}, 0.1, jnp::float32)).item<float>() - tenth * count) /
      (tenth * count);
  const double mean_error =
      std::abs(jnp::mean(jnp::full({count}, 0.1, jnp::float32)).item<float>() - tenth) / tenth;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> xs(size_t(1) << 24);
  for (double &x : xs)
    x = uniform(rng);
  const double exact = exact_sum(xs);
  const double f64_error =
      std::abs(jnp::sum(jnp::array(xs, jx::Shape{int64_t(xs.size())})).item<double>() - exact) /
      exact;
  if (json) {
    fmt::print("{{\"name\": \"accuracy\", \"f32_tenths_sum\": {:.3g}, \"f32_tenths_mean\": {:.3g}, "
               "\"f64_uniform_sum\": {:.3g}}}\n",
               f32_error, mean_error, f64_error);
  } else {
    fmt::print("relative error, sum of {} x float32 0.1: {:.3g}; mean: {:.3g}\n", count, f32_error,
               mean_error);
    fmt::print("relative error, sum of 2^24 uniform float64 (seeded mt19937_64): {:.3g}\n",
               f64_error);
  }
}
