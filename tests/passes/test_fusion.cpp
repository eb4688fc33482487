// Fusion decisions (passes::plan_steps): which nodes get buffers, which kernels merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>

#include "ir/builder.h"
#include "passes/fusion.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
using jx::passes::Step;
namespace ir = jx::ir;

NodePtr param(int64_t position, jx::Shape shape) {
  return ir::parameter(position, jx::float64, std::move(shape));
}
NodePtr scalar(double v) { return ir::literal(v, jx::float64, true); }
NodePtr bin(Op op, const NodePtr &a, const NodePtr &b) {
  return ir::binary(op, a, ir::broadcast(b, a->shape, {}));
}

std::vector<const Step *> kernels(const std::vector<Step> &steps) {
  std::vector<const Step *> out;
  for (const Step &s : steps)
    if (s.kind == Step::Kind::Kernel) out.push_back(&s);
  return out;
}

bool materialized(const std::vector<Step> &steps, const NodePtr &n) {
  return std::any_of(steps.begin(), steps.end(), [&](const Step &s) {
    if (s.kind != Step::Kind::Kernel) return s.node == n;
    return std::find(s.plan.roots.begin(), s.plan.roots.end(), n) != s.plan.roots.end();
  });
}

TEST(Fusion, ElementwiseChainIsOneKernel) {
  NodePtr x = param(0, {64});
  NodePtr y = ir::unary(Op::Exp, bin(Op::Mul, bin(Op::Add, x, scalar(1)), scalar(2)));
  auto steps = jx::passes::plan_steps({y});
  ASSERT_EQ(kernels(steps).size(), 1u);
  EXPECT_EQ(kernels(steps)[0]->plan.roots, std::vector<NodePtr>{y});
  EXPECT_EQ(kernels(steps)[0]->plan.inputs, std::vector<const ir::Node *>{x.get()});
}

TEST(Fusion, UnfusedRunsEveryOpAsItsOwnKernel) {
  NodePtr x = param(0, {64});
  NodePtr y = ir::unary(Op::Exp, bin(Op::Mul, bin(Op::Add, x, scalar(1)), scalar(2)));
  EXPECT_EQ(kernels(jx::passes::plan_steps({y}, false)).size(), 3u);
}

TEST(Fusion, ExpensiveWorkUnderABroadcastIsHoisted) {
  NodePtr x = param(0, {100});
  NodePtr heavy = ir::unary(Op::Log, x);
  NodePtr light = bin(Op::Add, x, scalar(1));
  auto spread = [](const NodePtr &v) { return ir::broadcast(v, {200, 100}, {1}); };
  NodePtr y = ir::binary(Op::Mul, spread(heavy), spread(light));
  auto steps = jx::passes::plan_steps({y});
  EXPECT_TRUE(materialized(steps, heavy));  // once per x, not 200 times
  EXPECT_FALSE(materialized(steps, light)); // one add: cheaper to recompute than to store
}

TEST(Fusion, SiblingsOfOneShapeShareAKernel) {
  NodePtr x = param(0, {100});
  NodePtr a = ir::unary(Op::Log, x), b = ir::unary(Op::Exp, x);
  auto spread = [](const NodePtr &v) { return ir::broadcast(v, {200, 100}, {1}); };
  NodePtr y = ir::binary(Op::Add, spread(a), spread(b));
  auto steps = jx::passes::plan_steps({y});
  auto k = kernels(steps);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0]->plan.roots, (std::vector<NodePtr>{a, b}));
  EXPECT_EQ(k[1]->plan.roots, std::vector<NodePtr>{y});
}

TEST(Fusion, AKernelReadingAnotherIsNotMergedWithIt) {
  // c reads a through a flip (another index): a needs its own buffer first.
  NodePtr x = param(0, {100});
  NodePtr a = ir::unary(Op::Log, x);
  NodePtr c = ir::binary(Op::Add, ir::slice(a, {99}, {-1}, {-1}), a);
  NodePtr d = ir::unary(Op::Exp, x);
  auto steps = jx::passes::plan_steps({c, d});
  for (const Step *k : kernels(steps)) {
    const auto &roots = k->plan.roots;
    const bool has_a = std::find(roots.begin(), roots.end(), a) != roots.end();
    const bool has_c = std::find(roots.begin(), roots.end(), c) != roots.end();
    EXPECT_FALSE(has_a && has_c);
  }
  // Steps stay in dependency order: a's kernel runs before c's.
  size_t a_at = 0, c_at = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    for (const NodePtr &r : steps[i].plan.roots) {
      if (r == a) a_at = i;
      if (r == c) c_at = i;
    }
  EXPECT_LT(a_at, c_at);
}

TEST(Fusion, ReductionsKeepKernelsOfTheirOwn) {
  NodePtr x = param(0, {8, 100});
  NodePtr s = ir::reduce(Op::ReduceSum, x, {0});
  NodePtr e = ir::unary(Op::Exp, param(1, {100}));
  auto steps = jx::passes::plan_steps({s, e});
  for (const Step *k : kernels(steps))
    EXPECT_EQ(k->plan.roots.size(), 1u);
}

} // namespace

namespace {

TEST(Fusion, SiblingGroupsNeverDependOnEachOtherBothWays) {
  // a3 could join a1's group and b4 b2's, each on its own, but together the groups would need
  // each other through the two sums.
  NodePtr x = param(0, {3}), y = ir::parameter(1, jx::float64, {4});
  NodePtr a1 = ir::unary(Op::Exp, x), b2 = ir::unary(Op::Exp, y);
  NodePtr a3 = ir::binary(Op::Mul, x, ir::broadcast(ir::reduce(Op::ReduceSum, b2, {0}), {3}, {}));
  NodePtr b4 = ir::binary(Op::Mul, y, ir::broadcast(ir::reduce(Op::ReduceSum, a1, {0}), {4}, {}));
  auto steps = jx::passes::plan_steps({a1, b2, a3, b4});
  // Every kernel runs after the kernels producing its inputs.
  std::unordered_map<const jx::ir::Node *, size_t> at;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != Step::Kind::Kernel) at[steps[i].node.get()] = i;
    for (const NodePtr &r : steps[i].plan.roots)
      at[r.get()] = i;
  }
  for (size_t i = 0; i < steps.size(); ++i)
    for (const jx::ir::Node *in : steps[i].plan.inputs)
      EXPECT_LT(at.at(in), i);
}

} // namespace
