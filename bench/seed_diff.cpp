// Times seed 000 (first-order difference along axis 0 of an n x n float64 normal sample, zero row
// prepended) compiled with jx::jit on 8 CPU devices, the input placed and the output computed as
// --mesh 1x1|8x1|1x8 says (the seed's PositionalShardings): compile time, median and min of --reps
// calls, peak RSS growth. --json prints one line for bench/peers/peers.py; --input-out/--out save
// x and the result.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "seed_util.h"
#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

using namespace seed_bench;

int main(int argc, char **argv) {
  int64_t n = 4096;
  int reps = 20;
  std::string mesh = "1x1", input_out, out;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::max<int64_t>(2, std::atoll(argv[++i]));
    } else if (!std::strcmp(argv[i], "--mesh") && i + 1 < argc &&
               (!std::strcmp(argv[i + 1], "1x1") || !std::strcmp(argv[i + 1], "8x1") ||
                !std::strcmp(argv[i + 1], "1x8"))) {
      mesh = argv[++i];
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--input-out") && i + 1 < argc) {
      input_out = argv[++i];
    } else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--mesh 1x1|8x1|1x8] [--n N] [--reps N] [--input-out FILE.npy] "
                   "[--out FILE.npy] [--json]\n",
                   argv[0]);
      return 2;
    }
  }
  const jx::Shape shape{n, n};
  // As the seed: --xla_force_host_platform_device_count=8, and a PositionalSharding per layout.
  jx::config::set_num_cpu_devices(8);
  const int64_t rows = mesh == "8x1" ? 8 : 1, cols = mesh == "1x8" ? 8 : 1;
  const jx::Sharding sharding = seeds::diff_layout(rows, cols);

  auto t0 = Clock::now();
  auto x = jx::random::normal(jx::random::PRNGKey(0), shape, jx::float64).block_until_ready();
  const double input_ms = ms_since(t0);
  if (!input_out.empty()) jnp::save(input_out, x);
  x = jx::device_put(x, sharding);

  t0 = Clock::now();
  auto calc_fd =
      jx::jit(seeds::calc_fd_kernel, {.in_shardings = {sharding}, .out_shardings = {sharding}})
          .lower(jx::ShapeDtypeStruct{shape, jx::float64})
          .compile();
  const double compile_ms = ms_since(t0);

  Timing timing = time_calls(reps, [&] { return calc_fd(x); });
  const std::optional<Array> &result = timing.result;
  const double median = timing.median_ms, min = timing.min_ms, rss_growth = timing.rss_growth_mib;

  if (!out.empty()) jnp::save(out, *result);
  if (json) {
    fmt::print("{{\"mesh\": \"{}\", \"n\": {}, \"median_ms\": {:.3f}, \"min_ms\": {:.3f}, "
               "\"compile_ms\": {:.1f}, \"rss_growth_mib\": {:.1f}}}\n",
               mesh, n, median, min, compile_ms, rss_growth);
  } else {
    fmt::print(
        "diff seed, mesh {} of 8 devices: x {}x{} float64 (normal sample made in {:.0f} ms)\n",
        mesh, n, n, input_ms);
    fmt::print("compile {:.1f} ms; run median {:.2f} ms, min {:.2f} ms over {} reps\n", compile_ms,
               median, min, reps);
    const double bytes = 2.0 * double(n) * double(n) * 8; // read x once, write the result once
    fmt::print("effective bandwidth at the median: {:.1f} GB/s\n", bytes / median / 1e6);
    fmt::print("peak RSS growth over the calls: {:.1f} MiB\n", rss_growth);
  }
  return 0;
}
