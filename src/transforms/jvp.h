// Forward-mode differentiation of a graph: the tangent of each output, given the tangents of some
// of its nodes (a transform's own parameters). Rules: ir/ops.def.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// The tangents of `outputs` when each seeds[i] has tangent tangents[i] (same shape and dtype).
// Every other node is a constant: its tangent is a symbolic zero, returned as nullptr, and no
// rule runs (nor builds a node) for a node that no seed reaches, nor for a non-float node.
// Raises NotImplementedError, as JAX does, for an op without a derivative (nextafter) that a
// tangent reaches.
std::vector<ir::NodePtr> jvp(const std::vector<ir::NodePtr> &outputs,
                             const std::vector<ir::NodePtr> &seeds,
                             const std::vector<ir::NodePtr> &tangents);

} // namespace jx::transforms
