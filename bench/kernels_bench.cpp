// The kernels group (issue 33): PolyBench/NPBench kernels written in jx as their NumPy versions are
// written (the loops as loops: a lax::fori_loop over the time steps or the bytes, parts of arrays
// updated with .at()), each one jit program, timed per call once compiled (medians of --rounds
// calls), their inputs built by the same formulas as bench/peers/kernels.py's. --out DIR writes
// each result as DIR/NAME_K.npy for `peers.py --group kernels` to check against NumPy.
//   jacobi_1d, jacobi_2d, heat_3d: time-stepped stencils, two arrays taking turns, each writing
//     its interior from the other's neighbours;
//   fdtd_2d: 2-D finite differences in time, three fields updated in turn;
//   crc16: CRC-16 over bytes, a loop over 8 bits inside a loop over bytes;
//   go_fast: a sum of tanh over a matrix's diagonal in a loop, added to the matrix;
//   arc_distance: great-circle distances, whole-array arithmetic;
//   mandelbrot: escape-time iteration of z^2 + c over a grid, counting steps while |z| < 2.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using jx::none;
using jx::slice;
using lax::Arrays;

// The interior along every axis of a rank-r array, shifted by `shift[a]` along axis a.
std::vector<jx::IndexItem> shifted_interior(size_t rank, const std::vector<int> &shift) {
  std::vector<jx::IndexItem> items;
  for (size_t a = 0; a < rank; ++a) {
    const int s = shift.empty() ? 0 : shift[a];
    items.push_back(s < 0 ? slice(0, -2) : s > 0 ? slice(2, none) : slice(1, -1));
  }
  return items;
}

struct Kernel {
  std::string name, size;
  std::function<Arrays()> run; // one call of the compiled program
};

// jacobi_1d: B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:]); A[1:-1] likewise from B.
Kernel jacobi_1d(int64_t n, int64_t tsteps) {
  const Array a = (jnp::arange(double(n)) + 2.0) / double(n);
  const Array b = (jnp::arange(double(n)) + 3.0) / double(n);
  auto f = jx::jit([tsteps](const Array &a0, const Array &b0) {
    const Arrays out = lax::fori_loop(
        1, tsteps,
        [](const Array &, const Arrays &c) {
          const Array &A = c[0];
          const Array B =
              c[1].at(slice(1, -1))
                  .set(0.33333 * (A(slice(0, -2)) + A(slice(1, -1)) + A(slice(2, none))));
          const Array A2 =
              A.at(slice(1, -1))
                  .set(0.33333 * (B(slice(0, -2)) + B(slice(1, -1)) + B(slice(2, none))));
          return Arrays{A2, B};
        },
        Arrays{a0, b0});
    return std::make_pair(out[0], out[1]);
  });
  return {"jacobi_1d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] {
            const auto [x, y] = f(a, b);
            return Arrays{x, y};
          }};
}

// jacobi_2d: B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] +
// A[:-2, 1:-1]); A[1:-1, 1:-1] likewise from B.
Kernel jacobi_2d(int64_t n, int64_t tsteps) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n));
  const Array a = (i * (j + 2.0) + 2.0) / double(n), b = (i * (j + 3.0) + 3.0) / double(n);
  auto f = jx::jit([tsteps](const Array &a0, const Array &b0) {
    auto stencil = [](const Array &x) {
      auto at = [&](std::vector<int> s) { return x.index(shifted_interior(2, s)); };
      return 0.2 * (at({0, 0}) + at({0, -1}) + at({0, 1}) + at({1, 0}) + at({-1, 0}));
    };
    const Arrays out = lax::fori_loop(
        1, tsteps,
        [&](const Array &, const Arrays &c) {
          const Array B = c[1].at(slice(1, -1), slice(1, -1)).set(stencil(c[0]));
          const Array A = c[0].at(slice(1, -1), slice(1, -1)).set(stencil(B));
          return Arrays{A, B};
        },
        Arrays{a0, b0});
    return std::make_pair(out[0], out[1]);
  });
  return {"jacobi_2d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] {
            const auto [x, y] = f(a, b);
            return Arrays{x, y};
          }};
}

// heat_3d: B[1:-1, 1:-1, 1:-1] = 0.125 * (A[2:] - 2 A + A[:-2]) along each axis + A; A likewise
// from B.
Kernel heat_3d(int64_t n, int64_t tsteps) {
  const Array i = jnp::arange(double(n)).reshape({n, 1, 1}),
              j = jnp::arange(double(n)).reshape({n, 1}), k = jnp::arange(double(n));
  const Array a = (i + j + (double(n) - k)) * 10.0 / double(n);
  auto f = jx::jit([tsteps](const Array &a0, const Array &b0) {
    auto stencil = [](const Array &x) {
      auto at = [&](std::vector<int> s) { return x.index(shifted_interior(3, s)); };
      const Array mid = at({0, 0, 0});
      return 0.125 * (at({1, 0, 0}) - 2.0 * mid + at({-1, 0, 0})) +
             0.125 * (at({0, 1, 0}) - 2.0 * mid + at({0, -1, 0})) +
             0.125 * (at({0, 0, 1}) - 2.0 * mid + at({0, 0, -1})) + mid;
    };
    const Arrays out = lax::fori_loop(
        1, tsteps,
        [&](const Array &, const Arrays &c) {
          const Array B = c[1].at(slice(1, -1), slice(1, -1), slice(1, -1)).set(stencil(c[0]));
          const Array A = c[0].at(slice(1, -1), slice(1, -1), slice(1, -1)).set(stencil(B));
          return Arrays{A, B};
        },
        Arrays{a0, b0});
    return std::make_pair(out[0], out[1]);
  });
  return {"heat_3d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] {
            const auto [x, y] = f(a, a);
            return Arrays{x, y};
          }};
}

// fdtd_2d: the electric and magnetic fields' leapfrog updates, `ey[1:, :] -= ...` as .at().add.
Kernel fdtd_2d(int64_t nx, int64_t ny, int64_t tmax) {
  const Array i = jnp::arange(double(nx)).reshape({nx, 1}), j = jnp::arange(double(ny));
  const Array ex = i * (j + 1.0) / double(nx), ey = i * (j + 2.0) / double(ny),
              hz = i * (j + 3.0) / double(nx), fict = jnp::arange(double(tmax));
  auto f = jx::jit([tmax](const Array &ex0, const Array &ey0, const Array &hz0,
                          const Array &fict0) {
    const Arrays out = lax::fori_loop(
        0, tmax,
        [&fict0](const Array &t, const Arrays &c) {
          const Array &hz = c[2];
          Array ey = c[1].at(0).set(fict0(t));
          ey = ey.at(slice(1, none)).add(-0.5 * (hz(slice(1, none)) - hz(slice(0, -1))));
          const Array ex =
              c[0].at(slice(), slice(1, none))
                  .add(-0.5 * (hz(slice(), slice(1, none)) - hz(slice(), slice(0, -1))));
          const Array h =
              hz.at(slice(0, -1), slice(0, -1))
                  .add(-0.7 * (ex(slice(0, -1), slice(1, none)) - ex(slice(0, -1), slice(0, -1)) +
                               ey(slice(1, none), slice(0, -1)) - ey(slice(0, -1), slice(0, -1))));
          return Arrays{ex, ey, h};
        },
        Arrays{ex0, ey0, hz0});
    return std::make_tuple(out[0], out[1], out[2]);
  });
  return {"fdtd_2d", fmt::format("NX={} NY={} TMAX={}", nx, ny, tmax), [=] {
            const auto [x, y, z] = f(ex, ey, hz, fict);
            return Arrays{x, y, z};
          }};
}

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5;
  bool json = false;
  std::string out_dir, only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--out" && i + 1 < argc)
      out_dir = argv[++i];
    else if (arg == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (arg == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: %s [--rounds 5] [--json] [--out DIR] [--only NAME]\n", argv[0]);
      return 2;
    }
  }
  const std::vector<std::function<Kernel()>> kernels = {
      [] { return jacobi_1d(4000, 1000); }, [] { return jacobi_2d(600, 100); },
      [] { return heat_3d(60, 100); },      [] { return fdtd_2d(500, 600, 100); },
      [] { return crc16(20000); },          [] { return go_fast(2000); },
      [] { return arc_distance(1000000); }, [] { return mandelbrot(400, 400, 100); }};
  if (!json) fmt::print("{:<12} | {:<24} | {:>10}\n", "kernel", "size", "jx ms");
  for (const auto &make : kernels) {
    const Kernel k = make();
    if (!only.empty() && k.name != only) continue;
    Arrays result = k.run(); // compile and warm up
    for (const Array &r : result)
      r.block_until_ready();
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (const Array &x : k.run())
        x.block_until_ready();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (!out_dir.empty())
      for (size_t i = 0; i < result.size(); ++i)
        jnp::save(fmt::format("{}/{}_{}.npy", out_dir, k.name, i), result[i]);
    if (json)
      fmt::print("{{\"name\": \"{}\", \"size\": \"{}\", \"jx_ms\": {:.6g}}}\n", k.name, k.size,
                 median(ms));
    else
      fmt::print("{:<12} | {:<24} | {:>10.3f}\n", k.name, k.size, median(ms));
  }
  return 0;
}
