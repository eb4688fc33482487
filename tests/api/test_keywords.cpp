// Keyword arguments as options structs (issue 32): the keyword forms mean what NumPy's keywords
// mean, the positional forms that stay mean what NumPy's positionals mean, and NumPy's where= and
// initial= on the reductions (values worked by hand, errors as JAX's). That the removed
// positional forms do not compile is tests/compile_fail's business.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace la = jx::numpy::linalg;
namespace nn = jx::nn;
using jx::Array;
using jx::Shape;
using test_util::expect_error;
using D = std::vector<double>;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// [[1, 2, 3], [4, 6, 8]]
Array rows() { return jnp::array({1.0, 2.0, 3.0, 4.0, 6.0, 8.0}, Shape{2, 3}); }
Array mask(std::initializer_list<bool> values, Shape shape) {
  return jnp::array(std::vector<bool>(values), shape);
}

void expect_near(const Array &a, const D &expected, double tol = 1e-12) {
  const D got = a.to_vector<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    else
      EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
  }
}

TEST(Keywords, StdWithKeepdimsHasNumpysShapeAndValues) {
  // np.std(x, axis=-1, keepdims=True): the reduced axis kept, ddof 0.
  const Array s = jnp::std(rows(), {.axis = -1, .ddof = 0, .keepdims = true});
  EXPECT_EQ(s.shape(), (Shape{2, 1}));
  expect_near(s, {std::sqrt(2.0 / 3), std::sqrt(8.0 / 3)});
  // ddof 1: sums of squares 2 and 8 over 2.
  expect_near(jnp::std(rows(), {.axis = -1, .ddof = 1}), {1.0, 2.0});
  expect_near(jnp::var(rows(), {.axis = 0, .ddof = 1}), {4.5, 8.0, 12.5});
}

TEST(Keywords, PositionalFormsKeepNumpysMeaning) {
  const Array x = rows();
  EXPECT_EQ(jnp::sum(x).item<double>(), 24.0);
  expect_near(jnp::sum(x, 0), {5, 8, 11});
  expect_near(jnp::sum(x, {0, 1}), {24});
  expect_near(jnp::mean(x, -1), {2, 6});
  EXPECT_EQ(jnp::linspace(0, 1, 50).shape(), (Shape{50}));
  expect_near(jnp::linspace(0, 1, 5, false), {0, 0.2, 0.4, 0.6, 0.8});
  expect_near(jnp::cumsum(x, 0), {1, 2, 3, 5, 8, 11});
  expect_near(jnp::sort(jnp::array({3.0, 1.0, 2.0}), -1), {1, 2, 3});
  expect_near(jnp::std(x, 1), {std::sqrt(2.0 / 3), std::sqrt(8.0 / 3)});
}

TEST(Keywords, KeywordFormsMatchNumpysKeywords) {
  const Array x = rows();
  EXPECT_EQ(jnp::sum(x, {.axis = {0, 1}, .keepdims = true}).shape(), (Shape{1, 1}));
  EXPECT_EQ(jnp::mean(x, {.keepdims = true}).shape(), (Shape{1, 1}));
  EXPECT_EQ(jnp::argmax(x, {.axis = 1, .keepdims = true}).shape(), (Shape{2, 1}));
  EXPECT_EQ(jnp::median(x, {.axis = 0, .keepdims = true}).shape(), (Shape{1, 3}));
  EXPECT_EQ(jnp::quantile(x, 0.5, {.axis = 1, .method = "lower", .keepdims = true}).shape(),
            (Shape{2, 1}));
  expect_near(jnp::quantile(x, 0.5, {.axis = 1, .method = "higher"}), {2, 6});
  // linspace(0, 1, 3, axis=...) of (2,) bounds: the new axis last.
  EXPECT_EQ(jnp::linspace(jnp::zeros({2}), jnp::ones({2}), {.num = 3, .axis = -1}).shape(),
            (Shape{2, 3}));
  EXPECT_EQ(jnp::linspace(0, 10, {.num = 3, .dtype = jnp::int32}).dtype(), jnp::int32);
  expect_near(jnp::logspace(0, 3, {.num = 4, .base = 2.0}), {1, 2, 4, 8});
  expect_near(jnp::eye(3, {.k = 1}), {0, 1, 0, 0, 0, 1, 0, 0, 0});
  expect_near(jnp::sort(jnp::array({3.0, 1.0, 2.0}), {.descending = true}), {3, 2, 1});
  EXPECT_EQ(jnp::argsort(jnp::array({3.0, 1.0, 2.0}), {.descending = true}).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 2, 1}));
  expect_near(jnp::cumulative_sum(jnp::array({1.0, 2.0, 3.0}), {.include_initial = true}),
              {0, 1, 3, 6});
  EXPECT_EQ(jnp::isin(jnp::array({1, 2, 3}), jnp::array({2}), {.invert = true}).to_vector<bool>(),
            (std::vector<bool>{true, false, true}));
  expect_near(jnp::nan_to_num(jnp::array({nan, 1.0}), {.nan = -1.0}), {-1, 1});
  expect_near(jnp::clip(jnp::array({-2.0, 0.5, 2.0}), {.max = 1.0}), {-2, 0.5, 1});
  expect_near(jnp::diff(rows(), {.axis = 0}), {3, 4, 5});
  expect_near(jnp::gradient(rows(), {.spacing = 0.5, .axis = 0})[0], {6, 8, 10, 6, 8, 10});
  expect_near(jnp::pad(jnp::array({1.0}), 1, {.constant_values = 7}), {7, 1, 7});
  expect_near(jnp::take(jnp::array({1.0, 2.0, 3.0}), jnp::array({5}), {.mode = "clip"}), {3});
  expect_near(jnp::unique(jnp::array({2.0, 1.0, 2.0}), {.size = 3, .fill_value = 0.0}), {1, 2, 0});
  EXPECT_EQ(
      jnp::nonzero(jnp::array({0, 1, 1}), {.size = 3, .fill_value = -1})[0].to_vector<int64_t>(),
      (std::vector<int64_t>{1, 2, -1}));
  expect_near(jnp::vecdot(rows(), rows(), {.axis = 0}), {17, 40, 73});
  expect_near(la::trace(jnp::eye(3), {.offset = 1}), {0});
  expect_near(la::vector_norm(rows(), {.axis = 1, .ord = 1}), {6, 18});
  expect_near(nn::logsumexp(jnp::zeros({2, 2}), {.axis = 1, .keepdims = true}),
              {std::log(2.0), std::log(2.0)});
  // histogram(a, bins=2, range=(0, 2), density=True): counts 1 and 3 over width 1 and total 4.
  const auto [density, edges] =
      jnp::histogram(jnp::array({0.5, 1.5, 1.5, 1.5}),
                     {.bins = int64_t(2), .range = jnp::Range{0, 2}, .density = true});
  expect_near(density, {0.25, 0.75});
  expect_near(edges, {0, 1, 2});
}

TEST(Keywords, CrossAxisStandsForAllThree) {
  // np.cross(a, b, axis=0) is np.cross(a, b, axisa=0, axisb=0, axisc=0).
  const Array a = jnp::array({1.0, 0.0, 0.0, 1.0, 0.0, 0.0}, Shape{3, 2}); // columns e1, e2
  const Array b = jnp::array({0.0, 0.0, 1.0, 0.0, 0.0, 1.0}, Shape{3, 2}); // columns e2, e3
  const Array c = jnp::cross(a, b, {.axis = 0});
  EXPECT_EQ(c.shape(), (Shape{3, 2}));
  // e1 x e2 = e3, e2 x e3 = e1: columns (0, 0, 1) and (1, 0, 0).
  expect_near(c, {0, 1, 0, 0, 1, 0});
  expect_near(c, jnp::cross(a, b, 0, 0, 0).to_vector<double>());
  expect_near(la::cross(jnp::transpose(a), jnp::transpose(b), {.axis = -1}),
              jnp::transpose(c).to_vector<double>());
}

// ---- where= and initial= ----

TEST(ReductionWhere, SumLeavesOutMaskedElements) {
  const Array x = rows();
  const Array m = mask({true, false, true, false, true, true}, {2, 3});
  expect_near(jnp::sum(x, {.axis = 1, .where = m}), {4, 14});
  expect_near(jnp::sum(x, {.where = m}), {18});
  // The mask broadcasts to x's shape: (3,) along the rows.
  expect_near(jnp::sum(x, {.axis = 0, .where = mask({true, false, true}, {3})}), {5, 0, 11});
  EXPECT_EQ(jnp::sum(x, {.axis = 0, .keepdims = true, .where = m}).shape(), (Shape{1, 3}));
  // A scalar mask keeps or drops everything.
  expect_near(jnp::sum(x, {.where = Array(false)}), {0});
  expect_near(jnp::prod(x, {.axis = 1, .where = m}), {3, 48});
  // Integer sums accumulate in int64 (as without a mask).
  const Array i = jnp::array<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Array si = jnp::sum(i, {.axis = 1, .where = m});
  EXPECT_EQ(si.dtype(), jnp::int64);
  EXPECT_EQ(si.to_vector<int64_t>(), (std::vector<int64_t>{4, 11}));
}

TEST(ReductionWhere, NonzeroMasksAreTrue) {
  // JAX's truthiness: a numeric mask selects its nonzero elements.
  expect_near(jnp::sum(rows(), {.axis = 1, .where = jnp::array({2, 0, -1})}), {4, 12});
}

TEST(ReductionWhere, MeanCountsOnlyKeptElements) {
  const Array x = rows();
  const Array m = mask({true, false, true, false, true, true}, {2, 3});
  expect_near(jnp::mean(x, {.axis = 1, .where = m}), {2, 7});
  expect_near(jnp::mean(x, {.where = m}), {18.0 / 4});
  // Nothing kept: 0 / 0.
  expect_near(
      jnp::mean(x, {.axis = 1, .where = mask({false, false, false, true, true, true}, {2, 3})}),
      {nan, 6});
  // Integers average in float64.
  const Array mi = jnp::mean(jnp::array({1, 2, 4}), {.where = mask({true, false, true}, {3})});
  EXPECT_EQ(mi.dtype(), jnp::float64);
  EXPECT_EQ(mi.item<double>(), 2.5);
  // float32 stays float32.
  const Array mf = jnp::mean(rows().astype(jnp::float32), {.axis = 1, .where = m});
  EXPECT_EQ(mf.dtype(), jnp::float32);
  expect_near(mf, {2, 7});
}

TEST(ReductionWhere, VarianceOverKeptElements) {
  const Array x = rows();
  // Row 0 keeps 1 and 3 (mean 2), row 1 keeps 6 and 8 (mean 7).
  const Array m = mask({true, false, true, false, true, true}, {2, 3});
  expect_near(jnp::var(x, {.axis = 1, .where = m}), {1, 1});
  expect_near(jnp::var(x, {.axis = 1, .ddof = 1, .where = m}), {2, 2});
  expect_near(jnp::std(x, {.axis = 1, .ddof = 1, .keepdims = true, .where = m}),
              {std::sqrt(2.0), std::sqrt(2.0)});
  EXPECT_EQ(jnp::std(x, {.axis = 1, .keepdims = true, .where = m}).shape(), (Shape{2, 1}));
  // One element kept and ddof 1: 0 / max(1 - 1, 0) is NaN (NumPy's, with its warning).
  expect_near(
      jnp::var(
          x, {.axis = 1, .ddof = 1, .where = mask({true, false, false, true, true, true}, {2, 3})}),
      {nan, 4});
  // Over everything: 1, 3, 6, 8 (mean 4.5).
  expect_near(jnp::var(x, {.where = m}), {(3.5 * 3.5 + 1.5 * 1.5 + 1.5 * 1.5 + 3.5 * 3.5) / 4});
}

TEST(ReductionWhere, MaxAndMinNeedInitial) {
  const Array x = rows();
  const Array m = mask({true, false, false, false, false, false}, {2, 3});
  expect_error<jx::ValueError>([&] { jnp::max(x, {.axis = 1, .where = m}); },
                               "reduction operation max does not have an identity, so to use a "
                               "where mask one has to specify 'initial'");
  expect_error<jx::ValueError>([&] { jnp::amin(x, {.where = m}); },
                               "reduction operation min does not have an identity");
  // Row 1 keeps nothing: initial.
  expect_near(jnp::max(x, {.axis = 1, .initial = 0.0, .where = m}), {1, 0});
  expect_near(jnp::min(x, {.axis = 1, .initial = 10.0, .where = m}), {1, 10});
  expect_near(jnp::max(x, {.axis = 1,
                           .initial = -1.0,
                           .where = mask({true, true, false, false, true, true}, {2, 3})}),
              {2, 8});
  // Integers: the identity is the dtype's lowest (highest) value, never seen.
  const Array i = jnp::array<int32_t>({-5, -7, 2, 3, 4, 9}, Shape{2, 3});
  const Array mi = jnp::max(i, {.axis = 1, .initial = -100, .where = m});
  EXPECT_EQ(mi.dtype(), jnp::int32);
  EXPECT_EQ(mi.to_vector<int32_t>(), (std::vector<int32_t>{-5, -100}));
  // A masked-out NaN is left out; a kept one propagates.
  const Array n = jnp::array({nan, 1.0, 2.0});
  expect_near(jnp::max(n, {.initial = 0.0, .where = mask({false, true, true}, {3})}), {2});
  expect_near(jnp::max(n, {.initial = 0.0, .where = mask({true, true, true}, {3})}), {nan});
}

TEST(ReductionWhere, InitialJoinsEverySlice) {
  const Array x = rows();
  expect_near(jnp::max(x, {.axis = 1, .initial = 5.0}), {5, 8});
  expect_near(jnp::min(x, {.axis = 0, .initial = 2.0}), {1, 2, 2});
  expect_near(jnp::sum(x, {.initial = 10}), {34});
  expect_near(jnp::prod(x, {.axis = 1, .initial = 2}), {12, 384});
  // An empty max with initial is initial (without it, NumPy's zero-size error).
  expect_near(jnp::max(jnp::zeros({0}), {.initial = 3.0}), {3});
  EXPECT_EQ(jnp::max(jnp::zeros({2, 0}), {.axis = 1, .initial = 3.0}).shape(), (Shape{2}));
  expect_error<jx::ValueError>(
      [] { jnp::max(jnp::zeros({0})); },
      "zero-size array to reduction operation maximum which has no identity");
  // The initial value takes the reduction's dtype (int64 for an int32 sum).
  const Array s = jnp::sum(jnp::array<int32_t>({1, 2}), {.initial = 2.9});
  EXPECT_EQ(s.dtype(), jnp::int64);
  EXPECT_EQ(s.item<int64_t>(), 5);
  expect_error<jx::ValueError>([&] { jnp::sum(x, {.initial = jnp::ones({2})}); },
                               "initial value must be a scalar. Got array of shape (2,)");
}

TEST(ReductionWhere, AnyAndAllOverKeptElements) {
  const Array b = mask({true, false, true}, {3});
  EXPECT_TRUE(jnp::all(b, {.where = mask({true, false, true}, {3})}).item<bool>());
  EXPECT_FALSE(
      jnp::any(jnp::logical_not(b), {.where = mask({true, false, true}, {3})}).item<bool>());
  // Nothing kept: all is true, any false (their identities).
  EXPECT_TRUE(jnp::all(jnp::zeros({3}), {.where = Array(false)}).item<bool>());
  EXPECT_FALSE(jnp::any(jnp::ones({3}), {.where = Array(false)}).item<bool>());
  const Array m2 = mask({true, true, false, false, false, true}, {2, 3});
  EXPECT_EQ(jnp::all(rows() > 1.5, {.axis = 1, .where = m2}).to_vector<bool>(),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(jnp::any(rows() > 7.5, {.axis = 1, .keepdims = true, .where = m2}).shape(),
            (Shape{2, 1}));
}

TEST(ReductionWhere, NanReductions) {
  const Array x = jnp::array({1.0, nan, 3.0, 5.0});
  const Array m = mask({true, true, false, true}, {4});
  expect_near(jnp::nansum(x, {.where = m}), {6});
  expect_near(jnp::nanprod(x, {.where = m}), {5});
  expect_near(jnp::nanmean(x, {.where = m}), {3});
  // Kept: 1 and 5 (mean 3).
  expect_near(jnp::nanvar(x, {.where = m}), {4});
  expect_near(jnp::nanstd(x, {.ddof = 1, .where = m}), {std::sqrt(8.0)});
  expect_near(jnp::nanmax(x, {.initial = 0.0, .where = m}), {5});
  expect_near(jnp::nanmin(x, {.initial = 0.0, .where = m}), {0});
  expect_error<jx::ValueError>([&] { jnp::nanmax(x, {.where = m}); },
                               "reduction operation max does not have an identity");
  // An all-NaN slice: NaN without initial, initial with it (JAX's).
  const Array all_nan = jnp::array({nan, nan});
  expect_near(jnp::nanmax(all_nan), {nan});
  expect_near(jnp::nanmax(all_nan, {.initial = -1.0}), {-1});
}

TEST(ReductionWhere, MaskMustBroadcastToTheOperand) {
  // The mask never widens the operand (NumPy's): (2, 3) against a (4, 3) mask raises.
  expect_error<jx::ValueError>(
      [] {
        jnp::sum(rows(), {.where = jnp::ones({4, 3}) > 0});
      },
      "Incompatible shapes for broadcasting: (4, 3) and requested shape "
      "(2, 3)");
  expect_error<jx::ValueError>([] { jnp::mean(rows(), {.where = jnp::ones({2}) > 0}); },
                               "Incompatible shapes for broadcasting");
}

TEST(ReductionWhere, UnderJitVmapAndGrad) {
  const Array m = mask({true, false, true, false, true, true}, {2, 3});
  auto masked_mean = [](const Array &x, const Array &w) {
    return jnp::mean(x, {.axis = 1, .where = w});
  };
  expect_near(jx::jit(masked_mean)(rows(), m), {2, 7});
  // Mapped over the rows, each row with its own mask: the rows' masked means.
  auto row_mean = [](const Array &row, const Array &w) { return jnp::mean(row, {.where = w}); };
  expect_near(jx::vmap(row_mean)(rows(), m), {2, 7});
  // d/dx sum(x^2 where m) = 2x where m, 0 elsewhere.
  auto masked_squares = [&](const Array &x) { return jnp::sum(x * x, {.where = m}); };
  expect_near(jx::grad(masked_squares)(rows()), {2, 0, 6, 0, 12, 16});
}

} // namespace
