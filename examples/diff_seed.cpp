// Seed 000 (unsharded for now): first-order finite difference along axis 0 of a 4096x4096
// float64 normal sample, with a zero row prepended, as the JAX original. Prints result and time.
#include <jx/jx.h>

#include "seeds.h"

#include <chrono>
#include <cstring>
#include <fmt/core.h>
#include <string>

namespace jnp = jx::numpy;
using jx::Array;

int main(int argc, char **argv) {
  int64_t n = 1 << 12;
  std::string reference = JX_EXAMPLES_DATA "/diff_seed_jax_corner.npy";
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::stoll(argv[++i]);
  jx::Shape shape{n, n};

  auto t0 = std::chrono::steady_clock::now();
  auto x = jx::random::normal(jx::random::PRNGKey(0), shape, jx::float64).block_until_ready();
  auto t1 = std::chrono::steady_clock::now();
  auto result = seeds::calc_fd_kernel(x).block_until_ready();
  auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };

  fmt::print("diff seed: x {}x{} float64 normal in {:.1f} ms; diff(x, 1, axis=0, prepend=zeros) in "
             "{:.1f} ms (first call: trace, compile, run)\n",
             n, n, ms(t0, t1), ms(t1, t2));
  fmt::print("result shape ({}, {}), result[:3, :4] =\n{}\n", result.shape()[0], result.shape()[1],
             result(jx::slice(0, 3), jx::slice(0, 4)));
  // Row 0 is x[0] itself; every other row is x[i] - x[i-1].
  auto check = jnp::max(jnp::abs(result(jx::slice(1, jx::none)) -
                                 (x(jx::slice(1, jx::none)) - x(jx::slice(jx::none, -1)))))
                   .item<double>();
  bool ok = check == 0 && jnp::all(result(0) == x(0)).item<bool>();
  if (n == 4096) {
    // jax.random.normal(PRNGKey(0), (4096, 4096), 'f8')[:4, :4], from JAX itself.
    auto corner = jnp::load(reference);
    auto err = jnp::max(jnp::abs(x(jx::slice(0, 4), jx::slice(0, 4)) - corner)).item<double>();
    fmt::print("x[:4, :4] vs JAX: max abs difference {:.3g}\n", err);
    ok = ok && err <= 1e-15;
  }
  fmt::print("{}\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
