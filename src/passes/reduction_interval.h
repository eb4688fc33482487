// reduction_interval: a reduction over one axis whose terms outside an interval of that axis are
// its identity (sum(where(arange(n) < k, x, 0)), a masked dot product picking one row's entries
// out of all nonzeros) loops over the interval alone: O(interval), not O(axis), per element.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/node.h"

namespace jx::passes {

// A bound on the reduced index: value + offset, where value is an integer node of the masked
// operand's shape that does not vary along the reduced axis (read at the reduction's element with
// any reduced index). A bound found under a broadcast of the mask is a new node, that broadcast
// of the bound: its holder keeps it alive while code refers to it.
struct IndexBound {
  ir::NodePtr value;
  int64_t offset;
};

struct ReductionInterval {
  // The masked operand: the reduction's operand, or the contraction's lhs (0) or rhs (1), a
  // select(mask, terms, identity) whose mask holds exactly where lower <= index < upper for every
  // bound of both lists (and the axis's own bounds).
  int operand;
  std::vector<IndexBound> lower, upper;
  // A float contraction's terms outside are 0 * the other operand's: +-0 where that is finite,
  // NaN where not. The other operand does not vary along the axis where the mask is false, so one
  // such term (at any index outside) stands for them all; it is added once where any exist.
  bool complement_term = false;
};

// The interval of a reduce_sum, reduce_prod, reduce_max or reduce_min over one axis, or of a
// dot_general contracting one axis; none where the terms are not so masked.
std::optional<ReductionInterval> reduction_interval(const ir::Node &reduction);

} // namespace jx::passes
