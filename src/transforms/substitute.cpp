// Substitution: one pass in topological order that rebuilds only what depends on the map.
#include "transforms/substitute.h"

#include "ir/builder.h"
#include "ir/printer.h"

namespace jx::transforms {

std::vector<ir::NodePtr> substitute(const std::vector<ir::NodePtr> &roots,
                                    const Substitution &map) {
  // Images of the replaced nodes and of the nodes rebuilt over them; the others stay.
  Substitution done = map;
  for (const ir::Node *n : ir::topological_order(roots)) {
    // Leaves and realized values depend on nothing being replaced.
    if (n->realized() || done.contains(n)) continue;
    bool changed = false;
    std::vector<ir::NodePtr> inputs;
    for (const ir::NodePtr &in : n->inputs) {
      const auto found = done.find(in.get());
      inputs.push_back(found == done.end() ? in : found->second);
      changed = changed || inputs.back() != in;
    }
    if (changed) done.emplace(n, ir::rebuild(*n, std::move(inputs)));
  }
  std::vector<ir::NodePtr> out;
  for (const ir::NodePtr &root : roots) {
    const auto found = done.find(root.get());
    out.push_back(found == done.end() ? root : found->second);
  }
  return out;
}

std::vector<ir::NodePtr> inlined(const ir::Region &region, const std::vector<ir::NodePtr> &params) {
  Substitution map;
  for (size_t i = 0; i < region.params.size(); ++i)
    map.emplace(region.params[i].get(), params[i]);
  return substitute(region.outputs, map);
}

} // namespace jx::transforms
