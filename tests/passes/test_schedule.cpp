// schedule_for_memory: a step that lets a large value die runs before steps that allocate more,
// dependences hold, and an order with nothing to gain is kept.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.h"
#include "passes/schedule.h"

namespace {

using jx::ir::NodePtr;
using jx::ir::Op;
using jx::passes::Step;
namespace ir = jx::ir;

Step kernel(const NodePtr &root, std::vector<const ir::Node *> inputs) {
  return {Step::Kind::Kernel, root, {{root}, std::move(inputs)}};
}

// Positions of steps' nodes in order.
std::vector<const ir::Node *> nodes(const std::vector<Step> &steps) {
  std::vector<const ir::Node *> out;
  for (const Step &s : steps)
    out.push_back(s.node.get());
  return out;
}

// Every step after the steps that define what it reads.
void expect_dependences_hold(const std::vector<Step> &steps) {
  std::vector<const ir::Node *> defined;
  for (const Step &s : steps) {
    for (const ir::Node *in : s.plan.inputs)
      EXPECT_NE(std::find(defined.begin(), defined.end(), in), defined.end());
    defined.push_back(s.node.get());
  }
}

TEST(Schedule, AStepThatFreesALargeValueRunsFirst) {
  // The MLP gradient's shape: h (large) is read by d early and by the small output w last; g and
  // o (large) come from d. In trace order h is live beside g and o.
  const NodePtr p = ir::parameter(0, jx::float64, {1000});
  const NodePtr h = ir::unary(Op::Exp, p);
  const NodePtr d = ir::reduce(Op::ReduceSum, h, {0});
  const NodePtr g = ir::broadcast(d, {1000}, {});
  const NodePtr o = ir::unary(Op::Neg, g);
  const NodePtr w = ir::binary(Op::Mul, ir::reduce(Op::ReduceMax, h, {0}), d);
  std::vector<Step> steps = {{Step::Kind::Parameter, p, {}}, kernel(h, {p.get()}),
                             kernel(d, {h.get()}),           kernel(g, {d.get()}),
                             kernel(o, {g.get()}),           kernel(w, {h.get(), d.get()})};
  const std::vector<NodePtr> outputs = {o, w};
  EXPECT_EQ(jx::passes::peak_live_bytes(steps, outputs), 3 * 8000 + 8);
  const std::vector<Step> scheduled = jx::passes::schedule_for_memory(steps, outputs);
  EXPECT_EQ(nodes(scheduled),
            (std::vector<const ir::Node *>{p.get(), h.get(), d.get(), w.get(), g.get(), o.get()}));
  expect_dependences_hold(scheduled);
  EXPECT_EQ(jx::passes::peak_live_bytes(scheduled, outputs), 2 * 8000 + 8);
}

TEST(Schedule, AnOrderWithNothingToGainIsKept) {
  // A chain, and two independent values each read once: no order lowers the peak.
  const NodePtr p = ir::parameter(0, jx::float64, {100});
  const NodePtr a = ir::unary(Op::Exp, p), b = ir::unary(Op::Sin, p);
  const NodePtr c = ir::binary(Op::Add, a, b);
  std::vector<Step> steps = {{Step::Kind::Parameter, p, {}},
                             kernel(a, {p.get()}),
                             kernel(b, {p.get()}),
                             kernel(c, {a.get(), b.get()})};
  const std::vector<Step> scheduled = jx::passes::schedule_for_memory(steps, {c});
  EXPECT_EQ(nodes(scheduled), nodes(steps));
}

} // namespace
