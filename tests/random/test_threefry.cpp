// Tests of the jax.random core (src/random/threefry) against bit patterns recorded from JAX.
#include "runtime/threefry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "golden/random_golden.inc"

namespace jx::random_impl {
namespace {

template <class T> using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T> constexpr jx::DType dtype_of() {
  return sizeof(T) == 4 ? jx::DType::float32 : jx::DType::float64;
}

std::vector<uint32_t> words(const std::vector<Key> &keys) {
  std::vector<uint32_t> w;
  for (const Key &k : keys)
    w.insert(w.end(), {k.hi, k.lo});
  return w;
}

// Distance in units in the last place, counting across zero; 0 for two nans.
template <class T> int64_t ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  constexpr uint64_t kSign = uint64_t{1} << (8 * sizeof(T) - 1);
  auto ordinal = [](T v) { // monotonic in v; -0 and +0 both map to kSign
    const uint64_t u = std::bit_cast<Bits<T>>(v);
    return u & kSign ? kSign - (u & ~kSign) : kSign + u;
  };
  const uint64_t oa = ordinal(a), ob = ordinal(b), d = oa > ob ? oa - ob : ob - oa;
  return d > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(d);
}

template <class T>
std::vector<Bits<T>> sample_bits(void (*sampler)(Key, const std::vector<int64_t> &, jx::DType,
                                                 void *),
                                 Key key, const std::vector<int64_t> &shape, size_t n) {
  std::vector<T> out(n);
  sampler(key, shape, dtype_of<T>(), out.data());
  std::vector<Bits<T>> bits(n);
  for (size_t i = 0; i < n; ++i)
    bits[i] = std::bit_cast<Bits<T>>(out[i]);
  return bits;
}

template <class T, size_t N>
void expect_uniform(Key key, const std::vector<int64_t> &shape, const Bits<T> (&golden)[N]) {
  const auto got = sample_bits<T>(uniform01, key, shape, N);
  EXPECT_EQ(got, std::vector<Bits<T>>(std::begin(golden), std::end(golden)));
}

// Returns the largest ulp distance from JAX's normal samples.
template <class T, size_t N>
int64_t normal_max_ulp(Key key, const std::vector<int64_t> &shape, const Bits<T> (&golden)[N]) {
  const auto got = sample_bits<T>(normal, key, shape, N);
  int64_t max_ulp = 0;
  for (size_t i = 0; i < N; ++i) {
    const int64_t d = ulp_distance(std::bit_cast<T>(got[i]), std::bit_cast<T>(golden[i]));
    EXPECT_LE(d, 2) << "element " << i;
    max_ulp = std::max(max_ulp, d);
  }
  return max_ulp;
}

TEST(Threefry, KnownAnswers) {
  // Random123's threefry2x32_20 known-answer vectors, as in JAX's own tests.
  const struct {
    Key key;
    uint32_t x0, x1, y0, y1;
  } kats[] = {
      {{0, 0}, 0, 0, 0x6b200159, 0x99ba4efe},
      {{0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
      {{0x13198a2e, 0x03707344}, 0x243f6a88, 0x85a308d3, 0xc4923a9c, 0x483df7a0},
  };
  for (const auto &k : kats) {
    uint32_t x0 = k.x0, x1 = k.x1;
    threefry2x32(k.key, x0, x1);
    EXPECT_EQ(x0, k.y0);
    EXPECT_EQ(x1, k.y1);
  }
}

TEST(Threefry, PrngKey) {
  EXPECT_EQ(words({prng_key(0)}),
            std::vector<uint32_t>(std::begin(golden::key_0), std::end(golden::key_0)));
  EXPECT_EQ(words({prng_key(42)}),
            std::vector<uint32_t>(std::begin(golden::key_42), std::end(golden::key_42)));
  EXPECT_EQ(words({prng_key(-1)}),
            std::vector<uint32_t>(std::begin(golden::key_minus1), std::end(golden::key_minus1)));
  EXPECT_EQ(words({prng_key((int64_t{1} << 40) + 3)}),
            std::vector<uint32_t>(std::begin(golden::key_2pow40_plus3),
                                  std::end(golden::key_2pow40_plus3)));
}

TEST(Threefry, SplitAndFoldIn) {
  EXPECT_EQ(words(split(prng_key(0), 2)), std::vector<uint32_t>(std::begin(golden::split_key0_2),
                                                                std::end(golden::split_key0_2)));
  EXPECT_EQ(words(split(prng_key(7), 5)), std::vector<uint32_t>(std::begin(golden::split_key7_5),
                                                                std::end(golden::split_key7_5)));
  EXPECT_TRUE(split(prng_key(7), 0).empty());
  EXPECT_EQ(words({fold_in(prng_key(0), 123)}),
            std::vector<uint32_t>(std::begin(golden::fold_in_key0_123),
                                  std::end(golden::fold_in_key0_123)));
}

TEST(Threefry, Bits) {
  std::vector<uint32_t> b32(7);
  random_bits(prng_key(0), {7}, 32, b32.data());
  EXPECT_EQ(b32, std::vector<uint32_t>(std::begin(golden::bits_key0_7_u32),
                                       std::end(golden::bits_key0_7_u32)));
  std::vector<uint64_t> b64(7);
  random_bits(prng_key(0), {7}, 64, b64.data());
  EXPECT_EQ(b64, std::vector<uint64_t>(std::begin(golden::bits_key0_7_u64),
                                       std::end(golden::bits_key0_7_u64)));
}

TEST(Threefry, LayoutDependsOnlyOnFlatIndex) {
  // Partitionable threefry: element i hashes counter i whatever the shape, scalars included.
  uint64_t scalar = 0;
  random_bits(prng_key(0), {}, 64, &scalar);
  EXPECT_EQ(scalar, golden::bits_key0_7_u64[0]);
  const auto flat = sample_bits<double>(uniform01, prng_key(7), {1000}, 1000);
  EXPECT_EQ(flat, std::vector<uint64_t>(std::begin(golden::uniform_key7_10x100_f64),
                                        std::end(golden::uniform_key7_10x100_f64)));
  random_bits(prng_key(0), {0, 3}, 32, nullptr); // empty: writes nothing
}

TEST(Threefry, UniformIsBitExact) {
  expect_uniform<float>(prng_key(0), {4, 4}, golden::uniform_key0_4x4_f32);
  expect_uniform<double>(prng_key(0), {4, 4}, golden::uniform_key0_4x4_f64);
  expect_uniform<float>(prng_key(42), {3, 5, 2}, golden::uniform_key42_3x5x2_f32);
  expect_uniform<double>(prng_key(42), {3, 5, 2}, golden::uniform_key42_3x5x2_f64);
  expect_uniform<float>(prng_key(7), {10, 100}, golden::uniform_key7_10x100_f32);
  expect_uniform<double>(prng_key(7), {10, 100}, golden::uniform_key7_10x100_f64);
}

TEST(Threefry, NormalMatchesJax) {
  const Key k5b = split(prng_key(5), 2)[1];
  const int64_t max32 =
      std::max({normal_max_ulp<float>(prng_key(0), {4, 4}, golden::normal_key0_4x4_f32),
                normal_max_ulp<float>(prng_key(1), {10000}, golden::normal_key1_10000_f32),
                normal_max_ulp<float>(k5b, {3, 7}, golden::normal_split5b_3x7_f32)});
  const int64_t max64 =
      std::max({normal_max_ulp<double>(prng_key(0), {4, 4}, golden::normal_key0_4x4_f64),
                normal_max_ulp<double>(prng_key(1), {10000}, golden::normal_key1_10000_f64),
                normal_max_ulp<double>(k5b, {3, 7}, golden::normal_split5b_3x7_f64)});
  std::printf("normal vs jax %s: max ulp float32 %lld, float64 %lld\n", golden::kJaxVersion,
              static_cast<long long>(max32), static_cast<long long>(max64));
}

template <class T> void expect_erf_inv_edges() {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  EXPECT_EQ(std::bit_cast<Bits<T>>(erf_inv(T(0))), std::bit_cast<Bits<T>>(T(0)));
  EXPECT_EQ(std::bit_cast<Bits<T>>(erf_inv(T(-0.0))), std::bit_cast<Bits<T>>(T(-0.0)));
  EXPECT_EQ(erf_inv(T(1)), kInf);
  EXPECT_EQ(erf_inv(T(-1)), -kInf);
  for (T x : {std::numeric_limits<T>::quiet_NaN(), T(1.5), T(-2), kInf, -kInf,
              std::nextafter(T(1), T(2))})
    EXPECT_TRUE(std::isnan(erf_inv(x))) << x;
  // Tiny x: erf_inv(x) ~ x * sqrt(pi) / 2, down to denormals (XLA:CPU would flush those to 0).
  const T slope = T(0.886226925452758);
  for (T x : {T(1e-30), std::numeric_limits<T>::min(), std::numeric_limits<T>::denorm_min() * 4096})
    EXPECT_NEAR(erf_inv(x) / (x * slope), T(1), T(1e-3)) << x;
  // Near +-1: finite, odd and increasing up to the last value below 1.
  T prev = 0;
  for (T x : {T(0.9), T(0.999), T(1) - T(1e-5), std::nextafter(std::nextafter(T(1), T(0)), T(0)),
              std::nextafter(T(1), T(0))}) {
    const T y = erf_inv(x);
    EXPECT_TRUE(std::isfinite(y)) << x;
    EXPECT_GT(y, prev) << x;
    EXPECT_EQ(erf_inv(-x), -y) << x;
    prev = y;
  }
  EXPECT_NEAR(erf_inv(T(0.5)), T(0.4769362762044699), T(4) * std::numeric_limits<T>::epsilon());
}

TEST(ErfInv, EdgeCases) {
  expect_erf_inv_edges<float>();
  expect_erf_inv_edges<double>();
}

// Backward error: erf(erf_inv(x)) against x, in ulps of x. (Forward error is not bounded this
// way: near +-1 erf_inv is ill-conditioned and XLA's algorithm rounds x^2.)
template <class T> int64_t erf_round_trip_max_ulp() {
  std::vector<T> xs;
  constexpr int kGrid = 100000;
  for (int i = -kGrid + 1; i < kGrid; ++i)
    xs.push_back(static_cast<T>(i) / kGrid);
  for (T d = T(0.5); d > std::numeric_limits<T>::epsilon(); d /= 2)
    xs.push_back(T(1) - d);
  for (T x = T(1e-3); x > std::numeric_limits<T>::min(); x /= 7)
    xs.push_back(x);
  int64_t max_ulp = 0;
  for (T x : xs) {
    const T back = static_cast<T>(std::erf(static_cast<double>(erf_inv(x))));
    max_ulp = std::max(max_ulp, ulp_distance(back, x));
  }
  return max_ulp;
}

TEST(ErfInv, RoundTripThroughErf) {
  const int64_t max64 = erf_round_trip_max_ulp<double>();
  const int64_t max32 = erf_round_trip_max_ulp<float>();
  std::printf("erf(erf_inv(x)) vs x: max ulp float32 %lld, float64 %lld\n",
              static_cast<long long>(max32), static_cast<long long>(max64));
  // XLA's double erf_inv uses Cephes' log1p approximation outside its range for
  // 0.29 < x^2 < 0.41, which costs it over 10 ulp there.
  EXPECT_LE(max64, 24);
  EXPECT_LE(max32, 8);
}

} // namespace
} // namespace jx::random_impl
