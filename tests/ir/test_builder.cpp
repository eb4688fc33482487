// Builders: shape/dtype inference per op, O(1) folds, and the verifier's checks.
#include <jx/error.h>

#include <gtest/gtest.h>

#include "ir/builder.h"

using namespace jx;
using namespace jx::ir;

namespace {
NodePtr f64(Shape s) { return iota(DType::float64, std::move(s), 0); }
} // namespace

TEST(Builder, OpTableIsConsistent) {
  EXPECT_EQ(op_name(Op::Add), "add");
  EXPECT_EQ(op_info(Op::Select).arity, 3);
  EXPECT_EQ(op_info(Op::Concatenate).arity, -1);
  EXPECT_EQ(op_kind(Op::DotGeneral), OpKind::Contraction);
  EXPECT_TRUE(is_elementwise(Op::Exp));
  EXPECT_FALSE(is_elementwise(Op::Slice));
  for (int i = 0; i < op_count; ++i)
    EXPECT_FALSE(op_table[i].name.empty());
}

TEST(Builder, ElementwiseDtypes) {
  NodePtr x = f64({3});
  EXPECT_EQ(binary(Op::Lt, x, x)->dtype, DType::bool_);
  EXPECT_EQ(unary(Op::IsNan, x)->dtype, DType::bool_);
  EXPECT_EQ(unary(Op::Exp, x)->dtype, DType::float64);
  EXPECT_EQ(arg_reduce(Op::ArgMax, x, 0)->dtype, DType::int64);
  EXPECT_EQ(convert(x, DType::int32)->dtype, DType::int32);
}

TEST(Builder, MovementShapes) {
  NodePtr x = f64({2, 3, 4});
  EXPECT_EQ(transpose(x, {2, 0, 1})->shape, (Shape{4, 2, 3}));
  EXPECT_EQ(broadcast(f64({3, 1}), {5, 3, 4}, {1, 2})->shape, (Shape{5, 3, 4}));
  EXPECT_EQ(slice(x, {0, 2, 1}, {2, -1, 4}, {1, -1, 2})->shape, (Shape{2, 3, 2}));
  EXPECT_EQ(pad(x, literal(0.0, DType::float64, false), {1, 0, 2}, {0, 3, 0})->shape,
            (Shape{3, 6, 6}));
  EXPECT_EQ(concatenate({x, x, f64({2, 1, 4})}, 1)->shape, (Shape{2, 7, 4}));
  EXPECT_EQ(diagonal(f64({3, 5, 3}), 0, 2)->shape, (Shape{5, 3}));
  EXPECT_EQ(reduce(Op::ReduceSum, x, {0, 2})->shape, (Shape{3}));
  EXPECT_EQ(dot_general(f64({7, 2, 3}), f64({7, 3, 5}), {0}, {0}, {2}, {1})->shape,
            (Shape{7, 2, 5}));
}

TEST(Builder, SliceLength) {
  EXPECT_EQ(slice_length(0, 10, 3), 4);
  EXPECT_EQ(slice_length(9, -1, -1), 10);
  EXPECT_EQ(slice_length(5, 5, 1), 0);
  EXPECT_EQ(slice_length(2, 7, -1), 0);
}

TEST(Builder, TrivialFolds) {
  NodePtr x = f64({2, 3});
  EXPECT_EQ(reshape(x, {2, 3}).get(), x.get());
  EXPECT_EQ(transpose(x, {0, 1}).get(), x.get());
  EXPECT_EQ(broadcast(x, {2, 3}, {0, 1}).get(), x.get());
  EXPECT_EQ(slice(x, {0, 0}, {2, 3}, {1, 1}).get(), x.get());
  EXPECT_EQ(convert(x, DType::float64).get(), x.get());
  EXPECT_EQ(reshape(reshape(x, {6}), {3, 2})->inputs[0].get(), x.get());
  NodePtr lit = convert(literal(2.5, DType::float64, true), DType::int32);
  EXPECT_EQ(lit->op, Op::Literal);
  EXPECT_EQ(lit->ivalue, 2);
  EXPECT_EQ(convert(literal(1e300, DType::float64, true), DType::int64)->ivalue, INT64_MIN);
}

TEST(Builder, VerifierRejectsMalformedNodes) {
  NodePtr x = f64({2, 3});
  NodePtr y = iota(DType::float32, {2, 3}, 0);
  EXPECT_THROW(binary(Op::Add, x, y), Error);            // dtypes differ
  EXPECT_THROW(binary(Op::Add, x, f64({3, 2})), Error);  // shapes differ
  EXPECT_THROW(transpose(x, {0, 0}), Error);             // not a permutation
  EXPECT_THROW(reshape(x, {5}), Error);                  // size changes
  EXPECT_THROW(broadcast(x, {3, 3}, {0, 1}), Error);     // 2 -> 3
  EXPECT_THROW(slice(x, {0, 0}, {3, 3}, {1, 1}), Error); // out of bounds
  EXPECT_THROW(slice(x, {0, 0}, {2, 3}, {0, 1}), Error); // zero step
  EXPECT_THROW(concatenate({x, f64({3, 3})}, 1), Error); // non-axis size differs
  EXPECT_THROW(dot_general(x, x, {}, {}, {1}, {1 + 5}), Error);
  EXPECT_THROW(select(x, x, x), Error); // predicate not bool
  EXPECT_THROW(iota(DType::float64, {2}, 1), Error);
  try {
    reshape(x, {5});
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("internal: reshape"), std::string::npos);
  }
}

TEST(Builder, WeakTypePropagation) {
  NodePtr w = literal(2.0, DType::float64, true);
  EXPECT_TRUE(unary(Op::Exp, w)->weak);
  EXPECT_FALSE(
      binary(Op::Add, w, convert(literal(1.0, DType::float64, false), DType::float64))->weak);
  EXPECT_TRUE(binary(Op::Add, w, w)->weak);
}

// Control flow: results typed as the carries (while) or the branches' outputs (case); regions
// whose types disagree are internal errors (the API raises JAX's errors before); two ops with
// their own regions are two nodes, however alike.
TEST(Builder, ControlFlowOpsAndTheirResults) {
  const NodePtr x = literal(1.0, DType::float64, false), n = literal_int(3, DType::int64, false);
  auto region = [](std::vector<NodePtr> params, std::vector<NodePtr> outputs) {
    return Region{std::move(params), std::move(outputs)};
  };
  const NodePtr px = parameter(0, DType::float64, {}, 91), pn = parameter(1, DType::int64, {}, 91);
  const Region cond = region({px, pn}, {binary(Op::Lt, px, convert(pn, DType::float64))});
  const Region body = region({px, pn}, {binary(Op::Add, px, px)});
  const NodePtr loop = while_loop({x, n}, 1, cond, body);
  EXPECT_EQ(result_count(*loop), 1);
  const NodePtr r = result(loop, 0);
  EXPECT_EQ(r->dtype, DType::float64);
  EXPECT_TRUE(r->shape.empty());
  EXPECT_NE(while_loop({x, n}, 1, cond, body), loop);
  EXPECT_THROW(while_loop({x, n}, 1, cond, region({px, pn}, {convert(px, DType::float32)})), Error);
  EXPECT_THROW(while_loop({x, n}, 1, region({px, pn}, {px}), body), Error);
  EXPECT_THROW(result(loop, 1), Error);

  const NodePtr q = parameter(0, DType::float64, {}, 92);
  const NodePtr branch = case_(literal_int(1, DType::int32, false), {x},
                               {region({q}, {unary(Op::Neg, q)}), region({q}, {q})});
  EXPECT_EQ(result(branch, 0)->dtype, DType::float64);
  EXPECT_THROW(case_(literal_int(1, DType::int64, false), {x}, {region({q}, {q})}), Error);
  EXPECT_THROW(case_(literal_int(0, DType::int32, false), {x},
                     {region({q}, {q}), region({q}, {convert(q, DType::float32)})}),
               Error);
}
