// jx::random through the public API: the same values as the threefry core, lazily built.
#include <jx/jx.h>

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>

#include "golden/random_golden.inc"
#include "ir/node.h"
#include "runtime/threefry.h"

namespace jnp = jx::numpy;

// The two words of a single key.
jx::random_impl::Key words(const jx::Array &key) {
  const std::vector<uint32_t> w = key.to_vector<uint32_t>();
  return {w.at(0), w.at(1)};
}

TEST(RandomApi, KeysMatchCore) {
  auto key = jx::random::PRNGKey(42);
  EXPECT_EQ(words(key), jx::random_impl::prng_key(42));
  auto keys = jx::random::split(key, 3);
  ASSERT_EQ(keys.shape(), (jx::Shape{3, 2}));
  const auto core = jx::random_impl::split(words(key), 3);
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(words(keys[i]), core[size_t(i)]);
  EXPECT_NE(words(keys[0]), words(keys[1]));
  EXPECT_EQ(words(jx::random::split(key)[0]), words(jx::random::split(key, 2)[0]));
  EXPECT_EQ(words(jx::random::fold_in(key, 7)), jx::random_impl::fold_in(words(key), 7));
}

// A num past the largest array is the size ValueError, not std::length_error (API fuzzer).
TEST(RandomApi, SplitHugeNumIsValueError) {
  auto key = jx::random::PRNGKey(0);
  EXPECT_THROW(jx::random::split(key, std::numeric_limits<int64_t>::max()), jx::ValueError);
  EXPECT_THROW(jx::random::split(key, int64_t(1) << 62), jx::ValueError);
  EXPECT_THROW(jx::random::split(key, -1), jx::ValueError);
  EXPECT_EQ(jx::random::split(key, 0).size(), 0);
}

TEST(RandomApi, UniformAndNormalMatchCoreBitForBit) {
  auto key = jx::random::PRNGKey(0);
  for (jx::DType t : {jnp::float32, jnp::float64}) {
    const size_t n = 257, size = n * jx::itemsize(t);
    std::vector<char> u(size), z(size);
    jx::random_impl::uniform01(words(key), {int64_t(n)}, t, u.data());
    jx::random_impl::normal(words(key), {int64_t(n)}, t, z.data());
    auto ju = jx::random::uniform(key, {int64_t(n)}, t);
    auto jz = jx::random::normal(key, {int64_t(n)}, t);
    EXPECT_EQ(ju.dtype(), t);
    EXPECT_EQ(std::memcmp(ju.data(), u.data(), size), 0);
    EXPECT_EQ(std::memcmp(jz.data(), z.data(), size), 0);
  }
}

TEST(RandomApi, UniformRange) {
  auto x = jx::random::uniform(jx::random::PRNGKey(3), {1000}, jnp::float64, -2.0, 5.0);
  EXPECT_GE(jnp::min(x).item<double>(), -2.0);
  EXPECT_LT(jnp::max(x).item<double>(), 5.0);
  auto m = jnp::mean(x).item<double>();
  EXPECT_NEAR(m, 1.5, 0.3);
}

// JAX's values for a range other than [0, 1), eagerly and under jit: XLA:CPU contracts
// f * (max - min) + min into one fused multiply-add, and so does jx.
template <class T, size_t N> void expect_range_bits(const auto(&golden)[N], jx::DType dtype) {
  const auto key = jx::random::PRNGKey(7);
  auto f = [dtype](const jx::Array &k) {
    return jx::random::uniform(k, {int64_t(N)}, dtype, -3.3, 5.7);
  };
  for (const jx::Array &x : {f(key), jx::jit([&](const jx::Array &unused) {
                               return jx::random::uniform(key, {int64_t(N)}, dtype, -3.3, 5.7) +
                                      unused * 0;
                             })(jnp::zeros({}, dtype))}) {
    const std::vector<T> v = x.to_vector<T>();
    int64_t differ = 0;
    for (size_t i = 0; i < N; ++i)
      differ += std::memcmp(&v[i], &golden[i], sizeof(T)) != 0;
    EXPECT_EQ(differ, 0) << jx::dtype_name(dtype);
  }
}

TEST(RandomApi, UniformRangeIsJaxsBitForBit) {
  expect_range_bits<float>(golden::uniform_range_key7_300_f32, jnp::float32);
  expect_range_bits<double>(golden::uniform_range_key7_300_f64, jnp::float64);
}

TEST(RandomApi, NormalMoments) {
  auto x = jx::random::normal(jx::random::PRNGKey(1), {100000});
  EXPECT_NEAR(jnp::mean(x).item<double>(), 0.0, 0.02);
  EXPECT_NEAR(jnp::mean(x * x).item<double>(), 1.0, 0.02);
}

TEST(RandomApi, IsLazy) {
  auto x = jx::random::normal(jx::random::PRNGKey(0), {1 << 20, 1 << 20});
  EXPECT_EQ(x.node()->realized(), nullptr);
  EXPECT_EQ(x.shape(), (jx::Shape{1 << 20, 1 << 20}));
}
