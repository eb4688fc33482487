// The kernel ABI's box: a kernel writes exactly the box of its output the caller asks for, along
// its boxed axes, and all of every other axis.
#include <gtest/gtest.h>

#include <vector>

#include "backend/orc_jit.h"
#include "ir/builder.h"
#include "passes/kernel_plan.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
namespace ir = jx::ir;

constexpr double untouched = -1;

// Runs plan's kernel on box with input x (row-major values) and returns its output buffer,
// prefilled with `untouched`.
std::vector<double> run(const jx::passes::KernelPlan &plan, std::vector<int64_t> box,
                        std::vector<double> x) {
  auto kernel = jx::backend::compile(plan);
  std::vector<double> out(plan.roots[0]->size(), untouched);
  std::vector<uint64_t> literals = plan.literal_values();
  void *buffers[] = {out.data(), x.data(), literals.data()};
  kernel->fn(box.data(), buffers);
  return out;
}

std::vector<double> iota(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = double(i);
  return v;
}

TEST(KernelBox, ElementwiseWritesOnlyItsBox) {
  NodePtr x = ir::parameter(0, jx::float64, {6, 10});
  NodePtr y = ir::binary(Op::Mul, x, ir::broadcast(ir::literal(2, jx::float64, true), {6, 10}, {}));
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.boxed_axes = 0b11;
  plan.collect_literals();
  std::vector<double> out = run(plan, {1, 4, 3, 7}, iota(60));
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 10; ++j) {
      const bool inside = i >= 1 && i < 4 && j >= 3 && j < 7;
      EXPECT_EQ(out[i * 10 + j], inside ? 2.0 * (i * 10 + j) : untouched) << i << "," << j;
    }
}

TEST(KernelBox, UnboxedAxesAreCoveredWhole) {
  NodePtr x = ir::parameter(0, jx::float64, {6, 10});
  NodePtr y = ir::unary(Op::Neg, x);
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.collect_literals();
  // Axis 1 is not boxed: its bounds in the box are ignored.
  std::vector<double> out = run(plan, {2, 3, 4, 5}, iota(60));
  for (int64_t j = 0; j < 10; ++j)
    EXPECT_EQ(out[2 * 10 + j], -(20.0 + j));
  EXPECT_EQ(out[0], untouched);
  EXPECT_EQ(out[3 * 10], untouched);
}

TEST(KernelBox, RowReductionAccumulatesOnlyItsBox) {
  // sum over axis 0 of a (5, 6, 10) array: rows of the (6, 10) output accumulate in place.
  NodePtr x = ir::parameter(0, jx::float64, {5, 6, 10});
  NodePtr s = ir::reduce(Op::ReduceSum, x, {0});
  jx::passes::KernelPlan plan{{s}, {x.get()}};
  plan.boxed_axes = 0b11;
  plan.collect_literals();
  std::vector<double> out = run(plan, {2, 5, 6, 9}, iota(300));
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 10; ++j) {
      const bool inside = i >= 2 && i < 5 && j >= 6 && j < 9;
      double expected = 0;
      for (int64_t k = 0; k < 5; ++k)
        expected += double(k * 60 + i * 10 + j);
      EXPECT_EQ(out[i * 10 + j], inside ? expected : untouched) << i << "," << j;
    }
}

} // namespace
