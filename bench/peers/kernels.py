"""The kernels group (issue 33): PolyBench/NPBench kernels in NumPy (as NPBench writes them: the
loops as Python loops) and in JAX (as NPBench's JAX versions: lax.fori_loop under jit), beside
build/bench/kernels_bench (jx, the same loops), whose results are checked against NumPy's.

    python3 bench/peers/peers.py --group kernels [--rounds 3] [--build build]

Inputs come from the same formulas as kernels_bench.cpp's, at the same sizes (checked against the
sizes it prints)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # peers.py says so
    jax = None


SIZES = {
    "jacobi_1d": "N=4000 TSTEPS=1000",
    "jacobi_2d": "N=600 TSTEPS=100",
    "heat_3d": "N=60 TSTEPS=100",
    "fdtd_2d": "NX=500 NY=600 TMAX=100",
    "crc16": "N=20000",
    "mandelbrot": "XN=400 YN=400 MAXITER=100",
    "go_fast": "N=2000",
    "arc_distance": "N=1000000",
}


def lcg_bytes(n):
    out, x = np.empty(n, dtype=np.int32), 1
    for k in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        out[k] = (x >> 16) & 255
    return out


def inputs():
    n1 = 4000
    a1 = (np.arange(n1, dtype=np.float64) + 2.0) / n1
    b1 = (np.arange(n1, dtype=np.float64) + 3.0) / n1
    n2 = 600
    i, j = np.arange(n2, dtype=np.float64)[:, None], np.arange(n2, dtype=np.float64)
    a2, b2 = (i * (j + 2.0) + 2.0) / n2, (i * (j + 3.0) + 3.0) / n2
    n3 = 60
    i3 = np.arange(n3, dtype=np.float64)[:, None, None]
    j3 = np.arange(n3, dtype=np.float64)[:, None]
    k3 = np.arange(n3, dtype=np.float64)
    a3 = (i3 + j3 + (n3 - k3)) * 10.0 / n3
    nx, ny = 500, 600
    ix, jy = np.arange(nx, dtype=np.float64)[:, None], np.arange(ny, dtype=np.float64)
    fdtd = (ix * (jy + 1.0) / nx, ix * (jy + 2.0) / ny, ix * (jy + 3.0) / nx,
            np.arange(100, dtype=np.float64), 100)
    return {"jacobi_1d": (a1, b1, 1000), "jacobi_2d": (a2, b2, 100), "heat_3d": (a3, a3, 100),
            "fdtd_2d": fdtd,
            "crc16": (lcg_bytes(20000),), "mandelbrot": (400, 400, 100),
            "go_fast": ((np.arange(2000.0 * 2000.0).reshape(2000, 2000) % 7.0) * 0.25 - 0.5,),
            "arc_distance": arc_inputs(1000000)}


def arc_inputs(n):
    k = np.arange(float(n))
    return (np.sin(k * 0.001), np.cos(k * 0.002), np.sin(k * 0.003 + 1.0), np.cos(k * 0.004 + 2.0))


# ---- NumPy, as NPBench writes them ----

def np_jacobi_1d(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return A, B


def np_jacobi_2d(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for t in range(1, tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] +
                               A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] +
                               B[:-2, 1:-1])
    return A, B


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


def np_fdtd_2d(ex, ey, hz, _fict_, tmax):
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    for t in range(tmax):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return ex, ey, hz


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


def np_go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return (a + trace,)


def np_arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2)**2 + np.cos(theta_1) * np.cos(theta_2) * np.sin(
        (phi_2 - phi_1) / 2)**2
    return (2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))),)


NUMPY = {"go_fast": np_go_fast, "arc_distance": np_arc_distance, "jacobi_1d": np_jacobi_1d, "jacobi_2d": np_jacobi_2d, "heat_3d": np_heat_3d,
         "fdtd_2d": np_fdtd_2d,
         "crc16": np_crc16, "mandelbrot": np_mandelbrot}


# ---- JAX, as NPBench's JAX versions: fori_loop under jit ----

def jax_kernels():
    def jacobi_1d(A, B, tsteps):
        def body(t, c):
            A, B = c
            B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
            A = A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:]))
            return A, B
        return lax.fori_loop(1, tsteps, body, (A, B))

    def jacobi_2d(A, B, tsteps):
        def body(t, c):
            A, B = c
            B = B.at[1:-1, 1:-1].set(0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                                            A[2:, 1:-1] + A[:-2, 1:-1]))
            A = A.at[1:-1, 1:-1].set(0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                                            B[2:, 1:-1] + B[:-2, 1:-1]))
            return A, B
        return lax.fori_loop(1, tsteps, body, (A, B))

    def heat_3d(A, B, tsteps):
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

    def fdtd_2d(ex, ey, hz, _fict_, tmax):
        def body(t, c):
            ex, ey, hz = c
            ey = ey.at[0, :].set(_fict_[t])
            ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
            ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
            hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] -
                                             ey[:-1, :-1]))
            return ex, ey, hz
        return lax.fori_loop(0, tmax, body, (ex, ey, hz))

    def crc16(data, poly=0x8408):
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

    def mandelbrot(xn, yn, maxiter, horizon=2.0):
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

    def go_fast(a):
        trace = lax.fori_loop(0, a.shape[0], lambda i, t: t + jnp.tanh(a[i, i]), 0.0)
        return (a + trace,)

    def arc_distance(theta_1, phi_1, theta_2, phi_2):
        temp = jnp.sin((theta_2 - theta_1) / 2)**2 + jnp.cos(theta_1) * jnp.cos(theta_2) * jnp.sin(
            (phi_2 - phi_1) / 2)**2
        return (2 * (jnp.arctan2(jnp.sqrt(temp), jnp.sqrt(1 - temp))),)

    static = {"go_fast": (), "arc_distance": (), "jacobi_1d": (2,), "jacobi_2d": (2,), "heat_3d": (2,), "fdtd_2d": (4,), "crc16": (),
              "mandelbrot": (0, 1, 2)}
    fns = {"go_fast": go_fast, "arc_distance": arc_distance, "jacobi_1d": jacobi_1d, "jacobi_2d": jacobi_2d, "heat_3d": heat_3d,
           "fdtd_2d": fdtd_2d, "crc16": crc16,
           "mandelbrot": mandelbrot}
    return {name: jax.jit(f, static_argnums=static[name]) for name, f in fns.items()}


def compare(name, mine, numpy_result):
    """None when jx's results match NumPy's (rtol 1e-5), else what differs. Mandelbrot's escape
    counts may differ where |z| lands within rounding of 2 (a different last bit of z on the
    edge of the set): up to 0.1% of the points, their z left out of the comparison."""
    for k, (a, b) in enumerate(zip(mine, numpy_result)):
        b = np.asarray(b)
        if a.shape != b.shape:
            return f"output {k}: shape {a.shape}, NumPy's {b.shape}"
        if name == "mandelbrot":
            differ = mine[1] != np.asarray(numpy_result[1])
            if differ.mean() > 1e-3:
                return f"escape counts differ at {differ.mean():.2%} of the points"
            if k == 0:
                a, b = a[~differ], b[~differ]
            else:
                continue
        if not np.allclose(a, b, rtol=1e-5, atol=0):
            worst = np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))
            return f"output {k}: relative error up to {worst:.3g}"
    return None


def median_ms(fn, reps):
    import time
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return sorted(ts)[len(ts) // 2]


def kernels_main(args, run_json_lines, median_over, fmt_sig, print_table):
    data = inputs()
    jitted = jax_kernels() if jax is not None else {}
    jax_args = {name: tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in d)
                for name, d in data.items()} if jax is not None else {}
    rows = {name: [] for name in SIZES}
    checks = {}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        with tempfile.TemporaryDirectory() as out:
            jx = run_json_lines([os.path.join(args.build, "bench", "kernels_bench"), "--json",
                                 "--rounds", "3", "--out", out]) or []
            jx = {row["name"]: row for row in jx}
            limits = run_json_lines([os.path.join(args.build, "bench", "stencil_limit"), "--json",
                                     "--rounds", "3"]) or []
            limits = {row["name"]: row for row in limits}
            for name in SIZES:
                row = jx.get(name, {})
                if row and row["size"] != SIZES[name]:
                    sys.exit(f"kernels_bench's {name} is {row['size']}, kernels.py's {SIZES[name]}")
                numpy_result = NUMPY[name](*data[name])
                if r == 0 and row:
                    mine = [np.load(os.path.join(out, f"{name}_{k}.npy"))
                            for k in range(len(numpy_result))]
                    checks[name] = compare(name, mine, numpy_result)
                numpy_ms = median_ms(lambda: NUMPY[name](*data[name]), 1)
                jax_ms = None
                if name in jitted:
                    f = jitted[name]
                    jax.block_until_ready(f(*jax_args[name]))
                    jax_ms = median_ms(lambda: jax.block_until_ready(f(*jax_args[name])), 3)
                rows[name].append({"numpy": numpy_ms, "jax": jax_ms, "jx": row.get("jx_ms"),
                                   "limit": limits.get(name, {}).get("limit_ms")})
    header = ["kernel", "size", "numpy ms", "jax ms", "jx ms", "limit ms", "numpy / jx",
              "jax / jx", "jx / limit", "matches numpy"]
    table = []
    for name, rs in rows.items():
        med = lambda key: median_over(rs, lambda q: q[key])
        ratio = lambda a, b: median_over(rs, lambda q: q[a] / q[b] if q[a] and q[b] else None)
        check = checks.get(name, "not run")
        table.append([name, SIZES[name], fmt_sig(med("numpy")), fmt_sig(med("jax")),
                      fmt_sig(med("jx")), fmt_sig(med("limit")), fmt_sig(ratio("numpy", "jx")),
                      fmt_sig(ratio("jax", "jx")), fmt_sig(ratio("jx", "limit")),
                      "yes" if check is None else check])
    geo = [median_over(rs, lambda q: q["jax"] / q["jx"] if q["jax"] and q["jx"] else None)
           for rs in rows.values()]
    geo = [g for g in geo if g]
    print(f"kernels group: medians over {args.rounds} rounds (NumPy: one call per round; JAX: "
          f"3 calls of the compiled jit; jx: kernels_bench, 3 calls; limit: stencil_limit, "
          f"hand-written OpenMP, 3 calls); numpy {np.__version__}"
          + (f", jax {jax.__version__}" if jax is not None else ", jax not installed"))
    print_table(header, table)
    if geo:
        print(f"geometric mean jax / jx: {float(np.exp(np.mean(np.log(geo)))):.3g} "
              f"over {len(geo)} kernels")
