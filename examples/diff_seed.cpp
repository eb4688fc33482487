// Seed 000: first-order finite difference along axis 0 of a 4096x4096 float64 normal sample with
// a zero row prepended, on 8 CPU devices in the seed's three layouts (1,1), (8,1) and (1,8),
// compiled through jit(..., in_shardings, out_shardings).lower(ShapeDtypeStruct).compile() as in
// the JAX original. Prints the result and the times, and checks every layout exactly.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/core.h>
#include <string>
#include <utility>
#include <vector>

#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

int main(int argc, char **argv) {
  int64_t n = 1 << 12;
  int reps = 5;
  std::string reference = JX_EXAMPLES_DATA "/diff_seed_jax_corner.npy";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
      n = std::stoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
  }
  jx::Shape shape{n, n};
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point t0, clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  };

  // As the seed: 8 CPU devices and the three PositionalSharding layouts.
  jx::config::set_num_cpu_devices(8);
  auto t0 = clock::now();
  auto x = jx::random::normal(jx::random::PRNGKey(0), shape, jx::float64).block_until_ready();
  fmt::print("diff seed: x {}x{} float64 normal in {:.1f} ms, {} devices\n", n, n,
             ms(t0, clock::now()), jx::device_count());
  bool ok = true;
  if (n == 4096) {
    // jax.random.normal(PRNGKey(0), (4096, 4096), 'f8')[:4, :4], from JAX itself.
    auto corner = jnp::load(reference);
    auto err = jnp::max(jnp::abs(x(jx::slice(0, 4), jx::slice(0, 4)) - corner)).item<double>();
    fmt::print("x[:4, :4] vs JAX: max abs difference {:.3g}\n", err);
    ok = err <= 1e-15;
  }
  // Row 0 is x[0] itself; every other row is x[i] - x[i-1], exactly.
  auto expected = jnp::concatenate(
      {x(jx::slice(0, 1)), x(jx::slice(1, jx::none)) - x(jx::slice(jx::none, -1))}, 0);
  for (auto [rows, cols] : {std::pair{1, 1}, std::pair{8, 1}, std::pair{1, 8}}) {
    const jx::Sharding sharding = seeds::diff_layout(rows, cols);
    Array placed = jx::device_put(x, sharding);
    auto t1 = clock::now();
    auto calc_fd =
        jx::jit(seeds::calc_fd_kernel, {.in_shardings = {sharding}, .out_shardings = {sharding}})
            .lower(jx::ShapeDtypeStruct{shape, jx::float64})
            .compile();
    auto t2 = clock::now();
    Array result = calc_fd(placed);
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      auto start = clock::now();
      result = calc_fd(placed).block_until_ready();
      times.push_back(ms(start, clock::now()));
    }
    std::sort(times.begin(), times.end());
    const bool same = jnp::all(result == expected).item<bool>();
    fmt::print("sharding ({}, {}): compiled in {:.1f} ms, run median {:.2f} ms (min {:.2f}, {} "
               "reps), {} shards, {}\n",
               rows, cols, ms(t1, t2), times[times.size() / 2], times[0], reps,
               result.addressable_shards().size(), same ? "exact" : "MISMATCH");
    if (rows == 1 && cols == 1)
      fmt::print("result[:3, :4] =\n{}\n", result(jx::slice(0, 3), jx::slice(0, 4)));
    ok = ok && same;
  }
  fmt::print("{}\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
