"""Stencils of the kernels group (kernels.py): NumPy as NPBench writes them, JAX as NPBench's JAX
versions (lax.fori_loop, lax.scan, lax.while_loop under jit), inputs by
bench/kernels/stencils.cpp's formulas."""
import numpy as np

try:
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # kernels.py runs NumPy alone then
    jnp = lax = None


def jacobi_1d_inputs(n=4000, tsteps=1000):
    return (np.arange(n, dtype=np.float64) + 2.0) / n, (np.arange(n, dtype=np.float64) + 3.0) / n, \
        tsteps


def np_jacobi_1d(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return A, B


def jax_jacobi_1d(A, B, tsteps):
    def body(t, c):
        A, B = c
        B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
        A = A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:]))
        return A, B
    return lax.fori_loop(1, tsteps, body, (A, B))


def jacobi_2d_inputs(n=600, tsteps=100):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    return (i * (j + 2.0) + 2.0) / n, (i * (j + 3.0) + 3.0) / n, tsteps


def np_jacobi_2d(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] +
                               A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] +
                               B[:-2, 1:-1])
    return A, B


def jax_jacobi_2d(A, B, tsteps):
    def body(t, c):
        A, B = c
        B = B.at[1:-1, 1:-1].set(0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                                        A[2:, 1:-1] + A[:-2, 1:-1]))
        A = A.at[1:-1, 1:-1].set(0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                                        B[2:, 1:-1] + B[:-2, 1:-1]))
        return A, B
    return lax.fori_loop(1, tsteps, body, (A, B))


def heat_3d_inputs(n=60, tsteps=100):
    i = np.arange(n, dtype=np.float64)[:, None, None]
    j = np.arange(n, dtype=np.float64)[:, None]
    k = np.arange(n, dtype=np.float64)
    a = (i + j + (n - k)) * 10.0 / n
    return a, a, tsteps


def np_heat_3d(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1]) +
            0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1]) +
            0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, 0:-2]) +
            A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1]) +
            0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1]) +
            0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, 0:-2]) +
            B[1:-1, 1:-1, 1:-1])
    return A, B


def jax_heat_3d(A, B, tsteps):
    def stencil(X):
        return (0.125 * (X[2:, 1:-1, 1:-1] - 2.0 * X[1:-1, 1:-1, 1:-1] + X[:-2, 1:-1, 1:-1]) +
                0.125 * (X[1:-1, 2:, 1:-1] - 2.0 * X[1:-1, 1:-1, 1:-1] + X[1:-1, :-2, 1:-1]) +
                0.125 * (X[1:-1, 1:-1, 2:] - 2.0 * X[1:-1, 1:-1, 1:-1] + X[1:-1, 1:-1, 0:-2]) +
                X[1:-1, 1:-1, 1:-1])

    def body(t, c):
        A, B = c
        B = B.at[1:-1, 1:-1, 1:-1].set(stencil(A))
        A = A.at[1:-1, 1:-1, 1:-1].set(stencil(B))
        return A, B
    return lax.fori_loop(1, tsteps, body, (A, B))


def fdtd_2d_inputs(nx=500, ny=600, tmax=100):
    i, j = np.arange(nx, dtype=np.float64)[:, None], np.arange(ny, dtype=np.float64)
    return (i * (j + 1.0) / nx, i * (j + 2.0) / ny, i * (j + 3.0) / nx,
            np.arange(tmax, dtype=np.float64), tmax)


def np_fdtd_2d(ex, ey, hz, _fict_, tmax):
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    for t in range(tmax):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return ex, ey, hz


def jax_fdtd_2d(ex, ey, hz, _fict_, tmax):
    def body(t, c):
        ex, ey, hz = c
        ey = ey.at[0, :].set(_fict_[t])
        ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] -
                                         ey[:-1, :-1]))
        return ex, ey, hz
    return lax.fori_loop(0, tmax, body, (ex, ey, hz))


def seidel_2d_inputs(n=100, tsteps=15):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    return tsteps, n, (i * (j + 2.0) + 2.0) / n


def np_seidel_2d(TSTEPS, N, A):
    """After NPBench's seidel_2d_numpy.py."""
    A = A.copy()
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
    return (A,)


def jax_seidel_2d(TSTEPS, N, A):
    """After NPBench's seidel_2d_jax.py."""
    def loop1(t, A):
        def loop2(i, A):
            def loop3(j, A):
                return A.at[i, j].set((A[i, j] + A[i, j - 1]) / 9.0)
            A = A.at[i, 1:-1].set(A[i, 1:-1] + (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] +
                                                A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] +
                                                A[i + 1, 2:]))
            return lax.fori_loop(1, N - 1, loop3, A)
        return lax.fori_loop(1, N - 1, loop2, A)
    return (lax.fori_loop(0, TSTEPS - 1, loop1, A),)


def adi_inputs(n=200, tsteps=20):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    return tsteps, n, (i + n - j) / n


def adi_coefficients(TSTEPS, N):
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul2
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    return a, b, c, d, e, f


def np_adi(TSTEPS, N, u):
    """After NPBench's adi_numpy.py."""
    u = u.copy()
    v = np.empty(u.shape, dtype=u.dtype)
    p = np.empty(u.shape, dtype=u.dtype)
    q = np.empty(u.shape, dtype=u.dtype)
    a, b, c, d, e, f = adi_coefficients(TSTEPS, N)
    for t in range(1, TSTEPS + 1):
        v[0, 1:N - 1] = 1.0
        p[1:N - 1, 0] = 0.0
        q[1:N - 1, 0] = v[0, 1:N - 1]
        for j in range(1, N - 1):
            p[1:N - 1, j] = -c / (a * p[1:N - 1, j - 1] + b)
            q[1:N - 1, j] = (-d * u[j, 0:N - 2] + (1.0 + 2.0 * d) * u[j, 1:N - 1] -
                             f * u[j, 2:N] - a * q[1:N - 1, j - 1]) / (a * p[1:N - 1, j - 1] + b)
        v[N - 1, 1:N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            v[j, 1:N - 1] = p[1:N - 1, j] * v[j + 1, 1:N - 1] + q[1:N - 1, j]

        u[1:N - 1, 0] = 1.0
        p[1:N - 1, 0] = 0.0
        q[1:N - 1, 0] = u[1:N - 1, 0]
        for j in range(1, N - 1):
            p[1:N - 1, j] = -f / (d * p[1:N - 1, j - 1] + e)
            q[1:N - 1, j] = (-a * v[0:N - 2, j] + (1.0 + 2.0 * a) * v[1:N - 1, j] -
                             c * v[2:N, j] - d * q[1:N - 1, j - 1]) / (d * p[1:N - 1, j - 1] + e)
        u[1:N - 1, N - 1] = 1.0
        for j in range(N - 2, 0, -1):
            u[1:N - 1, j] = p[1:N - 1, j] * u[1:N - 1, j + 1] + q[1:N - 1, j]
    return (u,)


def jax_adi(TSTEPS, N, u):
    """After NPBench's adi_jax.py."""
    v = jnp.zeros_like(u)
    p = jnp.zeros_like(u)
    q = jnp.zeros_like(u)
    a, b, c, d, e, f = adi_coefficients(TSTEPS, N)

    def first_j_loop_body(j, carry):
        p, q, u = carry
        p = p.at[1:N - 1, j].set(-c / (a * p[1:N - 1, j - 1] + b))
        q = q.at[1:N - 1, j].set(
            (-d * u[j, 0:N - 2] + (1.0 + 2.0 * d) * u[j, 1:N - 1] - f * u[j, 2:N] -
             a * q[1:N - 1, j - 1]) / (a * p[1:N - 1, j - 1] + b))
        return (p, q, u)

    def first_backward_j_loop_body(j, carry):
        v, p, q = carry
        idx = N - 2 - j
        v = v.at[idx, 1:N - 1].set(p[1:N - 1, idx] * v[idx + 1, 1:N - 1] + q[1:N - 1, idx])
        return (v, p, q)

    def second_j_loop_body(j, carry):
        p, q, v = carry
        p = p.at[1:N - 1, j].set(-f / (d * p[1:N - 1, j - 1] + e))
        q = q.at[1:N - 1, j].set(
            (-a * v[0:N - 2, j] + (1.0 + 2.0 * a) * v[1:N - 1, j] - c * v[2:N, j] -
             d * q[1:N - 1, j - 1]) / (d * p[1:N - 1, j - 1] + e))
        return (p, q, v)

    def second_backward_j_loop_body(j, carry):
        u, p, q = carry
        idx = N - 2 - j
        u = u.at[1:N - 1, idx].set(p[1:N - 1, idx] * u[1:N - 1, idx + 1] + q[1:N - 1, idx])
        return (u, p, q)

    def time_step_body(t, carry):
        u, v, p, q = carry
        v = v.at[0, 1:N - 1].set(1.0)
        p = p.at[1:N - 1, 0].set(0.0)
        q = q.at[1:N - 1, 0].set(v[0, 1:N - 1])
        p, q, u = lax.fori_loop(1, N - 1, first_j_loop_body, (p, q, u))
        v = v.at[N - 1, 1:N - 1].set(1.0)
        v, p, q = lax.fori_loop(0, N - 2, first_backward_j_loop_body, (v, p, q))
        u = u.at[1:N - 1, 0].set(1.0)
        p = p.at[1:N - 1, 0].set(0.0)
        q = q.at[1:N - 1, 0].set(u[1:N - 1, 0])
        p, q, v = lax.fori_loop(1, N - 1, second_j_loop_body, (p, q, v))
        u = u.at[1:N - 1, N - 1].set(1.0)
        u, p, q = lax.fori_loop(0, N - 2, second_backward_j_loop_body, (u, p, q))
        return (u, v, p, q)

    u, v, p, q = lax.fori_loop(1, TSTEPS + 1, time_step_body, (u, v, p, q))
    return (u,)


def pattern(shape, s):
    """(37 k + 101 s) mod 1009 / 1009 over the flat index k (stencils.cpp's pattern)."""
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float64) * 37.0 + 101.0 * s) % 1009.0 / 1009.0).reshape(shape)


BET_M = 0.5
BET_P = 0.5


def vadv_inputs(I=112, J=112, K=80):
    return (pattern((I, J, K), 1), pattern((I, J, K), 2), pattern((I + 1, J, K), 3),
            pattern((I, J, K), 4), pattern((I, J, K), 5), 3.0 / 20.0)


def np_vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    """After NPBench's vadv_numpy.py."""
    utens_stage = utens_stage.copy()
    I, J, K = utens_stage.shape[0], utens_stage.shape[1], utens_stage.shape[2]
    ccol = np.ndarray((I, J, K), dtype=utens_stage.dtype)
    dcol = np.ndarray((I, J, K), dtype=utens_stage.dtype)
    data_col = np.ndarray((I, J), dtype=utens_stage.dtype)

    for k in range(1):
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        cs = gcv * BET_M
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - ccol[:, :, k]
        correction_term = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] +
                         correction_term)
        divided = 1.0 / bcol
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = dcol[:, :, k] * divided

    for k in range(1, K - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - acol - ccol[:, :, k]
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (
            u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] +
                         correction_term)
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided

    for k in range(K - 1, K):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        as_ = gav * BET_M
        acol = gav * BET_P
        bcol = dtr_stage - acol
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] +
                         correction_term)
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided

    for k in range(K - 1, K - 2, -1):
        datacol = dcol[:, :, k]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])

    for k in range(K - 2, -1, -1):
        datacol = dcol[:, :, k] - ccol[:, :, k] * data_col[:, :]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])
    return (utens_stage,)


def jax_vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    """After NPBench's vadv_jax.py, returning its output argument (utens_stage) alone."""
    I, J, K = utens_stage.shape[0], utens_stage.shape[1], utens_stage.shape[2]
    ccol = jnp.empty((I, J, K), dtype=utens_stage.dtype)
    dcol = jnp.empty((I, J, K), dtype=utens_stage.dtype)
    data_col = jnp.empty((I, J), dtype=utens_stage.dtype)

    def loop1(k, loop_vars):
        ccol, dcol = loop_vars
        gcv = 0.25 * (wcon[1:, :, 0 + 1] + wcon[:-1, :, 0 + 1])
        cs = gcv * BET_M
        bs = gcv * BET_P
        bcol = dtr_stage - bs
        correction_term = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        divided = 1.0 / bcol
        ccol = ccol.at[:, :, k].set(bs * divided)
        dcol = dcol.at[:, :, k].set((dtr_stage * u_pos[:, :, k] + utens[:, :, k] +
                                     utens_stage[:, :, k] + correction_term) * divided)
        return ccol, dcol
    ccol, dcol = lax.fori_loop(0, 1, loop1, (ccol, dcol))

    def loop2(k, loop_vars):
        ccol, dcol = loop_vars
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        bs = gcv * BET_P
        acol = gav * BET_P
        bcol = dtr_stage - acol - bs
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (
            u_stage[:, :, k + 1] - u_stage[:, :, k])
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol = ccol.at[:, :, k].set(bs * divided)
        dcol = dcol.at[:, :, k].set(((dtr_stage * u_pos[:, :, k] + utens[:, :, k] +
                                      utens_stage[:, :, k] + correction_term) -
                                     (dcol[:, :, k - 1]) * acol) * divided)
        return ccol, dcol
    ccol, dcol = lax.fori_loop(1, K - 1, loop2, (ccol, dcol))

    def loop3(k, dcol):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        as_ = gav * BET_M
        acol = gav * BET_P
        bcol = dtr_stage - acol
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        return dcol.at[:, :, k].set(((dtr_stage * u_pos[:, :, k] + utens[:, :, k] +
                                      utens_stage[:, :, k] + correction_term) -
                                     (dcol[:, :, k - 1]) * acol) * divided)
    dcol = lax.fori_loop(K - 1, K, loop3, dcol)

    def loop4(k, loop_vars):
        data_col, utens_stage = loop_vars
        datacol = dcol[:, :, k]
        data_col = data_col.at[:].set(datacol)
        utens_stage = utens_stage.at[:, :, k].set(dtr_stage * (datacol - u_pos[:, :, k]))
        return data_col, utens_stage
    data_col, utens_stage = lax.fori_loop(K - 1, K, loop4, (data_col, utens_stage))

    def loop5(k, loop_vars):
        data_col, utens_stage = loop_vars
        K = utens_stage.shape[2]
        k = K - 2 - k
        datacol = dcol[:, :, k] - ccol[:, :, k] * data_col[:, :]
        data_col = data_col.at[:].set(datacol)
        utens_stage = utens_stage.at[:, :, k].set(dtr_stage * (datacol - u_pos[:, :, k]))
        return data_col, utens_stage
    data_col, utens_stage = lax.fori_loop(0, K - 1, loop5, (data_col, utens_stage))
    return (utens_stage,)


def hdiff_inputs(I=128, J=128, K=160):
    return pattern((I + 4, J + 4, K), 1), pattern((I, J, K), 2), pattern((I, J, K), 3)


def np_hdiff(in_field, out_field, coeff):
    """After NPBench's hdiff_numpy.py."""
    out_field = out_field.copy()
    I, J, K = out_field.shape[0], out_field.shape[1], out_field.shape[2]
    lap_field = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :] +
        in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res = lap_field[1:, 1:J + 1, :] - lap_field[:-1, 1:J + 1, :]
    flx_field = np.where(
        (res * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :])) > 0, 0, res)
    res = lap_field[1:I + 1, 1:, :] - lap_field[1:I + 1, :-1, :]
    fly_field = np.where(
        (res * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :])) > 0, 0, res)
    out_field[:, :, :] = in_field[2:I + 2, 2:J + 2, :] - coeff[:, :, :] * (
        flx_field[1:, :, :] - flx_field[:-1, :, :] + fly_field[:, 1:, :] - fly_field[:, :-1, :])
    return (out_field,)


def jax_hdiff(in_field, out_field, coeff):
    """After NPBench's hdiff_jax.py."""
    I, J, K = out_field.shape[0], out_field.shape[1], out_field.shape[2]
    lap_field = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :] +
        in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res = lap_field[1:, 1:J + 1, :] - lap_field[:-1, 1:J + 1, :]
    flx_field = jnp.where(
        (res * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :])) > 0, 0, res)
    res = lap_field[1:I + 1, 1:, :] - lap_field[1:I + 1, :-1, :]
    fly_field = jnp.where(
        (res * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :])) > 0, 0, res)
    out_field = out_field.at[:, :, :].set(in_field[2:I + 2, 2:J + 2, :] - coeff[:, :, :] * (
        flx_field[1:, :, :] - flx_field[:-1, :, :] + fly_field[:, 1:, :] - fly_field[:, :-1, :]))
    return (out_field,)


def cavity_flow_inputs(ny=121, nx=121, nt=50, nit=10):
    u, v, p = np.zeros((ny, nx)), np.zeros((ny, nx)), np.zeros((ny, nx))
    dx, dy, dt = 2 / (nx - 1), 2 / (ny - 1), .1 / ((nx - 1) * (ny - 1))
    return nx, ny, nt, nit, u, v, dt, dx, dy, p, 1.0, 0.1


def np_build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = (rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) +
                                      (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
                            ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 - 2 *
                            ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                             (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                            ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))


def np_pressure_poisson(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    pn = p.copy()
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 +
                          (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) / (2 * (dx**2 + dy**2)) -
                         dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]  # dp/dx = 0 at x = 2
        p[0, :] = p[1, :]  # dp/dy = 0 at y = 0
        p[:, 0] = p[:, 1]  # dp/dx = 0 at x = 0
        p[-1, :] = 0  # p = 0 at y = 2


def np_cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    """After NPBench's cavity_flow_numpy.py (CFD Python, Barba and Forsyth, BSD-3)."""
    u, v, p = u.copy(), v.copy(), p.copy()
    un = np.empty_like(u)
    vn = np.empty_like(v)
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        np_build_up_b(b, rho, dt, u, v, dx, dy)
        np_pressure_poisson(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (un[1:-1, 1:-1] - un[1:-1, 0:-2]) - vn[1:-1, 1:-1] * dt / dy *
                         (un[1:-1, 1:-1] - un[0:-2, 1:-1]) - dt / (2 * rho * dx) *
                         (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu *
                         (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
                          dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) - vn[1:-1, 1:-1] * dt / dy *
                         (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) - dt / (2 * rho * dy) *
                         (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu *
                         (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
                          dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1  # set velocity on cavity lid equal to 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0
    return u, v, p


def jax_build_up_b(b, rho, dt, u, v, dx, dy):
    return b.at[1:-1, 1:-1].set(
        rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) +
                         (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
               ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 - 2 *
               ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
               ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))


def jax_pressure_poisson(nit, p, dx, dy, b):
    def body_func(p, _):
        pn = p.copy()
        p = p.at[1:-1, 1:-1].set(((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 +
                                  (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) /
                                 (2 * (dx**2 + dy**2)) - dx**2 * dy**2 /
                                 (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1])
        p = p.at[:, -1].set(p[:, -2])  # dp/dx = 0 at x = 2
        p = p.at[0, :].set(p[1, :])  # dp/dy = 0 at y = 0
        p = p.at[:, 0].set(p[:, 1])  # dp/dx = 0 at x = 0
        p = p.at[-1, :].set(0)  # p = 0 at y = 2
        return p, None
    p, _ = lax.scan(body_func, p, jnp.arange(nit))
    return p


def jax_cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    """After NPBench's cavity_flow_jax.py (its nested jits inlined: all runs under one jit)."""
    b = jnp.zeros((ny, nx))

    def body_func(array_vals, _):
        u, v, p, b = array_vals
        un = u.copy()
        vn = v.copy()
        b = jax_build_up_b(b, rho, dt, u, v, dx, dy)
        p = jax_pressure_poisson(nit, p, dx, dy, b)
        u = u.at[1:-1, 1:-1].set(
            un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2]) -
            vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1]) -
            dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu *
            (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
             dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v = v.at[1:-1, 1:-1].set(
            vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) -
            vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) -
            dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu *
            (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
             dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u = u.at[0, :].set(0)
        u = u.at[:, 0].set(0)
        u = u.at[:, -1].set(0)
        u = u.at[-1, :].set(1)  # set velocity on cavity lid equal to 1
        v = v.at[0, :].set(0)
        v = v.at[-1, :].set(0)
        v = v.at[:, 0].set(0)
        v = v.at[:, -1].set(0)
        return (u, v, p, b), None
    (u, v, p, b), _ = lax.scan(body_func, (u, v, p, b), jnp.arange(nt))
    return u, v, p


def channel_flow_inputs(ny=31, nx=31, nit=5):
    u, v, p = np.zeros((ny, nx)), np.zeros((ny, nx)), np.ones((ny, nx))
    dx, dy, dt = 2 / (nx - 1), 2 / (ny - 1), .1 / ((nx - 1) * (ny - 1))
    return nit, u, v, dt, dx, dy, p, 1.0, 0.1, 1.0


def np_channel_build_up_b(rho, dt, dx, dy, u, v):
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = (rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) +
                                      (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
                            ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 - 2 *
                            ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                             (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                            ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))
    # Periodic BC Pressure @ x = 2
    b[1:-1, -1] = (rho * (1 / dt * ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx) +
                                    (v[2:, -1] - v[0:-2, -1]) / (2 * dy)) -
                          ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx))**2 - 2 *
                          ((u[2:, -1] - u[0:-2, -1]) / (2 * dy) *
                           (v[1:-1, 0] - v[1:-1, -2]) / (2 * dx)) -
                          ((v[2:, -1] - v[0:-2, -1]) / (2 * dy))**2))
    # Periodic BC Pressure @ x = 0
    b[1:-1, 0] = (rho * (1 / dt * ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx) +
                                   (v[2:, 0] - v[0:-2, 0]) / (2 * dy)) -
                         ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx))**2 - 2 *
                         ((u[2:, 0] - u[0:-2, 0]) / (2 * dy) *
                          (v[1:-1, 1] - v[1:-1, -1]) / (2 * dx)) -
                         ((v[2:, 0] - v[0:-2, 0]) / (2 * dy))**2))
    return b


def np_pressure_poisson_periodic(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 +
                          (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) / (2 * (dx**2 + dy**2)) -
                         dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1])
        # Periodic BC Pressure @ x = 2
        p[1:-1, -1] = (((pn[1:-1, 0] + pn[1:-1, -2]) * dy**2 +
                        (pn[2:, -1] + pn[0:-2, -1]) * dx**2) / (2 * (dx**2 + dy**2)) -
                       dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, -1])
        # Periodic BC Pressure @ x = 0
        p[1:-1, 0] = (((pn[1:-1, 1] + pn[1:-1, -1]) * dy**2 +
                       (pn[2:, 0] + pn[0:-2, 0]) * dx**2) / (2 * (dx**2 + dy**2)) -
                      dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 0])
        # Wall boundary conditions, pressure
        p[-1, :] = p[-2, :]  # dp/dy = 0 at y = 2
        p[0, :] = p[1, :]  # dp/dy = 0 at y = 0


def np_channel_flow(nit, u, v, dt, dx, dy, p, rho, nu, F):
    """After NPBench's channel_flow_numpy.py (CFD Python, Barba and Forsyth, BSD-3); the step
    count and the fields it updates in place."""
    u, v, p = u.copy(), v.copy(), p.copy()
    udiff = 1
    stepcount = 0
    while udiff > .001:
        un = u.copy()
        vn = v.copy()
        b = np_channel_build_up_b(rho, dt, dx, dy, u, v)
        np_pressure_poisson_periodic(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (un[1:-1, 1:-1] - un[1:-1, 0:-2]) - vn[1:-1, 1:-1] * dt / dy *
                         (un[1:-1, 1:-1] - un[0:-2, 1:-1]) - dt / (2 * rho * dx) *
                         (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu *
                         (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
                          dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])) +
                         F * dt)
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx *
                         (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) - vn[1:-1, 1:-1] * dt / dy *
                         (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) - dt / (2 * rho * dy) *
                         (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu *
                         (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
                          dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        # Periodic BC u @ x = 2
        u[1:-1, -1] = (un[1:-1, -1] - un[1:-1, -1] * dt / dx * (un[1:-1, -1] - un[1:-1, -2]) -
                       vn[1:-1, -1] * dt / dy * (un[1:-1, -1] - un[0:-2, -1]) -
                       dt / (2 * rho * dx) * (p[1:-1, 0] - p[1:-1, -2]) + nu *
                       (dt / dx**2 * (un[1:-1, 0] - 2 * un[1:-1, -1] + un[1:-1, -2]) +
                        dt / dy**2 * (un[2:, -1] - 2 * un[1:-1, -1] + un[0:-2, -1])) + F * dt)
        # Periodic BC u @ x = 0
        u[1:-1, 0] = (un[1:-1, 0] - un[1:-1, 0] * dt / dx * (un[1:-1, 0] - un[1:-1, -1]) -
                      vn[1:-1, 0] * dt / dy * (un[1:-1, 0] - un[0:-2, 0]) -
                      dt / (2 * rho * dx) * (p[1:-1, 1] - p[1:-1, -1]) + nu *
                      (dt / dx**2 * (un[1:-1, 1] - 2 * un[1:-1, 0] + un[1:-1, -1]) +
                       dt / dy**2 * (un[2:, 0] - 2 * un[1:-1, 0] + un[0:-2, 0])) + F * dt)
        # Periodic BC v @ x = 2
        v[1:-1, -1] = (vn[1:-1, -1] - un[1:-1, -1] * dt / dx * (vn[1:-1, -1] - vn[1:-1, -2]) -
                       vn[1:-1, -1] * dt / dy * (vn[1:-1, -1] - vn[0:-2, -1]) -
                       dt / (2 * rho * dy) * (p[2:, -1] - p[0:-2, -1]) + nu *
                       (dt / dx**2 * (vn[1:-1, 0] - 2 * vn[1:-1, -1] + vn[1:-1, -2]) +
                        dt / dy**2 * (vn[2:, -1] - 2 * vn[1:-1, -1] + vn[0:-2, -1])))
        # Periodic BC v @ x = 0
        v[1:-1, 0] = (vn[1:-1, 0] - un[1:-1, 0] * dt / dx * (vn[1:-1, 0] - vn[1:-1, -1]) -
                      vn[1:-1, 0] * dt / dy * (vn[1:-1, 0] - vn[0:-2, 0]) -
                      dt / (2 * rho * dy) * (p[2:, 0] - p[0:-2, 0]) + nu *
                      (dt / dx**2 * (vn[1:-1, 1] - 2 * vn[1:-1, 0] + vn[1:-1, -1]) +
                       dt / dy**2 * (vn[2:, 0] - 2 * vn[1:-1, 0] + vn[0:-2, 0])))
        # Wall BC: u,v = 0 @ y = 0,2
        u[0, :] = 0
        u[-1, :] = 0
        v[0, :] = 0
        v[-1, :] = 0
        udiff = (np.sum(u) - np.sum(un)) / np.sum(u)
        stepcount += 1
    return stepcount, u, v, p


def jax_channel_build_up_b(rho, dt, dx, dy, u, v):
    b = jnp.zeros_like(u)
    b = b.at[1:-1, 1:-1].set(rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) +
                                              (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
                                    ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 - 2 *
                                    ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                                     (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                                    ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))
    # Periodic BC Pressure @ x = 2
    b = b.at[1:-1, -1].set(rho * (1 / dt * ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx) +
                                            (v[2:, -1] - v[0:-2, -1]) / (2 * dy)) -
                                  ((u[1:-1, 0] - u[1:-1, -2]) / (2 * dx))**2 - 2 *
                                  ((u[2:, -1] - u[0:-2, -1]) / (2 * dy) *
                                   (v[1:-1, 0] - v[1:-1, -2]) / (2 * dx)) -
                                  ((v[2:, -1] - v[0:-2, -1]) / (2 * dy))**2))
    # Periodic BC Pressure @ x = 0
    b = b.at[1:-1, 0].set(rho * (1 / dt * ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx) +
                                           (v[2:, 0] - v[0:-2, 0]) / (2 * dy)) -
                                 ((u[1:-1, 1] - u[1:-1, -1]) / (2 * dx))**2 - 2 *
                                 ((u[2:, 0] - u[0:-2, 0]) / (2 * dy) *
                                  (v[1:-1, 1] - v[1:-1, -1]) / (2 * dx)) -
                                 ((v[2:, 0] - v[0:-2, 0]) / (2 * dy))**2))
    return b


def jax_pressure_poisson_periodic(nit, p, dx, dy, b):
    """NPBench's drops the scan's result (p never changes); returned here, as NumPy's updates p."""
    def body_func(p, q):
        pn = p.copy()
        p = p.at[1:-1, 1:-1].set(((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 +
                                  (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) /
                                 (2 * (dx**2 + dy**2)) - dx**2 * dy**2 /
                                 (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1])
        # Periodic BC Pressure @ x = 2
        p = p.at[1:-1, -1].set(((pn[1:-1, 0] + pn[1:-1, -2]) * dy**2 +
                                (pn[2:, -1] + pn[0:-2, -1]) * dx**2) /
                               (2 * (dx**2 + dy**2)) - dx**2 * dy**2 /
                               (2 * (dx**2 + dy**2)) * b[1:-1, -1])
        # Periodic BC Pressure @ x = 0
        p = p.at[1:-1, 0].set(((pn[1:-1, 1] + pn[1:-1, -1]) * dy**2 +
                               (pn[2:, 0] + pn[0:-2, 0]) * dx**2) / (2 * (dx**2 + dy**2)) -
                              dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 0])
        # Wall boundary conditions, pressure
        p = p.at[-1, :].set(p[-2, :])  # dp/dy = 0 at y = 2
        p = p.at[0, :].set(p[1, :])  # dp/dy = 0 at y = 0
        return p, None
    p, _ = lax.scan(body_func, p, jnp.arange(nit))
    return p


def jax_channel_flow(nit, u, v, dt, dx, dy, p, rho, nu, F):
    """After NPBench's channel_flow_jax.py (nested jits inlined), returning the fields too."""
    udiff = 1
    stepcount = 0
    array_vals = (udiff, stepcount, u, v, p)

    def conf_func(array_vals):
        udiff, _, _, _, _ = array_vals
        return udiff > .001

    def body_func(array_vals):
        _, stepcount, u, v, p = array_vals
        un = u.copy()
        vn = v.copy()
        b = jax_channel_build_up_b(rho, dt, dx, dy, u, v)
        p = jax_pressure_poisson_periodic(nit, p, dx, dy, b)
        u = u.at[1:-1, 1:-1].set(
            un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2]) -
            vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1]) -
            dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2]) + nu *
            (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
             dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])) + F * dt)
        v = v.at[1:-1, 1:-1].set(
            vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) -
            vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) -
            dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1]) + nu *
            (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
             dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        # Periodic BC u @ x = 2
        u = u.at[1:-1, -1].set(
            un[1:-1, -1] - un[1:-1, -1] * dt / dx * (un[1:-1, -1] - un[1:-1, -2]) -
            vn[1:-1, -1] * dt / dy * (un[1:-1, -1] - un[0:-2, -1]) -
            dt / (2 * rho * dx) * (p[1:-1, 0] - p[1:-1, -2]) + nu *
            (dt / dx**2 * (un[1:-1, 0] - 2 * un[1:-1, -1] + un[1:-1, -2]) +
             dt / dy**2 * (un[2:, -1] - 2 * un[1:-1, -1] + un[0:-2, -1])) + F * dt)
        # Periodic BC u @ x = 0
        u = u.at[1:-1, 0].set(
            un[1:-1, 0] - un[1:-1, 0] * dt / dx * (un[1:-1, 0] - un[1:-1, -1]) -
            vn[1:-1, 0] * dt / dy * (un[1:-1, 0] - un[0:-2, 0]) -
            dt / (2 * rho * dx) * (p[1:-1, 1] - p[1:-1, -1]) + nu *
            (dt / dx**2 * (un[1:-1, 1] - 2 * un[1:-1, 0] + un[1:-1, -1]) +
             dt / dy**2 * (un[2:, 0] - 2 * un[1:-1, 0] + un[0:-2, 0])) + F * dt)
        # Periodic BC v @ x = 2
        v = v.at[1:-1, -1].set(
            vn[1:-1, -1] - un[1:-1, -1] * dt / dx * (vn[1:-1, -1] - vn[1:-1, -2]) -
            vn[1:-1, -1] * dt / dy * (vn[1:-1, -1] - vn[0:-2, -1]) -
            dt / (2 * rho * dy) * (p[2:, -1] - p[0:-2, -1]) + nu *
            (dt / dx**2 * (vn[1:-1, 0] - 2 * vn[1:-1, -1] + vn[1:-1, -2]) +
             dt / dy**2 * (vn[2:, -1] - 2 * vn[1:-1, -1] + vn[0:-2, -1])))
        # Periodic BC v @ x = 0
        v = v.at[1:-1, 0].set(
            vn[1:-1, 0] - un[1:-1, 0] * dt / dx * (vn[1:-1, 0] - vn[1:-1, -1]) -
            vn[1:-1, 0] * dt / dy * (vn[1:-1, 0] - vn[0:-2, 0]) -
            dt / (2 * rho * dy) * (p[2:, 0] - p[0:-2, 0]) + nu *
            (dt / dx**2 * (vn[1:-1, 1] - 2 * vn[1:-1, 0] + vn[1:-1, -1]) +
             dt / dy**2 * (vn[2:, 0] - 2 * vn[1:-1, 0] + vn[0:-2, 0])))
        # Wall BC: u,v = 0 @ y = 0,2
        u = u.at[0, :].set(0)
        u = u.at[-1, :].set(0)
        v = v.at[0, :].set(0)
        v = v.at[-1, :].set(0)
        udiff = (jnp.sum(u) - jnp.sum(un)) / jnp.sum(u)
        stepcount += 1
        return (udiff, stepcount, u, v, p)

    _, stepcount, u, v, p = lax.while_loop(conf_func, body_func, array_vals)
    return stepcount, u, v, p


# name: size as kernels_bench prints it, inputs, NumPy, JAX, JAX's static arguments.
KERNELS = {
    "jacobi_1d": dict(size="N=4000 TSTEPS=1000", inputs=jacobi_1d_inputs, numpy=np_jacobi_1d,
                      jax=jax_jacobi_1d, static=(2,)),
    "jacobi_2d": dict(size="N=600 TSTEPS=100", inputs=jacobi_2d_inputs, numpy=np_jacobi_2d,
                      jax=jax_jacobi_2d, static=(2,)),
    "heat_3d": dict(size="N=60 TSTEPS=100", inputs=heat_3d_inputs, numpy=np_heat_3d,
                    jax=jax_heat_3d, static=(2,)),
    "fdtd_2d": dict(size="NX=500 NY=600 TMAX=100", inputs=fdtd_2d_inputs, numpy=np_fdtd_2d,
                    jax=jax_fdtd_2d, static=(4,)),
    "seidel_2d": dict(size="N=100 TSTEPS=15", inputs=seidel_2d_inputs, numpy=np_seidel_2d,
                      jax=jax_seidel_2d, static=(0, 1)),
    "adi": dict(size="N=200 TSTEPS=20", inputs=adi_inputs, numpy=np_adi, jax=jax_adi,
                static=(0, 1)),
    "vadv": dict(size="I=112 J=112 K=80", inputs=vadv_inputs, numpy=np_vadv, jax=jax_vadv,
                 static=()),
    "hdiff": dict(size="I=128 J=128 K=160", inputs=hdiff_inputs, numpy=np_hdiff, jax=jax_hdiff,
                  static=()),
    "cavity_flow": dict(size="NY=121 NX=121 NT=50 NIT=10", inputs=cavity_flow_inputs,
                        numpy=np_cavity_flow, jax=jax_cavity_flow, static=(0, 1, 2, 3, 10, 11)),
    "channel_flow": dict(size="NY=31 NX=31 NIT=5", inputs=channel_flow_inputs,
                         numpy=np_channel_flow, jax=jax_channel_flow, static=(0, 7, 8, 9)),
}
