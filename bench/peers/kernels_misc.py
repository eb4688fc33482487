"""The kernels group's others (kernels.py): NumPy as NPBench writes them, JAX as NPBench's JAX
versions, inputs by bench/kernels/misc.cpp's formulas."""
import numpy as np

try:
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # kernels.py runs NumPy alone then
    jnp = lax = None


def lcg_bytes(n):
    """A linear congruential generator's bits 16-23 (misc.cpp's lcg_bytes)."""
    out, x = np.empty(n, dtype=np.int32), 1
    for k in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        out[k] = (x >> 16) & 255
    return out


def np_crc16(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & int(b)
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = (~crc & 0xFFFF)
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return (np.int32(crc & 0xFFFF),)


def jax_crc16(data, poly=0x8408):
    def bit(_, v):
        crc, cur = v
        flip = ((crc & 1) ^ (cur & 1)) != 0
        return jnp.where(flip, (crc >> 1) ^ poly, crc >> 1), cur >> 1

    def byte(i, crc):
        return lax.fori_loop(0, 8, bit, (crc, data[i] & 0xFF))[0]
    crc = lax.fori_loop(0, data.shape[0], byte, jnp.int32(0xFFFF))
    crc = ~crc & 0xFFFF
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return (crc & 0xFFFF,)


def np_mandelbrot(xn, yn, maxiter, horizon=2.0):
    X = np.linspace(-2.25, 0.75, xn, dtype=np.float64)
    Y = np.linspace(-1.25, 1.25, yn, dtype=np.float64)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        I = np.less(abs(Z), horizon)
        N[I] = n
        Z[I] = Z[I]**2 + C[I]
    N[N == maxiter - 1] = 0
    return Z, N


def jax_mandelbrot(xn, yn, maxiter, horizon=2.0):
    X = jnp.linspace(-2.25, 0.75, xn, dtype=jnp.float64)
    Y = jnp.linspace(-1.25, 1.25, yn, dtype=jnp.float64)
    C = X + Y[:, None] * 1j
    N = jnp.zeros(C.shape, dtype=jnp.int64)
    Z = jnp.zeros(C.shape, dtype=jnp.complex128)

    def body(n, v):
        Z, N = v
        inside = jnp.less(jnp.abs(Z), horizon)
        return jnp.where(inside, Z**2 + C, Z), jnp.where(inside, n, N)
    Z, N = lax.fori_loop(0, maxiter, body, (Z, N))
    return Z, jnp.where(N == maxiter - 1, 0, N)


def compare_mandelbrot(mine, numpy_result):
    """Escape counts may differ where |z| lands within rounding of 2 (a different last bit of z on
    the edge of the set): up to 0.1% of the points, their z left out of the comparison."""
    differ = mine[1] != np.asarray(numpy_result[1])
    if differ.mean() > 1e-3:
        return f"escape counts differ at {differ.mean():.2%} of the points"
    z, z_np = mine[0][~differ], np.asarray(numpy_result[0])[~differ]
    if not np.allclose(z, z_np, rtol=1e-5, atol=0):
        return "output 0: z differs where the counts agree"
    return None


def go_fast_inputs(n=2000):
    return ((np.arange(float(n) * n).reshape(n, n) % 7.0) * 0.25 - 0.5,)


def np_go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return (a + trace,)


def jax_go_fast(a):
    trace = lax.fori_loop(0, a.shape[0], lambda i, t: t + jnp.tanh(a[i, i]), 0.0)
    return (a + trace,)


def arc_distance_inputs(n=1000000):
    k = np.arange(float(n))
    return (np.sin(k * 0.001), np.cos(k * 0.002), np.sin(k * 0.003 + 1.0), np.cos(k * 0.004 + 2.0))


def np_arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2)**2 + np.cos(theta_1) * np.cos(theta_2) * np.sin(
        (phi_2 - phi_1) / 2)**2
    return (2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))),)


def jax_arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = jnp.sin((theta_2 - theta_1) / 2)**2 + jnp.cos(theta_1) * jnp.cos(theta_2) * jnp.sin(
        (phi_2 - phi_1) / 2)**2
    return (2 * (jnp.arctan2(jnp.sqrt(temp), jnp.sqrt(1 - temp))),)


def deriche_inputs(w=1500, h=1000):
    img = np.fromfunction(lambda i, j: ((313 * i + 991 * j) % 65536) / 65535.0, (w, h),
                          dtype=np.float64)
    return 0.25, img


def deriche_coefficients(alpha, xp):
    """The filter's coefficients as both NPBench versions compute them (xp: np or jnp)."""
    k = (1.0 - xp.exp(-alpha)) * (1.0 - xp.exp(-alpha)) / (
        1.0 + alpha * xp.exp(-alpha) - xp.exp(2.0 * alpha))
    a1 = k
    a2 = k * xp.exp(-alpha) * (alpha - 1.0)
    a3 = k * xp.exp(-alpha) * (alpha + 1.0)
    a4 = -k * xp.exp(-2.0 * alpha)
    b1 = 2.0**(-alpha)
    b2 = -xp.exp(-2.0 * alpha)
    return a1, a2, a3, a4, b1, b2


def np_deriche(alpha, imgIn):
    """After NPBench's deriche_numpy.py."""
    a1, a2, a3, a4, b1, b2 = deriche_coefficients(alpha, np)
    a5, a6, a7, a8 = a1, a2, a3, a4
    c1 = c2 = 1

    y1 = np.empty_like(imgIn)
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, imgIn.shape[1]):
        y1[:, j] = (a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] +
                    b1 * y1[:, j - 1] + b2 * y1[:, j - 2])

    y2 = np.empty_like(imgIn)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * imgIn[:, -1]
    for j in range(imgIn.shape[1] - 3, -1, -1):
        y2[:, j] = (a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] +
                    b1 * y2[:, j + 1] + b2 * y2[:, j + 2])

    imgOut = c1 * (y1 + y2)

    y1[0, :] = a5 * imgOut[0, :]
    y1[1, :] = a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :]
    for i in range(2, imgIn.shape[0]):
        y1[i, :] = (a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] +
                    b1 * y1[i - 1, :] + b2 * y1[i - 2, :])

    y2[-1, :] = 0.0
    y2[-2, :] = a7 * imgOut[-1, :]
    for i in range(imgIn.shape[0] - 3, -1, -1):
        y2[i, :] = (a7 * imgOut[i + 1, :] + a8 * imgOut[i + 2, :] +
                    b1 * y2[i + 1, :] + b2 * y2[i + 2, :])

    imgOut[:] = c2 * (y1 + y2)
    return (imgOut,)


def jax_deriche(alpha, imgIn):
    """After NPBench's deriche_jax.py."""
    a1, a2, a3, a4, b1, b2 = deriche_coefficients(alpha, jnp)
    a5, a6, a7, a8 = a1, a2, a3, a4
    c1 = c2 = 1

    y1 = jnp.empty_like(imgIn)
    y1 = y1.at[:, 0].set(a1 * imgIn[:, 0])
    y1 = y1.at[:, 1].set(a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0])

    def horizontal_forward(j, y1):
        return y1.at[:, j].set(a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] +
                               b1 * y1[:, j - 1] + b2 * y1[:, j - 2])
    y1 = lax.fori_loop(2, imgIn.shape[1], horizontal_forward, y1)

    y2 = jnp.empty_like(imgIn)
    y2 = y2.at[:, -1].set(0.0)
    y2 = y2.at[:, -2].set(a3 * imgIn[:, -1])

    def horizontal_backward(j, y2):
        idx = imgIn.shape[1] - 3 - j
        return y2.at[:, idx].set(a3 * imgIn[:, idx + 1] + a4 * imgIn[:, idx + 2] +
                                 b1 * y2[:, idx + 1] + b2 * y2[:, idx + 2])
    y2 = lax.fori_loop(0, imgIn.shape[1] - 2, horizontal_backward, y2)

    imgOut = c1 * (y1 + y2)

    y1 = jnp.empty_like(imgOut)
    y1 = y1.at[0, :].set(a5 * imgOut[0, :])
    y1 = y1.at[1, :].set(a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :])

    def vertical_forward(i, y1):
        return y1.at[i, :].set(a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] +
                               b1 * y1[i - 1, :] + b2 * y1[i - 2, :])
    y1 = lax.fori_loop(2, imgIn.shape[0], vertical_forward, y1)

    y2 = jnp.empty_like(imgOut)
    y2 = y2.at[-1, :].set(0.0)
    y2 = y2.at[-2, :].set(a7 * imgOut[-1, :])

    def vertical_backward(i, y2):
        idx = imgIn.shape[0] - 3 - i
        return y2.at[idx, :].set(a7 * imgOut[idx + 1, :] + a8 * imgOut[idx + 2, :] +
                                 b1 * y2[idx + 1, :] + b2 * y2[idx + 2, :])
    y2 = lax.fori_loop(0, imgIn.shape[0] - 2, vertical_backward, y2)

    return (c2 * (y1 + y2),)


def floyd_warshall_inputs(n=400):
    """NPBench's initialize: i * j % 7 + 1, and 999 where (i + j) % 13, 7 or 11 is 0."""
    i, j = np.arange(n)[:, None], np.arange(n)
    path = (i * j % 7 + 1).astype(np.int32)
    path[((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)] = 999
    return (path,)


def np_floyd_warshall(path):
    """After NPBench's floyd_warshall_numpy.py."""
    path = path.copy()
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))
    return (path,)


def jax_floyd_warshall(path):
    """After NPBench's floyd_warshall_jax.py."""
    def loop_func(k, path):
        return path.at[:].set(jnp.minimum(path[:], jnp.add.outer(path[:, k], path[k, :])))
    return (lax.fori_loop(0, path.shape[0], loop_func, path),)


def nussinov_match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


def np_nussinov(N, seq):
    """After NPBench's nussinov_numpy.py."""
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j],
                                      table[i + 1, j - 1] + nussinov_match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return (table,)


def jax_nussinov(N, seq):
    """After NPBench's nussinov_jax.py."""
    def match(b1, b2):
        return jnp.where(b1 + b2 == 3, 1, 0)

    def func_i(i, table):
        i = N - 1 - i

        def func_j(j, table):
            table = table.at[i, j].set(jnp.where(
                j - 1 >= 0, jnp.maximum(table[i, j], table[i, j - 1]), table[i, j]))
            table = table.at[i, j].set(jnp.where(
                i + 1 < N, jnp.maximum(table[i, j], table[i + 1, j]), table[i, j]))
            table = table.at[i, j].set(jnp.where(
                (j - 1 >= 0) & (i + 1 < N) & (i < j - 1),
                jnp.maximum(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j])),
                table[i, j]))
            table = table.at[i, j].set(jnp.where(
                (j - 1 >= 0) & (i + 1 < N) & (i >= j - 1),
                jnp.maximum(table[i, j], table[i + 1, j - 1]), table[i, j]))

            def func_k(k, table):
                return table.at[i, j].set(jnp.maximum(table[i, j], table[i, k] + table[k + 1, j]))
            return lax.fori_loop(i + 1, j, func_k, table)
        return lax.fori_loop(i + 1, N, func_j, table)
    return (lax.fori_loop(0, N, func_i, jnp.zeros((N, N), jnp.int32)),)


def nbody_inputs(n=50, nt=60):
    """Positions and velocities by golden-ratio-like sequences in [0, 1) (misc.cpp's); 60 steps
    of NPBench's M preset, before its close encounters amplify rounding past rtol 1e-5."""
    mass = 20.0 * np.ones((n, 1)) / n
    k = np.arange(3.0 * n).reshape(n, 3) + 1.0
    return mass, (k * 0.6180339887498949) % 1.0, (k * 0.7548776662466927) % 1.0, nt, 0.02, 1.0, \
        0.1


def np_nbody_acc(pos, mass, G, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2)
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0]**(-1.5)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    return np.hstack((ax, ay, az))


def np_nbody_energy(pos, vel, mass, G):
    KE = 0.5 * np.sum(mass * vel**2)
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r = np.sqrt(dx**2 + dy**2 + dz**2)
    inv_r[inv_r > 0] = 1.0 / inv_r[inv_r > 0]
    PE = G * np.sum(np.triu(-(mass * mass.T) * inv_r, 1))
    return KE, PE


def np_nbody(mass, pos, vel, Nt, dt, G, softening):
    """After NPBench's nbody_numpy.py (its time t, never read, left out)."""
    pos, vel = pos.copy(), vel.copy()
    vel -= np.mean(mass * vel, axis=0) / np.mean(mass)
    acc = np_nbody_acc(pos, mass, G, softening)
    KE = np.ndarray(Nt + 1, dtype=np.float64)
    PE = np.ndarray(Nt + 1, dtype=np.float64)
    KE[0], PE[0] = np_nbody_energy(pos, vel, mass, G)
    for i in range(Nt):
        vel += acc * dt / 2.0
        pos += vel * dt
        acc = np_nbody_acc(pos, mass, G, softening)
        vel += acc * dt / 2.0
        KE[i + 1], PE[i + 1] = np_nbody_energy(pos, vel, mass, G)
    return KE, PE


def jax_nbody_acc(pos, mass, G, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2)
    inv_r3 = jnp.where(inv_r3 > 0, inv_r3**(-1.5), inv_r3)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    return jnp.hstack((ax, ay, az))


def jax_nbody_energy(pos, vel, mass, G):
    KE = 0.5 * jnp.sum(mass * vel**2)
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r = jnp.sqrt(dx**2 + dy**2 + dz**2)
    inv_r = jnp.where(inv_r > 0, 1.0 / inv_r, inv_r)
    PE = G * jnp.sum(jnp.triu(-(mass * mass.T) * inv_r, 1))
    return KE, PE


def jax_nbody(mass, pos, vel, Nt, dt, G, softening):
    """After NPBench's nbody_jax.py (its time t, never read, left out)."""
    vel -= jnp.mean(mass * vel, axis=0) / jnp.mean(mass)
    acc = jax_nbody_acc(pos, mass, G, softening)
    KE = jnp.empty(Nt + 1, dtype=jnp.float64)
    PE = jnp.empty(Nt + 1, dtype=jnp.float64)
    ke, pe = jax_nbody_energy(pos, vel, mass, G)
    KE = KE.at[0].set(ke)
    PE = PE.at[0].set(pe)

    def loop_body(i, loop_vars):
        pos, vel, acc, KE, PE = loop_vars
        vel += acc * dt / 2.0
        pos += vel * dt
        acc = jax_nbody_acc(pos, mass, G, softening)
        vel += acc * dt / 2.0
        ke, pe = jax_nbody_energy(pos, vel, mass, G)
        KE = KE.at[i + 1].set(ke)
        PE = PE.at[i + 1].set(pe)
        return pos, vel, acc, KE, PE
    pos, vel, acc, KE, PE = lax.fori_loop(0, Nt, loop_body, (pos, vel, acc, KE, PE))
    return KE, PE


def azimint_hist_inputs(n=4000000, npt=1000):
    k = np.arange(float(n))
    return (k * 0.6180339887498949) % 1.0, (k * 0.7548776662466927) % 1.0, npt


def np_azimint_hist(data, radius, npt):
    """After NPBench's azimint_hist_numpy.py."""
    histu = np.histogram(radius, npt)[0]
    histw = np.histogram(radius, npt, weights=data)[0]
    return (histw / histu,)


def jax_azimint_hist(data, radius, npt):
    """After NPBench's azimint_hist_jax.py."""
    histu = jnp.histogram(radius, npt)[0]
    histw = jnp.histogram(radius, npt, weights=data)[0]
    return (histw / histu,)


def spmv_inputs(m=4096, n=4096):
    """Row i holds 1 + i % 3 entries, at columns (37 i + 1031 k) % n, valued
    ((i + 3 k) % 11 + 1) / 11 (misc.cpp's)."""
    counts = 1 + np.arange(m) % 3
    A_row = np.concatenate(([0], np.cumsum(counts))).astype(np.uint32)
    i = np.repeat(np.arange(m), counts)
    k = np.arange(A_row[-1]) - A_row[:-1][i].astype(np.int64)
    A_col = ((37 * i + 1031 * k) % n).astype(np.uint32)
    A_val = ((i + 3 * k) % 11 + 1) / 11.0
    return A_row, A_col, A_val, (np.arange(n) % 17 + 1) / 17.0


def np_spmv(A_row, A_col, A_val, x):
    """After NPBench's spmv_numpy.py."""
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return (y,)


def jax_spmv(A_row, A_col, A_val, x):
    """After NPBench's spmv_jax.py."""
    y = jnp.empty(A_row.size - 1, dtype=A_val.dtype)

    def row_update(i, y):
        mask = (jnp.arange(A_col.size) >= A_row[i]) & (jnp.arange(A_col.size) < A_row[i + 1])
        cols = jnp.where(mask, A_col, 0)
        vals = jnp.where(mask, A_val, 0)
        return y.at[i].set(vals @ x[cols])
    return (lax.fori_loop(0, A_row.size - 1, row_update, y),)


# name: size as kernels_bench prints it, inputs, NumPy, JAX, JAX's static arguments and, where
# rtol 1e-5 is not the check, a compare(mine, numpy_result) returning None or what differs.
KERNELS = {
    "crc16": dict(size="N=20000", inputs=lambda: (lcg_bytes(20000),), numpy=np_crc16,
                  jax=jax_crc16, static=()),
    "mandelbrot": dict(size="XN=400 YN=400 MAXITER=100", inputs=lambda: (400, 400, 100),
                       numpy=np_mandelbrot, jax=jax_mandelbrot, static=(0, 1, 2),
                       compare=compare_mandelbrot),
    "go_fast": dict(size="N=2000", inputs=go_fast_inputs, numpy=np_go_fast, jax=jax_go_fast,
                    static=()),
    "arc_distance": dict(size="N=1000000", inputs=arc_distance_inputs, numpy=np_arc_distance,
                         jax=jax_arc_distance, static=()),
    "deriche": dict(size="W=1500 H=1000", inputs=deriche_inputs, numpy=np_deriche,
                    jax=jax_deriche, static=()),
    "floyd_warshall": dict(size="N=400", inputs=floyd_warshall_inputs, numpy=np_floyd_warshall,
                           jax=jax_floyd_warshall, static=()),
    "nussinov": dict(size="N=90", inputs=lambda: (90, (np.arange(90, dtype=np.int32) + 1) % 4),
                     numpy=np_nussinov, jax=jax_nussinov, static=(0,)),
    "nbody": dict(size="N=50 NT=60", inputs=nbody_inputs, numpy=np_nbody, jax=jax_nbody,
                  static=(3,)),
    "azimint_hist": dict(size="N=4000000 NPT=1000", inputs=azimint_hist_inputs,
                         numpy=np_azimint_hist, jax=jax_azimint_hist, static=(2,)),
    "spmv": dict(size="M=4096 N=4096 NNZ=8191", inputs=spmv_inputs, numpy=np_spmv,
                 jax=jax_spmv, static=()),
}
