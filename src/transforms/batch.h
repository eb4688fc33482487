// vmap's graph rewrite: a per-example graph turned into one over a batch, each op's batching
// rule moving the batch axis through it (no loop).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// outputs rewritten so that each per-example node of `params` is replaced by its batched
// counterpart in `batched` (same dtype, shape [B] + the node's). Every node that depends on them
// becomes its batched form, the batch axis first; the others stay as they are. Per output: the
// rewritten node and whether it is batched.
struct BatchedOutput {
  ir::NodePtr node;
  bool batched;
};
std::vector<BatchedOutput> batch(const std::vector<ir::NodePtr> &outputs,
                                 const std::vector<ir::NodePtr> &params,
                                 const std::vector<ir::NodePtr> &batched, int64_t size);

// x with axis `from` moved to position `to` (numpy.moveaxis).
ir::NodePtr move_axis(const ir::NodePtr &x, int64_t from, int64_t to);

} // namespace jx::transforms
