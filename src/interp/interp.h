// The reference evaluator: plain, obviously correct evaluation of every op in ir/ops.def.
// It defines what each op means; compiled code is tested against it.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/node.h"

namespace jx::interp {

// Values bound to nodes for one evaluation: jit arguments (Parameter nodes).
using Bindings = std::unordered_map<const ir::Node *, runtime::BufferPtr>;

// Values of roots, computed from their graphs (realized and bound nodes are taken as leaves).
std::vector<runtime::BufferPtr> evaluate(const std::vector<ir::NodePtr> &roots,
                                         const Bindings &bindings = {});

// Raised when a graph reads a Parameter that has no binding: a traced value has no data.
[[noreturn]] void throw_concretization_error(const ir::Node &parameter);

} // namespace jx::interp
