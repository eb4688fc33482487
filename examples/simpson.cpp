// Seed 001: Simpson integration of 200 functions over 100 intervals, written line for line like
// the NumPy/JAX original. Prints the result summary, time, and the error against NumPy's result.
#include <jx/jx.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/core.h>
#include <functional>
#include <string>

namespace jnp = jx::numpy;
using jx::Array;

Array simps(const std::function<Array(const Array &)> &f, const Array &a, const Array &b, int N) {
  // N should be even
  auto dx = (b - a) / N;
  auto x = jnp::linspace(a, b, N + 1);
  auto y = f(x);
  auto w = jnp::ones_like(y);
  w = w.at(jx::slice(2, -1, 2)).set(2.);
  w = w.at(jx::slice(1, jx::none, 2)).set(4.);
  auto S = dx / 3 * jnp::einsum("i...,i...", w, y);
  return S;
}

// The question's funcN: a stack of 200 expressions.
Array funcN(const Array &x) {
  std::vector<Array> terms;
  for (int i = 0; i < 200; ++i)
    terms.push_back(jnp::power(x, i / 10.) * jnp::exp(-x));
  return jnp::stack(terms, 1);
}

// The answer's variant: the same values by broadcasting.
Array funcN_broadcast(const Array &x0) {
  auto x = x0(jx::slice(), jx::newaxis, jx::slice());
  auto i = jnp::arange(200)(jx::slice(), jx::newaxis);
  return jnp::power(x, i / 10) * jnp::exp(-x);
}

int main(int argc, char **argv) {
  std::string variant = "stack", reference = JX_EXAMPLES_DATA "/simpson_numpy.npy";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--variant") && i + 1 < argc)
      variant = argv[++i];
    else if (!std::strcmp(argv[i], "--reference") && i + 1 < argc)
      reference = argv[++i];
  }
  auto f = variant == "broadcast" ? funcN_broadcast : funcN;

  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;

  auto start = std::chrono::steady_clock::now();
  auto S = simps(f, a, b, 512).block_until_ready();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  fmt::print(
      "simpson ({} variant): result shape ({}, {}), dtype {}, {:.1f} ms (reference evaluator)\n",
      variant, S.shape()[0], S.shape()[1], jx::dtype_name(S.dtype()), ms);
  fmt::print("S[:3, :3] =\n{}\n", S(jx::slice(0, 3), jx::slice(0, 3)));
  auto expected = jnp::load(reference);
  auto rel = jnp::max(jnp::abs(S - expected) / jnp::abs(expected)).item<double>();
  fmt::print("max relative error vs NumPy: {:.3g} ({})\n", rel, rel <= 1e-13 ? "ok" : "TOO LARGE");
  return rel <= 1e-13 ? 0 : 1;
}
