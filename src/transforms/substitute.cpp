// Substitution: an iterative post-order walk that rebuilds only what depends on the map.
#include "transforms/substitute.h"

#include "ir/builder.h"

namespace jx::transforms {

std::vector<ir::NodePtr> substitute(const std::vector<ir::NodePtr> &roots,
                                    const Substitution &map) {
  Substitution done = map;
  struct Frame {
    const ir::NodePtr *node;
    size_t next = 0;
  };
  for (const ir::NodePtr &root : roots) {
    std::vector<Frame> stack{{&root}};
    while (!stack.empty()) {
      Frame &top = stack.back();
      const ir::Node &n = **top.node;
      if (done.contains(&n)) {
        stack.pop_back();
        continue;
      }
      // Leaves and realized values depend on nothing being replaced.
      if (top.next < n.inputs.size() && !n.realized()) {
        stack.push_back({&n.inputs[top.next++]});
        continue;
      }
      bool changed = false;
      std::vector<ir::NodePtr> inputs;
      if (!n.realized())
        for (const ir::NodePtr &in : n.inputs) {
          inputs.push_back(done.at(in.get()));
          changed = changed || inputs.back() != in;
        }
      done.emplace(&n, changed ? ir::rebuild(n, std::move(inputs)) : *top.node);
      stack.pop_back();
    }
  }
  std::vector<ir::NodePtr> out;
  for (const ir::NodePtr &root : roots)
    out.push_back(done.at(root.get()));
  return out;
}

} // namespace jx::transforms
