// Runs a graph as compiled kernels: fusion decides the kernels, the JIT compiles (or finds)
// them, the runtime runs them over their outer loop.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::jit {

std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots);

} // namespace jx::jit
