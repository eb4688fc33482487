// The reference evaluator, op by op on hand-computed cases, and NumPy's per-element semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "interp/interp.h"
#include "interp/scalar_ops.h"
#include "ir/builder.h"

using namespace jx;
using namespace jx::ir;

namespace {

template <class T> NodePtr vec(std::vector<T> v, Shape shape = {}) {
  if (shape.empty()) shape = {int64_t(v.size())};
  auto buf = runtime::make_buffer(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i)
    buf->template as<T>()[i] = v[i];
  return constant(buf, dtype_of_v<T>, shape);
}

template <class T> std::vector<T> eval(const NodePtr &n) {
  runtime::BufferPtr b = interp::evaluate({n})[0];
  return std::vector<T>(b->as<T>(), b->as<T>() + n->size());
}

using D = std::vector<double>;
using I = std::vector<int64_t>;

} // namespace

TEST(Interp, Leaves) {
  EXPECT_EQ(eval<double>(literal(2.5, DType::float64, false)), D{2.5});
  EXPECT_EQ(eval<int64_t>(iota(DType::int64, {2, 3}, 1)), (I{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(eval<int64_t>(iota(DType::int64, {2, 3}, 0)), (I{0, 0, 0, 1, 1, 1}));
  auto u = eval<double>(random_uniform(0, 0, DType::float64, {1000}));
  for (double v : u)
    EXPECT_TRUE(v >= 0 && v < 1);
}

TEST(Interp, Elementwise) {
  NodePtr x = vec<double>({1, -2, 0.5});
  EXPECT_EQ(eval<double>(binary(Op::Mul, x, x)), (D{1, 4, 0.25}));
  EXPECT_EQ(eval<double>(unary(Op::Neg, x)), (D{-1, 2, -0.5}));
  EXPECT_EQ(eval<double>(unary(Op::Abs, x)), (D{1, 2, 0.5}));
  EXPECT_EQ(eval<double>(unary(Op::Exp, x))[0], std::exp(1.0));
  EXPECT_EQ(eval<bool>(binary(Op::Lt, x, unary(Op::Abs, x))),
            (std::vector<bool>{false, true, false}));
  NodePtr p = vec<bool>({true, false, true});
  EXPECT_EQ(eval<double>(select(p, x, unary(Op::Neg, x))), (D{1, 2, 0.5}));
  EXPECT_EQ(eval<int32_t>(convert(vec<double>({2.7, -2.7, 1e30}), DType::int32)),
            (std::vector<int32_t>{2, -2, INT32_MIN}));
}

TEST(Interp, Movement) {
  NodePtr x = vec<int64_t>({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(eval<int64_t>(transpose(x, {1, 0})), (I{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(eval<int64_t>(broadcast(vec<int64_t>({7, 8}), {3, 2}, {1})), (I{7, 8, 7, 8, 7, 8}));
  EXPECT_EQ(eval<int64_t>(broadcast(vec<int64_t>({7, 8}, {2, 1}), {2, 3}, {0, 1})),
            (I{7, 7, 7, 8, 8, 8}));
  EXPECT_EQ(eval<int64_t>(slice(x, {1, 2}, {-1, -1}, {-1, -2})), (I{5, 3, 2, 0}));
  EXPECT_EQ(eval<int64_t>(pad(x, literal_int(9, DType::int64, false), {1, 0}, {0, 1})),
            (I{9, 9, 9, 9, 0, 1, 2, 9, 3, 4, 5, 9}));
  EXPECT_EQ(eval<int64_t>(concatenate({x, slice(x, {0, 0}, {2, 1}, {1, 1})}, 1)),
            (I{0, 1, 2, 0, 3, 4, 5, 3}));
  EXPECT_EQ(eval<int64_t>(slice_update(x, vec<int64_t>({-1, -2}, {1, 2}), {1, 0}, {2, 3}, {1, 2})),
            (I{0, 1, 2, -1, 4, -2}));
  EXPECT_EQ(eval<int64_t>(diagonal(vec<int64_t>({0, 1, 2, 3}, {2, 2}), 0, 1)), (I{0, 3}));
  EXPECT_EQ(eval<int64_t>(reshape(x, {3, 2})), (I{0, 1, 2, 3, 4, 5}));
}

TEST(Interp, Reductions) {
  NodePtr x = vec<double>({1, 5, 2, 4, 3, 6}, {2, 3});
  EXPECT_EQ(eval<double>(reduce(Op::ReduceSum, x, {0})), (D{5, 8, 8}));
  EXPECT_EQ(eval<double>(reduce(Op::ReduceSum, x, {0, 1})), (D{21}));
  EXPECT_EQ(eval<double>(reduce(Op::ReduceProd, x, {1})), (D{10, 72}));
  EXPECT_EQ(eval<double>(reduce(Op::ReduceMax, x, {1})), (D{5, 6}));
  EXPECT_EQ(eval<double>(reduce(Op::ReduceMin, x, {0})), (D{1, 3, 2}));
  EXPECT_EQ(eval<int64_t>(arg_reduce(Op::ArgMax, x, 1)), (I{1, 2}));
  EXPECT_EQ(eval<int64_t>(arg_reduce(Op::ArgMin, x, 0)), (I{0, 1, 0}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(eval<int64_t>(arg_reduce(Op::ArgMax, vec<double>({1, nan, 9, nan}), 0)), (I{1}));
  EXPECT_TRUE(std::isnan(eval<double>(reduce(Op::ReduceMax, vec<double>({1, nan, 9}), {0}))[0]));
  EXPECT_EQ(eval<double>(reduce(Op::ReduceSum, vec<double>({}, {0, 2}), {0})), (D{0, 0}));
}

TEST(Interp, DotGeneral) {
  NodePtr a = vec<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  NodePtr b = vec<double>({1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_EQ(eval<double>(dot_general(a, b, {}, {}, {1}, {0})), (D{4, 5, 10, 11}));
  // Batched: row-wise inner products.
  EXPECT_EQ(eval<double>(dot_general(a, a, {0}, {0}, {1}, {1})), (D{14, 77}));
  // No contraction: outer product.
  EXPECT_EQ(eval<double>(dot_general(vec<double>({1, 2}), vec<double>({3, 4}), {}, {}, {}, {})),
            (D{3, 4, 6, 8}));
}

TEST(Interp, RealizedNodesAreReused) {
  NodePtr x = binary(Op::Add, iota(DType::float64, {3}, 0), iota(DType::float64, {3}, 0));
  auto buf = runtime::make_buffer(3 * sizeof(double));
  double values[] = {7, 8, 9};
  std::memcpy(buf->data(), values, sizeof(values));
  x->set_realized(buf);
  EXPECT_EQ(eval<double>(binary(Op::Mul, x, x)), (D{49, 64, 81}));
}

TEST(ScalarOps, FloorDivideAndRemainderFollowNumPy) {
  using interp::binary_scalar;
  EXPECT_EQ(binary_scalar<int64_t>(Op::FloorDiv, -7, 2), -4);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Rem, -7, 2), 1);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Rem, 7, -2), -1);
  EXPECT_EQ(binary_scalar<int64_t>(Op::FloorDiv, 7, 0), 0);
  EXPECT_EQ(binary_scalar<int64_t>(Op::FloorDiv, INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(binary_scalar<double>(Op::FloorDiv, -7.0, 2.0), -4.0);
  EXPECT_EQ(binary_scalar<double>(Op::Rem, -7.0, 2.0), 1.0);
  EXPECT_TRUE(std::signbit(binary_scalar<double>(Op::Rem, 4.0, -2.0)));
  EXPECT_TRUE(std::isinf(binary_scalar<double>(Op::FloorDiv, 1.0, 0.0)));
}

TEST(ScalarOps, IntegerPower) {
  using interp::binary_scalar;
  EXPECT_EQ(binary_scalar<int64_t>(Op::Pow, 3, 4), 81);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Pow, 0, 0), 1);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Pow, -1, -3), -1);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Pow, 2, -1), 0);
  EXPECT_EQ(binary_scalar<int32_t>(Op::Pow, 2, 31), INT32_MIN); // wraps like NumPy
  EXPECT_EQ(binary_scalar<double>(Op::Pow, 0.0, 0.0), 1.0);
  EXPECT_TRUE(std::isnan(binary_scalar<double>(Op::Pow, -8.0, 1.0 / 3)));
}

TEST(ScalarOps, MaxMinPropagateNaN) {
  using interp::binary_scalar;
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(binary_scalar<double>(Op::Max, nan, 1.0)));
  EXPECT_TRUE(std::isnan(binary_scalar<double>(Op::Max, 1.0, nan)));
  EXPECT_TRUE(std::isnan(binary_scalar<double>(Op::Min, 1.0, nan)));
  EXPECT_EQ(binary_scalar<double>(Op::Min, 1.0, -3.0), -3.0);
}

TEST(ScalarOps, ShiftsAndWrapping) {
  using interp::binary_scalar;
  using interp::unary_scalar;
  EXPECT_EQ(binary_scalar<int32_t>(Op::ShiftLeft, 1, 31), INT32_MIN);
  EXPECT_EQ(binary_scalar<int32_t>(Op::ShiftLeft, 1, 32), 0);
  EXPECT_EQ(binary_scalar<int32_t>(Op::ShiftRight, -8, 1), -4);
  EXPECT_EQ(binary_scalar<int32_t>(Op::ShiftRight, -8, 40), -1);
  EXPECT_EQ(binary_scalar<int64_t>(Op::Add, INT64_MAX, 1), INT64_MIN);
  EXPECT_EQ(unary_scalar<int64_t>(Op::Neg, INT64_MIN), INT64_MIN);
  EXPECT_EQ(unary_scalar<int32_t>(Op::Not, 5), ~5);
  EXPECT_EQ(unary_scalar<bool>(Op::Not, true), false);
}

TEST(ScalarOps, SignAndConversions) {
  using interp::convert_scalar;
  using interp::unary_scalar;
  EXPECT_TRUE(std::isnan(unary_scalar<double>(Op::Sign, NAN)));
  EXPECT_EQ(unary_scalar<double>(Op::Sign, -0.0), 0.0);
  EXPECT_EQ(unary_scalar<int64_t>(Op::Sign, -5), -1);
  EXPECT_EQ((convert_scalar<int64_t, double>(NAN)), INT64_MIN);
  EXPECT_EQ((convert_scalar<bool, double>(NAN)), true);
  EXPECT_EQ((convert_scalar<int32_t, int64_t>(int64_t(1) << 33)), 0);
}
