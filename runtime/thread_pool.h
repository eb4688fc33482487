// The thread pool that compiled kernels (and later the devices of a CPU mesh) run on.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/function_ref.h"

namespace jx::runtime {

// A fixed set of worker threads plus the calling thread. Work is submitted as a batch of
// independent tasks; the caller takes part in running them and returns once all are done.
//
// - A call from a thread that is already running a task of any pool (a worker, or a caller while
//   it runs tasks) runs inline on that thread, so nesting never deadlocks or oversubscribes.
// - If tasks throw, every task still runs and the first exception is rethrown on the caller.
// - Several threads may submit concurrently; their batches run one after another.
// - Tasks of one batch must not wait for each other: they may all run on one thread.
class ThreadPool {
public:
  // num_threads is the total parallelism: num_threads - 1 workers plus the caller (1 to
  // max_thread_count). A thread the system refuses (std::system_error: a pids-limited container,
  // RLIMIT_NPROC) is not fatal: the pool runs with the workers it got, down to none (the caller
  // alone), and says so once on stderr.
  explicit ThreadPool(int num_threads);
  // For tests of that fallback: the system "refuses" every worker after the first
  // `startable_workers`.
  ThreadPool(int num_threads, int startable_workers);
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  // Joins the workers; no batch may be in flight.
  ~ThreadPool();

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(i) for every i in [0, num_tasks), each as its own unit of work, and waits for all.
  void run_batch(int64_t num_tasks, FunctionRef<void(int64_t)> task);

  // Splits [begin, end) into chunks of at least `grain` iterations (at most 4 * size() chunks)
  // and runs body(chunk_begin, chunk_end) on each. A range that fits in one chunk, or a pool of
  // one thread, runs as a single inline call without synchronization.
  void parallel_for(int64_t begin, int64_t end, int64_t grain,
                    FunctionRef<void(int64_t, int64_t)> body);

private:
  struct Batch;

  void worker_loop(size_t self);
  void wait_for_workers();

  // One batch runs at a time. Workers find and claim work without locks; the mutexes only make
  // callers take turns and guard blocking.
  std::mutex submit_mutex_;                  // concurrent callers take turns
  std::atomic<Batch *> current_{nullptr};    // the batch workers may join
  std::atomic<uint64_t> generation_{0};      // bumped per submission: what idle workers watch
  std::atomic<int> active_workers_{0};       // workers that may be touching current_'s batch
  std::atomic<int> sleeping_workers_{0};     // so submitters skip notify when nobody sleeps
  std::atomic<bool> caller_sleeping_{false}; // so workers skip notify when the caller spins
  std::atomic<bool> stop_{false};
  std::mutex sleep_mutex_;
  std::condition_variable work_cv_; // idle workers block here after spinning
  std::condition_variable done_cv_; // the caller blocks here for workers to leave its batch
  std::vector<std::thread> workers_;
};

// Bounds of JX_NUM_THREADS and of JX_NUM_CPU_DEVICES / set_num_cpu_devices.
constexpr int max_thread_count = 1024;
constexpr int max_device_count = 4096;

// `text` as a count in [1, max] (decimal digits only), else nullopt.
std::optional<int> parse_count(std::string_view text, int max);

// The environment variable `name` as a count in [1, max]: nullopt if it is unset or empty, and
// jx::ValueError naming the variable and its value if it is anything else, as JAX raises for a
// bad JAX_NUM_CPU_DEVICES.
std::optional<int> count_from_env(const char *name, int max);

// JX_NUM_THREADS (see count_from_env), else std::thread::hardware_concurrency() (1 to
// max_thread_count).
int default_thread_count();

// The process-wide pool of default_thread_count() threads, created on first use. A bad
// JX_NUM_THREADS makes every use raise its jx::ValueError (no pool is built).
ThreadPool &default_pool();

// bytes of `from` copied to `to` (which do not overlap) in chunks across the default pool; nothing
// where they are the same memory (an update that runs in place).
void copy_unless_same(const void *from, void *to, size_t bytes);

} // namespace jx::runtime
