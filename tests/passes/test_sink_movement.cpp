// sink_movement: elementwise ops move below broadcast/reshape/transpose, values bit for bit
// unchanged; never below other movement or realized nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "integer_ops.h"
#include "interp/dispatch.h"
#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/passes.h"

using namespace jx;
using namespace jx::ir;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

using pass_test::vec;

NodePtr fill(double v, DType dtype, Shape shape, bool weak = false) {
  return broadcast(literal(v, dtype, weak), std::move(shape), {});
}

NodePtr sink(const NodePtr &root) { return passes::sink_movement({root})[0]; }

int count(const NodePtr &root, Op op) {
  int n = 0;
  for (const Node *x : topological_order({root}))
    n += x->op == op;
  return n;
}

using pass_test::expect_identical;

// Sinks root, checks the values are unchanged; returns the result.
NodePtr expect_sunk(const NodePtr &root) {
  NodePtr out = sink(root);
  EXPECT_NE(out, root) << print_graph(root);
  expect_identical(out, root);
  return out;
}

const std::vector<double> values = {-inf, -2.5, -1, -0.0, 0.0, 0.3, 1, 2.5, inf, qnan};

} // namespace

TEST(SinkMovement, UnaryBelowBroadcast) {
  NodePtr x = vec<double>({1, 2, 3});
  NodePtr out = expect_sunk(unary(Op::Exp, broadcast(x, {2, 3}, {1})));
  EXPECT_EQ(print_graph(out), "%0 = constant(<24 bytes>) : f64[3]\n"
                              "%1 = exp(%0) : f64[3]\n"
                              "%2 = broadcast(%1, dims=[1]) : f64[2,3]\n");
}

TEST(SinkMovement, EveryUnaryOp) {
  NodePtr x = vec(values);
  NodePtr bx = broadcast(x, {3, 10}, {1});
  // Every unary op of the table that floats have (convert and the integer ops below).
  for (int i = 0; i < op_count; ++i) {
    const Op op = Op(i);
    if (op_kind(op) != OpKind::Unary || op == Op::Convert || test_util::integer_only(op) ||
        op == Op::Real || op == Op::Imag) // complex operands only
      continue;
    SCOPED_TRACE(std::string(op_name(op)));
    NodePtr out = expect_sunk(unary(op, bx));
    EXPECT_EQ(out->op, Op::Broadcast);
    EXPECT_EQ(out->inputs[0]->inputs[0], x);
  }
  NodePtr erf = expect_sunk(unary(Op::ErfInv, broadcast(vec<double>({-0.5, 0, 0.9}), {2, 3}, {1})));
  EXPECT_EQ(erf->op, Op::Broadcast);
  for (DType to : {DType::float32, DType::int32, DType::int64, DType::bool_}) {
    NodePtr out = expect_sunk(convert(bx, to));
    EXPECT_EQ(out->op, Op::Broadcast);
    EXPECT_EQ(out->dtype, to);
  }
  NodePtr ints = broadcast(vec<int64_t>({INT64_MIN, -3, 0, 5}), {2, 4}, {1});
  for (Op op : {Op::Neg, Op::Abs, Op::Sign, Op::Not, Op::PopulationCount, Op::Clz, Op::Square})
    EXPECT_EQ(expect_sunk(unary(op, ints))->op, Op::Broadcast);
  EXPECT_EQ(expect_sunk(unary(Op::Not, broadcast(vec<bool>({true, false}), {3, 2}, {1})))->op,
            Op::Broadcast);
}

TEST(SinkMovement, ReshapeTransposeAndChains) {
  NodePtr x = vec<double>({1, -2, 3, -4, 5, -6}, {2, 3});
  NodePtr t = expect_sunk(unary(Op::Neg, transpose(x, {1, 0})));
  EXPECT_EQ(t->op, Op::Transpose);
  NodePtr r = expect_sunk(unary(Op::Abs, reshape(x, {3, 2})));
  EXPECT_EQ(r->op, Op::Reshape);
  // A chain of movements and a chain of unary ops, in one pass.
  NodePtr moved = broadcast(reshape(transpose(x, {1, 0}), {6}), {4, 6}, {1});
  NodePtr out = expect_sunk(unary(Op::Log, unary(Op::Exp, unary(Op::Abs, moved))));
  EXPECT_EQ(print_graph(out), "%0 = constant(<48 bytes>) : f64[2,3]\n"
                              "%1 = abs(%0) : f64[2,3]\n"
                              "%2 = exp(%1) : f64[2,3]\n"
                              "%3 = log(%2) : f64[2,3]\n"
                              "%4 = transpose(%3, perm=[1,0]) : f64[3,2]\n"
                              "%5 = reshape(%4) : f64[6]\n"
                              "%6 = broadcast(%5, dims=[1]) : f64[4,6]\n");
}

TEST(SinkMovement, BinaryWithTheSameMovement) {
  NodePtr x = vec<double>({1, 2, 3}), y = vec<double>({-1, 0.5, inf});
  NodePtr out = expect_sunk(binary(Op::Add, broadcast(x, {4, 3}, {1}), broadcast(y, {4, 3}, {1})));
  EXPECT_EQ(out->op, Op::Broadcast);
  EXPECT_EQ(out->inputs[0]->shape, (Shape{3}));
  NodePtr m = vec<double>({1, 2, 3, 4, 5, 6}, {2, 3}), n = vec<double>({6, 5, 4, 3, 2, 1}, {2, 3});
  EXPECT_EQ(expect_sunk(binary(Op::Sub, transpose(m, {1, 0}), transpose(n, {1, 0})))->op,
            Op::Transpose);
  EXPECT_EQ(expect_sunk(binary(Op::Pow, reshape(m, {6}), reshape(n, {6})))->op, Op::Reshape);
}

TEST(SinkMovement, BinaryWithDifferentMovementsUnchanged) {
  NodePtr x = vec<double>({1, 2, 3}), y = vec<double>({4, 5, 6});
  NodePtr outer = binary(Op::Mul, broadcast(x, {3, 3}, {0}), broadcast(y, {3, 3}, {1}));
  EXPECT_EQ(sink(outer), outer);
  NodePtr row = vec<double>({1, 2, 3}, {1, 3}), col = vec<double>({1, 2}, {2, 1});
  NodePtr shapes = binary(Op::Add, broadcast(row, {2, 3}, {0, 1}), broadcast(col, {2, 3}, {0, 1}));
  EXPECT_EQ(sink(shapes), shapes);
  NodePtr m = vec<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  NodePtr mixed = binary(Op::Add, transpose(m, {1, 0}), reshape(m, {3, 2}));
  EXPECT_EQ(sink(mixed), mixed);
  NodePtr plain = binary(Op::Add, x, y);
  EXPECT_EQ(sink(plain), plain);
}

// Both ternary ops: fma is rebuilt as an fma, not as a select (jax.random.uniform's scaling of
// random bits computed over a reshaped iota, as a traced key gives).
TEST(SinkMovement, TernaryOps) {
  NodePtr x = reshape(vec<double>({0.25, 0.5, 0.75, 1}), {2, 2});
  NodePtr out =
      expect_sunk(fma(x, fill(3.0, DType::float64, {2, 2}), fill(-1.0, DType::float64, {2, 2})));
  EXPECT_EQ(count(out, Op::Fma), 1);
  EXPECT_EQ(out->op, Op::Reshape);
  NodePtr p = reshape(vec<bool>({true, false, false, true}), {2, 2});
  out = expect_sunk(select(p, x, fill(7.0, DType::float64, {2, 2})));
  EXPECT_EQ(count(out, Op::Select), 1);
  EXPECT_EQ(out->op, Op::Reshape);
}

TEST(SinkMovement, FillsFollowTheOtherOperand) {
  NodePtr x = vec(values);
  NodePtr bx = broadcast(x, {2, 10}, {1});
  NodePtr out = expect_sunk(binary(Op::Mul, bx, fill(2, DType::float64, {2, 10})));
  EXPECT_EQ(print_graph(out), "%0 = constant(<80 bytes>) : f64[10]\n"
                              "%1 = literal(2) : f64[]\n"
                              "%2 = broadcast(%1, dims=[]) : f64[10]\n"
                              "%3 = mul(%0, %2) : f64[10]\n"
                              "%4 = broadcast(%3, dims=[1]) : f64[2,10]\n");
  // Comparisons (bool results) and select, with fills in any operand.
  NodePtr gt = expect_sunk(binary(Op::Gt, fill(0, DType::float64, {2, 10}), bx));
  EXPECT_EQ(gt->dtype, DType::bool_);
  EXPECT_EQ(gt->inputs[0]->shape, (Shape{10}));
  NodePtr p = broadcast(binary(Op::Lt, x, fill(1, DType::float64, {10})), {2, 10}, {1});
  NodePtr sel = expect_sunk(select(p, bx, fill(-7, DType::float64, {2, 10})));
  EXPECT_EQ(sel->op, Op::Broadcast);
  EXPECT_EQ(sel->inputs[0]->op, Op::Select);
  // Only fills: the op runs on the 0-d values.
  NodePtr s1 = reduce(Op::ReduceSum, x, {0}), s2 = reduce(Op::ReduceMax, x, {0});
  NodePtr both = expect_sunk(binary(Op::Add, broadcast(s1, {3, 3}, {}), broadcast(s2, {3, 3}, {})));
  EXPECT_EQ(both->inputs[0]->shape, Shape{});
  // A fill and a transposed operand.
  NodePtr m = vec<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(expect_sunk(binary(Op::Div, transpose(m, {1, 0}), fill(3, DType::float64, {3, 2})))->op,
            Op::Transpose);
}

TEST(SinkMovement, UnaryOnAFill) {
  NodePtr out = expect_sunk(unary(Op::Neg, fill(2, DType::float64, {5})));
  EXPECT_EQ(print_graph(out), "%0 = literal(2) : f64[]\n"
                              "%1 = neg(%0) : f64[]\n"
                              "%2 = broadcast(%1, dims=[]) : f64[5]\n");
}

TEST(SinkMovement, NeverBelowOtherMovement) {
  NodePtr x = vec<double>({1, 2, 3, 4});
  NodePtr zero = literal(0, DType::float64, false);
  const NodePtr kept[] = {
      unary(Op::Exp, slice(x, {0}, {4}, {2})),
      unary(Op::Exp, pad(x, zero, {1}, {2})),
      unary(Op::Exp, concatenate({x, x}, 0)),
      unary(Op::Exp, slice_update(x, vec<double>({9}), {1}, {2}, {1})),
      unary(Op::Exp, diagonal(vec<double>({1, 2, 3, 4}, {2, 2}), 0, 1)),
      binary(Op::Add, slice(x, {0}, {4}, {2}), fill(1, DType::float64, {2})),
      unary(Op::Exp, reduce(Op::ReduceSum, broadcast(x, {3, 4}, {1}), {0})),
  };
  for (const NodePtr &r : kept)
    EXPECT_EQ(sink(r), r) << print_graph(r);
}

TEST(SinkMovement, RealizedNodesLeftAlone) {
  NodePtr x = vec<double>({1, 2});
  NodePtr m = broadcast(x, {3, 2}, {1});
  m->set_realized(interp::evaluate({m})[0]);
  NodePtr below_realized = unary(Op::Exp, m);
  EXPECT_EQ(sink(below_realized), below_realized);
  m->set_realized(nullptr);
  NodePtr root = unary(Op::Exp, broadcast(x, {4, 2}, {1}));
  root->set_realized(interp::evaluate({root})[0]);
  EXPECT_EQ(sink(root), root);
  root->set_realized(nullptr);
}

TEST(SinkMovement, WeakFlagsKept) {
  NodePtr wx = convert(vec<float>({1, 2}), DType::float64, true);
  NodePtr bw = broadcast(wx, {3, 2}, {1});
  NodePtr neg = expect_sunk(unary(Op::Neg, bw));
  EXPECT_EQ(type_str(*neg), "f64[3,2]~");
  NodePtr strong = expect_sunk(binary(Op::Mul, bw, fill(2, DType::float64, {3, 2}, false)));
  EXPECT_EQ(type_str(*strong), "f64[3,2]");
  NodePtr weak = expect_sunk(binary(Op::Mul, bw, fill(2, DType::float64, {3, 2}, true)));
  EXPECT_EQ(type_str(*weak), "f64[3,2]~");
  NodePtr conv = expect_sunk(convert(bw, DType::float32, true));
  EXPECT_EQ(type_str(*conv), "f32[3,2]~");
}

TEST(SinkMovement, SharedMovementKeepsItsOtherUsers) {
  NodePtr x = vec<double>({1, 2, 3});
  NodePtr m = broadcast(x, {2, 3}, {1});
  std::vector<NodePtr> roots = {unary(Op::Exp, m), m, binary(Op::Add, m, unary(Op::Exp, m))};
  std::vector<NodePtr> out = passes::sink_movement(roots);
  EXPECT_EQ(out[1], m);
  EXPECT_EQ(out[0]->op, Op::Broadcast);
  EXPECT_EQ(out[2]->op, Op::Broadcast); // add(m, broadcast(exp x)) has one movement: sunk too
  for (size_t i = 0; i < roots.size(); ++i)
    expect_identical(out[i], roots[i]);
}

TEST(SinkMovement, DeepChains) {
  NodePtr x = vec<double>({0.1, 0.2});
  NodePtr n = broadcast(x, {50, 2}, {1});
  for (int i = 0; i < 20000; ++i)
    n = unary(i % 2 ? Op::Sin : Op::Cos, n);
  NodePtr out = expect_sunk(n);
  EXPECT_EQ(out->op, Op::Broadcast);
  EXPECT_EQ(count(out, Op::Broadcast), 1);
}
