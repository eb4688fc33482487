// Vectorized math in compiled kernels: within 4 ulp of glibc's scalar libm on each function's
// domain, NumPy's answers for nan, +-inf, +-0 and negative bases, and libmvec calls in the
// generated assembly.
#include <jx/jx.h>

#include <bit>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>

#include "backend/orc_jit.h"
#include "ir/builder.h"
#include "passes/kernel_plan.h"
#include "runtime/vector_math.h"

namespace jnp = jx::numpy;
using jx::Array;

namespace {

// Distance in representable doubles; equal classes of non-finite values count as 0.
int64_t ulp_distance(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return std::signbit(a) == std::signbit(b) || a != 0 ? 0 : 1;
  if (std::isinf(a) || std::isinf(b)) return INT64_MAX;
  auto key = [](double x) {
    int64_t i = std::bit_cast<int64_t>(x);
    return i < 0 ? INT64_MIN - i : i;
  };
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

int64_t ulp_distance_f(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return INT64_MAX;
  auto key = [](float x) {
    int32_t i = std::bit_cast<int32_t>(x);
    return int64_t(i < 0 ? INT32_MIN - i : i);
  };
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

std::vector<double> grid(double lo, double hi, int n, bool log_spaced = false) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    double t = double(i) / (n - 1);
    v.push_back(log_spaced ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)))
                           : lo + t * (hi - lo));
  }
  return v;
}

struct UnaryCase {
  const char *name;
  std::function<Array(const Array &)> jx_fn;
  double (*ref)(double);
  float (*ref_f)(float);
  double lo, hi;
  bool log_spaced;
};

const std::vector<UnaryCase> &unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"exp", [](const Array &x) { return jnp::exp(x); }, std::exp, std::exp, -700, 700, false},
      {"log", [](const Array &x) { return jnp::log(x); }, std::log, std::log, 1e-300, 1e300, true},
      {"sin", [](const Array &x) { return jnp::sin(x); }, std::sin, std::sin, -1e4, 1e4, false},
      {"cos", [](const Array &x) { return jnp::cos(x); }, std::cos, std::cos, -1e4, 1e4, false},
      {"tan", [](const Array &x) { return jnp::tan(x); }, std::tan, std::tan, -1e3, 1e3, false},
      {"tanh", [](const Array &x) { return jnp::tanh(x); }, std::tanh, std::tanh, -25, 25, false},
      {"expm1", [](const Array &x) { return jnp::expm1(x); }, std::expm1, std::expm1, -50, 700,
       false},
      {"log1p", [](const Array &x) { return jnp::log1p(x); }, std::log1p, std::log1p, -0.999, 1e300,
       false},
      {"sinh", [](const Array &x) { return jnp::sinh(x); }, std::sinh, std::sinh, -700, 700, false},
      {"cosh", [](const Array &x) { return jnp::cosh(x); }, std::cosh, std::cosh, -700, 700, false},
      {"asin", [](const Array &x) { return jnp::arcsin(x); }, std::asin, std::asin, -1, 1, false},
      {"acos", [](const Array &x) { return jnp::arccos(x); }, std::acos, std::acos, -1, 1, false},
      {"atan", [](const Array &x) { return jnp::arctan(x); }, std::atan, std::atan, -1e4, 1e4,
       false},
      {"asinh", [](const Array &x) { return jnp::arcsinh(x); }, std::asinh, std::asinh, -1e4, 1e4,
       false},
      {"acosh", [](const Array &x) { return jnp::arccosh(x); }, std::acosh, std::acosh, 1, 1e300,
       true},
      {"atanh", [](const Array &x) { return jnp::arctanh(x); }, std::atanh, std::atanh, -0.999,
       0.999, false},
      {"exp2", [](const Array &x) { return jnp::exp2(x); }, std::exp2, std::exp2, -1000, 1000,
       false},
      {"log2", [](const Array &x) { return jnp::log2(x); }, std::log2, std::log2, 1e-300, 1e300,
       true},
      {"log10", [](const Array &x) { return jnp::log10(x); }, std::log10, std::log10, 1e-300, 1e300,
       true},
      {"cbrt", [](const Array &x) { return jnp::cbrt(x); }, std::cbrt, std::cbrt, -1e4, 1e4, false},
      {"erf", [](const Array &x) { return jx::scipy::special::erf(x); }, std::erf, std::erf, -6, 6,
       false},
      {"erfc", [](const Array &x) { return jx::scipy::special::erfc(x); }, std::erfc, std::erfc, -6,
       27, false},
  };
  return cases;
}

// Compiled through jit so the kernel reads a parameter (no constant folding).
Array compiled(const std::function<Array(const Array &)> &f, const Array &x) {
  return jx::jit(f)(x);
}

} // namespace

class VectorMath : public ::testing::TestWithParam<size_t> {};

TEST_P(VectorMath, Float64WithinFourUlpOfLibm) {
  const UnaryCase &c = unary_cases()[GetParam()];
  std::vector<double> in = grid(c.lo, c.hi, 20000, c.log_spaced);
  if (c.lo < 0 && c.hi > 0 && !c.log_spaced) {
    std::vector<double> small = grid(-1e-3, 1e-3, 2001);
    in.insert(in.end(), small.begin(), small.end());
  }
  std::vector<double> out = compiled(c.jx_fn, jnp::array(in)).to_vector<double>();
  int64_t worst = 0;
  double worst_x = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t d = ulp_distance(out[i], c.ref(in[i]));
    if (d > worst) worst = d, worst_x = in[i];
  }
  EXPECT_LE(worst, 4) << c.name << " at x = " << worst_x;
}

TEST_P(VectorMath, Float32WithinFourUlpOfLibm) {
  const UnaryCase &c = unary_cases()[GetParam()];
  const double lo = std::max(c.lo, -80.0), hi = std::min(c.hi, c.log_spaced ? 1e30 : 80.0);
  std::vector<float> in;
  for (double v : grid(c.log_spaced ? std::max(c.lo, 1e-30) : lo, hi, 20000, c.log_spaced))
    in.push_back(float(v));
  std::vector<float> out = compiled(c.jx_fn, jnp::array(in)).to_vector<float>();
  int64_t worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t d = ulp_distance_f(out[i], c.ref_f(in[i]));
    if (d > worst) worst = d, worst_x = in[i];
  }
  EXPECT_LE(worst, 4) << c.name << " at x = " << worst_x;
}

TEST_P(VectorMath, SpecialValuesMatchNumPy) {
  const UnaryCase &c = unary_cases()[GetParam()];
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> in = {nan, inf, -inf, 0.0, -0.0, -1.0, 1.0, -2.0, 1e-310, -1e-310};
  in.resize(64, 0.5); // long enough to take the vector path
  std::vector<double> out = compiled(c.jx_fn, jnp::array(in)).to_vector<double>();
  // Subnormal inputs only within the functions' 4 ulp (libmvec's cbrt(1e-310) is 2 ulp off).
  for (size_t i = 0; i < 10; ++i)
    EXPECT_LE(ulp_distance(out[i], c.ref(in[i])), std::fpclassify(in[i]) == FP_SUBNORMAL ? 4 : 1)
        << c.name << "(" << in[i] << ")";
}

TEST_P(VectorMath, CallsLibmvec) {
  const UnaryCase &c = unary_cases()[GetParam()];
  Array x = jx::Array(jx::ir::parameter(0, jx::float64, {4096}));
  jx::passes::KernelPlan plan{{c.jx_fn(x).node()}, {x.node().get()}};
  std::string assembly = jx::backend::assembly(plan);
  EXPECT_NE(assembly.find(std::string("v_") + c.name), std::string::npos)
      << c.name << " is not vectorized through libmvec";
}

// One implementation at every width: an element's value does not depend on where it falls in
// the loop (vector body, vector epilogue or scalar remainder), so every slice of an array gives
// the same bits for the same input.
TEST_P(VectorMath, ValuesDoNotDependOnPosition) {
  const UnaryCase &c = unary_cases()[GetParam()];
  std::vector<double> in = grid(std::max(c.lo, -20.0), std::min(c.hi, 20.0), 53);
  if (c.log_spaced) in = grid(1e-3, 1e3, 53, true);
  const std::vector<double> whole = compiled(c.jx_fn, jnp::array(in)).to_vector<double>();
  for (size_t skip = 1; skip < 20; ++skip) {
    std::vector<double> tail(in.begin() + skip, in.end());
    const std::vector<double> out = compiled(c.jx_fn, jnp::array(tail)).to_vector<double>();
    for (size_t i = 0; i < tail.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(out[i]), std::bit_cast<uint64_t>(whole[i + skip]))
          << c.name << "(" << tail[i] << ") at position " << i << " of " << tail.size();
  }
}

INSTANTIATE_TEST_SUITE_P(Functions, VectorMath, ::testing::Range(size_t(0), unary_cases().size()),
                         [](const auto &info) {
                           return std::string(unary_cases()[info.param].name);
                         });

TEST(VectorMathPow, WithinFourUlpAndNumPySpecialCases) {
  std::vector<double> base, expo;
  for (double b : grid(1e-3, 100, 150, true))
    for (double e : grid(-50, 50, 101)) {
      base.push_back(b);
      expo.push_back(e);
    }
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<double, double>> special = {
      {0, 0},    {nan, 0},  {0, -1},     {-0.0, -1}, {-0.0, 3}, {-2, 0.5}, {-2, 3},    {-2, -2},
      {inf, -1}, {-inf, 3}, {-inf, 0.5}, {1, nan},   {nan, 1},  {-1, inf}, {0.5, inf}, {2, -inf}};
  for (auto [b, e] : special) {
    base.push_back(b);
    expo.push_back(e);
  }
  auto f = jx::jit([](const Array &b, const Array &e) { return jnp::power(b, e); });
  std::vector<double> out = f(jnp::array(base), jnp::array(expo)).to_vector<double>();
  int64_t worst = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    int64_t d = ulp_distance(out[i], std::pow(base[i], expo[i]));
    worst = std::max(worst, d);
    if (i >= base.size() - special.size()) {
      EXPECT_LE(d, 0) << "pow(" << base[i] << ", " << expo[i] << ")";
    }
  }
  EXPECT_LE(worst, 4);
}

namespace {

// Every tier's scalar jx_ functions, on the tiers this host can run.
TEST(VectorMathTiers, ScalarFunctionsOfEachTier) {
  using jx::runtime::MathTier;
  std::vector<MathTier> tiers{MathTier::scalar};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    tiers.push_back(MathTier::avx2);
  if (__builtin_cpu_supports("avx512f")) tiers.push_back(MathTier::avx512);
  for (MathTier tier : tiers) {
    const auto symbols = jx::runtime::math_symbols(tier);
    auto find = [&](const std::string &name) -> void * {
      for (const auto &s : symbols)
        if (s.name == name) return s.address;
      return nullptr;
    };
    auto exp = reinterpret_cast<double (*)(double)>(find("jx_exp"));
    auto powf = reinterpret_cast<float (*)(float, float)>(find("jx_powf"));
    ASSERT_TRUE(exp && powf) << int(tier);
    for (double x : {-3.5, 0.0, 1.0, 42.25})
      EXPECT_LE(ulp_distance(exp(x), std::exp(x)), 4) << int(tier) << " exp(" << x << ")";
    EXPECT_LE(ulp_distance_f(powf(2.5f, 3.5f), std::pow(2.5f, 3.5f)), 4) << int(tier);
    EXPECT_EQ(jx::runtime::math_vector_variants(tier).empty(), tier == MathTier::scalar);
  }
}

} // namespace
