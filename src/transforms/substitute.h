// Replacing nodes of a graph (a transform's own parameters) by others: the last step of every
// transformation, which puts the traced result over the caller's nodes.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/node.h"

namespace jx::transforms {

using Substitution = std::unordered_map<const ir::Node *, ir::NodePtr>;

// roots with every node of `map` replaced by its image (same shape and dtype). A node whose
// inputs changed is rebuilt once (ir::rebuild, so it is CSE'd with equal nodes of the caller's
// graph); the others are kept as they are. Realized nodes are not entered. Iterative: deep
// graphs are fine.
std::vector<ir::NodePtr> substitute(const std::vector<ir::NodePtr> &roots, const Substitution &map);

// `region`'s outputs computed elsewhere (inside another region, or outside): params[i] stands for
// the region's param i.
std::vector<ir::NodePtr> inlined(const ir::Region &region, const std::vector<ir::NodePtr> &params);

} // namespace jx::transforms
