// grad, jvp and vmap through complex numbers, against JAX (jax_enable_x64): a complex input's
// gradient is JAX's conjugated one (df/dx - i df/dy), and a complex output is refused by grad.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using C = std::complex<double>;

void expect_complex_near(const Array &got, const std::vector<C> &want, double tol = 1e-12) {
  const std::vector<C> g = got.to_vector<C>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i].real(), want[i].real(), tol * (1 + std::abs(want[i]))) << i;
    EXPECT_NEAR(g[i].imag(), want[i].imag(), tol * (1 + std::abs(want[i]))) << i;
  }
}

// jax.grad(lambda x: jnp.abs(jnp.exp(1j * x) * (x + 2j)) ** 2 + jnp.real(jnp.log(x + 1j)))(0.7)
TEST(ComplexTransforms, GradOfARealFunctionThroughComplexValues) {
  auto f = [](const Array &x) {
    const Array w = jnp::exp(x * C(0, 1)) * (x + C(0, 2));
    return jnp::abs(w) * jnp::abs(w) + jnp::real(jnp::log(x + C(0, 1)));
  };
  const Array x = jnp::array(0.7);
  EXPECT_NEAR(jx::grad(f)(x).item<double>(), 1.86979866, 1e-8);
  EXPECT_NEAR(jx::jit(jx::grad(f))(x).item<double>(), 1.86979866, 1e-8);
}

// jax.grad(lambda z: jnp.real(z * jnp.conj(z)) + jnp.imag(z * z) + jnp.abs(jnp.exp(z)))(1 + 2j)
TEST(ComplexTransforms, GradOfAComplexInputIsJaxsConjugate) {
  auto g = [](const Array &z) {
    return jnp::real(z * jnp::conj(z)) + jnp::imag(z * z) + jnp::abs(jnp::exp(z));
  };
  const Array z = jnp::array(std::vector<C>{{1, 2}}).reshape({});
  expect_complex_near(jx::grad(g)(z), {{6 + std::exp(1.0), -6}});
  expect_complex_near(jx::jit(jx::grad(g))(z), {{6 + std::exp(1.0), -6}});
}

// jax.grad(lambda x: jnp.sum(jnp.real((x * (1 + 1j)) @ (x * 1j))))
TEST(ComplexTransforms, GradThroughAComplexMatmul) {
  auto h = [](const Array &x) {
    return jnp::sum(jnp::real(jnp::matmul(x * C(1, 1), x * C(0, 1))));
  };
  const Array x = jnp::array({1.0, 2.0, 3.0, 4.0}, jx::Shape{2, 2});
  EXPECT_EQ(jx::grad(h)(x).to_vector<double>(), (std::vector<double>{-7, -11, -9, -13}));
}

TEST(ComplexTransforms, JvpAndVmap) {
  auto f = [](const Array &z) { return z * jnp::conj(z) + jnp::exp(z); };
  const Array zs = jnp::array(std::vector<C>{{1, 1}, {2, -1}});
  // jax.vmap(f)(jnp.array([1+1j, 2-1j]))
  expect_complex_near(jx::vmap(f)(zs), {{3.46869394, 2.28735529}, {8.99232405, -6.21767631}}, 1e-8);
  for (int i = 0; i < 2; ++i) {
    const C w = zs.to_vector<C>()[size_t(i)];
    EXPECT_NEAR(
        std::abs(jx::vmap(f)(zs).to_vector<C>()[size_t(i)] - (w * std::conj(w) + std::exp(w))), 0,
        1e-12);
  }
  // d/dt f(z + t v) = v conj(z) + z conj(v) + exp(z) v (f is not holomorphic).
  const C z0(1, 1), v(0.5, -2);
  const auto [out, tangent] =
      jx::jvp(f, {jnp::array(std::vector<C>{z0})}, {jnp::array(std::vector<C>{v})});
  expect_complex_near(tangent, {v * std::conj(z0) + z0 * std::conj(v) + std::exp(z0) * v});
}

TEST(ComplexTransforms, GradRefusesComplexOutputs) {
  test_util::expect_error<jx::TypeError>(
      [] {
        jx::grad([](const Array &z) { return z * z; })(
            jnp::array(std::vector<C>{{1, 1}}).reshape({}));
      },
      "grad requires real-valued outputs");
}

} // namespace
