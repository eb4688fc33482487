// Times seed 001 (Simpson integration of 200 functions over 100 intervals, N = 512) compiled with
// jx::jit: compile time, median and min of --reps calls, and peak RSS growth over the calls.
// --json prints one line for bench/peers/peers.py; --out saves the (200, 100) result as .npy.
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
  std::string variant = "stack", shard = "none", out;
  int reps = 20;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--variant") && i + 1 < argc) {
      variant = argv[++i];
    } else if (!std::strcmp(argv[i], "--shard") && i + 1 < argc) {
      shard = argv[++i];
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--variant stack|broadcast] [--shard none|functions|intervals] "
                   "[--reps N] [--out FILE.npy] [--json]\n",
                   argv[0]);
      return 2;
    }
  }
  if (variant != "stack" && variant != "broadcast") {
    std::fprintf(stderr, "--variant must be stack or broadcast\n");
    return 2;
  }
  if (shard != "none" && shard != "functions" && shard != "intervals") {
    std::fprintf(stderr, "--shard must be none, functions or intervals\n");
    return 2;
  }
  const bool broadcast = variant == "broadcast";
  // --shard: the (200 functions, 100 intervals) result over 8 CPU devices along one axis.
  jx::JitOptions options;
  if (shard != "none") {
    jx::config::set_num_cpu_devices(8);
    jx::Mesh mesh = jx::make_mesh({8}, {"d"});
    options.out_shardings = {
        jx::NamedSharding(mesh, shard == "functions" ? jx::P("d", nullptr) : jx::P(nullptr, "d"))};
  }
  auto funcN = [broadcast](const Array &x) {
    return broadcast ? seeds::funcN_broadcast(x) : seeds::funcN(x);
  };

  auto a = jnp::arange(0, 10, 0.1).block_until_ready();
  auto b = (a + 0.05).block_until_ready();

  auto t0 = Clock::now();
  jx::ShapeDtypeStruct interval{{100}, jx::float64};
  auto simps =
      jx::jit([&](const Array &lo, const Array &hi) { return seeds::simps(funcN, lo, hi, 512); },
              options)
          .lower(interval, interval)
          .compile();
  const double compile_ms = ms_since(t0);

  Timing timing = time_calls(reps, [&] { return simps(a, b); });
  const std::optional<Array> &S = timing.result;
  const double median = timing.median_ms, min = timing.min_ms, rss_growth = timing.rss_growth_mib;

  if (!out.empty()) jnp::save(out, *S);
  if (json) {
    fmt::print("{{\"variant\": \"{}\", \"shard\": \"{}\", \"median_ms\": {:.3f}, \"min_ms\": "
               "{:.3f}, \"compile_ms\": {:.1f}, \"rss_growth_mib\": {:.1f}}}\n",
               variant, shard, median, min, compile_ms, rss_growth);
  } else {
    fmt::print("simpson seed, {} variant, sharded over {}: result ({}, {}) {}\n", variant, shard,
               S->shape()[0], S->shape()[1], jx::dtype_name(S->dtype()));
    fmt::print("compile {:.1f} ms; run median {:.2f} ms, min {:.2f} ms over {} reps\n", compile_ms,
               median, min, reps);
    fmt::print("peak RSS growth over the calls: {:.1f} MiB\n", rss_growth);
  }
  return 0;
}
