// jx::vmap: on every op family, vmap(f) over random in_axes and out_axes equals f applied to each
// example and stacked; nesting; composition with grad and jit; JAX's errors.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <random>

#include "op_cases.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using test_util::expect_error;
using transforms_test::Fn;
using transforms_test::random_array;

void expect_close(const Array &actual, const Array &expected) {
  ASSERT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const std::vector<double> a = actual.to_vector<double>(), e = expected.to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], e[i], 1e-12 * (1 + std::abs(e[i]))) << "element " << i;
}

TEST(Vmap, EveryOpFamilyEqualsStackedExamples) {
  constexpr int64_t batch = 3;
  uint64_t seed = 100;
  for (const transforms_test::OpCase &c : transforms_test::op_cases()) {
    for (int trial = 0; trial < 2; ++trial) {
      std::mt19937_64 rng(++seed);
      // Each argument mapped along a random axis, or shared (at least one mapped).
      std::vector<std::optional<int64_t>> in_axes;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        const auto rank = int64_t(c.shapes[i].size());
        const int64_t pick = int64_t(rng() % uint64_t(rank + 2)) - 1;
        in_axes.push_back(pick < 0 && (i > 0 || trial == 0)
                              ? std::nullopt
                              : std::optional(std::max<int64_t>(pick, 0)));
      }
      if (std::none_of(in_axes.begin(), in_axes.end(), [](auto &a) { return a.has_value(); }))
        in_axes[0] = 0;
      std::vector<std::vector<Array>> examples(batch);
      std::vector<Array> args;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        if (!in_axes[i]) {
          const Array shared = random_array(c.shapes[i], rng);
          for (auto &e : examples)
            e.push_back(shared);
          args.push_back(shared);
          continue;
        }
        std::vector<Array> per_example;
        for (auto &e : examples) {
          e.push_back(random_array(c.shapes[i], rng));
          per_example.push_back(e.back());
        }
        args.push_back(jnp::stack(per_example, *in_axes[i]));
      }
      std::vector<Array> expected;
      for (const auto &e : examples)
        expected.push_back(c.f(e));
      // The second trial counts out_axes from the end.
      const auto positions = uint64_t(expected[0].ndim() + 1);
      const int64_t out_axis = int64_t(rng() % positions) - (trial == 1 ? int64_t(positions) : 0);
      SCOPED_TRACE(::testing::Message()
                   << c.name << " trial " << trial << " out_axis " << out_axis);
      const Array batched = jx::vmap(c.f, in_axes, out_axis)(args);
      expect_close(batched, jnp::stack(expected, out_axis));
    }
  }
}

TEST(Vmap, NestedAndComposedWithGradAndJit) {
  std::mt19937_64 rng(7);
  const Array x = random_array({4, 3, 5}, rng), w = random_array({5}, rng);
  auto dot = [](const Array &a, const Array &b) { return jnp::sum(jnp::tanh(a * b)); };
  // vmap of vmap: a function of rows, mapped over both leading axes.
  const Array nested = jx::vmap(jx::vmap(dot, {0, jx::none}), {0, jx::none})(x, w);
  ASSERT_EQ(nested.shape(), (jx::Shape{4, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_NEAR(nested(i, j).item<double>(), dot(x(i, j), w).item<double>(), 1e-14);
  // vmap(grad(f)): per-example gradients; grad(sum of vmap(f)): their sum's gradient.
  const Array per_example = jx::vmap(jx::grad(dot), {0, jx::none})(x(0), w);
  for (int64_t i = 0; i < 3; ++i)
    expect_close(per_example(i), jx::grad(dot)(x(0, i), w));
  auto total = [&](const Array &v) { return jnp::sum(jx::vmap(dot, {0, jx::none})(x(0), v)); };
  Array sum_of_grads = jx::grad(dot, 1)(x(0, 0), w);
  for (int64_t i = 1; i < 3; ++i)
    sum_of_grads = sum_of_grads + jx::grad(dot, 1)(x(0, i), w);
  expect_close(jx::grad(total)(w), sum_of_grads);
  // jit(vmap(f)) and vmap(jit(f)).
  auto jitted = jx::jit([&](const Array &a, const Array &b) {
    return jx::vmap(dot, {0, jx::none})(a, b);
  });
  expect_close(jitted(x(1), w), jx::vmap(dot, {0, jx::none})(x(1), w));
  auto jitted_dot = jx::jit(dot);
  expect_close(jx::vmap([&](const Array &a, const Array &b) { return jitted_dot(a, b); },
                        {0, jx::none})(x(1), w),
               jx::vmap(dot, {0, jx::none})(x(1), w));
}

TEST(Vmap, UnmappedOutputsAxisSizeAndSeveralOutputs) {
  const Array x = jnp::array({1.0, 2.0, 3.0});
  auto constant = [](const Array &a) { return jnp::ones({2}) + 0.0 * jnp::sum(a); };
  // An output that does not depend on the mapped argument is broadcast along out_axes.
  const Array c = jx::vmap([](const Array &) { return jnp::ones({2}); }, 0, 1)(x);
  EXPECT_EQ(c.shape(), (jx::Shape{2, 3}));
  EXPECT_EQ(jx::vmap(constant)(x).shape(), (jx::Shape{3, 2}));
  const Array sized = jx::vmap([](const Array &a) { return a * 2.0; }, jx::none, 0, 4)(x);
  EXPECT_EQ(sized.shape(), (jx::Shape{4, 3}));
  EXPECT_EQ(sized(3).to_vector<double>(), (std::vector<double>{2, 4, 6}));
  auto two = [](const Array &a) { return std::tuple(a * a, jnp::sum(a)); };
  const Array m = jnp::reshape(jnp::arange(6.0), {2, 3});
  // Columns mapped; the squares stacked back along axis 1, the sums along axis 0.
  const auto [squares, sums] = jx::vmap(two, 1, {1, 0})(m);
  EXPECT_EQ(squares.to_vector<double>(), (m * m).to_vector<double>());
  EXPECT_EQ(sums.to_vector<double>(), (std::vector<double>{3, 5, 7}));
}

TEST(Vmap, ErrorsAreJaxs) {
  const Array a = jnp::zeros({10, 4}), b = jnp::zeros({10, 2}), c = jnp::zeros({3, 4});
  auto add = [](const Array &x, const Array &y) { return jnp::sum(x) + jnp::sum(y); };
  expect_error<jx::ValueError>(
      [&] {
        jx::vmap(add, {0, 1})(a, b);
      },
      "vmap got inconsistent sizes for array axes to be mapped:\n"
      "  * one axis had size 10: axis 0 of args[0] of type "
      "float64[10,4];\n"
      "  * one axis had size 2: axis 1 of args[1] of type float64[10,2]");
  auto three = [](const Array &x, const Array &y, const Array &z) {
    return jnp::sum(x) + jnp::sum(y) + jnp::sum(z);
  };
  expect_error<jx::ValueError>([&] { jx::vmap(three)(a, b, c); },
                               "  * most axes (2 of them) had size 10, e.g. axis 0 of args[0] of "
                               "type float64[10,4];\n"
                               "  * one axis had size 3: axis 0 of args[2] of type float64[3,4]");
  expect_error<jx::ValueError>(
      [&] {
        jx::vmap(add, {2, 0})(a, b);
      },
      "vmap was requested to map its argument along axis 2, which "
      "implies that its rank should be at least 3, but is only 2 (its "
      "shape is (10, 4))");
  expect_error<jx::ValueError>(
      [&] { jx::vmap(add, jx::none)(a, b); },
      "vmap must have at least one non-None value in in_axes or axis_size must be specified");
  expect_error<jx::ValueError>([&] { jx::vmap(add, {0})(a, b); },
                               "but got len(in_axes)=1, len(args)=2");
  expect_error<jx::ValueError>([&] { jx::vmap([](const Array &x) { return x; }, 0, jx::none)(a); },
                               "vmap has mapped output (axis_name=None) but out_axes is None");
  expect_error<jx::ValueError>([&] { jx::vmap(add, 0, 0, 7)(a, b); },
                               "  * the `axis_size` argument was 7;\n");
}

} // namespace
