"""The kernels group (issue 33): PolyBench/NPBench kernels in NumPy (as NPBench writes them: the
loops as Python loops) and in JAX (as NPBench's JAX versions: lax.fori_loop under jit), beside
build/bench/kernels_bench (jx, the same loops), whose results are checked against NumPy's.

    python3 bench/peers/peers.py --group kernels [--rounds 3] [--build build] [--only NAME]

Each family's module (kernels_stencils.py, kernels_linalg.py, kernels_misc.py) lists its kernels:
their size as kernels_bench prints it (checked), inputs built by the same formulas as
bench/kernels/*.cpp's, the NumPy and JAX versions and, where rtol 1e-5 is not the check, a
compare of its own."""
import os
import sys
import tempfile
import time

import numpy as np

import kernels_linalg
import kernels_misc
import kernels_stencils

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # peers.py says so
    jax = None

KERNELS = {**kernels_stencils.KERNELS, **kernels_linalg.KERNELS, **kernels_misc.KERNELS}


def compare(mine, numpy_result):
    """None when jx's results match NumPy's (rtol 1e-5), else what differs."""
    for k, (a, b) in enumerate(zip(mine, numpy_result)):
        b = np.asarray(b)
        if a.shape != b.shape:
            return f"output {k}: shape {a.shape}, NumPy's {b.shape}"
        if not np.allclose(a, b, rtol=1e-5, atol=0):
            worst = np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))
            return f"output {k}: relative error up to {worst:.3g}"
    return None


def as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def median_ms(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return sorted(ts)[len(ts) // 2]


def kernels_main(args, run_json_lines, median_over, fmt_sig, print_table):
    names = [n for n in KERNELS if not args.only or n == args.only]
    data = {name: KERNELS[name]["inputs"]() for name in names}
    jitted = {name: jax.jit(KERNELS[name]["jax"], static_argnums=KERNELS[name]["static"])
              for name in names if jax is not None and KERNELS[name].get("jax")}
    jax_args = {name: tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in d)
                for name, d in data.items()} if jax is not None else {}
    rows = {name: [] for name in names}
    checks = {}
    only = ["--only", args.only] if args.only else []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        with tempfile.TemporaryDirectory() as out:
            jx = run_json_lines([os.path.join(args.build, "bench", "kernels_bench"), "--json",
                                 "--rounds", "3", "--out", out] + only) or []
            jx = {row["name"]: row for row in jx}
            limits = run_json_lines([os.path.join(args.build, "bench", "stencil_limit"), "--json",
                                     "--rounds", "3"]) or []
            limits = {row["name"]: row for row in limits}
            for name in names:
                spec, row = KERNELS[name], jx.get(name, {})
                if row and row["size"] != spec["size"]:
                    sys.exit(f"kernels_bench's {name} is {row['size']}, kernels.py's "
                             f"{spec['size']}")
                numpy_result = as_tuple(spec["numpy"](*data[name]))
                if r == 0 and row:
                    mine = [np.load(os.path.join(out, f"{name}_{k}.npy"))
                            for k in range(len(numpy_result))]
                    checks[name] = spec.get("compare", compare)(mine, numpy_result)
                numpy_ms = median_ms(lambda: spec["numpy"](*data[name]), 1)
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
        table.append([name, KERNELS[name]["size"], fmt_sig(med("numpy")), fmt_sig(med("jax")),
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
