// Timing and memory helpers shared by the seed benchmarks.
#pragma once

#include <chrono>
#include <fstream>
#include <string>

namespace seed_bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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

} // namespace seed_bench
