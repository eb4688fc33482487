// The pass pipeline: the one place that orders the graph passes. JX_DUMP=<dir> writes the graph
// after every pass that changed it, with the pass's time.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::passes {

std::vector<ir::NodePtr> optimize(const std::vector<ir::NodePtr> &roots);

} // namespace jx::passes
