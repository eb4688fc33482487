// Issue 11, tracer hygiene: a value computed from a traced argument that escapes its trace raises
// JAX's UnexpectedTracerError wherever it is used (it used to bind to another function's
// parameter of the same position and give a wrong answer); a jitted function called inside
// another trace is inlined into it (it used to raise ConcretizationTypeError); donating an
// argument keeps the values still pending on it (JAX computed them before the call).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using test_util::expect_error;

const std::string unexpected = "Encountered an unexpected tracer";

TEST(Tracers, LeakedIntoAnotherTraceIsUnexpected) {
  std::optional<Array> leaked;
  auto leak = jx::jit([&](const Array &x) {
    leaked = x * 2.0;
    return x + 1.0;
  });
  leak(jnp::arange(3.0));
  ASSERT_TRUE(leaked.has_value());
  // Same position, shape and dtype as the leak's parameter: before, the two were one node and
  // g computed x * 2 + y from its own argument.
  auto g = jx::jit([&](const Array &y) { return *leaked + y; });
  expect_error<jx::UnexpectedTracerError>([&] { g(jnp::ones({3})); }, unexpected);
  expect_error<jx::UnexpectedTracerError>(
      [&] { jx::jit([&](const Array &y) { return *leaked + y; }).lower(jnp::ones({3})); }, "");
}

TEST(Tracers, LeakedAndUsedEagerlyIsUnexpected) {
  std::optional<Array> leaked;
  jx::jit([&](const Array &x) {
    leaked = jnp::sin(x);
    return x;
  })(jnp::arange(4.0));
  expect_error<jx::UnexpectedTracerError>([&] { leaked->block_until_ready(); }, unexpected);
  expect_error<jx::UnexpectedTracerError>([&] { jnp::sum(*leaked + 1.0).item<double>(); },
                                          unexpected);
  // Shape and dtype stay readable: they are known.
  EXPECT_EQ(leaked->shape(), jx::Shape({4}));
}

TEST(Tracers, ReadingATracerInsideItsTraceIsStillAConcretizationError) {
  expect_error<jx::ConcretizationTypeError>(
      [] { jx::jit([](const Array &x) { return x * x.item<double>(); })(jnp::ones({})); },
      "Abstract tracer value encountered where concrete value is expected");
}

TEST(Tracers, NestedJitIsInlined) {
  auto inner = jx::jit([](const Array &x) { return jnp::exp(x) * 2.0; });
  auto outer = jx::jit([&](const Array &x) { return inner(x + 1.0) - 1.0; });
  const Array x = jnp::arange(5.0);
  const std::vector<double> got = outer(x).to_vector<double>();
  for (int i = 0; i < 5; ++i)
    EXPECT_DOUBLE_EQ(got[size_t(i)], std::exp(i + 1.0) * 2.0 - 1.0);
  // One program: the inner function's ops are fused with the outer ones.
  const std::string text = outer.lower(jx::ShapeDtypeStruct{{5}, jx::float64}).as_text();
  EXPECT_NE(text.find("exp"), std::string::npos) << text;
  // Inner still works on its own, and a nested call with a static argument inlines too.
  EXPECT_DOUBLE_EQ(inner(jnp::zeros({})).item<double>(), 2.0);
  auto scaled = jx::jit([](const Array &x, int k) { return x * double(k); });
  auto twice = jx::jit([&](const Array &x) { return scaled(x, 3) + scaled(x, 4); });
  EXPECT_DOUBLE_EQ(twice(jnp::ones({})).item<double>(), 7.0);
}

TEST(Tracers, DonationKeepsValuesPendingOnTheArgument) {
  auto step = jx::jit([](const Array &x) { return x * 2.0; }, {.donate_argnums = {0}});
  Array x = jnp::arange(4.0) + 0.0;
  x.block_until_ready();
  const Array pending = x + 10.0; // computed before the call, as JAX sees it
  const Array out = step(x);
  EXPECT_EQ(pending.to_vector<double>(), std::vector<double>({10, 11, 12, 13}));
  EXPECT_EQ(out.to_vector<double>(), std::vector<double>({0, 2, 4, 6}));
}

} // namespace
