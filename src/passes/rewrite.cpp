// Bottom-up graph rebuilding shared by the passes.
#include "passes/rewrite.h"

#include <unordered_map>

#include "ir/builder.h"
#include "ir/printer.h"

namespace jx::passes {

std::vector<ir::NodePtr> rewrite_seeing_originals(const std::vector<ir::NodePtr> &roots,
                                                  const RuleSeeingOriginal &rule) {
  ir::GraphReadLock graph_lock; // realized() must not change between the two walks below
  // Owning pointers for every reachable node, so rules receive NodePtrs.
  std::unordered_map<const ir::Node *, ir::NodePtr> owner;
  for (const ir::NodePtr &r : roots)
    owner[r.get()] = r;
  const std::vector<const ir::Node *> order = ir::topological_order(roots);
  for (const ir::Node *n : order)
    if (!n->realized())
      for (const ir::NodePtr &in : n->inputs)
        owner[in.get()] = in;

  std::unordered_map<const ir::Node *, ir::NodePtr> replaced;
  for (const ir::Node *n : order) {
    ir::NodePtr node = owner.at(n);
    if (!n->realized() && !n->inputs.empty()) {
      std::vector<ir::NodePtr> inputs;
      bool changed = false;
      for (const ir::NodePtr &in : n->inputs) {
        inputs.push_back(replaced.at(in.get()));
        changed = changed || inputs.back() != in;
      }
      if (changed) node = ir::rebuild(*n, std::move(inputs));
    }
    replaced[n] = rule(node, *n);
  }
  std::vector<ir::NodePtr> out;
  for (const ir::NodePtr &r : roots)
    out.push_back(replaced.at(r.get()));
  return out;
}

std::vector<ir::NodePtr> rewrite(const std::vector<ir::NodePtr> &roots, const Rule &rule) {
  return rewrite_seeing_originals(roots,
                                  [&](const ir::NodePtr &n, const ir::Node &) { return rule(n); });
}

} // namespace jx::passes
