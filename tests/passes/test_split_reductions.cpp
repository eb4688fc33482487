// split_reductions: large reductions to a few values, or over leading axes, become 16 partials
// and their combination.
#include <gtest/gtest.h>

#include <cmath>

#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/passes.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
namespace ir = jx::ir;

NodePtr values(jx::Shape shape) {
  std::vector<double> v(size_t(jx::shape_size(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(double(i)) * 3;
  return pass_test::vec<double>(v, shape);
}

NodePtr split(const NodePtr &n) { return jx::passes::split_reductions({n})[0]; }

TEST(SplitReductions, FullSumBecomesSixteenPartials) {
  NodePtr x = values({256, 512});
  NodePtr s = ir::reduce(Op::ReduceSum, x, {0, 1});
  NodePtr out = split(s);
  ASSERT_EQ(out->op, Op::ReduceSum);
  EXPECT_EQ(out->attrs, std::vector<int64_t>{0});
  EXPECT_EQ(out->inputs[0]->shape, jx::Shape{16});
  const double a = jx::interp::evaluate({s})[0]->as<double>()[0],
               b = jx::interp::evaluate({out})[0]->as<double>()[0];
  EXPECT_NEAR(a, b, 1e-9 * std::abs(a) + 1e-9);
}

TEST(SplitReductions, InnerAxisReductionKeepsOuterAxes) {
  // (4, 32768) summed over axis 1: four values, each from 16 partials.
  NodePtr x = values({4, 32768});
  NodePtr s = ir::reduce(Op::ReduceMax, x, {1});
  NodePtr out = split(s);
  EXPECT_EQ(out->inputs[0]->shape, (jx::Shape{4, 16}));
  pass_test::expect_identical(out, s); // max does not depend on the order
}

TEST(SplitReductions, LeadingAxisReductionReadsBlocksOfRows) {
  // sum(x, 0) of (2048, 64): 16 partial rows over blocks of 128 whole rows, then their sum.
  NodePtr x = values({2048, 64});
  NodePtr s = ir::reduce(Op::ReduceSum, x, {0});
  NodePtr out = split(s);
  ASSERT_EQ(out->op, Op::ReduceSum);
  EXPECT_EQ(out->attrs, std::vector<int64_t>{0});
  EXPECT_EQ(out->inputs[0]->shape, (jx::Shape{16, 64}));
  EXPECT_EQ(out->inputs[0]->attrs, std::vector<int64_t>{1});
  const auto a = jx::interp::evaluate({s})[0], b = jx::interp::evaluate({out})[0];
  for (size_t i = 0; i < 64; ++i)
    EXPECT_NEAR(a->as<double>()[i], b->as<double>()[i], 1e-12 * 2048 * 3);
  NodePtr m = ir::reduce(Op::ReduceMin, x, {0});
  pass_test::expect_identical(split(m), m); // min does not depend on the order
}

TEST(SplitReductions, SmallOrManyOutputsOrIndivisibleStay) {
  NodePtr small = ir::reduce(Op::ReduceSum, values({64, 64}), {0, 1});
  EXPECT_EQ(split(small), small);
  NodePtr many = ir::reduce(Op::ReduceSum, values({256, 512}), {1});
  EXPECT_EQ(split(many), many);
  NodePtr odd_rows = ir::reduce(Op::ReduceSum, values({1025, 256}), {0});
  EXPECT_EQ(split(odd_rows), odd_rows);
  // Wide and short: 16 partials of 2 rows each would cost more than one pass.
  NodePtr short_rows = ir::reduce(Op::ReduceSum, values({32, 4096}), {0});
  EXPECT_EQ(split(short_rows), short_rows);
  NodePtr odd = ir::reduce(Op::ReduceSum, values({65537}), {0});
  EXPECT_EQ(split(odd), odd);
  NodePtr arg = ir::arg_reduce(Op::ArgMax, values({65536}), 0);
  EXPECT_EQ(split(arg), arg);
}

} // namespace

namespace {

TEST(SplitReductions, RankSixtyFourStays) {
  // The split adds an axis: at the maximum rank it would build an invalid node (a ValueError from
  // the compiler for a valid jnp.sum).
  jx::Shape shape(jx::max_rank, 1);
  shape[0] = 256;
  shape[1] = 256;
  NodePtr s = ir::reduce(Op::ReduceSum, values(shape), {0, 1});
  EXPECT_EQ(split(s), s);
}

} // namespace
