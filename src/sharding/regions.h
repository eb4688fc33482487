// Which elements of its inputs a kernel reads to compute a box of its output: index ranges
// propagated from the roots down through the inlined graph (movement ops shift, mirror or drop
// ranges; reductions and contractions read their reduced axes whole). Bounding boxes, so a
// region may over-approximate (a reshape of part of the rows reads their bounding rows). For the communication a placed
// kernel needs: what each device reads outside its own shards.
#pragma once

#include <unordered_map>
#include <vector>

#include "passes/kernel_plan.h"

namespace jx::sharding {

// [lo, hi) per axis; empty when nothing is read.
struct Region {
  std::vector<int64_t> lo, hi;
  bool empty() const;
  int64_t size() const;
};

// The region of each of plan's inputs that computing `box` of its roots reads (inputs not read
// are absent).
std::unordered_map<const ir::Node *, Region> input_regions(const passes::KernelPlan &plan,
                                                           const Region &box);

// The part of a inside b.
Region intersect(const Region &a, const Region &b);

} // namespace jx::sharding
