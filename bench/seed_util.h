// Timing and memory helpers shared by the seed benchmarks.
#pragma once

#include <jx/array.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace seed_bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The middle value (the upper one of an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Peak resident set size (VmHWM) in MiB.
inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024;
  return 0;
}

// Lowers VmHWM to the current RSS (Linux >= 4.0), so that the growth counts only the calls and not
// the peak of tracing, compiling or making the input.
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

struct Timing {
  std::optional<jx::Array> result; // of the last call
  double median_ms, min_ms, rss_growth_mib;
};

// Calls call() once to warm up (first touch, threads), then `reps` timed times. The previous
// result dies before each call, so its buffer is recycled as in a steady loop; the RSS growth
// counts only these calls.
template <class F> Timing time_calls(int reps, F &&call) {
  reset_peak_rss();
  const double rss_before = peak_rss_mib();
  Timing t{call().block_until_ready(), 0, 0, 0};
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    t.result.reset();
    auto start = Clock::now();
    t.result = call().block_until_ready();
    times.push_back(ms_since(start));
  }
  t.rss_growth_mib = peak_rss_mib() - rss_before;
  std::sort(times.begin(), times.end());
  t.median_ms = times[times.size() / 2];
  t.min_ms = times[0];
  return t;
}

} // namespace seed_bench
