// Functions of one or two arrays covering every op family that a transformation rewrites
// (movement, reductions, contractions, fan-out, converts), for the transformations' tests; and
// the check of a function's JVP and VJP that they share.
#pragma once

#include <jx/jx.h>

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

namespace transforms_test {

namespace jnp = jx::numpy;
using jx::Array;
using Fn = std::function<Array(const std::vector<Array> &)>;

struct OpCase {
  const char *name;
  std::vector<jx::Shape> shapes;
  Fn f;
};

inline std::vector<OpCase> op_cases() {
  using jx::ellipsis;
  using jx::newaxis;
  using jx::none;
  using jx::slice;
  return {
      {"broadcast",
       {{3, 1}},
       [](auto &a) {
         return jnp::broadcast_to(a[0], {2, 3, 4}) * 1.5;
       }},
      {"broadcast_add", {{3, 1}, {4}}, [](auto &a) { return jnp::sin(a[0] + a[1]); }},
      {"reshape",
       {{2, 6}},
       [](auto &a) {
         return jnp::reshape(a[0], {3, 4}) * a[0](0, 0);
       }},
      {"transpose",
       {{2, 3, 4}},
       [](auto &a) {
         return jnp::transpose(a[0], std::vector<int64_t>{2, 0, 1});
       }},
      {"slice", {{7, 5}}, [](auto &a) { return a[0](slice(1, 6, 2), slice(none, none, -2)); }},
      {"index", {{4, 3}}, [](auto &a) { return a[0](2) * a[0](ellipsis, 1, newaxis); }},
      {"pad",
       {{3, 2}},
       [](auto &a) {
         return jnp::pad(a[0], {{1, 2}, {0, 3}});
       }},
      {"concatenate",
       {{2, 3}, {4, 3}},
       [](auto &a) {
         return jnp::concatenate({a[0], a[1] * a[1], a[0]}, 0);
       }},
      {"stack",
       {{3}, {3}},
       [](auto &a) {
         return jnp::stack({a[0], a[1], a[0] * a[1]}, 1);
       }},
      {"flip_roll", {{5, 2}}, [](auto &a) { return jnp::roll(jnp::flip(a[0], 0), 2, 0); }},
      {"diff", {{6}}, [](auto &a) { return jnp::diff(a[0] * a[0]); }},
      {"at_set", {{5}, {2}}, [](auto &a) { return a[0].at(slice(1, 3)).set(a[1] * 3.0); }},
      {"at_add", {{5}, {2}}, [](auto &a) { return a[0].at(slice(2, 4)).add(jnp::exp(a[1])); }},
      {"diagonal", {{4, 4}}, [](auto &a) { return jnp::einsum("ii->i", {a[0]}); }},
      {"trace", {{3, 3}}, [](auto &a) { return jnp::einsum("ii", {a[0] * a[0]}); }},
      {"sum", {{3, 4}}, [](auto &a) { return jnp::sum(a[0] * a[0], 1); }},
      {"mean", {{3, 4}}, [](auto &a) { return jnp::mean(jnp::sin(a[0]), 0); }},
      {"prod", {{3, 5}}, [](auto &a) { return jnp::prod(a[0], 1); }},
      {"prod_all", {{2, 3, 2}}, [](auto &a) { return jnp::prod(a[0]); }},
      {"max", {{4, 3}}, [](auto &a) { return jnp::max(a[0], 0); }},
      {"min", {{4, 3}}, [](auto &a) { return jnp::min(a[0] * 2.0, 1); }},
      {"matmul", {{3, 4}, {4, 2}}, [](auto &a) { return jnp::matmul(a[0], a[1]); }},
      {"matvec", {{3, 4}, {4}}, [](auto &a) { return jnp::matmul(a[0], a[1]); }},
      {"batched", {{2, 3, 4}, {2, 4, 5}}, [](auto &a) { return jnp::matmul(a[0], a[1]); }},
      {"einsum_permuted",
       {{4, 2, 3}, {3, 5, 4}},
       [](auto &a) {
         return jnp::einsum("kbi,ijk->jb", {a[0], a[1]});
       }},
      {"einsum_batch_last",
       {{3, 2, 4}, {4, 3}},
       [](auto &a) {
         return jnp::einsum("ibk,ki->bi", {a[0], a[1]});
       }},
      {"tensordot", {{2, 3, 4}, {3, 4}}, [](auto &a) { return jnp::tensordot(a[0], a[1], 2); }},
      {"outer_dot",
       {{3}, {3}},
       [](auto &a) { return jnp::outer(a[0], a[1]) * jnp::dot(a[0], a[1]); }},
      {"quadratic", {{3}, {3, 3}}, [](auto &a) { return jnp::dot(a[0], jnp::matmul(a[1], a[0])); }},
      {"fan_out", {{4}}, [](auto &a) { return a[0] + a[0] + jnp::sum(a[0] * a[0]); }},
      {"convert", {{3}}, [](auto &a) { return a[0].astype(jx::float32).astype(jx::float64); }},
  };
}

// Random values in [lo, hi) of this shape, float64.
inline Array random_array(const jx::Shape &shape, std::mt19937_64 &rng, double lo = -1.5,
                          double hi = 1.5) {
  int64_t size = 1;
  for (int64_t d : shape)
    size *= d;
  std::vector<double> data(static_cast<size_t>(size));
  for (double &v : data)
    v = std::uniform_real_distribution(lo, hi)(rng);
  return jnp::array(data, shape);
}

// Random arguments of a case's shapes.
inline std::vector<Array> random_args(const OpCase &c, std::mt19937_64 &rng) {
  std::vector<Array> args;
  for (const jx::Shape &s : c.shapes)
    args.push_back(random_array(s, rng));
  return args;
}

inline double dot(const Array &a, const Array &b) { return jnp::sum(a * b).item<double>(); }

inline double max_abs(const Array &a) {
  return a.size() == 0 ? 0.0 : jnp::max(jnp::abs(a)).item<double>();
}

// f's JVP at args against central differences, and its VJP against its JVP.
inline void check_derivatives(const Fn &f, const std::vector<Array> &args, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<Array> v;
  for (const Array &a : args)
    v.push_back(random_array(a.shape(), rng));
  const auto [y, ydot] = jx::jvp(f, args, v);
  EXPECT_EQ(y.to_vector<double>(), f(args).to_vector<double>());
  const double h = 1e-6;
  std::vector<Array> plus, minus;
  for (size_t i = 0; i < args.size(); ++i) {
    plus.push_back(args[i] + h * v[i]);
    minus.push_back(args[i] - h * v[i]);
  }
  const Array fd = (f(plus) - f(minus)) / (2 * h);
  EXPECT_LE(max_abs(ydot - fd), 1e-6 * (1 + max_abs(fd))) << "JVP against finite differences";

  const Array ybar = random_array(y.shape(), rng);
  const auto [y2, pullback] = jx::vjp(f, args);
  const std::vector<Array> xbar = pullback(ybar);
  ASSERT_EQ(xbar.size(), args.size());
  double lhs = dot(ybar, ydot), rhs = 0, scale = max_abs(ybar) * max_abs(ydot) + 1;
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ(xbar[i].shape(), args[i].shape());
    EXPECT_EQ(xbar[i].dtype(), args[i].dtype());
    rhs += dot(xbar[i], v[i]);
    scale += max_abs(xbar[i]) * max_abs(v[i]);
  }
  EXPECT_NEAR(lhs, rhs, 1e-12 * scale * double(y.size() + 1)) << "<ybar, J v> = <J^T ybar, v>";
}

} // namespace transforms_test
