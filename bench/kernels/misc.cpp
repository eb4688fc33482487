// The kernels group's others (kernels.h):
//   crc16: CRC-16 over bytes, a loop over 8 bits inside a loop over bytes;
//   mandelbrot: escape-time iteration of z^2 + c over a grid, counting steps while |z| < 2;
//   go_fast: a sum of tanh over a matrix's diagonal in a loop, added to the matrix;
//   arc_distance: great-circle distances, whole-array arithmetic;
//   deriche: PolyBench's recursive edge filter, a loop over columns then one over rows, each step
//     a column (row) from the two before it;
//   floyd_warshall: all-pairs shortest paths, a loop over the intermediate vertex;
//   nussinov: RNA folding's dynamic programming, one table element at a time in three nested loops;
//   nbody: leapfrog steps of N gravitating particles, all pairs' forces and energies per step;
//   azimint_hist: azimuthal integration, two histograms (counts and weighted);
//   spmv: a CSR matrix times a vector, a loop over rows.
#include "kernels.h"

#include <complex>
#include <cstdint>
#include <fmt/core.h>

namespace kernels {
namespace {

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
  return {"mandelbrot", fmt::format("XN={} YN={} MAXITER={}", xn, yn, maxiter),
          [=] { return outputs(f()); }};
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

// deriche (after NPBench's deriche_jax.py): causal and anticausal recursions along each row
// (`y1.at[:, j].set(...)` over j), summed, then the same down the columns.
Kernel deriche(int64_t w, int64_t h) {
  const Array i = jnp::arange(double(w)).reshape({w, 1}), j = jnp::arange(double(h));
  const Array img = ((313.0 * i + 991.0 * j) % 65536.0) / 65535.0;
  auto f = jx::jit([](const Array &alpha, const Array &imgIn) {
    const Array k = (1.0 - jnp::exp(-alpha)) * (1.0 - jnp::exp(-alpha)) /
                    (1.0 + alpha * jnp::exp(-alpha) - jnp::exp(2.0 * alpha));
    const Array a1 = k, a5 = k;
    const Array a2 = k * jnp::exp(-alpha) * (alpha - 1.0), a6 = a2;
    const Array a3 = k * jnp::exp(-alpha) * (alpha + 1.0), a7 = a3;
    const Array a4 = -k * jnp::exp(-2.0 * alpha), a8 = a4;
    const Array b1 = jnp::power(2.0, -alpha), b2 = -jnp::exp(-2.0 * alpha);
    const int c1 = 1, c2 = 1;
    const int64_t rows = imgIn.shape()[0], cols = imgIn.shape()[1];
    const auto all = slice();

    Array y1 = jnp::empty_like(imgIn);
    y1 = y1.at(all, 0).set(a1 * imgIn(all, 0));
    y1 = y1.at(all, 1).set(a1 * imgIn(all, 1) + a2 * imgIn(all, 0) + b1 * y1(all, 0));
    y1 = lax::fori_loop(
        2, cols,
        [&](const Array &j, const Array &y) {
          return y.at(all, j).set(a1 * imgIn(all, j) + a2 * imgIn(all, j - 1) + b1 * y(all, j - 1) +
                                  b2 * y(all, j - 2));
        },
        y1);

    Array y2 = jnp::empty_like(imgIn);
    y2 = y2.at(all, -1).set(0.0);
    y2 = y2.at(all, -2).set(a3 * imgIn(all, -1));
    y2 = lax::fori_loop(
        0, cols - 2,
        [&](const Array &j, const Array &y) {
          const Array idx = cols - 3 - j;
          return y.at(all, idx).set(a3 * imgIn(all, idx + 1) + a4 * imgIn(all, idx + 2) +
                                    b1 * y(all, idx + 1) + b2 * y(all, idx + 2));
        },
        y2);

    const Array imgOut = c1 * (y1 + y2);

    y1 = jnp::empty_like(imgOut);
    y1 = y1.at(0, all).set(a5 * imgOut(0, all));
    y1 = y1.at(1, all).set(a5 * imgOut(1, all) + a6 * imgOut(0, all) + b1 * y1(0, all));
    y1 = lax::fori_loop(
        2, rows,
        [&](const Array &i, const Array &y) {
          return y.at(i, all).set(a5 * imgOut(i, all) + a6 * imgOut(i - 1, all) +
                                  b1 * y(i - 1, all) + b2 * y(i - 2, all));
        },
        y1);

    y2 = jnp::empty_like(imgOut);
    y2 = y2.at(-1, all).set(0.0);
    y2 = y2.at(-2, all).set(a7 * imgOut(-1, all));
    y2 = lax::fori_loop(
        0, rows - 2,
        [&](const Array &i, const Array &y) {
          const Array idx = rows - 3 - i;
          return y.at(idx, all).set(a7 * imgOut(idx + 1, all) + a8 * imgOut(idx + 2, all) +
                                    b1 * y(idx + 1, all) + b2 * y(idx + 2, all));
        },
        y2);

    return c2 * (y1 + y2);
  });
  const Array alpha = jnp::array(0.25);
  return {"deriche", fmt::format("W={} H={}", w, h), [=] { return Arrays{f(alpha, img)}; }};
}

// floyd_warshall (after NPBench's floyd_warshall_jax.py): path = min(path, add.outer(path[:, k],
// path[k, :])) for each k. jx has no ufunc methods (jnp.add.outer), so the outer sum is written as
// the broadcast path[:, k][:, None] + path[k, :].
Kernel floyd_warshall(int64_t n) {
  const Array i = jnp::arange(n).reshape({n, 1}), j = jnp::arange(n), s = i + j;
  const Array path = jnp::where((s % 13 == 0) | (s % 7 == 0) | (s % 11 == 0), 999, i * j % 7 + 1)
                         .astype(jx::int32);
  auto f = jx::jit([](const Array &path0) {
    const auto all = slice();
    return lax::fori_loop(
        0, path0.shape()[0],
        [&](const Array &k, const Array &path) {
          return path.at(all).set(
              jnp::minimum(path(all), path(all, k)(all, jx::newaxis) + path(k, all)));
        },
        path0);
  });
  return {"floyd_warshall", fmt::format("N={}", n), [=] { return Arrays{f(path)}; }};
}

// nussinov (after NPBench's nussinov_jax.py): table[i, j] from its neighbours and the splits
// k in (i, j), for i from the last row up and j right of the diagonal; the inner loops' bounds
// depend on the outer indices.
Kernel nussinov(int64_t n) {
  const Array seq = ((jnp::arange(n) + 1) % 4).astype(jx::int32);
  auto f = jx::jit([n](const Array &seq) {
    auto match = [](const Array &b1, const Array &b2) { return jnp::where(b1 + b2 == 3, 1, 0); };
    return lax::fori_loop(
        0, n,
        [&](const Array &i0, const Array &table) {
          const Array i = n - 1 - i0;
          return lax::fori_loop(
              i + 1, n,
              [&](const Array &j, const Array &table) {
                Array t = table.at(i, j).set(jnp::where(
                    j - 1 >= 0, jnp::maximum(table(i, j), table(i, j - 1)), table(i, j)));
                t = t.at(i, j).set(
                    jnp::where(i + 1 < n, jnp::maximum(t(i, j), t(i + 1, j)), t(i, j)));
                t = t.at(i, j).set(jnp::where(
                    (j - 1 >= 0) & (i + 1 < n) & (i < j - 1),
                    jnp::maximum(t(i, j), t(i + 1, j - 1) + match(seq(i), seq(j))), t(i, j)));
                t = t.at(i, j).set(jnp::where((j - 1 >= 0) & (i + 1 < n) & (i >= j - 1),
                                              jnp::maximum(t(i, j), t(i + 1, j - 1)), t(i, j)));
                return lax::fori_loop(
                    i + 1, j,
                    [&](const Array &k, const Array &t) {
                      return t.at(i, j).set(jnp::maximum(t(i, j), t(i, k) + t(k + 1, j)));
                    },
                    t);
              },
              table);
        },
        jnp::zeros({n, n}, jx::int32));
  });
  return {"nussinov", fmt::format("N={}", n), [=] { return Arrays{f(seq)}; }};
}

// NPBench's nbody getAcc: each particle's acceleration from every other's softened gravity.
Array nbody_acc(const Array &pos, const Array &mass, const Array &G, const Array &softening) {
  const auto all = slice();
  const Array x = pos(all, slice(0, 1)), y = pos(all, slice(1, 2)), z = pos(all, slice(2, 3));
  const Array dx = x.T() - x, dy = y.T() - y, dz = z.T() - z;
  Array inv_r3 =
      jnp::power(dx, 2) + jnp::power(dy, 2) + jnp::power(dz, 2) + jnp::power(softening, 2);
  inv_r3 = jnp::where(inv_r3 > 0, jnp::power(inv_r3, -1.5), inv_r3);
  const Array ax = jnp::matmul(G * (dx * inv_r3), mass), ay = jnp::matmul(G * (dy * inv_r3), mass),
              az = jnp::matmul(G * (dz * inv_r3), mass);
  return jnp::hstack({ax, ay, az});
}

// NPBench's nbody getEnergy: the kinetic and potential energy.
std::pair<Array, Array> nbody_energy(const Array &pos, const Array &vel, const Array &mass,
                                     const Array &G) {
  const Array KE = 0.5 * jnp::sum(mass * jnp::power(vel, 2));
  const auto all = slice();
  const Array x = pos(all, slice(0, 1)), y = pos(all, slice(1, 2)), z = pos(all, slice(2, 3));
  const Array dx = x.T() - x, dy = y.T() - y, dz = z.T() - z;
  Array inv_r = jnp::sqrt(jnp::power(dx, 2) + jnp::power(dy, 2) + jnp::power(dz, 2));
  inv_r = jnp::where(inv_r > 0, 1.0 / inv_r, inv_r);
  const Array PE = G * jnp::sum(jnp::triu(-(mass * mass.T()) * inv_r, 1));
  return {KE, PE};
}

// nbody (after NPBench's nbody_jax.py): leapfrog steps (kick, drift, kick), every pair's
// separations as N x N matrices; the energies after each step. NPBench's time t, never read, is
// left out. 60 steps of NPBench's M preset (250): its close encounters double rounding differences
// every few steps, 1e-3 apart by step 100 (JAX's from NumPy's too), 1e-8 at step 60.
Kernel nbody(int64_t n, int64_t nt) {
  const Array mass = 20.0 * jnp::ones({n, 1}) / double(n);
  const Array k = jnp::arange(double(3 * n)).reshape({n, 3}) + 1.0;
  const Array pos = (k * 0.6180339887498949) % 1.0, vel = (k * 0.7548776662466927) % 1.0;
  const Array dt = jnp::array(0.02), G = jnp::array(1.0), softening = jnp::array(0.1);
  auto f = jx::jit([nt](const Array &mass, const Array &pos0, const Array &vel0, const Array &dt,
                        const Array &G, const Array &softening) {
    const Array vel = vel0 - jnp::mean(mass * vel0, 0) / jnp::mean(mass);
    const Array acc = nbody_acc(pos0, mass, G, softening);
    Array KE = jnp::empty({nt + 1}, jx::float64), PE = jnp::empty({nt + 1}, jx::float64);
    const auto [ke, pe] = nbody_energy(pos0, vel, mass, G);
    KE = KE.at(0).set(ke);
    PE = PE.at(0).set(pe);
    const Arrays out = lax::fori_loop(
        0, nt,
        [&](const Array &i, const Arrays &c) {
          Array vel = c[1] + c[2] * dt / 2.0;
          const Array pos = c[0] + vel * dt;
          const Array acc = nbody_acc(pos, mass, G, softening);
          vel = vel + acc * dt / 2.0;
          const auto [ke, pe] = nbody_energy(pos, vel, mass, G);
          return Arrays{pos, vel, acc, c[3].at(i + 1).set(ke), c[4].at(i + 1).set(pe)};
        },
        Arrays{pos0, vel, acc, KE, PE});
    return std::make_pair(out[3], out[4]);
  });
  return {"nbody", fmt::format("N={} NT={}", n, nt),
          [=] { return outputs(f(mass, pos, vel, dt, G, softening)); }};
}

// azimint_hist (after NPBench's azimint_hist_jax.py): the mean of data in each of npt radial
// bins, a weighted histogram over a counting one.
Kernel azimint_hist(int64_t n, int64_t npt) {
  const Array k = jnp::arange(double(n));
  const Array data = (k * 0.6180339887498949) % 1.0, radius = (k * 0.7548776662466927) % 1.0;
  auto f = jx::jit([npt](const Array &data, const Array &radius) {
    const Array histu = jnp::histogram(radius, npt).first;
    const Array histw = jnp::histogram(radius, {.bins = npt, .weights = data}).first;
    return histw / histu;
  });
  return {"azimint_hist", fmt::format("N={} NPT={}", n, npt),
          [=] { return Arrays{f(data, radius)}; }};
}

// spmv (after NPBench's spmv_jax.py): y[i] = A_val[row i] @ x[A_col[row i]], each row's entries
// picked by a mask over all nonzeros. Row i holds 1 + i % 3 entries, at columns
// (37 i + 1031 k) % n, valued ((i + 3 k) % 11 + 1) / 11.
Kernel spmv(int64_t m, int64_t n) {
  std::vector<uint32_t> rows{0}, cols;
  std::vector<double> vals;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t k = 0; k < 1 + i % 3; ++k) {
      cols.push_back(uint32_t((37 * i + 1031 * k) % n));
      vals.push_back(double((i + 3 * k) % 11 + 1) / 11.0);
    }
    rows.push_back(uint32_t(cols.size()));
  }
  const Array A_row = jnp::array(rows), A_col = jnp::array(cols), A_val = jnp::array(vals);
  const Array x = (jnp::arange(n) % 17 + 1) / 17.0;
  auto f = jx::jit([](const Array &A_row, const Array &A_col, const Array &A_val, const Array &x) {
    const Array y = jnp::empty({A_row.size() - 1}, A_val.dtype());
    return lax::fori_loop(
        0, A_row.size() - 1,
        [&](const Array &i, const Array &y) {
          const Array mask =
              (jnp::arange(A_col.size()) >= A_row(i)) & (jnp::arange(A_col.size()) < A_row(i + 1));
          const Array cols = jnp::where(mask, A_col, 0);
          const Array vals = jnp::where(mask, A_val, 0);
          return y.at(i).set(jnp::matmul(vals, x(cols)));
        },
        y);
  });
  return {"spmv", fmt::format("M={} N={} NNZ={}", m, n, cols.size()),
          [=] { return Arrays{f(A_row, A_col, A_val, x)}; }};
}

} // namespace

Registry misc_kernels() {
  return {[] { return crc16(20000); },
          [] { return go_fast(2000); },
          [] { return arc_distance(1000000); },
          [] { return mandelbrot(400, 400, 100); },
          [] { return deriche(1500, 1000); },
          [] { return floyd_warshall(400); },
          [] { return nussinov(90); },
          [] { return nbody(50, 60); },
          [] { return azimint_hist(4000000, 1000); },
          [] { return spmv(4096, 4096); }};
}

} // namespace kernels
