// Seed 001: Simpson integration of 200 functions over 100 intervals, written line for line like
// the NumPy/JAX original (examples/seeds.h), compiled with jx::jit. Prints the result summary,
// compile and run times, and the error against NumPy's result.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/core.h>
#include <string>

#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

int main(int argc, char **argv) {
  std::string variant = "stack", reference = JX_EXAMPLES_DATA "/simpson_numpy.npy";
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--variant") && i + 1 < argc)
      variant = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--reference") && i + 1 < argc)
      reference = argv[++i];
  }
  const bool broadcast = variant == "broadcast";
  auto funcN = [broadcast](const Array &x) {
    return broadcast ? seeds::funcN_broadcast(x) : seeds::funcN(x);
  };

  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;

  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point t0, clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  };
  auto t0 = clock::now();
  jx::ShapeDtypeStruct interval{{100}, jx::float64};
  auto simps =
      jx::jit([&](const Array &lo, const Array &hi) { return seeds::simps(funcN, lo, hi, 512); })
          .lower(interval, interval)
          .compile();
  double compile_ms = ms(t0, clock::now());
  std::vector<double> times;
  Array S = simps(a, b);
  for (int r = 0; r < reps; ++r) {
    auto start = clock::now();
    S = simps(a, b).block_until_ready();
    times.push_back(ms(start, clock::now()));
  }
  std::sort(times.begin(), times.end());

  fmt::print("simpson ({} variant): result shape ({}, {}), dtype {}; compile {:.1f} ms, run median "
             "{:.2f} ms "
             "(min {:.2f}, {} reps)\n",
             variant, S.shape()[0], S.shape()[1], jx::dtype_name(S.dtype()), compile_ms,
             times[times.size() / 2], times[0], reps);
  fmt::print("S[:3, :3] =\n{}\n", S(jx::slice(0, 3), jx::slice(0, 3)));
  auto expected = jnp::load(reference);
  auto rel = jnp::max(jnp::abs(S - expected) / jnp::abs(expected)).item<double>();
  fmt::print("max relative error vs NumPy: {:.3g} ({})\n", rel, rel <= 1e-13 ? "ok" : "TOO LARGE");
  return rel <= 1e-13 ? 0 : 1;
}
