// Fusion decisions (passes::plan_steps): which nodes get buffers (roots, shared work read at other
// indices, work hoisted from under a broadcast, depth cuts, concatenation levels), and which
// kernels merge (one shape, bounded inputs and nodes, never into a cycle), each at and either side
// of its threshold.
#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "ir/builder.h"
#include "ir/printer.h"
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

namespace {

// ---- helpers for the threshold tests ----

// The roots of each kernel, in step order.
std::vector<std::vector<NodePtr>> kernel_roots(const std::vector<Step> &steps) {
  std::vector<std::vector<NodePtr>> out;
  for (const Step *k : kernels(steps))
    out.push_back(k->plan.roots);
  return out;
}

// The number of roots of each kernel, smallest first.
std::vector<size_t> group_sizes(const std::vector<Step> &steps) {
  std::vector<size_t> sizes;
  for (const Step *k : kernels(steps))
    sizes.push_back(k->plan.roots.size());
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// Every step runs after the steps producing its inputs.
void expect_dependency_order(const std::vector<Step> &steps) {
  std::unordered_map<const ir::Node *, size_t> at;
  for (size_t i = 0; i < steps.size(); ++i) {
    at[steps[i].node.get()] = i;
    for (const NodePtr &r : steps[i].plan.roots)
      at[r.get()] = i;
  }
  for (size_t i = 0; i < steps.size(); ++i)
    for (const ir::Node *in : steps[i].plan.inputs)
      EXPECT_LT(at.at(in), i) << ir::print_graph(steps[i].node);
}

// x + 1 + 2 + ... + n: n arithmetic ops.
NodePtr adds(const NodePtr &x, int n) {
  NodePtr v = x;
  for (int i = 1; i <= n; ++i)
    v = bin(Op::Add, v, scalar(i));
  return v;
}

// v (of shape {100}) read under a broadcast along a new leading axis of 50.
NodePtr spread(const NodePtr &v) {
  return ir::binary(Op::Mul, ir::broadcast(v, {50, 100}, {1}), param(9, {50, 100}));
}

// ---- hoisting work out of expanding broadcasts ----

TEST(FusionHoisting, FourArithmeticOpsAreWorthABuffer) {
  NodePtr x = param(0, {100});
  for (int n : {3, 4, 5}) {
    NodePtr v = adds(x, n);
    const auto steps = jx::passes::plan_steps({spread(v)});
    EXPECT_EQ(materialized(steps, v), n >= 4) << n << " adds";
    EXPECT_EQ(kernels(steps).size(), n >= 4 ? 2u : 1u) << n << " adds";
  }
}

TEST(FusionHoisting, SharedSubexpressionsCountOnce) {
  // v3 = ((x + 1)^2)^2: three ops, though a tree of them would be seven.
  NodePtr x = param(0, {100});
  NodePtr v1 = bin(Op::Add, x, scalar(1));
  NodePtr v2 = ir::binary(Op::Mul, v1, v1);
  NodePtr v3 = ir::binary(Op::Mul, v2, v2);
  NodePtr v4 = ir::binary(Op::Mul, v3, v3);
  EXPECT_FALSE(materialized(jx::passes::plan_steps({spread(v3)}), v3));
  EXPECT_TRUE(materialized(jx::passes::plan_steps({spread(v4)}), v4));
}

TEST(FusionHoisting, ExpensiveOpsAloneAreWorthABuffer) {
  NodePtr x = param(0, {100});
  for (Op op : {Op::Sqrt, Op::Exp, Op::Log, Op::Sin, Op::ErfInv}) {
    NodePtr v = ir::unary(op, x);
    EXPECT_TRUE(materialized(jx::passes::plan_steps({spread(v)}), v)) << ir::print_graph(v);
  }
  for (Op op : {Op::Div, Op::Rem, Op::FloorDiv, Op::Pow}) {
    NodePtr v = bin(op, x, scalar(3));
    EXPECT_TRUE(materialized(jx::passes::plan_steps({spread(v)}), v)) << ir::print_graph(v);
  }
  // Casts and movement are free; one cheap op is not worth a buffer.
  NodePtr cast = ir::convert(ir::convert(x, jx::float32), jx::float64);
  EXPECT_FALSE(materialized(jx::passes::plan_steps({spread(cast)}), cast));
  NodePtr flipped = ir::slice(x, {99}, {-1}, {-1});
  EXPECT_FALSE(materialized(jx::passes::plan_steps({spread(flipped)}), flipped));
  NodePtr negated = ir::unary(Op::Neg, x);
  EXPECT_FALSE(materialized(jx::passes::plan_steps({spread(negated)}), negated));
}

TEST(FusionHoisting, WorkStopsAtBuffers) {
  // Three adds over a reduction (which has its buffer anyway): three ops, not hoisted.
  NodePtr s = ir::reduce(Op::ReduceSum, param(0, {7, 100}), {0});
  NodePtr three = adds(s, 3), four = adds(s, 4);
  EXPECT_FALSE(materialized(jx::passes::plan_steps({spread(three)}), three));
  EXPECT_TRUE(materialized(jx::passes::plan_steps({spread(four)}), four));
}

TEST(FusionHoisting, WorkOverABufferCostsItsOwnOps) {
  // log(x), read under a broadcast and by b, has a buffer: b = a + 1 + 2 + 3 costs three adds.
  NodePtr x = param(0, {100});
  NodePtr a = ir::unary(Op::Log, x);
  NodePtr b = adds(a, 3);
  NodePtr y = ir::binary(Op::Add, spread(a), spread(b));
  const auto steps = jx::passes::plan_steps({y});
  EXPECT_TRUE(materialized(steps, a));
  EXPECT_FALSE(materialized(steps, b));
  NodePtr c = adds(a, 4);
  EXPECT_TRUE(materialized(jx::passes::plan_steps({ir::binary(Op::Add, spread(a), spread(c))}), c));
}

TEST(FusionHoisting, ReshapesUnderTheBroadcastAreLookedThrough) {
  // What is hoisted is log(x), not its reshape: reading the buffer through it is index arithmetic.
  NodePtr x = param(0, {100});
  NodePtr heavy = ir::unary(Op::Log, x);
  NodePtr shaped = ir::reshape(heavy, {10, 10});
  NodePtr y =
      ir::binary(Op::Mul, ir::broadcast(shaped, {3, 10, 10}, {1, 2}), param(1, {3, 10, 10}));
  const auto steps = jx::passes::plan_steps({y});
  EXPECT_TRUE(materialized(steps, heavy));
  EXPECT_FALSE(materialized(steps, shaped));
}

TEST(FusionHoisting, ABroadcastThatDoesNotExpandHoistsNothing) {
  // Inserting a unit axis repeats nothing.
  NodePtr x = param(0, {100});
  NodePtr heavy = ir::unary(Op::Log, x);
  NodePtr y = ir::unary(Op::Exp, ir::broadcast(heavy, {1, 100}, {1}));
  const auto steps = jx::passes::plan_steps({y});
  EXPECT_FALSE(materialized(steps, heavy));
  EXPECT_EQ(kernels(steps).size(), 1u);
}

// ---- shared work, depth cuts, concatenation levels ----

TEST(FusionMaterialization, WorkReadAtItsOwnIndexBySeveralIsComputedOnce) {
  NodePtr x = param(0, {100});
  NodePtr a = ir::unary(Op::Log, x);
  NodePtr y = ir::binary(Op::Add, a, ir::binary(Op::Mul, a, a));
  const auto steps = jx::passes::plan_steps({y});
  EXPECT_FALSE(materialized(steps, a));
  EXPECT_EQ(kernels(steps).size(), 1u);
}

TEST(FusionMaterialization, WorkReadAtAnotherIndexBySeveralGetsABuffer) {
  NodePtr x = param(0, {100});
  NodePtr a = ir::unary(Op::Log, x);
  auto flip = [](const NodePtr &v) { return ir::slice(v, {99}, {-1}, {-1}); };
  // One reader, through the flip: computed inline at the flipped index.
  EXPECT_FALSE(materialized(jx::passes::plan_steps({ir::unary(Op::Exp, flip(a))}), a));
  // Two readers, one through the flip: computed once into a buffer.
  EXPECT_TRUE(materialized(jx::passes::plan_steps({ir::binary(Op::Add, flip(a), a)}), a));
  // Unless it is trivial: a cast of a parameter costs nothing to recompute.
  NodePtr cast = ir::convert(ir::convert(x, jx::float32), jx::float64);
  EXPECT_FALSE(materialized(jx::passes::plan_steps({ir::binary(Op::Add, flip(cast), cast)}), cast));
}

TEST(FusionMaterialization, CostlyWorkSeveralKernelsComputeGetsABufferWhereItFitsTheCache) {
  // Two reductions (kernels of their own) over one power, as nbody's three products over
  // pow(r, -1.5): computed once into a buffer, read back from the cache by both.
  for (int64_t n : {10, 50, 400}) {
    NodePtr x = param(0, {n, n});
    NodePtr p = bin(Op::Pow, x, scalar(-1.5));
    NodePtr rows = ir::reduce(Op::ReduceSum, bin(Op::Mul, p, scalar(2)), {1}),
            cols = ir::reduce(Op::ReduceSum, bin(Op::Add, p, scalar(1)), {0});
    // 100 elements recompute as cheaply; 160,000 would cost a pass over memory to read back.
    EXPECT_EQ(materialized(jx::passes::plan_steps({rows, cols}), p), n == 50) << n;
    // One kernel reading it: inline.
    EXPECT_FALSE(materialized(jx::passes::plan_steps({rows}), p)) << n;
  }
}

TEST(FusionMaterialization, IndicesAGatherFromAVectorReadsAreReadAtTheirOwnPositions) {
  // A bin estimated (costly work), then corrected by comparing with the edge it gathers: the
  // gather reads the estimate where the comparison does, so one kernel computes it once.
  NodePtr x = param(0, {1000});
  NodePtr edges = param(1, {11});
  NodePtr estimate = ir::convert(bin(Op::Mul, ir::unary(Op::Exp, x), scalar(10)), jx::int64);
  NodePtr below = ir::binary(Op::Lt, x, ir::take(edges, estimate, 0, false));
  NodePtr one = ir::broadcast(ir::literal(1, jx::int64, true), estimate->shape, {});
  NodePtr corrected = ir::select(below, ir::binary(Op::Sub, estimate, one), estimate);
  const auto steps = jx::passes::plan_steps({corrected});
  EXPECT_FALSE(materialized(steps, estimate));
  EXPECT_EQ(kernels(steps).size(), 1u);
  // From a matrix, each index is read for every element of its row: worth a buffer.
  NodePtr table = param(2, {11, 4});
  NodePtr rows = ir::take(table, estimate, 0, false);
  NodePtr twice = ir::binary(Op::Add, rows,
                             ir::broadcast(ir::convert(estimate, jx::float64), rows->shape, {0}));
  EXPECT_TRUE(materialized(jx::passes::plan_steps({twice}), estimate));
}

TEST(FusionLiterals, LiteralsThatChooseAnInstructionAreCompiledIn) {
  // x // 2, x % 1000, x >> 3 and x ** 2 compile their literal in (a shift, a multiply, an
  // immediate); x + 7 reads its 7 from the literal buffer, so a new constant reuses the code.
  NodePtr x = ir::parameter(0, jx::int64, {64});
  auto lit = [](int64_t v) { return ir::literal(double(v), jx::int64, true); };
  auto with = [&](Op op, int64_t v) {
    return ir::binary(op, x, ir::broadcast(lit(v), x->shape, {}));
  };
  NodePtr y = ir::binary(Op::Add,
                         ir::binary(Op::Add,
                                    ir::binary(Op::Add, with(Op::FloorDiv, 2), with(Op::Rem, 1000)),
                                    ir::binary(Op::Add, with(Op::ShiftRight, 3), with(Op::Pow, 2))),
                         with(Op::Add, 7));
  const auto steps = jx::passes::plan_steps({y});
  ASSERT_EQ(kernels(steps).size(), 1u);
  const auto &literals = kernels(steps)[0]->plan.literals;
  ASSERT_EQ(literals.size(), 1u);
  EXPECT_EQ(literals[0]->ivalue, 7);
  // A float division's divisor stays in the buffer: the instruction is a division either way.
  NodePtr f = param(1, {64});
  const auto float_steps = jx::passes::plan_steps({bin(Op::Div, f, scalar(3))});
  EXPECT_EQ(kernels(float_steps)[0]->plan.literals.size(), 1u);
}

TEST(FusionMaterialization, UpdatesAndReadersOfAFewElementsRepeatNoWork) {
  // x.at[k].set(x[k - 1] * 2) over costly x: the update reads x where it writes, the read of
  // one element recomputes one; one kernel computes x inline (a loop step's y + roll(y, k) * a
  // updated at k, durbin's).
  NodePtr x = ir::unary(Op::Exp, param(0, {1000}));
  NodePtr k = ir::parameter(1, jx::int64, {});
  NodePtr one = ir::literal(1, jx::int64, true);
  NodePtr before = ir::dynamic_slice(x, {ir::binary(Op::Sub, k, one)}, {1});
  NodePtr y = ir::dynamic_update_slice(x, bin(Op::Mul, before, scalar(2)), {k});
  const auto steps = jx::passes::plan_steps({y});
  EXPECT_FALSE(materialized(steps, x));
  EXPECT_EQ(kernels(steps).size(), 1u);
  // A reader of a quarter of it (rows 0..250 reversed) would recompute 250 exponentials: a
  // buffer.
  NodePtr part = ir::slice(x, {249}, {-1}, {-1});
  EXPECT_TRUE(materialized(jx::passes::plan_steps({y, ir::unary(Op::Neg, part)}), x));
}

TEST(FusionMaterialization, ScalarWorkIsComputedInEveryKernelThatReadsIt) {
  // A 0-d value under broadcasts (a step's coefficient, a clamped index) costs each reader one
  // computation outside its loop: cheaper than a kernel launch of its own, as in a loop's step.
  NodePtr s = ir::parameter(0, jx::float64, {});
  NodePtr coefficient = ir::binary(Op::Div, ir::unary(Op::Exp, s), scalar(3));
  NodePtr x = param(1, {100});
  NodePtr scaled = ir::binary(Op::Mul, x, ir::broadcast(coefficient, x->shape, {}));
  NodePtr total = ir::reduce(Op::ReduceSum, ir::binary(Op::Add, scaled, scaled), {0});
  const auto steps = jx::passes::plan_steps({total, scaled});
  EXPECT_FALSE(materialized(steps, coefficient));
  EXPECT_EQ(kernels(steps).size(), 2u);
}

TEST(FusionMaterialization, CheapWorkReadAtAnotherIndexIsRecomputed) {
  // A stencil's difference and its doubling: 2 and 3 arithmetic ops per element, recomputed at
  // each index that reads them; a fourth op makes the work worth a buffer.
  NodePtr x = param(0, {100});
  auto shifted = [](const NodePtr &v, int64_t by) { return ir::slice(v, {by}, {99 + by}, {1}); };
  NodePtr d = ir::binary(Op::Sub, shifted(x, 1), shifted(x, 0));
  NodePtr twice = ir::binary(Op::Add, d, d);
  NodePtr more = ir::binary(Op::Mul, ir::binary(Op::Mul, twice, twice), d);
  auto stencil = [&](const NodePtr &v) {
    return ir::binary(Op::Sub, ir::slice(v, {1}, {99}, {1}), ir::slice(v, {0}, {98}, {1}));
  };
  auto read_twice = [&](const NodePtr &v) {
    return ir::binary(Op::Add, ir::slice(v, {0}, {98}, {1}), stencil(v));
  };
  EXPECT_FALSE(materialized(jx::passes::plan_steps({read_twice(d)}), d));
  EXPECT_FALSE(materialized(jx::passes::plan_steps({read_twice(twice)}), twice));
  EXPECT_TRUE(materialized(jx::passes::plan_steps({read_twice(more)}), more));
  EXPECT_EQ(kernels(jx::passes::plan_steps({read_twice(twice)})).size(), 1u);
}

TEST(FusionMaterialization, ArraysBeyondTheCachesAreRecomputedUpToTheirTraffic) {
  // hdiff's shape: a Laplacian read at two places by a flux, the flux read at two places. The
  // Laplacian is 4 ops (its two equal sums are one node). Below 2 MiB it is worth a buffer (4 ops
  // reach the threshold); beyond, a buffer costs a write and a read back from memory, and the
  // Laplacian and the flux (4 ops and two Laplacians, 12) are recomputed where they are read; a
  // third level would cost 2 x 12 + 3 ops, and is not.
  for (const int64_t n : {int64_t(1) << 14, int64_t(1) << 20}) {
    NodePtr x = param(0, {n + 8});
    auto at = [](const NodePtr &v, int64_t by, int64_t length) {
      return ir::slice(v, {by}, {by + length}, {1});
    };
    auto lap_of = [&](const NodePtr &v, int64_t m) {
      NodePtr sides = ir::binary(Op::Add, ir::binary(Op::Add, at(v, 0, m), at(v, 2, m)),
                                 ir::binary(Op::Add, at(v, 0, m), at(v, 2, m)));
      return ir::binary(Op::Sub, ir::binary(Op::Mul, at(v, 1, m), at(v, 1, m)), sides);
    };
    NodePtr lap = lap_of(x, n + 6);
    NodePtr diff = ir::binary(Op::Sub, at(lap, 1, n + 5), at(lap, 0, n + 5));
    NodePtr flux = ir::binary(Op::Mul, ir::binary(Op::Mul, diff, diff),
                              ir::binary(Op::Add, diff, at(x, 0, n + 5)));
    NodePtr out = ir::binary(Op::Sub, at(flux, 1, n + 4), at(flux, 0, n + 4));
    const bool large = n * 8 >= (int64_t(2) << 20);
    const auto steps = jx::passes::plan_steps({out});
    EXPECT_EQ(materialized(steps, lap), !large) << n;
    EXPECT_EQ(kernels(steps).size(), large ? 1u : 3u) << n;
    NodePtr outer = ir::binary(Op::Mul, ir::binary(Op::Mul, out, out), out);
    NodePtr third = ir::binary(Op::Sub, at(outer, 1, n + 3), at(outer, 0, n + 3));
    const auto deeper = jx::passes::plan_steps({third});
    EXPECT_TRUE(materialized(deeper, outer) || materialized(deeper, flux)) << n;
    expect_dependency_order(deeper);
  }
}

// A chain of n exps of x.
std::vector<NodePtr> exp_chain(const NodePtr &x, int n) {
  std::vector<NodePtr> chain;
  NodePtr v = x;
  for (int i = 0; i < n; ++i)
    chain.push_back(v = ir::unary(Op::Exp, v));
  return chain;
}

TEST(FusionMaterialization, ChainsAreCutEvery64Levels) {
  // exp number k (from 1) computes at inline depth k - 1 in its kernel; depth 64 is cut.
  NodePtr x = param(0, {16});
  for (int n : {64, 65, 66}) {
    const std::vector<NodePtr> chain = exp_chain(x, n);
    const auto steps = jx::passes::plan_steps({chain.back()});
    EXPECT_EQ(kernels(steps).size(), n <= 65 ? 1u : 2u) << n;
    EXPECT_EQ(materialized(steps, chain[64 - 1]), n == 64) << n;
    if (n >= 65) {
      EXPECT_TRUE(materialized(steps, chain[65 - 1])) << n;
    }
  }
  const std::vector<NodePtr> chain = exp_chain(x, 200);
  const auto steps = jx::passes::plan_steps({chain.back()});
  std::vector<int> cut;
  for (int k = 1; k <= 200; ++k)
    if (materialized(steps, chain[size_t(k - 1)])) cut.push_back(k);
  EXPECT_EQ(cut, (std::vector<int>{65, 130, 195, 200}));
  expect_dependency_order(steps);
}

// A concatenation of n pieces (exp of one element of x each).
NodePtr pieces(const NodePtr &x, int n) {
  std::vector<NodePtr> parts;
  for (int i = 0; i < n; ++i)
    parts.push_back(ir::unary(Op::Exp, ir::slice(x, {i}, {i + 1}, {1})));
  return ir::concatenate(parts, 0);
}

TEST(FusionMaterialization, ConcatenationsOfSixteenReadByConcatenationsAreLevels) {
  NodePtr x = param(0, {32});
  for (int n : {15, 16, 17}) {
    NodePtr inner = pieces(x, n);
    NodePtr outer = ir::concatenate({inner, param(1, {3})}, 0);
    EXPECT_EQ(materialized(jx::passes::plan_steps({outer}), inner), n >= 16) << n;
    // Read by anything else, it is computed inline.
    EXPECT_FALSE(materialized(jx::passes::plan_steps({ir::unary(Op::Exp, inner)}), inner)) << n;
  }
}

// ---- multi-output fusion ----

TEST(FusionMultiOutput, KernelsJoinWhileTheyReadAtMost64Buffers) {
  for (int n : {63, 64, 65}) {
    std::vector<NodePtr> roots;
    for (int i = 0; i < n; ++i)
      roots.push_back(ir::unary(Op::Exp, param(i, {8})));
    const auto steps = jx::passes::plan_steps(roots);
    const std::vector<size_t> expected =
        n <= 64 ? std::vector<size_t>{size_t(n)} : std::vector<size_t>{1, 64};
    EXPECT_EQ(group_sizes(steps), expected) << n;
    EXPECT_TRUE(materialized(steps, roots.back())); // the one left over
    expect_dependency_order(steps);
  }
}

TEST(FusionMultiOutput, KernelsJoinWhileTheyComputeAtMost512Nodes) {
  // A root computing `nodes` nodes: a literal, its broadcast, an add and negations.
  NodePtr x = param(0, {8});
  auto root = [&](int i, int nodes) {
    NodePtr v = bin(Op::Add, x, scalar(i));
    for (int k = 3; k < nodes; ++k)
      v = ir::unary(Op::Neg, v);
    return v;
  };
  ASSERT_EQ(ir::topological_order({root(0, 8)}).size(), 8u + 1); // and x
  // 63 roots of 8 nodes, then one of 7, 8 or 9: 511, 512 or 513 nodes in all.
  for (int last : {7, 8, 9}) {
    std::vector<NodePtr> roots;
    for (int i = 0; i < 63; ++i)
      roots.push_back(root(i, 8));
    roots.push_back(root(63, last));
    const auto steps = jx::passes::plan_steps(roots);
    const std::vector<size_t> expected =
        last <= 8 ? std::vector<size_t>{64} : std::vector<size_t>{1, 63};
    EXPECT_EQ(group_sizes(steps), expected) << last;
    // One input between them, listed once.
    for (const Step *k : kernels(steps))
      EXPECT_EQ(k->plan.inputs, std::vector<const ir::Node *>{x.get()});
  }
}

TEST(FusionMultiOutput, KernelsJoinTheFirstGroupOfTheirShape) {
  NodePtr a = ir::unary(Op::Exp, param(0, {4})), b = ir::unary(Op::Exp, param(1, {5}));
  NodePtr c = ir::unary(Op::Log, param(2, {4})), d = ir::unary(Op::Log, param(3, {5}));
  NodePtr e = ir::unary(Op::Sin, param(4, {4, 1}));
  auto groups = kernel_roots(jx::passes::plan_steps({a, b, c, d, e}));
  std::sort(groups.begin(), groups.end()); // kernels run in a dependency order, not this one
  std::vector<std::vector<NodePtr>> expected = {{a, c}, {b, d}, {e}};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(groups, expected);
}

TEST(FusionMultiOutput, EmptyKernelsAndReductionsOfOtherLoopNestsStayAlone) {
  NodePtr a = ir::unary(Op::Exp, param(0, {0})), b = ir::unary(Op::Log, param(1, {0}));
  EXPECT_EQ(kernels(jx::passes::plan_steps({a, b})).size(), 2u);
  // Over axis 0 of (3, 4); over the last axis of (4, 3), of (3, 4) to a 0-d value; elementwise.
  NodePtr s = ir::reduce(Op::ReduceSum, param(2, {3, 4}), {0});
  NodePtr t = ir::reduce(Op::ReduceMax, param(3, {4, 3}), {1});
  NodePtr v = ir::reduce(Op::ReduceSum, param(5, {3, 4}), {0, 1});
  NodePtr w = ir::reduce(Op::ReduceSum, param(6, {3, 4}), {0, 1});
  NodePtr u = ir::unary(Op::Exp, param(4, {4}));
  const auto groups = kernel_roots(jx::passes::plan_steps({s, t, u, v, w}));
  EXPECT_EQ(groups.size(), 5u);
}

TEST(FusionMultiOutput, SiblingRowReductionsShareAKernel) {
  // Sums, a max and a product over axis 1 of (6, 5, 4) operands: one kernel, whatever they read.
  NodePtr x = param(0, {6, 5, 4}), y = param(1, {6, 5, 4});
  NodePtr e = ir::unary(Op::Exp, x);
  NodePtr s = ir::reduce(Op::ReduceSum, ir::binary(Op::Mul, e, y), {1});
  NodePtr t = ir::reduce(Op::ReduceMax, e, {1});
  NodePtr u = ir::reduce(Op::ReduceProd, y, {1});
  const auto groups = kernel_roots(jx::passes::plan_steps({s, t, u}));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (std::vector<NodePtr>{s, t, u}));
  // A reduction of another's result stays out of its group.
  NodePtr z = ir::reduce(Op::ReduceSum, ir::broadcast(s, {6, 5, 4}, {0, 2}), {1});
  EXPECT_EQ(kernel_roots(jx::passes::plan_steps({s, z})).size(), 2u);
}

TEST(FusionMultiOutput, AKernelNeedingAGroupThroughAnotherGroupStaysOut) {
  // a3 reads a1 through two reductions and b (another shape): joining a1 would make a cycle.
  // a4 reads only x: it joins.
  NodePtr x = param(0, {4}), y = param(1, {5});
  NodePtr a1 = ir::unary(Op::Exp, x);
  NodePtr b = ir::binary(Op::Mul, y, ir::broadcast(ir::reduce(Op::ReduceSum, a1, {0}), {5}, {}));
  NodePtr a3 = ir::binary(Op::Mul, x, ir::broadcast(ir::reduce(Op::ReduceSum, b, {0}), {4}, {}));
  NodePtr a4 = ir::unary(Op::Log, x);
  const auto steps = jx::passes::plan_steps({a1, a3, a4});
  const auto groups = kernel_roots(steps);
  EXPECT_NE(std::find(groups.begin(), groups.end(), std::vector<NodePtr>{a1, a4}), groups.end());
  EXPECT_NE(std::find(groups.begin(), groups.end(), std::vector<NodePtr>{a3}), groups.end());
  expect_dependency_order(steps);
}

// After a chain of n reductions from a parameter, a kernel reading the chain's end: it needs n
// groups and the parameter's.
std::vector<Step> after_reductions(int n, NodePtr &alone, NodePtr &late) {
  alone = ir::unary(Op::Exp, param(0, {4}));
  NodePtr v = param(1, {4});
  for (int i = 0; i < n; ++i)
    v = ir::reduce(Op::ReduceSum, ir::broadcast(v, {2, 4}, {1}), {0});
  late = ir::unary(Op::Exp, v);
  return jx::passes::plan_steps({alone, late});
}

TEST(FusionMultiOutput, TheSearchForWhatAKernelNeedsStopsPast4096Groups) {
  // Within the bound the late kernel joins `alone`, which it does not need; past it, it stays
  // alone without searching further.
  for (int n : {4095, 4096}) {
    NodePtr alone, late;
    const auto steps = after_reductions(n, alone, late);
    ASSERT_EQ(kernels(steps).size(), size_t(n) + (n < 4096 ? 1 : 2)) << n;
    const auto groups = kernel_roots(steps);
    const bool joined =
        std::find(groups.begin(), groups.end(), std::vector<NodePtr>{alone, late}) != groups.end();
    EXPECT_EQ(joined, n < 4096) << n;
    expect_dependency_order(steps);
  }
}

} // namespace
