// stack_to_broadcast: stacks of expressions differing only in literals become one expression over
// constant vectors; everything else is left as it is. Also runs the Simpson seed through every
// pass in the pipeline's order.
#include <gtest/gtest.h>
#include <jx/jx.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "interp/dispatch.h"
#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "seeds.h"

using namespace jx;
using namespace jx::ir;
namespace jnp = jx::numpy;

namespace {

using pass_test::vec;

NodePtr fill(double v, const NodePtr &like, bool weak = false) {
  return broadcast(literal(v, like->dtype, weak), like->shape, {});
}

NodePtr merge(const NodePtr &root) { return passes::stack_to_broadcast({root})[0]; }

// What jnp.stack builds: each operand reshaped to a unit axis at `axis`, then concatenated.
NodePtr stack(const std::vector<NodePtr> &xs, int64_t axis) {
  std::vector<NodePtr> parts;
  for (const NodePtr &x : xs) {
    Shape s = x->shape;
    s.insert(s.begin() + axis, 1);
    parts.push_back(reshape(x, s));
  }
  return concatenate(parts, axis);
}

int count(const std::vector<NodePtr> &roots, Op op) {
  int n = 0;
  for (const Node *x : topological_order(roots))
    n += x->op == op;
  return n;
}
int count(const NodePtr &root, Op op) { return count(std::vector{root}, op); }

using pass_test::expect_identical;

// Merges root, checks the concatenate is gone and every value is unchanged.
NodePtr expect_merged(const NodePtr &root) {
  NodePtr out = merge(root);
  EXPECT_EQ(count(out, Op::Concatenate), 0) << print_graph(out);
  expect_identical(out, root);
  return out;
}

} // namespace

TEST(StackToBroadcast, GoldenText) {
  NodePtr x = iota(DType::float64, {4}, 0);
  std::vector<NodePtr> terms;
  for (double c : {1.5, 2.5, 3.5})
    terms.push_back(binary(Op::Mul, x, fill(c, x)));
  NodePtr out = expect_merged(stack(terms, 1));
  EXPECT_EQ(print_graph(out), "%0 = iota(axis=0) : f64[4]\n"
                              "%1 = broadcast(%0, dims=[0]) : f64[4,3]\n"
                              "%2 = constant(<24 bytes>) : f64[3]\n"
                              "%3 = broadcast(%2, dims=[1]) : f64[4,3]\n"
                              "%4 = mul(%1, %3) : f64[4,3]\n");
  const double *c = out->inputs[1]->inputs[0]->data->as<double>();
  EXPECT_EQ(std::vector<double>(c, c + 3), (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST(StackToBroadcast, ApiStackEveryAxis) {
  auto x = jnp::array({1.0, -2.0, 0.5, 4.0, -0.0, 3.0}, Shape{2, 3});
  std::vector<Array> terms;
  for (double c : {0.5, 2.0, -0.0, 1e300, -3.0})
    terms.push_back(jnp::exp(x * c) - c);
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    NodePtr root = jnp::stack(terms, axis).node();
    NodePtr out = expect_merged(root);
    EXPECT_EQ(count(out, Op::Exp), 1);
    EXPECT_EQ(count(out, Op::Constant), 2) << print_graph(out); // x, and one vector for c
  }
}

TEST(StackToBroadcast, SeedFuncN) {
  auto x = jnp::linspace(0.0, 2.0, 7);
  NodePtr root = seeds::funcN(x, 200).node();
  ASSERT_EQ(count(root, Op::Concatenate), 1);
  NodePtr out = expect_merged(root);
  EXPECT_EQ(count(out, Op::Pow), 1);
  EXPECT_EQ(count(out, Op::Exp), 1);
  EXPECT_EQ(out->shape, (Shape{7, 200}));
}

TEST(StackToBroadcast, ScalarExpressions) {
  // stack of 0-d expressions: literal operands directly, the result is a vector.
  NodePtr s = reduce(Op::ReduceSum, vec<double>({1, 2, 3.5}), {0});
  std::vector<NodePtr> terms;
  for (double c : {1.0, -2.0, 0.25})
    terms.push_back(binary(Op::Add, binary(Op::Mul, s, literal(c, DType::float64, false)),
                           literal(c * c, DType::float64, false)));
  NodePtr out = expect_merged(stack(terms, 0));
  EXPECT_EQ(out->shape, (Shape{3}));
  EXPECT_EQ(count(out, Op::Constant), 3) << print_graph(out);
  EXPECT_EQ(count(out, Op::ReduceSum), 1);
}

TEST(StackToBroadcast, OperandsWithTheUnitAxisAlready) {
  // No reshape to push out: the expressions already have size 1 along the axis.
  NodePtr x = reshape(iota(DType::float64, {4}, 0), {4, 1});
  std::vector<NodePtr> terms;
  for (double c : {1.0, 2.0, 3.0, 4.0, 5.0})
    terms.push_back(binary(Op::Sub, unary(Op::Sin, x), fill(c, x)));
  NodePtr out = expect_merged(concatenate(terms, 1));
  EXPECT_EQ(out->shape, (Shape{4, 5}));
  EXPECT_EQ(count(out, Op::Sin), 1);
}

TEST(StackToBroadcast, EqualLiteralsStayLiterals) {
  NodePtr x = iota(DType::float64, {3}, 0);
  std::vector<NodePtr> terms;
  for (double c : {2.0, 3.0})
    terms.push_back(binary(Op::Add, binary(Op::Mul, x, fill(c, x)), fill(1, x)));
  NodePtr out = expect_merged(stack(terms, 0));
  EXPECT_EQ(count(out, Op::Constant), 1);
  EXPECT_NE(print_graph(out).find("literal(1)"), std::string::npos) << print_graph(out);
}

TEST(StackToBroadcast, SeveralAndRepeatedVaryingPositions) {
  NodePtr x = iota(DType::float64, {3}, 0);
  std::vector<NodePtr> two, repeated;
  for (double c : {2.0, 3.0, -1.0}) {
    two.push_back(binary(Op::Add, binary(Op::Mul, x, fill(c, x)), fill(c + 10, x)));
    repeated.push_back(binary(Op::Mul, binary(Op::Add, x, fill(c, x)), fill(c, x)));
  }
  EXPECT_EQ(count(expect_merged(stack(two, 1)), Op::Constant), 2);
  // The same literals at two positions give one vector.
  EXPECT_EQ(count(expect_merged(stack(repeated, 1)), Op::Constant), 1);
}

TEST(StackToBroadcast, IntegersSelectsAndConverts) {
  NodePtr xi = iota(DType::int64, {5}, 0);
  std::vector<NodePtr> terms;
  for (int64_t k : std::vector<int64_t>{1, 3, -2, INT64_MAX}) {
    NodePtr kk = broadcast(literal_int(k, DType::int64, false), xi->shape, {});
    NodePtr picked = select(binary(Op::Gt, xi, kk), binary(Op::Mul, xi, kk), unary(Op::Neg, kk));
    terms.push_back(convert(picked, DType::float32));
  }
  NodePtr out = expect_merged(stack(terms, 0));
  EXPECT_EQ(out->dtype, DType::float32);
  EXPECT_EQ(count(out, Op::Constant), 1);
  // Bool literals vary too.
  NodePtr p = vec<bool>({true, false, true});
  std::vector<NodePtr> ands;
  for (int b : {1, 0, 1, 1})
    ands.push_back(binary(Op::And, p, broadcast(literal_int(b, DType::bool_, false), {3}, {})));
  expect_merged(stack(ands, 1));
}

TEST(StackToBroadcast, IdenticalOperandsBecomeABroadcast) {
  NodePtr y = unary(Op::Exp, vec<double>({1, 2}));
  NodePtr out = expect_merged(stack({y, y, y}, 0));
  EXPECT_EQ(out->op, Op::Broadcast);
  EXPECT_EQ(out->inputs[0], y);
}

TEST(StackToBroadcast, UnsupportedPatternsUnchanged) {
  NodePtr x = vec<double>({1, 2, 3, 4}), y = vec<double>({5, 6, 7, 8});
  NodePtr x2 = vec<double>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  NodePtr wx = convert(vec<float>({1, 2, 3, 4}), DType::float64, true);
  NodePtr realized = binary(Op::Mul, x, fill(2, x));
  realized->set_realized(interp::evaluate({realized})[0]);
  const NodePtr unchanged[] = {
      // Different ops, different leaves, a differing operand in a run of matching ones.
      stack({unary(Op::Exp, x), unary(Op::Log, x)}, 0),
      stack({binary(Op::Mul, x, fill(2, x)), binary(Op::Mul, y, fill(2, x))}, 0),
      stack({binary(Op::Mul, x, fill(1, x)), binary(Op::Mul, x, fill(2, x)), unary(Op::Exp, x)}, 0),
      // Operands of size 2 along the axis.
      concatenate({binary(Op::Mul, x2, fill(2, x2)), binary(Op::Mul, x2, fill(3, x2))}, 0),
      // Reductions and movement between the root and the literal.
      stack({reduce(Op::ReduceSum, binary(Op::Mul, x, fill(2, x)), {0}),
             reduce(Op::ReduceSum, binary(Op::Mul, x, fill(3, x)), {0})},
            0),
      stack({reshape(binary(Op::Mul, x2, fill(2, x2)), {8}),
             reshape(binary(Op::Mul, x2, fill(3, x2)), {8})},
            0),
      // Different constants, a realized operand, mixed reshaped and unit-axis operands.
      stack(
          {binary(Op::Mul, x, fill(2, x)), binary(Op::Mul, vec<double>({1, 2, 3, 4}), fill(3, x))},
          0),
      stack({realized, binary(Op::Mul, x, fill(3, x))}, 0),
      concatenate({reshape(binary(Op::Mul, x, fill(2, x)), {1, 4}),
                   binary(Op::Mul, reshape(x, {1, 4}),
                          broadcast(literal(3, DType::float64, false), {1, 4}, {}))},
                  0),
      // All weak: a constant vector is strong, so the result type would change.
      stack({binary(Op::Mul, wx, fill(2, wx, true)), binary(Op::Mul, wx, fill(3, wx, true))}, 0),
  };
  for (const NodePtr &root : unchanged) {
    ASSERT_EQ(root->op, Op::Concatenate);
    EXPECT_EQ(merge(root), root) << print_graph(root);
  }
  std::vector<NodePtr> all(std::begin(unchanged), std::end(unchanged));
  EXPECT_EQ(passes::stack_to_broadcast(all), all);
  realized->set_realized(nullptr);
}

TEST(StackToBroadcast, DeepExpressionsAreMatchedIteratively) {
  NodePtr x = vec<double>({0.5, 1.5});
  std::vector<NodePtr> terms;
  for (double c : {1.0, 2.0, 3.0}) {
    NodePtr n = binary(Op::Mul, x, fill(c, x));
    for (int i = 0; i < 20000; ++i)
      n = binary(i % 2 ? Op::Add : Op::Mul, n, fill(i % 2 ? 1e-3 : 0.999, x));
    terms.push_back(n);
  }
  NodePtr out = expect_merged(stack(terms, 0));
  EXPECT_EQ(count(out, Op::Constant), 2);
}

TEST(StackToBroadcast, NestedStacks) {
  NodePtr x = iota(DType::float64, {2}, 0);
  std::vector<NodePtr> outer;
  for (double a : {1.0, 2.0}) {
    std::vector<NodePtr> inner;
    for (double b : {3.0, 4.0, 5.0})
      inner.push_back(binary(Op::Mul, binary(Op::Add, x, fill(a, x)), fill(b, x)));
    outer.push_back(stack(inner, 0));
  }
  NodePtr root = stack(outer, 0);
  NodePtr out = merge(root);
  EXPECT_EQ(count(out, Op::Concatenate), 1) << print_graph(out); // inner ones merged
  expect_identical(out, root);
}

namespace {

void expect_relative(const NodePtr &a, const NodePtr &b, double rel) {
  ASSERT_EQ(a->dtype, DType::float64);
  ASSERT_EQ(a->shape, b->shape);
  auto bufs = interp::evaluate({a, b});
  const double *x = bufs[0]->as<double>(), *y = bufs[1]->as<double>();
  for (int64_t i = 0; i < a->size(); ++i)
    EXPECT_NEAR(x[i], y[i], rel * std::fabs(y[i])) << "element " << i;
}

} // namespace

TEST(StackToBroadcast, SimpsonSeedThroughThePipeline) {
  auto a = jnp::arange(0, 10, 2.5);
  auto b = a + 0.05;
  NodePtr y;
  auto f = [&](const Array &x) {
    Array terms = seeds::funcN(x, 200);
    y = terms.node();
    return terms;
  };
  NodePtr s = seeds::simps(f, a, b, 8).node();
  std::vector<NodePtr> out = passes::optimize({s, y});
  EXPECT_EQ(count(out, Op::Concatenate), 0) << print_graph(out);
  EXPECT_EQ(out[1]->shape, (Shape{9, 200, 4}));
  // log runs once per x element, below the broadcast along the 200 exponents.
  for (const Node *n : topological_order(out)) {
    if (n->op == Op::Log) {
      EXPECT_EQ(n->shape, (Shape{9, 4}));
    }
  }
  EXPECT_EQ(count(out, Op::Log), 1);
  expect_relative(out[0], s, 1e-13);
  expect_relative(out[1], y, 1e-13);
  // A fixed point: another round changes nothing.
  EXPECT_EQ(passes::optimize(out), out);
}

TEST(StackToBroadcast, SimpsonBroadcastVariantThroughThePipeline) {
  auto x = jnp::linspace(jnp::array({0.0, 5.0}), jnp::array({0.05, 5.05}), 9);
  NodePtr y = seeds::funcN_broadcast(x, 200).node();
  std::vector<NodePtr> out = passes::optimize({y});
  expect_relative(out[0], y, 1e-13);
  EXPECT_EQ(count(out, Op::Log), 1);
}
