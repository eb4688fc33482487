// Accuracy of float reductions: sums, means, variances and jx's own contraction loops against
// exact references (Shewchuk's algorithm, as Python's math.fsum), and against the error NumPy's
// pairwise summation makes on the same data.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../eight_devices.h"
#include "../exact_sum.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::Shape;
using test_util::exact_sum;

// NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src): blocks of 128 summed
// in 8 accumulators, larger runs split in halves at a multiple of 8.
template <class T> T numpy_pairwise(const T *a, size_t n) {
  if (n < 8) {
    T res = 0;
    for (size_t i = 0; i < n; ++i)
      res += a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int k = 0; k < 8; ++k)
      r[k] = a[k];
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int k = 0; k < 8; ++k)
        r[k] += a[i + k];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i)
      res += a[i];
    return res;
  }
  size_t half = n / 2;
  half -= half % 8;
  return numpy_pairwise(a, half) + numpy_pairwise(a + half, n - half);
}

double relative_error(double got, double exact) {
  return exact == 0 ? std::abs(got) : std::abs(got - exact) / std::abs(exact);
}

template <class T> Array array_of(const std::vector<T> &xs) {
  return jnp::array(xs, Shape{int64_t(xs.size())});
}

TEST(Accuracy, Float32SumOfTenthsIsExactToFloat32) {
  const int64_t n = 16777217; // 2^24 + 1: no split into equal partials
  const double tenth = double(0.1f);
  const double exact = tenth * double(n);
  const Array x = jnp::full({n}, 0.1, jnp::float32);
  EXPECT_LE(relative_error(jnp::sum(x).item<float>(), exact), 1e-7);
  EXPECT_LE(relative_error(jnp::mean(x).item<float>(), tenth), 1e-7);
  // Reduced in 16 equal partials (split_reductions) and inside jit.
  const Array y = jnp::full({n - 1}, 0.1, jnp::float32);
  EXPECT_LE(relative_error(jnp::sum(y).item<float>(), tenth * double(n - 1)), 1e-7);
  auto total = jx::jit([](const Array &a) { return jnp::sum(a); });
  EXPECT_LE(relative_error(total(x).item<float>(), exact), 1e-7);
  EXPECT_LE(relative_error(jnp::mean(jnp::full({1000000}, 0.1, jnp::float32)).item<float>(), tenth),
            1e-7);
}

// Sums of float32 and narrower are exact enough that the mean of a constant is the constant
// (NumPy: var 5.6e-17 in float32); a float64 mean is off by an ulp, as NumPy's (7.7e-34).
TEST(Accuracy, VarianceOfAConstant) {
  for (jx::DType t : {jnp::float32, jnp::float16, jnp::bfloat16}) {
    const Array c = jnp::full({1000003}, 0.1, t);
    EXPECT_EQ(jnp::var(c).astype(jnp::float64).item<double>(), 0.0) << jx::dtype_name(t);
    EXPECT_EQ(jnp::std(c).astype(jnp::float64).item<double>(), 0.0) << jx::dtype_name(t);
  }
  EXPECT_LE(jnp::var(jnp::full({1000003}, 0.1, jnp::float64)).item<double>(), 1e-33);
}

TEST(Accuracy, Float64SumsOfSixteenMillion) {
  const size_t n = size_t(1) << 24;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> xs(n);
  for (double &x : xs)
    x = uniform(rng);
  EXPECT_LE(relative_error(jnp::sum(array_of(xs)).item<double>(), exact_sum(xs)), 1e-15);
  std::vector<double> tenths(n + 1, 0.1);
  EXPECT_LE(relative_error(jnp::sum(array_of(tenths)).item<double>(), exact_sum(tenths)), 1e-15);
}

// Mixed magnitudes, alternating signs, one huge value among small ones, at 10^3 ... 10^7
// elements (10^6 under the sanitizers). float32 sums (accumulated in float64) are at most NumPy's error (or an ulp). float64
// sums are pairwise as NumPy's, in another order: on a given data set either may be the more
// accurate (a model of both orders in Python gives ratios from 0 to 5 either way), so each case is
// held to 8x NumPy's error (or 4 ulps, or eps * sum|x|) and jx must be no worse than NumPy in most
// cases.
TEST(Accuracy, AdversarialSumsWithinNumpysError) {
  int cases = 0, worse = 0;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::uniform_int_distribution<int> exponent(-30, 30);
  auto suite = [&](size_t n) {
    std::vector<std::pair<std::string, std::vector<double>>> cases;
    std::vector<double> mixed(n), alternating(n), spike(n), cancelling(n);
    for (size_t i = 0; i < n; ++i) {
      mixed[i] = uniform(rng) * std::ldexp(1.0, exponent(rng));
      alternating[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + uniform(rng));
      spike[i] = uniform(rng) * 1e-3;
      cancelling[i] = (uniform(rng) - 0.5) * 1e6;
    }
    spike[n / 3] = 1e12;
    cases.push_back({"mixed magnitudes", mixed});
    cases.push_back({"alternating signs", alternating});
    cases.push_back({"one huge value", spike});
    cases.push_back({"cancelling", cancelling});
    return cases;
  };
  for (size_t n = 1000; n <= size_t(JX_ACCURACY_LARGEST); n *= 10) {
    for (const auto &[name, xs] : suite(n)) {
      const double exact = exact_sum(xs);
      const double ulp = std::abs(std::nextafter(exact, INFINITY) - exact);
      const double numpy_error = std::abs(numpy_pairwise(xs.data(), n) - exact);
      const double jx_error = std::abs(jnp::sum(array_of(xs)).item<double>() - exact);
      // Where terms cancel, the result's ulps are tiny beside the terms: one rounding of the
      // largest partials, eps * sum|x|, is below any pairwise bound (log2(n) times that).
      double magnitude = 0;
      for (double x : xs)
        magnitude += std::abs(x);
      const double eps = std::numeric_limits<double>::epsilon();
      EXPECT_LE(jx_error, std::max({8 * numpy_error, 4 * ulp, eps * magnitude}))
          << name << ", n = " << n;
      ++cases;
      worse += jx_error > std::max(numpy_error, ulp);

      std::vector<float> fs(xs.begin(), xs.end());
      std::vector<double> widened(fs.begin(), fs.end());
      const double exact32 = exact_sum(widened);
      const double ulp32 = std::abs(double(std::nextafter(float(exact32), INFINITY)) - exact32);
      const double numpy_error32 = std::abs(double(numpy_pairwise(fs.data(), n)) - exact32);
      const double jx_error32 = std::abs(double(jnp::sum(array_of(fs)).item<float>()) - exact32);
      EXPECT_LE(jx_error32, std::max(numpy_error32, ulp32)) << name << " float32, n = " << n;
    }
  }
  EXPECT_LE(2 * worse, cases) << worse << " of " << cases << " float64 sums less accurate";
}

TEST(Accuracy, SumsOverAxesAndContractions) {
  // Rows of a 2-d array (the last axis) and a reduction over leading axes.
  const int64_t rows = 64, cols = 300001;
  const Array x = jnp::full({rows, cols}, 0.1, jnp::float32);
  const double row_exact = double(0.1f) * double(cols);
  for (float v : jnp::sum(x, 1).to_vector<float>())
    ASSERT_LE(relative_error(v, row_exact), 1e-7);
  const Array tall = jnp::full({1 << 20, 4}, 0.1, jnp::float32);
  for (float v : jnp::sum(tall, 0).to_vector<float>())
    ASSERT_LE(relative_error(v, double(0.1f) * double(1 << 20)), 1e-6);
  // A contraction jx computes in its own loops (einsum of vectors).
  const int64_t n = 3000017;
  const Array a = jnp::full({n}, 0.1, jnp::float32), b = jnp::ones({n}, jnp::float32);
  EXPECT_LE(relative_error(jnp::einsum("i,i->", {a, b}).item<float>(), double(0.1f) * double(n)),
            1e-7);
  // nansum and average go through the same sums.
  EXPECT_LE(relative_error(jnp::nansum(jnp::full({16777217}, 0.1, jnp::float32)).item<float>(),
                           double(0.1f) * 16777217.0),
            1e-7);
}

// The pairwise order depends on the shape only: a sharded sum gives the bits of one device.
TEST(Accuracy, ShardedSumsGiveTheBitsOfOneDevice) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> xs(4096 * 517);
  for (double &x : xs)
    x = uniform(rng);
  const Array x = jnp::array(xs, Shape{4096, 517});
  auto f = [](const Array &a) { return jnp::stack({jnp::sum(a), jnp::sum(a * a)}); };
  const std::vector<double> alone = jx::jit(f)(x).to_vector<double>();
  const jx::Mesh mesh = jx::make_mesh({8}, {"x"});
  const jx::NamedSharding rows(mesh, jx::PartitionSpec("x", nullptr));
  EXPECT_EQ(jx::jit(f)(jx::device_put(x, rows)).to_vector<double>(), alone);
}

} // namespace
