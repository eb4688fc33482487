// Tracing cost: building the Simpson seed's graph must cost O(nodes), independent of the array
// sizes (N). Compare the rows: the time per trace should not grow with N.
#include <jx/jx.h>

#include <benchmark/benchmark.h>

#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

static Array simps_graph(int N) {
  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;
  return seeds::simps([](const Array &x) { return seeds::funcN(x); }, a, b, N);
}

static void BM_TraceSimpson(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(simps_graph(state.range(0)));
  state.counters["elements"] = double((state.range(0) + 1) * 200 * 100);
}
BENCHMARK(BM_TraceSimpson)->Arg(8)->Arg(512)->Arg(1 << 16)->Unit(benchmark::kMicrosecond);

static void BM_TraceDiffSeed(benchmark::State &state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto x = jx::random::normal(jx::random::PRNGKey(0), {n, n});
    benchmark::DoNotOptimize(seeds::calc_fd_kernel(x));
  }
}
BENCHMARK(BM_TraceDiffSeed)->Arg(64)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
