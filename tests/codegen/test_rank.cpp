// Kernels over rank-64 arrays: values equal to the reference evaluator's, and loop nests of a few
// levels (unit axes are not loops; deep nests run their outer axes as one flattened loop), so
// compile time does not grow with the rank.
#include <gtest/gtest.h>

#include <jx/jx.h>

#include <cstring>
#include <functional>
#include <string>

#include "api/internal.h"
#include "backend/orc_jit.h"
#include "codegen/emit.h"
#include "ir/builder.h"
#include "passes/fusion.h"
#include "passes/pipeline.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::Shape;

Shape front() { // (2,)*12 + (1,)*52
  Shape s(64, 1);
  for (int i = 0; i < 12; ++i)
    s[i] = 2;
  return s;
}
Shape back() { // (1,)*52 + (2,)*12
  Shape s(64, 1);
  for (int i = 52; i < 64; ++i)
    s[i] = 2;
  return s;
}
Shape spread() { // twos at every fifth axis
  Shape s(64, 1);
  for (int i = 0; i < 60; i += 5)
    s[i] = 2;
  return s;
}
Shape tiled() { // large enough that a transpose of it is read in tiles
  Shape s(64, 1);
  s[0] = s[63] = 256;
  return s;
}

Array distinct(const Shape &shape) {
  return (jnp::arange(jx::shape_size(shape)).astype(jx::float64) * 0.5 - 7.0).reshape(shape);
}

std::vector<int64_t> odd_axes() {
  std::vector<int64_t> axes;
  for (int64_t a = 1; a < 64; a += 2)
    axes.push_back(a);
  return axes;
}

struct Case {
  std::string name;
  std::function<Array(const Array &)> f;
};

const std::vector<Case> &cases() {
  static const std::vector<Case> all = {
      {"sum", [](const Array &x) { return jnp::sum(x); }},
      {"sum_axis0", [](const Array &x) { return jnp::sum(x, 0); }},
      {"sum_last", [](const Array &x) { return jnp::sum(x, 63); }},
      {"max_odd_axes", [](const Array &x) { return jnp::max(x, odd_axes()); }},
      {"argmax_axis0", [](const Array &x) { return jnp::argmax(x, 0); }},
      {"elementwise", [](const Array &x) { return x * 2.0 + 1.0; }},
      {"transpose", [](const Array &x) { return jnp::transpose(x) + 1.0; }},
      {"swapaxes", [](const Array &x) { return jnp::swapaxes(x, 0, 63) * 3.0; }},
      {"transpose_sum", [](const Array &x) { return jnp::sum(jnp::transpose(x) * x, 1); }},
  };
  return all;
}

::testing::AssertionResult same_as_evaluator(const Array &lazy) {
  const jx::runtime::BufferPtr expected =
      jx::api::evaluate_with(jx::api::Backend::Interpreter, lazy.node());
  const jx::runtime::BufferPtr actual =
      jx::api::evaluate_with(jx::api::Backend::Compiler, lazy.node());
  const size_t bytes = size_t(lazy.size()) * jx::itemsize(lazy.dtype());
  if (std::memcmp(actual->data(), expected->data(), bytes) != 0)
    return ::testing::AssertionFailure() << "differs from the evaluator";
  return ::testing::AssertionSuccess();
}

class Rank64 : public ::testing::TestWithParam<Shape (*)()> {};

TEST_P(Rank64, ValuesMatchTheEvaluator) {
  const Array x = distinct(GetParam()());
  x.block_until_ready();
  for (const Case &c : cases())
    EXPECT_TRUE(same_as_evaluator(c.f(x))) << c.name;
}

TEST_P(Rank64, KernelsHaveFewLoopLevels) {
  const Array x = distinct(GetParam()());
  x.block_until_ready();
  for (const Case &c : cases()) {
    const Array y = c.f(x);
    for (const jx::passes::Step &s : jx::passes::plan_steps(jx::passes::optimize({y.node()}))) {
      if (s.kind != jx::passes::Step::Kind::Kernel) continue;
      const jx::codegen::LoopCount n = jx::codegen::count_loops(s.plan);
      // At most 4 levels over the output, 4 over reduced axes, and a tiled nest's 4 tile loops:
      // never one per axis.
      EXPECT_LE(n.depth, 10) << c.name;
      EXPECT_LE(n.loops, 16) << c.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Rank64, ::testing::Values(front, back, spread, tiled));

TEST(Rank64, KernelWritesExactlyItsBox) {
  // Boxed axes (axis 0, and here axis 5 and the unit axis 20) stay loops of their own inside the
  // flattened nest: the kernel writes its box and nothing else.
  namespace ir = jx::ir;
  Shape shape = front();
  ir::NodePtr x = ir::parameter(0, jx::float64, shape);
  ir::NodePtr y =
      ir::binary(ir::Op::Mul, x, ir::broadcast(ir::literal(2, jx::float64, true), shape, {}));
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.collect_literals();
  plan.boxed_axes = 1u | 1u << 5 | 1u << 20;
  std::vector<int64_t> box;
  for (int64_t a = 0; a < 64; ++a) {
    const bool cut = a == 0 || a == 5;
    box.push_back(cut ? 1 : 0);
    box.push_back(shape[a]);
  }
  auto kernel = jx::backend::compile(plan);
  const int64_t n = jx::shape_size(shape);
  std::vector<double> in(n), out(n, -1);
  for (int64_t i = 0; i < n; ++i)
    in[i] = double(i);
  std::vector<uint64_t> literals = plan.literal_values();
  void *buffers[] = {out.data(), in.data(), literals.data()};
  kernel->fn(box.data(), buffers);
  const std::vector<int64_t> strides = jx::row_major_strides(shape);
  for (int64_t i = 0; i < n; ++i) {
    const bool inside = i / strides[0] % 2 == 1 && i / strides[5] % 2 == 1;
    ASSERT_EQ(out[i], inside ? 2.0 * i : -1.0) << "element " << i;
  }
  EXPECT_LE(jx::codegen::count_loops(plan).depth, 6);
}

} // namespace
