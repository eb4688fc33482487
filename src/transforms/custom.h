// Derivative rules a user gives for a function (jx::custom_jvp), kept by id: the custom_jvp
// marker node carries the id, and the JVP looks the rule up when a tangent reaches the marker.
#pragma once

#include <functional>
#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// The tangent of the function's output given its arguments and their tangents (zeros where an
// argument has none; bool zeros, JAX's float0, for int and bool arguments).
using JvpRule = std::function<ir::NodePtr(const std::vector<ir::NodePtr> &primals,
                                          const std::vector<ir::NodePtr> &tangents)>;

// Rules live as long as the process: a compiled program may hold markers of any of them.
int64_t register_jvp_rule(JvpRule rule);
const JvpRule &jvp_rule(int64_t id);

// `out` (the function's output, computed from `args`) marked with rule `id`.
ir::NodePtr custom_jvp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args);

} // namespace jx::transforms
