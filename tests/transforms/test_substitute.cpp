// The transforms' skeleton: substitute on shared graphs, and trace_for_transform's leak rule
// through an identity transform (trace, then substitute the caller's arrays) used eagerly,
// inside jit and around a nested jit.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "test_util.h"
#include "transforms/substitute.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::ir::NodePtr;
using jx::ir::Op;
using test_util::expect_error;

// The identity transform: f traced on fresh parameters, its result put over the caller's arrays.
std::vector<Array> identity(const jx::detail::TraceFn &f, const std::vector<Array> &args) {
  std::vector<jx::ShapeDtypeStruct> specs;
  for (const Array &a : args)
    specs.push_back({.shape = a.shape(), .dtype = a.dtype(), .weak_type = a.weak_type()});
  const jx::detail::TransformTrace traced = jx::detail::trace_for_transform(specs, f);
  jx::transforms::Substitution map;
  for (size_t i = 0; i < args.size(); ++i)
    map.emplace(traced.params[i].get(), args[i].node());
  std::vector<Array> out;
  for (const NodePtr &n : jx::transforms::substitute(traced.outputs, map))
    out.emplace_back(n);
  return out;
}

NodePtr param(int64_t position) {
  return jx::ir::parameter(position, jx::float64, {3}, jx::ir::new_trace_id());
}

TEST(Substitute, SharedDagIsRebuiltOverTheReplacementAndCsedWithIt) {
  const NodePtr p = param(0), q = param(0);
  const NodePtr k = jx::ir::unary(Op::Exp, jnp::arange(3.0).node()); // depends on no parameter
  auto build = [&](const NodePtr &x) {
    NodePtr a = jx::ir::unary(Op::Sin, x);
    NodePtr b = jx::ir::binary(Op::Mul, a, a);
    return std::vector{jx::ir::binary(Op::Add, jx::ir::binary(Op::Add, b, a), k), b};
  };
  const std::vector<NodePtr> over_p = build(p), over_q = build(q);
  const std::vector<NodePtr> got = jx::transforms::substitute(over_p, {{p.get(), q}});
  // Equal to the graph built over q directly: the same nodes, by hash-consing.
  EXPECT_EQ(got[0], over_q[0]);
  EXPECT_EQ(got[1], over_q[1]);
  // What does not depend on p is kept, not rebuilt.
  EXPECT_EQ(got[0]->inputs[1], k);
  EXPECT_EQ(jx::transforms::substitute({k}, {{p.get(), q}})[0], k);
}

TEST(Substitute, DeepChainsDoNotOverflowTheStack) {
  const NodePtr p = param(0), q = param(0);
  NodePtr x = p, y = q;
  for (int i = 0; i < 200000; ++i) {
    x = jx::ir::unary(Op::Neg, x);
    y = jx::ir::unary(Op::Neg, y);
  }
  EXPECT_EQ(jx::transforms::substitute({x}, {{p.get(), q}})[0], y);
}

TEST(TraceForTransform, IdentityWorksEagerly) {
  const Array x = jnp::arange(4.0);
  const Array got = identity(
      [](const std::vector<Array> &a) { return std::vector{jnp::sin(a[0]) * 2.0}; }, {x})[0];
  EXPECT_EQ(got.to_vector<double>(), (jnp::sin(x) * 2.0).to_vector<double>());
}

TEST(TraceForTransform, IdentityWorksInsideJitAndCapturesTheOuterParameter) {
  auto f = jx::jit([](const Array &y) {
    // The closure reads the jit's parameter y: a constant to the inner trace, not a leak.
    return identity([&](const std::vector<Array> &a) { return std::vector{a[0] * y}; },
                    {y + 1.0})[0];
  });
  const Array y = jnp::arange(3.0);
  EXPECT_EQ(f(y).to_vector<double>(), ((y + 1.0) * y).to_vector<double>());
}

TEST(TraceForTransform, IdentityAroundANestedJitInlinesIt) {
  auto g = jx::jit([](const Array &x) { return jnp::exp(x) - 1.0; });
  const Array x = jnp::arange(3.0);
  const Array got =
      identity([&](const std::vector<Array> &a) { return std::vector{g(a[0])}; }, {x})[0];
  EXPECT_EQ(got.to_vector<double>(), (jnp::exp(x) - 1.0).to_vector<double>());
  auto outer = jx::jit([&](const Array &y) {
    return identity([&](const std::vector<Array> &a) { return std::vector{g(a[0])}; }, {y})[0];
  });
  EXPECT_EQ(outer(x).to_vector<double>(), got.to_vector<double>());
}

TEST(TraceForTransform, LeakedTracersAreUnexpected) {
  std::optional<Array> leaked;
  identity(
      [&](const std::vector<Array> &a) {
        leaked = a[0] * 2.0;
        return a;
      },
      {jnp::ones({3})});
  ASSERT_TRUE(leaked.has_value());
  const std::string unexpected = "Encountered an unexpected tracer";
  // Into another transform, into a jit, and used eagerly.
  expect_error<jx::UnexpectedTracerError>(
      [&] {
        identity([&](const std::vector<Array> &a) { return std::vector{a[0] + *leaked}; },
                 {jnp::ones({3})});
      },
      unexpected);
  expect_error<jx::UnexpectedTracerError>(
      [&] { jx::jit([&](const Array &y) { return y + *leaked; })(jnp::ones({3})); }, unexpected);
  expect_error<jx::UnexpectedTracerError>([&] { leaked->block_until_ready(); }, unexpected);
}

} // namespace
