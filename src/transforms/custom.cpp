// The rule registry: a deque, so that a rule's address stays put while others are added.
#include "transforms/custom.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <deque>
#include <mutex>

#include "ir/builder.h"

namespace jx::transforms {

namespace {
std::mutex rules_mutex;
std::deque<JvpRule> &rules() {
  static std::deque<JvpRule> all;
  return all;
}
} // namespace

int64_t register_jvp_rule(JvpRule rule) {
  const std::lock_guard lock(rules_mutex);
  rules().push_back(std::move(rule));
  return int64_t(rules().size()) - 1;
}

const JvpRule &jvp_rule(int64_t id) {
  const std::lock_guard lock(rules_mutex);
  if (id < 0 || id >= int64_t(rules().size()))
    throw Error(fmt::format("internal: no custom_jvp rule {}", id));
  return rules()[size_t(id)];
}

ir::NodePtr custom_jvp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args) {
  std::vector<ir::NodePtr> inputs{std::move(out)};
  inputs.insert(inputs.end(), args.begin(), args.end());
  return ir::marker(ir::Op::CustomJvp, std::move(inputs), {id});
}

} // namespace jx::transforms
