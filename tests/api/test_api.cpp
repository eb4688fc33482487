// jnp API behaviour beyond values: laziness, CSE, shapes of results, and seed-shaped programs.
#include <jx/jx.h>

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "ir/node.h"
#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::Shape;
using jx::slice;

TEST(Api, ExpressionsAreLazyAndShared) {
  Array x = jnp::zeros({4096, 4096});
  Array y = jnp::exp(x) * 2 + jnp::sin(x);
  EXPECT_EQ(y.node()->realized(), nullptr);
  EXPECT_EQ(y.shape(), (Shape{4096, 4096}));
  // Structural CSE: the same expression built twice is one node.
  EXPECT_EQ((jnp::exp(x) * 2).node().get(), (jnp::exp(x) * 2).node().get());
}

TEST(Api, ReadingRealizesOnce) {
  Array y = jnp::arange(5.0) * 3;
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 3, 6, 9, 12}));
  auto first = y.node()->realized();
  ASSERT_NE(first, nullptr);
  y.block_until_ready();
  EXPECT_EQ(y.node()->realized(), first);
  EXPECT_EQ(y.to_vector<int>(), (std::vector<int>{0, 3, 6, 9, 12}));
  EXPECT_EQ(jnp::sum(y).item<double>(), 30);
}

TEST(Api, LinspaceWithArrayEndpoints) {
  Array a = jnp::arange(0, 10, 0.1), b = a + 0.05;
  Array x = jnp::linspace(a, b, 513);
  EXPECT_EQ(x.shape(), (Shape{513, 100}));
  EXPECT_EQ(x(0).to_vector<double>(), a.to_vector<double>());
  EXPECT_EQ(x(-1).to_vector<double>(), b.to_vector<double>()); // endpoint is exactly stop
  EXPECT_EQ(jnp::linspace(a, b, {.num = 7, .axis = 1}).shape(), (Shape{100, 7}));
  // As NumPy: i * step, so 3 * 0.2 = 0.6000000000000001.
  EXPECT_EQ(jnp::linspace(0, 1, 5, false).to_vector<double>(),
            (std::vector<double>{0, 0.2, 0.4, 3 * 0.2, 0.8}));
  EXPECT_EQ(jnp::linspace(0, 1, 1).to_vector<double>(), (std::vector<double>{0}));
  EXPECT_EQ(jnp::linspace(0, 1, 0).shape(), (Shape{0}));
  EXPECT_EQ(jnp::linspace(0, 10, {.num = 3, .dtype = jnp::int32}).to_vector<int>(),
            (std::vector<int>{0, 5, 10}));
}

TEST(Api, CreationShapes) {
  EXPECT_EQ(jnp::eye(3, 4, -1).to_vector<double>(),
            (std::vector<double>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(jnp::full({2, 2}, 7.5, jnp::float32).dtype(), jnp::float32);
  EXPECT_EQ(jnp::full_like(jnp::zeros({3}, jnp::int32), 4).to_vector<int>(),
            (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(jnp::arange(5, 0, -2).to_vector<int64_t>(), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(jnp::arange(0.5, 2).to_vector<double>(), (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(jnp::arange(0).shape(), (Shape{0}));
  EXPECT_EQ(jnp::zeros({}).ndim(), 0);
  // A braced list of ints is int64, as np.array([...]) on Linux and JAX with x64.
  EXPECT_EQ(jnp::array({1, 2, 3, 4, 5, 6}, Shape{3, 2}).dtype(), jnp::int64);
  EXPECT_EQ(jnp::array(std::vector<int32_t>{1, 2}).dtype(), jnp::int32);
  EXPECT_EQ(jnp::array<int32_t>({1, 2}).dtype(), jnp::int32);
}

// jnp.array of a scalar as JAX with x64: 2.0 a weakly typed float64 0-d array, 2 a weakly typed
// int64 (exactly, past 2^53), True a strong bool, np.float32(2.5) a strong float32.
TEST(Api, ArrayOfAScalar) {
  const Array x = jnp::array(2.0);
  EXPECT_EQ(x.shape(), Shape{});
  EXPECT_EQ(x.dtype(), jnp::float64);
  EXPECT_TRUE(x.weak_type());
  EXPECT_EQ((jnp::ones({2}, jnp::float32) * x).dtype(), jnp::float32);
  const int64_t big = (int64_t(1) << 53) + 1;
  EXPECT_EQ(jnp::array(big).item<int64_t>(), big);
  EXPECT_EQ(jnp::array(3).dtype(), jnp::int64);
  EXPECT_TRUE(jnp::array(3).weak_type());
  EXPECT_EQ(jnp::array(true).dtype(), jnp::bool_);
  EXPECT_FALSE(jnp::array(true).weak_type());
  EXPECT_EQ(jnp::array(2.5f).dtype(), jnp::float32);
  EXPECT_FALSE(jnp::array(2.5f).weak_type());
  EXPECT_EQ((jnp::ones({2}, jnp::float64) * jnp::array(2.5f)).dtype(), jnp::float64);
}

TEST(Api, ConstantsAndBracedAxes) {
  EXPECT_EQ(jnp::pi, 3.141592653589793);
  EXPECT_EQ(jnp::e, 2.718281828459045);
  EXPECT_EQ(jnp::euler_gamma, 0.5772156649015329);
  EXPECT_TRUE(std::isinf(jnp::inf) && jnp::inf > 0);
  EXPECT_TRUE(std::isnan(jnp::nan));
  const Array x = jnp::reshape(jnp::arange(6.0), {2, 3});
  EXPECT_EQ(x(jnp::newaxis).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(jnp::transpose(x, {1, 0}).shape(), (Shape{3, 2}));
  EXPECT_EQ(jnp::transpose(x, {1, 0}).to_vector<double>(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(jnp::transpose(jnp::zeros({2, 3, 4}), {-1, 0, 1}).shape(), (Shape{4, 2, 3}));
}

// NumPy's and JAX's isclose: rtol against |b|, infinities only close to themselves, NaN to nothing
// unless equal_nan; ints compared exactly.
TEST(Api, IscloseAllcloseArrayEqual) {
  const Array a = jnp::array({1e10, 1e-8, 1.0, jnp::inf, jnp::inf, jnp::nan, 0.0, -0.0});
  const Array b = jnp::array({1.00001e10, 1e-9, 1.0001, jnp::inf, -jnp::inf, jnp::nan, 1e-8, 0.0});
  EXPECT_EQ(jnp::isclose(a, b).to_vector<bool>(),
            (std::vector<bool>{true, true, false, true, false, false, true, true}));
  EXPECT_EQ(jnp::isclose(a, b, 1e-5, 1e-8, true).to_vector<bool>(),
            (std::vector<bool>{true, true, false, true, false, true, true, true}));
  EXPECT_EQ(jnp::isclose(a, b, 1e-3).to_vector<bool>()[2], true);
  // Not symmetric: rtol scales |b|.
  EXPECT_TRUE(jnp::isclose(jnp::array(1.0), jnp::array(1.0 + 1e-5 + 1e-8)).item<bool>());
  EXPECT_FALSE(jnp::isclose(jnp::array(100.0), jnp::array(100.01), 1e-5, 0.0).item<bool>());
  // Float32 arrays: the tolerances in float32; ints: equality.
  EXPECT_EQ(jnp::isclose(jnp::ones({2}, jnp::float32), 1.0f + 1e-6f).dtype(), jnp::bool_);
  EXPECT_TRUE(jnp::allclose(jnp::ones({3}, jnp::float32), jnp::ones({3}) + 1e-7).item<bool>());
  EXPECT_EQ(jnp::isclose(jnp::array({1, 2}), jnp::array({1, 3})).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_TRUE(jnp::allclose(jnp::zeros({2, 2}), jnp::zeros({2})).item<bool>());
  EXPECT_FALSE(jnp::allclose(a, b).item<bool>());
  EXPECT_EQ(jnp::allclose(a, b).shape(), Shape{});
  // array_equal: shapes must agree (no broadcasting); array_equiv broadcasts.
  EXPECT_TRUE(jnp::array_equal(jnp::arange(3), jnp::array({0, 1, 2})).item<bool>());
  EXPECT_FALSE(jnp::array_equal(jnp::zeros({2, 2}), jnp::zeros({2})).item<bool>());
  EXPECT_FALSE(jnp::array_equal(a, a).item<bool>());
  EXPECT_TRUE(jnp::array_equal(a, a, true).item<bool>());
  EXPECT_TRUE(jnp::array_equiv(jnp::zeros({2, 2}), jnp::zeros({2})).item<bool>());
  EXPECT_FALSE(jnp::array_equiv(jnp::zeros({2, 2}), jnp::zeros({3})).item<bool>());
  EXPECT_TRUE(jx::jit([](const Array &x, const Array &y) { return jnp::allclose(x, y); })(
                  jnp::ones({4}), jnp::ones({4}) * (1 + 1e-9))
                  .item<bool>());
}

// A jitted function of a list of arrays: any length, each length its own signature.
TEST(Api, JitOfAListOfArrays) {
  auto total = jx::jit([](const std::vector<Array> &xs, const Array &scale) {
    Array sum = jnp::zeros({2});
    for (const Array &x : xs)
      sum = sum + x;
    return sum * scale;
  });
  const Array one = jnp::ones({2}), two = jnp::full({2}, 2.0);
  EXPECT_EQ(total(std::vector<Array>{one, two}, Array(10.0)).to_vector<double>(),
            (std::vector<double>{30, 30}));
  EXPECT_EQ(total(std::vector<Array>{one, two, two}, Array(1.0)).to_vector<double>(),
            (std::vector<double>{5, 5}));
  EXPECT_EQ(total(std::vector<Array>{}, Array(1.0)).to_vector<double>(),
            (std::vector<double>{0, 0}));
  EXPECT_EQ(total.cache_size(), 3u);
  const jx::ShapeDtypeStruct spec{{2}, jx::float64};
  const auto compiled = total
                            .lower(std::vector<jx::ShapeDtypeStruct>{spec, spec},
                                   jx::ShapeDtypeStruct{{}, jx::float64})
                            .compile();
  EXPECT_EQ(compiled.call({one, one, Array(jnp::array(3.0))}).to_vector<double>(),
            (std::vector<double>{6, 6}));
}

// Tuples and maps of arrays (JAX's tuple and dict pytrees), nested: each structure (lengths, keys)
// its own signature; a map's arrays traced in key order.
TEST(Api, JitOfTuplesAndMapsOfArrays) {
  using Params = std::map<std::string, Array>;
  auto predict = jx::jit([](const Params &p, const std::tuple<Array, std::vector<Array>> &data) {
    const auto &[x, extra] = data;
    Array y = jnp::matmul(x, p.at("w")) + p.at("b");
    for (const Array &e : extra)
      y = y + e;
    return y;
  });
  const Params params{{"w", jnp::ones({3, 2}) * 2.0}, {"b", jnp::array({1.0, -1.0})}};
  const Array x = jnp::arange(6.0).reshape({2, 3});
  const Array y = predict(params, std::tuple{x, std::vector<Array>{}});
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{7, 5, 25, 23}));
  EXPECT_EQ(predict(params, std::tuple{x, std::vector<Array>{jnp::ones({2})}}).to_vector<double>(),
            (std::vector<double>{8, 6, 26, 24}));
  EXPECT_EQ(predict.cache_size(), 2u);
  // Another key is another structure (as another dict in JAX), even with arrays of one signature.
  auto sum_of = jx::jit([](const Params &p) {
    Array total = jnp::zeros({});
    for (const auto &[name, v] : p)
      total = total + jnp::sum(v);
    return total;
  });
  EXPECT_EQ(sum_of(Params{{"a", jnp::ones({2})}}).item<double>(), 2.0);
  EXPECT_EQ(sum_of(Params{{"b", jnp::ones({2})}}).item<double>(), 2.0);
  EXPECT_EQ(sum_of.cache_size(), 2u);
  // lower() takes the same trees of specs; the compiled function takes the trees of arrays.
  const jx::ShapeDtypeStruct w{{3, 2}, jx::float64}, b{{2}, jx::float64}, xs{{2, 3}, jx::float64};
  const auto compiled =
      predict
          .lower(std::map<std::string, jx::ShapeDtypeStruct>{{"w", w}, {"b", b}},
                 std::tuple<jx::ShapeDtypeStruct, std::vector<jx::ShapeDtypeStruct>>{xs, {}})
          .compile();
  EXPECT_EQ(compiled(params, std::tuple{x, std::vector<Array>{}}).to_vector<double>(),
            y.to_vector<double>());
}

// `Array x;` declares an array to assign later; using it before that raises jx's ValueError.
TEST(Api, DefaultArrayHasNoValueUntilAssigned) {
  Array a;
  EXPECT_THROW(a.shape(), jx::ValueError);
  EXPECT_THROW((void)(a + 1), jx::ValueError);
  EXPECT_THROW(jnp::sum(a), jx::ValueError);
  EXPECT_THROW(a.to_vector<double>(), jx::ValueError);
  EXPECT_THROW(a.sharding(), jx::ValueError);
  EXPECT_THROW((void)fmt::format("{}", a), jx::ValueError);
  EXPECT_THROW(jx::jit([](const Array &x) { return x * 2; })(a), jx::ValueError);
  try {
    a.ndim();
    ADD_FAILURE() << "no exception";
  } catch (const jx::ValueError &e) {
    EXPECT_NE(std::string(e.what()).find("this Array has no value"), std::string::npos) << e.what();
  }
  a = jnp::zeros({2, 3});
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  std::vector<Array> rows(2);
  rows[1] = jnp::ones({2});
  EXPECT_EQ(rows[1].to_vector<double>(), (std::vector<double>{1, 1}));
  EXPECT_THROW(rows[0].dtype(), jx::ValueError);
}

// x.T reverses the axes (ndarray.T); x.mT swaps the last two, JAX's ValueError below 2-D.
TEST(Api, TransposeProperties) {
  const Array x = jnp::arange(24.0).reshape({2, 3, 4});
  EXPECT_EQ(x.T().shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(x.T().to_vector<double>(), jnp::transpose(x).to_vector<double>());
  EXPECT_EQ(x.mT().shape(), (Shape{2, 4, 3}));
  EXPECT_EQ(x.mT().to_vector<double>(), jnp::swapaxes(x, -1, -2).to_vector<double>());
  EXPECT_EQ(jnp::arange(3.0).T().shape(), (Shape{3}));
  EXPECT_EQ(Array(2.0).T().shape(), (Shape{}));
  try {
    jnp::arange(3.0).mT();
    ADD_FAILURE() << "no exception";
  } catch (const jx::ValueError &e) {
    EXPECT_STREQ(e.what(), "x must be at least two-dimensional for matrix_transpose; got ndim=1");
  }
}

// x << y and x >> y are jnp.left_shift and right_shift, a C++ scalar on either side (weakly
// typed); `os << x` still prints x.
TEST(Api, ShiftOperators) {
  const Array x = jnp::array<int32_t>({1, 2, 4});
  EXPECT_EQ((x << 2).dtype(), jnp::int32);
  EXPECT_EQ((x << 2).to_vector<int>(), (std::vector<int>{4, 8, 16}));
  EXPECT_EQ((x >> 1).to_vector<int>(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ((1 << x).to_vector<int>(), (std::vector<int>{2, 4, 16}));
  EXPECT_EQ((64 >> x).dtype(), jnp::int32);
  EXPECT_EQ((64 >> x).to_vector<int>(), (std::vector<int>{32, 16, 4}));
  EXPECT_EQ((x << x).to_vector<int>(), jnp::left_shift(x, x).to_vector<int>());
  EXPECT_THROW((void)(jnp::arange(3.0) << 1), jx::TypeError);
  std::ostringstream os;
  os << x << ' ' << (x >> 2);
  EXPECT_EQ(os.str(), "[1 2 4] [0 0 1]");
}

// bool arange as NumPy: at most two elements (it built an ill-typed graph; API fuzzer).
TEST(Api, ArangeBool) {
  EXPECT_EQ(jnp::arange(0, 2, 1, jnp::bool_).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(jnp::arange(1.0, -1.0, -1.0, jnp::bool_).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(jnp::arange(3, 4, 1, jnp::bool_).to_vector<bool>(), (std::vector<bool>{true}));
  EXPECT_EQ(jnp::arange(5, 3.875, -0.75, jnp::bool_).to_vector<bool>(),
            (std::vector<bool>{true, true}));
  EXPECT_THROW(jnp::arange(0, 3, 1, jnp::bool_), jx::TypeError);
}

TEST(Api, ReductionShapes) {
  Array x = jnp::ones({2, 3, 4});
  EXPECT_EQ(jnp::sum(x).shape(), (Shape{}));
  EXPECT_EQ(jnp::sum(x, -1).shape(), (Shape{2, 3}));
  EXPECT_EQ(jnp::sum(x, {.axis = {0, 2}, .keepdims = true}).shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(jnp::argmax(x, {.axis = -2, .keepdims = true}).shape(), (Shape{2, 1, 4}));
  EXPECT_EQ(jnp::argmin(x, {.keepdims = true}).shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(jnp::sum(jnp::zeros({0, 3}), 0).to_vector<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(jnp::prod(jnp::zeros({0})).item<double>(), 1);
  EXPECT_TRUE(jnp::all(jnp::zeros({0}, jnp::bool_)).item<bool>());
  EXPECT_FALSE(jnp::any(jnp::zeros({0}, jnp::bool_)).item<bool>());
  EXPECT_TRUE(std::isnan(jnp::mean(jnp::zeros({0})).item<double>()));
}

TEST(Api, DiffMatchesDefinition) {
  Array x = jnp::array({1.0, 4.0, 9.0, 16.0, 25.0, 36.0}, Shape{2, 3});
  EXPECT_EQ(jnp::diff(x).to_vector<double>(), (std::vector<double>{3, 5, 9, 11}));
  EXPECT_EQ(jnp::diff(x, 1, 0, jnp::zeros({1, 3})).to_vector<double>(),
            (std::vector<double>{1, 4, 9, 15, 21, 27}));
  EXPECT_EQ(jnp::diff(x, 2, -1).to_vector<double>(), (std::vector<double>{2, 2}));
  EXPECT_EQ(jnp::diff(x, 1, 1, 0.0, 100.0).to_vector<double>(),
            (std::vector<double>{1, 3, 5, 91, 16, 9, 11, 64}));
  EXPECT_EQ(jnp::diff(x, 0).node().get(), x.node().get());
  EXPECT_EQ(jnp::diff(x, 5).shape(), (Shape{2, 0}));
  EXPECT_EQ(jnp::diff(jnp::array({true, false, false})).to_vector<bool>(),
            (std::vector<bool>{true, false}));
}

// Found by the API fuzzer: an empty shift list read past its end; extreme shifts overflowed.
TEST(Api, RollEdgeShifts) {
  Array g = jnp::arange(6).reshape({2, 3});
  EXPECT_EQ(jnp::roll(g, std::vector<int64_t>{}, {0}).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_THROW(jnp::roll(g, std::vector<int64_t>{}, {0, 1}), jx::ValueError);
  const int64_t big = std::numeric_limits<int64_t>::max(); // 1 mod 3, 1 mod 2
  EXPECT_EQ(jnp::roll(g, {big, big}, {1, 1}).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2, 0, 4, 5, 3}));
  EXPECT_EQ(jnp::roll(g, {big, big}, {0, 0}).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Api, StackConcatenatePadRollFlip) {
  Array a = jnp::arange(3), b = jnp::arange(3, 6);
  EXPECT_EQ(jnp::stack({a, b}, -1).shape(), (Shape{3, 2}));
  EXPECT_EQ(jnp::stack({a, b}, -1).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(jnp::concatenate({a, jnp::zeros({0}, jnp::int64), b}).size(), 6);
  EXPECT_EQ(jnp::pad(a, {{1, 2}}, {.constant_values = 9}).to_vector<int64_t>(),
            (std::vector<int64_t>{9, 0, 1, 2, 9, 9}));
  EXPECT_EQ(jnp::roll(a, 1).to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(jnp::roll(a, -4).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  Array g = jnp::arange(6).reshape({2, 3});
  EXPECT_EQ(jnp::roll(g, 1).to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 1, 2, 3, 4}));
  EXPECT_EQ(jnp::roll(g, {1, 1}, {0, 1}).to_vector<int64_t>(),
            (std::vector<int64_t>{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(jnp::flip(g).to_vector<int64_t>(), (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(jnp::flip(g, 1).to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(jnp::squeeze(jnp::zeros({1, 3, 1})).shape(), (Shape{3}));
  EXPECT_EQ(jnp::expand_dims(g, {0, -1}).shape(), (Shape{1, 2, 3, 1}));
  EXPECT_EQ(jnp::moveaxis(jnp::zeros({2, 3, 4}), 0, -1).shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(jnp::transpose(jnp::zeros({2, 3, 4})).shape(), (Shape{4, 3, 2}));
}

TEST(Api, EinsumForms) {
  Array a = jnp::arange(6.0).reshape({2, 3}), b = jnp::arange(12.0).reshape({3, 4});
  Array ab = jnp::matmul(a, b);
  EXPECT_EQ(jnp::einsum("ij,jk->ik", a, b).to_vector<double>(), ab.to_vector<double>());
  EXPECT_EQ(jnp::einsum("ij,jk", a, b).to_vector<double>(), ab.to_vector<double>());
  EXPECT_EQ(jnp::einsum("ij->ji", a).to_vector<double>(), jnp::transpose(a).to_vector<double>());
  Array sq = jnp::arange(9.0).reshape({3, 3});
  EXPECT_EQ(jnp::einsum("ii", sq).item<double>(), 12);
  EXPECT_EQ(jnp::einsum("ii->i", sq).to_vector<double>(), (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(jnp::einsum("ij->", a).item<double>(), 15);
  EXPECT_EQ(jnp::einsum("i,j->ij", jnp::arange(2.0), jnp::arange(3.0)).shape(), (Shape{2, 3}));
  Array c = jnp::ones({4, 5});
  EXPECT_EQ(jnp::einsum("ij,jk,kl->il", a, b, c).to_vector<double>(),
            jnp::matmul(ab, c).to_vector<double>());
  // The seed's contraction over the first axis, batching over '...'.
  Array w = jnp::ones({5, 2, 3}), y = jnp::arange(30.0).reshape({5, 2, 3});
  EXPECT_EQ(jnp::einsum("i...,i...", w, y).to_vector<double>(), jnp::sum(y, 0).to_vector<double>());
  EXPECT_EQ(jnp::einsum("...ij,...jk->...ik", jnp::ones({7, 2, 3}), b).shape(), (Shape{7, 2, 4}));
  EXPECT_EQ(jnp::einsum("Ba,aB", jnp::ones({2, 3}), jnp::ones({3, 2})).shape(), (Shape{}));
}

namespace {

// Brute-force einsum with an explicit output ("ij,jk->ik", letters only): loops over every
// assignment of the labels, reading a size-1 operand axis at 0 whatever its label's index.
std::vector<double> loop_einsum(std::string_view spec, const std::vector<Array> &xs) {
  const size_t arrow = spec.find("->");
  std::vector<std::string> terms(1);
  for (char c : spec.substr(0, arrow)) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back().push_back(c);
  }
  const std::string out(spec.substr(arrow + 2));
  std::string labels;
  std::vector<int64_t> sizes;
  for (size_t k = 0; k < xs.size(); ++k)
    for (size_t i = 0; i < terms[k].size(); ++i) {
      const size_t at = labels.find(terms[k][i]);
      const int64_t d = xs[k].shape()[i];
      if (at == std::string::npos) {
        labels.push_back(terms[k][i]);
        sizes.push_back(d);
      } else if (sizes[at] == 1) {
        sizes[at] = d;
      }
    }
  std::vector<std::vector<double>> data;
  for (const Array &x : xs)
    data.push_back(x.to_vector<double>());
  int64_t out_size = 1;
  for (char c : out)
    out_size *= sizes[labels.find(c)];
  std::vector<double> result(out_size, 0.0);
  std::vector<int64_t> index(labels.size(), 0);
  auto flat = [&](const std::string &term, const Shape &shape) {
    int64_t f = 0;
    for (size_t i = 0; i < term.size(); ++i)
      f = f * shape[i] + (shape[i] == 1 ? 0 : index[labels.find(term[i])]);
    return f;
  };
  for (;;) {
    bool empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
    if (!empty) {
      double product = 1;
      for (size_t k = 0; k < xs.size(); ++k)
        product *= data[k][flat(terms[k], xs[k].shape())];
      Shape out_shape;
      for (char c : out)
        out_shape.push_back(sizes[labels.find(c)]);
      result[flat(out, out_shape)] += product;
    }
    size_t i = labels.size();
    while (i > 0 && (empty || ++index[i - 1] == sizes[i - 1]))
      index[--i] = 0;
    if (i == 0) break;
  }
  return result;
}

Array iota(Shape shape, double start = 1) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return jnp::arange(start, start + double(n)).reshape(shape);
}

} // namespace

// A label of size 1 broadcasts against the other operands' size for it, as in NumPy and JAX:
// contracted, batch and free labels alike.
TEST(Api, EinsumBroadcastsSizeOneLabels) {
  // Contracted j: result[i,k] = a[i,0] * sum_j b[j,k]; the column sums of 0..19 as (5,4) are
  // 40 + 5k.
  Array a = iota({3, 1}), b = jnp::arange(20.0).reshape({5, 4});
  EXPECT_EQ(jnp::einsum("ij,jk->ik", a, b).to_vector<double>(),
            (std::vector<double>{40, 45, 50, 55, 80, 90, 100, 110, 120, 135, 150, 165}));
  EXPECT_EQ(jnp::einsum("ij,jk", a, b).shape(), (Shape{3, 4}));
  struct Case {
    const char *spec;
    std::vector<Shape> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{3, 1}, {5, 4}}},             // contracted, size 1 on the left
      {"ij,jk->ik", {{3, 5}, {1, 4}}},             // contracted, size 1 on the right
      {"bij,bjk->bik", {{1, 2, 3}, {4, 3, 5}}},    // batch
      {"bij,bjk->bik", {{4, 2, 3}, {1, 3, 5}}},    // batch, other side
      {"bij,bjk->bik", {{4, 2, 1}, {1, 3, 5}}},    // batch and contracted
      {"ij,ij->ij", {{1, 4}, {3, 4}}},             // free (kept in the output)
      {"ij,ij->ij", {{3, 1}, {1, 4}}},             // an outer product by broadcasting
      {"ij,ij->i", {{3, 1}, {3, 4}}},              // kept i, summed j
      {"ij,ij->", {{1, 4}, {3, 1}}},               // everything summed
      {"i,i->i", {{1}, {3}}},                      // the operand becomes a scalar
      {"i,i->", {{3}, {1}}},                       // a dot with a size-1 side
      {"ij,jk,kl->il", {{2, 1}, {4, 3}, {3, 2}}},  // three operands, j size 1 in one
      {"ij,jk,kl->il", {{2, 3}, {3, 1}, {4, 2}}},  // k size 1 in the middle one
      {"ij,jk,jl->ikl", {{2, 1}, {3, 4}, {3, 2}}}, // j shared by three, size 1 in one
      {"ij,ji->ij", {{1, 3}, {3, 2}}},             // the same label in two positions
      {"ii,i->i", {{1, 1}, {3}}},                  // a diagonal of size 1
      {"bij,bjk->bik", {{2, 2, 3}, {2, 1, 5}}},    // contracted, batched
  };
  for (const Case &c : cases) {
    std::vector<Array> xs;
    double start = 1;
    for (const Shape &s : c.shapes) {
      xs.push_back(iota(s, start));
      start += 7;
    }
    EXPECT_EQ(jnp::einsum(c.spec, xs).to_vector<double>(), loop_einsum(c.spec, xs)) << c.spec;
  }
  // A size-1 label against size 0 is empty; an ellipsis dim of size 1 broadcasts too.
  EXPECT_EQ(jnp::einsum("ij,jk->ik", jnp::ones({2, 1}), jnp::ones({0, 3})).to_vector<double>(),
            std::vector<double>(6, 0.0));
  Array e = jnp::einsum("...ij,...jk->...ik", iota({1, 2, 3}), iota({4, 3, 5}));
  EXPECT_EQ(e.shape(), (Shape{4, 2, 5}));
  EXPECT_EQ(e.to_vector<double>(), loop_einsum("bij,bjk->bik", {iota({1, 2, 3}), iota({4, 3, 5})}));
  // Under jit the same graph is traced.
  auto f = jx::jit([](const Array &x, const Array &y) { return jnp::einsum("ij,jk->ik", x, y); });
  EXPECT_EQ(f(a, b).to_vector<double>(), jnp::einsum("ij,jk->ik", a, b).to_vector<double>());
}

TEST(Api, MatmulDotTensordotShapes) {
  EXPECT_EQ(jnp::matmul(jnp::ones({3}), jnp::ones({3})).shape(), (Shape{}));
  EXPECT_EQ(jnp::matmul(jnp::ones({3}), jnp::ones({3, 4})).shape(), (Shape{4}));
  EXPECT_EQ(jnp::matmul(jnp::ones({5, 1, 2, 3}), jnp::ones({4, 3, 6})).shape(),
            (Shape{5, 4, 2, 6}));
  EXPECT_EQ(jnp::dot(jnp::ones({2, 3, 4}), jnp::ones({5, 4, 6})).shape(), (Shape{2, 3, 5, 6}));
  EXPECT_EQ(jnp::dot(jnp::ones({2, 3, 4}), jnp::ones({4})).shape(), (Shape{2, 3}));
  EXPECT_EQ(jnp::tensordot(jnp::ones({2, 3, 4}), jnp::ones({3, 4, 5})).shape(), (Shape{2, 5}));
  EXPECT_EQ(jnp::tensordot(jnp::ones({2, 3, 4}), jnp::ones({3, 4, 5}), 0).shape(),
            (Shape{2, 3, 4, 3, 4, 5}));
  EXPECT_EQ(jnp::vdot(jnp::arange(3.0), jnp::arange(3.0)).item<double>(), 5);
  EXPECT_EQ(jnp::outer(jnp::arange(2.0), jnp::arange(3.0)).shape(), (Shape{2, 3}));
  EXPECT_EQ(jnp::dot(2.0, jnp::arange(3.0)).to_vector<double>(), (std::vector<double>{0, 2, 4}));
  // A repeated axis is NumPy's transpose error (the backends disagreed on it; API fuzzer).
  EXPECT_THROW(jnp::tensordot(jnp::ones({5}), jnp::ones({1, 5, 5}), {{-1, -1}, {-1, 2}}),
               jx::ValueError);
  EXPECT_THROW(jnp::tensordot(jnp::ones({5, 5}), jnp::ones({5}), {{0, 1}, {0, 0}}), jx::ValueError);
}

TEST(Api, SimpsonVariantsAgree) {
  // The seed's two funcN variants agree (small N to keep the test fast). Not bit for bit: one
  // kernel may vectorize pow through libmvec (within 4 ulp of libm) where the other stays scalar.
  Array a = jnp::arange(0, 1, 0.25), b = a + 0.05;
  Array x = jnp::linspace(a, b, 9);
  Array stacked = seeds::funcN(x, 20), broadcast = seeds::funcN_broadcast(x, 20);
  EXPECT_EQ(stacked.shape(), broadcast.shape());
  // Values are in [0, 1]: an absolute bound of a few ulp of 1.
  EXPECT_LE(jnp::max(jnp::abs(stacked - broadcast)).item<double>(), 1e-15);
  auto f = [](const Array &y) { return seeds::funcN(y, 20); };
  auto g = [](const Array &y) { return seeds::funcN_broadcast(y, 20); };
  Array sf = seeds::simps(f, a, b, 8), sg = seeds::simps(g, a, b, 8);
  EXPECT_LE(jnp::max(jnp::abs(sf - sg) / jnp::abs(sg)).item<double>(), 1e-15);
}

TEST(Api, SaveLoadRoundTrip) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("jx_api_roundtrip_" + std::to_string(::getpid()) + ".npy"))
                         .string();
  for (jx::DType t : {jnp::bool_, jnp::int32, jnp::int64, jnp::float32, jnp::float64}) {
    Array x = (jnp::arange(6) - 2).reshape({2, 3}).astype(t);
    jnp::save(path, x);
    Array y = jnp::load(path);
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.to_vector<double>(), x.to_vector<double>());
  }
  std::filesystem::remove(path);
}

TEST(Api, DeepChainsEvaluate) {
  Array x = jnp::zeros({3});
  for (int i = 0; i < 100000; ++i)
    x = x + 1;
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{100000, 100000, 100000}));
}

// The op table's new functions promote as jnp (with jx's default float for integers and bools).
TEST(Api, MathFunctionDTypes) {
  const Array i32 = jnp::arange(4, jnp::int32), i64 = jnp::arange(4), b = i64 > 1;
  const Array f32 = jnp::arange(4, jnp::float32);
  EXPECT_EQ(jnp::arctan2(i32, i32).dtype(), jx::float64);
  EXPECT_EQ(jnp::arctan2(f32, f32).dtype(), jx::float32);
  EXPECT_EQ(jnp::hypot(f32, 2.0).dtype(), jx::float32); // a weak scalar keeps float32
  EXPECT_EQ(jnp::nextafter(i64, i64).dtype(), jx::float64);
  EXPECT_EQ(jnp::copysign(b, b).dtype(), jx::float64);
  EXPECT_EQ(jnp::logaddexp(i32, f32).dtype(), jx::float64);
  EXPECT_EQ(jnp::sinh(b).dtype(), jx::float64);
  EXPECT_EQ(jx::scipy::special::erf(f32).dtype(), jx::float32);
  EXPECT_EQ(jnp::fmod(i32, i32).dtype(), jx::int32);
  EXPECT_EQ(jnp::fmod(b, b).dtype(), jx::int64);
  EXPECT_EQ(jnp::round(i32).dtype(), jx::int32);
  EXPECT_EQ(jnp::round(f32, 2).dtype(), jx::float32);
  EXPECT_EQ(jnp::clip(i64, 1).dtype(), jx::int64);
  EXPECT_EQ(jnp::clip(i64, 1, 2.5).dtype(), jx::float64);
  EXPECT_EQ(jnp::clip(i64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(jnp::clip(i64, std::nullopt, 1).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 1, 1}));
}

// logaddexp stays finite where exp overflows, and is exact at equal infinities (as jnp).
TEST(Api, LogaddexpIsStable) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> got =
      jnp::logaddexp(jnp::array({1000.0, -1000.0, inf, -inf, inf, -inf}),
                     jnp::array({1000.0, -1001.0, inf, -inf, -inf, 3.0}))
          .to_vector<double>();
  EXPECT_DOUBLE_EQ(got[0], 1000 + std::log(2.0));
  EXPECT_DOUBLE_EQ(got[1], -1000 + std::log1p(std::exp(-1.0)));
  EXPECT_EQ(got[2], inf);
  EXPECT_EQ(got[3], -inf);
  EXPECT_EQ(got[4], inf);
  EXPECT_EQ(got[5], 3.0);
}

// float16 and bfloat16 step to their own neighbours (NumPy's and JAX's), eagerly and compiled:
// stepping in float32 and rounding back gave nextafter(1, 2) == 1 and spacing(1) == 0.
TEST(Api, NextafterAndSpacingOfSixteenBitFloats) {
  const double inf = std::numeric_limits<double>::infinity();
  auto after = [](double x, double y, jx::DType t) {
    return jnp::nextafter(jnp::array(x, t), jnp::array(y, t)).astype(jx::float64).item<double>();
  };
  auto spacing = [](double x, jx::DType t) {
    return jnp::spacing(jnp::array(x, t)).astype(jx::float64).item<double>();
  };
  EXPECT_EQ(after(1, 2, jx::float16), 1 + 0x1p-10);
  EXPECT_EQ(after(1, 0, jx::float16), 1 - 0x1p-11);
  EXPECT_EQ(after(-1, 0, jx::float16), -1 + 0x1p-11);
  EXPECT_EQ(after(0, -1, jx::float16), -0x1p-24);
  EXPECT_EQ(after(0x1p-14, 0, jx::float16), 0x1p-14 - 0x1p-24); // into the subnormals
  EXPECT_EQ(after(65504, inf, jx::float16), inf);
  EXPECT_EQ(after(inf, 0, jx::float16), 65504);
  EXPECT_EQ(after(1, 1, jx::float16), 1);
  EXPECT_TRUE(std::isnan(after(1, std::nan(""), jx::float16)));
  EXPECT_EQ(after(1, 2, jx::bfloat16), 1 + 0x1p-7);
  EXPECT_EQ(after(1, 0, jx::bfloat16), 1 - 0x1p-8);
  EXPECT_EQ(after(0, 1, jx::bfloat16), 0x1p-133);
  const double negative_zero = after(-0x1p-133, 0, jx::bfloat16);
  EXPECT_TRUE(negative_zero == 0 && std::signbit(negative_zero));
  EXPECT_EQ(spacing(1, jx::float16), 0x1p-10);
  EXPECT_EQ(spacing(-1, jx::float16), -0x1p-10);
  EXPECT_EQ(spacing(0, jx::float16), 0x1p-24);
  EXPECT_EQ(spacing(65504, jx::float16), inf);
  EXPECT_EQ(spacing(1, jx::bfloat16), 0x1p-7);
  auto stepped = jx::jit([](const Array &x) { return jnp::nextafter(x, 2.0); });
  EXPECT_EQ(stepped(jnp::array(1.0, jx::float16)).astype(jx::float64).item<double>(), 1 + 0x1p-10);
  EXPECT_EQ(after(1, 2, jx::float32), 1 + 0x1p-23);
}
