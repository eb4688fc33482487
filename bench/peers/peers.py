"""jx beside its peers: the fusion_bench workloads in NumPy, numexpr and JAX (CPU, x64), and jx's
own benchmark executables (the seeds also sharded over 8 CPU devices: *_8dev_* rows, jx only), in
one table of medians with speedups and ratios to the hand-written limits (bench/limits/).
--group gemm does the same for the contractions of gemm_bench (NumPy, JAX, jx), against the FMA
peak (fma_limit), OpenBLAS (blas_limit) and memory bandwidth (copy_limit).
--group grad times grad_bench's workloads in JAX (jit(f) and jit(value_and_grad(f)), jit of vmap)
beside grad_bench's own figures. --group sort times NumPy's sort, stable argsort and cumsum of 16M
float64 beside sort_bench (jx, and a memcpy of the same bytes). --group linalg times np.linalg and
jax.numpy.linalg on 1024 x 1024 float64 beside linalg_bench. --group fft times np.fft and
jnp.fft beside fft_bench. --group mpi times seed 000 (8,1) on
2 processes x 4 devices (mpirun) beside one process of 8, and an 8 MiB all-reduce beside
MPI_Allreduce (bench/limits/mpi_limit).

Run from the repository root after building the bench targets:
    python3 bench/peers/peers.py [--reps 10] [--rounds 3] [--build build] [--skip-fusion-bench]
    python3 bench/peers/peers.py --group gemm [--rounds 3] [--sizes 64,256,...]
        [--dtypes float32,float64] [--shrink K] [--min-reps 3] [--min-time 1] [--max-reps 1000]
    python3 bench/peers/peers.py --group grad [--rounds 3] [--reps 10]
    python3 bench/peers/peers.py --group sort [--rounds 3] [--sort-n 16777216]
    python3 bench/peers/peers.py --group linalg [--rounds 3] [--linalg-n 1024]
    python3 bench/peers/peers.py --group fft [--rounds 3]
    python3 bench/peers/peers.py --group mpi [--rounds 3] [--reps 10]
    python3 bench/peers/peers.py --group reduce [--rounds 3] [--reduce-n 4096]
    python3 bench/peers/peers.py --group kernels [--rounds 3]   (bench/peers/kernels.py)

Every round times all peers and runs all jx executables once; each cell is the median over the
rounds of per-round medians, and each ratio the median of per-round ratios, so that load drifting
on a shared machine hits both sides of a ratio alike.
Peers that are not installed are skipped, as are jx executables that are not built. The OpenBLAS
environment (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, thread counts) is left as the caller set it.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import numexpr as ne
except ImportError:
    ne = None
try:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
except ImportError:
    jax = None

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# Rows of the table, in order; fusion_bench names its benchmarks <workload>/fused|unfused.
# matmul_256 is a @ b (BLAS in NumPy, Eigen in JAX): the yardstick for matmul_bcast_256.
WORKLOADS = [
    "simpson_stack",
    "simpson_broadcast",
    "simpson_stack_8dev_functions",
    "simpson_stack_8dev_intervals",
    "diff_4096",
    "diff_4096_8dev_8x1",
    "diff_4096_8dev_1x8",
    "chain10_4096x1024",
    "softmax_4096x1024",
    "complex_2048x1024",
    "cmatmul_512",
    "matmul_bcast_256",
    "matmul_256",
]


def median_ms(fn, reps):
    """Median wall time of fn() over reps calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


# The seeds and kernels, written once against a numpy-like module (numpy or jax.numpy).


def simps(xp, f, a, b, N):
    dx = (b - a) / N
    x = xp.linspace(a, b, N + 1)
    y = f(x)
    w = xp.ones_like(y)
    if xp is np:
        w[2:-1:2] = 2.
        w[1::2] = 4.
    else:
        w = w.at[2:-1:2].set(2.)
        w = w.at[1::2].set(4.)
    return dx / 3 * xp.einsum("i...,i...", w, y)


def funcN_stack(xp):
    return lambda x: xp.stack([x**(i / 10) * xp.exp(-x) for i in range(200)], axis=1)


def funcN_broadcast(xp):

    def f(x):
        x = x[:, None, :]
        i = xp.arange(200)[:, None]
        return x**(i / 10) * xp.exp(-x)

    return f


def calc_fd_kernel(xp, x):
    return xp.diff(x, 1, axis=0, prepend=xp.zeros((1, *x.shape[1:])))


def chain10(xp, x):  # mul, add, neg, exp, mul, add, sqrt, sub, mul, div
    t = xp.exp(-(x * 1.5 + 0.5)) * x
    t = xp.sqrt(t + 1.0) - x
    return t * t / 3.0


def softmax(xp, x):
    e = xp.exp(x - xp.max(x, axis=1, keepdims=True))
    return e / xp.sum(e, axis=1, keepdims=True)


def complex_chain(xp, z):
    return xp.exp(z * 0.5j) * z + z * z


def matmul_bcast(xp, a, b):
    return xp.sum(a[:, :, None] * b[None, :, :], axis=1)


def make_inputs():
    rng = np.random.default_rng(0)
    a = np.arange(0, 10, 0.1)
    return {
        "simpson": (a, a + 0.05),
        "diff": rng.standard_normal((4096, 4096)),
        "chain": rng.random((4096, 1024)),
        "softmax": rng.standard_normal((4096, 1024)),
        "matmul": (rng.standard_normal((256, 256)), rng.standard_normal((256, 256))),
        "complex": rng.standard_normal((2048, 1024)) + 1j * rng.standard_normal((2048, 1024)),
        "cmatmul": tuple(rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))
                         for _ in range(2)),
    }


# Each peer: workload -> a function that computes it once.


def numpy_cases(inp):
    a, b = inp["simpson"]
    ma, mb = inp["matmul"]
    return {
        "simpson_stack": lambda: simps(np, funcN_stack(np), a, b, 512),
        "simpson_broadcast": lambda: simps(np, funcN_broadcast(np), a, b, 512),
        "diff_4096": lambda: calc_fd_kernel(np, inp["diff"]),
        "chain10_4096x1024": lambda: chain10(np, inp["chain"]),
        "softmax_4096x1024": lambda: softmax(np, inp["softmax"]),
        "complex_2048x1024": lambda: complex_chain(np, inp["complex"]),
        "cmatmul_512": lambda: inp["cmatmul"][0] @ inp["cmatmul"][1],
        "matmul_bcast_256": lambda: matmul_bcast(np, ma, mb),
        "matmul_256": lambda: ma @ mb,
    }


def numexpr_cases(inp):
    """numexpr evaluates the elementwise parts; reductions other than a final one stay in NumPy."""

    def simpson_broadcast():
        a, b = inp["simpson"]
        f = lambda x: ne.evaluate("x ** c * exp(-x)", {
            "x": x[:, None, :],
            "c": (np.arange(200) / 10)[:, None]
        })
        return simps(np, f, a, b, 512)

    def diff():
        x = inp["diff"]
        out = np.empty_like(x)
        out[0] = x[0]
        ne.evaluate("hi - lo", {"hi": x[1:], "lo": x[:-1]}, out=out[1:])
        return out

    def softmax_ne():
        x = inp["softmax"]
        e = ne.evaluate("exp(x - m)", {"x": x, "m": x.max(axis=1, keepdims=True)})
        return ne.evaluate("e / s", {"e": e, "s": e.sum(axis=1, keepdims=True)})

    chain = "(sqrt(exp(-(x * 1.5 + 0.5)) * x + 1.0) - x) ** 2 / 3.0"
    ma, mb = inp["matmul"]
    return {
        "simpson_broadcast": simpson_broadcast,
        "diff_4096": diff,
        "chain10_4096x1024": lambda: ne.evaluate(chain, {"x": inp["chain"]}),
        "softmax_4096x1024": softmax_ne,
        "complex_2048x1024": lambda: ne.evaluate("exp(z * c) * z + z * z", {
            "z": inp["complex"],
            "c": np.complex128(0.5j)
        }),
        "matmul_bcast_256": lambda: ne.evaluate("sum(a * b, axis=1)", {
            "a": ma[:, :, None],
            "b": mb[None, :, :]
        }),
    }


def jax_cases(inp):
    """Each workload through jax.jit(...).lower(...).compile(), as the diff seed does."""

    def compiled(f, *args):
        args = [jnp.asarray(x) for x in args]
        c = jax.jit(f).lower(*args).compile()
        return lambda: c(*args).block_until_ready()

    a, b = inp["simpson"]
    ma, mb = inp["matmul"]
    x = jax.random.normal(jax.random.PRNGKey(0), (4096, 4096), dtype="f8")
    return {
        "simpson_stack": compiled(lambda a, b: simps(jnp, funcN_stack(jnp), a, b, 512), a, b),
        "simpson_broadcast": compiled(lambda a, b: simps(jnp, funcN_broadcast(jnp), a, b, 512), a,
                                      b),
        "diff_4096": compiled(lambda x: calc_fd_kernel(jnp, x), x),
        "chain10_4096x1024": compiled(lambda x: chain10(jnp, x), inp["chain"]),
        "softmax_4096x1024": compiled(lambda x: softmax(jnp, x), inp["softmax"]),
        "complex_2048x1024": compiled(lambda z: complex_chain(jnp, z), inp["complex"]),
        "cmatmul_512": compiled(lambda a, b: a @ b, *inp["cmatmul"]),
        "matmul_bcast_256": compiled(lambda a, b: matmul_bcast(jnp, a, b), ma, mb),
        "matmul_256": compiled(lambda a, b: a @ b, ma, mb),
    }


def run_json_lines(cmd):
    """Every line of a jx executable's --json output, or None (with a note) if it failed."""
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        lines = [json.loads(line) for line in out.strip().splitlines()]
        if not lines:
            raise ValueError("no output")
        return lines
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print(f"  {' '.join(cmd)}: {e}", file=sys.stderr)
        return None


def run_json(cmd):
    """The last line of a jx executable's --json output, or None (with a note) if it failed."""
    lines = run_json_lines(cmd)
    return lines[-1] if lines else None


def jx_round(bench, reps, fusion_bench):
    """One run of each jx executable: {column: {workload: ms}} and notes on the seed runs."""
    cols = {"jx": {}, "jx unfused": {}, "limit": {}}
    notes = []
    exe = lambda name: os.path.join(bench, name)
    reference = np.load(os.path.join(ROOT, "examples", "data", "simpson_numpy.npy"))
    for variant in ("stack", "broadcast"):
        if not os.path.exists(exe("seed_simpson")):
            break
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "S.npy")
            r = run_json([exe("seed_simpson"), "--json", "--variant", variant, "--reps",
                          str(reps), "--out", out])
            if r:
                cols["jx"][f"simpson_{variant}"] = r["median_ms"]
                err = np.max(np.abs(np.load(out) - reference) / np.abs(reference))
                notes.append(f"seed_simpson --variant {variant}: compile {r['compile_ms']:.0f} ms, "
                             f"peak RSS growth {r['rss_growth_mib']:.1f} MiB, "
                             f"max rel err vs NumPy {err:.2g}")
    # The seeds sharded over 8 CPU devices (jx only: the peers run on one device).
    for shard in ("functions", "intervals"):
        if os.path.exists(exe("seed_simpson")):
            r = run_json([exe("seed_simpson"), "--json", "--shard", shard, "--reps", str(reps)])
            if r:
                cols["jx"][f"simpson_stack_8dev_{shard}"] = r["median_ms"]
    for mesh in ("1x1", "8x1", "1x8"):
        if not os.path.exists(exe("seed_diff")):
            break
        r = run_json([exe("seed_diff"), "--json", "--mesh", mesh, "--reps", str(reps)])
        if r:
            cols["jx"]["diff_4096" if mesh == "1x1" else f"diff_4096_8dev_{mesh}"] = r["median_ms"]
            notes.append(f"seed_diff (8 devices, mesh {r['mesh']}): compile "
                         f"{r['compile_ms']:.0f} ms, peak RSS growth {r['rss_growth_mib']:.1f} MiB")
    if os.path.exists(exe("simpson_limit")):
        r = run_json([exe("simpson_limit"), "--json", "--reps", str(reps)])
        if r and "median_ms" in r:
            for w in ("simpson_stack", "simpson_broadcast", "simpson_stack_8dev_functions",
                      "simpson_stack_8dev_intervals"):
                cols["limit"][w] = r["median_ms"]
            notes.append(f"simpson_limit: {r['kernel']} kernel {r['median_ms']:.2f} ms on 2 "
                         f"threads, {r['median_ms_1t']:.2f} ms on 1; pow kernel "
                         f"{r['pow_median_ms']:.2f} ms on 2 threads")
    if os.path.exists(exe("copy_limit")):
        r = run_json([exe("copy_limit"), "--json", "--reps", str(reps)])
        if r:
            # The faster of the two copies: a streamed copy skips the stores' read-for-ownership.
            limit = min(r["median_ms"], r.get("stream_copy_ms", r["median_ms"]))
            for w in ("diff_4096", "diff_4096_8dev_8x1", "diff_4096_8dev_1x8"):
                cols["limit"][w] = limit
            notes.append(f"copy_limit: memcpy {r['median_ms']:.2f} ms on 2 threads "
                         f"({r['gb_per_s']:.1f} GB/s), streamed copy "
                         f"{r.get('stream_copy_ms', float('nan')):.2f} ms, plain diff loop "
                         f"{r['diff_loop_median_ms']:.2f} ms")
    if fusion_bench and os.path.exists(exe("fusion_bench")):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "fusion.json")
            try:
                subprocess.run([exe("fusion_bench"), f"--benchmark_out={out}",
                                "--benchmark_out_format=json"], check=True, capture_output=True)
                with open(out) as f:
                    runs = json.load(f)["benchmarks"]
            except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
                print(f"  fusion_bench: {e}", file=sys.stderr)
                runs = []
        for run in runs:
            if run.get("aggregate_name") == "median":
                workload, mode = run["run_name"].split("/")[:2]
                # The seeds' own executables take precedence for the fused column.
                cols["jx unfused" if mode == "unfused" else "jx"].setdefault(
                    workload, run["real_time"])
    return cols, notes


def fmt(v):
    return f"{v:.2f}" if v is not None else "-"


def fmt_sig(v, digits=3):
    """At least `digits` significant digits without exponents: 1234.5, 12.35, 0.0123, or -."""
    if v is None:
        return "-"
    decimals = digits - 1 - math.floor(math.log10(abs(v))) if v else 2
    return f"{v:.{min(6, max(decimals, 1))}f}"


def print_table(header, rows):
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        print(" | ".join(c.ljust(wd) if i == 0 else c.rjust(wd)
                         for i, (c, wd) in enumerate(zip(r, widths))))


def median_over(rounds, f):
    """Median over the rounds of f(round), skipping rounds where it is None."""
    values = [v for v in map(f, rounds) if v is not None]
    return statistics.median(values) if values else None


# The gemm group: the workloads of bench/gemm_bench.cpp, with the same names, sizes and order.


def gemm_workloads(sizes, dtypes, shrink):
    """[{name, dtype, shapes, flops, fn}]: fn(xp) is the workload as a function of its inputs, or
    None for the rows only jx runs (sharded over 8 devices)."""
    dim = lambda d: max(1, d // shrink)
    product = lambda m, k, n: 2.0 * m * k * n
    matmul = lambda xp: lambda a, b: a @ b
    out = []

    def add(name, dtype, shapes, flops, fn):
        if dtype in dtypes:
            out.append(dict(name=name, dtype=dtype, shapes=shapes, flops=flops, fn=fn))

    both = ("float32", "float64")
    for n in sizes:
        for d in both:
            add(f"matmul_{n}", d, [(n, n), (n, n)], product(n, n, n), matmul)
    big, thin = dim(4096), dim(64)
    for d in both:
        add(f"matmul_{big}x{thin}_{thin}x{big}", d, [(big, thin), (thin, big)],
            product(big, thin, big), matmul)
        add(f"matmul_{thin}x{big}_{big}x{thin}", d, [(thin, big), (big, thin)],
            product(thin, big, thin), matmul)
        add(f"matmul_{big}x{big}_{big}x1", d, [(big, big), (big, 1)], product(big, big, 1), matmul)
    # NumPy's einsum contracts through BLAS only with optimize=True (else one C loop per output).
    einsum = lambda xp, spec: (lambda *ops: np.einsum(spec, *ops, optimize=True)) if xp is np else (
        lambda *ops: xp.einsum(spec, *ops))
    batch, block = dim(64), dim(128)
    for d in both:
        add(f"einsum_bij_bjk_{batch}x{block}", d, [(batch, block, block)] * 2,
            batch * product(block, block, block), lambda xp: einsum(xp, "bij,bjk->bik"))
    chain = dim(1024)
    for d in both:
        add(f"einsum_ij_jk_kl_{chain}", d, [(chain, chain)] * 3, 2 * product(chain, chain, chain),
            lambda xp: einsum(xp, "ij,jk,kl->il"))
    for n in (dim(1024), dim(2048)):
        for d in both:
            add(f"matmul_tn_{n}", d, [(n, n), (n, n)], product(n, n, n),
                lambda xp: lambda a, b: xp.dot(xp.transpose(a), b))
    rows, width = dim(4096), dim(1024)
    layer = f"{rows}x{width}x{width}"
    add(f"dense_relu_{layer}", "float32", [(rows, width), (width, width), (width,)],
        product(rows, width, width), lambda xp: lambda x, w, b: xp.maximum(x @ w + b, 0.0))
    add(f"dense_matmul_{layer}", "float32", [(rows, width), (width, width)],
        product(rows, width, width), matmul)
    square = dim(4096)
    add(f"transpose_add_{square}", "float64", [(square, square)], 0,
        lambda xp: lambda x: xp.transpose(x) + 1.0)
    add(f"sum0_{square}", "float64", [(square, square)], 0, lambda xp: lambda x: xp.sum(x, 0))
    n = max(8, 2048 // shrink)
    if n not in sizes:
        add(f"matmul_{n}", "float64", [(n, n), (n, n)], product(n, n, n), matmul)
    for mesh in ("8x1", "2x4"):
        add(f"matmul_{n}_8dev_{mesh}", "float64", [(n, n), (n, n)], product(n, n, n), None)
    return out


def adaptive_ms(fn, min_reps, min_time, max_reps):
    """gemm_bench's rule: one warm-up call, then calls until at least min_reps of them and
    min_time seconds in all, at most max_reps; the median in ms."""
    fn()
    times = []
    while (len(times) < min_reps or sum(times) < min_time * 1e3) and len(times) < max_reps:
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def gemm_peer_cases(workloads):
    """{peer: {(name, dtype): function computing the workload once}}"""
    cases = {"numpy": {}, "jax": {}}
    for i, w in enumerate(workloads):
        if w["fn"] is None:
            continue
        rng = np.random.default_rng(i)
        args = [rng.standard_normal(shape).astype(w["dtype"]) for shape in w["shapes"]]
        key = (w["name"], w["dtype"])
        f = w["fn"](np)
        cases["numpy"][key] = lambda f=f, args=args: f(*args)
        if jax is not None:
            jargs = [jnp.asarray(a) for a in args]
            c = jax.jit(w["fn"](jnp)).lower(*jargs).compile()
            cases["jax"][key] = lambda c=c, jargs=jargs: c(*jargs).block_until_ready()
    if jax is None:
        del cases["jax"]
    return cases


def gemm_round(args, workloads, cases):
    """One round: every peer timed, every executable run once. Returns {"numpy": {key: ms},
    "jax": {key: ms}, "jx": {key: json row}, "fma": json, "blas": json, "copy": json}."""
    rnd = {peer: {key: adaptive_ms(fn, args.min_reps, args.min_time, args.max_reps)
                  for key, fn in c.items()} for peer, c in cases.items()}
    bench = os.path.join(args.build, "bench")
    exe = lambda name: os.path.join(bench, name)
    timing = ["--min-reps", str(args.min_reps), "--min-time", str(args.min_time)]
    dtypes = ",".join(args.dtypes)
    rnd["jx"] = {}
    if os.path.exists(exe("gemm_bench")):
        rows = run_json_lines([exe("gemm_bench"), "--json", "--sizes", args.sizes, "--dtypes",
                               dtypes, "--shrink", str(args.shrink), "--max-reps",
                               str(args.max_reps)] + timing) or []
        rnd["jx"] = {(r["name"], r["dtype"]): r for r in rows}
    if os.path.exists(exe("fma_limit")):
        rnd["fma"] = run_json([exe("fma_limit"), "--json"])
    if os.path.exists(exe("blas_limit")):
        rnd["blas"] = run_json([exe("blas_limit"), "--json", "--sizes", args.sizes, "--dtypes",
                                dtypes] + timing)
    if os.path.exists(exe("copy_limit")):
        rnd["copy"] = run_json([exe("copy_limit"), "--json", "--n", str(max(1, 4096 //
                                                                           args.shrink)),
                                "--reps", str(args.reps)])
    return rnd


def gemm_main(args):
    sizes = [int(n) for n in args.sizes.split(",")]
    workloads = gemm_workloads(sizes, args.dtypes, args.shrink)
    print(f"numpy {np.__version__}", file=sys.stderr)
    if jax is not None:
        print(f"jax {jax.__version__} on {jax.devices()[0].platform}", file=sys.stderr)
    else:
        print("jax not installed: skipped", file=sys.stderr)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"note: {var}={os.environ[var]} is set (NumPy's and Debian's OpenBLAS read it)",
                  file=sys.stderr)
    cases = gemm_peer_cases(workloads)
    rounds = []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        rounds.append(gemm_round(args, workloads, cases))

    def cell(f):
        """A cell: the median over the rounds of f(round), formatted."""
        return fmt_sig(median_over(rounds, f))

    def ms(rnd, col, key):
        """Round rnd's median ms of a workload in column numpy, jax or jx."""
        if col == "jx":
            return (rnd["jx"].get(key) or {}).get("median_ms")
        return rnd.get(col, {}).get(key)

    def jx_field(rnd, key, field):
        return (rnd["jx"].get(key) or {}).get(field)

    def fma_peak(rnd, dtype, which="all"):
        return (rnd.get("fma") or {}).get(f"f{dtype[-2:]}_{which}")

    def blas_at(rnd, n, dtype):
        """blas_limit's better way at n, in GFLOP/s."""
        values = [r["gflops"] for r in (rnd.get("blas") or {}).get("results", [])
                  if r["n"] == n and r["dtype"] == dtype]
        return max(values) if values else None

    def ratio(a, b):
        return a / b if a is not None and b else None

    header = ["workload", "dtype", "numpy ms", "jax ms", "jx ms", "jx GFLOP/s", "% FMA peak",
              "OpenBLAS GFLOP/s", "numpy/jx", "jax/jx", "jx compile ms"]
    table = []
    for w in workloads:
        key, dtype = (w["name"], w["dtype"]), w["dtype"]
        n = w["name"][len("matmul_"):]
        square = w["name"].startswith("matmul_") and n.isdigit()
        gflops = lambda rnd: jx_field(rnd, key, "gflops")
        peak = lambda rnd: ratio(gflops(rnd), fma_peak(rnd, dtype))
        table.append([
            w["name"], dtype,
            cell(lambda rnd: ms(rnd, "numpy", key)),
            cell(lambda rnd: ms(rnd, "jax", key)),
            cell(lambda rnd: ms(rnd, "jx", key)),
            cell(gflops),
            cell(lambda rnd: 100 * peak(rnd) if peak(rnd) is not None else None),
            cell(lambda rnd: blas_at(rnd, int(n), dtype)) if square else "-",
            cell(lambda rnd: ratio(ms(rnd, "numpy", key), ms(rnd, "jx", key))),
            cell(lambda rnd: ratio(ms(rnd, "jax", key), ms(rnd, "jx", key))),
            cell(lambda rnd: jx_field(rnd, key, "compile_ms")),
        ])
    print(f"gemm group: medians over {args.rounds} rounds of medians over at least "
          f"{args.min_reps} calls and {args.min_time:g} s (at most {args.max_reps} calls); ratios "
          "are medians of per-round ratios; numpy/jx and jax/jx > 1: jx is faster; GFLOP/s = "
          "2*M*N*K / median; % FMA peak: of fma_limit on all threads, same dtype; OpenBLAS: "
          "blas_limit's better way at that n")
    print_table(header, table)

    print("limits (medians over rounds):")
    threads = (rounds[-1].get("fma") or {}).get("threads")
    for d in ("float64", "float32"):
        if median_over(rounds, lambda rnd: fma_peak(rnd, d)) is not None:
            print(f"  FMA peak {d}: {cell(lambda rnd: fma_peak(rnd, d, '1t'))} GFLOP/s on 1 "
                  f"thread, {cell(lambda rnd: fma_peak(rnd, d))} on {threads}")
    last_blas = rounds[-1].get("blas") or {}
    if last_blas:
        print(f"  {last_blas.get('config')}, {last_blas.get('threads')} threads:")
    for d in ("float64", "float32"):
        best = lambda rnd: (rnd.get("blas") or {}).get(f"best_{d}", {}).get("gflops")
        if median_over(rounds, best) is not None:
            where = last_blas.get(f"best_{d}", {})
            print(f"  OpenBLAS best {d}: {cell(best)} GFLOP/s (last round: {where.get('mode')}, "
                  f"n = {where.get('n')})")
    copy = lambda rnd, k: (rnd.get("copy") or {}).get(k)
    if rounds[-1].get("copy"):
        print(f"  copy_limit: memcpy {cell(lambda r: copy(r, 'median_ms'))} ms on 2 threads "
              f"({cell(lambda r: copy(r, 'gb_per_s'))} GB/s read + written), streamed "
              f"{cell(lambda r: copy(r, 'stream_copy_ms'))} ms; read once "
              f"{cell(lambda r: copy(r, 'read_ms'))} ms on 2 threads "
              f"({cell(lambda r: copy(r, 'read_gb_per_s'))} GB/s), "
              f"{cell(lambda r: copy(r, 'read_ms_1t'))} ms on 1")
        square = max(1, 4096 // args.shrink)
        for name, limit, what in ((f"transpose_add_{square}", "median_ms", "2-thread memcpy"),
                                  (f"transpose_add_{square}", "stream_copy_ms",
                                   "2-thread streamed copy"),
                                  (f"sum0_{square}", "read_ms", "2-thread read once")):
            key = (name, "float64")
            parts = [f"{col} {cell(lambda r: ratio(ms(r, col, key), copy(r, limit)))}"
                     for col in ("jx", "numpy", "jax")]
            print(f"  {name} time over the {what}: {', '.join(parts)}")


# The grad group: bench/grad_bench.cpp's workloads, with the same names and order. Each is a
# baseline and its transformed function: f and value_and_grad(f), or for vmap_softmax the batched
# softmax written by hand and vmap of the per-row one. NumPy has neither grad nor vmap: no column.


def log_softmax(z):
    m = jnp.max(z, axis=1, keepdims=True)
    return z - m - jnp.log(jnp.sum(jnp.exp(z - m), axis=1, keepdims=True))


def xent(logits, y):
    return -jnp.mean(jnp.sum(y * log_softmax(logits), axis=1))


def simpson_total(a, b, s):
    f = lambda x: funcN_stack(jnp)(x) * jnp.exp(-(s - 1) * x[:, None, :])
    return jnp.sum(simps(jnp, f, a, b, 512))


def mlp_loss(w1, b1, w2, b2, w3, b3, x, y):
    h1 = jnp.maximum(x @ w1 + b1, 0)
    h2 = jnp.maximum(h1 @ w2 + b2, 0)
    return xent(h2 @ w3 + b3, y)


def softmax_row(x):
    e = jnp.exp(x - jnp.max(x))
    return e / jnp.sum(e)


def grad_workloads():
    """[(name, dtype, baseline, transformed, args)], as grad_bench makes them (other samples)."""
    rng = np.random.default_rng(0)
    normal = lambda *shape, dtype="float64": rng.standard_normal(shape).astype(dtype)
    onehot = lambda rows, classes, dtype: np.eye(classes, dtype=dtype)[rng.integers(0, classes,
                                                                                    rows)]
    vg = lambda f, argnums=0: jax.value_and_grad(f, argnums)
    a = np.arange(0, 10, 0.1) + 0.1  # simps' derivative at x = 0 is not finite
    dense = lambda i, o: normal(i, o, dtype="float32") * np.float32(np.sqrt(2 / i))
    zeros = lambda n: np.zeros(n, "float32")
    mlp_args = [dense(784, 512), zeros(512), dense(512, 512), zeros(512), dense(512, 10),
                zeros(10), normal(256, 784, dtype="float32"), onehot(256, 10, "float32")]
    return [
        ("simpson", "float64", simpson_total, vg(simpson_total, (0, 1, 2)),
         [a, a + 0.05, np.float64(1.0)]),
        ("mlp", "float32", mlp_loss, vg(mlp_loss, (0, 1, 2, 3, 4, 5)), mlp_args),
        ("chain", "float64", lambda x: jnp.sum(chain10(jnp, x)),
         vg(lambda x: jnp.sum(chain10(jnp, x))), [rng.random((4096, 1024))]),
        ("softmax_xent", "float64", xent, vg(xent),
         [normal(4096, 1024), onehot(4096, 1024, "float64")]),
        ("diff", "float64", lambda x: jnp.sum(calc_fd_kernel(jnp, x)**2),
         vg(lambda x: jnp.sum(calc_fd_kernel(jnp, x)**2)), [normal(4096, 4096)]),
        ("matmul_sq", "float64", lambda a, b: jnp.sum((a @ b)**2),
         vg(lambda a, b: jnp.sum((a @ b)**2), (0, 1)), [normal(1024, 1024), normal(1024, 1024)]),
        ("vmap_softmax", "float64", lambda x: softmax(jnp, x), jax.vmap(softmax_row),
         [normal(4096, 1024)]),
    ]


def grad_main(args):
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}" if jax is not None else
          "jax not installed: only jx's figures", file=sys.stderr)
    # name -> (dtype, baseline call, transformed call, transformed compile ms, planned bytes of
    # the transformed over the baseline: memory_analysis' arguments + outputs + temporaries)
    cases = {}
    for name, dtype, base, transformed, inputs in (grad_workloads() if jax is not None else []):
        jargs = [jnp.asarray(x) for x in inputs]
        calls, planned = [], []
        for f in (base, transformed):
            start = time.perf_counter()
            c = jax.jit(f).lower(*jargs).compile()
            compile_ms = (time.perf_counter() - start) * 1e3
            calls.append(lambda c=c, jargs=jargs: jax.block_until_ready(c(*jargs)))
            m = c.memory_analysis()
            planned.append(m.argument_size_in_bytes + m.output_size_in_bytes +
                           m.temp_size_in_bytes)
        cases[name] = (dtype, *calls, compile_ms, planned[1] / planned[0])
    exe = os.path.join(args.build, "bench", "grad_bench")
    rounds = []  # {"jax": {name: (base ms, transformed ms)}, "jx": {name: json row}}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        rnd = {"jax": {name: (median_ms(b, args.reps), median_ms(t, args.reps))
                       for name, (_, b, t, _, _) in cases.items()}, "jx": {}}
        if os.path.exists(exe):
            rows = run_json_lines([exe, "--json", "--rounds", "1", "--reps", str(args.reps)])
            rnd["jx"] = {row["name"]: row for row in rows or []}
        else:
            print(f"  {exe} is not built", file=sys.stderr)
        rounds.append(rnd)

    def jax_ms(rnd, name, side):
        return rnd["jax"].get(name, (None, None))[side]

    def jx(rnd, name, field):
        return (rnd["jx"].get(name) or {}).get(field)

    def ratio(a, b):
        return a / b if a is not None and b else None

    header = ["workload", "dtype", "jax base ms", "jax xform ms", "jax xform/base", "jx base ms",
              "jx xform ms", "jx xform/base", "target", "jax/jx xform", "jax/jx base",
              "jx xform compile ms", "jax xform compile ms", "jx base MiB", "jx xform MiB",
              "jx RSS xform/base", "jx planned xform/base", "jax planned xform/base"]
    names = list(dict.fromkeys(list(cases) + [n for rnd in rounds for n in rnd["jx"]]))
    table = []
    for name in names:
        cell = lambda f: fmt_sig(median_over(rounds, f))
        target = next((jx(rnd, name, "target") for rnd in rounds if jx(rnd, name, "target")), None)
        table.append([
            name, cases[name][0] if name in cases else (jx(rounds[-1], name, "dtype") or "-"),
            cell(lambda rnd: jax_ms(rnd, name, 0)),
            cell(lambda rnd: jax_ms(rnd, name, 1)),
            cell(lambda rnd: ratio(jax_ms(rnd, name, 1), jax_ms(rnd, name, 0))),
            cell(lambda rnd: jx(rnd, name, "base_ms")),
            cell(lambda rnd: jx(rnd, name, "transformed_ms")),
            cell(lambda rnd: jx(rnd, name, "ratio")),
            f"<={target:g}" if target else "-",
            cell(lambda rnd: ratio(jax_ms(rnd, name, 1), jx(rnd, name, "transformed_ms"))),
            cell(lambda rnd: ratio(jax_ms(rnd, name, 0), jx(rnd, name, "base_ms"))),
            cell(lambda rnd: jx(rnd, name, "transformed_compile_ms")),
            fmt_sig(cases[name][3]) if name in cases else "-",
            cell(lambda rnd: jx(rnd, name, "base_rss_mib")),
            cell(lambda rnd: jx(rnd, name, "transformed_rss_mib")),
            cell(lambda rnd: ratio(jx(rnd, name, "transformed_rss_mib"),
                                   jx(rnd, name, "base_rss_mib"))),
            cell(lambda rnd: ratio(jx(rnd, name, "transformed_planned_mib"),
                                   jx(rnd, name, "base_planned_mib"))),
            fmt_sig(cases[name][4]) if name in cases else "-",
        ])
    print(f"grad group: medians over {args.rounds} rounds of medians over {args.reps} calls "
          "(grad_bench: --rounds 1 --reps N per round, its two sides alternating); ratios are "
          "medians of per-round ratios; base: jit(f) (vmap_softmax: the batched softmax by hand), "
          "xform: jit(value_and_grad(f)) (vmap_softmax: jit(vmap(per-row softmax))); jax/jx > 1: "
          "jx is faster; target: jx xform/base at most this; compile: cold (jx: a fresh process "
          "without JX_CACHE_DIR; jax: lower + compile once in this process); MiB: a jx step's peak "
          "RSS, arguments included (grad_bench's children); planned: memory_analysis' arguments + "
          "outputs + temporaries, transformed over baseline. NumPy has no grad or vmap: not run")
    print_table(header, table)


def heat_step(xp, u):
    """loop_bench's heat step: u + 0.1 * laplacian(u), zero padding, jx's order of additions."""
    p = xp.pad(u, 1)
    return u + 0.1 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u)


def tiny_step(xp, x):
    return x * 0.999 + 0.001


def loop_main(args):
    """The loop group: per-step ms of NumPy (a Python loop), JAX (jax.lax.fori_loop under jit) and
    jx (loop_bench), beside heat_limit's hand-written OpenMP loop, in rounds."""
    n, steps, tiny_steps = args.n, args.steps, args.tiny_steps
    u0 = np.random.default_rng(0).standard_normal((n, n))
    x0 = np.linspace(0.0, 1.0, 16)
    numpy_steps = {"heat": max(1, steps // 10), "tiny": tiny_steps}

    def numpy_loop(step, x, count):
        for _ in range(count):
            x = step(np, x)
        return x

    jax_loops = {}
    if jax is not None:
        for name, step, x, count in (("heat", heat_step, u0, steps),
                                     ("tiny", tiny_step, x0, tiny_steps)):
            f = jax.jit(lambda v, step=step, count=count: jax.lax.fori_loop(
                0, count, lambda i, w: step(jnp, w), v))
            c = f.lower(jnp.asarray(x)).compile()
            jax_loops[name] = (c, jnp.asarray(x), count)
    rows = {"heat": [], "tiny": []}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        jx = run_json_lines([os.path.join(args.build, "bench", "loop_bench"), "--json", "--n",
                             str(n), "--steps", str(steps), "--tiny-steps", str(tiny_steps),
                             "--rounds", "1"]) or []
        jx = {row["name"].split("_")[0]: row for row in jx}
        limit = run_json([os.path.join(args.build, "bench", "heat_limit"), "--json", "--n", str(n),
                          "--steps", str(steps), "--rounds", "1"])
        for name, step, x in (("heat", heat_step, u0), ("tiny", tiny_step, x0)):
            count = numpy_steps[name]
            numpy_ms = median_ms(lambda: numpy_loop(step, x, count), 1) / count
            jax_ms = None
            if name in jax_loops:
                c, jx_in, jcount = jax_loops[name]
                jax_ms = median_ms(lambda: jax.block_until_ready(c(jx_in)), 1) / jcount
            row = jx.get(name, {})
            rows[name].append({"numpy": numpy_ms, "jax": jax_ms,
                               "jx": row.get("loop_step_ms"),
                               "jx_call": row.get("single_step_ms"),
                               "jx_cpp": row.get("cpp_loop_step_ms"),
                               "limit": limit["step_ms"] if limit and name == "heat" else None})
    header = ["workload", "numpy ms/step", "jax fori ms/step", "jx fori ms/step",
              "jx 1 call ms", "jx C++ loop ms/step", "limit ms/step", "jx / 1 call",
              "jx / limit", "numpy / jx", "jax / jx"]
    table = []
    for name, label in (("heat", f"heat_{n}"), ("tiny", "tiny_16")):
        rs = rows[name]
        med = lambda key: median_over(rs, lambda r: r[key])
        ratio = lambda a, b: median_over(rs, lambda r: r[a] / r[b] if r[a] and r[b] else None)
        table.append([label, fmt_sig(med("numpy")), fmt_sig(med("jax")), fmt_sig(med("jx")),
                      fmt_sig(med("jx_call")), fmt_sig(med("jx_cpp")), fmt_sig(med("limit")),
                      fmt_sig(ratio("jx", "jx_call")), fmt_sig(ratio("jx", "limit")),
                      fmt_sig(ratio("numpy", "jx")), fmt_sig(ratio("jax", "jx"))])
    print(f"loop group: per-step medians over {args.rounds} rounds; heat: {n}x{n} float64, "
          f"{steps} steps (NumPy: {numpy_steps['heat']} steps of a Python loop), tiny: 16 "
          f"float64, {tiny_steps} steps; jax: jax.lax.fori_loop under jit (compiled once); jx: "
          "loop_bench (fori_loop, one step as a jit call, a C++ loop of jit calls); limit: "
          "heat_limit (hand-written OpenMP)")
    print_table(header, table)


def sort_main(args):
    """The sort group: NumPy's np.sort, np.argsort(kind="stable") and np.cumsum of --sort-n
    float64 normal values beside sort_bench (jnp.sort, argsort, cumsum through jit, and a memcpy
    of the same bytes), in rounds."""
    n, m = args.sort_n, args.sort_m
    x = np.random.default_rng(0).standard_normal(n)
    idx = np.random.default_rng(1).integers(0, n, size=m)

    def add_at():
        y = x.copy()  # as jx's functional update: a new array
        np.add.at(y, idx, 1.0)
        return y

    numpy_fns = {"sort": lambda: np.sort(x), "argsort": lambda: np.argsort(x, kind="stable"),
                 "cumsum": lambda: np.cumsum(x), "gather": lambda: x[idx], "scatter_add": add_at}
    rows = {name: [] for name in numpy_fns}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        jx = run_json_lines([os.path.join(args.build, "bench", "sort_bench"), "--json", "--n",
                             str(n), "--m", str(m), "--rounds", "3"]) or []
        jx = {row["name"].split(f"_{m}_of_")[0].rsplit(f"_{n}", 1)[0]: row for row in jx}
        for name, fn in numpy_fns.items():
            row = jx.get(name, {})
            rows[name].append({"numpy": median_ms(fn, 3), "jx": row.get("jx_ms"),
                               "copy": row.get("copy_ms")})
    header = ["workload", "numpy ms", "jx ms", "memcpy ms", "numpy / jx", "jx / copy"]
    table = []
    for name, rs in rows.items():
        med = lambda key: median_over(rs, lambda r: r[key])
        ratio = lambda a, b: median_over(rs, lambda r: r[a] / r[b] if r[a] and r[b] else None)
        label = f"{name}_{m}_of_{n}" if name in ("gather", "scatter_add") else f"{name}_{n}"
        table.append([label, fmt_sig(med("numpy")), fmt_sig(med("jx")),
                      fmt_sig(med("copy")), fmt_sig(ratio("numpy", "jx")),
                      fmt_sig(ratio("jx", "copy"))])
    print(f"sort group: medians over {args.rounds} rounds of {n} float64 normal values ({m} "
          f"random indices for gather, x[idx], and scatter_add, x.at[idx].add(1.0) / a copy and "
          f"np.add.at); numpy {np.__version__} (np.argsort: kind='stable', as jnp.argsort); jx: "
          "sort_bench (jit); memcpy: the n float64 into a pre-faulted buffer, in sort_bench's "
          "process")
    print_table(header, table)


def reduce_main(args):
    """The reduce group: np.sum(x) and np.sum(x, 0) of an --reduce-n square float32 and float64
    array beside reduce_bench (jit, and reading the same bytes once in its process), in rounds;
    then the relative errors of NumPy's and jx's sums that issue 32 measured (16,777,217 x
    float32 0.1, its mean, 2^24 uniform float64) against exact sums (math.fsum)."""
    n = args.reduce_n
    arrays = {t: np.random.default_rng(0).random((n, n)).astype(t) for t in ("float32", "float64")}
    rows = {}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        jx = run_json_lines([os.path.join(args.build, "bench", "reduce_bench"), "--json", "--n",
                             str(n), "--rounds", "10"]) or []
        jx = {row["name"]: row for row in jx}
        for t, x in arrays.items():
            for name, fn in (("sum", lambda: np.sum(x)), ("sum_axis0", lambda: np.sum(x, 0))):
                label = f"{name}_{t}_{n}"
                row = jx.get(label, {})
                rows.setdefault(label, []).append(
                    {"numpy": median_ms(fn, 5), "jx": row.get("jx_ms"), "read": row.get("read_ms")})
    header = ["workload", "numpy ms", "jx ms", "read once ms", "numpy / jx", "jx / read"]
    table = []
    for label, rs in rows.items():
        med = lambda key: median_over(rs, lambda r: r[key])
        ratio = lambda a, b: median_over(rs, lambda r: r[a] / r[b] if r[a] and r[b] else None)
        table.append([label, fmt_sig(med("numpy")), fmt_sig(med("jx")), fmt_sig(med("read")),
                      fmt_sig(ratio("numpy", "jx")), fmt_sig(ratio("jx", "read"))])
    print(f"reduce group: medians over {args.rounds} rounds; numpy {np.__version__}; jx: "
          "reduce_bench (jit); read once: a sum with independent vector accumulators on the pool's "
          "threads, in reduce_bench's process")
    print_table(header, table)

    count = 16777217
    tenths = np.full(count, 0.1, np.float32)
    exact = float(np.float32(0.1)) * count
    uniform = np.random.default_rng(7).random(1 << 24)
    accuracy = next((row for row in run_json_lines(
        [os.path.join(args.build, "bench", "reduce_bench"), "--json", "--n", "64", "--rounds",
         "1"]) or [] if row["name"] == "accuracy"), {})
    print("relative errors against exact sums (jx's float64 data: reduce_bench's own seeded "
          "mt19937_64 values; NumPy's: default_rng(7); both uniform [0, 1))")
    print_table(["sum", "numpy", "jx"], [
        [f"{count} x float32 0.1", f"{abs(float(np.sum(tenths)) - exact) / exact:.3g}",
         f"{accuracy.get('f32_tenths_sum', float('nan')):.3g}"],
        [f"mean of {count} x float32 0.1",
         f"{abs(float(np.mean(tenths)) - float(np.float32(0.1))) / float(np.float32(0.1)):.3g}",
         f"{accuracy.get('f32_tenths_mean', float('nan')):.3g}"],
        ["2^24 uniform float64",
         f"{abs(float(np.sum(uniform)) - math.fsum(uniform)) / math.fsum(uniform):.3g}",
         f"{accuracy.get('f64_uniform_sum', float('nan')):.3g}"]])


def numpy_jax_jx_table(args, work, jax_fns, jx_cmd, reps):
    """Rows of NumPy, JAX (jit) and jx times over args.rounds rounds: work maps a workload's name
    to (NumPy function, its argument), jax_fns (None without JAX) the name to JAX's function of the
    same argument; each round runs jx_cmd (one JSON line per workload with jx_ms) once and times
    each peer over reps calls. Returns the header and the rows of medians and ratios."""
    jax_work = {}
    for name, fn in (jax_fns or {}).items():
        f, x = jax.jit(fn), jnp.asarray(work[name][1])
        jax_work[name] = (lambda f=f, x=x: f(x).block_until_ready())
    rows = {name: [] for name in work}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        jx = {row["name"]: row for row in run_json_lines(jx_cmd) or []}
        for name, (fn, x) in work.items():
            rows[name].append({"numpy": median_ms(lambda: fn(x), reps),
                               "jax": median_ms(jax_work[name], reps) if name in jax_work else None,
                               "jx": jx.get(name, {}).get("jx_ms")})
    header = ["workload", "numpy ms", "jax ms", "jx ms", "numpy / jx", "jax / jx"]
    table = []
    for name, rs in rows.items():
        med = lambda key: median_over(rs, lambda r: r[key])
        ratio = lambda p, q: median_over(rs, lambda r: r[p] / r[q] if r[p] and r[q] else None)
        table.append([name, fmt_sig(med("numpy")), fmt_sig(med("jax")), fmt_sig(med("jx")),
                      fmt_sig(ratio("numpy", "jx")), fmt_sig(ratio("jax", "jx"))])
    return header, table


def linalg_main(args):
    """The linalg group: NumPy's and JAX's (jit) np.linalg routines on --linalg-n square float64
    matrices beside linalg_bench (jx::jit), on the same kinds of inputs, in rounds."""
    n, batch = args.linalg_n, args.linalg_batch
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n))
    general = a + np.eye(n) * n / 16
    pd = a @ a.T / n + np.eye(n)
    b = rng.standard_normal((n, 1))
    small = rng.standard_normal((batch, 8, 8)) + np.eye(8) * 4
    la = np.linalg
    work = {
        f"det_{n}": (lambda m: la.det(m), general),
        f"slogdet_{n}": (lambda m: la.slogdet(m).logabsdet, general),
        f"inv_{n}": (lambda m: la.inv(m), general),
        f"solve_{n}": (lambda m: la.solve(m, b), general),
        f"cholesky_{n}": (lambda m: la.cholesky(m), pd),
        f"eigh_{n}": (lambda m: la.eigh(m).eigenvectors, pd),
        f"eigvalsh_{n}": (lambda m: la.eigvalsh(m), pd),
        f"eig_{n}": (lambda m: la.eig(m).eigenvectors, general),
        f"eigvals_{n}": (lambda m: la.eigvals(m), general),
        f"svd_{n}": (lambda m: la.svd(m, full_matrices=False).U, a),
        f"svdvals_{n}": (lambda m: la.svd(m, compute_uv=False), a),
        f"qr_{n}": (lambda m: la.qr(m).R, a),
        f"pinv_{n}": (lambda m: la.pinv(m), a),
        f"inv_batch_{batch}x8x8": (lambda m: la.inv(m), small),
    }
    jax_fns = None
    if jax is not None:
        jla = jnp.linalg
        jax_fns = {
            f"det_{n}": jla.det, f"slogdet_{n}": lambda m: jla.slogdet(m).logabsdet,
            f"inv_{n}": jla.inv, f"solve_{n}": lambda m: jla.solve(m, b),
            f"cholesky_{n}": jla.cholesky, f"eigh_{n}": lambda m: jla.eigh(m).eigenvectors,
            f"eigvalsh_{n}": jla.eigvalsh, f"eig_{n}": lambda m: jla.eig(m)[1],
            f"eigvals_{n}": jla.eigvals,
            f"svd_{n}": lambda m: jla.svd(m, full_matrices=False).U,
            f"svdvals_{n}": jla.svdvals, f"qr_{n}": lambda m: jla.qr(m).R, f"pinv_{n}": jla.pinv,
            f"inv_batch_{batch}x8x8": jla.inv}
    header, table = numpy_jax_jx_table(
        args, work, jax_fns, [os.path.join(args.build, "bench", "linalg_bench"), "--json", "--n",
                              str(n), "--batch", str(batch), "--rounds", "3"], 3)
    print(f"linalg group: medians over {args.rounds} rounds, {n} x {n} float64 (normal values; "
          f"det, slogdet, inv, solve, eig, eigvals: + n/16 I; cholesky, eigh, eigvalsh: a a^T / n + I) and "
          f"{batch} 8 x 8 matrices; numpy {np.__version__}, jax "
          f"{jax.__version__ if jax is not None else 'not installed'} (jit); jx: linalg_bench")
    print_table(header, table)


def fft_main(args):
    """The fft group (issue 35's targets): np.fft and jnp.fft on a complex128 signal of 2^20
    values, the rfft2 of a 2048 x 2048 float32 array and a complex128 signal of prime length 10007,
    beside fft_bench (jx, jit), in rounds."""
    rng = np.random.default_rng(0)
    signal = rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)
    image = rng.standard_normal((2048, 2048)).astype(np.float32)
    prime = rng.standard_normal(10007) + 1j * rng.standard_normal(10007)
    work = {"fft_c128_1048576": (np.fft.fft, signal), "rfft2_f32_2048x2048": (np.fft.rfft2, image),
            "fft_c128_prime_10007": (np.fft.fft, prime)}
    jax_fns = None
    if jax is not None:
        jax_fns = {"fft_c128_1048576": jnp.fft.fft, "rfft2_f32_2048x2048": jnp.fft.rfft2,
                   "fft_c128_prime_10007": jnp.fft.fft}
    header, table = numpy_jax_jx_table(
        args, work, jax_fns,
        [os.path.join(args.build, "bench", "fft_bench"), "--json", "--rounds", "5"], 5)
    print(f"fft group: medians over {args.rounds} rounds; numpy {np.__version__} (pocketfft), jax "
          f"{jax.__version__ if jax is not None else 'not installed'} (jit); jx: fft_bench (jit)")
    print_table(header, table)


MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "--mca",
          "btl_vader_single_copy_mechanism", "none"]


def mpi_main(args):
    """The mpi group: mpi_bench (seed 000 (8,1) at n = 4096, an all-reduce of 8 MiB) in one process
    of 8 devices and in 2 processes of 4 under mpirun, beside MPI's own latency, bandwidth and
    MPI_Allreduce (mpi_limit), in rounds; medians of the rounds' medians."""
    bench = os.path.join(args.build, "bench")

    def mpirun(np_, devices, threads, program):
        env = dict(os.environ, JX_NUM_CPU_DEVICES=str(devices))
        if threads:
            env["JX_NUM_THREADS"] = str(threads)
        out = subprocess.run(MPIRUN + ["-np", str(np_), os.path.join(bench, program), "--json",
                                       "--reps", str(args.reps * 2)],
                             env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    one, two, limit = [], [], []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        one.append(mpirun(1, 8, None, "mpi_bench"))
        two.append(mpirun(2, 4, 1, "mpi_bench"))
        limit.append(mpirun(2, 1, 1, "mpi_limit"))
    med = lambda rows, key: statistics.median(row[key] for row in rows)
    single, multi = med(one, "diff_8x1_ms"), med(two, "diff_8x1_ms")
    ours, mpis = med(two, "allreduce_8mib_ms"), med(limit, "allreduce_8mib_ms")
    print_table(["workload", "jx ms", "baseline ms", "ratio"], [
        ["diff_4096 (8,1), 2 processes x 4 devices vs 1 process x 8", fmt(multi), fmt(single),
         fmt_sig(multi / single)],
        ["all-reduce 8 MiB float64 (jx sum over a split axis) vs MPI_Allreduce", fmt(ours),
         fmt(mpis), fmt_sig(ours / mpis)],
    ])
    print(f"diff (8,1): {two[-1]['diff_mpi_bytes']} bytes over MPI per call "
          f"(cost_analysis().communication_bytes: {two[-1]['diff_listed_bytes']:.0f}; in one "
          f"process of 8 devices, the bytes its devices read from each other in place: "
          f"{one[-1]['diff_listed_bytes']:.0f}); "
          f"peak RSS {med(two, 'peak_rss_mib'):.0f} MiB per process of 2, "
          f"{med(one, 'peak_rss_mib'):.0f} MiB in one process; x and the result held in "
          f"{med(two, 'held_mib'):.2f} MiB per process of 2, {med(one, 'held_mib'):.2f} MiB in one "
          f"process; MPI here: latency "
          f"{med(limit, 'latency_us'):.2f} us, {med(limit, 'bandwidth_gbs'):.2f} GB/s each way "
          f"(8 MiB)")


def trace_main(args):
    """The trace group: the seeds' compiled calls (seed_simpson, seed_diff; median of --reps
    calls each) with JX_TRACE unset and set, alternating, in rounds; medians of the rounds'
    medians and their ratio (the cost of recording the timeline)."""
    bench = os.path.join(args.build, "bench")
    trace_file = os.path.join(tempfile.gettempdir(), "jx_overhead.trace.json")

    def median_ms(program, trace):
        env = dict(os.environ)
        env.pop("JX_TRACE", None)
        if trace:
            env["JX_TRACE"] = trace_file
        out = subprocess.run([os.path.join(bench, program), "--json", "--reps", str(args.reps * 5)],
                             env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])["median_ms"]

    seeds = [("seed 001 simpson (stack)", "seed_simpson"), ("seed 000 diff 4096 (1,1)", "seed_diff")]
    times = {}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        for name, program in seeds:
            for trace in (False, True):
                times.setdefault((name, trace), []).append(median_ms(program, trace))
    rows = []
    for name, _ in seeds:
        off, on = statistics.median(times[(name, False)]), statistics.median(times[(name, True)])
        rows.append([name, fmt(off), fmt(on), fmt_sig(on / off)])
    print(f"trace group: medians over {args.rounds} rounds of the median of {args.reps * 5} calls")
    print_table(["workload", "off ms", "JX_TRACE ms", "ratio"], rows)


def machine():
    """This machine in a few words: the CPU's model name and the cores Python sees."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def plot(path, workloads, medians, subtitle):
    """Horizontal bars of each peer's median time per workload (log scale), the hand-written
    limit as a black line across each workload's bars; written to `path` (.svg, .png)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    peers = [c for c in ("numpy", "numexpr", "jax", "jx unfused", "jx")
             if any(v for v in medians.get(c, []))]
    colors = {"numpy": "#4c72b0", "numexpr": "#dd8452", "jax": "#55a868",
              "jx unfused": "#c0c0c0", "jx": "#c44e52"}
    height = 0.8 / len(peers)
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(workloads) * len(peers) / 2 + 2))
    for k, peer in enumerate(peers):
        ys = [i + (k - (len(peers) - 1) / 2) * height for i in range(len(workloads))]
        xs = [v if v else 0 for v in medians[peer]]
        ax.barh(ys, xs, height=height, color=colors[peer], label=peer)
    for i, limit in enumerate(medians.get("limit", [])):
        if limit:
            ax.plot([limit, limit], [i - 0.45, i + 0.45], color="black", linewidth=2,
                    label="hand-written limit" if i == 0 else None)
    ax.set_xscale("log")
    ax.set_yticks(range(len(workloads)), labels=workloads)
    ax.invert_yaxis()
    ax.set_xlabel("median time per call, ms (log scale; shorter is faster)")
    ax.set_title(f"jx beside NumPy, numexpr and JAX on {machine()}\n{subtitle}", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    print(f"chart: {path}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group",
                        choices=("fft", "fusion", "gemm", "grad", "kernels", "linalg", "loop",
                                 "mpi", "reduce", "sort", "trace"),
                        default="fusion",
                        help="fusion: the seeds and fusion_bench's kernels; gemm: contractions; "
                        "grad: value_and_grad and vmap against their baselines (grad_bench); "
                        "loop: lax.fori_loop (loop_bench, heat_limit); kernels: PolyBench/NPBench "
                        "kernels (kernels_bench, bench/peers/kernels.py); sort: sort, argsort and "
                        "cumsum (sort_bench); reduce: float sums and their accuracy (reduce_bench); "
                        "linalg: jnp.linalg (linalg_bench); fft: jnp.fft (fft_bench); trace: the seeds "
                        "with JX_TRACE on and off")
    parser.add_argument("--gemm", dest="group", action="store_const", const="gemm",
                        help="the same as --group gemm")
    parser.add_argument("--reps", type=int, default=10,
                        help="calls per measurement (gemm: copy_limit's reps)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of everything")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--plot", metavar="OUT.svg",
                        help="fusion group: also draw the medians as a chart (matplotlib)")
    parser.add_argument("--skip-fusion-bench", action="store_true",
                        help="do not run fusion_bench (jx's chain10, softmax and matmul rows)")
    loop = parser.add_argument_group("loop group")
    loop.add_argument("--n", type=int, default=1024, help="the heat grid's side")
    loop.add_argument("--steps", type=int, default=1000, help="heat steps")
    loop.add_argument("--tiny-steps", type=int, default=100000, help="steps of the 16-float loop")
    parser.add_argument("--only", metavar="NAME", help="kernels group: one kernel")
    parser.add_argument("--sort-n", type=int, default=1 << 24, help="sort group: elements")
    parser.add_argument("--sort-m", type=int, default=1 << 20, help="sort group: indices")
    parser.add_argument("--reduce-n", type=int, default=4096, help="reduce group: array side")
    parser.add_argument("--linalg-n", type=int, default=1024, help="linalg group: matrix side")
    parser.add_argument("--linalg-batch", type=int, default=4096,
                        help="linalg group: 8 x 8 matrices in the batched inverse")
    gemm = parser.add_argument_group("gemm group")
    gemm.add_argument("--sizes", default="64,256,512,1024,2048,4096",
                      help="square matmul sizes (also blas_limit's)")
    gemm.add_argument("--dtypes", default="float32,float64", type=lambda s: s.split(","))
    gemm.add_argument("--shrink", type=int, default=1,
                      help="divide the fixed sizes by K (smoke runs; names follow the sizes)")
    gemm.add_argument("--min-reps", type=int, default=3)
    gemm.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    gemm.add_argument("--max-reps", type=int, default=1000)
    args = parser.parse_args()
    if args.group == "gemm":
        gemm_main(args)
        return
    if args.group == "grad":
        grad_main(args)
        return
    if args.group == "loop":
        loop_main(args)
        return
    if args.group == "sort":
        sort_main(args)
        return
    if args.group == "fft":
        fft_main(args)
        return
    if args.group == "mpi":
        mpi_main(args)
        return
    if args.group == "linalg":
        linalg_main(args)
        return
    if args.group == "reduce":
        reduce_main(args)
        return
    if args.group == "trace":
        trace_main(args)
        return
    if args.group == "kernels":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import kernels
        kernels.kernels_main(args, run_json_lines, median_over, fmt_sig, print_table)
        return

    inp = make_inputs()
    cases = {"numpy": numpy_cases(inp)}
    print(f"numpy {np.__version__}", file=sys.stderr)
    if ne is not None:
        print(f"numexpr {ne.__version__} ({ne.detect_number_of_cores()} cores)", file=sys.stderr)
        cases["numexpr"] = numexpr_cases(inp)
    else:
        print("numexpr not installed: skipped", file=sys.stderr)
    if jax is not None:
        print(f"jax {jax.__version__} on {jax.devices()[0].platform}", file=sys.stderr)
        cases["jax"] = jax_cases(inp)
    else:
        print("jax not installed: skipped", file=sys.stderr)

    # rounds[r][column][workload]: that round's median.
    rounds, notes = [], []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        cols = {peer: {w: median_ms(fn, args.reps) for w, fn in c.items()}
                for peer, c in cases.items()}
        jx_cols, notes = jx_round(os.path.join(args.build, "bench"), args.reps,
                                  not args.skip_fusion_bench)
        rounds.append(cols | jx_cols)

    def cell(rnd, col, w):
        return rnd.get(col, {}).get(w)

    def ratio(rnd, num, den, w):
        a, b = cell(rnd, num, w), cell(rnd, den, w)
        return a / b if a and b else None

    def over_rounds(f):
        return median_over(rounds, f)

    columns = ["numpy", "numexpr", "jax", "jx", "jx unfused", "limit"]
    ratios = [("numpy", "jx"), ("jax", "jx"), ("jx", "limit")]
    header = ["workload"] + [f"{c} ms" for c in columns] + [f"{a}/{b}" for a, b in ratios]
    rows = [[w] + [fmt(over_rounds(lambda rnd: cell(rnd, c, w))) for c in columns] +
            [fmt(over_rounds(lambda rnd: ratio(rnd, a, b, w))) for a, b in ratios]
            for w in WORKLOADS]
    if args.plot:
        medians = {c: [over_rounds(lambda rnd: cell(rnd, c, w)) for w in WORKLOADS]
                   for c in columns}
        plot(args.plot, WORKLOADS, medians, f"medians over {args.rounds} rounds of "
             f"{args.reps} calls; numpy {np.__version__}"
             + (f", numexpr {ne.__version__}" if ne is not None else "")
             + (f", jax {jax.__version__}" if jax is not None else ""))
    print(f"medians over {args.rounds} rounds of medians over {args.reps} calls; ratios are "
          "medians of per-round ratios; numpy/jx and jax/jx > 1: jx is faster; jx/limit: jx's "
          "time over hand-written C++'s")
    print_table(header, rows)
    print("last round:")
    for note in notes:
        print(f"  {note}")


if __name__ == "__main__":
    main()
