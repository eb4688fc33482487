"""Time-stepped stencils of the kernels group (kernels.py): NumPy as NPBench writes them, JAX as
NPBench's JAX versions (lax.fori_loop under jit), inputs by bench/kernels/stencils.cpp's formulas."""
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
}
