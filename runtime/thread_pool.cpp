// The thread pool: batches of tasks claimed dynamically by the workers and the calling thread.
#include "runtime/thread_pool.h"

#include "runtime/trace.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <jx/error.h>
#include <string>
#include <system_error>
#include <vector>

namespace jx::runtime {

namespace {

// Set while a thread runs tasks of any pool: submissions from such a thread run inline.
thread_local bool t_in_task = false;

struct InTaskScope {
  bool saved = t_in_task;
  InTaskScope() { t_in_task = true; }
  ~InTaskScope() { t_in_task = saved; }
};

// Waking a blocked thread costs tens of microseconds, as much as a small kernel, and kernels
// often come back to back, so waiters spin a little before blocking. Measured on 2 shared vCPUs
// (bench/thread_pool_bench.cpp): 10us gave most of the speedup of longer spins and cost the
// least when the other vCPU was busy.
constexpr auto spin_budget = std::chrono::microseconds(10);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() holds (true) or the spin budget is spent (false).
template <class Pred> bool spin_until(Pred done) {
  if (done()) return true;
  auto deadline = std::chrono::steady_clock::now() + spin_budget;
  for (int i = 1;; ++i) {
    cpu_relax();
    if (done()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return false;
  }
}

} // namespace

// Lives on the submitting thread's stack. The tasks are split into one run per thread of the
// pool (the caller's first): each thread claims its own run's tasks first, then the others'. So
// a thread computes the same rows of a kernel every time the kernel comes back (a loop's
// steps), and reads the rows it wrote the step before from its own caches: claiming from one
// shared counter moved rows between cores every step, and on Zen 4 (whose cores need not share
// an L3) a stencil step's tasks took 10x their time once in 20.
struct ThreadPool::Batch {
  Batch(FunctionRef<void(int64_t)> task, int64_t num_tasks, int threads)
      : task(task), runs(size_t(std::min<int64_t>(threads, num_tasks))) {
    const auto n = int64_t(runs.size());
    for (int64_t r = 0; r < n; ++r) {
      runs[size_t(r)].next.store(num_tasks * r / n, std::memory_order_relaxed);
      runs[size_t(r)].end = num_tasks * (r + 1) / n;
    }
  }

  struct alignas(64) Run { // a cache line each: the threads' claims do not contend
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  FunctionRef<void(int64_t)> task;
  std::vector<Run> runs;
  std::atomic<bool> failed{false};
  std::exception_ptr error; // written once, by whoever sets `failed`

  // Runs tasks as thread `self` of the pool (0: the caller).
  void run(size_t self) {
    for (size_t k = 0; k < runs.size(); ++k) {
      Run &r = runs[(self + k) % runs.size()];
      for (int64_t i; (i = r.next.fetch_add(1, std::memory_order_relaxed)) < r.end;) {
        try {
          task(i);
        } catch (...) {
          if (!failed.exchange(true, std::memory_order_relaxed)) error = std::current_exception();
        }
      }
    }
  }
};

ThreadPool::ThreadPool(int num_threads) : ThreadPool(num_threads, max_thread_count) {}

ThreadPool::ThreadPool(int num_threads, int startable_workers) {
  const int wanted = std::clamp(num_threads, 1, max_thread_count) - 1;
  workers_.reserve(wanted);
  try {
    for (int i = 0; i < wanted; ++i) {
      if (i >= startable_workers)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "simulated by ThreadPool(num_threads, startable_workers)");
      workers_.emplace_back([this, i] {
        trace::name_thread("pool worker " + std::to_string(i + 1));
        worker_loop(size_t(i) + 1);
      });
    }
  } catch (const std::system_error &e) {
    // The workers started so far already run; the pool is complete with them.
    std::fprintf(stderr,
                 "jx: warning: the thread pool could start only %zu of its %d worker threads "
                 "(%s); it runs on %zu thread%s\n",
                 workers_.size(), wanted, e.what(), workers_.size() + 1,
                 workers_.empty() ? " (the caller's)" : "s");
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(sleep_mutex_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  work_cv_.notify_all();
  for (auto &w : workers_)
    w.join();
}

// The seq_cst pairs below are Dekker-style handshakes: of two threads that each store then load
// the other's flag, at least one sees the other's store.
void ThreadPool::worker_loop(size_t self) {
  t_in_task = true;
  uint64_t seen = 0;
  for (;;) {
    if (!spin_until([&] { return generation_.load(std::memory_order_relaxed) != seen; })) {
      std::unique_lock lock(sleep_mutex_);
      sleeping_workers_.fetch_add(1);
      work_cv_.wait(lock, [&] { return generation_.load() != seen; });
      sleeping_workers_.fetch_sub(1);
    }
    if (stop_.load()) return;
    seen = generation_.load();

    // A caller that clears current_ and then sees active_workers_ == 0 knows no worker holds
    // its batch; one that sees it non-zero waits.
    active_workers_.fetch_add(1);
    if (Batch *batch = current_.load()) batch->run(self);
    if (active_workers_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      std::lock_guard lock(sleep_mutex_);
      done_cv_.notify_all();
    }
  }
}

void ThreadPool::wait_for_workers() {
  if (spin_until([&] { return active_workers_.load(std::memory_order_acquire) == 0; })) return;
  std::unique_lock lock(sleep_mutex_);
  caller_sleeping_.store(true);
  done_cv_.wait(lock, [&] { return active_workers_.load() == 0; });
  caller_sleeping_.store(false);
}

void ThreadPool::run_batch(int64_t num_tasks, FunctionRef<void(int64_t)> task) {
  if (num_tasks <= 0) return;
  if (num_tasks == 1) return task(0);
  Batch batch(task, num_tasks, size());
  if (workers_.empty() || t_in_task) {
    batch.run(0);
  } else {
    std::lock_guard turn(submit_mutex_);
    current_.store(&batch);
    generation_.fetch_add(1);
    if (sleeping_workers_.load() > 0) {
      // Taking the lock orders this notify after a sleeper's check of generation_.
      { std::lock_guard lock(sleep_mutex_); }
      // The caller runs tasks too, so num_tasks - 1 helpers at most are useful.
      if (num_tasks - 1 >= static_cast<int64_t>(workers_.size()))
        work_cv_.notify_all();
      else
        for (int64_t i = 0; i < num_tasks - 1; ++i)
          work_cv_.notify_one();
    }
    {
      InTaskScope scope;
      batch.run(0);
    }
    current_.store(nullptr);
    // The caller's share is done: what remains is the barrier.
    trace::Span barrier("wait", "barrier");
    wait_for_workers();
  }
  if (batch.error) std::rethrow_exception(batch.error);
}

void ThreadPool::parallel_for(int64_t begin, int64_t end, int64_t grain,
                              FunctionRef<void(int64_t, int64_t)> body) {
  if (end <= begin) return;
  int64_t range = end - begin;
  int64_t chunks = std::min<int64_t>(range / std::max<int64_t>(grain, 1), 4 * int64_t(size()));
  if (chunks <= 1 || workers_.empty() || t_in_task) return body(begin, end);

  // The first `extra` chunks get one more iteration; every chunk keeps at least `grain`.
  int64_t base = range / chunks, extra = range % chunks;
  run_batch(chunks, [&](int64_t i) {
    int64_t lo = begin + i * base + std::min(i, extra);
    body(lo, lo + base + (i < extra ? 1 : 0));
  });
}

std::optional<int> parse_count(std::string_view text, int max) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || text[0] == '-' || ec != std::errc() || ptr != text.data() + text.size() ||
      n < 1 || n > max)
    return std::nullopt;
  return n;
}

std::optional<int> count_from_env(const char *name, int max) {
  const char *env = std::getenv(name);
  if (!env || !*env) return std::nullopt;
  if (std::optional<int> n = parse_count(env, max)) return n;
  throw ValueError(std::string(name) + " must be an integer from 1 to " + std::to_string(max) +
                   ", got '" + env + "'");
}

int default_thread_count() {
  if (std::optional<int> n = count_from_env("JX_NUM_THREADS", max_thread_count)) return *n;
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, max_thread_count);
}

void copy_unless_same(const void *from, void *to, size_t bytes) {
  if (from == to || bytes == 0) return;
  constexpr int64_t chunk = int64_t(1) << 18;
  default_pool().parallel_for(
      0, int64_t((bytes + chunk - 1) / chunk), 1, [&](int64_t begin, int64_t end) {
        const auto lo = size_t(begin * chunk);
        const size_t hi = std::min(bytes, size_t(end * chunk));
        std::memcpy(static_cast<char *>(to) + lo, static_cast<const char *>(from) + lo, hi - lo);
      });
}

ThreadPool &default_pool() {
  // A function-local static: built on first use, its destructor joins the workers at exit.
  static ThreadPool pool(default_thread_count());
  return pool;
}

} // namespace jx::runtime
