// The JIT from an installed jx: jit-compiles a small function and checks it against a loop.
#include <jx/jx.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace jnp = jx::numpy;

int main() {
  const int n = 1000;
  std::vector<double> xs(n), ys(n);
  for (int i = 0; i < n; ++i) {
    xs[size_t(i)] = 0.001 * i;
    ys[size_t(i)] = 1.0 - 0.002 * i;
  }
  // Elementwise work fused into a reduction, and an elementwise second output.
  auto f = jx::jit([](const jx::Array &x, const jx::Array &y) {
    return std::make_tuple(jnp::sum(jnp::exp(x) * y + 1.0), jnp::sin(x) * 2.0);
  });
  const auto [total, twice_sin] = f(jnp::array(xs), jnp::array(ys));

  double expected = 0;
  for (int i = 0; i < n; ++i)
    expected += std::exp(xs[size_t(i)]) * ys[size_t(i)] + 1.0;
  const double got = total.item<double>();
  const double rel = std::abs(got - expected) / std::abs(expected);
  std::printf("jit: sum(exp(x) * y + 1) = %.17g, loop %.17g, relative error %.3g\n", got, expected,
              rel);
  bool ok = rel <= 1e-12;

  const std::vector<double> s = twice_sin.to_vector<double>();
  double err = 0;
  for (int i = 0; i < n; ++i)
    err = std::max(err, std::abs(s.at(size_t(i)) - 2.0 * std::sin(xs[size_t(i)])));
  std::printf("jit: 2 sin(x) max abs error %.3g\n", err);
  ok = ok && s.size() == size_t(n) && err <= 1e-15;
  // The second call reuses the compiled kernels.
  ok = ok && f.cache_size() == 1 &&
       std::get<0>(f(jnp::array(xs), jnp::array(ys))).item<double>() == got;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
