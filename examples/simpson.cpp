// Seed 001: Simpson integration of 200 functions over 100 intervals, written line for line like
// the NumPy/JAX original. Prints the result summary, time, and the error against NumPy's result.
#include <jx/jx.h>

#include "seeds.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/core.h>
#include <string>

namespace jnp = jx::numpy;
using jx::Array;

int main(int argc, char **argv) {
  std::string variant = "stack", reference = JX_EXAMPLES_DATA "/simpson_numpy.npy";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--variant") && i + 1 < argc)
      variant = argv[++i];
    else if (!std::strcmp(argv[i], "--reference") && i + 1 < argc)
      reference = argv[++i];
  }
  auto f = [&](const Array &x) {
    return variant == "broadcast" ? seeds::funcN_broadcast(x) : seeds::funcN(x);
  };

  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;

  auto start = std::chrono::steady_clock::now();
  auto S = seeds::simps(f, a, b, 512).block_until_ready();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  fmt::print("simpson ({} variant): result shape ({}, {}), dtype {}, {:.1f} ms (first call: trace, "
             "compile, run)\n",
             variant, S.shape()[0], S.shape()[1], jx::dtype_name(S.dtype()), ms);
  fmt::print("S[:3, :3] =\n{}\n", S(jx::slice(0, 3), jx::slice(0, 3)));
  auto expected = jnp::load(reference);
  auto rel = jnp::max(jnp::abs(S - expected) / jnp::abs(expected)).item<double>();
  fmt::print("max relative error vs NumPy: {:.3g} ({})\n", rel, rel <= 1e-13 ? "ok" : "TOO LARGE");
  return rel <= 1e-13 ? 0 : 1;
}
