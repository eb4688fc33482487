// The pass pipeline: the one place that orders the graph passes. JX_DUMP=<dir> writes the graph
// after every pass that changed it, with the pass's time.
#pragma once

#include <string>
#include <vector>

#include "ir/node.h"

namespace jx::passes {

std::vector<ir::NodePtr> optimize(const std::vector<ir::NodePtr> &roots);

// JX_DUMP is set (and usable): a compiled program's plan is dumped too, after the graphs.
bool dumping();
// Writes the plan's dump: its text, or with JX_DUMP_FORMAT=dot its picture.
void dump_plan(const std::string &text, const std::string &dot);

// The passes optimize runs, in order (what JX_DUMP files and trace spans are named after).
std::vector<std::string> pass_names();

} // namespace jx::passes
