// The pass pipeline: the one place that orders the graph passes. JX_DUMP=<dir> writes the graph
// after every pass that changed it, with the pass's time.
#pragma once

#include <string>
#include <vector>

#include "ir/node.h"

namespace jx::passes {

std::vector<ir::NodePtr> optimize(const std::vector<ir::NodePtr> &roots);

// The passes optimize runs, in order (what JX_DUMP files and trace spans are named after).
std::vector<std::string> pass_names();

} // namespace jx::passes
