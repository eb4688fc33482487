// Accuracy of float reductions: sums, means, variances and jx's own contraction loops against
// exact references (Shewchuk's algorithm, as Python's math.fsum), and against the error NumPy's
// pairwise summation makes on the same data.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
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

// Mixed magnitudes, alternating signs, one huge value among small ones, cancelling terms, at 10^3
// ... 10^7 elements (10^6 under the sanitizers; JX_ACCURACY_LARGEST=100000000 in the environment
// runs 10^8 too). Each sum is at most NumPy's error (its pairwise order, ported) or one ulp of the
// result: float32 accumulates in float64, float64 is compensated.
TEST(Accuracy, AdversarialSumsWithinNumpysError) {
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
  const char *largest_env = std::getenv("JX_ACCURACY_LARGEST");
  const size_t largest = largest_env ? std::stoull(largest_env) : size_t(JX_ACCURACY_LARGEST);
  for (size_t n = 1000; n <= largest; n *= 10) {
    for (const auto &[name, xs] : suite(n)) {
      const double exact = exact_sum(xs);
      const double ulp = std::abs(std::nextafter(exact, INFINITY) - exact);
      const double numpy_error = std::abs(numpy_pairwise(xs.data(), n) - exact);
      const double jx_error = std::abs(jnp::sum(array_of(xs)).item<double>() - exact);
      EXPECT_LE(jx_error, std::max(numpy_error, ulp)) << name << ", n = " << n;

      std::vector<float> fs(xs.begin(), xs.end());
      std::vector<double> widened(fs.begin(), fs.end());
      const double exact32 = exact_sum(widened);
      const double ulp32 = std::abs(double(std::nextafter(float(exact32), INFINITY)) - exact32);
      const double numpy_error32 = std::abs(double(numpy_pairwise(fs.data(), n)) - exact32);
      const double jx_error32 = std::abs(double(jnp::sum(array_of(fs)).item<float>()) - exact32);
      EXPECT_LE(jx_error32, std::max(numpy_error32, ulp32)) << name << " float32, n = " << n;
    }
  }
}

// The compensated float64 sum keeps what IEEE adds give where a term or the sum is infinite or
// NaN (inf - inf inside the compensation must not turn inf into NaN), in its vector lanes, its
// scalar tail and short sums alike.
TEST(Accuracy, CompensatedSumsOfInfinitiesAndNans) {
  const double inf = std::numeric_limits<double>::infinity();
  auto total = jx::jit([](const Array &x) { return jnp::sum(x); });
  for (size_t n : {5, 1000, 1003}) {
    auto sum_with = [&](std::vector<std::pair<size_t, double>> specials) {
      std::vector<double> xs(n, 1.5);
      for (auto [i, v] : specials)
        xs[i] = v;
      return total(array_of(xs)).item<double>();
    };
    for (size_t i : {size_t(0), size_t(2), n - 1}) {
      EXPECT_EQ(sum_with({{i, inf}}), inf) << "n = " << n << ", inf at " << i;
      EXPECT_EQ(sum_with({{i, -inf}}), -inf) << "n = " << n << ", -inf at " << i;
      EXPECT_TRUE(std::isnan(sum_with({{i, std::nan("")}}))) << "n = " << n << ", NaN at " << i;
      EXPECT_TRUE(std::isnan(sum_with({{i, inf}, {n / 2 + 1, -inf}}))) << "n = " << n;
    }
    // The sum overflows although no term is infinite.
    EXPECT_EQ(sum_with({{0, 1.5e308}, {1, 1.5e308}}), inf) << "n = " << n;
  }
  // A fused product's sum (the terms computed in the kernel) is compensated as a loaded one.
  std::vector<double> xs(100003), ys(100003);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = uniform(rng) * 1e8;
    ys[i] = uniform(rng);
  }
  auto dot = jx::jit([](const Array &x, const Array &y) { return jnp::sum(x * y); });
  std::vector<double> products(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    products[i] = xs[i] * ys[i];
  const double exact = exact_sum(products);
  EXPECT_LE(std::abs(dot(array_of(xs), array_of(ys)).item<double>() - exact),
            std::abs(std::nextafter(exact, INFINITY) - exact));
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
