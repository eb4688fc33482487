// jx::lax control flow: values against plain C++ loops and the reference evaluator, eagerly and
// under jit (one compiled program, the loop inside it), closures, nesting, every carry dtype,
// zero-trip loops, switch's index clamping, and JAX's errors.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backends_agree.h"
#include "heat/heat_step.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using lax::Arrays;
using test_util::expect_backends_agree;
using test_util::expect_error;

TEST(ForiLoop, SumsItsCounterEagerlyAndUnderJit) {
  auto f = [](const Array &x) {
    return lax::fori_loop(
        0, 10, [](const Array &i, const Array &acc) { return acc + i; }, x);
  };
  EXPECT_EQ(f(Array(0.5)).item<double>(), 45.5);
  EXPECT_EQ(jx::jit(f)(jnp::array(1.0, jx::float64)).item<double>(), 46.0);
  expect_backends_agree(f(jnp::array(2.0, jx::float64)));
}

TEST(ForiLoop, ZeroAndNegativeTripCountsReturnTheInit) {
  for (int64_t upper : {5, 2}) {
    Array out = lax::fori_loop(
        5, upper, [](const Array &, const Array &x) { return x * 2.0; },
        jnp::array(3.0, jx::float64));
    EXPECT_EQ(out.item<double>(), 3.0);
  }
}

// Bounds far apart: upper - lower overflowed int64 (INT64_MIN - (INT64_MAX - 1) wrapped to 2
// trips, where JAX runs none); uint64 bounds past INT64_MAX count as unsigned.
TEST(ForiLoop, TripCountsOfExtremeBoundsDoNotOverflow) {
  const auto doubled = [](const Array &, const Array &x) { return x * 2.0; };
  const Array init = jnp::array(3.0, jx::float64);
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const int64_t highest = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(lax::fori_loop(Array(highest - 1), Array(lowest), doubled, init).item<double>(), 3.0);
  EXPECT_EQ(lax::fori_loop(Array(highest), Array(lowest), doubled, init).item<double>(), 3.0);
  EXPECT_EQ(lax::fori_loop(Array(highest - 2), Array(highest), doubled, init).item<double>(), 12.0);
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  const auto u = [](uint64_t v) { return jnp::array<uint64_t>({v}).reshape({}); };
  EXPECT_EQ(lax::fori_loop(u(top - 1), u(top), doubled, init).item<double>(), 6.0);
  EXPECT_EQ(lax::fori_loop(u(top), u(1), doubled, init).item<double>(), 3.0);
}

TEST(ForiLoop, TracedBoundsRunUnderJit) {
  auto f = jx::jit([](const Array &n, const Array &x) {
    return lax::fori_loop(
        0, n, [](const Array &, const Array &v) { return v * 2.0; }, x);
  });
  for (int64_t n : {0, 1, 7})
    EXPECT_EQ(f(jnp::array(double(n), jx::int64).astype(jx::int64), jnp::array(1.0, jx::float64))
                  .item<double>(),
              std::pow(2.0, double(n)));
}

TEST(WhileLoop, NewtonIterationToATolerance) {
  // x <- (x + 2 / x) / 2 until |x^2 - 2| < 1e-12: sqrt(2), as the same loop in C++.
  auto newton = [](const Array &x0) {
    return lax::while_loop([](const Array &x) { return jnp::abs(x * x - 2.0) >= 1e-12; },
                           [](const Array &x) { return (x + 2.0 / x) / 2.0; }, x0);
  };
  double expected = 1.0;
  while (std::abs(expected * expected - 2.0) >= 1e-12)
    expected = (expected + 2.0 / expected) / 2.0;
  const Array x0 = jnp::array(1.0, jx::float64);
  EXPECT_EQ(jx::jit(newton)(x0).item<double>(), expected);
  EXPECT_EQ(newton(x0).item<double>(), expected);
  expect_backends_agree(newton(x0));
}

TEST(WhileLoop, TupleCarriesOfEveryDtype) {
  const Arrays init = {jnp::array(1.5, jx::float32), jnp::array(2.5, jx::float64),
                       jnp::array(3.0, jx::int32),   jnp::array(4.0, jx::int64),
                       jnp::array(0.0, jx::bool_),   jnp::arange(6.0).reshape({2, 3})};
  auto loop = [](const Arrays &start) {
    return lax::while_loop(
        [](const Arrays &c) { return c[3] < 10; },
        [](const Arrays &c) {
          return Arrays{c[0] * 2.0f, c[1] + 1.0, c[2] * 3, c[3] + 2, jnp::logical_not(c[4]),
                        c[5] + c[1]};
        },
        start);
  };
  auto jitted = jx::jit([&](const Array &a, const Array &b, const Array &c, const Array &d,
                            const Array &e, const Array &f) {
    return loop({a, b, c, d, e, f});
  });
  const Arrays compiled = jitted(init[0], init[1], init[2], init[3], init[4], init[5]);
  for (const Arrays &out : {loop(init), compiled}) {
    ASSERT_EQ(out.size(), init.size());
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i].dtype(), init[i].dtype());
    // Three iterations: c[3] = 4, 6, 8 -> 10.
    EXPECT_EQ(out[0].item<float>(), 12.0f);
    EXPECT_EQ(out[1].item<double>(), 5.5);
    EXPECT_EQ(out[2].item<int32_t>(), 81);
    EXPECT_EQ(out[3].item<int64_t>(), 10);
    EXPECT_EQ(out[4].item<bool>(), true);
    EXPECT_EQ(out[5].to_vector<double>(),
              (std::vector<double>{10.5, 11.5, 12.5, 13.5, 14.5, 15.5}));
  }
}

TEST(WhileLoop, ClosuresAreInputsComputedOnce) {
  // The body reads w (a jit argument) and exp(w) (work on it that does not change per step).
  auto f = jx::jit([](const Array &w, const Array &x) {
    const Array scale = jnp::exp(w);
    return lax::fori_loop(
        0, 4, [&](const Array &, const Array &v) { return v * scale + w; }, x);
  });
  const Array w = jnp::array(std::vector<double>{0.1, -0.2, 0.3});
  const Array x = jnp::array(std::vector<double>{1.0, 2.0, 3.0});
  std::vector<double> expected = {1.0, 2.0, 3.0};
  const std::vector<double> wv = {0.1, -0.2, 0.3};
  for (int step = 0; step < 4; ++step)
    for (size_t k = 0; k < 3; ++k)
      expected[k] = expected[k] * std::exp(wv[k]) + wv[k];
  const std::vector<double> got = f(w, x).to_vector<double>();
  for (size_t k = 0; k < 3; ++k) // exp: jx's vector math against libm's, within an ulp or two
    EXPECT_NEAR(got[k], expected[k], 1e-14 * std::abs(expected[k]));
  // One program: exp(w) computed once, before the loop, whose kernel (the body is elementwise in
  // its carry, so the loop runs per element inside one kernel) reads it as an input.
  const std::string text =
      f.lower(jx::ShapeDtypeStruct{{3}, jx::float64}, jx::ShapeDtypeStruct{{3}, jx::float64})
          .compile()
          .as_text();
  EXPECT_NE(text.find("kernel exp : f64[3]"), std::string::npos) << text;
  EXPECT_NE(text.find("(scan of 4 steps inside the kernel, per element)"), std::string::npos)
      << text;
}

TEST(WhileLoop, NestedLoops) {
  // sum over i < 4, j < i of (i * j): 0 + 0 + (0 + 2) + (0 + 3 + 6) = 11.
  auto f = [](const Array &x) {
    return lax::fori_loop(
        0, 4,
        [](const Array &i, const Array &acc) {
          return lax::fori_loop(
              0, i, [&](const Array &j, const Array &a) { return a + i * j; }, acc);
        },
        x);
  };
  EXPECT_EQ(f(jnp::array(0.0, jx::int64).astype(jx::int64)).item<int64_t>(), 11);
  EXPECT_EQ(jx::jit(f)(jnp::array(0.0, jx::int64).astype(jx::int64)).item<int64_t>(), 11);
}

TEST(WhileLoop, HeatStepsMatchACppLoopAroundJitBitForBit) {
  // The diff seed's stencil along both axes with zero padding, 20 explicit steps.
  const auto step = heat::step;
  const Array u0 = jx::random::normal(jx::random::PRNGKey(3), {32, 48});
  Array by_hand = u0;
  auto jitted_step = jx::jit(step);
  for (int i = 0; i < 20; ++i)
    by_hand = jitted_step(by_hand);
  auto loop = jx::jit([&](const Array &u) {
    return lax::fori_loop(
        0, 20, [&](const Array &, const Array &v) { return step(v); }, u);
  });
  const Array looped = loop(u0);
  // 0.1 and 4.0 broadcast in the body stay there (index arithmetic in its kernel), never
  // captured as array-sized buffers read every step.
  const std::string text =
      loop.lower(jx::ShapeDtypeStruct{{32, 48}, jx::float64}).compile().as_text();
  EXPECT_EQ(text.find("broadcast"), std::string::npos) << text;
  const std::vector<double> a = by_hand.to_vector<double>(), b = looped.to_vector<double>();
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 8), 0);
}

TEST(Cond, RunsTheBranchItsPredicateChooses) {
  auto f = [](const Array &p, const Array &x) {
    return lax::cond(
        p, [](const Array &v) { return v * 2.0; }, [](const Array &v) { return v - 1.0; }, x);
  };
  const Array x = jnp::array(std::vector<double>{1.0, 2.0});
  EXPECT_EQ(f(Array(true), x).to_vector<double>(), (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(jx::jit(f)(Array(false), x).to_vector<double>(), (std::vector<double>{0.0, 1.0}));
  // A number is compared with 0, as JAX does.
  EXPECT_EQ(f(Array(3), x).to_vector<double>(), (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(f(Array(0.0), x).to_vector<double>(), (std::vector<double>{0.0, 1.0}));
  expect_backends_agree(f(jnp::array(1.0, jx::bool_), x));
}

TEST(Switch, ClampsItsIndexAsJax) {
  const std::vector<std::function<Array(const Array &)>> branches = {
      [](const Array &v) { return v + 1.0; }, [](const Array &v) { return v * 10.0; },
      [](const Array &v) { return -v; }};
  auto f = jx::jit([&](const Array &i, const Array &x) { return lax::switch_(i, branches, x); });
  const Array x = jnp::array(2.0, jx::float64);
  const std::pair<int, double> cases[] = {{-5, 3.0}, {0, 3.0}, {1, 20.0}, {2, -2.0}, {7, -2.0}};
  for (const auto &[index, expected] : cases) {
    EXPECT_EQ(f(Array(index), x).item<double>(), expected) << index;
    EXPECT_EQ(lax::switch_(Array(index), branches, x).item<double>(), expected) << index;
  }
}

TEST(Scan, CarriesAndStacksEagerlyUnderJitAndReversed) {
  // A running sum of rows (the carry) and each row times the sum so far (the stacked output).
  auto f = [](const Array &init, const Array &xs, bool reverse) {
    return lax::scan(
        [](const Array &c, const Array &x) {
          const Array next = c + x;
          return std::pair{next, x * next};
        },
        init, xs, std::nullopt, reverse);
  };
  const Array xs = jnp::arange(15.0).reshape({5, 3}), init = jnp::ones({3});
  for (bool reverse : {false, true}) {
    std::vector<double> carry = {1, 1, 1}, ys(15);
    const std::vector<double> x = xs.to_vector<double>();
    for (int step = 0; step < 5; ++step) {
      const int t = reverse ? 4 - step : step;
      for (int k = 0; k < 3; ++k) {
        carry[k] += x[t * 3 + k];
        ys[t * 3 + k] = x[t * 3 + k] * carry[k];
      }
    }
    const auto [c, y] = f(init, xs, reverse);
    EXPECT_EQ(c.to_vector<double>(), carry);
    EXPECT_EQ(y.shape(), (jx::Shape{5, 3}));
    EXPECT_EQ(y.to_vector<double>(), ys);
    const auto jitted = jx::jit([&](const Array &i, const Array &v) {
      auto [jc, jy] = f(i, v, reverse);
      return std::vector<Array>{jc, jy};
    })(init, xs);
    EXPECT_EQ(jitted[0].to_vector<double>(), carry);
    EXPECT_EQ(jitted[1].to_vector<double>(), ys);
    expect_backends_agree(f(init, xs, reverse).second);
  }
}

TEST(Scan, LengthWithoutXsZeroLengthAndMap) {
  // No xs: length steps of the carry alone.
  const auto [count, doubled] = lax::scan(
      [](const Arrays &c, const Arrays &) {
        return std::pair{Arrays{c[0] + 1}, Arrays{c[0] * 2}};
      },
      Arrays{jnp::array(0.0, jx::int64).astype(jx::int64)}, Arrays{}, 4);
  EXPECT_EQ(count[0].item<int64_t>(), 4);
  EXPECT_EQ(doubled[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 4, 6}));
  // Zero steps: the init, and empty stacks.
  const auto [c, y] = lax::scan(
      [](const Array &carry, const Array &x) {
        return std::pair{carry + x, x};
      },
      jnp::zeros({2}), jnp::zeros({0, 2}));
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(y.shape(), (jx::Shape{0, 2}));
  // One array carried, no y (JAX's None): the carry and an empty list.
  const auto [total, none] = lax::scan(
      [](const Array &carry, const Array &x) {
        return std::pair{carry + x, Arrays{}};
      },
      jnp::zeros({3}), jnp::arange(15.0).reshape({5, 3}));
  EXPECT_EQ(total.to_vector<double>(), (std::vector<double>{30, 35, 40}));
  EXPECT_TRUE(none.empty());
  // map: each row's sum of squares.
  const Array rows = jnp::arange(6.0).reshape({3, 2});
  EXPECT_EQ(lax::map([](const Array &r) { return jnp::sum(r * r); }, rows).to_vector<double>(),
            (std::vector<double>{1, 13, 41}));
}

TEST(ControlFlowErrors, ScanLengthsAreChecked) {
  auto step = [](const Arrays &c, const Arrays &x) { return std::pair{c, x}; };
  const Array a = jnp::zeros({3}), b = jnp::zeros({4});
  expect_error<jx::ValueError>(
      [&] {
        lax::scan(step, Arrays{}, Arrays{a, b});
      },
      "scan got values with different leading axis sizes: 3, 4.");
  expect_error<jx::ValueError>([&] { lax::scan(step, Arrays{}, Arrays{a}, 5); },
                               "scan got `length` argument of 5 which disagrees with leading axis "
                               "sizes [3].");
  expect_error<jx::ValueError>([&] { lax::scan(step, Arrays{}, Arrays{}); },
                               "scan got no values to scan over and `length` not provided.");
  expect_error<jx::ValueError>(
      [&] { lax::scan(step, Arrays{}, Arrays{jnp::array(1.0, jx::float64)}); },
      "scan got value with no leading axis to scan over: float64[].");
  expect_error<jx::TypeError>(
      [&] {
        lax::scan(
            [](const Array &c, const Array &x) {
              return std::pair{(c + x).astype(jx::float32), x};
            },
            jnp::array(0.0, jx::float64), a);
      },
      "scan body function carry input and carry output must have equal types");
}

TEST(ControlFlowErrors, BodyThatChangesTheCarryTypeIsJaxsTypeError) {
  const Array x = jnp::array(1.0, jx::float64);
  expect_error<jx::TypeError>(
      [&] {
        lax::while_loop([](const Array &v) { return v < 3.0; },
                        [](const Array &v) { return v.astype(jx::float32); }, x);
      },
      "while_loop body function carry input and carry output must have equal types, but they "
      "differ:\n\nThe input carry has type float64[] but the corresponding output carry "
      "component has type float32[], so the dtypes do not match.");
  expect_error<jx::TypeError>(
      [&] {
        lax::while_loop([](const Arrays &v) { return v[0] < 3.0; },
                        [](const Arrays &v) {
                          return Arrays{v[0], jnp::stack({v[1], v[1]})};
                        },
                        Arrays{x, x});
      },
      "The input carry at path [1] has type float64[] but the corresponding output carry "
      "component has type float64[2], so the shapes do not match.");
  expect_error<jx::TypeError>(
      [&] {
        lax::while_loop([](const Arrays &v) { return v[0] < 3.0; },
                        [](const Arrays &v) { return Arrays{v[0]}; }, Arrays{x, x});
      },
      "carry input and carry output must have the same pytree structure");
}

TEST(ControlFlowErrors, WeaklyTypedInitTakesTheBodysType) {
  // 0 (a weak int) as the carry of a body that adds a float32 array: the carry is float32.
  const Array step = jnp::array(0.5, jx::float32);
  Array out = lax::fori_loop(
      0, 3, [&](const Array &, const Array &v) { return v + step; }, Array(0));
  EXPECT_EQ(out.dtype(), jx::float32);
  EXPECT_EQ(out.item<float>(), 1.5f);
}

TEST(ControlFlowErrors, PredicatesAndIndicesAreChecked) {
  const Array x = jnp::array(1.0, jx::float64);
  expect_error<jx::TypeError>(
      [&] {
        lax::while_loop([](const Array &v) { return v; }, [](const Array &v) { return v; }, x);
      },
      "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(float64[])].");
  auto same = [](const Array &v) { return v; };
  expect_error<jx::TypeError>(
      [&] {
        lax::cond(jnp::array(std::vector<double>{1, 0}) > 0, same, same, x);
      },
      "Pred must be a scalar, got bool[2] of shape (2,).");
  const std::vector<std::function<Array(const Array &)>> branches = {same, same};
  expect_error<jx::TypeError>([&] { lax::switch_(Array(1.5), branches, x); },
                              "Index type must be an integer, got float64[] as float64");
  expect_error<jx::TypeError>(
      [&] {
        lax::cond(
            Array(true), same, [](const Array &v) { return v.astype(jx::float32); }, x);
      },
      "cond branches must have equal output types but they differ.\n\nThe output of true_fun "
      "has type float64[] but the corresponding output of false_fun has type float32[], so the "
      "dtypes do not match.");
  expect_error<jx::ValueError>(
      [&] { lax::switch_(Array(0), std::vector<std::function<Array(const Array &)>>{}, x); },
      "Empty branch sequence");
}

// vmap(f)(xs) stacks f(x) per example, bit for bit.
void expect_stacked(const std::function<Array(const Array &)> &f, const Array &xs) {
  std::vector<Array> each;
  for (int64_t i = 0; i < xs.shape()[0]; ++i)
    each.push_back(f(xs(i)));
  const std::vector<double> batched = jx::vmap(f)(xs).to_vector<double>(),
                            stacked = jnp::stack(each).to_vector<double>();
  EXPECT_EQ(batched, stacked);
  EXPECT_EQ(jx::jit(jx::vmap(f))(xs).to_vector<double>(), stacked);
}

TEST(ControlFlowVmap, LoopsRunUntilEveryExampleIsDone) {
  // Newton for sqrt: each example needs its own number of steps; the batched loop runs until the
  // last is done and keeps the finished ones' carries.
  expect_stacked(
      [](const Array &a) {
        return lax::while_loop([&](const Array &x) { return jnp::abs(x * x - a) > 1e-12 * a; },
                               [&](const Array &x) { return (x + a / x) / 2.0; }, a);
      },
      jnp::array(std::vector<double>{2.0, 1e6, 0.25, 1.0}));
  expect_stacked(
      [](const Array &x) {
        return lax::fori_loop(
            0, 3, [](const Array &, const Array &v) { return v * v; }, x);
      },
      jnp::array(std::vector<double>{1.0, 2.0, -0.5}));
  // An empty batch runs no step.
  auto twice = [](const Array &x) {
    return lax::while_loop([](const Array &v) { return v < 10.0; },
                           [](const Array &v) { return v * 2.0; }, x);
  };
  EXPECT_EQ(jx::vmap(twice)(jnp::zeros({0})).shape(), (jx::Shape{0}));
}

TEST(ControlFlowVmap, BranchesByBatchedAndSharedPredicates) {
  // A batched predicate: both branches computed, each example's chosen (JAX's select_n).
  expect_stacked(
      [](const Array &x) {
        return lax::cond(
            x > 0.0, [](const Array &v) { return jnp::sqrt(v); },
            [](const Array &v) { return v * v; }, x);
      },
      jnp::array(std::vector<double>{4.0, -3.0, 0.0, 2.25}));
  const std::vector<std::function<Array(const Array &)>> branches = {
      [](const Array &v) { return v + 1.0; }, [](const Array &v) { return v * 10.0; },
      [](const Array &v) { return -v; }};
  // The index per example (clamped), and one index shared by the batch.
  expect_stacked([&](const Array &x) { return lax::switch_(x.astype(jx::int32), branches, x); },
                 jnp::array(std::vector<double>{-1.0, 0.0, 1.0, 2.0, 5.0}));
  expect_stacked([&](const Array &x) { return lax::switch_(Array(1), branches, x); },
                 jnp::array(std::vector<double>{-1.0, 0.5, 3.0}));
}

TEST(ControlFlowVmap, ScansOverBatchedAndSharedRows) {
  // Batched xs (the batch axis moved behind the scanned one), a batched carry over shared xs, and
  // a shared carry over batched xs.
  const Array shared = jnp::reshape(jnp::array(std::vector<double>{0.5, -1.0, 2.0, 0.25}), {4, 1});
  auto cumulative = [](const Array &xs) {
    return lax::scan(
               [](const Array &c, const Array &x) {
                 return std::pair{c * 0.5 + x, c};
               },
               jnp::zeros({1}), xs)
        .second;
  };
  expect_stacked(
      [&](const Array &x) {
        return cumulative(x.reshape({3, 1}));
      },
      jnp::reshape(jnp::arange(6.0), {2, 3}));
  expect_stacked(
      [&](const Array &c0) {
        auto [c, ys] = lax::scan(
            [](const Array &c, const Array &x) {
              return std::pair{jnp::sin(c) + x, c * x};
            },
            c0.reshape({1}), shared);
        return jnp::concatenate({c, ys.reshape({4})});
      },
      jnp::array(std::vector<double>{1.0, -2.0, 0.5}));
  // lax.map over a batch, reversed.
  expect_stacked(
      [](const Array &x) {
        return lax::scan(
                   [](const Array &c, const Array &v) {
                     return std::pair{c + v, c * v};
                   },
                   jnp::zeros({}), x, std::nullopt, true)
            .second;
      },
      jnp::reshape(jnp::arange(8.0), {2, 4}));
}

} // namespace
