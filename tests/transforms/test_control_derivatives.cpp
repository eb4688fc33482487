// Derivatives through control flow: the JVP and VJP of fori_loop, scan, cond, switch and
// while_loop bodies against finite differences and the dot-product identity (check_derivatives),
// gradients against the same loops unrolled, nesting, closures, int carries, jit, and JAX's
// error for reverse mode through a loop whose trip count is not static.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>

#include "op_cases.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using lax::Arrays;
using test_util::expect_error;
using transforms_test::check_derivatives;
using transforms_test::Fn;
using transforms_test::max_abs;

Array grid(const jx::Shape &shape, double scale = 0.1) {
  int64_t size = 1;
  for (int64_t d : shape)
    size *= d;
  return jnp::reshape(jnp::sin(jnp::arange(double(size)) * 0.7 + 0.3) * scale * 10.0, shape);
}

// A nonlinear step of a carry and a closed-over weight.
Array step(const Array &v, const Array &w) { return jnp::sin(v) * w + v * 0.5; }

void expect_close(const Array &a, const Array &b, double tol = 1e-12) {
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_LE(max_abs(a - b), tol * (1 + max_abs(b)));
}

TEST(ControlDerivatives, ForiLoopWithStaticBoundsIsDifferentiatedAsItsUnrolledLoop) {
  const Fn looped = [](const std::vector<Array> &a) {
    return lax::fori_loop(
        0, 6, [&](const Array &i, const Array &v) { return step(v, a[1]) + i * 0.01; }, a[0]);
  };
  const Fn unrolled = [](const std::vector<Array> &a) {
    Array v = a[0];
    for (int i = 0; i < 6; ++i)
      v = step(v, a[1]) + i * 0.01;
    return v;
  };
  const std::vector<Array> args{grid({5}), grid({5}, 0.2) + 1.0};
  check_derivatives(looped, args);
  for (int k = 0; k < 2; ++k) {
    auto loss = [&](const Fn &f) {
      return [&f, k](const Array &x, const Array &w) {
        return jnp::sum(jnp::square(f(std::vector<Array>{x, w})));
      };
    };
    expect_close(jx::grad(loss(looped), k)(args[0], args[1]),
                 jx::grad(loss(unrolled), k)(args[0], args[1]));
  }
}

TEST(ControlDerivatives, ScanCarriesXsYsAndClosuresInBothDirections) {
  for (const bool reverse : {false, true}) {
    const Fn f = [reverse](const std::vector<Array> &a) {
      const Array &w = a[2];
      auto [carry, ys] = lax::scan(
          [&](const Arrays &c, const Arrays &x) {
            Array next = step(c[0], w) + x[0] * c[1];
            return std::pair<Arrays, Arrays>{Arrays{next, c[1] * 0.9},
                                             Arrays{jnp::cos(next) * x[0], next}};
          },
          Arrays{a[0], a[0] * 0.3}, Arrays{a[1]}, std::nullopt, reverse);
      return jnp::sum(ys[0], 0) + carry[0] + carry[1] + ys[1](2);
    };
    check_derivatives(f, {grid({3}), grid({7, 3}, 0.3), grid({3}, 0.2) + 1.0});
  }
}

TEST(ControlDerivatives, ScanGradientMatchesTheUnrolledScan) {
  const Array init = grid({4}), xs = grid({5, 4}, 0.3);
  auto looped = [](const Array &c0, const Array &x) {
    auto [carry, ys] = lax::scan(
        [](const Array &c, const Array &row) {
          Array next = jnp::tanh(c * row + 0.1);
          return std::pair<Array, Array>{next, next * next};
        },
        c0, x);
    return jnp::sum(ys) + jnp::sum(carry);
  };
  auto unrolled = [](const Array &c0, const Array &x) {
    Array c = c0, total = jnp::zeros({}, jx::float64);
    for (int64_t t = 0; t < 5; ++t) {
      c = jnp::tanh(c * x(t) + 0.1);
      total = total + jnp::sum(c * c);
    }
    return total + jnp::sum(c);
  };
  for (int k = 0; k < 2; ++k)
    expect_close(jx::grad(looped, k)(init, xs), jx::grad(unrolled, k)(init, xs));
  // The same gradient compiled into one program.
  expect_close(jx::jit(jx::grad(looped, 1))(init, xs), jx::grad(unrolled, 1)(init, xs));
}

TEST(ControlDerivatives, ScanWithAnIntCarryAndNoXs) {
  const Fn f = [](const std::vector<Array> &a) {
    auto [carry, ys] = lax::scan(
        [&](const Arrays &c, const Arrays &) {
          Array scaled = c[1] * (c[0].astype(jx::float64) + 1.0) * a[1];
          return std::pair<Arrays, Arrays>{Arrays{c[0] + 1, jnp::sin(scaled)}, Arrays{scaled}};
        },
        Arrays{Array(0), a[0]}, Arrays{}, 4);
    return carry[1] + jnp::sum(ys[0], 0);
  };
  check_derivatives(f, {grid({3}), grid({3}, 0.2)});
}

TEST(ControlDerivatives, CondAndSwitchTakeTheBranchThePrimalTook) {
  const Fn f = [](const std::vector<Array> &a) {
    return lax::cond(
        jnp::sum(a[0]) > 0, [&](const Array &x) { return jnp::sin(x) * a[1]; },
        [&](const Array &x) { return x * x; }, a[0]);
  };
  check_derivatives(f, {grid({4}), grid({4}, 0.3)});
  check_derivatives(f, {-jnp::abs(grid({4})), grid({4}, 0.3)});
  const std::vector<std::function<Array(const Array &)>> branches{
      [](const Array &x) { return jnp::exp(x); }, [](const Array &x) { return x * x * x; },
      [](const Array &x) { return jnp::cos(x) * 2.0; }};
  for (int index : {-1, 0, 1, 2, 5}) {
    const Fn g = [&, index](const std::vector<Array> &a) {
      return lax::switch_(Array(index), branches, a[0]);
    };
    check_derivatives(g, {grid({3})});
  }
  // grad of the cond: the derivative of the branch taken.
  const Array x = jnp::array(0.4, jx::float64);
  auto h = [](const Array &v) {
    return lax::cond(
        v > 0, [](const Array &y) { return jnp::sin(y); }, [](const Array &y) { return -y; }, v);
  };
  EXPECT_DOUBLE_EQ(jx::grad(h)(x).item<double>(), std::cos(0.4));
  EXPECT_DOUBLE_EQ(jx::grad(h)(-x).item<double>(), -1.0);
  EXPECT_DOUBLE_EQ(jx::jit(jx::grad(h))(x).item<double>(), std::cos(0.4));
}

TEST(ControlDerivatives, NestedLoopsAndBranches) {
  const Fn f = [](const std::vector<Array> &a) {
    return lax::fori_loop(
        0, 3,
        [&](const Array &i, const Array &v) {
          Array inner = lax::fori_loop(
              0, 2, [&](const Array &, const Array &u) { return step(u, a[1]); }, v);
          return lax::cond(
              i % 2 == 0, [](const Array &u) { return jnp::tanh(u); },
              [&](const Array &u) { return u * a[1]; }, inner);
        },
        a[0]);
  };
  check_derivatives(f, {grid({4}), grid({4}, 0.2) + 1.0});
}

TEST(ControlDerivatives, WhileLoopHasAJvpAndJaxsErrorInReverse) {
  const Fn f = [](const std::vector<Array> &a) {
    return lax::while_loop([](const Arrays &v) { return v[0] < 4; },
                           [&](const Arrays &v) {
                             return Arrays{v[0] + 1, step(v[1], a[1])};
                           },
                           Arrays{Array(0), a[0]})[1];
  };
  const std::vector<Array> args{grid({3}), grid({3}, 0.2)};
  const auto [y, ydot] = jx::jvp(f, args, {jnp::ones({3}), jnp::zeros({3})});
  const double h = 1e-6;
  const Array fd = (f({args[0] + h, args[1]}) - f({args[0] - h, args[1]})) / (2 * h);
  expect_close(ydot, fd, 1e-6);
  const char *message =
      "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
      "dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.";
  expect_error<jx::ValueError>(
      [&] { jx::grad([&](const Array &x) {
              return jnp::sum(f({x, args[1]}));
            })(args[0]); },
      message);
  // A fori_loop whose bound is traced is a while loop too.
  auto traced_bound = [](const Array &x, const Array &n) {
    return jnp::sum(lax::fori_loop(
        0, n, [](const Array &, const Array &v) { return jnp::sin(v); }, x));
  };
  expect_error<jx::ValueError>([&] { jx::grad(traced_bound)(args[0], Array(3)); }, message);
  // Forward mode through it is fine.
  const Array n = jnp::array(3, jx::int32);
  const auto [out, tangent] =
      jx::jvp([&](const Array &x) { return traced_bound(x, n); }, {args[0]}, {jnp::ones({3})});
  const Array g =
      jx::grad([](const Array &x) { return jnp::sum(jnp::sin(jnp::sin(jnp::sin(x)))); })(args[0]);
  EXPECT_NEAR(tangent.item<double>(), jnp::sum(g).item<double>(), 1e-12);
}

} // namespace
