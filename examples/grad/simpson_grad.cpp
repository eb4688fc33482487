// The gradient of the Simpson seed (examples/seeds.h) with respect to the interval endpoints and
// a scale s of the integrand's exponent, f_i(x; s) = x^(i/10) exp(-s x), at s = 1, by
// jx::jit(jx::grad(...)), checked against the analytic derivatives.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

constexpr int kN = 512; // the seed's number of Simpson subintervals

// The seed's funcN with its exponent scaled by s: funcN(x) * exp(-(s - 1) x), so that at s = 1
// the values are the seed's.
Array funcN_scaled(const Array &x, const Array &s) {
  auto x_ = x(jx::slice(), jx::newaxis, jx::slice());
  return seeds::funcN(x) * jnp::exp(-(s - 1) * x_);
}

// The sum of the seed's result (200 functions by 100 intervals), a scalar to differentiate.
Array total(const Array &a, const Array &b, const Array &s) {
  return jnp::sum(seeds::simps([&](const Array &x) { return funcN_scaled(x, s); }, a, b, kN));
}

double max_rel_error(const Array &x, const Array &ref) {
  return jnp::max(jnp::abs(x - ref) / jnp::abs(ref)).item<double>();
}

int main() {
  // The seed's intervals [0.1 j, 0.1 j + 0.05] moved right by 0.1: x^0.1 has an infinite
  // derivative at the seed's a_0 = 0, where the rule's derivative is then not finite (NaN).
  auto a = jnp::arange(0, 10, 0.1) + 0.1;
  auto b = a + 0.05;
  auto s = jnp::array(1.0, jx::float64);

  auto t0 = std::chrono::steady_clock::now();
  auto grads = jx::jit(jx::grad(total, std::vector<int>{0, 1, 2}))(a, b, s);
  for (const Array &g : grads)
    g.block_until_ready();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Fundamental theorem of calculus: d/db_j = sum_i f_i(b_j), d/da_j = -sum_i f_i(a_j).
  auto f_at = [](const Array &x) { return jnp::sum(seeds::funcN(x), 1); };
  auto d_b = f_at(b), d_a = -f_at(a);
  // df/ds = -x f(x), integrated by the same rule.
  auto d_s = jnp::sum(seeds::simps(
      [](const Array &x) { return -x(jx::slice(), jx::newaxis, jx::slice()) * seeds::funcN(x); }, a,
      b, kN));

  // The rule's error on [a, b], h = (b - a) / N, is (b - a) h^4 / 180 max|f''''|, so its
  // derivative in b is of order h^4 / 36 max|f''''| ~ 2.6e-18 max|f''''|: with
  // |f''''/f| <= ~1e4 here (x^p, p < 3, at x = 0.1), below 3e-14 relative. The rest is float64
  // rounding over 513 nodes; 1e-11 leaves room for it. For s the rule's derivative is the rule
  // applied to df/ds, equal up to rounding.
  constexpr double kTol = 1e-11;
  struct Check {
    const char *name;
    Array grad, ref;
  };
  bool ok = true;
  fmt::print("simpson_grad: d/d(a, b, s) of sum(simps(f, a, b, {})) over {} intervals x 200 "
             "functions, jit(grad) {:.0f} ms (trace, compile, run)\n",
             kN, a.shape()[0], ms);
  for (const Check &c : {Check{"d/da[:3]", grads[0], d_a}, Check{"d/db[:3]", grads[1], d_b},
                         Check{"d/ds", grads[2], d_s}}) {
    double rel = max_rel_error(c.grad, c.ref);
    ok = ok && rel <= kTol;
    auto head = [](const Array &x) {
      return x.ndim() ? x(jx::slice(0, 3)).to_vector<double>() : x.to_vector<double>();
    };
    fmt::print("{:9} grad {::.15g}\n{:9} ref  {::.15g}\n{:9} max relative error {:.3g} ({})\n",
               c.name, head(c.grad), "", head(c.ref), "", rel, rel <= kTol ? "ok" : "TOO LARGE");
  }
  fmt::print("tolerance {:.0e}: {}\n", kTol, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
