// Call overheads of compiled functions: a Compiled call on a tiny array (dispatch), a jit call
// whose signature is cached (cache lookup + dispatch), and a cold trace + compile of a small
// function; six arguments flat and as a pytree. Baseline in the same run: the same arithmetic as a
// plain C++ loop.
#include <jx/jx.h>

#include <benchmark/benchmark.h>

namespace jnp = jx::numpy;
using jx::Array;

static Array small_fn(const Array &x) { return x * 2.0 + 1.0; }

static void BM_PlainLoop16(benchmark::State &state) {
  std::vector<double> x(16, 1.0), y(16);
  for (auto _ : state) {
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * 2.0 + 1.0;
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_PlainLoop16);

static void BM_CompiledCall16(benchmark::State &state) {
  auto compiled = jx::jit(small_fn).lower(jx::ShapeDtypeStruct{{16}, jx::float64}).compile();
  Array x = jnp::ones({16}).block_until_ready();
  for (auto _ : state) benchmark::DoNotOptimize(compiled(x).data());
}
BENCHMARK(BM_CompiledCall16);

static void BM_JitCachedCall16(benchmark::State &state) {
  auto f = jx::jit(small_fn);
  Array x = jnp::ones({16}).block_until_ready();
  f(x);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
}
BENCHMARK(BM_JitCachedCall16);

// Six arguments, flat and as a pytree (issue 32's target: the tree's dispatch within 1.5x the flat
// call's): a cached jit call each, of the same arithmetic.
static void BM_JitCachedCallFlat6(benchmark::State &state) {
  auto f = jx::jit([](const Array &a, const Array &b, const Array &c, const Array &d,
                      const Array &e, const Array &g) { return a + b + c + d + e + g; });
  Array x = jnp::ones({16}).block_until_ready();
  f(x, x, x, x, x, x);
  for (auto _ : state)
    benchmark::DoNotOptimize(f(x, x, x, x, x, x).data());
}
BENCHMARK(BM_JitCachedCallFlat6);

struct Six {
  Array a, b, c, d, e, g;
};
JX_PYTREE(Six, a, b, c, d, e, g);

static void BM_JitCachedCallTree6(benchmark::State &state) {
  auto f = jx::jit([](const Six &s) { return s.a + s.b + s.c + s.d + s.e + s.g; });
  Array x = jnp::ones({16}).block_until_ready();
  const Six six{x, x, x, x, x, x};
  f(six);
  for (auto _ : state)
    benchmark::DoNotOptimize(f(six).data());
}
BENCHMARK(BM_JitCachedCallTree6);

// A new function object each time: tracing and kernel compilation, cold in the process's
// kernel cache only for the first iteration; later iterations hit the in-memory kernel cache.
static void BM_TraceAndCompileCached(benchmark::State &state) {
  for (auto _ : state) {
    auto compiled = jx::jit(small_fn).lower(jx::ShapeDtypeStruct{{16}, jx::float64}).compile();
    benchmark::DoNotOptimize(&compiled);
  }
}
BENCHMARK(BM_TraceAndCompileCached)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
