// jax.lax's elementwise ops of their own (population_count, clz, square, rsqrt, logistic): values
// at the edges of each dtype, eagerly (the evaluator) and under jit (a kernel), complex operands
// as XLA expands them, and JAX's errors for the dtypes an op does not accept.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends_agree.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using test_util::expect_backends_agree;
using test_util::expect_error;

template <class T> std::vector<T> values(const Array &a) { return a.to_vector<T>(); }

// f eagerly and under jit, equal to each other and to `want`.
template <class T, class F> void expect_both(F f, const Array &x, const std::vector<T> &want) {
  EXPECT_EQ(values<T>(f(x)), want);
  EXPECT_EQ(values<T>(jx::jit(f)(x)), want);
  expect_backends_agree(f(x));
}

TEST(LaxElementwise, BitCountsOfEveryIntegerWidth) {
  auto popcount = [](const Array &x) { return lax::population_count(x); };
  auto clz = [](const Array &x) { return lax::clz(x); };
  const Array i8 = jnp::array(std::vector<int8_t>{-1, 0, 1, 127, -128});
  expect_both<int8_t>(popcount, i8, {8, 0, 1, 7, 1});
  expect_both<int8_t>(clz, i8, {0, 8, 7, 1, 0});
  const Array i32 = jnp::array(std::vector<int32_t>{-1, 0, 6, std::numeric_limits<int32_t>::min()});
  expect_both<int32_t>(popcount, i32, {32, 0, 2, 1});
  expect_both<int32_t>(clz, i32, {0, 32, 29, 0});
  const Array u64 = jnp::array(std::vector<uint64_t>{0, uint64_t(1) << 63, ~uint64_t(0), 255});
  expect_both<uint64_t>(popcount, u64, {0, 1, 64, 8});
  expect_both<uint64_t>(clz, u64, {64, 0, 0, 56});
  // A long row: the kernel's vector loop and its remainder.
  const Array many = jnp::arange(1000).astype(jx::int64) * 7919;
  std::vector<int64_t> counts;
  for (int64_t v : values<int64_t>(many))
    counts.push_back(std::popcount(uint64_t(v)));
  expect_both<int64_t>(popcount, many, counts);
}

TEST(LaxElementwise, SquareRsqrtLogistic) {
  auto square = [](const Array &x) { return lax::square(x); };
  auto rsqrt = [](const Array &x) { return lax::rsqrt(x); };
  auto logistic = [](const Array &x) { return lax::logistic(x); };
  const double inf = std::numeric_limits<double>::infinity();
  // int32 wraps, as XLA's multiply.
  expect_both<int32_t>(square, jnp::array(std::vector<int32_t>{-3, 65536, 46341}),
                       {9, 0, -2147479015});
  expect_both<double>(square, jnp::array(std::vector<double>{-1.5, 1e200, -0.0}), {2.25, inf, 0.0});
  expect_both<double>(rsqrt, jnp::array(std::vector<double>{4, 0.25, 0, inf}), {0.5, 2, inf, 0});
  EXPECT_TRUE(std::isnan(values<double>(rsqrt(Array(-1.0)))[0]));
  expect_both<float>(rsqrt, jnp::array(std::vector<float>{16, 0.0625f}), {0.25f, 4});
  expect_both<double>(logistic, jnp::array(std::vector<double>{0, 800, -800, -inf}),
                      {0.5, 1, 0, 0});
  expect_both<float>(logistic, jnp::array(std::vector<float>{0, 100, -200}), {0.5f, 1, 0});
  // float16 computes in float32, as every op of the graph.
  EXPECT_EQ(
      values<double>(
          lax::rsqrt(jnp::array(std::vector<double>{4}).astype(jx::float16)).astype(jx::float64)),
      std::vector<double>{0.5});
}

TEST(LaxElementwise, ComplexOperandsAsXlaExpandsThem) {
  const Array z = jnp::array(std::vector<double>{3, -1}) +
                  jnp::array(std::vector<double>{4, 2}) * Array(std::complex<double>(0, 1));
  EXPECT_TRUE(jnp::array_equal(lax::square(z), z * z).item<bool>());
  EXPECT_TRUE(jnp::allclose(lax::rsqrt(z), 1.0 / jnp::sqrt(z)).item<bool>());
  EXPECT_TRUE(jnp::allclose(lax::logistic(z), 1.0 / (1.0 + jnp::exp(-z))).item<bool>());
}

TEST(LaxElementwise, JaxErrors) {
  expect_error<jx::TypeError>(
      [] { lax::population_count(jnp::array(std::vector<float>{1})); },
      "population_count does not accept dtype float32. Accepted dtypes are subtypes of integer.");
  expect_error<jx::TypeError>(
      [] { lax::clz(Array(true)); },
      "clz does not accept dtype bool. Accepted dtypes are subtypes of integer.");
  expect_error<jx::TypeError>([] { lax::square(Array(true)); },
                              "square does not accept dtype bool. Accepted dtypes are subtypes "
                              "of integer, floating, complexfloating.");
  expect_error<jx::TypeError>([] { lax::rsqrt(jnp::array(std::vector<int32_t>{1})); },
                              "rsqrt does not accept dtype int32. Accepted dtypes are subtypes of "
                              "floating, complexfloating.");
  expect_error<jx::TypeError>([] { lax::logistic(Array(int64_t(1))); },
                              "logistic does not accept dtype int64. Accepted dtypes are "
                              "subtypes of floating, complexfloating.");
}

} // namespace
