// Derivative rules a user gives for a function (jx::custom_jvp, jx::custom_vjp), kept by id: the
// marker node carries the id, and the transformations look the rule up when they reach it.
#pragma once

#include <functional>
#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// The tangent of the function's output given its arguments and their tangents (zeros where an
// argument has none; bool zeros, JAX's float0, for int and bool arguments).
using JvpRule = std::function<ir::NodePtr(const std::vector<ir::NodePtr> &primals,
                                          const std::vector<ir::NodePtr> &tangents)>;
// custom_vjp's bwd: the cotangents of the function's arguments, one per argument, given fwd's
// residuals and the output's cotangent.
using VjpRule = std::function<std::vector<ir::NodePtr>(const std::vector<ir::NodePtr> &residuals,
                                                       const ir::NodePtr &cotangent)>;

// Rules live as long as the process: a compiled program may hold markers of any of them.
int64_t register_jvp_rule(JvpRule rule);
const JvpRule &jvp_rule(int64_t id);
int64_t register_vjp_rule(VjpRule rule);
const VjpRule &vjp_rule(int64_t id);

// `out` (the function's output, computed from `args`) marked with rule `id`.
ir::NodePtr custom_jvp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args);
// `out` marked with the vjp rule `id`, which reads `residuals` (fwd's, computed from `args`).
ir::NodePtr custom_vjp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args,
                            const std::vector<ir::NodePtr> &residuals);

// The parts of a custom_vjp or custom_lin node's inputs: [1, 1 + argument count) are the
// arguments (or their tangents), the rest fwd's residuals.
struct CustomVjpInputs {
  std::vector<ir::NodePtr> args, residuals;
};
CustomVjpInputs custom_vjp_inputs(const ir::Node &n);

} // namespace jx::transforms
