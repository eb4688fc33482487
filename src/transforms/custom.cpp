// The rule registries: deques, so that a rule's address stays put while others are added.
#include "transforms/custom.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <deque>
#include <mutex>

#include "ir/builder.h"

namespace jx::transforms {

namespace {
template <class Rule> class Registry {
public:
  explicit Registry(const char *kind) : kind_(kind) {}
  int64_t add(Rule rule) {
    const std::lock_guard lock(mutex_);
    rules_.push_back(std::move(rule));
    return int64_t(rules_.size()) - 1;
  }
  const Rule &at(int64_t id) {
    const std::lock_guard lock(mutex_);
    if (id < 0 || id >= int64_t(rules_.size()))
      throw Error(fmt::format("internal: no {} rule {}", kind_, id));
    return rules_[size_t(id)];
  }

private:
  const char *kind_;
  std::mutex mutex_;
  std::deque<Rule> rules_;
};

Registry<JvpRule> &jvp_rules() {
  static Registry<JvpRule> all("custom_jvp");
  return all;
}
Registry<VjpRule> &vjp_rules() {
  static Registry<VjpRule> all("custom_vjp");
  return all;
}
} // namespace

int64_t register_jvp_rule(JvpRule rule) { return jvp_rules().add(std::move(rule)); }
const JvpRule &jvp_rule(int64_t id) { return jvp_rules().at(id); }
int64_t register_vjp_rule(VjpRule rule) { return vjp_rules().add(std::move(rule)); }
const VjpRule &vjp_rule(int64_t id) { return vjp_rules().at(id); }

ir::NodePtr custom_jvp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args) {
  std::vector<ir::NodePtr> inputs{std::move(out)};
  inputs.insert(inputs.end(), args.begin(), args.end());
  return ir::marker(ir::Op::CustomJvp, std::move(inputs), {id});
}

ir::NodePtr custom_vjp_node(int64_t id, ir::NodePtr out, const std::vector<ir::NodePtr> &args,
                            const std::vector<ir::NodePtr> &residuals) {
  std::vector<ir::NodePtr> inputs{std::move(out)};
  inputs.insert(inputs.end(), args.begin(), args.end());
  inputs.insert(inputs.end(), residuals.begin(), residuals.end());
  return ir::marker(ir::Op::CustomVjp, std::move(inputs), {id, int64_t(args.size())});
}

CustomVjpInputs custom_vjp_inputs(const ir::Node &n) {
  const auto end_of_args = n.inputs.begin() + 1 + n.attrs.at(1);
  return {{n.inputs.begin() + 1, end_of_args}, {end_of_args, n.inputs.end()}};
}

} // namespace jx::transforms
