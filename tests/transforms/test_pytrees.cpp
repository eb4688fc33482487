// Pytrees through jit, grad, vmap, the loops and branches, and jax.tree_util's functions:
// aggregates registered with JX_PYTREE, std containers nested, static arguments, and JAX's errors
// for trees of other structures.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;
using test_util::expect_error;

namespace {

struct Params {
  Array w, b;
};

struct Model {
  Params layer;
  std::vector<Array> extra;
};

} // namespace

JX_PYTREE(Params, w, b);
JX_PYTREE(Model, layer, extra);

namespace {

std::vector<double> values(const Array &a) { return a.astype(jnp::float64).to_vector<double>(); }

void expect_near(const Array &a, const Array &b, double tol = 1e-12) {
  ASSERT_EQ(a.shape(), b.shape());
  const std::vector<double> x = values(a), y = values(b);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "element " << i;
}

Params make_params() { return {jnp::array({0.5, -1.0, 2.0}), jnp::array(0.25, jnp::float64)}; }

// A logistic loss over a Params tree, as a user writes it.
Array loss(const Params &p, const Array &x, const Array &y) {
  const Array logits = jnp::matmul(x, p.w) + p.b;
  return jnp::mean(jnp::log1p(jnp::exp(-y * logits)));
}

const Array x_data = jnp::array({1.0, 2.0, 0.5, -1.0, 0.0, 1.5, 2.0, 1.0, -0.5}, jx::Shape{3, 3});
const Array y_data = jnp::array({1.0, -1.0, 1.0});

TEST(Pytrees, TreeUtilFunctions) {
  const Model m{make_params(), {jnp::ones({2}), jnp::zeros({2, 2})}};
  const std::vector<Array> leaves = jx::tree_leaves(m);
  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_EQ(leaves[3].shape(), (jx::Shape{2, 2}));
  const auto def = jx::tree_structure(m);
  EXPECT_EQ(def.num_leaves(), 4u);
  EXPECT_EQ(def.str(), "PyTreeDef(Model(layer=Params(w=*, b=*), extra=[*, *]))");
  const std::map<std::string, std::pair<Array, std::tuple<Array>>> nested{
      {"b", {jnp::ones({1}), {jnp::ones({1})}}}, {"a", {jnp::ones({1}), {jnp::ones({1})}}}};
  EXPECT_EQ(jx::tree_structure(nested).str(), R"(PyTreeDef({"a": (*, (*)), "b": (*, (*))}))");

  const Model doubled = jx::tree_map([](const Array &a) { return a * 2.0; }, m);
  expect_near(doubled.layer.w, m.layer.w * 2.0);
  expect_near(doubled.extra[0], jnp::full({2}, 2.0));
  const Model summed = jx::tree_map([](const Array &a, const Array &b) { return a + b; }, m, m);
  expect_near(summed.layer.b, jnp::array(0.5));

  auto [flat, structure] = jx::tree_flatten(m);
  for (Array &a : flat)
    a = a + 1.0;
  const Model back = jx::tree_unflatten(structure, flat);
  expect_near(back.layer.w, m.layer.w + 1.0);
  expect_error<jx::ValueError>([&] { jx::tree_unflatten(structure, {flat[0]}); },
                               "Too few leaves for PyTreeDef; expected 4, got 1");
  // Other structures: JAX's ValueError.
  const Model shorter{make_params(), {jnp::ones({2})}};
  expect_error<jx::ValueError>(
      [&] { jx::tree_map([](const Array &a, const Array &b) { return a + b; }, m, shorter); },
      "pytree structure error");
  // Empty containers have no leaves and map to themselves.
  EXPECT_TRUE(jx::tree_leaves(std::vector<Array>{}).empty());
  EXPECT_TRUE(jx::tree_map([](const Array &a) { return a; }, std::vector<Array>{}).empty());
}

TEST(Pytrees, JitTakesAndReturnsRegisteredAggregates) {
  auto step = jx::jit([](const Params &p, const Array &lr) {
    return Params{p.w - lr * p.w, p.b * 2.0};
  });
  const Params p = make_params();
  const Params out = step(p, jnp::array(0.5));
  expect_near(out.w, p.w * 0.5);
  expect_near(out.b, jnp::array(0.5));
  step(out, jnp::array(0.5));
  EXPECT_EQ(step.cache_size(), 1u);
}

TEST(Pytrees, GradOfAParamsTreeIsAParamsTree) {
  const Params p = make_params();
  const Params g = jx::grad(loss)(p, x_data, y_data);
  // The same gradient through the list API, leaf by leaf.
  auto flat_loss = [](const Array &w, const Array &b, const Array &x, const Array &y) {
    return loss(Params{w, b}, x, y);
  };
  const std::vector<Array> expected =
      jx::grad(flat_loss, std::vector<int>{0, 1})(p.w, p.b, x_data, y_data);
  expect_near(g.w, expected[0]);
  expect_near(g.b, expected[1]);

  // value_and_grad, under jit: JAX's most common idiom.
  auto step = jx::jit(jx::value_and_grad(loss));
  const auto [value, grads] = step(p, x_data, y_data);
  expect_near(value, loss(p, x_data, y_data));
  expect_near(grads.w, expected[0]);

  // Several arguments named at compile time: a tuple of each argument's type.
  const auto [gp, gx] = jx::grad(loss, jx::argnums<0, 1>)(p, x_data, y_data);
  expect_near(gp.b, expected[1]);
  EXPECT_EQ(gx.shape(), x_data.shape());
  // At run time, arguments of one type: a std::vector of trees.
  auto distance = [](const Params &a, const Params &b) {
    return jnp::sum(jnp::square(a.w - b.w)) + jnp::square(a.b - b.b);
  };
  const Params q{jnp::zeros({3}), jnp::array(0.0)};
  const std::vector<Params> both = jx::grad(distance, std::vector<int>{0, -1})(p, q);
  expect_near(both[0].w, p.w * 2.0);
  expect_near(both[1].w, p.w * -2.0);
  const Params second = jx::grad(distance, 1)(p, q);
  expect_near(second.b, jnp::array(-0.5));
  expect_error<jx::ValueError>([&] { jx::grad(distance, std::vector<int>{})(p, q); }, "argnums=()");
  expect_error<jx::TypeError>([&] { jx::grad(distance, 2)(p, q); },
                              "requires at least 3 positional arguments");
}

TEST(Pytrees, GradWithTreeAuxAndEmptyContainers) {
  auto with_aux = [](const Params &p, const std::vector<Array> &none) {
    const Array l = loss(p, x_data, y_data);
    return std::pair(l + static_cast<double>(none.size()),
                     std::map<std::string, Array>{{"loss", l}, {"w_norm", jnp::sum(p.w * p.w)}});
  };
  const auto [g, aux] =
      jx::grad(with_aux, jx::argnums<0>, {.has_aux = true})(make_params(), std::vector<Array>{});
  EXPECT_EQ(aux.size(), 2u);
  expect_near(aux.at("loss"), loss(make_params(), x_data, y_data));
  expect_near(g.w, jx::grad(loss)(make_params(), x_data, y_data).w);
  // An empty container differentiated: its gradient is empty.
  const auto [gp, gnone] =
      jx::grad(with_aux, jx::argnums<0, 1>, {.has_aux = true})(make_params(), std::vector<Array>{})
          .first;
  EXPECT_TRUE(gnone.empty());
  expect_near(gp.b, g.b);
}

TEST(Pytrees, JacobiansOfATreeAreATree) {
  auto f = [](const Params &p, const Array &x) { return jnp::tanh(p.w * p.b + x); };
  auto flat = [](const Array &w, const Array &b, const Array &x) { return jnp::tanh(w * b + x); };
  const Params p = make_params();
  const Array x = jnp::array({0.1, 0.2, 0.3});
  const std::vector<Array> expected = jx::jacfwd(flat, std::vector<int>{0, 1})(p.w, p.b, x);
  const Params forward = jx::jacfwd(f)(p, x);
  const Params reverse = jx::jacrev(f)(p, x);
  EXPECT_EQ(forward.w.shape(), (jx::Shape{3, 3}));
  EXPECT_EQ(forward.b.shape(), (jx::Shape{3}));
  expect_near(forward.w, expected[0]);
  expect_near(reverse.b, expected[1]);
  const auto [jp, jx_] = jx::jacrev(f, jx::argnums<0, 1>)(p, x);
  expect_near(jp.w, expected[0]);
  EXPECT_EQ(jx_.shape(), (jx::Shape{3, 3}));
}

// A tree-valued function's Jacobians nest in its output's structure, as JAX's: a std container
// keeps its kind, a JX_PYTREE aggregate becomes a std::vector over its leaves.
TEST(Pytrees, JacobiansOfTreeValuedFunctions) {
  const Array x = jnp::array({0.5, -1.0, 2.0});
  auto pair = [](const Array &v) { return std::tuple{jnp::sin(v), jnp::sum(v * v)}; };
  const auto [dsin, dsq] = jx::jacrev(pair)(x);
  expect_near(dsin, jnp::diag(jnp::cos(x)));
  expect_near(dsq, 2.0 * x);
  const auto [fsin, fsq] = jx::jacfwd(pair)(x);
  expect_near(fsin, dsin);
  expect_near(fsq, dsq);
  auto named = [](const Array &v) {
    return std::map<std::string, Array>{{"double", 2.0 * v}, {"total", jnp::sum(v)}};
  };
  const std::map<std::string, Array> by_name = jx::jacrev(named)(x);
  expect_near(by_name.at("double"), 2.0 * jnp::eye(3));
  expect_near(by_name.at("total"), jnp::ones({3}));
  // Of an aggregate: one entry per leaf (w, then b).
  auto scaled = [](const Array &v) { return Params{3.0 * v, jnp::sum(v)}; };
  const std::vector<Array> of_params = jx::jacfwd(scaled)(x);
  ASSERT_EQ(of_params.size(), 2u);
  expect_near(of_params[0], 3.0 * jnp::eye(3));
  expect_near(of_params[1], jnp::ones({3}));
  // An empty output has empty Jacobians.
  auto nothing = [](const Array &) { return std::vector<Array>{}; };
  EXPECT_TRUE(jx::jacrev(nothing)(x).empty());
}

// hessian of a Params tree: for each leaf of the gradient (w, b), a Params of its derivatives.
// f = sum(w^2) b + b^3: grad w = 2 w b, grad b = sum(w^2) + 3 b^2.
TEST(Pytrees, HessianOfATree) {
  auto f = [](const Params &p) { return jnp::sum(p.w * p.w) * p.b + p.b * p.b * p.b; };
  const Params p = make_params();
  const double b = 0.25;
  const std::vector<Params> h = jx::hessian(f)(p);
  ASSERT_EQ(h.size(), 2u);
  expect_near(h[0].w, 2 * b * jnp::eye(3));
  expect_near(h[0].b, 2.0 * p.w);
  expect_near(h[1].w, 2.0 * p.w);
  expect_near(h[1].b, jnp::array(6 * b));
  // Under jit, and of a std::map argument (nested maps, as JAX's dict of dicts).
  const std::vector<Params> jitted = jx::jit(jx::hessian(f))(p);
  expect_near(jitted[0].w, h[0].w);
  auto g = [](const std::map<std::string, Array> &q) { return jnp::sum(q.at("u") * q.at("v")); };
  const std::map<std::string, Array> q{{"u", jnp::array({1.0, 2.0})},
                                       {"v", jnp::array({3.0, 4.0})}};
  const auto hq = jx::hessian(g)(q);
  expect_near(hq.at("u").at("v"), jnp::eye(2));
  expect_near(hq.at("u").at("u"), jnp::zeros({2, 2}));
  // Of several arguments: rows (H00, H01), (H10, H11); jacrev of Arrays gives its list of
  // gradients, so the rows come in a std::vector.
  auto two = [](const Array &u, const Array &v) { return jnp::sum(u * u * v); };
  const Array u = jnp::array({1.0, 2.0}), v = jnp::array({3.0, 4.0});
  const auto rows = jx::hessian(two, jx::argnums<0, 1>)(u, v);
  ASSERT_EQ(rows.size(), 2u);
  const auto &[row0, row1] = std::pair{rows[0], rows[1]};
  expect_near(std::get<0>(row0), 2.0 * jnp::diag(v));
  expect_near(std::get<1>(row0), 2.0 * jnp::diag(u));
  expect_near(std::get<0>(row1), 2.0 * jnp::diag(u));
  expect_near(std::get<1>(row1), jnp::zeros({2, 2}));
}

TEST(Pytrees, JvpVjpAndLinearizeOfTrees) {
  auto f = [](const Params &p, const Array &x) {
    return std::pair(jnp::sum(p.w * x) + p.b, Params{p.w * p.b, jnp::exp(p.b)});
  };
  const Params p = make_params();
  const Array x = jnp::array({1.0, 2.0, 3.0});
  const Params dp{jnp::array({1.0, 0.0, 0.0}), jnp::array(1.0)};
  const Array dx = jnp::zeros({3});
  const auto [out, tangent] = jx::jvp(f, std::tuple(p, x), std::tuple(dp, dx));
  expect_near(out.first, jnp::array(0.5 - 2.0 + 6.0 + 0.25));
  // d(sum(w x) + b) = dw . x + db = 1 + 1; d(w b) = dw b + w db.
  expect_near(tangent.first, jnp::array(2.0));
  expect_near(tangent.second.w, dp.w * p.b + p.w);
  expect_near(tangent.second.b, jnp::exp(p.b));

  const auto [value, f_lin] = jx::linearize(f, std::tuple(p, x));
  expect_near(value.second.b, jnp::exp(p.b));
  expect_near(f_lin(std::tuple(dp, dx)).second.w, tangent.second.w);

  const auto [primal_out, f_vjp] = jx::vjp(f, std::tuple(p, x));
  const auto [cp, cx] = f_vjp(std::pair(jnp::array(1.0), Params{jnp::zeros({3}), jnp::array(0.0)}));
  expect_near(cp.w, x);
  expect_near(cp.b, jnp::array(1.0));
  expect_near(cx, p.w);
  expect_error<jx::TypeError>(
      [&] {
        const Params wrong{jnp::zeros({3}), jnp::array(0.0)};
        jx::jvp([](const std::vector<Array> &v) { return v[0]; },
                std::tuple(std::vector<Array>{x, x}), std::tuple(std::vector<Array>{x}));
      },
      "primal and tangent arguments to jax.jvp must have the same tree structure");
}

// jx::has_aux with pytree primals: f returns (output tree, aux tree); aux is returned as it is,
// not differentiated.
TEST(Pytrees, JvpVjpAndLinearizeOfTreesWithAux) {
  auto f = [](const Params &p, const Array &x) {
    const Array y = jnp::sum(p.w * x) + p.b;
    return std::pair(Params{y, p.w * p.b}, std::map<std::string, Array>{{"y", y}, {"x", 2.0 * x}});
  };
  const Params p = make_params();
  const Array x = jnp::array({1.0, 2.0, 3.0});
  const Params dp{jnp::array({1.0, 0.0, 0.0}), jnp::array(1.0)};
  const Array dx = jnp::zeros({3});
  const auto [out, tangent, aux] = jx::jvp(f, std::tuple(p, x), std::tuple(dp, dx), jx::has_aux);
  expect_near(out.w, jnp::array(4.75));
  expect_near(tangent.w, jnp::array(2.0));
  expect_near(tangent.b, dp.w * p.b + p.w);
  expect_near(aux.at("y"), jnp::array(4.75));
  expect_near(aux.at("x"), 2.0 * x);

  const auto [value, f_lin, lin_aux] = jx::linearize(f, std::tuple(p, x), jx::has_aux);
  expect_near(value.b, p.w * p.b);
  expect_near(f_lin(std::tuple(dp, dx)).b, tangent.b);
  expect_near(lin_aux.at("x"), 2.0 * x);

  const auto [primal_out, f_vjp, vjp_aux] = jx::vjp(f, std::tuple(p, x), jx::has_aux);
  expect_near(primal_out.w, jnp::array(4.75));
  expect_near(vjp_aux.at("y"), jnp::array(4.75));
  const auto [cp, cx] = f_vjp(Params{jnp::array(1.0), jnp::zeros({3})});
  expect_near(cp.w, x);
  expect_near(cp.b, jnp::array(1.0));
  expect_near(cx, p.w);
  expect_error<jx::ValueError>(
      [&] {
        f_vjp(Params{jnp::array(1.0), jnp::zeros({2})});
      },
      "unexpected JAX type");
}

TEST(Pytrees, VmapMapsEachLeafOfAnArgument) {
  // A batch of 4 parameter sets (a leading axis on every leaf), one shared x.
  const Params batch{jnp::arange(12.0).reshape({4, 3}), jnp::arange(4.0)};
  auto predict = [](const Params &p, const Array &x) { return jnp::matmul(x, p.w) + p.b; };
  const Array out = jx::vmap(predict, {0, jx::none})(batch, x_data);
  ASSERT_EQ(out.shape(), (jx::Shape{4, 3}));
  for (int64_t k = 0; k < 4; ++k)
    expect_near(out(k), predict(Params{batch.w(k), batch.b(k)}, x_data));
  // A tree result, and vmap nested in vmap.
  auto both = [](const Params &p) { return std::pair(p.w * 2.0, Params{p.b, p.w}); };
  const auto [twice, swapped] = jx::vmap(both)(batch);
  expect_near(twice, batch.w * 2.0);
  expect_near(swapped.w, batch.b);
  const Params grid{jnp::ones({2, 4, 3}), jnp::ones({2, 4})};
  const Array nested = jx::vmap(jx::vmap(predict, {0, jx::none}), {0, jx::none})(grid, x_data);
  EXPECT_EQ(nested.shape(), (jx::Shape{2, 4, 3}));
  expect_error<jx::ValueError>(
      [&] {
        jx::vmap(predict, {0, jx::none, 0})(batch, x_data);
      },
      "len(in_axes)=3, len(args)=2");
  // Per-example gradients: vmap of grad over a batch of parameter sets.
  const Params per_example =
      jx::vmap(jx::grad(loss), {0, jx::none, jx::none})(batch, x_data, y_data);
  expect_near(per_example.w(2), jx::grad(loss)(Params{batch.w(2), batch.b(2)}, x_data, y_data).w);
}

TEST(Pytrees, LoopCarriesAndBranchResultsAreTrees) {
  // fori_loop of a pair, unpacked as a user would.
  auto [u, v] = jx::lax::fori_loop(
      0, 5,
      [](const Array &, const std::pair<Array, Array> &c) {
        return std::pair(c.first + c.second, c.second * 2.0);
      },
      std::pair(jnp::array(0.0), jnp::array(1.0)));
  expect_near(u, jnp::array(31.0));
  expect_near(v, jnp::array(32.0));

  // while_loop of a registered aggregate.
  const Params p = jx::lax::while_loop([](const Params &c) { return c.b < 10.0; },
                                       [](const Params &c) {
                                         return Params{c.w + 1.0, c.b * 3.0};
                                       },
                                       Params{jnp::zeros({2}), jnp::array(1.0)});
  expect_near(p.b, jnp::array(27.0));
  expect_near(p.w, jnp::full({2}, 3.0));

  // scan of a map carry over a tuple of xs, giving a pair per step.
  using Carry = std::map<std::string, Array>;
  const auto [last, ys] = jx::lax::scan(
      [](const Carry &c, const std::tuple<Array, Array> &x) {
        const Array total = c.at("total") + std::get<0>(x) * std::get<1>(x);
        return std::pair(Carry{{"total", total}, {"steps", c.at("steps") + 1.0}},
                         std::pair(total, std::get<0>(x)));
      },
      Carry{{"total", jnp::array(0.0)}, {"steps", jnp::array(0.0)}},
      std::tuple(jnp::arange(4.0), jnp::full({4}, 2.0)));
  expect_near(last.at("total"), jnp::array(12.0));
  expect_near(last.at("steps"), jnp::array(4.0));
  expect_near(ys.first, jnp::array({0.0, 2.0, 6.0, 12.0}));
  expect_near(ys.second, jnp::arange(4.0));

  // cond of tuple operands to a pair; inside jit, with a traced predicate.
  auto choose = jx::jit([](const Array &pred, const Array &a, const Array &b) {
    return jx::lax::cond(
        pred,
        [](const std::tuple<Array, Array> &o) {
          return std::pair(std::get<0>(o), 1.0 * std::get<1>(o));
        },
        [](const std::tuple<Array, Array> &o) {
          return std::pair(std::get<1>(o), -std::get<0>(o));
        },
        std::tuple(a, b));
  });
  const auto [first, second] = choose(jnp::array(false), jnp::array(1.0), jnp::array(2.0));
  expect_near(first, jnp::array(2.0));
  expect_near(second, jnp::array(-1.0));

  // A body that changes its carry's structure, or branches that differ: JAX's TypeError.
  expect_error<jx::TypeError>(
      [] {
        using Carry = std::pair<std::vector<Array>, Array>;
        jx::lax::fori_loop(
            0, 2,
            [](const Array &, const Carry &c) {
              return Carry{{c.first[0]}, c.second};
            },
            Carry{{jnp::zeros({1}), jnp::zeros({1})}, jnp::zeros({1})});
      },
      "scan body function carry input and carry output must have the same pytree structure");
  expect_error<jx::TypeError>(
      [] {
        jx::lax::while_loop([](const Model &m) { return jnp::sum(m.layer.b) < 1.0; },
                            [](const Model &m) {
                              return Model{m.layer, {}};
                            },
                            Model{Params{jnp::zeros({1}), jnp::array(0.0)}, {jnp::zeros({1})}});
      },
      "while_loop body function carry input and carry output must have the same pytree "
      "structure");
  expect_error<jx::TypeError>(
      [] {
        jx::lax::cond(
            jnp::array(true), [](const Params &o) { return std::vector<Array>{o.w}; },
            [](const Params &o) {
              return std::vector<Array>{o.w, o.b};
            },
            Params{jnp::zeros({1}), jnp::array(0.0)});
      },
      "cond branch outputs must have the same pytree structure");
}

enum class Method { euler, midpoint };

struct Settings {
  int steps;
  std::string name;
  bool operator==(const Settings &) const = default;
};

} // namespace

template <> struct std::hash<Settings> {
  size_t operator()(const Settings &s) const {
    return std::hash<int>{}(s.steps) ^ std::hash<std::string>{}(s.name);
  }
};

namespace {

// Non-array arguments are static (jax.jit's static_argnums): part of the signature, one trace
// per value: numbers, strings, enums, and types with std::hash and ==.
TEST(Pytrees, StaticArgumentsOfEveryKind) {
  int traces = 0;
  auto integrate = jx::jit([&](const Array &x, int steps, Method method, const std::string &tag,
                               const Settings &settings) {
    ++traces;
    Array y = x;
    for (int i = 0; i < steps + settings.steps; ++i)
      y = method == Method::euler ? y + 0.5 : y + 0.25;
    return y + static_cast<double>(tag.size());
  });
  const Array x = jnp::array(1.0);
  expect_near(integrate(x, 2, Method::euler, "ab", Settings{1, "s"}), jnp::array(4.5));
  expect_near(integrate(x, 2, Method::euler, "ab", Settings{1, "s"}), jnp::array(4.5));
  EXPECT_EQ(traces, 1);
  expect_near(integrate(x, 2, Method::midpoint, "ab", Settings{1, "s"}), jnp::array(3.75));
  expect_near(integrate(x, 2, Method::euler, "abc", Settings{1, "s"}), jnp::array(5.5));
  expect_near(integrate(x, 2, Method::euler, "ab", Settings{2, "s"}), jnp::array(5.0));
  EXPECT_EQ(traces, 4);
  EXPECT_EQ(integrate.cache_size(), 4u);
}

} // namespace
