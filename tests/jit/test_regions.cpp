// Region propagation: which input elements a kernel reads for a box of its output.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "sharding/regions.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
using jx::sharding::input_regions;
using jx::sharding::Region;
namespace ir = jx::ir;

NodePtr param(jx::Shape shape) { return ir::parameter(0, jx::float64, std::move(shape)); }

Region read(const NodePtr &root, const NodePtr &input, Region box) {
  jx::passes::KernelPlan plan{{root}, {input.get()}};
  auto regions = input_regions(plan, box);
  auto it = regions.find(input.get());
  return it == regions.end() ? Region{} : it->second;
}

void expect_region(const Region &r, std::vector<int64_t> lo, std::vector<int64_t> hi) {
  EXPECT_EQ(r.lo, lo);
  EXPECT_EQ(r.hi, hi);
}

TEST(Regions, DiffReadsOneRowAbove) {
  // diff(x, prepend=0) along axis 0: concatenate, then two shifted slices.
  NodePtr x = param({8, 4});
  NodePtr zero = ir::broadcast(ir::literal(0, jx::float64, true), {1, 4}, {});
  NodePtr cat = ir::concatenate({zero, x}, 0);
  NodePtr d = ir::binary(Op::Sub, ir::slice(cat, {1, 0}, {9, 4}, {1, 1}),
                         ir::slice(cat, {0, 0}, {8, 4}, {1, 1}));
  expect_region(read(d, x, {{4, 0}, {6, 4}}), {3, 0}, {6, 4});
  expect_region(read(d, x, {{0, 1}, {2, 3}}), {0, 1}, {2, 3}); // row 0 reads the prepended zeros
}

TEST(Regions, ReversedSlicesTransposesAndBroadcasts) {
  NodePtr x = param({10, 6});
  NodePtr flipped = ir::slice(x, {9, 0}, {-1, 6}, {-1, 1});
  expect_region(read(flipped, x, {{0, 0}, {3, 6}}), {7, 0}, {10, 6});
  NodePtr t = ir::transpose(x, {1, 0});
  expect_region(read(t, x, {{1, 2}, {3, 5}}), {2, 1}, {5, 3});
  NodePtr row = param({6});
  NodePtr b = ir::broadcast(row, {10, 6}, {1});
  expect_region(read(b, row, {{4, 2}, {5, 4}}), {2}, {4});
}

TEST(Regions, ReductionsReadTheirReducedAxesWhole) {
  NodePtr x = param({5, 7});
  NodePtr s = ir::reduce(Op::ReduceSum, x, {1});
  expect_region(read(s, x, {{1}, {3}}), {1, 0}, {3, 7});
  NodePtr a = param({4, 3}), b = ir::parameter(1, jx::float64, {3, 5});
  NodePtr mm = ir::dot_general(a, b, {}, {}, {1}, {0});
  jx::passes::KernelPlan plan{{mm}, {a.get(), b.get()}};
  auto regions = input_regions(plan, {{1, 2}, {2, 4}});
  expect_region(regions.at(a.get()), {1, 0}, {2, 3});
  expect_region(regions.at(b.get()), {0, 2}, {3, 4});
}

TEST(Regions, PadClampsToTheOperand) {
  NodePtr x = param({4});
  NodePtr p = ir::pad(x, ir::literal(0, jx::float64, true), {2}, {3});
  expect_region(read(p, x, {{0}, {3}}), {0}, {1});
  jx::passes::KernelPlan plan{{p}, {x.get()}};
  EXPECT_EQ(input_regions(plan, {{7}, {9}}).count(x.get()), 0u); // only padding
}

} // namespace
