// KernelPlan helpers: the loop extent and the structural key used by the kernel cache.
#include "codegen/kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"

namespace jx::codegen {

int64_t KernelPlan::outer_extent() const {
  const Shape &shape = root->shape;
  return shape.empty() ? 1 : shape[0];
}

std::string KernelPlan::structural_key() const {
  std::unordered_map<const ir::Node *, size_t> param, id;
  for (size_t i = 0; i < inputs.size(); ++i)
    param[inputs[i]] = i;
  // Post-order walk from the root that stops at parameters.
  std::vector<const ir::Node *> order;
  std::unordered_set<const ir::Node *> visited{root.get()};
  std::vector<std::pair<const ir::Node *, size_t>> stack{{root.get(), 0}};
  while (!stack.empty()) {
    auto &[n, next] = stack.back();
    if (next < n->inputs.size()) {
      const ir::Node *in = n->inputs[next++].get();
      if (!param.count(in) && visited.insert(in).second) stack.push_back({in, 0});
      continue;
    }
    id[n] = order.size();
    order.push_back(n);
    stack.pop_back();
  }
  std::string key;
  for (const ir::Node *in : inputs)
    key += fmt::format("p:{};", ir::type_str(*in));
  for (const ir::Node *n : order) {
    std::vector<std::string> args;
    for (const ir::NodePtr &in : n->inputs)
      args.push_back(param.count(in.get()) ? fmt::format("p{}", param.at(in.get()))
                                           : fmt::format("%{}", id.at(in.get())));
    key += fmt::format("{}({})[{}]{}:{}:{}|", ir::op_name(n->op), fmt::join(args, ","),
                       fmt::join(n->attrs, ","), ir::type_str(*n), n->fvalue, n->ivalue);
  }
  return key;
}

} // namespace jx::codegen
