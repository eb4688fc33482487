// split_concatenates: a concatenation of more than 64 operands becomes a tree of concatenations
// of at most 64 each. Fusion materializes each level (plan_steps), so a kernel branches over at
// most 64 operands: one kernel with a branch per piece grows its code with the pieces, and
// LLVM's time with it faster than linearly (10,000 pieces of 3 elements: 93 s to compile).
#include <algorithm>

#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::NodePtr;
using ir::Op;

NodePtr split_concatenate(const NodePtr &n) {
  if (n->op != Op::Concatenate || n->realized() || n->inputs.size() <= max_concat_operands)
    return n;
  const int64_t axis = n->attrs[0];
  std::vector<NodePtr> level = n->inputs;
  while (level.size() > max_concat_operands) {
    // Groups of equal size (within one), so every level node has at least half the fan-in.
    const size_t groups = (level.size() + max_concat_operands - 1) / max_concat_operands;
    std::vector<NodePtr> next;
    for (size_t g = 0, begin = 0; g < groups; ++g) {
      const size_t end = (level.size() * (g + 1)) / groups;
      next.push_back(ir::concatenate({level.begin() + begin, level.begin() + end}, axis));
      begin = end;
    }
    level = std::move(next);
  }
  return ir::concatenate(std::move(level), axis);
}

} // namespace

std::vector<ir::NodePtr> split_concatenates(const std::vector<ir::NodePtr> &roots) {
  return rewrite(roots, split_concatenate);
}

} // namespace jx::passes
