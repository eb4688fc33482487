// Derivatives through control flow: the JVP and VJP of fori_loop, scan, cond, switch and
// while_loop bodies against finite differences and the dot-product identity (check_derivatives),
// gradients against the same loops unrolled, nesting, closures, int carries, jit, and JAX's
// error for reverse mode through a loop whose trip count is not static.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "diff/random_graph.h"
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
      return [&f](const Array &x, const Array &w) {
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

TEST(ControlDerivatives, ComposeWithVmapAndJit) {
  // Per-example gradients of a scanned loss: vmap of grad, grad of the vmapped loss's sum, and
  // both under jit, against each example's own gradient.
  auto loss = [](const Array &x) {
    auto [c, ys] = lax::scan(
        [](const Array &carry, const Array &row) {
          Array next = jnp::tanh(carry * row + 0.2);
          return std::pair{next, jnp::sin(next)};
        },
        x(0), x);
    return jnp::sum(ys) + c;
  };
  const Array batch = jnp::reshape(grid({24}, 0.15), {4, 6});
  std::vector<Array> each;
  for (int64_t i = 0; i < 4; ++i)
    each.push_back(jx::grad(loss)(batch(i)));
  const Array expected = jnp::stack(each);
  auto summed = [&](const Array &xs) { return jnp::sum(jx::vmap(loss)(xs)); };
  expect_close(jx::vmap(jx::grad(loss))(batch), expected);
  expect_close(jx::grad(summed)(batch), expected);
  expect_close(jx::jit(jx::vmap(jx::grad(loss)))(batch), expected);
  expect_close(jx::jit(jx::grad(summed))(batch), expected);
}

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// Elements where b is finite agree with a within rounding; the others are not finite in a either.
bool agree(const Array &a, const Array &b, double rtol) {
  if (a.shape() != b.shape()) return false;
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  double scale = 1;
  for (double v : y)
    if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < x.size(); ++i)
    if (std::isfinite(y[i]) ? std::abs(x[i] - y[i]) > rtol * scale : std::isfinite(x[i]))
      return false;
  return true;
}

// Random differentiable programs (diff::random_function) as the body of a 3-step fori_loop (a
// scan): its VJP and JVP against those of the same body unrolled. JX_DIFF_GRAPHS / JX_DIFF_SEED
// choose the programs (a fifth of the other random transformation tests' count by default).
TEST(ControlDerivatives, RandomBodiesDifferentiateAsTheirUnrolledLoops) {
  const uint64_t graphs = env_or("JX_DIFF_GRAPHS", JX_DEFAULT_GRAPHS / 5),
                 base = env_or("JX_DIFF_SEED", 1);
  jx::diff::GraphOptions options;
  options.float_dtype = jx::float64;
  options.differentiable = true;
  options.moderate_values = true;
  int failures = 0, checked = 0;
  std::string report;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    const jx::diff::GeneratedFunction fn = jx::diff::random_function(seed, options);
    if (std::any_of(fn.example_args.begin(), fn.example_args.end(),
                    [](const Array &a) { return a.dtype() != jx::float64; }))
      continue;
    // Carries: an accumulator of f's results and f's arguments, moved each step.
    auto step_of = [&](const std::vector<Array> &c) {
      const std::vector<Array> args(c.begin() + 1, c.end());
      std::vector<Array> next{c[0] * 0.5 + fn.f(args)};
      for (const Array &a : args)
        next.push_back(jnp::sin(a) * 0.75 + 0.125);
      return next;
    };
    const Fn looped = [&](const std::vector<Array> &a) {
      std::vector<Array> init{jnp::zeros_like(fn.f(a))};
      init.insert(init.end(), a.begin(), a.end());
      return lax::fori_loop(
          0, 3, [&](const Array &, const Arrays &c) { return step_of(c); }, init)[0];
    };
    const Fn unrolled = [&](const std::vector<Array> &a) {
      std::vector<Array> c{jnp::zeros_like(fn.f(a))};
      c.insert(c.end(), a.begin(), a.end());
      for (int i = 0; i < 3; ++i)
        c = step_of(c);
      return c[0];
    };
    try {
      const Array y = unrolled(fn.example_args);
      const Array ct = jnp::cos(jnp::reshape(jnp::arange(double(y.size())), y.shape()));
      const std::vector<Array> got = jx::vjp(looped, fn.example_args).second(ct),
                               want = jx::vjp(unrolled, fn.example_args).second(ct);
      const Array t_got = jx::jvp(looped, fn.example_args, fn.example_args).second,
                  t_want = jx::jvp(unrolled, fn.example_args, fn.example_args).second;
      bool ok = agree(t_got, t_want, 1e-9);
      for (size_t i = 0; ok && i < got.size(); ++i)
        ok = agree(got[i], want[i], 1e-9);
      ++checked;
      if (!ok && failures++ < 5)
        report += fmt::format("\n--- seed {}: derivatives differ\n{}\n", seed, fn.description);
    } catch (const std::exception &e) {
      if (failures++ < 5)
        report += fmt::format("\n--- seed {}: threw {}\n{}\n", seed, e.what(), fn.description);
    }
  }
  EXPECT_EQ(failures, 0) << failures << " of " << graphs << " bodies differ" << report;
  EXPECT_GE(2 * checked, int(graphs));
}

} // namespace
