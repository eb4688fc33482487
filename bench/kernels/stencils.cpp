// Time-stepped stencils of the kernels group (kernels.h):
//   jacobi_1d, jacobi_2d, heat_3d: two arrays taking turns, each writing its interior from the
//     other's neighbours;
//   fdtd_2d: 2-D finite differences in time, three fields updated in turn.
#include "kernels.h"

#include <fmt/core.h>

namespace kernels {
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

} // namespace

Registry stencil_kernels() {
  return {[] { return jacobi_1d(4000, 1000); }, [] { return jacobi_2d(600, 100); },
          [] { return heat_3d(60, 100); }, [] { return fdtd_2d(500, 600, 100); }};
}

} // namespace kernels
