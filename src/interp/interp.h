// The reference evaluator: plain, obviously correct evaluation of every op in ir/ops.def.
// It defines what each op means; compiled code is tested against it.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::interp {

// Values of roots, computed from their graphs (realized nodes are taken as leaves).
std::vector<runtime::BufferPtr> evaluate(const std::vector<ir::NodePtr> &roots);

} // namespace jx::interp
