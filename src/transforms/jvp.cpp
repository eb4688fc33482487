// Forward mode: a walk from the outputs down to the seeds, one rule of ir/derivatives.def per node
// that a tangent reaches.
#include "transforms/jvp.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <functional>
#include <unordered_map>

#include "transforms/dsl.h"

namespace jx::transforms {

namespace {

using namespace dsl;

// derivatives.def lists every op of ops.def, in its order.
constexpr Op listed_ops[] = {
#define JX_RULE(op, terms) Op::op,
#define JX_ZERO(op) Op::op,
#define JX_EXPAND(op, fn) Op::op,
#define JX_FN(op, fn) Op::op,
#define JX_NO_RULE(op) Op::op,
#include "ir/derivatives.def"
#undef JX_RULE
#undef JX_ZERO
#undef JX_EXPAND
#undef JX_FN
#undef JX_NO_RULE
};
constexpr bool lists_ops_in_order() {
  if (std::size(listed_ops) != size_t(ir::op_count)) return false;
  for (size_t i = 0; i < std::size(listed_ops); ++i)
    if (listed_ops[i] != Op(i)) return false;
  return true;
}
static_assert(lists_ops_in_order(), "ir/derivatives.def: one line per op of ops.def, in order");

// jnp.remainder: lax.rem, then + y where the signs of the remainder and y differ.
NodePtr jnp_remainder(const NodePtr &x, const NodePtr &y) {
  NodePtr trunc = fmod(x, y);
  NodePtr zero = lit(0, x);
  NodePtr plus = and_(ne(lt(trunc, zero), lt(y, zero)), ne(trunc, zero));
  return select(plus, add(trunc, y), trunc);
}

// jnp.copysign.
NodePtr jnp_copysign(const NodePtr &x, const NodePtr &y) {
  return select(signbit(y), neg(abs(x)), abs(x));
}

// jnp.hypot: scaled by the larger magnitude, +inf if either is.
NodePtr jnp_hypot(const NodePtr &x1, const NodePtr &x2) {
  NodePtr a = abs(x1), b = abs(x2);
  NodePtr inf = lit(std::numeric_limits<double>::infinity(), x1);
  NodePtr any_inf = or_(eq(a, inf), eq(b, inf));
  NodePtr hi = max(a, b), lo = min(a, b);
  NodePtr zero = eq(hi, lit(0, hi));
  NodePtr q = div(lo, select(zero, lit(1, hi), hi));
  NodePtr r = select(zero, hi, mul(hi, sqrt(add(lit(1, hi), mul(q, q)))));
  return select(any_inf, inf, r);
}

// select_n's rule: both branches' tangents, zeros instantiated.
NodePtr select_jvp(const ir::Node &ans, const std::vector<NodePtr> &ts) {
  NodePtr zero = ir::broadcast(ir::literal(0, ans.dtype, true), ans.shape, {});
  return select(ans.inputs[0], ts[1] ? ts[1] : zero, ts[2] ? ts[2] : zero);
}

NodePtr expand(NodePtr (*fn)(const NodePtr &, const NodePtr &), const ir::Node &ans,
               const std::vector<NodePtr> &ts) {
  NodePtr composed = fn(ans.inputs[0], ans.inputs[1]);
  return jvp({composed}, {ans.inputs[0], ans.inputs[1]}, {ts[0], ts[1]})[0];
}

// The tangent of ans given its inputs' (nullptr: zero), at least one not zero.
NodePtr apply_rule(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const NodePtr x = ans->inputs.empty() ? nullptr : ans->inputs[0];
  const NodePtr y = ans->inputs.size() < 2 ? nullptr : ans->inputs[1];
  auto c = [&](double v) { return lit(v, ans); };
  using Term = std::function<NodePtr(const NodePtr &t)>;
  // The sum of the terms of the inputs whose tangent is not zero.
  auto sum = [&](std::initializer_list<Term> terms) {
    NodePtr total;
    size_t i = 0;
    for (const Term &term : terms) {
      if (const NodePtr &t = ts.at(i++)) {
        NodePtr d = term(t);
        total = total ? add(total, d) : d;
      }
    }
    return total;
  };
#define JX_TERM(e) [&](const NodePtr &t) -> NodePtr { return e; }
#define JX_TERMS_1(a) JX_TERM(a)
#define JX_TERMS_2(a, b) JX_TERM(a), JX_TERM(b)
#define JX_PICK(_1, _2, n, ...) n
#define JVP(...) JX_PICK(__VA_ARGS__, JX_TERMS_2, JX_TERMS_1)(__VA_ARGS__)
  // clang-format off
#define JX_RULE(op, terms) case Op::op: return sum({terms});
#define JX_ZERO(op) case Op::op: return nullptr;
#define JX_EXPAND(op, fn) case Op::op: return expand(fn, *ans, ts);
#define JX_FN(op, fn) case Op::op: return fn(*ans, ts);
#define JX_NO_RULE(op) case Op::op: throw NotImplementedError(fmt::format( \
    "jvp rule for op {} is not implemented yet", ir::op_name(Op::op)));
  // clang-format on
  switch (ans->op) {
#include "ir/derivatives.def"
  }
#undef JX_TERM
#undef JX_TERMS_1
#undef JX_TERMS_2
#undef JX_PICK
#undef JVP
#undef JX_RULE
#undef JX_ZERO
#undef JX_EXPAND
#undef JX_FN
#undef JX_NO_RULE
  throw Error("internal: jvp of an op outside the op table");
}

} // namespace

std::vector<NodePtr> jvp(const std::vector<NodePtr> &outputs, const std::vector<NodePtr> &seeds,
                         const std::vector<NodePtr> &tangents) {
  // Tangent per visited node; nullptr is a symbolic zero.
  std::unordered_map<const ir::Node *, NodePtr> tangent;
  for (size_t i = 0; i < seeds.size(); ++i)
    tangent[seeds[i].get()] = tangents[i];
  struct Frame {
    const NodePtr *node;
    size_t next = 0;
  };
  for (const NodePtr &root : outputs) {
    std::vector<Frame> stack{{&root}};
    while (!stack.empty()) {
      Frame &top = stack.back();
      const NodePtr &n = *top.node;
      if (tangent.contains(n.get())) {
        stack.pop_back();
        continue;
      }
      // A realized value is a constant: nothing below it is a seed of this transform.
      const bool realized = n->realized() != nullptr;
      if (!realized && top.next < n->inputs.size()) {
        stack.push_back({&n->inputs[top.next++]});
        continue;
      }
      NodePtr t;
      if (!realized && is_floating(n->dtype)) {
        std::vector<NodePtr> ts;
        bool any = false;
        for (const NodePtr &in : n->inputs) {
          ts.push_back(tangent.at(in.get()));
          any = any || ts.back();
        }
        if (any) t = apply_rule(n, ts);
      }
      tangent.emplace(n.get(), std::move(t));
      stack.pop_back();
    }
  }
  std::vector<NodePtr> out;
  for (const NodePtr &root : outputs)
    out.push_back(tangent.at(root.get()));
  return out;
}

} // namespace jx::transforms
