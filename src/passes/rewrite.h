// The shape of every graph pass: nodes are immutable and hash-consed, so a pass rebuilds the
// graph bottom-up, letting a rule replace each node once its inputs are rewritten.
#pragma once

#include <functional>
#include <vector>

#include "ir/node.h"

namespace jx::passes {

// Returns a node equivalent to n (same shape and dtype), whose inputs are already rewritten; n
// itself when nothing applies.
using Rule = std::function<ir::NodePtr(const ir::NodePtr &n)>;

// Applies rule to every node reachable from roots, inputs first. Realized nodes and leaves are
// passed to the rule but their inputs are not visited. Shared nodes are rewritten once.
std::vector<ir::NodePtr> rewrite(const std::vector<ir::NodePtr> &roots, const Rule &rule);

// The same, each node's rule also given the node as it was in roots' graph (before its inputs
// were rewritten), for rules that read that graph (who else reads a node).
using RuleSeeingOriginal =
    std::function<ir::NodePtr(const ir::NodePtr &n, const ir::Node &original)>;
std::vector<ir::NodePtr> rewrite_seeing_originals(const std::vector<ir::NodePtr> &roots,
                                                  const RuleSeeingOriginal &rule);

} // namespace jx::passes
