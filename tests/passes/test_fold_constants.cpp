// fold_constants: literal-only elementwise nodes become literals with the evaluator's values.
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
#include "runtime/allocator.h"

using namespace jx;
using namespace jx::ir;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

template <class T> NodePtr vec(std::vector<T> v) {
  auto buf = runtime::make_buffer(v.size() * sizeof(T));
  std::memcpy(buf->data(), v.data(), v.size() * sizeof(T));
  return constant(buf, dtype_of_v<T>, {int64_t(v.size())});
}

NodePtr lit(double v, DType dtype = DType::float64, bool weak = false) {
  return literal(v, dtype, weak);
}
NodePtr ilit(int64_t v, DType dtype, bool weak = false) { return literal_int(v, dtype, weak); }
NodePtr fill(NodePtr scalar, Shape shape) { return broadcast(std::move(scalar), shape, {}); }

NodePtr fold(const NodePtr &root) { return passes::fold_constants({root})[0]; }

int count(const NodePtr &root, Op op) {
  int n = 0;
  for (const Node *x : topological_order({root}))
    n += x->op == op;
  return n;
}

// The one literal a folded root holds (itself or under its broadcast).
const Node &folded_literal(const NodePtr &root) {
  const Node *x = root.get();
  if (x->op == Op::Broadcast) x = x->inputs[0].get();
  EXPECT_EQ(x->op, Op::Literal) << print_graph(root);
  return *x;
}

// Equal values, bit for bit (any NaN equals any NaN).
using pass_test::expect_identical;

// Folds root, checks every op is gone and the value is what the evaluator computes.
void expect_folds(const NodePtr &root) {
  NodePtr out = fold(root);
  EXPECT_EQ(count(out, Op::Literal), 1) << print_graph(out);
  EXPECT_EQ(topological_order({out}).size(), root->shape.empty() ? 1u : 2u) << print_graph(out);
  expect_identical(out, root);
}

} // namespace

TEST(FoldConstants, ScalarBinary) {
  NodePtr out = fold(binary(Op::Add, lit(2), lit(3)));
  ASSERT_EQ(out->op, Op::Literal);
  EXPECT_EQ(out->fvalue, 5);
  EXPECT_EQ(print_graph(out), "%0 = literal(5) : f64[]\n");
}

TEST(FoldConstants, BroadcastOperandsFoldToBroadcastLiteral) {
  NodePtr root = binary(Op::Mul, fill(lit(2), {3, 4}), fill(lit(4), {3, 4}));
  NodePtr out = fold(root);
  EXPECT_EQ(print_graph(out), "%0 = literal(8) : f64[]\n"
                              "%1 = broadcast(%0, dims=[]) : f64[3,4]\n");
  expect_identical(out, root);
}

TEST(FoldConstants, ChainsFoldBottomUp) {
  // exp(-(1.5)) * 2 + sqrt(3), every operand a broadcast literal.
  Shape s{5};
  NodePtr e = unary(Op::Exp, unary(Op::Neg, fill(lit(1.5), s)));
  NodePtr root =
      binary(Op::Add, binary(Op::Mul, e, fill(lit(2), s)), unary(Op::Sqrt, fill(lit(3), s)));
  expect_folds(root);
  EXPECT_EQ(folded_literal(fold(root)).fvalue, std::exp(-1.5) * 2 + std::sqrt(3.0));
}

TEST(FoldConstants, LiteralsUnderReshapeAndTranspose) {
  NodePtr r = reshape(fill(lit(2), {6}), {2, 3});
  NodePtr t = transpose(fill(lit(3), {3, 2}), {1, 0});
  expect_folds(binary(Op::Pow, r, t));
  EXPECT_EQ(folded_literal(fold(binary(Op::Pow, r, t))).fvalue, 8);
}

TEST(FoldConstants, FloatSpecialValues) {
  struct Case {
    Op op;
    double a, b;
  };
  const Case cases[] = {
      {Op::Add, -0.0, 0.0},   {Op::Add, inf, -inf},    {Op::Mul, -0.0, 5},
      {Op::Div, 1, -0.0},     {Op::Div, 0, 0},         {Op::Rem, -7, 3},
      {Op::Rem, 7, -0.0},     {Op::FloorDiv, -7, 2},   {Op::FloorDiv, 1, 0},
      {Op::Pow, 0, 0},        {Op::Pow, qnan, 0},      {Op::Pow, -8, 1.0 / 3},
      {Op::Pow, -0.0, -1},    {Op::Pow, -inf, 0.5},    {Op::Max, qnan, 1},
      {Op::Min, 1, qnan},     {Op::Max, -0.0, 0.0},    {Op::Sub, -0.0, 0.0},
      {Op::Rem, 5.5, inf},    {Op::FloorDiv, -0.0, 3}, {Op::Atan2, -0.0, -1},
      {Op::Hypot, inf, qnan}, {Op::NextAfter, 0, -1},  {Op::CopySign, 1, -0.0},
      {Op::Fmod, -7, 3},      {Op::Fmod, 5.5, inf},    {Op::Fmod, 1, 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(op_name(c.op)));
    expect_folds(binary(c.op, lit(c.a), lit(c.b)));
    expect_folds(binary(c.op, fill(lit(c.a), {2}), fill(lit(c.b), {2})));
  }
  // Every unary op of the table on floats, but convert, the integer ops, erf_inv (never folded),
  // real and imag (complex operands).
  for (int i = 0; i < op_count; ++i) {
    const Op op = Op(i);
    if (op_kind(op) != OpKind::Unary || op == Op::Convert || test_util::integer_only(op) ||
        op == Op::ErfInv || op == Op::Real || op == Op::Imag)
      continue;
    for (double v : {-inf, -2.5, -1.0, -0.0, 0.0, 1e-310, 0.5, 3.0, inf, qnan}) {
      SCOPED_TRACE(std::string(op_name(op)) + " " + std::to_string(v));
      expect_folds(unary(op, lit(v)));
    }
  }
}

TEST(FoldConstants, Float32ComputesInFloat32) {
  NodePtr root = binary(Op::Div, lit(1, DType::float32), lit(3, DType::float32));
  NodePtr out = fold(root);
  ASSERT_EQ(out->op, Op::Literal);
  EXPECT_EQ(out->dtype, DType::float32);
  EXPECT_EQ(out->fvalue, double(1.0f / 3.0f));
  EXPECT_NE(out->fvalue, 1.0 / 3.0);
  expect_folds(unary(Op::Exp, lit(0.1, DType::float32)));
  expect_folds(binary(Op::Pow, lit(1.1, DType::float32), lit(7.5, DType::float32)));
}

TEST(FoldConstants, IntegerSemantics) {
  const DType i32 = DType::int32, i64 = DType::int64;
  // Wrapping arithmetic, NumPy's floor division and remainder, shifts out of range.
  expect_folds(binary(Op::Add, ilit(INT32_MAX, i32), ilit(1, i32)));
  EXPECT_EQ(fold(binary(Op::Add, ilit(INT32_MAX, i32), ilit(1, i32)))->ivalue, INT32_MIN);
  expect_folds(binary(Op::Mul, ilit(INT64_MAX, i64), ilit(3, i64)));
  expect_folds(unary(Op::Neg, ilit(INT64_MIN, i64)));
  expect_folds(unary(Op::Abs, ilit(INT32_MIN, i32)));
  for (int64_t a : {-7, 7, 0})
    for (int64_t b : {-2, 2, 0, -1}) {
      expect_folds(binary(Op::FloorDiv, ilit(a, i64), ilit(b, i64)));
      expect_folds(binary(Op::Rem, ilit(a, i32), ilit(b, i32)));
    }
  EXPECT_EQ(fold(binary(Op::FloorDiv, ilit(-7, i64), ilit(2, i64)))->ivalue, -4);
  EXPECT_EQ(fold(binary(Op::Rem, ilit(-7, i64), ilit(2, i64)))->ivalue, 1);
  for (int64_t e : {-2, -1, 0, 1, 5, 40})
    for (int64_t b : {-2, -1, 0, 1, 3})
      expect_folds(binary(Op::Pow, ilit(b, i64), ilit(e, i64)));
  for (int64_t s : {-1, 0, 3, 31, 32, 64})
    for (Op op : {Op::ShiftLeft, Op::ShiftRight}) {
      expect_folds(binary(op, ilit(-5, i32), ilit(s, i32)));
      expect_folds(binary(op, fill(ilit(-5, i64), {3}), fill(ilit(s, i64), {3})));
    }
  expect_folds(unary(Op::Not, ilit(6, i32)));
  expect_folds(binary(Op::Xor, ilit(6, i64), ilit(3, i64)));
  expect_folds(binary(Op::Max, ilit(-6, i64), ilit(3, i64)));
  expect_folds(unary(Op::Sign, ilit(-6, i32)));
}

TEST(FoldConstants, BoolSemantics) {
  const DType b = DType::bool_;
  for (Op op : {Op::And, Op::Or, Op::Xor, Op::Add, Op::Mul, Op::Max, Op::Min, Op::Eq, Op::Ne,
                Op::Lt, Op::Ge})
    for (int x : {0, 1})
      for (int y : {0, 1})
        expect_folds(binary(op, fill(ilit(x, b), {2}), fill(ilit(y, b), {2})));
  expect_folds(unary(Op::Not, ilit(1, b)));
  EXPECT_EQ(fold(binary(Op::Add, ilit(1, b), ilit(1, b)))->ivalue, 1);
}

TEST(FoldConstants, ConvertPredicatesAndComparisons) {
  // Converts of broadcast literals are not folded by the builder; the pass folds them as the
  // evaluator converts (NaN and out-of-range floats to the integer minimum).
  for (double v : {qnan, 1e30, -2.7, 2.7, -0.0, inf})
    for (DType to : {DType::int32, DType::int64, DType::bool_, DType::float32}) {
      NodePtr root = convert(fill(lit(v), {3}), to);
      ASSERT_EQ(root->op, Op::Convert);
      expect_folds(root);
    }
  EXPECT_EQ(folded_literal(fold(convert(fill(lit(qnan), {3}), DType::int32))).ivalue, INT32_MIN);
  expect_folds(convert(fill(ilit(-1, DType::int64), {2}), DType::bool_));
  expect_folds(convert(fill(ilit(INT64_MAX, DType::int64), {2}), DType::int32));
  expect_folds(convert(fill(lit(0.1), {2}), DType::float32));
  for (double v : {qnan, inf, -inf, 1.0}) {
    expect_folds(unary(Op::IsNan, fill(lit(v), {2})));
    expect_folds(unary(Op::IsFinite, lit(v, DType::float32)));
  }
  expect_folds(unary(Op::IsFinite, ilit(3, DType::int64)));
  for (Op op : {Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}) {
    expect_folds(binary(op, lit(qnan), lit(1)));
    expect_folds(binary(op, lit(-0.0), lit(0.0)));
    expect_folds(binary(op, ilit(-3, DType::int32), ilit(2, DType::int32)));
  }
  EXPECT_EQ(fold(binary(Op::Lt, lit(qnan), lit(1)))->dtype, DType::bool_);
}

TEST(FoldConstants, Select) {
  for (int p : {0, 1}) {
    NodePtr root =
        select(fill(ilit(p, DType::bool_), {4}), fill(lit(1.5), {4}), fill(lit(-2), {4}));
    expect_folds(root);
    EXPECT_EQ(folded_literal(fold(root)).fvalue, p ? 1.5 : -2);
  }
}

TEST(FoldConstants, WeakFlagsKept) {
  // weak + weak stays weak; weak + strong is strong (as the builders compute it).
  NodePtr weak = binary(Op::Add, lit(1, DType::float64, true), lit(2, DType::float64, true));
  NodePtr strong = binary(Op::Add, lit(1, DType::float64, true), lit(2));
  EXPECT_TRUE(fold(weak)->weak);
  EXPECT_FALSE(fold(strong)->weak);
  NodePtr wide = binary(Op::Mul, fill(ilit(3, DType::int64, true), {2}),
                        fill(ilit(4, DType::int64, true), {2}));
  EXPECT_EQ(type_str(*fold(wide)), "i64[2]~");
  expect_identical(fold(wide), wide);
  NodePtr weak_convert = convert(fill(lit(2.5, DType::float64, true), {2}), DType::float32, true);
  EXPECT_EQ(type_str(*fold(weak_convert)), "f32[2]~");
}

// A value with data that is not a constant node: the pass leaves it (and ops on it) alone.
NodePtr realized_vec(std::vector<double> v) {
  NodePtr x = binary(Op::Add, vec<double>(v), fill(lit(0), {int64_t(v.size())}));
  x->set_realized(interp::evaluate({x})[0]);
  return x;
}

TEST(FoldConstants, MixedGraphFoldsOnlyConstantParts) {
  NodePtr x = realized_vec({1, 2, 3, 4});
  NodePtr c = binary(Op::Mul, fill(lit(2), {4}), fill(lit(3), {4}));
  NodePtr root = binary(Op::Add, x, c);
  NodePtr out = fold(root);
  EXPECT_EQ(out->inputs[0], x);
  EXPECT_EQ(folded_literal(out->inputs[1]).fvalue, 6);
  expect_identical(out, root);
}

TEST(FoldConstants, SmallArraysOfConstantsFold) {
  // arange(200) / 10: the same constant as a stack of the literals i / 10.
  NodePtr i = iota(DType::float64, {200}, 0);
  NodePtr root = binary(Op::Div, i, fill(lit(10), {200}));
  NodePtr out = fold(root);
  EXPECT_EQ(out->op, Op::Constant);
  expect_identical(out, root);
  NodePtr with_vec = binary(Op::Add, vec<double>({1, 2}), vec<double>({3, 4}));
  EXPECT_EQ(fold(with_vec)->op, Op::Constant);
  expect_identical(fold(with_vec), with_vec);
}

TEST(FoldConstants, LargeOrBroadcastArraysStay) {
  NodePtr big = iota(DType::float64, {5000}, 0);
  NodePtr root = binary(Op::Mul, big, fill(lit(2), {5000}));
  EXPECT_EQ(fold(root), root);
  // Work under a broadcast is left for sink_movement to move below it first.
  NodePtr spread = broadcast(iota(DType::float64, {3}, 0), {3, 1}, {0});
  NodePtr scaled = binary(Op::Mul, spread, fill(lit(2), {3, 1}));
  EXPECT_EQ(fold(scaled), scaled);
}

TEST(FoldConstants, UnsupportedLeftUnchanged) {
  NodePtr x = realized_vec({1, 2, 3});
  // Non-literal operands, erf_inv, movement and reductions of literals, ops the evaluator rejects.
  const NodePtr roots[] = {
      binary(Op::Add, x, fill(lit(1), {3})),
      unary(Op::ErfInv, lit(0.5)),
      unary(Op::ErfInv, fill(lit(0.5), {3})),
      reduce(Op::ReduceSum, fill(lit(2), {3}), {0}),
      unary(Op::Exp, ilit(2, DType::int64)),
      binary(Op::ShiftLeft, lit(1), lit(2)),
      binary(Op::Sub, ilit(1, DType::bool_), ilit(1, DType::bool_)),
      x,
  };
  for (const NodePtr &r : roots)
    EXPECT_EQ(fold(r), r) << print_graph(r);
  std::vector<NodePtr> all(std::begin(roots), std::end(roots));
  EXPECT_EQ(passes::fold_constants(all), all);
}

TEST(FoldConstants, RealizedNodesLeftAlone) {
  NodePtr root = binary(Op::Add, fill(lit(1), {2}), fill(lit(2), {2}));
  runtime::BufferPtr value = interp::evaluate({root})[0];
  root->set_realized(value);
  EXPECT_EQ(fold(root), root);
  root->set_realized(nullptr);
}

TEST(FoldConstants, SharedNodesAndSeveralRoots) {
  NodePtr shared = binary(Op::Mul, fill(lit(2), {3}), fill(lit(5), {3}));
  NodePtr x = realized_vec({1, 2, 3});
  std::vector<NodePtr> roots = {binary(Op::Add, x, shared), binary(Op::Sub, shared, x), shared};
  std::vector<NodePtr> out = passes::fold_constants(roots);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]->inputs[1], out[2]);
  EXPECT_EQ(out[1]->inputs[0], out[2]);
  for (size_t i = 0; i < roots.size(); ++i)
    expect_identical(out[i], roots[i]);
}

TEST(FoldConstants, DeepChainFoldsWithoutRecursion) {
  NodePtr n = fill(lit(0), {2});
  for (int i = 0; i < 20000; ++i)
    n = binary(Op::Add, n, fill(lit(1), {2}));
  NodePtr out = fold(n);
  EXPECT_EQ(folded_literal(out).fvalue, 20000);
}

namespace {

TEST(FoldConstants, LongChainKeepsOnlyLiveIntermediates) {
  // x = x + 1, 10,000 times, from a 1,000-element constant: each step folds into a new 8 KB
  // constant. A replaced step is dropped once its user is folded, so the allocator reuses its
  // block: a handful of fresh allocations, not one per step (keeping every step took 8.7 GiB for
  // a million of them).
  std::vector<double> start(1000);
  for (size_t i = 0; i < start.size(); ++i)
    start[i] = double(i);
  NodePtr x = pass_test::vec<double>(start);
  const NodePtr one = broadcast(literal(1.0, DType::float64, true), {1000}, {});
  for (int i = 0; i < 10000; ++i)
    x = binary(Op::Add, x, one);
  const size_t misses = runtime::allocator_stats().misses;
  NodePtr out = passes::fold_constants({x})[0];
  EXPECT_LT(runtime::allocator_stats().misses - misses, 100u);
  ASSERT_EQ(out->op, Op::Constant);
  EXPECT_EQ(out->data->as<double>()[0], 10000.0);
  EXPECT_EQ(out->data->as<double>()[999], 10999.0);
}

} // namespace
