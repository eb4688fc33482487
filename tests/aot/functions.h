// The functions tests/aot compiles ahead of time (generator.cpp) and also runs through the JIT
// (test_aot.cpp): each is one jx::jit(...).lower(...) defined here, so that both sides trace the
// same function for the same signature.
#pragma once

#include <jx/jx.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "diff/random_graph.h"
#include "heat/heat_step.h"
#include "seeds.h"

namespace aot_test {

namespace jnp = jx::numpy;
using jx::Array;
using jx::ShapeDtypeStruct;

// The diff seed's size: the seed's own 4096 x 4096.
inline constexpr int64_t diff_n = 4096;
inline constexpr int64_t simpson_intervals = 100;
inline constexpr int simpson_points = 512;
// Odd, so that vector bodies, epilogues and scalar remainders all run.
inline constexpr int64_t math_n = 1003;

// ---- the seeds ----

inline auto simpson_stack() {
  const ShapeDtypeStruct interval{{simpson_intervals}, jx::float64};
  return jx::jit([](const Array &a, const Array &b) {
           return seeds::simps([](const Array &x) { return seeds::funcN(x); }, a, b,
                               simpson_points);
         })
      .lower(interval, interval);
}

inline auto simpson_broadcast() {
  const ShapeDtypeStruct interval{{simpson_intervals}, jx::float64};
  return jx::jit([](const Array &a, const Array &b) {
           return seeds::simps([](const Array &x) { return seeds::funcN_broadcast(x); }, a, b,
                               simpson_points);
         })
      .lower(interval, interval);
}

// The seed's PositionalSharding over rows x cols of the 8 CPU devices.
inline jx::Sharding diff_sharding(int rows, int cols) {
  jx::config::set_num_cpu_devices(8);
  std::vector<jx::Device> devices = jx::devices();
  devices.resize(size_t(rows * cols));
  return jx::PositionalSharding(jx::mesh_utils::create_device_mesh({rows * cols}, devices))
      .reshape(rows, cols);
}

inline auto diff(int rows, int cols) {
  const jx::Sharding sharding = diff_sharding(rows, cols);
  return jx::jit(seeds::calc_fd_kernel, {.in_shardings = {sharding}, .out_shardings = {sharding}})
      .lower(ShapeDtypeStruct{{diff_n, diff_n}, jx::float64});
}

// ---- random numbers (runtime Fill steps; erf_inv, a runtime helper, for normal) ----

inline auto random_normal() {
  return jx::jit([] {
           return std::tuple{jx::random::normal(jx::random::PRNGKey(0), {256, 256}, jx::float64),
                             jx::random::normal(jx::random::PRNGKey(3), {math_n}, jx::float32)};
         })
      .lower();
}

inline auto random_uniform() {
  return jx::jit([] {
           return std::tuple{
               jx::random::uniform(jx::random::PRNGKey(1), {257, 3}),
               jx::random::uniform(jx::random::PRNGKey(2), {math_n}, jx::float32, -2.0, 3.0)};
         })
      .lower();
}

// ---- targeted functions ----

// Several results of different shapes and dtypes.
inline auto several_outputs() {
  const ShapeDtypeStruct spec{{64, 33}, jx::float64};
  return jx::jit([](const Array &x, const Array &y) {
           return std::tuple{x + y, (x * y).astype(jx::float32), jnp::transpose(x),
                             jnp::sin(x) - y};
         })
      .lower(spec, spec);
}

// Arguments returned unchanged (copied into the results), around a computed result; and one
// reshaped (the same bytes).
inline auto passthrough() {
  const ShapeDtypeStruct spec{{10, 7}, jx::float64};
  const ShapeDtypeStruct ints{{5}, jx::int32};
  return jx::jit([](const Array &x, const Array &y, const Array &i) {
           return std::tuple{x, x * y, y, i, jnp::reshape(y, {70})};
         })
      .lower(spec, spec, ints);
}

// Results that are constants: literal data, a filled array, an iota.
inline auto constant_output() {
  return jx::jit([](const Array &x) {
           return std::tuple{x * 2.0, jnp::array({1.5, -2.0, 3.25, 1e300}), jnp::full({4, 4}, 7.5),
                             jnp::arange(10), jnp::array({1, 2, 3}).astype(jx::int32)};
         })
      .lower(ShapeDtypeStruct{{8}, jx::float64});
}

// One value returned several times: a computed one and an argument.
inline auto repeated_output() {
  return jx::jit([](const Array &x) {
           const Array y = jnp::sin(x) * 2.0;
           return std::tuple{y, y, x, y + 1.0, x};
         })
      .lower(ShapeDtypeStruct{{100, 3}, jx::float64});
}

// Integer powers of arrays (the runtime's jx_ipow_i32 / jx_ipow_i64).
inline auto int_power() {
  const ShapeDtypeStruct i32{{math_n}, jx::int32}, i64{{math_n}, jx::int64};
  return jx::jit([](const Array &a, const Array &b, const Array &c, const Array &d) {
           return std::tuple{jnp::power(a, b), jnp::power(c, d), jnp::power(c, 3)};
         })
      .lower(i32, i32, i64, i64);
}

// float32 transcendental functions: the math tier's float wrappers (libmvec's f variants). The
// last result combines them in a sum of non-negative terms (where defined), so that its error
// stays within a few ulp of the functions'.
inline auto float32_math() {
  const ShapeDtypeStruct spec{{math_n}, jx::float32};
  return jx::jit([](const Array &x, const Array &y) {
           return std::tuple{jnp::exp(x), jnp::log(x), jnp::power(x, y), jnp::tanh(x),
                             jnp::exp(-x) * jnp::power(x, y) + jnp::tanh(y) * jnp::tanh(y)};
         })
      .lower(spec, spec);
}

// bool results: comparisons and logic.
inline auto bool_output() {
  const ShapeDtypeStruct spec{{37, 5}, jx::float64};
  return jx::jit([](const Array &x, const Array &y) {
           return std::tuple{x > y, jnp::logical_and(x > 0.0, jnp::isfinite(y)), jnp::isnan(x)};
         })
      .lower(spec, spec);
}

// 0-d results, and a 0-d argument.
inline auto scalar_output() {
  return jx::jit([](const Array &x, const Array &s) {
           return std::tuple{jnp::sum(x * s), jnp::argmax(x), s * 2.0};
         })
      .lower(ShapeDtypeStruct{{50}, jx::float64}, ShapeDtypeStruct{{}, jx::float64});
}

// Reductions: along each axis and whole, large enough for split reductions.
inline auto reduction() {
  return jx::jit([](const Array &x) {
           return std::tuple{jnp::sum(x, {1}), jnp::mean(x, {0}), jnp::max(x), jnp::sum(x)};
         })
      .lower(ShapeDtypeStruct{{300, 1000}, jx::float64});
}

// Empty arguments and results (their data may be null).
inline auto empty_arrays() {
  return jx::jit([](const Array &x, const Array &y) {
           return std::tuple{x * 2.0, jnp::sum(x, {0}), y + 1.0};
         })
      .lower(ShapeDtypeStruct{{0, 3}, jx::float64}, ShapeDtypeStruct{{4}, jx::float64});
}

// A value placed over the 8 devices inside the function (with_sharding_constraint adds it to the
// compiled program's outputs; it is not a result).
inline auto sharding_constraint() {
  const jx::Sharding rows = diff_sharding(8, 1);
  return jx::jit([rows](const Array &x) {
           const Array y = jx::with_sharding_constraint(jnp::exp(x) * 2.0, rows);
           return y(jx::slice(1, jx::none)) - y(jx::slice(0, -1));
         })
      .lower(ShapeDtypeStruct{{64, 40}, jx::float64});
}

// A donated argument (jax's donate_argnums): the JIT may compute the result in its memory; an
// AOT entry point reads its arguments only.
inline auto donated_argument() {
  return jx::jit([](const Array &x) { return x * 2.0 + 1.0; }, {.donate_argnums = {0}})
      .lower(ShapeDtypeStruct{{1000}, jx::float64});
}

// Contractions (runtime gemm steps, cblas calls in tiles fixed by the shape): float64 read through
// a transposed operand with a bias-and-relu epilogue kernel, float32 against a transposed right
// operand with a scaling epilogue, a batch against one broadcast matrix (batch stride 0), a
// matrix times a vector (gemv) and one large enough for several tiles.
// A training step's gradient: value_and_grad of a dense layer's loss (transposed contractions,
// a reduction over the batch, tanh's derivative) and of the Simpson seed's endpoints.
inline auto value_and_grad() {
  const ShapeDtypeStruct w{{16, 24}, jx::float64}, x{{40, 16}, jx::float64},
      interval{{simpson_intervals}, jx::float64};
  return jx::jit([](const Array &w, const Array &x, const Array &a, const Array &b) {
           auto loss = [&](const Array &weights) {
             return jnp::sum(jnp::tanh(jnp::matmul(x, weights)) * 0.5);
           };
           auto area = [](const Array &lo, const Array &hi) {
             return jnp::sum(seeds::simps([](const Array &t) { return seeds::funcN(t); }, lo, hi,
                                          simpson_points));
           };
           const auto [value, gradient] = jx::value_and_grad(loss)(w);
           const std::vector<Array> endpoints = jx::grad(area, std::vector<int>{0, 1})(a, b);
           return std::tuple{value, gradient, endpoints[0], endpoints[1]};
         })
      .lower(w, x, interval, interval);
}

inline auto contraction() {
  const ShapeDtypeStruct at{{48, 67}, jx::float64}, b{{48, 53}, jx::float64},
      bias{{53}, jx::float64}, x{{70, 40}, jx::float32}, yt{{90, 40}, jx::float32},
      batch{{5, 53, 31}, jx::float64}, big{{256, 160}, jx::float32};
  return jx::jit([](const Array &at, const Array &b, const Array &bias, const Array &x,
                    const Array &yt, const Array &batch, const Array &big) {
           const Array layer = jnp::maximum(jnp::matmul(jnp::transpose(at), b) + bias, 0.0);
           return std::tuple{layer, jnp::matmul(x, jnp::transpose(yt)) * 0.5f - 1.0f,
                             jnp::matmul(layer, batch), jnp::matmul(big, big(0)),
                             jnp::matmul(big, jnp::transpose(big))};
         })
      .lower(at, b, bias, x, yt, batch, big);
}

// Loops and branches in one object (ABI version 4's while, case and scan steps): a heat equation
// in a fori_loop (a scan), a while_loop to a tolerance, a cond and a switch_, a scan stacking
// per-step outputs in reverse, and the gradient through a scan (a forward and a backward scan).
inline auto control_flow() {
  const ShapeDtypeStruct grid{{32, 48}, jx::float64}, xs{{7, 5}, jx::float64}, index{{}, jx::int32};
  return jx::jit([](const Array &u, const Array &rows, const Array &which) {
           namespace lax = jx::lax;
           const Array diffused = lax::fori_loop(
               0, 20, [](const Array &, const Array &v) { return heat::step(v); }, u);
           const Array root = lax::while_loop(
               [](const Array &x) { return jnp::abs(x * x - 2.0) > 1e-12; },
               [](const Array &x) { return (x + 2.0 / x) / 2.0; }, jnp::sum(rows) * 0.0 + 1.0);
           const Array branch = lax::cond(
               jnp::sum(rows) > 0.0, [](const Array &r) { return jnp::sin(r); },
               [](const Array &r) { return r * r; }, rows);
           const std::vector<std::function<Array(const Array &)>> branches{
               [](const Array &r) { return r + 1.0; }, [](const Array &r) { return jnp::exp(r); },
               [](const Array &r) { return -r; }};
           const Array switched = lax::switch_(which, branches, rows);
           auto [carry, ys] = lax::scan(
               [](const Array &c, const Array &r) {
                 const Array next = jnp::tanh(c * r + 0.1);
                 return std::pair{next, next * 2.0};
               },
               rows(0), rows, std::nullopt, true);
           auto loss = [](const Array &r) {
             return jnp::sum(lax::scan(
                                 [](const Array &c, const Array &x) {
                                   return std::pair{jnp::sin(c * x), c};
                                 },
                                 r(0), r)
                                 .second);
           };
           return std::tuple{diffused, root, branch, switched, carry, ys, jx::grad(loss)(rows)};
         })
      .lower(grid, xs, index);
}

// Updates (ABI version 7): a loop writing a row, a column and an element of its carry at the
// counter and the interior from its neighbours (in place, the carry donated to the body), a
// scatter, and an update of an intermediate returned (its buffer handed on).
inline auto updates() {
  const ShapeDtypeStruct grid{{24, 40}, jx::float64}, index{{}, jx::int32};
  return jx::jit([](const Array &u, const Array &k) {
           namespace lax = jx::lax;
           const Array looped = lax::fori_loop(
               0, 12,
               [](const Array &i, const Array &v) {
                 const Array w = v.at(i).set(v(i) * 0.5 + 1.0).at(jx::slice(), i + 3).add(2.0);
                 return w.at(i, i)
                     .set(-1.0)
                     .at(jx::slice(1, -1), jx::slice(1, -1))
                     .set(0.25 * (w(jx::slice(0, -2), jx::slice(1, -1)) +
                                  w(jx::slice(2, jx::none), jx::slice(1, -1))));
               },
               u);
           const Array scattered = jnp::exp(u).at(jnp::array({3, 1, 3})).add(1.0);
           return std::tuple{looped, scattered, (u * 2.0).at(k).set(7.0)};
         })
      .lower(grid, index);
}

// Loops run step by step inside one kernel: a Gauss-Seidel sweep over elements in a scan, and a
// while over traced bounds changing two carries (a column and a dot product into a vector).
inline auto sequential_loops() {
  const ShapeDtypeStruct grid{{24, 40}, jx::float64}, count{{}, jx::int32};
  return jx::jit([](const Array &u, const Array &n) {
           namespace lax = jx::lax;
           const Array swept = lax::fori_loop(
               1, 23,
               [](const Array &i, const Array &g) {
                 return lax::fori_loop(
                     1, 39,
                     [&](const Array &j, const Array &h) {
                       return h.at(i, j).set((h(i, j) + h(i, j - 1) + h(i - 1, j)) / 3.0);
                     },
                     g);
               },
               u);
           const jx::lax::Arrays pair = lax::fori_loop(
               0, n,
               [](const Array &j, const jx::lax::Arrays &c) {
                 const Array column = c[0](jx::slice(), j) + c[1](j) * 0.5;
                 return jx::lax::Arrays{
                     c[0].at(jx::slice(), j).set(column),
                     c[1].at(j).set(jnp::dot(c[0](jx::slice(), j), c[0](jx::slice(), 0)) * 0.01)};
               },
               jx::lax::Arrays{u, jnp::sum(u, 0)});
           return std::tuple{swept, pair[0], pair[1]};
         })
      .lower(grid, count);
}

// Library steps (ABI version 5): sorts along each axis, a stable argsort, a lexsort of two keys,
// running sums (int64 from int32), products, maxima, a median, and a Fourier transform and its
// inverse (fft steps: two inputs, a complex output).
inline auto sort_and_scan() {
  const ShapeDtypeStruct x{{9, 40}, jx::float64}, k{{9, 40}, jx::int32};
  return jx::jit([](const Array &v, const Array &keys) {
           return std::tuple{jnp::sort(v),
                             jnp::sort(v, {.axis = 0, .descending = true}),
                             jnp::argsort(v, 0),
                             jnp::lexsort({v, keys}),
                             jnp::cumsum(keys, 1),
                             jnp::cumprod(v * 0.1, 0),
                             jx::lax::cummax(v, 1, true),
                             jnp::median(v, 1),
                             jnp::fft::irfft(jnp::fft::rfft(v, std::nullopt, 0), 9, 0)};
         })
      .lower(x, k);
}

// Linear algebra steps (ABI version 6): every LAPACK routine in a batch of matrices, with its
// mode word (slogdet, eigh's vectors, the reduced svd and complete qr).
inline auto linear_algebra() {
  const ShapeDtypeStruct a{{3, 6, 6}, jx::float64}, b{{6, 2}, jx::float64};
  return jx::jit([](const Array &m, const Array &rhs) {
           namespace la = jnp::linalg;
           const Array pd = jnp::matmul(m, jnp::matrix_transpose(m)) + jnp::eye(6) * 6;
           const auto [u, s, vh] = la::svd(m, false);
           const auto [q, r] = la::qr(m(jx::ellipsis, jx::slice(), jx::slice(0, 4)), "complete");
           const auto [w, v] = la::eigh(pd);
           return std::tuple{la::cholesky(pd),
                             la::solve(pd, rhs),
                             la::det(m),
                             la::slogdet(m).logabsdet,
                             w,
                             jnp::abs(v),
                             s,
                             jnp::matmul(u * s(jx::ellipsis, jx::newaxis, jx::slice()), vh),
                             jnp::abs(q),
                             jnp::abs(r)};
         })
      .lower(a, b);
}

// ---- random graphs ----

// Zero-argument functions returning random_graph(seed)'s root (leaves of literal data).
inline auto random_graph(uint64_t seed) {
  return jx::jit([seed] { return jx::diff::random_graph(seed).root; }).lower();
}

} // namespace aot_test
