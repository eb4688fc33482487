// Tracing cost: building the Simpson seed's graph must cost O(nodes), independent of the array
// sizes (N). Compare the rows: the time per trace should not grow with N.
#include <jx/jx.h>

#include <benchmark/benchmark.h>

namespace jnp = jx::numpy;
using jx::Array;

static Array simps_graph(int64_t N) {
  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;
  auto dx = (b - a) / N;
  auto x = jnp::linspace(a, b, N + 1);
  std::vector<Array> terms;
  for (int i = 0; i < 200; ++i)
    terms.push_back(jnp::power(x, i / 10.) * jnp::exp(-x));
  auto y = jnp::stack(terms, 1);
  auto w = jnp::ones_like(y);
  w = w.at(jx::slice(2, -1, 2)).set(2.);
  w = w.at(jx::slice(1, jx::none, 2)).set(4.);
  return dx / 3 * jnp::einsum("i...,i...", w, y);
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
    benchmark::DoNotOptimize(jnp::diff(x, 1, 0, jnp::zeros({1, n})));
  }
}
BENCHMARK(BM_TraceDiffSeed)->Arg(64)->Arg(4096)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
