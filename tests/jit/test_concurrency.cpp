// Issue 11, eager evaluation from many threads: reading the same pending arrays, realizing nodes
// that other threads' graphs contain, and building identical (hash-consed, so shared) graphs
// independently, with and without jit in between. Every read sees the right values, each node
// is realized once, and nothing races (this file runs under ThreadSanitizer in `make test`).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cmath>
#include <thread>
#include <vector>

namespace {

namespace jnp = jx::numpy;
using jx::Array;

constexpr int threads = 8;
#if defined(__SANITIZE_THREAD__)
constexpr int rounds = 20;
#else
constexpr int rounds = 150;
#endif

// sum(sin(x * 2 + 1) + x) for x = arange(n), in double.
double expected_sum(int64_t n, double offset) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    s += std::sin((double(i) + offset) * 2 + 1) + (double(i) + offset);
  return s;
}

TEST(Concurrency, ThreadsReadSharedPendingGraphs) {
  std::atomic<int> wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    // A fresh pending graph per round, shared by all threads: each reads its nodes in a
    // different order, so realizations of inner nodes overlap other threads' compiles.
    const double offset = round;
    const Array x = jnp::arange(257.0) + offset;
    const Array y = jnp::sin(x * 2.0 + 1.0) + x;
    const Array total = jnp::sum(y);
    const Array doubled = y * 2.0;
    std::barrier start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        const Array *order[] = {&x, &y, &total, &doubled};
        for (int k = 0; k < 4; ++k) {
          const Array &a = *order[(k + t) % 4];
          a.block_until_ready();
        }
        if (std::abs(total.item<double>() - expected_sum(257, offset)) > 1e-9 * 257 * 257)
          ++wrong;
        const double want = 2 * (std::sin((5 + offset) * 2 + 1) + 5 + offset);
        if (std::abs(doubled.to_vector<double>()[5] - want) > 1e-12 * std::abs(want)) ++wrong;
      });
    for (std::thread &th : pool)
      th.join();
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Concurrency, IdenticalGraphsBuiltIndependently) {
  std::atomic<int> wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    std::barrier start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        // The same expression in every thread: hash-consing makes the nodes shared. Half the
        // threads read an inner node first.
        const Array x = jnp::arange(301.0) + double(round);
        const Array y = jnp::sin(x * 2.0 + 1.0) + x;
        if (t % 2) y.block_until_ready();
        const double s = jnp::sum(y).item<double>();
        if (std::abs(s - expected_sum(301, round)) > 1e-9 * 301 * 301) ++wrong;
      });
    for (std::thread &th : pool)
      th.join();
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Concurrency, JitCallsOnSharedPendingArguments) {
  const auto f = jx::jit([](const Array &a, const Array &b) { return jnp::sum(a * b); });
  std::atomic<int> wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    const Array x = jnp::arange(100.0) + double(round);
    const Array y = jnp::cos(x);
    std::barrier start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        if (t % 3 == 0) y.block_until_ready();
        double expected = 0;
        for (int i = 0; i < 100; ++i)
          expected += (i + round) * std::cos(double(i + round));
        if (std::abs(f(x, y).item<double>() - expected) > 1e-9 * 100 * (100 + round)) ++wrong;
      });
    for (std::thread &th : pool)
      th.join();
  }
  EXPECT_EQ(wrong.load(), 0);
}

} // namespace
