// jit's donate_argnums: an output takes a donated argument's memory, the argument is deleted, and
// donation never changes a result.
#include <jx/jx.h>

#include <gtest/gtest.h>
#include <string>

#include "api/internal.h"

namespace jnp = jx::numpy;
using jx::Array;

namespace {

const void *address(const Array &a) { return jx::api::realize(a.node())->data(); }

std::vector<double> values(const Array &x) { return x.to_vector<double>(); }

TEST(Donate, ElementwiseOutputReusesTheArgumentInPlace) {
  auto step = jx::jit([](const Array &x) { return x * 2 + 1; }, {.donate_argnums = {0}});
  Array x = jnp::arange(1000.0);
  const void *memory = address(x);
  Array y = step(x);
  EXPECT_EQ(address(y), memory);
  EXPECT_EQ(values(y)[999], 1999);
  try {
    (void)values(x);
    FAIL() << "a donated array stays readable";
  } catch (const jx::Error &e) {
    EXPECT_NE(std::string(e.what()).find("Array has been deleted"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)(x + 1).to_vector<double>(), jx::Error);
  // An update loop keeps one buffer.
  for (int i = 0; i < 5; ++i)
    y = step(y);
  EXPECT_EQ(address(y), memory);
  EXPECT_EQ(values(y)[0], 63); // 1 -> 3 -> 7 -> 15 -> 31 -> 63
}

TEST(Donate, ReadsAtOtherIndicesAreNotOverwritten) {
  // Reversing in place would read elements already written: the output gets fresh memory.
  auto f = jx::jit([](const Array &x) { return x(jx::slice(jx::none, jx::none, -1)) + 1; },
                   {.donate_argnums = {0}});
  Array x = jnp::arange(4096.0);
  Array y = f(x);
  EXPECT_EQ(values(y)[0], 4096);
  EXPECT_EQ(values(y)[4095], 1);
  EXPECT_EQ(values(x)[5], 5); // not donated after all
  auto g = jx::jit([](const Array &x) { return jnp::diff(x, 1, 0, jnp::zeros({1})); },
                   {.donate_argnums = {0}});
  Array z = g(jnp::arange(4096.0) * 2);
  EXPECT_EQ(values(z)[0], 0);
  EXPECT_EQ(values(z)[4095], 2);
}

TEST(Donate, LaterKernelTakesTheMemoryOnceTheArgumentIsDead) {
  // s reads all of x; the elementwise output that follows may then take x's memory.
  auto f = jx::jit([](const Array &x) { return x - jnp::sum(x); }, {.donate_argnums = {0}});
  Array x = jnp::ones({4096});
  const void *memory = address(x);
  Array y = f(x);
  EXPECT_EQ(address(y), memory);
  EXPECT_EQ(values(y)[17], -4095);
}

TEST(Donate, SharedArgumentIsNotDonated) {
  auto f = jx::jit([](const Array &a, const Array &b) { return a * b; }, {.donate_argnums = {0}});
  Array x = jnp::arange(8.0);
  Array y = f(x, x);
  EXPECT_EQ(values(y)[3], 9);
  EXPECT_EQ(values(x)[3], 3);
}

TEST(Donate, OutOfRangeIsAValueError) {
  auto f = jx::jit([](const Array &a) { return a + 1; }, {.donate_argnums = {1}});
  EXPECT_THROW(f(jnp::ones({2})), jx::ValueError);
}

} // namespace

namespace {

TEST(Donate, RepeatedPositionsDonateOnce) {
  auto f = jx::jit([](const Array &x) { return std::make_tuple(x + 1, jnp::sin(x)); },
                   {.donate_argnums = {0, 0}});
  Array x = jnp::arange(4096.0);
  auto [a, b] = f(x);
  EXPECT_EQ(values(a)[10], 11);
  EXPECT_EQ(values(b)[0], 0);
}

} // namespace
