// runtime::FftPlan against the definition summed in long double: every length to 128, lengths of
// each radix and of large primes (Bluestein), both directions, both precisions; the error stays
// within a small multiple of epsilon times log2(n) of the largest value (pocketfft's accuracy).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "runtime/fft.h"

namespace {

using jx::runtime::FftPlan;

template <class Real> std::vector<std::complex<Real>> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::complex<Real>> x(static_cast<size_t>(n));
  for (auto &v : x)
    v = {Real(double(rng() >> 11) * 0x1p-52 - 1.0), Real(double(rng() >> 11) * 0x1p-52 - 1.0)};
  return x;
}

template <class Real>
std::vector<std::complex<long double>> definition(const std::vector<std::complex<Real>> &x,
                                                  bool inverse) {
  const int64_t n = int64_t(x.size());
  std::vector<std::complex<long double>> out(x.size());
  const long double sign = inverse ? 1.0L : -1.0L;
  std::vector<std::complex<long double>> roots(x.size());
  for (int64_t t = 0; t < n; ++t) {
    const long double angle =
        sign * 2.0L * std::numbers::pi_v<long double> * (long double)t / (long double)n;
    roots[size_t(t)] = {std::cos(angle), std::sin(angle)};
  }
  for (int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0; // by hand: std::complex's product is a call at -O0
    for (int64_t j = 0; j < n; ++j) {
      const std::complex<long double> &w = roots[size_t(j * k % n)];
      const long double a = x[size_t(j)].real(), b = x[size_t(j)].imag();
      re += a * w.real() - b * w.imag();
      im += a * w.imag() + b * w.real();
    }
    out[size_t(k)] = {re, im};
  }
  return out;
}

// The largest error relative to the largest value of the exact transform, in units of epsilon.
template <class Real> double error_in_eps(int64_t n, bool inverse, uint64_t seed) {
  std::vector<std::complex<Real>> x = random_values<Real>(n, seed);
  const std::vector<std::complex<long double>> exact = definition(x, inverse);
  const FftPlan<Real> &plan = jx::runtime::fft_plan<Real>(n);
  std::vector<std::complex<Real>> scratch(size_t(plan.scratch_size()));
  plan.run(x.data(), inverse, scratch.data());
  long double largest = 0, error = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    largest = std::max(largest, std::abs(exact[k]));
    error = std::max(error, std::abs(std::complex<long double>(x[k]) - exact[k]));
  }
  return double(error / largest) / double(std::numeric_limits<Real>::epsilon());
}

template <class Real> void expect_accurate(int64_t n) {
  // Pairwise-like growth: a few epsilon per level of log2(n), with room for Bluestein's three
  // transforms.
  const double bound = 8.0 * (1.0 + std::log2(double(n)));
  for (bool inverse : {false, true}) {
    const double e = error_in_eps<Real>(n, inverse, uint64_t(n) * 2 + inverse);
    EXPECT_LE(e, bound) << "n = " << n << (inverse ? " inverse" : " forward") << ", "
                        << (sizeof(Real) == 4 ? "float32" : "float64");
  }
}

TEST(FftPlan, EveryLengthTo128MatchesTheDefinition) {
  for (int64_t n = 1; n <= 128; ++n) {
    expect_accurate<double>(n);
    expect_accurate<float>(n);
  }
}

TEST(FftPlan, RadicesAndLargePrimesMatchTheDefinition) {
  // Powers of 2 and 4, 3, 5, a mixed length, primes taken as a pass (7, 11, 13, 31) and as
  // Bluestein's convolution (509, 1009), and a prime factor beside small ones (each costs n^2 in
  // the definition: 2 s at n ~ 2000 in the release tree, several times that under the sanitizers).
  for (int64_t n :
       {256, 729, 625, 1000, 3 * 5 * 7 * 11, 31 * 32, 509, 1009, 2 * 509, 3 * 13 * 17}) {
    expect_accurate<double>(n);
    expect_accurate<float>(n);
  }
}

TEST(FftPlan, InverseOfForwardIsNTimesTheInput) {
  for (int64_t n : {1, 2, 97, 1024, 10007, 1 << 16, 3 * 5 * 7 * 64}) {
    const std::vector<std::complex<double>> x = random_values<double>(n, 7);
    std::vector<std::complex<double>> y = x;
    const FftPlan<double> &plan = jx::runtime::fft_plan<double>(n);
    std::vector<std::complex<double>> scratch(size_t(plan.scratch_size()));
    plan.run(y.data(), false, scratch.data());
    plan.run(y.data(), true, scratch.data());
    double error = 0;
    for (size_t k = 0; k < x.size(); ++k)
      error = std::max(error, std::abs(y[k] / double(n) - x[k]));
    EXPECT_LE(error, 1e-14 * (1 + std::log2(double(n)))) << "n = " << n;
  }
}

TEST(FftPlan, LinesAlongAnyAxisAreTransformedAlone) {
  const int64_t outer = 3, n = 12, inner = 5;
  const std::vector<std::complex<double>> x = random_values<double>(outer * n * inner, 3);
  std::vector<double> re, im;
  for (const std::complex<double> &v : x) {
    re.push_back(v.real());
    im.push_back(v.imag());
  }
  std::vector<std::complex<double>> y(x.size());
  jx::runtime::fft_lines(re.data(), im.data(), y.data(), outer, n, inner, false);
  const FftPlan<double> &plan = jx::runtime::fft_plan<double>(n);
  std::vector<std::complex<double>> line(static_cast<size_t>(n)),
      scratch(static_cast<size_t>(plan.scratch_size()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < n; ++k)
        line[size_t(k)] = x[size_t((o * n + k) * inner + i)];
      plan.run(line.data(), false, scratch.data());
      for (int64_t k = 0; k < n; ++k)
        EXPECT_EQ(y[size_t((o * n + k) * inner + i)], line[size_t(k)]);
    }
}

TEST(FftPlan, PlansAreSharedPerLength) {
  EXPECT_EQ(&jx::runtime::fft_plan<double>(360), &jx::runtime::fft_plan<double>(360));
  EXPECT_EQ(jx::runtime::fft_plan<float>(360).size(), 360);
  EXPECT_THROW(FftPlan<double>(0), std::invalid_argument);
}

} // namespace
