// The device count: requested before first use, then fixed for the life of the process.
#include "runtime/devices.h"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>

namespace jx::runtime {

namespace {

std::mutex count_mutex;
int requested_count = 0;         // guarded by count_mutex
std::atomic<int> fixed_count{0}; // 0 until first use; never changes afterwards

int count_from_env() {
  const char *env = std::getenv("JX_NUM_CPU_DEVICES");
  return env ? parse_device_count(env).value_or(1) : 1;
}

} // namespace

int device_count() {
  if (int n = fixed_count.load(std::memory_order_acquire)) return n;
  std::lock_guard lock(count_mutex);
  if (fixed_count.load(std::memory_order_relaxed) == 0)
    fixed_count.store(requested_count > 0 ? requested_count : count_from_env(),
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
  int n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || n <= 0) return std::nullopt;
  return n;
}

} // namespace jx::runtime
