// jnp.fft against NumPy (tests/golden/fft_golden.inc: every transform with n / s, axes and each
// norm), eager and under jit; the transforms' derivatives and batching against JAX's rules
// (linear: grad of a real loss of the transform), NumPy's errors.
#include <gtest/gtest.h>

#include <jx/jx.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::Shape;

struct FftGolden {
  std::string name;
  Shape shape;
  std::vector<std::complex<double>> values;
};
#include "golden/fft_golden.inc"

const FftGolden &golden(const std::string &name) {
  for (const FftGolden &g : kFftGolden)
    if (g.name == name) return g;
  throw std::logic_error("no golden " + name);
}

Array x_input() {
  return jnp::array(std::vector<double>{1, 2, 4, 7, 3, 5, 3, 1, 9, -2, 0.5, -1, 2, 2, 8},
                    Shape{3, 5});
}
Array z_input() {
  const Array im =
      jnp::array(std::vector<double>{0, 1, -1, 2, 0, 3, 0, 0, 1, 1, 2, -2, 1, 0, 5}, Shape{3, 5});
  return x_input() + im * std::complex<double>(0, 1);
}

::testing::AssertionResult matches(const std::string &name, const Array &actual) {
  const FftGolden &g = golden(name);
  if (actual.shape() != g.shape) return ::testing::AssertionFailure() << name << ": shape differs";
  const Array c = jnp::astype(actual, jx::complex128);
  const std::vector<std::complex<double>> v = c.to_vector<std::complex<double>>();
  for (size_t i = 0; i < v.size(); ++i)
    if (std::abs(v[i] - g.values[i]) > 1e-12 * (1 + std::abs(g.values[i])))
      return ::testing::AssertionFailure()
             << name << "[" << i << "] = " << v[i] << ", NumPy " << g.values[i];
  return ::testing::AssertionSuccess();
}

TEST(Fft, MatchesNumPy) {
  namespace fft = jnp::fft;
  const Array x = x_input(), z = z_input();
  EXPECT_TRUE(matches("fft_z", fft::fft(z)));
  EXPECT_TRUE(matches("fft_z_n3", fft::fft(z, 3)));
  EXPECT_TRUE(matches("fft_z_n8_axis0_ortho", fft::fft(z, 8, 0, "ortho")));
  EXPECT_TRUE(matches("ifft_z", fft::ifft(z)));
  EXPECT_TRUE(matches("ifft_z_n7_forward", fft::ifft(z, 7, -1, "forward")));
  EXPECT_TRUE(matches("rfft_x", fft::rfft(x)));
  EXPECT_TRUE(matches("rfft_x_n8_axis0", fft::rfft(x, 8, 0)));
  EXPECT_TRUE(matches("irfft_z", fft::irfft(z)));
  EXPECT_TRUE(matches("irfft_z_n5", fft::irfft(z, 5)));
  EXPECT_TRUE(matches("irfft_z_axis0_n6_ortho", fft::irfft(z, 6, 0, "ortho")));
  EXPECT_TRUE(matches("hfft_z", fft::hfft(z)));
  EXPECT_TRUE(matches("ihfft_x", fft::ihfft(x)));
  EXPECT_TRUE(matches("fftn_z", fft::fftn(z)));
  EXPECT_TRUE(matches("fftn_z_s24", fft::fftn(z, Shape{2, 4})));
  EXPECT_TRUE(matches("ifft2_z_forward", fft::ifft2(z, std::nullopt, {-2, -1}, "forward")));
  EXPECT_TRUE(matches("rfftn_x", fft::rfftn(x)));
  EXPECT_TRUE(matches("irfftn_z", fft::irfftn(z)));
  EXPECT_TRUE(matches("irfft2_z_s46", fft::irfft2(z, Shape{4, 6})));
  EXPECT_TRUE(matches("fftfreq_7", fft::fftfreq(7, 0.5)));
  EXPECT_TRUE(matches("fftfreq_8", fft::fftfreq(8)));
  EXPECT_TRUE(matches("rfftfreq_9", fft::rfftfreq(9, 2.0)));
  EXPECT_TRUE(matches("fftshift_x", fft::fftshift(x)));
  EXPECT_TRUE(matches("ifftshift_x_axis1", fft::ifftshift(x, 1)));
}

TEST(Fft, DtypesFollowThePrecision) {
  const Array f32 = jnp::ones({4}, jx::float32), i = jnp::arange(4);
  EXPECT_EQ(jnp::fft::fft(f32).dtype(), jx::complex64);
  EXPECT_EQ(jnp::fft::fft(i).dtype(), jx::complex128);
  EXPECT_EQ(jnp::fft::irfft(jnp::fft::rfft(f32)).dtype(), jx::float32);
  EXPECT_EQ(jnp::fft::fftfreq(4).dtype(), jx::float64);
}

TEST(Fft, JitGivesTheEagerValues) {
  const Array z = z_input();
  auto f = [](const Array &a) { return jnp::fft::irfft2(jnp::fft::fft2(a), Shape{3, 8}); };
  const Array eager = f(z), compiled = jx::jit(f)(z);
  EXPECT_TRUE(jnp::array_equal(eager, compiled).item<bool>());
}

TEST(Fft, VmapEqualsStackedTransforms) {
  const Array z = z_input();
  const Array batched = jx::vmap([](const Array &row) { return jnp::fft::fft(row, 6); })(z);
  EXPECT_TRUE(jnp::allclose(batched, jnp::fft::fft(z, 6, -1)).item<bool>());
}

// A linear map's gradient through a real loss: d/dx sum(real(fft(x)) * w) = real(fft(w)) (the
// transform's matrix is symmetric), checked against finite differences as well.
TEST(Fft, GradientsAreTheTransposedTransform) {
  const Array x = x_input().reshape({15});
  const Array w = jnp::linspace(-1.0, 2.0, 15);
  auto loss = [&w](const Array &a) {
    return jnp::sum(jnp::real(jnp::fft::fft(a)) * w + jnp::imag(jnp::fft::fft(a)) * w * 0.5);
  };
  const Array g = jx::grad(loss)(x);
  const Array expected = jnp::real(jnp::fft::fft(w)) + jnp::imag(jnp::fft::fft(w)) * 0.5;
  EXPECT_TRUE(jnp::allclose(g, expected, 1e-10, 1e-10).item<bool>());
  const double h = 1e-6;
  const std::vector<double> gv = g.to_vector<double>();
  for (int64_t i : {0, 7, 14}) {
    const Array e = jnp::zeros({15}).at(i).set(h);
    const double fd = (loss(x + e).item<double>() - loss(x - e).item<double>()) / (2 * h);
    EXPECT_NEAR(gv[size_t(i)], fd, 1e-6) << i;
  }
  // Through rfft and irfft (compositions of the complex transform).
  auto round_trip = [](const Array &a) { return jnp::sum(jnp::fft::irfft(jnp::fft::rfft(a)) * a); };
  const Array x16 = jnp::linspace(0.0, 1.0, 16);
  EXPECT_TRUE(jnp::allclose(jx::grad(round_trip)(x16), x16 * 2.0, 1e-10, 1e-10).item<bool>());
}

TEST(Fft, LargeAndPrimeLengthsInvert) {
  for (int64_t n : {10007, 1 << 14, 3 * 5 * 7 * 11 * 13}) {
    const Array x = jnp::sin(jnp::arange(n).astype(jx::float64) * 0.37);
    const Array back = jnp::fft::irfft(jnp::fft::rfft(x), n);
    EXPECT_TRUE(jnp::allclose(back, x, 1e-10, 1e-10).item<bool>()) << n;
  }
}

TEST(Fft, NumPysErrors) {
  const Array z = z_input();
  EXPECT_THROW(jnp::fft::fft(z, 0), jx::ValueError);
  EXPECT_THROW(jnp::fft::fft(z, std::nullopt, 2), jx::AxisError);
  EXPECT_THROW(jnp::fft::fft(z, std::nullopt, -1, "fwd"), jx::ValueError);
  EXPECT_THROW(jnp::fft::rfft(z), jx::TypeError);
  EXPECT_THROW(jnp::fft::fftn(z, Shape{2, 2, 2}), jx::ValueError);
  EXPECT_THROW(jnp::fft::fftn(z, Shape{2}, {0, 1}), jx::ValueError);
  EXPECT_THROW(jnp::fft::fftn(z, std::nullopt, {1, 1}), jx::ValueError);
  EXPECT_THROW(jnp::fft::irfft(jnp::ones({1})), jx::ValueError);
  try {
    jnp::fft::fft(z, std::nullopt, -1, "fwd");
  } catch (const jx::ValueError &e) {
    EXPECT_STREQ(e.what(),
                 "Invalid norm value fwd; should be \"backward\",\"ortho\" or \"forward\".");
  }
}

} // namespace
