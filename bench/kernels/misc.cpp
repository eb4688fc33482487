// The kernels group's others (kernels.h):
//   crc16: CRC-16 over bytes, a loop over 8 bits inside a loop over bytes;
//   mandelbrot: escape-time iteration of z^2 + c over a grid, counting steps while |z| < 2;
//   go_fast: a sum of tanh over a matrix's diagonal in a loop, added to the matrix;
//   arc_distance: great-circle distances, whole-array arithmetic.
#include "kernels.h"

#include <complex>
#include <cstdint>
#include <fmt/core.h>

namespace kernels {
namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using jx::none;
using jx::slice;
using lax::Arrays;

// The benchmarks' bytes: a linear congruential generator's bits 16-23 (kernels.py's too).
std::vector<int32_t> lcg_bytes(int64_t n) {
  std::vector<int32_t> bytes(static_cast<size_t>(n));
  uint64_t x = 1;
  for (int32_t &b : bytes) {
    x = (x * 1103515245 + 12345) % 2147483648ull;
    b = int32_t((x >> 16) & 255);
  }
  return bytes;
}

// crc16 (poly 0x8408): per byte, 8 steps of a shift and a conditional xor.
Kernel crc16(int64_t n) {
  const Array data = jnp::array(lcg_bytes(n));
  auto f = jx::jit([n](const Array &d) {
    Array crc = lax::fori_loop(
        0, n,
        [&d](const Array &i, const Array &c) {
          return lax::fori_loop(
              0, 8,
              [](const Array &, const Arrays &v) {
                const Array flip = ((v[0] & 1) ^ (v[1] & 1)) != 0;
                return Arrays{jnp::where(flip, (v[0] >> 1) ^ 0x8408, v[0] >> 1), v[1] >> 1};
              },
              Arrays{c, d(i) & 0xff})[0];
        },
        jnp::array(int32_t(0xffff)));
    crc = ~crc & 0xffff;
    return ((crc << 8) | ((crc >> 8) & 0xff)) & 0xffff;
  });
  return {"crc16", fmt::format("N={}", n), [=] { return Arrays{f(data)}; }};
}

// mandelbrot (NPBench's mandelbrot1): N[I] = n; Z[I] = Z[I]**2 + C[I] where |Z| < 2, as where.
Kernel mandelbrot(int64_t xn, int64_t yn, int64_t maxiter) {
  auto f = jx::jit([=]() {
    const Array x = jnp::linspace(-2.25, 0.75, xn), y = jnp::linspace(-1.25, 1.25, yn);
    const Array c = x + y(slice(), jx::newaxis) * std::complex<double>(0, 1);
    const Arrays out = lax::fori_loop(
        0, maxiter,
        [&](const Array &n, const Arrays &v) {
          const Array inside = jnp::abs(v[0]) < 2.0;
          return Arrays{jnp::where(inside, v[0] * v[0] + c, v[0]),
                        jnp::where(inside, n.astype(jx::int64), v[1])};
        },
        Arrays{jnp::zeros(c.shape(), jx::complex128), jnp::zeros(c.shape(), jx::int64)});
    return std::make_pair(out[0], jnp::where(out[1] == maxiter - 1, int64_t(0), out[1]));
  });
  return {"mandelbrot", fmt::format("XN={} YN={} MAXITER={}", xn, yn, maxiter), [=] {
            const auto [z, counts] = f();
            return Arrays{z, counts};
          }};
}

// go_fast (NPBench): trace += tanh(a[i, i]) over the diagonal, then a + trace.
Kernel go_fast(int64_t n) {
  const Array a = (jnp::arange(double(n * n)).reshape({n, n}) % 7.0) * 0.25 - 0.5;
  auto f = jx::jit([n](const Array &x) {
    const Array trace = lax::fori_loop(
        0, n, [&x](const Array &i, const Array &t) { return t + jnp::tanh(x(i, i)); },
        jnp::array(0.0));
    return x + trace;
  });
  return {"go_fast", fmt::format("N={}", n), [=] { return Arrays{f(a)}; }};
}

// arc_distance (NPBench): great-circle distances between two sets of points.
Kernel arc_distance(int64_t n) {
  const Array k = jnp::arange(double(n));
  const Array t1 = jnp::sin(k * 0.001), p1 = jnp::cos(k * 0.002), t2 = jnp::sin(k * 0.003 + 1.0),
              p2 = jnp::cos(k * 0.004 + 2.0);
  auto f = jx::jit(
      [](const Array &theta_1, const Array &phi_1, const Array &theta_2, const Array &phi_2) {
        const Array temp =
            jnp::power(jnp::sin((theta_2 - theta_1) / 2), 2) +
            jnp::cos(theta_1) * jnp::cos(theta_2) * jnp::power(jnp::sin((phi_2 - phi_1) / 2), 2);
        return 2 * jnp::arctan2(jnp::sqrt(temp), jnp::sqrt(1 - temp));
      });
  return {"arc_distance", fmt::format("N={}", n), [=] { return Arrays{f(t1, p1, t2, p2)}; }};
}

} // namespace

Registry misc_kernels() {
  return {[] { return crc16(20000); }, [] { return go_fast(2000); },
          [] { return arc_distance(1000000); }, [] { return mandelbrot(400, 400, 100); }};
}

} // namespace kernels
