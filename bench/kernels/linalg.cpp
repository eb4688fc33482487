// Factorizations, solves and BLAS-like loops of the kernels group (kernels.h), after NPBench's
// npbench/benchmarks/polybench/*/*_jax.py (BSD-3-Clause), which write PolyBench's loops as
// lax.fori_loop with masked whole rows for the slices whose length is the loop index:
//   cholesky, lu: the factorizations, one element per step of an inner loop;
//   ludcmp: lu, then the forward and backward substitutions, one element per step;
//   trisolv: forward substitution with a lower triangular matrix;
//   durbin: Levinson-Durbin recursion for a Toeplitz system, the reversed slices as flip + roll;
//   gramschmidt: QR by modified Gram-Schmidt, a column per step of an inner loop;
//   syrk, syr2k: C = alpha A A^T + beta C (and A B^T + B A^T) on C's lower triangle, row by row;
//   symm: C = alpha A B + beta C with A symmetric, stored lower, column by column;
//   trmm: B = alpha (I + triu(A, 1)) B, which NPBench's JAX writes as one matmul.
#include "kernels.h"

#include <fmt/core.h>

namespace kernels {
namespace {

// PolyBench's cholesky/lu/ludcmp matrix: L @ L.T with L lower triangular, ones on its diagonal and
// (-j % n) / n + 1 below it, so positive definite (kernels_linalg.py's spd_matrix).
Array spd_matrix(int64_t n) {
  const Array i = jnp::arange(n).reshape({n, 1}), j = jnp::arange(double(n));
  const Array low =
      jnp::where(j < i, ((double(n) - j) % double(n)) / double(n) + 1.0, 0.0) + jnp::eye(n);
  return jnp::matmul(low, low.T());
}

// cholesky (NPBench's cholesky_jax.py): A[i, j] = (A[i, j] - A[i, :j] . A[j, :j]) / A[j, j] for
// j < i, then A[i, i] = sqrt(A[i, i] - A[i, :i] . A[i, :i]); A[:j] as a row masked past j.
Kernel cholesky(int64_t n) {
  const Array a = spd_matrix(n);
  auto f = jx::jit([n](const Array &a0) {
    const Array A = a0.at(0, 0).set(jnp::sqrt(a0(0, 0)));
    return lax::fori_loop(
        1, n,
        [n](const Array &i, const Array &A) {
          const Array cols = jnp::arange(n);
          const Array A1 = lax::fori_loop(
              0, i,
              [&](const Array &j, const Array &A) {
                const Array mask = cols < j;
                const Array A_i = jnp::where(mask, A(i, slice()), 0);
                const Array A_j = jnp::where(mask, A(j, slice()), 0);
                return A.at(i, j).set((A(i, j) - jnp::dot(A_i, A_j)) / A(j, j));
              },
              A);
          const Array A_i = jnp::where(cols < i, A1(i, slice()), 0);
          return A1.at(i, i).set(jnp::sqrt(A1(i, i) - jnp::dot(A_i, A_i)));
        },
        A);
  });
  return {"cholesky", fmt::format("N={}", n), [=] { return Arrays{f(a)}; }};
}

// Row i of NPBench's lu_jax.py (ludcmp's too): A[i, j] = (A[i, j] - A[i, :j] @ A[:j, j]) / A[j, j]
// for j < i, then A[i, j] -= A[i, :i] @ A[:i, j] for j >= i.
Array lu_row(const Array &A0, const Array &i, int64_t n) {
  const Array rows = jnp::arange(n);
  const Array A = lax::fori_loop(
      0, i,
      [&](const Array &j, const Array &A) {
        const Array mask = rows < j;
        const Array A_1 = jnp::where(mask, A(i, slice()), 0.0);
        const Array A_2 = jnp::where(mask, A(slice(), j), 0.0);
        return A.at(i, j).set((A(i, j) - jnp::matmul(A_1, A_2)) / A(j, j));
      },
      A0);
  return lax::fori_loop(
      i, n,
      [&](const Array &j, const Array &A) {
        const Array mask = rows < i;
        const Array A_1 = jnp::where(mask, A(i, slice()), 0.0);
        const Array A_2 = jnp::where(mask, A(slice(), j), 0.0);
        return A.at(i, j).set(A(i, j) - jnp::matmul(A_1, A_2));
      },
      A);
}

// lu: PolyBench's in-place LU factorization without pivoting.
Kernel lu(int64_t n) {
  const Array a = spd_matrix(n);
  auto f = jx::jit([n](const Array &a0) {
    return lax::fori_loop(
        0, n, [n](const Array &i, const Array &A) { return lu_row(A, i, n); }, a0);
  });
  return {"lu", fmt::format("N={}", n), [=] { return Arrays{f(a)}; }};
}

// ludcmp (NPBench's ludcmp_jax.py): lu, then y[i] = b[i] - A[i, :i] @ y[:i] forwards and
// x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i] backwards.
Kernel ludcmp(int64_t n) {
  const Array a = spd_matrix(n), b = (jnp::arange(double(n)) + 1.0) / double(n) / 2.0 + 4.0;
  auto f = jx::jit([n](const Array &a0, const Array &b0) {
    const Array x0 = jnp::zeros_like(b0), y0 = jnp::zeros_like(b0);
    const Array A = lax::fori_loop(
        0, n, [n](const Array &i, const Array &A) { return lu_row(A, i, n); }, a0);
    const Array idx = jnp::arange(n);
    const Array y = lax::fori_loop(
        0, n,
        [&](const Array &i, const Arrays &c) {
          const Array &A = c[0], &y = c[1], &b = c[2];
          const Array A_slice = jnp::where(idx < i, A(i, slice()), 0.0);
          const Array y_slice = jnp::where(idx < i, y, 0.0);
          return Arrays{A, y.at(i).set(b(i) - jnp::matmul(A_slice, y_slice)), b};
        },
        Arrays{A, y0, b0})[1];
    const Array x = lax::fori_loop(
        0, n,
        [&](const Array &t, const Arrays &c) {
          const Array &A = c[0], &x = c[1], &y = c[2];
          const Array i = n - 1 - t;
          const Array A_slice = jnp::where(idx > i, A(i, slice()), 0.0);
          const Array x_slice = jnp::where(idx > i, x, 0.0);
          return Arrays{A, x.at(i).set((y(i) - jnp::matmul(A_slice, x_slice)) / A(i, i)), y};
        },
        Arrays{A, x0, y})[1];
    return std::make_pair(x, y);
  });
  return {"ludcmp", fmt::format("N={}", n), [=] { return outputs(f(a, b)); }};
}

// trisolv (NPBench's trisolv_jax.py): x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i].
Kernel trisolv(int64_t n) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n));
  const Array L = (i + double(n) - j + 1.0) * 2.0 / double(n), x = jnp::full({n}, -999.0),
              b = jnp::arange(double(n));
  auto f = jx::jit([n](const Array &L0, const Array &x0, const Array &b0) {
    return lax::fori_loop(
        0, n,
        [n](const Array &i, const Arrays &c) {
          const Array &L = c[0], &x = c[1], &b = c[2];
          const Array mask = jnp::arange(n) < i;
          const Array products = jnp::where(mask, L(i, slice()) * x, 0.0);
          const Array dot_product = jnp::sum(products);
          return Arrays{L, x.at(i).set((b(i) - dot_product) / L(i, i)), b};
        },
        Arrays{L0, x0, b0})[1];
  });
  return {"trisolv", fmt::format("N={}", n), [=] { return Arrays{f(L, x, b)}; }};
}

// durbin (NPBench's durbin_jax.py): alpha = -(r[k] + flip(r[:k]) . y[:k]) / beta, then
// y[:k] += alpha * flip(y[:k]) and y[k] = alpha; flip(r[:k]) as roll(flip(r), k) masked past k.
Kernel durbin(int64_t n) {
  const Array r = double(n + 1) - jnp::arange(double(n));
  auto f = jx::jit([n](const Array &r0) {
    const Array y0 = jnp::empty_like(r0).at(0).set(-r0(0));
    const Arrays out = lax::fori_loop(
        1, n,
        [n](const Array &k, const Arrays &c) {
          const Array &alpha = c[0], &y = c[2], &r = c[3];
          const Array beta = c[1] * (1.0 - alpha * alpha);
          const Array mask = jnp::arange(n) < k;
          const Array products = jnp::where(mask, y * jnp::roll(jnp::flip(r), k, 0), 0.0);
          const Array dot_prod = jnp::sum(products);
          const Array alpha2 = -(r(k) + dot_prod) / beta;
          const Array y_update_slice =
              jnp::where(mask, jnp::roll(jnp::flip(y), k, 0) * alpha2, 0.0);
          return Arrays{alpha2, beta, (y + y_update_slice).at(k).set(alpha2), r};
        },
        Arrays{-r0(0), jnp::array(1.0), y0, r0});
    return out[2];
  });
  return {"durbin", fmt::format("N={}", n), [=] { return Arrays{f(r)}; }};
}

// gramschmidt (NPBench's gramschmidt_jax.py): R[k, k] = |A[:, k]|, Q[:, k] = A[:, k] / R[k, k],
// then for j > k: R[k, j] = Q[:, k] . A[:, j] and A[:, j] -= Q[:, k] R[k, j].
Kernel gramschmidt(int64_t m, int64_t n) {
  // PolyBench's A[i, j] = (i j % m) / m * 100 + 10 is singular; 100 on the diagonal makes it full
  // rank (NPBench draws random matrices instead).
  const Array i = jnp::arange(double(m)).reshape({m, 1}), j = jnp::arange(double(n));
  const Array a = (i * j) % double(m) / double(m) * 100.0 + 10.0 + jnp::where(i == j, 100.0, 0.0);
  auto f = jx::jit([n](const Array &a0) {
    const Arrays out = lax::fori_loop(
        0, n,
        [n](const Array &k, const Arrays &c) {
          const Array &A = c[2];
          const Array nrm = jnp::dot(A(slice(), k), A(slice(), k));
          const Array R = c[1].at(k, k).set(jnp::sqrt(nrm));
          const Array Q = c[0].at(slice(), k).set(A(slice(), k) / R(k, k));
          return lax::fori_loop(
              k + 1, n,
              [&k](const Array &j, const Arrays &c) {
                const Array &Q = c[0], &A = c[2];
                const Array R = c[1].at(k, j).set(jnp::dot(Q(slice(), k), A(slice(), j)));
                return Arrays{Q, R, A.at(slice(), j).add(-Q(slice(), k) * R(k, j))};
              },
              Arrays{Q, R, A});
        },
        Arrays{jnp::zeros_like(a0), jnp::zeros({n, n}, a0.dtype()), a0});
    return std::make_pair(out[0], out[1]);
  });
  return {"gramschmidt", fmt::format("M={} N={}", m, n), [=] { return outputs(f(a)); }};
}

// syrk (NPBench's syrk_jax.py): C[i, :i + 1] *= beta, then C[i, :i + 1] += alpha A[i, k]
// A[:i + 1, k] for each k; the row's first i + 1 elements by masks, written back as a row.
Kernel syrk(int64_t m, int64_t n) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n)),
              k = jnp::arange(double(m));
  const Array C = (i * j + 2.0) % double(n) / double(m), A = (i * k + 1.0) % double(n) / double(n);
  const Array alpha = jnp::array(1.5), beta = jnp::array(1.2);
  auto f = jx::jit([m, n](const Array &alpha0, const Array &beta0, const Array &C0,
                          const Array &A0) {
    const Array rows = jnp::arange(n);
    return lax::fori_loop(
        0, n,
        [&](const Array &i, const Arrays &c) {
          const Array &beta = c[1], &A = c[3];
          const Array in_row = rows < i + 1;
          Array C_slice = jnp::where(in_row, c[2](i, slice()), 0.0) * beta;
          C_slice = jnp::where(in_row, C_slice, c[2](i, slice()));
          const Array C = lax::dynamic_update_slice(c[2], C_slice(jx::newaxis), {i, 0});
          const Array C1 = lax::fori_loop(
              0, m,
              [&](const Array &k, const Arrays &c) {
                const Array &alpha = c[0], &C = c[1], &A = c[2];
                const Array A_update_slice =
                    jnp::where(in_row, A(slice(), k), 0.0) * (alpha * A(i, k));
                Array C_update_slice = jnp::where(in_row, C(i, slice()), 0.0) + A_update_slice;
                C_update_slice = jnp::where(in_row, C_update_slice, C(i, slice()));
                return Arrays{alpha,
                              lax::dynamic_update_slice(C, C_update_slice(jx::newaxis), {i, 0}), A};
              },
              Arrays{c[0], C, A})[1];
          return Arrays{c[0], beta, C1, A};
        },
        Arrays{alpha0, beta0, C0, A0})[2];
  });
  return {"syrk", fmt::format("M={} N={}", m, n), [=] { return Arrays{f(alpha, beta, C, A)}; }};
}

// syr2k (NPBench's syr2k_jax.py): syrk's loops with C[i, :i + 1] += A[:i + 1, k] alpha B[i, k] +
// B[:i + 1, k] alpha A[i, k].
Kernel syr2k(int64_t m, int64_t n) {
  const Array i = jnp::arange(double(n)).reshape({n, 1}), j = jnp::arange(double(n)),
              k = jnp::arange(double(m));
  const Array C = (i * j + 3.0) % double(n) / double(m), A = (i * k + 1.0) % double(n) / double(n),
              B = (i * k + 2.0) % double(m) / double(m);
  const Array alpha = jnp::array(1.5), beta = jnp::array(1.2);
  auto f = jx::jit([m, n](const Array &alpha0, const Array &beta0, const Array &C0, const Array &A0,
                          const Array &B0) {
    const Array rows = jnp::arange(n);
    return lax::fori_loop(
        0, n,
        [&](const Array &i, const Arrays &c) {
          const Array &beta = c[1], &A = c[3], &B = c[4];
          const Array in_row = rows < i + 1;
          Array C_slice = jnp::where(in_row, c[2](i, slice()), 0.0) * beta;
          C_slice = jnp::where(in_row, C_slice, c[2](i, slice()));
          const Array C = lax::dynamic_update_slice(c[2], C_slice(jx::newaxis), {i, 0});
          const Array C1 = lax::fori_loop(
              0, m,
              [&](const Array &k, const Arrays &c) {
                const Array &alpha = c[0], &C = c[1], &A = c[2], &B = c[3];
                const Array A_update_slice =
                    jnp::where(in_row, A(slice(), k), 0.0) * (alpha * B(i, k));
                const Array B_update_slice =
                    jnp::where(in_row, B(slice(), k), 0.0) * (alpha * A(i, k));
                Array C_update_slice =
                    jnp::where(in_row, C(i, slice()), 0.0) + (A_update_slice + B_update_slice);
                C_update_slice = jnp::where(in_row, C_update_slice, C(i, slice()));
                return Arrays{
                    alpha, lax::dynamic_update_slice(C, C_update_slice(jx::newaxis), {i, 0}), A, B};
              },
              Arrays{c[0], C, A, B})[1];
          return Arrays{c[0], beta, C1, A, B};
        },
        Arrays{alpha0, beta0, C0, A0, B0})[2];
  });
  return {"syr2k", fmt::format("M={} N={}", m, n), [=] { return Arrays{f(alpha, beta, C, A, B)}; }};
}

// symm (NPBench's symm_jax.py): C *= beta; per row i and column j, C[:i, j] += alpha B[i, j]
// A[i, :i] (a column written back) and temp2[j] = B[:i, j] @ A[i, :i]; then C[i, :] += alpha B[i,
// :] A[i, i] + alpha temp2.
Kernel symm(int64_t m, int64_t n) {
  const Array i = jnp::arange(double(m)).reshape({m, 1}), j = jnp::arange(double(n)),
              k = jnp::arange(double(m));
  const Array C = (i + j) % 100.0 / double(m), B = (double(n) + i - j) % 100.0 / double(m),
              A = jnp::where(k <= i, (i + k) % 100.0 / double(m), -999.0);
  const Array alpha = jnp::array(1.5), beta = jnp::array(1.2);
  auto f = jx::jit([m, n](const Array &alpha, const Array &beta, const Array &C0, const Array &A,
                          const Array &B) {
    const Array idx = jnp::arange(m);
    return lax::fori_loop(
        0, m,
        [&](const Array &i, const Arrays &c) {
          const Arrays row = lax::fori_loop(
              0, n,
              [&](const Array &j, const Arrays &c) {
                const Array &C = c[0], &temp2 = c[1];
                const Array A_slice = jnp::where(idx < i, A(i, slice()), 0.0);
                const Array B_slice = jnp::where(idx < i, B(slice(), j), 0.0);
                return Arrays{lax::dynamic_update_slice(
                                  C,
                                  (C(slice(), j) + alpha * B(i, j) * A_slice)(slice(), jx::newaxis),
                                  {0, j}),
                              temp2.at(j).set(jnp::matmul(B_slice, A_slice))};
              },
              c);
          return Arrays{row[0].at(i, slice()).add(alpha * B(i, slice()) * A(i, i) + alpha * row[1]),
                        row[1]};
        },
        Arrays{C0 * beta, jnp::empty({n}, C0.dtype())})[0];
  });
  return {"symm", fmt::format("M={} N={}", m, n), [=] { return Arrays{f(alpha, beta, C, A, B)}; }};
}

// trmm: NumPy's loop B[i, j] += A[i + 1:, i] . B[i + 1:, j] is tril(A, -1).T @ B; NPBench's
// trmm_jax.py writes triu(A, 1) @ B, the same for PolyBench's symmetric A.
Kernel trmm(int64_t m, int64_t n) {
  const Array i = jnp::arange(double(m)).reshape({m, 1}), j = jnp::arange(double(n)),
              k = jnp::arange(double(m));
  const Array A = jnp::where(i == k, 1.0, (i * k) % double(m) / double(m)),
              B = (double(n) + i - j) % double(n) / double(n), alpha = jnp::array(1.5);
  auto f = jx::jit([](const Array &alpha, const Array &A, const Array &B) {
    const Array L = jnp::triu(A, 1);
    return (B + jnp::matmul(L, B)) * alpha;
  });
  return {"trmm", fmt::format("M={} N={}", m, n), [=] { return Arrays{f(alpha, A, B)}; }};
}

} // namespace

Registry linalg_kernels() {
  return {[] { return cholesky(300); },  [] { return lu(220); },
          [] { return ludcmp(220); },    [] { return trisolv(5000); },
          [] { return durbin(6000); },   [] { return gramschmidt(220, 180); },
          [] { return syrk(150, 200); }, [] { return syr2k(110, 140); },
          [] { return symm(120, 150); }, [] { return trmm(200, 250); }};
}

} // namespace kernels
