// The two seed programs (shared/seeds/) as jx functions, line for line like the Python originals.
// Shared by the examples, the benchmarks and the tests.
#pragma once

#include <jx/jx.h>

#include <functional>
#include <vector>

namespace seeds {

namespace jnp = jx::numpy;
using jx::Array;

// Seed 001: Simpson's rule for every function f returns, over each [a_j, b_j].
inline Array simps(const std::function<Array(const Array &)> &f, const Array &a, const Array &b,
                   int N) {
  // N should be even
  auto dx = (b - a) / N;
  auto x = jnp::linspace(a, b, N + 1);
  auto y = f(x);
  auto w = jnp::ones_like(y);
  w = w.at(jx::slice(2, -1, 2)).set(2.);
  w = w.at(jx::slice(1, jx::none, 2)).set(4.);
  auto S = dx / 3 * jnp::einsum("i...,i...", w, y);
  return S;
}

// The question's funcN: a stack of `count` (200) expressions.
inline Array funcN(const Array &x, int count = 200) {
  std::vector<Array> terms;
  for (int i = 0; i < count; ++i)
    terms.push_back(jnp::power(x, i / 10.) * jnp::exp(-x));
  return jnp::stack(terms, 1);
}

// The answer's variant: the same values by broadcasting.
inline Array funcN_broadcast(const Array &x0, int count = 200) {
  auto x = x0(jx::slice(), jx::newaxis, jx::slice());
  auto i = jnp::arange(count)(jx::slice(), jx::newaxis);
  return jnp::power(x, i / 10) * jnp::exp(-x);
}

// Seed 000's layouts: PositionalSharding(mesh_utils.create_device_mesh((rows * cols,)))
// .reshape(rows, cols) over the first rows * cols devices, as the seed shards its input.
inline jx::Sharding diff_layout(int64_t rows, int64_t cols) {
  std::vector<jx::Device> devices = jx::devices();
  devices.resize(size_t(rows * cols));
  return jx::PositionalSharding(jx::mesh_utils::create_device_mesh({rows * cols}, devices))
      .reshape(rows, cols);
}

// Seed 000: first-order finite difference along axis 0; prepend handles the boundary.
inline Array calc_fd_kernel(const Array &x) {
  jx::Shape edge = x.shape();
  edge[0] = 1;
  return jnp::diff(x, 1, 0, jnp::zeros(edge));
}

} // namespace seeds
