// Memory-aware ordering of the fusion plan's steps.
#pragma once

#include <vector>

#include "passes/fusion.h"

namespace jx::passes {

// Bytes of intermediates live at once, at the worst step, when steps run in this order: each
// computed value from its step to its last reader (outputs, from their step on).
size_t peak_live_bytes(const std::vector<Step> &steps, const std::vector<ir::NodePtr> &outputs);

// Reorders steps within their dependences to lower peak_live_bytes, as XLA's list scheduler:
// repeatedly the ready step that frees the most bytes net of what it allocates, ties in the
// given order. The given order is kept unless the list schedule's peak is lower. A gradient is
// where this matters: the trace orders the backward pass by output, so a weight gradient that
// lets an activation die comes last, after every larger buffer of the chain has been allocated.
std::vector<Step> schedule_for_memory(std::vector<Step> steps,
                                      const std::vector<ir::NodePtr> &outputs);

} // namespace jx::passes
