// Derivatives of control flow (ops.def's While, Case, Scan and their Results), as JAX's: the JVP
// of a loop or a branch is the same op over the primal and tangent values together (its regions'
// JVPs); transposition splits such an op (JAX's partial evaluation) into a primal op that saves
// what the tangents need and a linear op, and transposes the linear one: a scan runs backwards
// over the saved carries, a case takes the branch the primal took.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// The tangent of a control op (the op over primals and tangents; ts[i]: input i's, nullptr for
// a zero) or of one of its results (nullptr where it has none).
ir::NodePtr control_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);

// The cotangents of a control op's inputs (nullptr for those not linear[i], or reached by no
// cotangent) given its results' (cts[i], nullptr for a zero). A while loop raises JAX's
// ValueError: its trip count is not known in reverse.
std::vector<ir::NodePtr> control_transpose(const ir::Node &op, const std::vector<ir::NodePtr> &cts,
                                           const std::vector<bool> &linear);

} // namespace jx::transforms
