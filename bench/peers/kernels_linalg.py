"""Factorizations, solves and BLAS-like loops of the kernels group (kernels.py): NumPy as NPBench
writes them, JAX as NPBench's JAX versions, inputs by bench/kernels/linalg.cpp's formulas.
After NPBench's npbench/benchmarks/polybench/*/*_numpy.py and *_jax.py (BSD-3-Clause)."""
import numpy as np

try:
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # kernels.py runs NumPy alone then
    jnp = lax = None


def spd_matrix(n):
    """PolyBench's cholesky/lu/ludcmp matrix: L @ L.T with L lower triangular, ones on its
    diagonal and (-j % n) / n + 1 below it, so positive definite (linalg.cpp's spd_matrix)."""
    i, j = np.arange(n)[:, None], np.arange(n, dtype=np.float64)
    low = np.where(j < i, ((n - j) % n) / n + 1.0, 0.0) + np.eye(n)
    return low @ low.T


def np_cholesky(A):
    A = A.copy()
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return A


def jax_cholesky(A):
    A = A.at[0, 0].set(jnp.sqrt(A[0, 0]))

    def row_update(i, A):
        def col_update(j, A):
            mask = jnp.arange(A.shape[1]) < j
            A_i_slice = jnp.where(mask, A[i, :], 0)
            A_j_slice = jnp.where(mask, A[j, :], 0)
            dot_product = jnp.dot(A_i_slice, A_j_slice)
            return A.at[i, j].set((A[i, j] - dot_product) / A[j, j])

        A = lax.fori_loop(0, i, col_update, A)
        A_i_slice = jnp.where(jnp.arange(A.shape[1]) < i, A[i, :], 0)
        dot_product = jnp.dot(A_i_slice, A_i_slice)
        return A.at[i, i].set(jnp.sqrt(A[i, i] - dot_product))

    return lax.fori_loop(1, A.shape[0], row_update, A)


def np_lu(A):
    A = A.copy()
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return A


def jax_lu_rows(A, i):
    """Row i of NPBench's JAX lu (shared with ludcmp): L's part, then U's."""
    def inner_loop_1(j, A):
        mask = jnp.arange(A.shape[0]) < j
        A_slice_1 = jnp.where(mask, A[i, :], 0.0)
        A_slice_2 = jnp.where(mask, A[:, j], 0.0)
        return A.at[i, j].set((A[i, j] - A_slice_1 @ A_slice_2) / A[j, j])

    def inner_loop_2(j, A):
        mask = jnp.arange(A.shape[0]) < i
        A_slice_1 = jnp.where(mask, A[i, :], 0.0)
        A_slice_2 = jnp.where(mask, A[:, j], 0.0)
        return A.at[i, j].set(A[i, j] - A_slice_1 @ A_slice_2)

    A = lax.fori_loop(0, i, inner_loop_1, A)
    return lax.fori_loop(i, A.shape[0], inner_loop_2, A)


def jax_lu(A):
    return lax.fori_loop(0, A.shape[0], lambda i, A: jax_lu_rows(A, i), A)


def ludcmp_inputs(n):
    return spd_matrix(n), (np.arange(n, dtype=np.float64) + 1.0) / n / 2.0 + 4.0


def np_ludcmp(A, b):
    A = A.copy()
    x = np.zeros_like(b)
    y = np.zeros_like(b)
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]
    for i in range(A.shape[0]):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(A.shape[0] - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x, y


def jax_ludcmp(A, b):
    x = jnp.zeros_like(b)
    y = jnp.zeros_like(b)

    def loop_body_2(i, loop_vars):
        A, y, b = loop_vars
        A_slice = jnp.where(jnp.arange(A.shape[1]) < i, A[i, :], 0.0)
        y_slice = jnp.where(jnp.arange(y.shape[0]) < i, y, 0.0)
        y = y.at[i].set(b[i] - A_slice @ y_slice)
        return A, y, b

    def loop_body_3(t, loop_vars):
        A, x, y = loop_vars
        i = A.shape[0] - 1 - t
        A_slice = jnp.where(jnp.arange(A.shape[1]) > i, A[i, :], 0.0)
        x_slice = jnp.where(jnp.arange(x.shape[0]) > i, x, 0.0)
        x = x.at[i].set((y[i] - A_slice @ x_slice) / A[i, i])
        return A, x, y

    A = lax.fori_loop(0, A.shape[0], lambda i, A: jax_lu_rows(A, i), A)
    A, y, b = lax.fori_loop(0, A.shape[0], loop_body_2, (A, y, b))
    A, x, y = lax.fori_loop(0, A.shape[0], loop_body_3, (A, x, y))
    return x, y


def trisolv_inputs(n):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    return (i + n - j + 1) * 2 / n, np.full(n, -999.0), np.arange(n, dtype=np.float64)


def np_trisolv(L, x, b):
    x = x.copy()
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def jax_trisolv(L, x, b):
    def loop_body(i, loop_vars):
        L, x, b = loop_vars
        mask = jnp.arange(x.shape[0]) < i
        products = jnp.where(mask, L[i, :] * x, 0.0)
        dot_product = jnp.sum(products)
        x = x.at[i].set((b[i] - dot_product) / L[i, i])
        return L, x, b

    _, x, _ = lax.fori_loop(0, x.shape[0], loop_body, (L, x, b))
    return x


def durbin_input(n):
    return n + 1.0 - np.arange(n, dtype=np.float64)


def np_durbin(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def jax_durbin(r):
    y = jnp.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y = y.at[0].set(-r[0])

    def loop_body(k, loop_vars):
        alpha, beta, y, r = loop_vars
        beta *= 1.0 - alpha * alpha
        mask = jnp.arange(r.shape[0]) < k
        products = jnp.where(mask, y * jnp.roll(jnp.flip(r), [k], 0), 0.0)
        dot_prod = jnp.sum(products)
        alpha = -(r[k] + dot_prod) / beta
        y_update_slice = jnp.where(mask, jnp.roll(jnp.flip(y), [k], 0) * alpha, 0.0)
        y += y_update_slice
        y = y.at[k].set(alpha)
        return alpha, beta, y, r

    _, _, y, _ = lax.fori_loop(1, r.shape[0], loop_body, (alpha, beta, y, r))
    return y


def compare_durbin(mine, numpy_result):
    """PolyBench's r = n + 1 - i is no positive definite Toeplitz row (beta turns negative), so
    the recursion amplifies rounding: NumPy's float64 y is 8e-9 of max|y| from an 80-bit run's,
    and rounding 1 - alpha**2 once (an FMA) instead of twice moves it 1.2e-7. Elements near 0
    get large relative errors, so the tolerance is rtol 1e-5 plus 1e-6 of max|y|."""
    y, y_np = mine[0], np.asarray(numpy_result[0])
    if y.shape != y_np.shape:
        return f"output 0: shape {y.shape}, NumPy's {y_np.shape}"
    worst = np.max(np.abs(y - y_np)) / np.max(np.abs(y_np))
    if not np.allclose(y, y_np, rtol=1e-5, atol=1e-6 * np.max(np.abs(y_np))):
        return f"output 0: error up to {worst:.3g} of max|y|"
    return None


def gramschmidt_inputs(m, n):
    """PolyBench's A[i, j] = (i * j % m) / m * 100 + 10 is singular; 100 on the diagonal makes
    it full rank (NPBench draws random matrices instead)."""
    i, j = np.arange(m, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    return ((i * j) % m / m * 100.0 + 10.0 + np.where(i == j, 100.0, 0.0),)


def np_gramschmidt(A):
    A = A.copy()
    Q = np.zeros_like(A)
    R = np.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def jax_gramschmidt(A):
    Q = jnp.zeros_like(A)
    R = jnp.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)

    def body_fun(k, arrays):
        Q, R, A = arrays
        nrm = jnp.dot(A[:, k], A[:, k])
        R = R.at[k, k].set(jnp.sqrt(nrm))
        Q = Q.at[:, k].set(A[:, k] / R[k, k])

        def inner_body_fun(j, arrays):
            Q, R, A = arrays
            R = R.at[k, j].set(jnp.dot(Q[:, k], A[:, j]))
            A = A.at[:, j].add(-Q[:, k] * R[k, j])
            return Q, R, A

        return lax.fori_loop(k + 1, A.shape[1], inner_body_fun, (Q, R, A))

    Q, R, A = lax.fori_loop(0, A.shape[1], body_fun, (Q, R, A))
    return Q, R


def syrk_inputs(m, n):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    k = np.arange(m, dtype=np.float64)
    return 1.5, 1.2, ((i * j + 2) % n) / m, ((i * k + 1) % n) / n


def np_syrk(alpha, beta, C, A):
    C = C.copy()
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return C


def jax_syrk(alpha, beta, C, A):
    def loop_body(i, loop_vars):
        def inner_loop(k, loop_vars):
            alpha, C, A = loop_vars
            A_update_slice = jnp.where(jnp.arange(A.shape[0]) < i + 1, A[:, k], 0.0)
            A_update_slice *= alpha * A[i, k]
            C_update_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C[i, :], 0.0)
            C_update_slice += A_update_slice
            C_update_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C_update_slice, C[i, :])
            C = lax.dynamic_update_slice(C, C_update_slice[None, :], (i, 0))
            return alpha, C, A

        alpha, beta, C, A = loop_vars
        C_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C[i, :], 0.0)
        C_slice = C_slice * beta
        C_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C_slice, C[i, :])
        C = lax.dynamic_update_slice(C, C_slice[None, :], (i, 0))
        _, C, _ = lax.fori_loop(0, A.shape[1], inner_loop, (alpha, C, A))
        return alpha, beta, C, A

    _, _, C, _ = lax.fori_loop(0, A.shape[0], loop_body, (alpha, beta, C, A))
    return C


def syr2k_inputs(m, n):
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    k = np.arange(m, dtype=np.float64)
    return 1.5, 1.2, ((i * j + 3) % n) / m, ((i * k + 1) % n) / n, ((i * k + 2) % m) / m


def np_syr2k(alpha, beta, C, A, B):
    C = C.copy()
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += (A[:i + 1, k] * alpha * B[i, k] + B[:i + 1, k] * alpha * A[i, k])
    return C


def jax_syr2k(alpha, beta, C, A, B):
    def loop_body(i, loop_vars):
        def inner_loop(k, loop_vars):
            alpha, C, A, B = loop_vars
            A_update_slice = jnp.where(jnp.arange(A.shape[0]) < i + 1, A[:, k], 0.0)
            A_update_slice *= alpha * B[i, k]
            B_update_slice = jnp.where(jnp.arange(B.shape[0]) < i + 1, B[:, k], 0.0)
            B_update_slice *= alpha * A[i, k]
            C_update_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C[i, :], 0.0)
            C_update_slice += A_update_slice + B_update_slice
            C_update_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C_update_slice, C[i, :])
            C = lax.dynamic_update_slice(C, C_update_slice[None, :], (i, 0))
            return alpha, C, A, B

        alpha, beta, C, A, B = loop_vars
        C_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C[i, :], 0.0)
        C_slice = C_slice * beta
        C_slice = jnp.where(jnp.arange(C.shape[1]) < i + 1, C_slice, C[i, :])
        C = lax.dynamic_update_slice(C, C_slice[None, :], (i, 0))
        _, C, _, _ = lax.fori_loop(0, A.shape[1], inner_loop, (alpha, C, A, B))
        return alpha, beta, C, A, B

    _, _, C, _, _ = lax.fori_loop(0, A.shape[0], loop_body, (alpha, beta, C, A, B))
    return C


def symm_inputs(m, n):
    i, j = np.arange(m, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    k = np.arange(m, dtype=np.float64)
    A = np.where(k <= i, ((i + k) % 100) / m, -999.0)
    return 1.5, 1.2, ((i + j) % 100) / m, A, ((n + i - j) % 100) / m


def np_symm(alpha, beta, C, A, B):
    C = C.copy()
    temp2 = np.empty((C.shape[1], ), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2
    return C


def jax_symm(alpha, beta, C, A, B):
    temp2 = jnp.empty((C.shape[1], ), dtype=C.dtype)
    C *= beta

    def row_update(i, arrays):
        C, temp2 = arrays

        def col_update(j, val):
            C, temp2 = val
            A_slice = jnp.where(jnp.arange(A.shape[1]) < i, A[i, :], 0.0)
            B_slice = jnp.where(jnp.arange(B.shape[0]) < i, B[:, j], 0.0)
            C = lax.dynamic_update_slice(C, (C[:, j] + (alpha * B[i, j] * A_slice))[:, None],
                                         (0, j))
            temp2 = temp2.at[j].set(B_slice @ A_slice)
            return C, temp2

        C, temp2 = lax.fori_loop(0, C.shape[1], col_update, (C, temp2))
        C = C.at[i, :].add(alpha * B[i, :] * A[i, i] + alpha * temp2)
        return C, temp2

    C, _ = lax.fori_loop(0, C.shape[0], row_update, (C, temp2))
    return C


def trmm_inputs(m, n):
    i, j = np.arange(m, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)
    k = np.arange(m, dtype=np.float64)
    A = np.where(i == k, 1.0, ((i * k) % m) / m)
    return 1.5, A, ((n + i - j) % n) / n


def np_trmm(alpha, A, B):
    B = B.copy()
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha
    return B


def jax_trmm(alpha, A, B):
    """NPBench's JAX trmm is one matmul (A is symmetric, so triu(A, 1) is the loop's tril's
    transpose)."""
    L = jnp.triu(A, 1)
    B += L @ B
    B *= alpha
    return B


# name: size as kernels_bench prints it, inputs, NumPy, JAX, JAX's static arguments and, where
# rtol 1e-5 is not the check, a compare(mine, numpy_result) returning None or what differs.
KERNELS = {
    "cholesky": dict(size="N=300", inputs=lambda: (spd_matrix(300),), numpy=np_cholesky,
                     jax=jax_cholesky, static=()),
    "lu": dict(size="N=220", inputs=lambda: (spd_matrix(220),), numpy=np_lu, jax=jax_lu,
               static=()),
    "ludcmp": dict(size="N=220", inputs=lambda: ludcmp_inputs(220), numpy=np_ludcmp,
                   jax=jax_ludcmp, static=()),
    "trisolv": dict(size="N=5000", inputs=lambda: trisolv_inputs(5000), numpy=np_trisolv,
                    jax=jax_trisolv, static=()),
    "durbin": dict(size="N=6000", inputs=lambda: (durbin_input(6000),), numpy=np_durbin,
                   jax=jax_durbin, static=(), compare=compare_durbin),
    "gramschmidt": dict(size="M=220 N=180", inputs=lambda: gramschmidt_inputs(220, 180),
                        numpy=np_gramschmidt, jax=jax_gramschmidt, static=()),
    "syrk": dict(size="M=150 N=200", inputs=lambda: syrk_inputs(150, 200), numpy=np_syrk,
                 jax=jax_syrk, static=()),
    "syr2k": dict(size="M=110 N=140", inputs=lambda: syr2k_inputs(110, 140), numpy=np_syr2k,
                  jax=jax_syr2k, static=()),
    "symm": dict(size="M=120 N=150", inputs=lambda: symm_inputs(120, 150), numpy=np_symm,
                 jax=jax_symm, static=()),
    "trmm": dict(size="M=200 N=250", inputs=lambda: trmm_inputs(200, 250), numpy=np_trmm,
                 jax=jax_trmm, static=()),
}
