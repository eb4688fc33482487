// Dispatch overhead of ThreadPool::parallel_for: an empty body over ranges of 1, 1e3 and 1e6.
#include "runtime/thread_pool.h"

#include <benchmark/benchmark.h>
#include <vector>

using jx::runtime::ThreadPool;

// Args: range length, pool size. Grain 1, so every range but the first splits into chunks.
static void BM_ParallelForEmpty(benchmark::State &state) {
  ThreadPool pool(static_cast<int>(state.range(1)));
  const int64_t n = state.range(0);
  for (auto _ : state)
    pool.parallel_for(0, n, 1, [](int64_t lo, int64_t hi) { benchmark::DoNotOptimize(hi - lo); });
}
BENCHMARK(BM_ParallelForEmpty)
    ->ArgsProduct({{1, 1000, 1000000}, {1, 2}})
    ->ArgNames({"n", "threads"});

// Back-to-back kernels with real work: how much a second thread speeds up a small kernel
// depends on how fast a worker picks up the next batch.
static void BM_ParallelForWork(benchmark::State &state) {
  ThreadPool pool(static_cast<int>(state.range(1)));
  std::vector<float> x(state.range(0), 1.0f);
  for (auto _ : state) {
    pool.parallel_for(0, int64_t(x.size()), 1024, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        x[i] = x[i] * 0.999f + 1.0f;
    });
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ParallelForWork)
    ->ArgsProduct({{10000, 100000, 1000000}, {1, 2}})
    ->ArgNames({"n", "threads"});

BENCHMARK_MAIN();
