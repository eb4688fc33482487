// Stencils of the kernels group (kernels.h):
//   jacobi_1d, jacobi_2d, heat_3d: two arrays taking turns, each writing its interior from the
//     other's neighbours;
//   fdtd_2d: 2-D finite differences in time, three fields updated in turn;
//   seidel_2d: Gauss-Seidel sweeps, a row at a time then an element at a time (loops over rows
//     and columns inside the time loop);
//   adi: alternating direction implicit, tridiagonal solves column by column then row by row;
//   vadv: vertical advection (weather), a tridiagonal solve along k per column, loops over k;
//   hdiff: horizontal diffusion (weather), whole-array slices of a 3-D field, no loop;
//   cavity_flow, channel_flow: CFD Python's Navier-Stokes steps, a pressure Poisson iteration
//     inside each time step (a fixed count of steps; channel_flow's until the flow settles).
#include "kernels.h"

#include <fmt/core.h>

namespace kernels {
namespace {

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
  return {"jacobi_1d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] { return outputs(f(a, b)); }};
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
  return {"jacobi_2d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] { return outputs(f(a, b)); }};
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
  return {"heat_3d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] { return outputs(f(a, a)); }};
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
  return {"fdtd_2d", fmt::format("NX={} NY={} TMAX={}", nx, ny, tmax),
          [=] { return outputs(f(ex, ey, hz, fict)); }};
}

// seidel_2d, after NPBench's seidel_2d_jax.py: per row i, A[i, 1:-1] += its 3x3 neighbours but
// the left; then per column j, A[i, j] = (A[i, j] + A[i, j - 1]) / 9.
Kernel seidel_2d(int64_t n, int64_t tsteps) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n));
  const Array a = (i * (j + 2.0) + 2.0) / double(n);
  auto f = jx::jit([n, tsteps](const Array &a0) {
    auto loop2 = [n](const Array &i, const Array &A0) {
      auto loop3 = [&i](const Array &j, const Array &A) {
        return A.at(i, j).set((A(i, j) + A(i, j - 1)) / 9.0);
      };
      const Array A =
          A0.at(i, slice(1, -1))
              .set(A0(i, slice(1, -1)) +
                   (A0(i - 1, slice(0, -2)) + A0(i - 1, slice(1, -1)) + A0(i - 1, slice(2, none)) +
                    A0(i, slice(2, none)) + A0(i + 1, slice(0, -2)) + A0(i + 1, slice(1, -1)) +
                    A0(i + 1, slice(2, none))));
      return lax::fori_loop(1, n - 1, loop3, A);
    };
    auto loop1 = [&](const Array &, const Array &A) { return lax::fori_loop(1, n - 1, loop2, A); };
    return lax::fori_loop(0, tsteps - 1, loop1, a0);
  });
  return {"seidel_2d", fmt::format("N={} TSTEPS={}", n, tsteps), [=] { return Arrays{f(a)}; }};
}

// adi, after NPBench's adi_jax.py: per time step a forward sweep over columns j building the
// tridiagonal solve's p and q, a backward sweep writing v's rows; then the same along rows, into
// u's columns.
Kernel adi(int64_t n, int64_t tsteps) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n));
  const Array u0 = (i + double(n) - j) / double(n);
  auto fn = jx::jit([n, tsteps](const Array &u_in) {
    const double dx = 1.0 / double(n), dy = 1.0 / double(n), dt = 1.0 / double(tsteps);
    const double b1 = 2.0, b2 = 1.0;
    const double mul1 = b1 * dt / (dx * dx), mul2 = b2 * dt / (dy * dy);
    const double a = -mul1 / 2.0, b = 1.0 + mul2, c = a, d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
    const jx::Slice in = slice(1, n - 1);
    using PQ = std::pair<Array, Array>;

    auto time_step_body = [&](const Array &, const std::tuple<Array, Array, Array, Array> &cv) {
      auto [u, v, p, q] = cv;
      auto first_j_loop_body = [&](const Array &j, const PQ &pq) {
        const auto &[p, q] = pq;
        return PQ{p.at(in, j).set(-c / (a * p(in, j - 1) + b)),
                  q.at(in, j).set((-d * u(j, slice(0, n - 2)) + (1.0 + 2.0 * d) * u(j, in) -
                                   f * u(j, slice(2, n)) - a * q(in, j - 1)) /
                                  (a * p(in, j - 1) + b))};
      };
      auto first_backward_j_loop_body = [&](const Array &j, const Array &v) {
        const Array idx = n - 2 - j;
        return v.at(idx, in).set(p(in, idx) * v(idx + 1, in) + q(in, idx));
      };
      auto second_j_loop_body = [&](const Array &j, const PQ &pq) {
        const auto &[p, q] = pq;
        return PQ{p.at(in, j).set(-f / (d * p(in, j - 1) + e)),
                  q.at(in, j).set((-a * v(slice(0, n - 2), j) + (1.0 + 2.0 * a) * v(in, j) -
                                   c * v(slice(2, n), j) - d * q(in, j - 1)) /
                                  (d * p(in, j - 1) + e))};
      };
      auto second_backward_j_loop_body = [&](const Array &j, const Array &u) {
        const Array idx = n - 2 - j;
        return u.at(in, idx).set(p(in, idx) * u(in, idx + 1) + q(in, idx));
      };

      v = v.at(0, in).set(1.0);
      p = p.at(in, 0).set(0.0);
      q = q.at(in, 0).set(v(0, in));
      std::tie(p, q) = lax::fori_loop(1, n - 1, first_j_loop_body, PQ{p, q});
      v = v.at(n - 1, in).set(1.0);
      v = lax::fori_loop(0, n - 2, first_backward_j_loop_body, v);
      u = u.at(in, 0).set(1.0);
      p = p.at(in, 0).set(0.0);
      q = q.at(in, 0).set(u(in, 0));
      std::tie(p, q) = lax::fori_loop(1, n - 1, second_j_loop_body, PQ{p, q});
      u = u.at(in, n - 1).set(1.0);
      u = lax::fori_loop(0, n - 2, second_backward_j_loop_body, u);
      return std::tuple(u, v, p, q);
    };
    const Array z = jnp::zeros_like(u_in);
    return std::get<0>(lax::fori_loop(1, tsteps + 1, time_step_body, std::tuple(u_in, z, z, z)));
  });
  return {"adi", fmt::format("N={} TSTEPS={}", n, tsteps), [=] { return Arrays{fn(u0)}; }};
}

// The benchmarks' fields: (37 k + 101 s) mod 1009 / 1009 over the flat index k, s one per
// field (kernels_stencils.py's pattern).
Array pattern(const jx::Shape &shape, int s) {
  int64_t size = 1;
  for (int64_t d : shape)
    size *= d;
  return ((jnp::arange(double(size)) * 37.0 + 101.0 * s) % 1009.0 / 1009.0).reshape(shape);
}

// vadv, after NPBench's vadv_jax.py: the Thomas algorithm along k for every (i, j), its forward
// sweep (first level, inner levels, last level) and back substitution each a fori_loop over k.
Kernel vadv(int64_t ni, int64_t nj, int64_t nk) {
  const Array utens_stage = pattern({ni, nj, nk}, 1), u_stage = pattern({ni, nj, nk}, 2),
              wcon = pattern({ni + 1, nj, nk}, 3), u_pos = pattern({ni, nj, nk}, 4),
              utens = pattern({ni, nj, nk}, 5), dtr_stage = jnp::array(3.0 / 20.0);
  auto f = jx::jit([](const Array &utens_stage, const Array &u_stage, const Array &wcon,
                      const Array &u_pos, const Array &utens, const Array &dtr_stage) {
    const double bet_m = 0.5, bet_p = 0.5;
    const int64_t I = utens_stage.shape()[0], J = utens_stage.shape()[1],
                  K = utens_stage.shape()[2];
    const jx::Slice all = slice();
    const Array ccol0 = jnp::empty({I, J, K}), dcol0 = jnp::empty({I, J, K}),
                data_col0 = jnp::empty({I, J});

    auto loop1 = [&](const Array &k, const std::pair<Array, Array> &c) {
      const Array gcv = 0.25 * (wcon(slice(1, none), all, 0 + 1) + wcon(slice(0, -1), all, 0 + 1));
      const Array cs = gcv * bet_m, bs = gcv * bet_p, bcol = dtr_stage - bs;
      const Array correction_term = -cs * (u_stage(all, all, k + 1) - u_stage(all, all, k));
      const Array divided = 1.0 / bcol;
      return std::pair(c.first.at(all, all, k).set(bs * divided),
                       c.second.at(all, all, k)
                           .set((dtr_stage * u_pos(all, all, k) + utens(all, all, k) +
                                 utens_stage(all, all, k) + correction_term) *
                                divided));
    };
    const auto [ccol1, dcol1] = lax::fori_loop(0, 1, loop1, std::pair(ccol0, dcol0));

    auto loop2 = [&](const Array &k, const std::pair<Array, Array> &c) {
      const auto &[ccol, dcol] = c;
      const Array gav = -0.25 * (wcon(slice(1, none), all, k) + wcon(slice(0, -1), all, k));
      const Array gcv = 0.25 * (wcon(slice(1, none), all, k + 1) + wcon(slice(0, -1), all, k + 1));
      const Array as_ = gav * bet_m, cs = gcv * bet_m, bs = gcv * bet_p;
      const Array acol = gav * bet_p, bcol = dtr_stage - acol - bs;
      const Array correction_term = -as_ * (u_stage(all, all, k - 1) - u_stage(all, all, k)) -
                                    cs * (u_stage(all, all, k + 1) - u_stage(all, all, k));
      const Array divided = 1.0 / (bcol - ccol(all, all, k - 1) * acol);
      return std::pair(ccol.at(all, all, k).set(bs * divided),
                       dcol.at(all, all, k)
                           .set(((dtr_stage * u_pos(all, all, k) + utens(all, all, k) +
                                  utens_stage(all, all, k) + correction_term) -
                                 dcol(all, all, k - 1) * acol) *
                                divided));
    };
    const auto [ccol, dcol2] = lax::fori_loop(1, K - 1, loop2, std::pair(ccol1, dcol1));

    auto loop3 = [&](const Array &k, const Array &dcol) {
      const Array gav = -0.25 * (wcon(slice(1, none), all, k) + wcon(slice(0, -1), all, k));
      const Array as_ = gav * bet_m, acol = gav * bet_p, bcol = dtr_stage - acol;
      const Array correction_term = -as_ * (u_stage(all, all, k - 1) - u_stage(all, all, k));
      const Array divided = 1.0 / (bcol - ccol(all, all, k - 1) * acol);
      return dcol.at(all, all, k)
          .set(((dtr_stage * u_pos(all, all, k) + utens(all, all, k) + utens_stage(all, all, k) +
                 correction_term) -
                dcol(all, all, k - 1) * acol) *
               divided);
    };
    const Array dcol = lax::fori_loop(K - 1, K, loop3, dcol2);

    auto loop4 = [&](const Array &k, const std::pair<Array, Array> &c) {
      const Array datacol = dcol(all, all, k);
      return std::pair(c.first.at(all).set(datacol),
                       c.second.at(all, all, k).set(dtr_stage * (datacol - u_pos(all, all, k))));
    };
    const auto [data_col4, utens_stage4] =
        lax::fori_loop(K - 1, K, loop4, std::pair(data_col0, utens_stage));

    auto loop5 = [&](const Array &k0, const std::pair<Array, Array> &c) {
      const Array k = K - 2 - k0;
      const Array datacol = dcol(all, all, k) - ccol(all, all, k) * c.first(all, all);
      return std::pair(c.first.at(all).set(datacol),
                       c.second.at(all, all, k).set(dtr_stage * (datacol - u_pos(all, all, k))));
    };
    return lax::fori_loop(0, K - 1, loop5, std::pair(data_col4, utens_stage4)).second;
  });
  return {"vadv", fmt::format("I={} J={} K={}", ni, nj, nk),
          [=] { return Arrays{f(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage)}; }};
}

// hdiff, after NPBench's hdiff_jax.py: a Laplacian, fluxes limited where they would sharpen the
// field, their divergence taken from the field (I x J x K interior of an (I+4) x (J+4) x K one).
Kernel hdiff(int64_t ni, int64_t nj, int64_t nk) {
  const Array in_field = pattern({ni + 4, nj + 4, nk}, 1), out_field = pattern({ni, nj, nk}, 2),
              coeff = pattern({ni, nj, nk}, 3);
  auto f = jx::jit([](const Array &in_field, const Array &out_field, const Array &coeff) {
    const int64_t I = out_field.shape()[0], J = out_field.shape()[1];
    const jx::Slice all = slice();
    const Array lap_field = 4.0 * in_field(slice(1, I + 3), slice(1, J + 3), all) -
                            (in_field(slice(2, I + 4), slice(1, J + 3), all) +
                             in_field(slice(0, I + 2), slice(1, J + 3), all) +
                             in_field(slice(1, I + 3), slice(2, J + 4), all) +
                             in_field(slice(1, I + 3), slice(0, J + 2), all));

    Array res = lap_field(slice(1, none), slice(1, J + 1), all) -
                lap_field(slice(0, -1), slice(1, J + 1), all);
    const Array flx_field =
        jnp::where((res * (in_field(slice(2, I + 3), slice(2, J + 2), all) -
                           in_field(slice(1, I + 2), slice(2, J + 2), all))) > 0,
                   0, res);

    res = lap_field(slice(1, I + 1), slice(1, none), all) -
          lap_field(slice(1, I + 1), slice(0, -1), all);
    const Array fly_field =
        jnp::where((res * (in_field(slice(2, I + 2), slice(2, J + 3), all) -
                           in_field(slice(2, I + 2), slice(1, J + 2), all))) > 0,
                   0, res);

    return out_field.at(all, all, all)
        .set(in_field(slice(2, I + 2), slice(2, J + 2), all) -
             coeff(all, all, all) *
                 (flx_field(slice(1, none), all, all) - flx_field(slice(0, -1), all, all) +
                  fly_field(all, slice(1, none), all) - fly_field(all, slice(0, -1), all)));
  });
  return {"hdiff", fmt::format("I={} J={} K={}", ni, nj, nk),
          [=] { return Arrays{f(in_field, out_field, coeff)}; }};
}

// CFD Python's formulas (cavity_flow's and channel_flow's, written out in full in NPBench for
// each block of columns) at the interior rows of columns k.c, whose east and west neighbours are
// columns k.e and k.w: the interior, or channel_flow's periodic edges.
struct Columns {
  jx::IndexItem c, e, w;
};

struct Flow {
  double rho, nu;
  Array dt, dx, dy;
  jx::Slice in = slice(1, -1), lo = slice(0, -2), hi = slice(2, none);

  // build_up_b: the pressure equation's source term.
  Array b(const Array &u, const Array &v, const Columns &k) const {
    return rho *
           (1 / dt * ((u(in, k.e) - u(in, k.w)) / (2 * dx) + (v(hi, k.c) - v(lo, k.c)) / (2 * dy)) -
            jnp::power((u(in, k.e) - u(in, k.w)) / (2 * dx), 2) -
            2 * ((u(hi, k.c) - u(lo, k.c)) / (2 * dy) * (v(in, k.e) - v(in, k.w)) / (2 * dx)) -
            jnp::power((v(hi, k.c) - v(lo, k.c)) / (2 * dy), 2));
  }
  // pressure_poisson: one Jacobi sweep of the pressure.
  Array p(const Array &pn, const Array &b, const Columns &k) const {
    return ((pn(in, k.e) + pn(in, k.w)) * jnp::power(dy, 2) +
            (pn(hi, k.c) + pn(lo, k.c)) * jnp::power(dx, 2)) /
               (2 * (jnp::power(dx, 2) + jnp::power(dy, 2))) -
           jnp::power(dx, 2) * jnp::power(dy, 2) / (2 * (jnp::power(dx, 2) + jnp::power(dy, 2))) *
               b(in, k.c);
  }
  // The velocities' time step (channel_flow adds F dt to u's).
  Array u(const Array &un, const Array &vn, const Array &p, const Columns &k) const {
    return un(in, k.c) - un(in, k.c) * dt / dx * (un(in, k.c) - un(in, k.w)) -
           vn(in, k.c) * dt / dy * (un(in, k.c) - un(lo, k.c)) -
           dt / (2 * rho * dx) * (p(in, k.e) - p(in, k.w)) +
           nu * (dt / jnp::power(dx, 2) * (un(in, k.e) - 2 * un(in, k.c) + un(in, k.w)) +
                 dt / jnp::power(dy, 2) * (un(hi, k.c) - 2 * un(in, k.c) + un(lo, k.c)));
  }
  Array v(const Array &un, const Array &vn, const Array &p, const Columns &k) const {
    return vn(in, k.c) - un(in, k.c) * dt / dx * (vn(in, k.c) - vn(in, k.w)) -
           vn(in, k.c) * dt / dy * (vn(in, k.c) - vn(lo, k.c)) -
           dt / (2 * rho * dy) * (p(hi, k.c) - p(lo, k.c)) +
           nu * (dt / jnp::power(dx, 2) * (vn(in, k.e) - 2 * vn(in, k.c) + vn(in, k.w)) +
                 dt / jnp::power(dy, 2) * (vn(hi, k.c) - 2 * vn(in, k.c) + vn(lo, k.c)));
  }
};

// The interior's columns, and channel_flow's periodic edges at x = 2 and x = 0.
const Columns interior{slice(1, -1), slice(2, none), slice(0, -2)}, at_x2{-1, 0, -2},
    at_x0{0, 1, -1};

// cavity_flow, after NPBench's cavity_flow_jax.py: nt steps of a lid-driven cavity, each nit
// Jacobi sweeps of the pressure then the velocities' update; both loops lax.scan over arange.
Kernel cavity_flow(int64_t ny, int64_t nx, int64_t nt, int64_t nit) {
  const double rho = 1.0, nu = 0.1;
  const Array u = jnp::zeros({ny, nx}), v = jnp::zeros({ny, nx}), p = jnp::zeros({ny, nx});
  const Array dx = jnp::array(2.0 / double(nx - 1)), dy = jnp::array(2.0 / double(ny - 1)),
              dt = jnp::array(0.1 / double((nx - 1) * (ny - 1)));
  auto f = jx::jit([=](const Array &u0, const Array &v0, const Array &dt, const Array &dx,
                       const Array &dy, const Array &p0) {
    const Flow fl{rho, nu, dt, dx, dy};
    const jx::Slice in = slice(1, -1), all = slice();
    auto pressure_poisson = [&](const Array &p0, const Array &b) {
      // A list carry: scan's one-Array form reads a y that a None (empty) one lacks, and crashes.
      auto body_func = [&](const Arrays &c, const Arrays &) {
        const Array pn = jnp::copy(c[0]);
        Array p = c[0].at(in, in).set(fl.p(pn, b, interior));
        p = p.at(all, -1).set(p(all, -2)); // dp/dx = 0 at x = 2
        p = p.at(0, all).set(p(1, all));   // dp/dy = 0 at y = 0
        p = p.at(all, 0).set(p(all, 1));   // dp/dx = 0 at x = 0
        p = p.at(-1, all).set(0);          // p = 0 at y = 2
        return std::pair(Arrays{p}, Arrays{});
      };
      return lax::scan(body_func, Arrays{p0}, Arrays{jnp::arange(nit)}).first[0];
    };
    auto body_func = [&](const std::tuple<Array, Array, Array, Array> &vals, const Array &) {
      auto [u, v, p, b] = vals;
      const Array un = jnp::copy(u), vn = jnp::copy(v);
      b = b.at(in, in).set(fl.b(u, v, interior));
      p = pressure_poisson(p, b);
      u = u.at(in, in).set(fl.u(un, vn, p, interior));
      v = v.at(in, in).set(fl.v(un, vn, p, interior));
      u = u.at(0, all).set(0);
      u = u.at(all, 0).set(0);
      u = u.at(all, -1).set(0);
      u = u.at(-1, all).set(1); // set velocity on cavity lid equal to 1
      v = v.at(0, all).set(0);
      v = v.at(-1, all).set(0);
      v = v.at(all, 0).set(0);
      v = v.at(all, -1).set(0);
      return std::pair(std::tuple(u, v, p, b), Arrays{});
    };
    const auto [u, v, p, b] =
        lax::scan(body_func, std::tuple(u0, v0, p0, jnp::zeros({ny, nx})), jnp::arange(nt)).first;
    return std::make_tuple(u, v, p);
  });
  return {"cavity_flow", fmt::format("NY={} NX={} NT={} NIT={}", ny, nx, nt, nit),
          [=] { return outputs(f(u, v, dt, dx, dy, p)); }};
}

// channel_flow, after NPBench's channel_flow_jax.py: a channel periodic in x driven by a force F,
// stepped in a lax.while_loop until the sum of u changes by under 0.1% (nit pressure sweeps per
// step); the step count and the fields.
Kernel channel_flow(int64_t ny, int64_t nx, int64_t nit) {
  const double rho = 1.0, nu = 0.1, F = 1.0;
  const Array u = jnp::zeros({ny, nx}), v = jnp::zeros({ny, nx}), p = jnp::ones({ny, nx});
  const Array dx = jnp::array(2.0 / double(nx - 1)), dy = jnp::array(2.0 / double(ny - 1)),
              dt = jnp::array(0.1 / double((nx - 1) * (ny - 1)));
  auto f = jx::jit([=](const Array &u0, const Array &v0, const Array &dt, const Array &dx,
                       const Array &dy, const Array &p0) {
    const Flow fl{rho, nu, dt, dx, dy};
    const jx::Slice in = slice(1, -1), all = slice();
    auto build_up_b = [&](const Array &u, const Array &v) {
      Array b = jnp::zeros_like(u);
      b = b.at(in, in).set(fl.b(u, v, interior));
      b = b.at(in, -1).set(fl.b(u, v, at_x2));   // Periodic BC Pressure @ x = 2
      return b.at(in, 0).set(fl.b(u, v, at_x0)); // Periodic BC Pressure @ x = 0
    };
    // NPBench's pressure_poisson_periodic drops its result (p never changes); returned here, as
    // the NumPy version's updates p in place.
    auto pressure_poisson_periodic = [&](const Array &p0, const Array &b) {
      // A list carry: scan's one-Array form reads a y that a None (empty) one lacks, and crashes.
      auto body_func = [&](const Arrays &c, const Arrays &) {
        const Array pn = jnp::copy(c[0]);
        Array p = c[0].at(in, in).set(fl.p(pn, b, interior));
        p = p.at(in, -1).set(fl.p(pn, b, at_x2)); // Periodic BC Pressure @ x = 2
        p = p.at(in, 0).set(fl.p(pn, b, at_x0));  // Periodic BC Pressure @ x = 0
        p = p.at(-1, all).set(p(-2, all));        // dp/dy = 0 at y = 2
        p = p.at(0, all).set(p(1, all));          // dp/dy = 0 at y = 0
        return std::pair(Arrays{p}, Arrays{});
      };
      return lax::scan(body_func, Arrays{p0}, Arrays{jnp::arange(nit)}).first[0];
    };
    using Vals = std::tuple<Array, Array, Array, Array, Array>;
    auto cond_func = [](const Vals &vals) { return std::get<0>(vals) > .001; };
    auto body_func = [&](const Vals &vals) {
      auto [udiff, stepcount, u, v, p] = vals;
      const Array un = jnp::copy(u), vn = jnp::copy(v);
      const Array b = build_up_b(u, v);
      p = pressure_poisson_periodic(p, b);
      u = u.at(in, in).set(fl.u(un, vn, p, interior) + F * dt);
      v = v.at(in, in).set(fl.v(un, vn, p, interior));
      u = u.at(in, -1).set(fl.u(un, vn, p, at_x2) + F * dt); // Periodic BC u @ x = 2
      u = u.at(in, 0).set(fl.u(un, vn, p, at_x0) + F * dt);  // Periodic BC u @ x = 0
      v = v.at(in, -1).set(fl.v(un, vn, p, at_x2));          // Periodic BC v @ x = 2
      v = v.at(in, 0).set(fl.v(un, vn, p, at_x0));           // Periodic BC v @ x = 0
      u = u.at(0, all).set(0);                               // Wall BC: u,v = 0 @ y = 0,2
      u = u.at(-1, all).set(0);
      v = v.at(0, all).set(0);
      v = v.at(-1, all).set(0);
      udiff = (jnp::sum(u) - jnp::sum(un)) / jnp::sum(u);
      return Vals{udiff, stepcount + 1, u, v, p};
    };
    const auto [udiff, stepcount, u, v, p] =
        lax::while_loop(cond_func, body_func, Vals{jnp::array(1), jnp::array(0), u0, v0, p0});
    return std::make_tuple(stepcount, u, v, p);
  });
  return {"channel_flow", fmt::format("NY={} NX={} NIT={}", ny, nx, nit),
          [=] { return outputs(f(u, v, dt, dx, dy, p)); }};
}

} // namespace

Registry stencil_kernels() {
  return {[] { return jacobi_1d(4000, 1000); },
          [] { return jacobi_2d(600, 100); },
          [] { return heat_3d(60, 100); },
          [] { return fdtd_2d(500, 600, 100); },
          [] { return seidel_2d(100, 15); },
          [] { return adi(200, 20); },
          [] { return vadv(112, 112, 80); },
          [] { return hdiff(128, 128, 160); },
          [] { return cavity_flow(121, 121, 50, 10); },
          [] { return channel_flow(31, 31, 5); }};
}

} // namespace kernels
