// The runtime thread pool: coverage of ranges, grain, inlining, nesting, exceptions, concurrency.
#include "runtime/thread_pool.h"

#include <jx/error.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using jx::runtime::FunctionRef;
using jx::runtime::ThreadPool;

namespace {

// Runs parallel_for and checks that every index of [begin, end) was visited exactly once and
// that every chunk lies inside the range.
void expect_each_index_once(ThreadPool &pool, int64_t begin, int64_t end, int64_t grain) {
  int64_t n = std::max<int64_t>(end - begin, 0);
  std::vector<std::atomic<int>> seen(n);
  std::atomic<bool> out_of_range{false};
  pool.parallel_for(begin, end, grain, [&](int64_t lo, int64_t hi) {
    if (lo < begin || hi > end || lo >= hi) out_of_range = true;
    for (int64_t i = lo; i < hi && i >= begin && i < end; ++i)
      seen[i - begin].fetch_add(1);
  });
  EXPECT_FALSE(out_of_range) << begin << ".." << end << " grain " << grain;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(seen[i].load(), 1) << "index " << begin + i << " of " << begin << ".." << end
                                 << " grain " << grain;
}

// Records the chunks of one parallel_for call.
std::vector<std::pair<int64_t, int64_t>> chunks_of(ThreadPool &pool, int64_t begin, int64_t end,
                                                   int64_t grain) {
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  pool.parallel_for(begin, end, grain, [&](int64_t lo, int64_t hi) {
    std::lock_guard lock(m);
    chunks.emplace_back(lo, hi);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

// Sets an environment variable for the scope of a test and restores it afterwards.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace

TEST(FunctionRef, CallsLambdasFunctionsAndReturnsValues) {
  int calls = 0;
  auto add = [&](int a, int b) {
    ++calls;
    return a + b;
  };
  FunctionRef<int(int, int)> ref = add;
  EXPECT_EQ(ref(2, 3), 5);
  EXPECT_EQ(calls, 1);

  struct Local {
    static int twice(int x) { return 2 * x; }
  };
  FunctionRef<int(int)> fn = Local::twice;
  EXPECT_EQ(fn(21), 42);

  const auto constant = [](int x) { return x + 1; };
  FunctionRef<long(int)> widened = constant; // result converts to R
  EXPECT_EQ(widened(1), 2L);

  FunctionRef<void(int)> discards = constant; // a void signature ignores the result
  discards(0);
}

TEST(ThreadPool, SizeCountsTheCaller) {
  EXPECT_EQ(ThreadPool(1).size(), 1);
  EXPECT_EQ(ThreadPool(3).size(), 3);
  EXPECT_EQ(ThreadPool(0).size(), 1);
  EXPECT_EQ(ThreadPool(-5).size(), 1);
}

TEST(ThreadPool, VisitsEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int64_t begin : {int64_t{0}, int64_t{1}, int64_t{17}, int64_t{-40}})
      for (int64_t len : {0, 1, 2, 3, 7, 8, 9, 31, 100, 1000, 4097})
        for (int64_t grain : {-1, 0, 1, 2, 3, 16, 1000, 5000})
          expect_each_index_once(pool, begin, begin + len, grain);
  }
}

TEST(ThreadPool, EmptyAndReversedRangesCallNothing) {
  ThreadPool pool(4);
  int calls = 0;
  pool.parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
  pool.parallel_for(9, 3, 1, [&](int64_t, int64_t) { ++calls; });
  pool.run_batch(0, [&](int64_t) { ++calls; });
  pool.run_batch(-2, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, ChunksRespectGrainAndAreBounded) {
  ThreadPool pool(4);
  for (int64_t len : {1, 5, 10, 99, 100, 101, 1000, 123457})
    for (int64_t grain : {1, 3, 10, 100, 1000}) {
      auto chunks = chunks_of(pool, 10, 10 + len, grain);
      ASSERT_FALSE(chunks.empty());
      EXPECT_LE(chunks.size(), size_t(4 * pool.size()));
      // Only a range shorter than the grain may produce a chunk below it.
      if (len >= grain)
        for (auto [lo, hi] : chunks)
          EXPECT_GE(hi - lo, grain) << len << " grain " << grain;
      else
        EXPECT_EQ(chunks.size(), 1u);
    }
  // Enough work splits into several chunks, so the workers get a share.
  EXPECT_GT(chunks_of(pool, 0, 1000, 1).size(), 1u);
}

TEST(ThreadPool, PoolOfOneRunsInlineAsOneCall) {
  ThreadPool pool(1);
  auto caller = std::this_thread::get_id();
  int calls = 0;
  pool.parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) {
    ++calls;
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 1000);
  });
  EXPECT_EQ(calls, 1);
  std::vector<int64_t> order;
  pool.run_batch(5, [&](int64_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(ThreadPool, SingleChunkRunsInlineOnCaller) {
  ThreadPool pool(4);
  auto caller = std::this_thread::get_id();
  int calls = 0;
  pool.parallel_for(3, 10, 100, [&](int64_t lo, int64_t hi) {
    ++calls;
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(lo, 3);
    EXPECT_EQ(hi, 10);
  });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, WorkersTakePart) {
  // Tasks block until two distinct threads have started one, which needs a worker to join in.
  ThreadPool pool(2);
  std::mutex m;
  std::set<std::thread::id> threads;
  std::atomic<int> started{0};
  pool.run_batch(2, [&](int64_t) {
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    while (started.load() < 2)
      std::this_thread::yield();
  });
  EXPECT_EQ(threads.size(), 2u);
}

// A batch is split into one run of consecutive tasks per thread, the caller's first: each
// thread starts on its own run (the same rows of a kernel every step of a loop), then helps with
// the others'.
TEST(ThreadPool, EachThreadStartsOnItsOwnRun) {
  ThreadPool pool(2);
  std::mutex m;
  std::map<std::thread::id, int64_t> first;
  std::atomic<int> started{0};
  pool.run_batch(4, [&](int64_t t) {
    bool is_first = false;
    {
      std::lock_guard lock(m);
      is_first = first.emplace(std::this_thread::get_id(), t).second;
    }
    if (!is_first) return;
    started.fetch_add(1);
    while (started.load() < 2)
      std::this_thread::yield();
  });
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first.at(std::this_thread::get_id()), 0);
  for (const auto &[thread, task] : first) {
    if (thread != std::this_thread::get_id()) {
      EXPECT_EQ(task, 2);
    }
  }
}

TEST(ThreadPool, BatchesRunEveryTaskOnceWhateverTheirSize) {
  for (int threads : {1, 2, 3, 5})
    for (int64_t tasks : {1, 2, 3, 4, 5, 7, 8, 13, 64}) {
      ThreadPool pool(threads);
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      pool.run_batch(tasks, [&](int64_t t) { runs[size_t(t)].fetch_add(1); });
      for (int64_t t = 0; t < tasks; ++t)
        EXPECT_EQ(runs[size_t(t)].load(), 1)
            << threads << " threads, task " << t << " of " << tasks;
    }
}

TEST(ThreadPool, SleepingWorkersWakeAndSleepingCallersAreWoken) {
  // Pauses longer than any spin make workers block between batches, and slow tasks make the
  // caller block waiting for them; results must still be complete when run_batch returns.
  ThreadPool pool(3);
  for (int r = 0; r < 10; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::vector<int> done(6, 0);
    std::atomic<int> started{0};
    pool.run_batch(6, [&](int64_t i) {
      if (started.fetch_add(1) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      done[i] = 1;
    });
    EXPECT_EQ(std::count(done.begin(), done.end(), 1), 6);
  }
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(3);
  constexpr int64_t outer = 64, inner = 50;
  std::vector<std::atomic<int>> seen(outer * inner);
  std::atomic<bool> nested_left_thread{false};
  pool.parallel_for(0, outer, 1, [&](int64_t lo, int64_t hi) {
    auto me = std::this_thread::get_id();
    for (int64_t i = lo; i < hi; ++i)
      pool.parallel_for(0, inner, 1, [&](int64_t a, int64_t b) {
        if (std::this_thread::get_id() != me) nested_left_thread = true;
        for (int64_t j = a; j < b; ++j)
          seen[i * inner + j].fetch_add(1);
      });
  });
  EXPECT_FALSE(nested_left_thread);
  for (auto &s : seen)
    ASSERT_EQ(s.load(), 1);

  // Nesting across pools also stays on the thread: no pool waits on another's workers.
  ThreadPool other(2);
  std::atomic<int64_t> total{0};
  pool.run_batch(6, [&](int64_t) {
    other.parallel_for(0, 100, 1, [&](int64_t a, int64_t b) { total += b - a; });
  });
  EXPECT_EQ(total.load(), 600);
}

TEST(ThreadPool, ExceptionIsRethrownAfterAllChunksAndPoolIsReusable) {
  ThreadPool pool(3);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int64_t> visited{0};
    EXPECT_THROW(pool.parallel_for(0, 1200, 1,
                                   [&](int64_t lo, int64_t hi) {
                                     visited += hi - lo;
                                     if (lo == 0) throw std::runtime_error("chunk failed");
                                   }),
                 std::runtime_error);
    EXPECT_EQ(visited.load(), 1200) << "other chunks still complete";
  }
  // Every task throws: exactly one exception comes out.
  try {
    pool.run_batch(16, [](int64_t i) { throw std::out_of_range(std::to_string(i)); });
    FAIL() << "expected an exception";
  } catch (const std::out_of_range &) {
  }
  expect_each_index_once(pool, 0, 10000, 1);

  // Inline paths propagate too.
  ThreadPool one(1);
  EXPECT_THROW(one.parallel_for(0, 10, 1, [](int64_t, int64_t) { throw std::logic_error("x"); }),
               std::logic_error);
  int ran = 0;
  EXPECT_THROW(one.run_batch(4,
                             [&](int64_t i) {
                               ++ran;
                               if (i == 1) throw std::logic_error("x");
                             }),
               std::logic_error);
  EXPECT_EQ(ran, 4);
}

TEST(ThreadPool, ConcurrentCallersAreSafe) {
  ThreadPool pool(3);
  constexpr int callers = 4, rounds = 200;
  constexpr int64_t n = 2000;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < callers; ++t)
    threads.emplace_back([&, t] {
      std::vector<int> seen(n); // each caller owns its buffer: the pool must keep them apart
      for (int r = 0; r < rounds; ++r) {
        pool.parallel_for(0, n, 1 + t, [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i)
            ++seen[i];
        });
      }
      for (int v : seen)
        if (v != rounds) failures.fetch_add(1);
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, ManyShortBatchesBackToBack) {
  // Exercises the handoff between consecutive batches (workers still leaving the last one).
  ThreadPool pool(4);
  int64_t sum = 0;
  for (int r = 0; r < 5000; ++r) {
    std::atomic<int64_t> part{0};
    pool.run_batch(3, [&](int64_t i) { part += i + 1; });
    sum += part.load();
  }
  EXPECT_EQ(sum, 5000 * 6);
}

TEST(ThreadPool, DestructionJoinsIdleWorkers) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(4);
    if (i % 2) expect_each_index_once(pool, 0, 100, 1);
  }
}

TEST(DefaultPool, ThreadCountHonoursEnvironment) {
  int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  {
    ScopedEnv env("JX_NUM_THREADS", nullptr);
    EXPECT_EQ(jx::runtime::default_thread_count(), hw);
  }
  {
    ScopedEnv env("JX_NUM_THREADS", "3");
    EXPECT_EQ(jx::runtime::default_thread_count(), 3);
  }
  {
    ScopedEnv env("JX_NUM_THREADS", "1");
    EXPECT_EQ(jx::runtime::default_thread_count(), 1);
  }
  {
    ScopedEnv env("JX_NUM_THREADS", "1024");
    EXPECT_EQ(jx::runtime::default_thread_count(), 1024);
  }
  {
    ScopedEnv env("JX_NUM_THREADS", ""); // as if unset
    EXPECT_EQ(jx::runtime::default_thread_count(), hw);
  }
  // Set but not a count in 1..1024: a ValueError naming the variable and its value.
  for (const char *bad : {"0", "-2", "abc", "4x", " 4", "+4", "1025", "99999999999999999999"}) {
    ScopedEnv env("JX_NUM_THREADS", bad);
    try {
      jx::runtime::default_thread_count();
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const jx::ValueError &e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("JX_NUM_THREADS must be an integer from 1 to 1024, got '") + bad + "'");
    }
  }
}

TEST(DefaultPool, IsOneSharedPoolThatWorks) {
  ThreadPool &pool = jx::runtime::default_pool();
  EXPECT_EQ(&pool, &jx::runtime::default_pool());
  EXPECT_EQ(pool.size(), jx::runtime::default_thread_count());
  expect_each_index_once(pool, 0, 10000, 7);
}
