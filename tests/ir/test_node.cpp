// Hash-consing of graph nodes: equal specs share a node; unused nodes leave the table.
#include <gtest/gtest.h>

#include <thread>

#include "ir/builder.h"

using namespace jx;
using namespace jx::ir;

TEST(Node, EqualSpecsShareOneNode) {
  NodePtr a = iota(DType::float64, {4}, 0);
  NodePtr b = iota(DType::float64, {4}, 0);
  EXPECT_EQ(a.get(), b.get());
  NodePtr s1 = binary(Op::Add, a, b), s2 = binary(Op::Add, a, b);
  EXPECT_EQ(s1.get(), s2.get());
  EXPECT_NE(binary(Op::Mul, a, b).get(), s1.get());
}

TEST(Node, DifferentAttributesOrTypesDiffer) {
  EXPECT_NE(iota(DType::float64, {4}, 0).get(), iota(DType::float32, {4}, 0).get());
  EXPECT_NE(iota(DType::float64, {4, 4}, 0).get(), iota(DType::float64, {4, 4}, 1).get());
  EXPECT_NE(literal(1.0, DType::float64, true).get(), literal(1.0, DType::float64, false).get());
  EXPECT_NE(literal(0.0, DType::float64, false).get(), literal(-0.0, DType::float64, false).get());
}

TEST(Node, ConstantsAreComparedByBuffer) {
  auto buf1 = runtime::make_buffer(8), buf2 = runtime::make_buffer(8);
  NodePtr c1 = constant(buf1, DType::float64, {1});
  EXPECT_EQ(c1.get(), constant(buf1, DType::float64, {1}).get());
  EXPECT_NE(c1.get(), constant(buf2, DType::float64, {1}).get());
}

TEST(Node, UnusedNodesAreFreed) {
  size_t before = live_node_count();
  {
    NodePtr x = iota(DType::float64, {7, 3}, 1);
    NodePtr y = unary(Op::Exp, binary(Op::Mul, x, x));
    EXPECT_GE(live_node_count(), before + 3);
  }
  EXPECT_EQ(live_node_count(), before);
}

TEST(Node, ConcurrentConstructionIsDeduplicated) {
  std::vector<NodePtr> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        NodePtr x = iota(DType::float64, {int64_t(i % 17 + 1)}, 0);
        NodePtr y = binary(Op::Add, x, x);
        if (i == 499) results[t] = y;
      }
    });
  for (auto &th : threads)
    th.join();
  for (int t = 1; t < 4; ++t)
    EXPECT_EQ(results[t].get(), results[0].get());
}

TEST(Node, BuildingIsIndependentOfArraySize) {
  // A graph over a huge shape allocates nothing element-sized.
  NodePtr x = iota(DType::float64, {1 << 20, 1 << 20}, 0);
  NodePtr y = unary(Op::Sin, binary(Op::Mul, x, x));
  EXPECT_EQ(y->size(), int64_t(1) << 40);
  EXPECT_EQ(y->realized(), nullptr);
}

TEST(Node, LongChainsBuildEvaluateAndFreeWithoutRecursion) {
  size_t before = live_node_count();
  {
    NodePtr one = literal(1.0, DType::float64, false);
    NodePtr x = literal(0.0, DType::float64, false);
    for (int i = 0; i < 200000; ++i)
      x = binary(Op::Add, x, one);
    EXPECT_EQ(x->inputs[1].get(), one.get());
  }
  EXPECT_EQ(live_node_count(), before);
}
