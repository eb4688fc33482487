// Kernels versioned on a 0-d flag they select on: the loop nests are emitted once per value of
// the flag, and each copy computes what the unversioned kernel would.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

namespace jnp = jx::numpy;
using jx::Array;

TEST(VersionedKernels, EitherValueOfTheFlagSelectsItsSide) {
  auto f = jx::jit([](const Array &x, const Array &flag) {
    return jnp::where(flag, jnp::exp(x) * 2.0, x + 1.0) + jnp::sum(x, 0);
  });
  const Array x = jnp::linspace(-2.0, 2.0, 40).reshape({4, 10});
  for (bool flag : {true, false}) {
    const Array want = jnp::where(Array(flag), jnp::exp(x) * 2.0, x + 1.0) + jnp::sum(x, 0);
    const std::vector<double> got = f(x, Array(flag)).to_vector<double>(),
                              expected = want.to_vector<double>();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-14 * std::fabs(expected[i])) << flag << " " << i;
  }
}

// pow(x[None, :], c[:, None]) as simplify rewrites it: exp(c log x) with pow's special cases
// behind a flag computed from x and c. Compiled, with and without special bases.
TEST(VersionedKernels, BroadcastPowerMatchesPowWithAndWithoutSpecialBases) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> exponents = {-3, -2.5, -1, 0, 0.5, 1, 2, 2.5, 3};
  auto power = jx::jit([](const Array &x, const Array &c) {
    return jnp::power(x.index({jx::newaxis, jx::slice()}), c.index({jx::slice(), jx::newaxis}));
  });
  for (const std::vector<double> &bases :
       {std::vector<double>{0.05, 0.5, 1, 2, 3.5, 10},
        std::vector<double>{0.5, 1, 0, -0.0, -1, -2.5, -3, inf, -inf, nan}}) {
    const std::vector<double> got =
        power(jnp::array(bases), jnp::array(exponents)).to_vector<double>();
    for (size_t i = 0; i < exponents.size(); ++i)
      for (size_t j = 0; j < bases.size(); ++j) {
        const double want = std::pow(bases[j], exponents[i]), g = got[i * bases.size() + j];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(g)) << bases[j] << " ** " << exponents[i];
        } else if (want == 0 || std::isinf(want) || std::fabs(want) == 1) {
          EXPECT_EQ(g, want) << bases[j] << " ** " << exponents[i];
          EXPECT_EQ(std::signbit(g), std::signbit(want)) << bases[j] << " ** " << exponents[i];
        } else {
          EXPECT_NEAR(g, want, 1e-14 * std::fabs(want)) << bases[j] << " ** " << exponents[i];
        }
      }
  }
}

} // namespace
