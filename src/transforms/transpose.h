// Reverse mode: the transpose of a linear graph (a JVP's tangent graph), one rule of
// ir/ops.def per linear op.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// The cotangents of linear_inputs given those of linear_outputs (the tangents a jvp built from
// tangent parameters linear_inputs; nullptr for a symbolic zero). Nodes that do not depend on
// linear_inputs are constants of the linear map. Each cotangent has its input's shape, dtype and
// weak type; nullptr where no output depends on that input. Fan-out sums: each input edge of a
// node, not each distinct input, passes its cotangent on.
std::vector<ir::NodePtr> transpose(const std::vector<ir::NodePtr> &linear_outputs,
                                   const std::vector<ir::NodePtr> &linear_inputs,
                                   const std::vector<ir::NodePtr> &cotangents);

} // namespace jx::transforms
