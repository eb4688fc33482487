// Loads the golden inputs and NumPy results written by tests/golden/make_golden.py and compares
// jx results to them: shape, dtype and values.
#pragma once

#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

// The set of goldens a test executable reads: tests/golden/<set>/ (api: make_golden.py).
#ifndef JX_GOLDEN_SET
#define JX_GOLDEN_SET "api"
#endif

namespace golden {

// How close a float result must be to NumPy's.
enum class Tol {
  // Correctly rounded arithmetic: float64 within rel 1e-13, float32 within 4 ulp.
  basic,
  // exp, log, sin...: libm implementations differ, so 4 ulp for both float types.
  transcendental,
  // Sums and contractions: summation order differs, so relative to the largest expected value
  // (rel 1e-13 float64, 1e-6 float32).
  reduction,
  // Factorizations (LAPACK's blocking and pivoting differ between builds): relative to the largest
  // expected value, 1e-12 float64 (the bound on well-conditioned inputs), 1e-5 float32.
  linalg,
};

// The golden input api/in_<name>.npy.
inline jx::Array in(const std::string &name) {
  return jx::numpy::load(std::string(JX_GOLDEN_DIR) + "/" JX_GOLDEN_SET "/in_" + name + ".npy");
}

// Distance in units in the last place, through the monotonic integer order of T's bits.
template <class T> uint64_t ulp_distance(T a, T b) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  auto ordered = [](T x) {
    I i = std::bit_cast<I>(x);
    return i < 0 ? int64_t(std::numeric_limits<I>::min()) - int64_t(i) : int64_t(i);
  };
  const int64_t oa = ordered(a), ob = ordered(b);
  // Unsigned subtraction: the gap between huge values of opposite signs overflows int64.
  return oa > ob ? uint64_t(oa) - uint64_t(ob) : uint64_t(ob) - uint64_t(oa);
}

inline bool close(double got, double want, jx::DType dtype, Tol tol, double scale) {
  if (got == want || (std::isnan(got) && std::isnan(want))) return true;
  if (!std::isfinite(got) || !std::isfinite(want)) return false;
  const bool f32 = dtype == jx::DType::float32;
  const uint64_t ulps = f32 ? ulp_distance(float(got), float(want)) : ulp_distance(got, want);
  switch (tol) {
  case Tol::basic: return f32 ? ulps <= 4 : std::abs(got - want) <= 1e-13 * std::abs(want);
  case Tol::transcendental: return ulps <= 4;
  case Tol::reduction:
    return ulps <= 4 ||
           std::abs(got - want) <= (f32 ? 1e-6 : 1e-13) * std::max(std::abs(want), scale);
  case Tol::linalg:
    return std::abs(got - want) <= (f32 ? 1e-5 : 1e-12) * std::max(std::abs(want), scale);
  }
  return false;
}

// Expects got to equal NumPy's result api/<name>.npy: same shape and dtype, values exact for
// integers and bools and within tol for floats (NaN matches NaN).
inline void expect_matches(const jx::Array &got, const std::string &name, Tol tol = Tol::basic) {
  const jx::Array want =
      jx::numpy::load(std::string(JX_GOLDEN_DIR) + "/" JX_GOLDEN_SET "/" + name + ".npy");
  ASSERT_EQ(jx::shape_str(got.shape()), jx::shape_str(want.shape())) << name;
  EXPECT_EQ(jx::dtype_name(got.dtype()), jx::dtype_name(want.dtype())) << name;
  std::string bad;
  int64_t n_bad = 0;
  auto report = [&](size_t i, const std::string &g, const std::string &w) {
    if (n_bad++ < 5) bad += fmt::format("\n  [{}] jx {} numpy {}", i, g, w);
  };
  if (jx::is_complex(want.dtype())) { // each part as a float of the parts' dtype
    const std::vector<std::complex<double>> g = got.to_vector<std::complex<double>>(),
                                            w = want.to_vector<std::complex<double>>();
    double scale = 0;
    for (std::complex<double> v : w)
      for (double part : {v.real(), v.imag()})
        if (std::isfinite(part)) scale = std::max(scale, std::abs(part));
    const jx::DType part_dtype = jx::real_dtype(want.dtype());
    for (size_t i = 0; i < w.size(); ++i)
      if (!close(g[i].real(), w[i].real(), part_dtype, tol, scale) ||
          !close(g[i].imag(), w[i].imag(), part_dtype, tol, scale))
        report(i, fmt::format("{:.17g}{:+.17g}j", g[i].real(), g[i].imag()),
               fmt::format("{:.17g}{:+.17g}j", w[i].real(), w[i].imag()));
  } else if (jx::is_floating(want.dtype())) {
    const std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
    double scale = 0;
    for (double v : w)
      if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < w.size(); ++i)
      if (!close(g[i], w[i], want.dtype(), tol, scale))
        report(i, fmt::format("{:.17g}", g[i]), fmt::format("{:.17g}", w[i]));
  } else {
    const std::vector<int64_t> g = got.to_vector<int64_t>(), w = want.to_vector<int64_t>();
    for (size_t i = 0; i < w.size(); ++i)
      if (g[i] != w[i]) report(i, fmt::to_string(g[i]), fmt::to_string(w[i]));
  }
  EXPECT_EQ(n_bad, 0) << name << ": elements that differ (flat index), the first ones:" << bad;
}

} // namespace golden

// One golden test: TEST(Golden, name) checks the jx expression against NumPy's api/<name>.npy.
#define GOLDEN(name, ...)                                                                          \
  TEST(Golden, name) { golden::expect_matches(__VA_ARGS__, #name); }
#define GOLDEN_TRANSCENDENTAL(name, ...)                                                           \
  TEST(Golden, name) { golden::expect_matches(__VA_ARGS__, #name, golden::Tol::transcendental); }
#define GOLDEN_REDUCTION(name, ...)                                                                \
  TEST(Golden, name) { golden::expect_matches(__VA_ARGS__, #name, golden::Tol::reduction); }
#define GOLDEN_LINALG(name, ...)                                                                   \
  TEST(Golden, name) { golden::expect_matches(__VA_ARGS__, #name, golden::Tol::linalg); }
