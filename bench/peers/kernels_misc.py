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
}
