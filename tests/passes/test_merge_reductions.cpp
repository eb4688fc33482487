// merge_reductions: sums of scaled reductions over the same axes become one reduction, unless a
// part is read elsewhere.
#include <gtest/gtest.h>

#include <cmath>

#include "interp/interp.h"
#include "ir/builder.h"
#include "pass_test_util.h"
#include "passes/passes.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
namespace ir = jx::ir;

NodePtr values(jx::Shape shape, double phase) {
  std::vector<double> v(size_t(jx::shape_size(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(double(i) + phase) * 3;
  return pass_test::vec<double>(v, shape);
}

NodePtr sum1(const NodePtr &x) { return ir::reduce(Op::ReduceSum, x, {1}); }

void expect_close(const NodePtr &a, const NodePtr &b) {
  const auto x = jx::interp::evaluate({a})[0], y = jx::interp::evaluate({b})[0];
  for (int64_t i = 0; i < a->size(); ++i)
    EXPECT_NEAR(x->as<double>()[i], y->as<double>()[i], 1e-12 * 64);
}

TEST(MergeReductions, ScaledAndNegatedSumsBecomeOneReduction) {
  // f * sum(a, 1) - sum(b, 1) + sum(c, 1) over (5, 7, 3), f of the kept axes (5, 3).
  const NodePtr a = values({5, 7, 3}, 0), b = values({5, 7, 3}, 1), c = values({5, 7, 3}, 2);
  const NodePtr f = values({5, 3}, 3);
  const NodePtr e =
      ir::binary(Op::Add, ir::binary(Op::Sub, ir::binary(Op::Mul, f, sum1(a)), sum1(b)),
                 ir::unary(Op::Neg, sum1(c)));
  const NodePtr out = jx::passes::merge_reductions({e})[0];
  ASSERT_EQ(out->op, Op::ReduceSum);
  EXPECT_EQ(out->attrs, std::vector<int64_t>{1});
  EXPECT_EQ(out->inputs[0]->shape, (jx::Shape{5, 7, 3}));
  expect_close(out, e);
}

TEST(MergeReductions, OtherTermsOfTheSumStay) {
  // (g + f * sum(a, 1)) - sum(b, 1): the reductions merge, g is added to the result.
  const NodePtr a = values({5, 7, 3}, 0), b = values({5, 7, 3}, 1);
  const NodePtr f = values({5, 3}, 3), g = values({5, 3}, 4);
  const NodePtr e =
      ir::binary(Op::Sub, ir::binary(Op::Add, g, ir::binary(Op::Mul, f, sum1(a))), sum1(b));
  const NodePtr out = jx::passes::merge_reductions({e})[0];
  ASSERT_EQ(out->op, Op::Add);
  EXPECT_EQ(out->inputs[0], g);
  EXPECT_EQ(out->inputs[1]->op, Op::ReduceSum);
  expect_close(out, e);
}

TEST(MergeReductions, PartsReadElsewhereOrOverOtherAxesStay) {
  const NodePtr a = values({5, 7, 3}, 0), b = values({5, 7, 3}, 1);
  const NodePtr shared = sum1(a);
  const NodePtr e = ir::binary(Op::Add, shared, sum1(b));
  // shared is also a root: merging would reduce a twice.
  std::vector<NodePtr> out = jx::passes::merge_reductions({e, shared});
  EXPECT_EQ(out[0], e);
  // Different axes, or operands of different shapes: nothing to merge.
  const NodePtr square = values({5, 7, 7}, 3);
  const NodePtr other_axes =
      ir::binary(Op::Add, sum1(square), ir::reduce(Op::ReduceSum, square, {2}));
  EXPECT_EQ(jx::passes::merge_reductions({other_axes})[0], other_axes);
  const NodePtr narrow = sum1(values({5, 2, 3}, 2));
  const NodePtr mixed = ir::binary(Op::Add, sum1(a), narrow);
  EXPECT_EQ(jx::passes::merge_reductions({mixed})[0], mixed);
}

} // namespace
