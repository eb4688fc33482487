// Keys as arrays: every jx::random function against JAX's bits (tests/golden/random_keys, written
// by tests/golden/make_random_keys_golden.py), with the key known (eager), a jit argument, a
// batch of keys under vmap and scan, folded with a traced fori_loop index, and a loop carry.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace {

namespace jnp = jx::numpy;
namespace jr = jx::random;
namespace lax = jx::lax;
using jx::Array;
using jx::Shape;

// The golden script's SEED, STEPS and BATCH.
constexpr int64_t kSeed = 1234, kSteps = 4, kBatch = 8;

Array golden(const std::string &name) {
  return jnp::load(std::string(JX_GOLDEN_DIR) + "/random_keys/" + name + ".npy");
}
Array in(const std::string &name) { return golden("in_" + name); }

// got's bits against the golden file's: shape, dtype (bfloat16 results are stored as their uint16
// bits) and every byte; or, with eps > 0, every value within eps * epsilon * max(1, |JAX's|).
void expect_bits(const Array &got, const std::string &name, int eps = 0) {
  const Array want = golden(name);
  ASSERT_EQ(jx::shape_str(got.shape()), jx::shape_str(want.shape())) << name;
  if (got.dtype() == jx::bfloat16)
    ASSERT_EQ(want.dtype(), jx::uint16) << name;
  else
    ASSERT_EQ(jx::dtype_name(got.dtype()), jx::dtype_name(want.dtype())) << name;
  const size_t item = jx::itemsize(want.dtype());
  const auto *g = static_cast<const unsigned char *>(got.data());
  const auto *w = static_cast<const unsigned char *>(want.data());
  int64_t differ = 0;
  std::string first;
  const std::vector<double> gv = eps ? got.to_vector<double>() : std::vector<double>{},
                            wv = eps ? want.to_vector<double>() : std::vector<double>{};
  const double tol = eps * (want.dtype() == jx::float32 ? 0x1p-23 : 0x1p-52);
  for (int64_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(g + i * item, w + i * item, item) == 0) continue;
    if (eps && std::abs(gv[i] - wv[i]) <= tol * std::max(1.0, std::abs(wv[i]))) continue;
    if (differ++ < 4) {
      uint64_t gb = 0, wb = 0;
      std::memcpy(&gb, g + i * item, item);
      std::memcpy(&wb, w + i * item, item);
      first += fmt::format("\n  [{}] jx {:#x} jax {:#x}", i, gb, wb);
    }
  }
  EXPECT_EQ(differ, 0) << name << ": elements that differ from JAX's"
                       << (eps ? " past the tolerance" : "") << ":" << first;
}

using Sampler = std::function<Array(const Array &)>;
struct Case {
  std::string name;
  Sampler f;
  // 0: bit for bit. Else a tolerance in epsilons of the dtype (relative, or absolute below 1): the
  // samplers that call log, log1p or float32 erf on JAX's uniform bits. jx's are libm's (libmvec's
  // in kernels, within 4 ulp); XLA:CPU's are its own (Eigen's log for float32, a Cephes rational
  // log1p below sqrt(2) - 1, off by 64 epsilons near that threshold). Measured over 200,000
  // samples: within 4 epsilons (float32) and 64 (float64).
  int eps = 0;
};

// The golden script's SAMPLERS, by name.
std::vector<Case> samplers() {
  const auto f32 = jx::float32, f64 = jx::float64;
  return {
      {"split_5", [](const Array &k) { return jr::split(k, 5); }},
      {"split_2x3",
       [](const Array &k) {
         return jr::split(k, Shape{2, 3});
       }},
      {"fold_in_123", [](const Array &k) { return jr::fold_in(k, 123); }},
      {"fold_in_max", [](const Array &k) { return jr::fold_in(k, uint32_t(4294967295u)); }},
      {"bits_u32",
       [](const Array &k) {
         return jr::bits(k, {3, 5}, jx::uint32);
       }},
      {"bits_u64", [](const Array &k) { return jr::bits(k, {7}, jx::uint64); }},
      {"bits_u16", [](const Array &k) { return jr::bits(k, {9}, jx::uint16); }},
      {"bits_u8",
       [](const Array &k) {
         return jr::bits(k, {2, 5}, jx::uint8);
       }},
      {"uniform_f32",
       [=](const Array &k) {
         return jr::uniform(k, {4, 5}, f32);
       }},
      {"uniform_f64",
       [=](const Array &k) {
         return jr::uniform(k, {4, 5}, f64);
       }},
      {"uniform_f16", [](const Array &k) { return jr::uniform(k, {11}, jx::float16); }},
      {"uniform_bf16", [](const Array &k) { return jr::uniform(k, {11}, jx::bfloat16); }},
      {"uniform_range_f32", [=](const Array &k) { return jr::uniform(k, {9}, f32, -3.3, 5.7); }},
      {"uniform_range_f64", [=](const Array &k) { return jr::uniform(k, {9}, f64, -3.3, 5.7); }},
      {"uniform_range_f16",
       [](const Array &k) { return jr::uniform(k, {9}, jx::float16, -3.3, 5.7); }},
      {"uniform_range_bf16",
       [](const Array &k) { return jr::uniform(k, {9}, jx::bfloat16, -3.3, 5.7); }},
      {"uniform_bounds_f64",
       [=](const Array &k) {
         return jr::uniform(k, {2, 3}, f64, jnp::array(std::vector<double>{0.0, 1.0, 2.0}),
                            jnp::array(std::vector<double>{1.0, 5.0}, Shape{2, 1}));
       }},
      {"normal_f32",
       [=](const Array &k) {
         return jr::normal(k, {4, 5}, f32);
       }},
      {"normal_f64",
       [=](const Array &k) {
         return jr::normal(k, {4, 5}, f64);
       }},
      {"normal_f16", [](const Array &k) { return jr::normal(k, {7}, jx::float16); }},
      {"normal_bf16", [](const Array &k) { return jr::normal(k, {7}, jx::bfloat16); }},
      {"randint_i32",
       [](const Array &k) {
         return jr::randint(k, {3, 4}, 0, 10, jx::int32);
       }},
      {"randint_i64", [](const Array &k) { return jr::randint(k, {10}, -5, 1000); }},
      {"randint_u8_full", [](const Array &k) { return jr::randint(k, {10}, 0, 256, jx::uint8); }},
      {"randint_i8", [](const Array &k) { return jr::randint(k, {10}, -128, 127, jx::int8); }},
      {"randint_u32",
       [](const Array &k) { return jr::randint(k, {10}, 3, int64_t(4000000000), jx::uint32); }},
      {"randint_empty_range", [](const Array &k) { return jr::randint(k, {5}, 7, 3); }},
      {"randint_bounds",
       [](const Array &k) {
         return jr::randint(k, {2, 4}, jnp::array(std::vector<int64_t>{0, 10, 20, 30}),
                            jnp::array(std::vector<int64_t>{5, 100}, Shape{2, 1}));
       }},
      {"bernoulli_f64", [](const Array &k) { return jr::bernoulli(k, 0.3, Shape{10}); }},
      {"bernoulli_p_f32",
       [](const Array &k) {
         return jr::bernoulli(k, jnp::array(std::vector<float>{0.0f, 0.1f, 0.5f, 0.9f, 1.0f}));
       }},
      {"bernoulli_high",
       [](const Array &k) {
         return jr::bernoulli(k, 0.25, Shape{3, 4}, "high");
       }},
      {"exponential_f32", [=](const Array &k) { return jr::exponential(k, {12}, f32); }, 8},
      {"exponential_f64", [=](const Array &k) { return jr::exponential(k, {12}, f64); }, 128},
      {"gumbel_f32", [=](const Array &k) { return jr::gumbel(k, {12}, f32); }, 8},
      {"gumbel_f64", [=](const Array &k) { return jr::gumbel(k, {12}, f64); }, 128},
      {"gumbel_high_f64", [=](const Array &k) { return jr::gumbel(k, {12}, f64, "high"); }, 128},
      {"truncated_normal_f32",
       [=](const Array &k) { return jr::truncated_normal(k, -1.5, 2.0, Shape{12}, f32); }, 8},
      {"truncated_normal_f64",
       [=](const Array &k) { return jr::truncated_normal(k, -1.5, 2.0, Shape{12}, f64); }},
      {"truncated_normal_bounds",
       [](const Array &k) {
         return jr::truncated_normal(k, jnp::array(std::vector<double>{-1.0, 0.0, 1.0}), 3.0);
       }},
      {"categorical", [](const Array &k) { return jr::categorical(k, in("logits")); }},
      {"categorical_axis0", [](const Array &k) { return jr::categorical(k, in("logits"), 0); }},
      {"categorical_shape",
       [](const Array &k) {
         return jr::categorical(k, in("logits"), -1, Shape{3, 4});
       }},
      {"categorical_noreplace",
       [](const Array &k) {
         return jr::categorical(k, in("logits"), -1, Shape{3, 4}, false);
       }},
      {"permutation_20", [](const Array &k) { return jr::permutation(k, 20); }},
      {"permutation_1700",
       [](const Array &k) { return jr::permutation(k, jnp::arange(1700, jx::int16)); }},
      {"permutation_rows", [](const Array &k) { return jr::permutation(k, in("x2d")); }},
      {"permutation_axis1", [](const Array &k) { return jr::permutation(k, in("x2d"), 1); }},
      {"permutation_independent",
       [](const Array &k) { return jr::permutation(k, in("x2d"), 1, true); }},
      {"choice_int", [](const Array &k) { return jr::choice(k, 10, {5}); }},
      {"choice_array",
       [](const Array &k) {
         return jr::choice(k, jnp::arange(20.0) * 1.5, {3, 4});
       }},
      {"choice_axis1",
       [](const Array &k) { return jr::choice(k, in("x2d"), {2}, true, std::nullopt, 1); }},
      {"choice_noreplace", [](const Array &k) { return jr::choice(k, 10, {6}, false); }},
      {"choice_p", [](const Array &k) { return jr::choice(k, 6, {8}, true, in("p")); }},
      {"choice_p_noreplace", [](const Array &k) { return jr::choice(k, 6, {3}, false, in("p")); }},
  };
}

// gtest names a parameter by PrintTo: the sampler's name (not its bytes).
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

class RandomKeys : public testing::TestWithParam<Case> {};

// f(fold_in(key, i)) into row i, i a traced fori_loop index.
Array loop_fold(const Sampler &f, const Array &key) {
  const Array first = f(key);
  Shape shape = first.shape();
  shape.insert(shape.begin(), kSteps);
  return lax::fori_loop(
      0, kSteps,
      [&](const Array &i, const Array &out) { return out.at(i).set(f(jr::fold_in(key, i))); },
      jnp::zeros(shape, first.dtype()));
}

// key, sub = split(key); f(sub) into row i: the key a loop carry.
Array loop_carry(const Sampler &f, const Array &key) {
  const Array first = f(key);
  Shape shape = first.shape();
  shape.insert(shape.begin(), kSteps);
  return lax::fori_loop(
      0, kSteps,
      [&](const Array &i, const lax::Arrays &c) {
        const Array keys = jr::split(c[0]);
        return lax::Arrays{keys[0], c[1].at(i).set(f(keys[1]))};
      },
      lax::Arrays{key, jnp::zeros(shape, first.dtype())})[1];
}

// One test per sampler (each test is a process under ctest; the six ways share its kernels).
TEST_P(RandomKeys, MatchesJaxEverywhere) {
  const Sampler f = GetParam().f;
  const std::string &name = GetParam().name;
  const int eps = GetParam().eps;
  const Array key = jr::PRNGKey(kSeed);
  {
    SCOPED_TRACE("eager, the key known");
    expect_bits(f(key), name, eps);
  }
  {
    SCOPED_TRACE("jit, the key an argument");
    expect_bits(jx::jit([f](const Array &k) { return f(k); })(key), name, eps);
  }
  const Array keys = jr::split(key, kBatch);
  {
    SCOPED_TRACE("vmap over a batch of keys");
    expect_bits(jx::vmap([f](const Array &k) { return f(k); })(keys), name + "__vmap", eps);
  }
  {
    SCOPED_TRACE("scan over the keys as xs");
    auto [carry, ys] = lax::scan(
        [&](const Array &c, const Array &k) {
          return std::pair<Array, Array>{c, f(k)};
        },
        jnp::zeros({}), keys);
    expect_bits(ys, name + "__vmap", eps);
  }
  {
    SCOPED_TRACE("fold_in of a traced fori_loop index, the key a closure's constant");
    expect_bits(loop_fold(f, key), name + "__loop", eps);
  }
  {
    SCOPED_TRACE("fold_in of a traced fori_loop index, the key a jit argument");
    expect_bits(jx::jit([f](const Array &k) { return loop_fold(f, k); })(key), name + "__loop",
                eps);
  }
  {
    SCOPED_TRACE("split of the key as a fori_loop carry");
    expect_bits(loop_carry(f, key), name + "__carry", eps);
  }
}

INSTANTIATE_TEST_SUITE_P(Samplers, RandomKeys, testing::ValuesIn(samplers()),
                         [](const testing::TestParamInfo<Case> &info) { return info.param.name; });

TEST(RandomKeyConstructors, MatchJax) {
  expect_bits(jr::PRNGKey(0), "PRNGKey_0");
  expect_bits(jr::PRNGKey(-1), "PRNGKey_minus1");
  expect_bits(jr::PRNGKey(int64_t(1) << 40 | 3), "PRNGKey_2pow40_plus3");
  expect_bits(jr::key_data(jr::key(42)), "key_data_key_42");
  // Seeds as arrays, batched: 64-bit seeds give both words, 32-bit ones [0, seed as uint32].
  const auto seeded = jx::vmap([](const Array &s) { return jr::PRNGKey(s); });
  expect_bits(seeded(jnp::array(std::vector<int64_t>{0, 1, -1, (int64_t(1) << 33) + 5})),
              "PRNGKey_vmap_seeds");
  expect_bits(seeded(jnp::array(std::vector<int32_t>{0, 1, -1, 7})), "PRNGKey_vmap_seeds_i32");
  const Array key = jr::PRNGKey(kSeed);
  expect_bits(jx::vmap([&](const Array &d) { return jr::fold_in(key, d); })(jnp::arange(6)),
              "fold_in_vmap_data");
}

TEST(RandomKeyConstructors, KeysAreUint32Arrays) {
  const Array k = jr::key(7);
  EXPECT_EQ(k.dtype(), jx::uint32);
  EXPECT_EQ(k.shape(), (Shape{2}));
  EXPECT_EQ(jr::split(k, 3).shape(), (Shape{3, 2}));
  EXPECT_EQ(jr::split(k, Shape{2, 5}).shape(), (Shape{2, 5, 2}));
  EXPECT_EQ(jr::split(k, 0).shape(), (Shape{0, 2}));
  EXPECT_EQ(jr::wrap_key_data(jr::split(k, 3)).shape(), (Shape{3, 2}));
  // A key prints as the array it is.
  EXPECT_EQ(fmt::format("{}", jr::PRNGKey(42)), "[ 0 42]");
}

TEST(RandomKeyErrors, AreJaxs) {
  const Array k = jr::PRNGKey(0);
  // A batch of keys where one key is expected: JAX's ValueError pointing at vmap.
  EXPECT_THROW(jr::uniform(jr::split(k, 2), {3}), jx::ValueError);
  EXPECT_THROW(jr::split(jr::split(k, 2)), jx::ValueError);
  // Not key data: JAX's TypeError.
  EXPECT_THROW(jr::normal(jnp::zeros({2}), {3}), jx::TypeError);
  EXPECT_THROW(jr::fold_in(jnp::zeros({3}, jx::uint32), 1), jx::TypeError);
  EXPECT_THROW(jr::wrap_key_data(jnp::zeros({2, 3}, jx::uint32)), jx::TypeError);
  EXPECT_THROW(
      jr::key_data(jnp::array(std::vector<uint32_t>{1, 2}).reshape({1, 2}).astype(jx::int32)),
      jx::TypeError);
  EXPECT_THROW(jr::fold_in(k, jnp::arange(3)), jx::TypeError);
  EXPECT_THROW(jr::PRNGKey(jnp::arange(2)), jx::TypeError);
  EXPECT_THROW(jr::PRNGKey(jnp::array(1.5)), jx::TypeError);
  EXPECT_THROW(jr::bits(k, {2}, jx::int32), jx::DTypeError);
  EXPECT_THROW(jr::randint(k, {2}, 0, 5, jx::float32), jx::DTypeError);
  EXPECT_THROW(jr::bernoulli(k, 1), jx::DTypeError);
  EXPECT_THROW(jr::bernoulli(k, 0.5, Shape{2}, "middle"), jx::ValueError);
  EXPECT_THROW(jr::gumbel(k, {2}, jx::float32, "highest"), jx::ValueError);
  EXPECT_THROW(jr::randint(k, {2}, jnp::zeros({3}, jx::int64), 5), jx::ValueError);
  EXPECT_THROW(jr::choice(k, 3, {4}, false), jx::ValueError);
  EXPECT_THROW(jr::choice(k, 0, {4}), jx::ValueError);
  EXPECT_THROW(jr::choice(k, 4, {2}, true, jnp::ones({3})), jx::ValueError);
  EXPECT_THROW(jr::categorical(k, jnp::zeros({2, 3}), -1, Shape{4, 2}, false), jx::ValueError);
  // A size read from a traced value.
  EXPECT_THROW(
      jx::jit([&](const Array &n) { return jr::permutation(k, n); })(jnp::array(int64_t(5))),
      jx::ConcretizationTypeError);
}

// The traced path and the known-key path give one program each; both are checked against JAX
// above. Here: a key known inside a trace (split of a constant, then indexed) takes the fast
// path's random_uniform leaf, and a traced key builds the threefry rounds.
TEST(RandomKeyPaths, KnownKeysInsideATraceUseTheLeaf) {
  const Array k = jr::PRNGKey(3);
  const auto traced = jx::jit([](const Array &key) { return jr::uniform(key, {5}); }).lower(k);
  EXPECT_EQ(traced.as_text().find("random_uniform"), std::string::npos);
  const auto known = jx::jit([&](const Array &x) {
                       return jr::uniform(jr::split(k, 3)[1], {5}) + x;
                     }).lower(Array(0.0));
  EXPECT_NE(known.as_text().find("random_uniform"), std::string::npos);
  EXPECT_EQ(jx::jit([](const Array &key) { return jr::uniform(key, {5}); })(jr::split(k, 3)[1])
                .to_vector<double>(),
            jr::uniform(jr::split(k, 3)[1], {5}).to_vector<double>());
}

} // namespace
