// The device count: requested before first use, then fixed for the life of the process.
#include "runtime/devices.h"

#include <atomic>
#include <mutex>

#include "runtime/thread_pool.h"

namespace jx::runtime {

namespace {

std::mutex count_mutex;
int requested_count = 0;         // guarded by count_mutex
std::atomic<int> fixed_count{0}; // 0 until first use; never changes afterwards

int env_device_count() {
  return count_from_env("JX_NUM_CPU_DEVICES", max_device_count).value_or(1);
}

} // namespace

int device_count() {
  if (int n = fixed_count.load(std::memory_order_acquire)) return n;
  std::lock_guard lock(count_mutex);
  if (fixed_count.load(std::memory_order_relaxed) == 0)
    fixed_count.store(requested_count > 0 ? requested_count : env_device_count(),
                      std::memory_order_release);
  return fixed_count.load(std::memory_order_relaxed);
}

bool request_device_count(int n) {
  std::lock_guard lock(count_mutex);
  // Asking again for the count in use changes nothing.
  if (const int fixed = fixed_count.load(std::memory_order_relaxed); fixed != 0) return fixed == n;
  requested_count = n;
  return true;
}

std::optional<int> parse_device_count(std::string_view text) {
  return parse_count(text, max_device_count);
}

} // namespace jx::runtime
