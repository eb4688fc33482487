// split_concatenates and the plans of many-piece concatenations: bounded fan-in, values kept.
#include <gtest/gtest.h>

#include <jx/jx.h>

#include <algorithm>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/fusion.h"
#include "passes/passes.h"
#include "passes/pipeline.h"

namespace {

namespace ir = jx::ir;
namespace jnp = jx::numpy;
using jx::Array;
using jx::ir::Node;
using jx::ir::NodePtr;
using jx::ir::Op;
using jx::passes::max_concat_operands;
using jx::passes::Step;
using pass_test::vec;

// The most operands of any concatenation reachable from root, and the levels of concatenations
// along the deepest path.
struct Fan {
  size_t widest = 0;
  int depth = 0;
};
Fan fan(const NodePtr &root) {
  Fan out;
  std::unordered_map<const Node *, int> depth;
  for (const Node *n : ir::topological_order({root})) {
    int d = 0;
    for (const NodePtr &in : n->inputs)
      d = std::max(d, depth[in.get()]);
    if (n->op == Op::Concatenate) {
      out.widest = std::max(out.widest, n->inputs.size());
      ++d;
    }
    depth[n] = d;
    out.depth = std::max(out.depth, d);
  }
  return out;
}

// The branches a kernel's code takes over concatenation operands (operands of the concatenations
// it computes inline).
size_t inline_branches(const jx::passes::KernelPlan &plan) {
  std::unordered_set<const Node *> seen(plan.inputs.begin(), plan.inputs.end());
  std::vector<const Node *> stack;
  for (const NodePtr &r : plan.roots)
    if (seen.insert(r.get()).second) stack.push_back(r.get());
  size_t branches = 0;
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    if (n->op == Op::Concatenate) branches += n->inputs.size();
    for (const NodePtr &in : n->inputs)
      if (seen.insert(in.get()).second) stack.push_back(in.get());
  }
  return branches;
}

// Every kernel of the optimized plan of roots reads at most max_concat_operands buffers and
// branches over a few times that many operands at most (multi-output fusion may merge a few
// levels' kernels), not over thousands.
void expect_bounded_kernels(const std::vector<NodePtr> &roots) {
  const std::vector<Step> steps = jx::passes::plan_steps(jx::passes::optimize(roots));
  size_t kernels = 0;
  for (const Step &s : steps) {
    if (s.kind != Step::Kind::Kernel) continue;
    ++kernels;
    EXPECT_LE(s.plan.inputs.size(), max_concat_operands);
    EXPECT_LE(inline_branches(s.plan), 4 * max_concat_operands);
  }
  EXPECT_GT(kernels, 1u);
}

std::vector<NodePtr> pieces(int n) {
  std::vector<NodePtr> out;
  for (int i = 0; i < n; ++i)
    out.push_back(vec<double>({3.0 * i, 3.0 * i + 1, 3.0 * i + 2}));
  return out;
}

TEST(SplitConcatenates, NarrowOnesStay) {
  NodePtr c = ir::concatenate(pieces(int(max_concat_operands)), 0);
  EXPECT_EQ(jx::passes::split_concatenates({c})[0], c);
}

TEST(SplitConcatenates, TenThousandPiecesBecomeThreeLevels) {
  NodePtr c = ir::concatenate(pieces(10000), 0);
  NodePtr out = jx::passes::split_concatenates({c})[0];
  const Fan f = fan(out);
  EXPECT_LE(f.widest, max_concat_operands);
  EXPECT_EQ(f.depth, 3); // 10,000 -> 157 -> 3 -> 1
  pass_test::expect_identical(out, c);
}

TEST(SplitConcatenates, LevelsAreEvenAlongAnInnerAxis) {
  // 65 operands: two groups of 32 and 33, not 64 and 1.
  std::vector<NodePtr> parts;
  for (int i = 0; i < 65; ++i)
    parts.push_back(vec<double>({double(i), -double(i)}, {2, 1}));
  NodePtr c = ir::concatenate(parts, 1);
  NodePtr out = jx::passes::split_concatenates({c})[0];
  ASSERT_EQ(out->op, Op::Concatenate);
  ASSERT_EQ(out->inputs.size(), 2u);
  EXPECT_EQ(out->inputs[0]->inputs.size(), 32u);
  EXPECT_EQ(out->inputs[1]->inputs.size(), 33u);
  pass_test::expect_identical(out, c);
}

// Linearity, structurally: no kernel of the plan branches over (or reads) thousands of pieces.
TEST(SplitConcatenates, PlanOfTenThousandBuffersIsBounded) {
  NodePtr c = ir::concatenate(pieces(10000), 0);
  expect_bounded_kernels({ir::reduce(Op::ReduceSum, c, {0})});
  expect_bounded_kernels({c});
}

TEST(SplitConcatenates, PlanOfTenThousandComputedPiecesIsBounded) {
  // Traced pieces x + i: multi-output fusion must not merge the levels back into one kernel.
  NodePtr x = ir::parameter(0, jx::float64, {3});
  std::vector<NodePtr> parts;
  for (int i = 0; i < 10000; ++i)
    parts.push_back(
        ir::binary(Op::Add, x, ir::broadcast(ir::literal(i, jx::float64, true), {3}, {})));
  expect_bounded_kernels({ir::reduce(Op::ReduceSum, ir::concatenate(parts, 0), {0})});
}

double expected_sum(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += 3 + 3.0 * i;
  return s;
}

TEST(SplitConcatenates, TenThousandPiecesEagerly) {
  std::vector<Array> xs;
  for (int i = 0; i < 10000; ++i)
    xs.push_back(jnp::arange(3) * 1.0 + double(i));
  for (const Array &x : xs)
    x.block_until_ready();
  Array c = jnp::concatenate(xs);
  EXPECT_EQ(jnp::sum(c).item<double>(), expected_sum(10000));
  const std::vector<double> v = c.to_vector<double>();
  ASSERT_EQ(v.size(), 30000u);
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(v[3 * i + 2], 2.0 + i) << i;
}

TEST(SplitConcatenates, TenThousandPiecesUnderJit) {
  auto f = jx::jit([](Array x) {
    std::vector<Array> parts;
    for (int i = 0; i < 10000; ++i)
      parts.push_back(x + double(i));
    return jnp::concatenate(parts);
  });
  Array c = f(jnp::arange(3) * 1.0);
  EXPECT_EQ(jnp::sum(c).item<double>(), expected_sum(10000));
  EXPECT_EQ(c.to_vector<double>()[29999], 2.0 + 9999);
}

TEST(SplitConcatenates, StackOfManyConstantsStillOneExpression) {
  // stack_to_broadcast runs before the split: a stack of expressions differing in constants is
  // one expression over a constant vector, however many they are.
  NodePtr x = ir::parameter(0, jx::float64, {7});
  std::vector<NodePtr> parts;
  for (int i = 0; i < 200; ++i)
    parts.push_back(ir::reshape(
        ir::binary(Op::Mul, x, ir::broadcast(ir::literal(i, jx::float64, true), {7}, {})), {7, 1}));
  NodePtr out = jx::passes::optimize({ir::concatenate(parts, 1)})[0];
  EXPECT_EQ(fan(out).widest, 0u) << ir::print_graph({out});
}

} // namespace
