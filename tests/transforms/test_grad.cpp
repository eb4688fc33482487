// Reverse mode and the JVP of movement, reductions and contractions: per op family, the JVP
// against central finite differences and the VJP against the JVP by the dot-product identity
// <ybar, J v> = <J^T ybar, v> (exact up to rounding: it checks every transpose rule); grad,
// value_and_grad, linearize and vjp with JAX's results and errors; composition with jit.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "op_cases.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using test_util::expect_error;
using transforms_test::check_derivatives;
using transforms_test::dot;
using transforms_test::Fn;
using transforms_test::max_abs;
using transforms_test::random_array;

TEST(Grad, MovementReductionsAndContractionsAgreeWithFiniteDifferencesAndTheirTransposes) {
  uint64_t seed = 0;
  for (const transforms_test::OpCase &c : transforms_test::op_cases()) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(++seed);
    const std::vector<Array> args = transforms_test::random_args(c, rng);
    if (std::string(c.name) == "convert") {
      const Array x = args[0], v = jnp::ones({3});
      EXPECT_EQ(jx::jvp(c.f, {x}, {v}).second.to_vector<double>(), (std::vector<double>{1, 1, 1}));
      EXPECT_EQ(jx::vjp(c.f, {x}).second(v)[0].to_vector<double>(), (std::vector<double>{1, 1, 1}));
      continue;
    }
    check_derivatives(c.f, args, seed);
  }
}

TEST(Grad, ScalarFunctions) {
  const Array x = jnp::array({0.5, -1.0, 2.0});
  auto loss = [](const Array &a) { return jnp::sum(a * a * a); };
  EXPECT_EQ(jx::grad(loss)(x).to_vector<double>(), (std::vector<double>{0.75, 3.0, 12.0}));
  const auto [value, g] = jx::value_and_grad(loss)(x);
  EXPECT_EQ(value.item<double>(), 0.125 - 1.0 + 8.0);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{0.75, 3.0, 12.0}));
  // d/dx sin = cos, d2/dx2 sin = -sin: grad of grad.
  auto sin = [](const Array &a) { return jnp::sin(a); };
  const Array p = jnp::array(0.7, jx::float64);
  EXPECT_DOUBLE_EQ(jx::grad(sin)(p).item<double>(), std::cos(0.7));
  EXPECT_DOUBLE_EQ(jx::grad(jx::grad(sin))(p).item<double>(), -std::sin(0.7));
  EXPECT_NEAR(jx::grad(jx::grad(jx::grad(sin)))(p).item<double>(), -std::cos(0.7), 1e-15);
}

TEST(Grad, ArgnumsHasAuxAllowInt) {
  const Array x = jnp::array({1.0, 2.0}), y = jnp::array({3.0, -1.0});
  auto f = [](const Array &a, const Array &b) { return jnp::sum(a * b * b); };
  EXPECT_EQ(jx::grad(f)(x, y).to_vector<double>(), (std::vector<double>{9.0, 1.0}));
  EXPECT_EQ(jx::grad(f, 1)(x, y).to_vector<double>(), (std::vector<double>{6.0, -4.0}));
  EXPECT_EQ(jx::grad(f, -1)(x, y).to_vector<double>(), (std::vector<double>{6.0, -4.0}));
  const std::vector<Array> both = jx::grad(f, std::vector<int>{1, 0})(x, y);
  ASSERT_EQ(both.size(), 2U);
  EXPECT_EQ(both[0].to_vector<double>(), (std::vector<double>{6.0, -4.0}));
  EXPECT_EQ(both[1].to_vector<double>(), (std::vector<double>{9.0, 1.0}));

  auto with_aux = [](const Array &a) { return std::pair(jnp::sum(a * a), a * 10.0); };
  const auto [g, aux] = jx::grad(with_aux, 0, {.has_aux = true})(x);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(aux.to_vector<double>(), (std::vector<double>{10.0, 20.0}));
  const auto [value_aux, g2] = jx::value_and_grad(with_aux, 0, {.has_aux = true})(x);
  EXPECT_EQ(value_aux.first.item<double>(), 5.0);
  EXPECT_EQ(value_aux.second.to_vector<double>(), (std::vector<double>{10.0, 20.0}));
  EXPECT_EQ(g2.to_vector<double>(), (std::vector<double>{2.0, 4.0}));

  // An int argument: JAX's float0 gradient is a bool zero here.
  const Array i = jnp::array({1.0, 2.0}).astype(jx::int32);
  auto scaled = [](const Array &a, const Array &n) { return jnp::sum(a * n.astype(jx::float64)); };
  const std::vector<Array> gi = jx::grad(scaled, std::vector<int>{0, 1}, {.allow_int = true})(x, i);
  EXPECT_EQ(gi[0].to_vector<double>(), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(gi[1].dtype(), jx::bool_);
  EXPECT_EQ(gi[1].to_vector<bool>(), (std::vector<bool>{false, false}));
}

TEST(Grad, ErrorsAreJaxs) {
  const Array x = jnp::array({1.0, 2.0});
  auto sum = [](const Array &a) { return jnp::sum(a); };
  expect_error<jx::TypeError>([&] { jx::grad([](const Array &a) { return a; })(x); },
                              "Gradient only defined for scalar-output functions. Output had "
                              "shape: (2,).");
  expect_error<jx::TypeError>([&] { jx::grad(sum)(x.astype(jx::int32)); },
                              "grad requires real- or complex-valued inputs (input dtype that is "
                              "a sub-dtype of np.inexact), but got int32. If you want to use "
                              "Boolean- or integer-valued inputs, use vjp or set allow_int to "
                              "True.");
  expect_error<jx::TypeError>(
      [&] { jx::grad([](const Array &a) { return jnp::argmax(a); })(x); },
      "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but "
      "got int64. For differentiation of functions with integer outputs, use jax.vjp directly.");
  auto two = [](const Array &a, const Array &b) { return jnp::sum(a * b); };
  expect_error<jx::TypeError>([&] { jx::grad(two, 2)(x, x); },
                              "differentiating with respect to argnums=2 requires at least 3 "
                              "positional arguments to be passed by the caller, but got only 2 "
                              "positional arguments.");
  expect_error<jx::TypeError>(
      [&] {
        jx::grad(two, std::vector<int>{0, 3})(x, x);
      },
      "argnums=(0, 3) requires at least 4");
  expect_error<jx::ValueError>([&] { jx::grad(two, -3)(x, x); },
                               "but got value -3 for len(args) == 2.");
  expect_error<jx::TypeError>([&] { jx::grad(sum, 0, {.has_aux = true})(x); },
                              "has_aux=True requires the function to return a (value, aux) pair");
  const auto [y, pullback] = jx::vjp(sum, {x});
  expect_error<jx::ValueError>([&] { pullback(jnp::ones({2})); },
                               "unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                               "function: got float64[2], but expected float64[] because the "
                               "corresponding output of the differentiated function had JAX "
                               "type float64[]");
  expect_error<jx::NotImplementedError>(
      [&] { jx::grad([](const Array &a) { return jnp::sum(jnp::nextafter(a, 0.0)); })(x); },
      "Differentiation rule for 'nextafter' not implemented");
}

// An empty argnums list differentiates nothing: JAX's max(argnums) raises ValueError (it was a
// max over an empty range here, a crash).
TEST(Grad, EmptyArgnumsRaiseValueError) {
  const Array x = jnp::array({1.0, 2.0});
  auto two = [](const Array &a, const Array &b) { return jnp::sum(a * b); };
  const std::vector<int> none;
  expect_error<jx::ValueError>([&] { jx::grad(two, none)(x, x); },
                               "grad with argnums=(): max() arg is an empty sequence");
  expect_error<jx::ValueError>([&] { jx::value_and_grad(two, none)(x, x); },
                               "max() arg is an empty sequence");
  expect_error<jx::ValueError>([&] { jx::jacfwd(two, none)(x, x); },
                               "jacfwd with argnums=(): max() arg is an empty sequence");
  expect_error<jx::ValueError>([&] { jx::jacrev(two, none)(x, x); },
                               "jacrev with argnums=(): max() arg is an empty sequence");
}

TEST(Grad, JaxValuesAtTiesAndZeros) {
  // reduce_max splits the cotangent evenly among ties; prod is exact where x has zeros.
  auto max = [](const Array &a) { return jnp::max(a); };
  EXPECT_EQ(jx::grad(max)(jnp::array({1.0, 3.0, 3.0})).to_vector<double>(),
            (std::vector<double>{0, 0.5, 0.5}));
  auto prod = [](const Array &a) { return jnp::prod(a); };
  EXPECT_EQ(jx::grad(prod)(jnp::array({2.0, 0.0, 3.0})).to_vector<double>(),
            (std::vector<double>{0, 6, 0}));
  EXPECT_EQ(jx::grad(prod)(jnp::array({2.0, 0.0, 3.0, 0.0, 5.0})).to_vector<double>(),
            (std::vector<double>{0, 0, 0, 0, 0}));
  // The operand of prod a reshape or broadcast: the product tree's reshape folds into it.
  auto expanded = [](const Array &a) { return jnp::prod(a(jx::newaxis)); };
  EXPECT_EQ(jx::grad(expanded)(jnp::array(2.0, jx::float64)).item<double>(), 1.0);
  auto rows = [](const Array &a) { return jnp::sum(jnp::prod(jnp::reshape(a, {1, 2}), 0)); };
  EXPECT_EQ(jx::grad(rows)(jnp::array({2.0, 3.0})).to_vector<double>(),
            (std::vector<double>{1, 1}));
  // where's untaken branch: 0 * inf = NaN reaches the gradient, as in JAX.
  auto trap = [](const Array &a) {
    return jnp::sum(jnp::where(a > 0.0, jnp::sqrt(a), jnp::zeros_like(a)));
  };
  const std::vector<double> g = jx::grad(trap)(jnp::array({0.0, 4.0})).to_vector<double>();
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_EQ(g[1], 0.25);
}

TEST(Grad, LinearizeSharesTheForwardValues) {
  const Array x = jnp::array({0.5, 1.5}), v = jnp::array({1.0, -2.0});
  auto f = [](const Array &a) { return jnp::exp(a) * jnp::sum(a); };
  const auto [y, f_jvp] = jx::linearize(f, {x});
  const auto [y_ref, t_ref] = jx::jvp(f, {x}, {v});
  EXPECT_EQ(y.to_vector<double>(), y_ref.to_vector<double>());
  EXPECT_EQ(f_jvp(v).to_vector<double>(), t_ref.to_vector<double>());
  EXPECT_EQ(f_jvp(v * 2.0).to_vector<double>(), (t_ref * 2.0).to_vector<double>());
  expect_error<jx::ValueError>([&] { f_jvp(jnp::ones({3})); },
                               "linearized function called on tangent values inconsistent");
}

TEST(Grad, ComposesWithJit) {
  const Array x = jnp::array({0.3, -0.8, 1.1, 2.0});
  auto loss = [](const Array &a) { return jnp::sum(jnp::tanh(jnp::matmul(a, a) * a)); };
  const std::vector<double> eager = jx::grad(loss)(x).to_vector<double>();
  // jit(grad(f)), grad(jit(f)), value_and_grad in jit: one graph, the same values.
  auto jitted_grad = jx::jit([&](const Array &a) { return jx::grad(loss)(a); });
  EXPECT_EQ(jitted_grad(x).to_vector<double>(), eager);
  auto jitted_loss = jx::jit(loss);
  EXPECT_EQ(jx::grad([&](const Array &a) { return jitted_loss(a); })(x).to_vector<double>(), eager);
  auto both = jx::jit([&](const Array &a) {
    const auto [value, g] = jx::value_and_grad(loss)(a);
    return std::tuple(value, g);
  });
  const auto [value, g] = both(x);
  EXPECT_EQ(value.item<double>(), loss(x).item<double>());
  EXPECT_EQ(g.to_vector<double>(), eager);
  // A closure over an outer jit's argument is a constant of the inner grad.
  auto scaled = jx::jit([&](const Array &a, const Array &s) {
    return jx::grad([&](const Array &b) { return jnp::sum(b * b * s); })(a);
  });
  EXPECT_EQ(scaled(x, jnp::array(3.0, jx::float64)).to_vector<double>(),
            (x * 6.0).to_vector<double>());
}

TEST(Jacobian, ForwardEqualsReverseOnEveryOpFamily) {
  uint64_t seed = 50;
  for (const transforms_test::OpCase &c : transforms_test::op_cases()) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(++seed);
    const std::vector<Array> args = transforms_test::random_args(c, rng);
    const std::vector<int> argnums =
        args.size() == 1 ? std::vector<int>{0} : std::vector<int>{0, 1};
    const std::vector<Array> fwd = jx::jacfwd(c.f, argnums)(args);
    const std::vector<Array> rev = jx::jacrev(c.f, argnums)(args);
    const Array y = c.f(args);
    for (size_t k = 0; k < args.size(); ++k) {
      jx::Shape shape = y.shape();
      shape.insert(shape.end(), args[k].shape().begin(), args[k].shape().end());
      EXPECT_EQ(fwd[k].shape(), shape);
      EXPECT_LE(max_abs(fwd[k] - rev[k]), 1e-13 * (1 + max_abs(fwd[k])));
    }
  }
}

TEST(Jacobian, KnownValuesAndHessian) {
  const Array x = jnp::array({0.5, -1.0, 2.0});
  auto sin = [](const Array &a) { return jnp::sin(a); };
  const Array expected = jnp::eye(3) * jnp::cos(x); // diag(cos x)
  EXPECT_EQ(jx::jacfwd(sin)(x).to_vector<double>(), expected.to_vector<double>());
  EXPECT_EQ(jx::jacrev(sin)(x).to_vector<double>(), expected.to_vector<double>());
  auto cubes = [](const Array &a) { return jnp::sum(a * a * a); };
  EXPECT_EQ(jx::hessian(cubes)(x).to_vector<double>(),
            (jnp::eye(3) * (6.0 * x)).to_vector<double>());
  // A Hessian is symmetric; here H = A + A^T for f(x) = x^T A x, exactly.
  std::mt19937_64 rng(3);
  const Array a = random_array({4, 4}, rng), p = random_array({4}, rng);
  auto quadratic = [&](const Array &v) { return jnp::dot(v, jnp::matmul(a, v)); };
  const Array h = jx::hessian(quadratic)(p);
  EXPECT_LE(max_abs(h - jnp::transpose(h)), 0.0);
  EXPECT_LE(max_abs(h - (a + jnp::transpose(a))), 1e-15);
  // jit(hessian) and a function that ignores its argument.
  auto jitted = jx::jit([&](const Array &v) { return jx::hessian(quadratic)(v); });
  EXPECT_EQ(jitted(p).to_vector<double>(), h.to_vector<double>());
  const Array zero = jx::jacrev([](const Array &v) { return jnp::ones({2}) + 0.0 * v(0); })(p);
  EXPECT_EQ(zero.shape(), (jx::Shape{2, 4}));
  EXPECT_EQ(max_abs(zero), 0.0);
  expect_error<jx::TypeError>([&] { jx::jacfwd(sin)(x.astype(jx::int32)); },
                              "jacfwd requires real- or complex-valued inputs");
}

TEST(Grad, StopGradientIsAConstantToTransformationsAndErasedBeforeCompiling) {
  const Array x = jnp::array({0.5, -1.0, 2.0});
  auto f = [](const Array &a) { return jnp::sum(a * jx::stop_gradient(a)); };
  EXPECT_EQ(f(x).item<double>(), 5.25);
  EXPECT_EQ(jx::grad(f)(x).to_vector<double>(), x.to_vector<double>());
  EXPECT_EQ(jx::jvp([](const Array &a) { return jx::stop_gradient(a * 2.0); }, {x}, {x})
                .second.to_vector<double>(),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(
      jx::vmap([](const Array &a) { return jx::stop_gradient(a) * 2.0; })(x).to_vector<double>(),
      (x * 2.0).to_vector<double>());
  const Array i = jnp::array({1.0, 2.0}).astype(jx::int32);
  EXPECT_EQ(jx::stop_gradient(i).node(), i.node());
  const std::string text = jx::jit(f).lower(x).compile().as_text();
  EXPECT_EQ(text.find("stop_gradient"), std::string::npos) << text;
}

TEST(Grad, CustomJvpRulesReplaceDifferentiationOfTheBody) {
  // A body jx cannot differentiate (nextafter), with its rule given: d/dx = 3 cos(x) * y, d/dy.
  auto f = jx::custom_jvp(
      [](const Array &x, const Array &y) { return jnp::nextafter(jnp::sin(x), 2.0) * y; },
      [](const std::vector<Array> &p, const std::vector<Array> &t) {
        const Array out = jnp::sin(p[0]) * p[1];
        return std::pair(out, t[0] * (3.0 * jnp::cos(p[0]) * p[1]) + t[1] * jnp::sin(p[0]));
      });
  const Array x = jnp::array({0.5, -1.0, 2.0}), y = jnp::array({2.0, 1.0, -1.0});
  EXPECT_EQ(f(x, y).to_vector<double>(),
            (jnp::nextafter(jnp::sin(x), 2.0) * y).to_vector<double>());
  const Array v = jnp::array({1.0, 0.5, -2.0});
  EXPECT_EQ(jx::jvp([&](const Array &a) { return f(a, y); }, {x}, {v}).second.to_vector<double>(),
            (v * (3.0 * jnp::cos(x) * y)).to_vector<double>());
  // grad transposes the rule's tangent; vmap maps it; jit erases the marker.
  auto loss = [&](const Array &a, const Array &b) { return jnp::sum(f(a, b)); };
  const std::vector<Array> g = jx::grad(loss, std::vector<int>{0, 1})(x, y);
  EXPECT_EQ(g[0].to_vector<double>(), (3.0 * jnp::cos(x) * y).to_vector<double>());
  EXPECT_EQ(g[1].to_vector<double>(), jnp::sin(x).to_vector<double>());
  auto scalar = [&](const Array &a) { return f(a, jnp::array(2.0, jx::float64)); };
  const Array per_example = jx::vmap(jx::grad(scalar))(x);
  EXPECT_EQ(per_example.to_vector<double>(), (6.0 * jnp::cos(x)).to_vector<double>());
  const std::string text = jx::jit(loss).lower(x, y).compile().as_text();
  EXPECT_EQ(text.find("custom_jvp"), std::string::npos);
  EXPECT_EQ(jx::jit(jx::grad(loss))(x, y).to_vector<double>(), g[0].to_vector<double>());
  // A rule whose tangent does not match the output: JAX's TypeError.
  auto wrong = jx::custom_jvp([](const Array &a) { return a * 2.0; },
                              [](const std::vector<Array> &p, const std::vector<Array> &t) {
                                return std::pair(p[0] * 2.0, jnp::sum(t[0]));
                              });
  expect_error<jx::TypeError>([&] { jx::jvp(wrong, {x}, {v}); },
                              "Custom JVP rule must produce primal and tangent outputs with "
                              "corresponding shapes and dtypes");
}

TEST(Grad, CustomVjpRulesReplaceReverseModeThroughTheBody) {
  // A body jx cannot differentiate (nextafter), with bwd given on fwd's residuals.
  auto f = jx::custom_vjp(
      [](const Array &x, const Array &y) { return jnp::nextafter(jnp::sin(x), 2.0) * y; },
      [](const Array &x, const Array &y) {
        return std::pair(jnp::sin(x) * y, std::vector{jnp::cos(x), jnp::sin(x), y});
      },
      [](const std::vector<Array> &res, const Array &ct) {
        return std::vector{ct * (3.0 * res[0] * res[2]), ct * res[1]};
      });
  const Array x = jnp::array({0.5, -1.0, 2.0}), y = jnp::array({2.0, 1.0, -1.0});
  EXPECT_EQ(f(x, y).to_vector<double>(),
            (jnp::nextafter(jnp::sin(x), 2.0) * y).to_vector<double>());
  auto loss = [&](const Array &a, const Array &b) { return jnp::sum(f(a, b)); };
  const std::vector<Array> g = jx::grad(loss, std::vector<int>{0, 1})(x, y);
  EXPECT_EQ(g[0].to_vector<double>(), (3.0 * jnp::cos(x) * y).to_vector<double>());
  EXPECT_EQ(g[1].to_vector<double>(), jnp::sin(x).to_vector<double>());
  const Array ct = jnp::array({1.0, 0.5, -2.0});
  const auto [out, f_vjp] = jx::vjp(f, {x, y});
  EXPECT_EQ(f_vjp(ct)[0].to_vector<double>(), (ct * (3.0 * jnp::cos(x) * y)).to_vector<double>());
  // jit erases the marker; vmap maps bwd, inside grad and outside it.
  const std::string text = jx::jit(jx::grad(loss)).lower(x, y).compile().as_text();
  EXPECT_EQ(text.find("custom_"), std::string::npos) << text;
  EXPECT_EQ(jx::jit(jx::grad(loss))(x, y).to_vector<double>(), g[0].to_vector<double>());
  auto scalar = [&](const Array &a) { return f(a, jnp::array(2.0, jx::float64)); };
  EXPECT_EQ(jx::vmap(jx::grad(scalar))(x).to_vector<double>(),
            (6.0 * jnp::cos(x)).to_vector<double>());
  auto batched_loss = [&](const Array &a) { return jnp::sum(jx::vmap(f)(a, y)); };
  EXPECT_EQ(jx::grad(batched_loss)(x).to_vector<double>(), g[0].to_vector<double>());
  // Forward mode: JAX's TypeError, when the tangent is read.
  const std::string forward = "can't apply forward-mode autodiff (jvp) to a custom_vjp function.";
  expect_error<jx::TypeError>(
      [&] {
        jx::jvp([&](const Array &a) { return f(a, y); }, {x}, {ct}).second.to_vector<double>();
      },
      forward);
  expect_error<jx::TypeError>([&] { jx::jacfwd(loss)(x, y).to_vector<double>(); }, forward);
}

TEST(Grad, CustomVjpComposesAndChecksItsRules) {
  // bwd is differentiated in turn: grad(grad(sin)) through a custom_vjp is -sin.
  auto sin = jx::custom_vjp([](const Array &x) { return jnp::sin(x); },
                            [](const Array &x) { return std::pair(jnp::sin(x), std::vector{x}); },
                            [](const std::vector<Array> &res, const Array &ct) {
                              return std::vector{ct * jnp::cos(res[0])};
                            });
  const Array one = jnp::array(1.0, jx::float64);
  EXPECT_DOUBLE_EQ(jx::grad(jx::grad(sin))(one).item<double>(), -std::sin(1.0));
  EXPECT_DOUBLE_EQ(jx::jacrev(jx::jacrev(sin))(one).item<double>(), -std::sin(1.0));
  // An int argument: bwd's entry for it is ignored.
  auto scale = jx::custom_vjp(
      [](const Array &x, const Array &n) { return x * n; },
      [](const Array &x, const Array &n) { return std::pair(x * n, std::vector{n}); },
      [](const std::vector<Array> &res, const Array &ct) {
        return std::vector{ct * res[0], ct};
      });
  const Array n = jnp::array({3}).astype(jx::int32).reshape({});
  EXPECT_EQ(jx::grad(scale)(one, n).item<double>(), 3.0);

  auto with_bwd = [](auto bwd) {
    return jx::custom_vjp([](const Array &x) { return x * 2.0; },
                          [](const Array &x) { return std::pair(x * 2.0, std::vector{x}); },
                          std::move(bwd));
  };
  const Array x = jnp::array({0.5, 1.5});
  auto sum_of = [](auto g) { return [g](const Array &a) { return jnp::sum(g(a)); }; };
  expect_error<jx::TypeError>(
      [&] {
        jx::grad(sum_of(with_bwd([](const std::vector<Array> &, const Array &ct) {
          return std::vector{ct, ct};
        })))(x);
      },
      "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
      "as the args tuple of the primal function");
  expect_error<jx::ValueError>(
      [&] {
        jx::grad(sum_of(with_bwd([](const std::vector<Array> &, const Array &ct) {
          return std::vector{jnp::sum(ct)};
        })))(x);
      },
      "Custom VJP bwd rule must produce an output with the same type as the args tuple of the "
      "primal function, but at output[0] the bwd rule produced an output of type float64[] "
      "corresponding to an input of type float64[2], so the shapes do not match");
  auto wrong_fwd =
      jx::custom_vjp([](const Array &a) { return a * 2.0; },
                     [](const Array &a) { return std::pair(jnp::sum(a), std::vector<Array>{}); },
                     [](const std::vector<Array> &, const Array &ct) { return std::vector{ct}; });
  expect_error<jx::TypeError>([&] { wrong_fwd(x); },
                              "Custom VJP fwd rule must produce a pair (list or tuple of length "
                              "two) where the first element represents the primal output");
}

TEST(Grad, HasAuxReturnsAuxBesideJvpLinearizeAndVjp) {
  // f(x) = sum(x^2) with aux (2x, its max): aux comes back undifferentiated, last.
  auto f = [](const Array &x) {
    return std::pair(jnp::sum(x * x), std::tuple(x * 2.0, jnp::max(x)));
  };
  const Array x = jnp::array({0.5, -1.0, 2.0}), v = jnp::array({1.0, 0.5, -2.0});
  const auto [out, tangent, aux] = jx::jvp(f, {x}, {v}, jx::has_aux);
  EXPECT_EQ(out.item<double>(), 5.25);
  EXPECT_EQ(tangent.item<double>(), jnp::sum(2.0 * x * v).item<double>());
  EXPECT_EQ(std::get<0>(aux).to_vector<double>(), (x * 2.0).to_vector<double>());
  EXPECT_EQ(std::get<1>(aux).item<double>(), 2.0);
  const auto [lin_out, f_jvp, lin_aux] = jx::linearize(f, {x}, jx::has_aux);
  EXPECT_EQ(lin_out.item<double>(), 5.25);
  EXPECT_EQ(f_jvp(v).item<double>(), tangent.item<double>());
  EXPECT_EQ(std::get<1>(lin_aux).item<double>(), 2.0);
  const auto [vjp_out, f_vjp, vjp_aux] = jx::vjp(
      [](const Array &a) { return std::pair(jnp::sum(a * a), jnp::exp(a)); }, {x}, jx::has_aux);
  EXPECT_EQ(vjp_out.item<double>(), 5.25);
  EXPECT_EQ(f_vjp(jnp::array(2.0, jx::float64))[0].to_vector<double>(),
            (4.0 * x).to_vector<double>());
  EXPECT_EQ(vjp_aux.to_vector<double>(), jnp::exp(x).to_vector<double>());
}

} // namespace
