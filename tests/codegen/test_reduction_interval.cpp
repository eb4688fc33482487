// Reductions whose terms outside an index interval are the identity loop over the interval alone
// (passes::reduction_interval): which masks are intervals, and the compiled sums, products,
// extremes and dot products against the reference evaluator for intervals inside, across, outside
// and beyond the axis, empty and reversed ones, and non-finite values outside.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "api/internal.h"
#include "backends_agree.h"
#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/reduction_interval.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;

const double inf = std::numeric_limits<double>::infinity();

// Compiled against evaluated: equal for integers, extremes and products of few terms; sums within
// their rounding (the interval's lanes start at its first term).
void expect_agree(const Array &x, double rtol) {
  const std::vector<double> a = test_util::as_doubles(
      jx::api::evaluate_with(jx::api::Backend::Interpreter, x.node()), x.dtype(), x.size());
  const std::vector<double> b = test_util::as_doubles(
      jx::api::evaluate_with(jx::api::Backend::Compiler, x.node()), x.dtype(), x.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isinf(a[i])) {
      EXPECT_TRUE(std::isnan(a[i]) ? std::isnan(b[i]) : a[i] == b[i]) << i << ": " << b[i];
      continue;
    }
    EXPECT_NEAR(a[i], b[i], rtol * (1 + std::abs(a[i]))) << "element " << i;
  }
}

// r's graph as the compiler sees it (arange's start and step simplified away), over parameters;
// a dot product of vectors is a (1, n) x (n, 1) product reshaped.
std::optional<jx::passes::ReductionInterval> interval(const Array &r) {
  jx::ir::NodePtr n = jx::passes::simplify({r.node()})[0];
  if (n->op == jx::ir::Op::Reshape) n = n->inputs[0];
  return jx::passes::reduction_interval(*n);
}
Array parameter(int64_t position, jx::DType type, jx::Shape shape) {
  return jx::api::wrap(jx::ir::parameter(position, type, std::move(shape)));
}

TEST(ReductionInterval, MasksComparingTheIndexWithValuesAlongOtherAxesAreIntervals) {
  const Array x = parameter(0, jx::float64, {4, 50}), lo = parameter(1, jx::int64, {}),
              hi = parameter(2, jx::int64, {});
  const Array i = jnp::arange(50);
  // lo <= i < hi, i > lo, i <= hi; per row: i < the row's own bound.
  const auto both = interval(jnp::sum(jnp::where((i >= lo) & (i < hi), x, 0.0), 1));
  ASSERT_TRUE(both);
  ASSERT_EQ(both->lower.size(), 1u);
  ASSERT_EQ(both->upper.size(), 1u);
  EXPECT_EQ(both->lower[0].offset, 0);
  EXPECT_EQ(both->upper[0].offset, 0);
  const auto open = interval(jnp::sum(jnp::where((lo < i) & (i <= hi), x, 0.0), 1));
  ASSERT_TRUE(open);
  EXPECT_EQ(open->lower[0].offset, 1);
  EXPECT_EQ(open->upper[0].offset, 1);
  const Array rows = jnp::arange(4).reshape({4, 1}) * 10;
  EXPECT_TRUE(interval(jnp::sum(jnp::where(i < rows, x, 0.0), 1)));
  EXPECT_TRUE(interval(jnp::max(jnp::where(i < hi, x, -inf), 1)));
  EXPECT_TRUE(interval(jnp::prod(jnp::where(i >= lo, x, 1.0), 1)));
  EXPECT_TRUE(interval(jnp::sum(jnp::where(i < hi, x.astype(jx::int64), 0), 1)));
  // Along the first axis, under the mask's broadcast.
  EXPECT_TRUE(interval(jnp::sum(jnp::where(jnp::arange(4).reshape({4, 1}) < hi, x, 0.0), 0)));
}

TEST(ReductionInterval, OtherMasksAreNot) {
  const Array x = parameter(0, jx::float64, {4, 50}), hi = parameter(1, jx::int64, {});
  const Array i = jnp::arange(50), rows = jnp::arange(4).reshape({4, 1});
  // A bound along the reduced axis, a mask on the kept axis, a union, an identity that is not
  // one, a float index, a reduction over two axes, a one-element mask broadcast along the axis.
  EXPECT_FALSE(interval(jnp::sum(jnp::where(i < i * 2 - 5, x, 0.0), 1)));
  EXPECT_FALSE(interval(jnp::sum(jnp::where(rows < 2, x, 0.0), 1)));
  EXPECT_FALSE(interval(jnp::sum(jnp::where((i < 3) | (i > 40), x, 0.0), 1)));
  EXPECT_FALSE(interval(jnp::sum(jnp::where(i < hi, x, 1.0), 1)));
  EXPECT_FALSE(interval(jnp::sum(jnp::where(jnp::arange(50.0) < 9.5, x, 0.0), 1)));
  EXPECT_FALSE(interval(jnp::sum(jnp::where(i < hi, x, 0.0))));
  EXPECT_FALSE(interval(jnp::sum(jnp::where(jnp::arange(1) < hi, x, 0.0), 1)));
  // A float dot product whose other operand varies outside the mask: its 0 * inf there is NaN.
  const Array v = parameter(2, jx::float64, {50});
  EXPECT_FALSE(interval(jnp::dot(jnp::where(i < hi, v, 0.0), v)));
  const Array mask = i < hi;
  const auto gathered = interval(jnp::dot(jnp::where(mask, v, 0.0), v(jnp::where(mask, i, 0))));
  ASSERT_TRUE(gathered);
  EXPECT_TRUE(gathered->complement_term);
}

TEST(ReductionInterval, SumsProductsAndExtremesOverTracedIntervalsMatchTheEvaluator) {
  const int64_t n = 1000;
  const Array i = jnp::arange(n);
  // Exact values (no libm): the reductions alone may differ.
  const Array x = (jnp::arange(double(n)) * 37.0 % 1000.0 - 500.0) / 8.0;
  const std::vector<std::pair<int64_t, int64_t>> intervals = {
      {0, n},    {3, 9},      {0, 17},  {5, 5},       {9, 3},
      {-40, 30}, {990, 1500}, {-5, -1}, {1200, 1300}, {17, 983}};
  for (const auto &[lo_v, hi_v] : intervals) {
    SCOPED_TRACE(testing::Message() << lo_v << ".." << hi_v);
    const Array lo = jnp::array(lo_v), hi = jnp::array(hi_v);
    const Array mask = (i >= lo) & (i < hi);
    expect_agree(jnp::sum(jnp::where(mask, x, 0.0)), 1e-12);
    expect_agree(jnp::sum(jnp::where(mask, x, 0.0).astype(jx::float32)), 1e-6);
    expect_agree(jnp::sum(jnp::where(mask, i * 3, 0)), 0);
    expect_agree(jnp::max(jnp::where(mask, x, -inf)), 0);
    expect_agree(jnp::min(jnp::where(mask, x, inf)), 0);
    expect_agree(jnp::prod(jnp::where(mask & (i < lo + 20), x * 0.1 + 1.0, 1.0)), 1e-12);
    // Rows with bounds of their own, and a short axis (fewer terms than the lanes).
    const Array rows = jnp::arange(5).reshape({5, 1}) * 200 + lo;
    expect_agree(jnp::sum(jnp::where(i < rows, x, 0.0), 1), 1e-12);
    const Array short_mask = (jnp::arange(9) >= lo) & (jnp::arange(9) < hi);
    expect_agree(jnp::sum(jnp::where(short_mask, x(jx::slice(0, 9)), 0.0)), 1e-12);
    // An upper bound of INT64_MAX, inclusive: every index from lo on (past 4,096 elements, so
    // that the mask is not folded into a constant).
    const Array top = jnp::array(std::numeric_limits<int64_t>::max()), wide = jnp::arange(5000);
    expect_agree(jnp::sum(jnp::where((wide >= lo) & (wide <= top), wide * 0.5, 0.0)), 1e-12);
  }
}

TEST(ReductionInterval, MaskedDotProductsKeepTheNaNsOfTheirTermsOutside) {
  const int64_t n = 300;
  const Array i = jnp::arange(n);
  const Array a = jnp::cos(jnp::arange(double(n))), table = jnp::arange(double(n)) * 0.5 + 1.0;
  const Array cols = (i * 37) % n;
  for (const double first : {1.0, inf, std::nan("")}) {
    // The gathered vector's first element is what every term outside reads: inf or NaN there
    // makes the dot product NaN wherever the interval leaves a term out.
    const Array x = table.at(0).set(first);
    for (const auto &[lo_v, hi_v] :
         std::vector<std::pair<int64_t, int64_t>>{{0, n}, {4, 7}, {0, 0}, {290, 400}, {-3, 250}}) {
      SCOPED_TRACE(testing::Message() << first << " " << lo_v << ".." << hi_v);
      const Array mask = (i >= lo_v) & (i < jnp::array(hi_v));
      expect_agree(jnp::dot(jnp::where(mask, a, 0.0), x(jnp::where(mask, cols, 0))), 1e-12);
      expect_agree(jnp::dot(x(jnp::where(mask, cols, 0)), jnp::where(mask, a, 0.0)), 1e-12);
    }
  }
}

TEST(ReductionInterval, RowLoopsOverMaskedNonzerosMatchTheEvaluator) {
  // A CSR matrix times a vector as a loop over rows, each masking its entries out of all of
  // them (spmv as JAX code writes it), the row's sum inside a loop run step by step.
  const int64_t m = 40;
  std::vector<int64_t> starts{0};
  for (int64_t r = 0; r < m; ++r)
    starts.push_back(starts.back() + r % 4);
  const int64_t nnz = starts.back();
  const Array row = jnp::array(starts), k = jnp::arange(nnz);
  const Array col = (k * 7) % m, val = jnp::sin(jnp::arange(double(nnz)));
  const Array x = jnp::arange(double(m)) * 0.25;
  const Array y = lax::fori_loop(
      0, m,
      [&](const Array &r, const Array &y) {
        const Array mask = (k >= row(r)) & (k < row(r + 1));
        return y.at(r).set(jnp::dot(jnp::where(mask, val, 0.0), x(jnp::where(mask, col, 0))));
      },
      jnp::zeros({m}));
  expect_agree(y, 1e-12);
}

} // namespace
