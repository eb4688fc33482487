// The logical CPU devices of this process: how many there are (the mesh issue's device layer).
//
// A device is a unit of work on the runtime thread pool, not a thread: work for N devices is a
// batch of N tasks (ThreadPool::run_batch), so 8 devices on 2 cores neither oversubscribe nor
// spin. All devices share the host's memory.
#pragma once

#include <optional>
#include <string_view>

namespace jx::runtime {

// The number of devices, fixed by the first call: the count requested by
// request_device_count, else JX_NUM_CPU_DEVICES, else 1. A JX_NUM_CPU_DEVICES that is set but not
// a count in [1, max_device_count] (thread_pool.h) makes every call raise jx::ValueError naming
// it, as JAX raises for a bad JAX_NUM_CPU_DEVICES, and fixes nothing.
int device_count();

// Requests n devices (1 <= n <= max_device_count; callers check). Once device_count() has fixed
// the count, returns whether n is that count (changing nothing).
bool request_device_count(int n);

// `text` as a device count in [1, max_device_count], else nullopt.
std::optional<int> parse_device_count(std::string_view text);

} // namespace jx::runtime
