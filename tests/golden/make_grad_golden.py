#!/usr/bin/env python3
"""Writes grad_golden.inc: jax.jvp of jnp's differentiable functions at special points, as exact
bit patterns, for tests/transforms/test_grad_golden.cpp.

Run with the JAX of the benchmark peers: /opt/jx-venv/bin/python3 tests/golden/make_grad_golden.py.
Every function below has a C++ twin of the same name in the test. Each is differentiated along one
input at a time (the other inputs' tangents are zero arrays, not symbolic zeros, as in the test),
with unit tangents at special points and a tangent of 0.7 at ordinary points (which shows the
order of a rule's roundings). jit is disabled, so each primitive of a rule runs on its own and XLA
rewrites no more than one primitive (it still turns a division by a broadcast scalar into a product
with the reciprocal: jnp.log2's). XLA on CPU flushes denormals to zero, so no input is a denormal
(the test flushes jx's denormal results).
"""

import math
import os

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special
from jax import lax

jax.config.update("jax_enable_x64", True)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_golden.inc")
inf, nan = math.inf, math.nan

# Unary functions: name -> (function, extra points beyond the shared specials).
UNARY = {
    "negative": (jnp.negative, []),
    "abs": (jnp.abs, []),
    "sign": (jnp.sign, []),
    "exp": (jnp.exp, [709.7, 710.0, -745.0, -746.0]),
    "expm1": (jnp.expm1, [709.7, 710.0, -40.0]),
    "log": (jnp.log, []),
    "log1p": (jnp.log1p, [-1.0 - 2**-52, -0.999999]),
    "sqrt": (jnp.sqrt, []),
    "sin": (jnp.sin, [math.pi]),
    "cos": (jnp.cos, [math.pi / 2]),
    "tan": (jnp.tan, [math.pi / 2, -math.pi / 2]),
    "tanh": (jnp.tanh, [20.0, -20.0]),
    "floor": (jnp.floor, [1.5, -1.5]),
    "ceil": (jnp.ceil, [1.5, -1.5]),
    "erf_inv": (lax.erf_inv, [0.999, -0.999, 1.5]),
    "sinh": (jnp.sinh, [710.0, -710.0]),
    "cosh": (jnp.cosh, [710.0, -710.0]),
    "arcsin": (jnp.arcsin, [1 - 2**-53, -(1 - 2**-53), 0.999999, 1.5]),
    "arccos": (jnp.arccos, [1 - 2**-53, -(1 - 2**-53), 0.999999, 1.5]),
    "arctan": (jnp.arctan, [1e154, 1e155]),
    "arcsinh": (jnp.arcsinh, [1e154, 1e155]),
    "arccosh": (jnp.arccosh, [1 + 2**-52, 1.5, 1e154, 1e155]),
    "arctanh": (jnp.arctanh, [1 - 2**-53, -(1 - 2**-53), 0.999999, 1.5]),
    "exp2": (jnp.exp2, [1023.9, 1024.0, -1075.0]),
    "log2": (jnp.log2, [1024.0]),
    "log10": (jnp.log10, [1000.0]),
    "cbrt": (jnp.cbrt, [27.0, -8.0]),
    "erf": (jax.scipy.special.erf, [27.0, -6.0]),
    "erfc": (jax.scipy.special.erfc, [27.0, -6.0]),
    "round": (jnp.round, [1.5, -1.5, 2.5]),
    "square": (jnp.square, [1e154, 1e155]),
    "lax_square": (lax.square, [1e154, 1e155]),
    "rsqrt": (lax.rsqrt, [4.0, 1e-300, 1e300]),
    "logistic": (lax.logistic, [40.0, -40.0, 750.0, -750.0]),
    # convert's rule both ways: float64 through float32 (rounding the tangent), float32 through
    # float64.
    "astype_roundtrip": (lambda x: x.astype(jnp.float32 if x.dtype == jnp.float64 else
                                            jnp.float64).astype(x.dtype), [1e39, 3.4e38]),
    # Literal bounds (weak, as the C++ scalars): ties with either bound split the tangent.
    "clip": (lambda x: jnp.clip(x, -1.0, 1.0), [-2.0, 1.5]),
    # The untaken branch's derivative is inf or nan at x <= 0; forward mode selects it away.
    "where_sqrt": (lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0), []),
    # Concrete Python ints take jnp.power's integer_pow path; Python floats lax.pow's.
    "power_int0": (lambda x: jnp.power(x, 0), []),
    "power_int1": (lambda x: jnp.power(x, 1), []),
    "power_int2": (lambda x: jnp.power(x, 2), []),
    "power_int3": (lambda x: jnp.power(x, 3), [1e103, 1e102]),
    "power_int_neg1": (lambda x: jnp.power(x, -1), []),
    "power_int_neg2": (lambda x: jnp.power(x, -2), []),
    "power_float0": (lambda x: jnp.power(x, 0.0), []),
    "power_float_half": (lambda x: jnp.power(x, 0.5), []),
    "power_float2": (lambda x: jnp.power(x, 2.0), []),
}

# jnp.power with an int array exponent takes lax.pow's integer rule (0 where the exponent is 0):
# float64 only (x64 promotes int32 and float64 to float64 in both). Exactly these points.
POWER_INT_ARRAY_X = [0.0, 0.0, -0.0, 0.0, 0.0, 2.0, nan, inf, 0.5, -2.0]
POWER_INT_ARRAY_Y = np.array([0, 1, 0, 2, -1, 0, 0, 0, 3, -3], np.int32)
FIXED = {"power_int_array": (lambda x: jnp.power(x, POWER_INT_ARRAY_Y), POWER_INT_ARRAY_X)}

SIGN_CHANGES = [(5.0, 3.0), (-5.0, 3.0), (5.0, -3.0), (-5.0, -3.0), (6.0, 3.0), (-6.0, 3.0),
                (6.0, -3.0), (0.5, -2.0), (-0.5, 2.0), (-0.0, 2.0), (0.0, -2.0), (3.0, 0.0),
                (-3.0, -0.0), (7.5, 2.5), (1e300, 3.0), (inf, 2.0), (2.0, inf), (-2.0, inf)]
POW_POINTS = ([(0.0, y) for y in (0.0, 0.5, 1.0, 2.0, -1.0, 3.0, -2.0, -0.5)] +
              [(-0.0, y) for y in (0.0, 0.5, 1.0, 2.0, -1.0, 3.0)] +
              [(x, 0.0) for x in (2.0, -2.0, inf, -inf, nan, 1e-300)] +
              [(-1.0, 0.5), (-2.0, 3.0), (-2.0, 2.0), (2.0, 10.0), (10.0, 400.0), (1.0, inf),
               (0.5, inf), (2.0, -inf), (inf, 0.5), (inf, -0.5)])

# Binary functions: name -> (function, extra (x, y) points beyond the shared grid).
BINARY = {
    "add": (jnp.add, []),
    "subtract": (jnp.subtract, []),
    "multiply": (jnp.multiply, [(1e300, 1e10)]),
    "divide": (jnp.divide, [(1.0, 1e-300), (1e300, 1e-300), (3.0, 1e200), (1.0, 1e155)]),
    "remainder": (jnp.remainder, SIGN_CHANGES),
    "fmod": (jnp.fmod, SIGN_CHANGES),
    "floor_divide": (jnp.floor_divide, SIGN_CHANGES),
    "power": (jnp.power, POW_POINTS),
    "maximum": (jnp.maximum, [(3.0, 3.0), (-2.0, -2.0), (inf, inf)]),
    "minimum": (jnp.minimum, [(3.0, 3.0), (-2.0, -2.0), (inf, inf)]),
    "arctan2": (jnp.arctan2, [(1e300, 1e300), (1e-300, 1e-300), (3.0, 4.0)]),
    "hypot": (jnp.hypot, [(3.0, 4.0), (1e300, 1e300), (1e-300, 1e-300), (3.0, -3.0)]),
    "copysign": (jnp.copysign, [(3.0, -0.0), (-3.0, 0.0)]),
    # jnp.logaddexp is a custom_jvp; jx composes it (a known difference at ties).
    "logaddexp": (jnp.logaddexp, [(3.0, 3.0), (-2.0, -2.0), (1000.0, 0.0), (0.0, 1000.0)]),
    # jnp.logaddexp2 is a custom_jvp too; jx's op carries the same rule.
    "logaddexp2": (jnp.logaddexp2, [(3.0, 3.0), (-2.0, -2.0), (1000.0, 0.0), (0.0, 1000.0)]),
    # A select without max's balancing: at ties the tangent is y's.
    "where_greater": (lambda x, y: jnp.where(x > y, x, y), []),
}

GRID = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.5, inf, -inf, nan]
ORDINARY_UNARY = [0.3, -0.7, 1.7, 0.9, 2.3, -1.3]
ORDINARY_BINARY = [(0.3, 1.7), (-0.7, 2.3), (1.9, -0.6), (2.5, 0.4), (-1.3, -0.45)]
ORDINARY_TANGENT = 0.7


def specials(dtype):
    """Shared unary points: zeros, units, infinities, nan, the dtype's tiny and huge values."""
    if dtype == np.float64:
        tiny, huge = [1e-300, -1e-300], [1e300, -1e300]
    else:
        tiny, huge = [1e-30, -1e-30], [1e30, -1e30, 3e38]
    return ([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5, 3.0, 100.0, -100.0, inf, -inf, nan] +
            tiny + huge)


# NumPy's (libm's) float64 functions, to leave out the points where XLA's own function is more than
# MAX_ULPS from them: those test XLA's math library (its exp2 is exp(x log 2), its sinh and cosh
# lose hundreds of ulps near overflow, its erfc 7 ulps at 0.9), not a derivative rule.
REFERENCE = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
    "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan, "arcsinh": np.arcsinh,
    "arccosh": np.arccosh, "arctanh": np.arctanh, "exp2": np.exp2, "log2": np.log2,
    "log10": np.log10, "cbrt": np.cbrt, "erf": scipy.special.erf, "erfc": scipy.special.erfc,
    "erf_inv": scipy.special.erfinv, "rsqrt": lambda x: 1 / np.sqrt(x),
    "logistic": scipy.special.expit,
}
MAX_ULPS = 4
DENORMAL = {np.float64: np.finfo(np.float64).tiny, np.float32: np.finfo(np.float32).tiny}


def ulp_distance(a, b):
    """Elementwise distance in representable values (nan matches nan, an infinity itself)."""
    a, b = np.asarray(a), np.asarray(b)
    i = np.int64 if a.dtype == np.float64 else np.int32
    def key(x):
        k = x.view(i).astype(object)
        return [(np.iinfo(i).min - v - 1) if v < 0 else v for v in k]
    d = np.array([abs(p - q) for p, q in zip(key(a), key(b))], dtype=object)
    both_nan = np.isnan(a) & np.isnan(b)
    inf = (np.isinf(a) | np.isinf(b)) & (a != b)
    return np.where(both_nan, 0, np.where(inf | (np.isnan(a) != np.isnan(b)), 2**63, d))


def xla_accurate(fn_name, x, out):
    """Whether JAX's primal at each point is within MAX_ULPS of NumPy's float64 one."""
    if fn_name not in REFERENCE:
        return np.ones(x.shape, bool)
    with np.errstate(all="ignore"):
        want = REFERENCE[fn_name](x.astype(np.float64)).astype(x.dtype)
    return ulp_distance(out, want) <= MAX_ULPS


def bits(a):
    a = np.ascontiguousarray(np.asarray(a))
    return a.reshape(-1).view(np.uint64 if a.dtype == np.float64 else np.uint32)


def jvp(fn, primals, tangents):
    with jax.disable_jit():
        out, t = jax.jvp(fn, tuple(jnp.asarray(p) for p in primals),
                         tuple(jnp.asarray(t) for t in tangents))
    return np.asarray(out), np.asarray(t)


def words(dtype, *arrays):
    """The columns' bit patterns interleaved row by row, as hex words of the dtype's width."""
    width = 16 if dtype == np.float64 else 8
    cols = [bits(np.asarray(a, dtype)) for a in arrays]
    return [f"0x{int(w):0{width}x}" for row in zip(*cols) for w in row]


def representable(points, dtype):
    """The points whose finite values stay finite and normal in dtype."""
    def ok(v):
        return (not math.isfinite(v) or v == 0 or
                float(DENORMAL[dtype]) <= abs(v) <= float(np.finfo(dtype).max))
    return [p for p in points if all(ok(v) for v in (p if isinstance(p, tuple) else (p,)))]


def elementwise_cases():
    cases = []
    for dtype in (np.float64, np.float32):
        name = "64" if dtype == np.float64 else "32"
        for fn_name, (fn, extra) in UNARY.items():
            pts = specials(dtype) + representable(extra, dtype)
            x = np.array(pts + ORDINARY_UNARY, dtype)
            t = np.array([1.0] * len(pts) + [ORDINARY_TANGENT] * len(ORDINARY_UNARY), dtype)
            out, tout = jvp(fn, [x], [t])
            keep = xla_accurate(fn_name, x, out)
            if not keep.all():
                print(f"{fn_name} float{name}: XLA inaccurate at {x[~keep]}, left out")
            x, t, out, tout = x[keep], t[keep], out[keep], tout[keep]
            cases.append((fn_name, name, 1, 0, len(x), words(dtype, x, t, out, tout)))
        for fn_name, (fn, pts) in FIXED.items():
            if dtype != np.float64:
                continue
            x = np.array(pts, dtype)
            t = np.ones_like(x)
            out, tout = jvp(fn, [x], [t])
            cases.append((fn_name, name, 1, 0, len(x), words(dtype, x, t, out, tout)))
        for fn_name, (fn, extra) in BINARY.items():
            pairs = [(a, b) for a in GRID for b in GRID] + representable(extra, dtype)
            x = np.array([p[0] for p in pairs] + [p[0] for p in ORDINARY_BINARY], dtype)
            y = np.array([p[1] for p in pairs] + [p[1] for p in ORDINARY_BINARY], dtype)
            unit = np.array([1.0] * len(pairs) + [ORDINARY_TANGENT] * len(ORDINARY_BINARY), dtype)
            zero = np.zeros_like(unit)
            for wrt in (0, 1):
                tx, ty = (unit, zero) if wrt == 0 else (zero, unit)
                out, tout = jvp(fn, [x, y], [tx, ty])
                cases.append((fn_name, name, 2, wrt, len(x), words(dtype, x, y, tx, ty, out, tout)))
    return cases


PATTERN = [0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0, -2.0, 1.25, -0.5, 4.0, 0.125]


def pattern(shape):
    n = int(np.prod(shape))
    return np.array((PATTERN * (n // len(PATTERN) + 1))[:n]).reshape(shape)


# Reductions and contractions: name -> (function, input arrays). Values are small dyadic numbers,
# so every sum and product is exact whatever its order.
REDUCTIONS = {
    "sum": (jnp.sum, [np.array([[1.0, -2.0, 0.5], [4.0, 0.25, -3.0]])]),
    "sum_axis0": (lambda x: jnp.sum(x, axis=0), [np.array([[1.0, -2.0, 0.5], [4.0, 0.25, -3.0]])]),
    "mean": (jnp.mean, [np.array([[1.0, -2.0, 0.5], [4.0, 0.25, -3.0]])]),
    "mean_axis1": (lambda x: jnp.mean(x, axis=1),
                   [np.array([[1.0, -2.0, 0.5, 2.5], [4.0, 0.25, -3.0, 0.75]])]),
    "prod": (jnp.prod, [np.array([2.0, -0.5, 3.0, 4.0])]),
    "prod_one_zero": (jnp.prod, [np.array([2.0, 0.0, 3.0, -4.0])]),
    "prod_two_zeros": (jnp.prod, [np.array([0.0, 2.0, -0.0, 3.0])]),
    "prod_axis1_zeros": (lambda x: jnp.prod(x, axis=1),
                         [np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.5, -2.0, 4.0]])]),
    "prod_inf": (jnp.prod, [np.array([2.0, inf, 0.5])]),
    "max": (jnp.max, [np.array([1.0, 3.0, -2.0, 0.5])]),
    "max_ties": (jnp.max, [np.array([1.0, 3.0, 3.0, -2.0, 3.0])]),
    "max_axis0_ties": (lambda x: jnp.max(x, axis=0),
                       [np.array([[1.0, 2.0, -0.0], [1.0, 5.0, 0.0], [0.5, 5.0, -1.0]])]),
    "max_nan": (jnp.max, [np.array([1.0, nan, 3.0])]),
    "max_inf_ties": (jnp.max, [np.array([inf, 1.0, inf])]),
    "min": (jnp.min, [np.array([1.0, 3.0, -2.0, 0.5])]),
    "min_ties": (jnp.min, [np.array([-2.0, 3.0, -2.0, -2.0, 0.5])]),
    "min_axis1_ties": (lambda x: jnp.min(x, axis=1),
                       [np.array([[1.0, 1.0, 2.0], [-0.0, 0.0, 4.0], [3.0, 2.0, 2.5]])]),
    "dot": (jnp.dot, [np.array([1.0, -2.0, 0.5]), np.array([4.0, 0.25, -3.0])]),
    "matmul": (jnp.matmul, [np.array([[1.0, -2.0, 0.5], [4.0, 0.25, -3.0]]),
                            np.array([[0.5, 2.0], [-1.0, 1.5], [3.0, -0.25]])]),
}


def reduction_cases():
    cases = []
    for fn_name, (fn, inputs) in REDUCTIONS.items():
        for dtype in (np.float64, np.float32):
            name = "64" if dtype == np.float64 else "32"
            xs = [np.asarray(x, dtype) for x in inputs]
            for tangent in ("ones", "pattern"):
                for wrt in range(len(xs)):
                    ts = [np.zeros_like(x) for x in xs]
                    ts[wrt] = (np.ones_like(xs[wrt]) if tangent == "ones" else
                               pattern(xs[wrt].shape).astype(dtype))
                    out, tout = jvp(fn, xs, ts)
                    data = []
                    for x, t in zip(xs, ts):
                        data += words(dtype, x.reshape(-1)) + words(dtype, t.reshape(-1))
                    data += words(dtype, out.reshape(-1)) + words(dtype, tout.reshape(-1))
                    shapes = [list(x.shape) for x in xs] + [list(out.shape)]
                    cases.append((fn_name, name, tangent, wrt, shapes, data))
    return cases


def block(ws, per_line):
    return "\n".join("      " + " ".join(w + "," for w in ws[i:i + per_line])
                     for i in range(0, len(ws), per_line))


def main():
    parts = [
        "// jax.jvp reference values (bit patterns) for tests/transforms/test_grad_golden.cpp.\n",
        "// Generated by tests/golden/make_grad_golden.py; do not edit.\n",
        f"// jax {jax.__version__}, jax_enable_x64=True, jit disabled (each primitive alone).\n",
        "#pragma once\n\n#include <cstdint>\n#include <vector>\n\nnamespace golden::grad {\n\n",
        f'inline constexpr const char *kJaxVersion = "{jax.__version__}";\n\n',
        "// fn at `points` points, differentiated along input `wrt`: per point its inputs, their\n",
        "// tangents, the output and its tangent. Words: float64 bits (float32's if bits is 32).\n",
        "struct Elementwise {\n  const char *fn;\n  int bits, arity, wrt;\n  int64_t points;\n",
        "  std::vector<uint64_t> data;\n};\n\n",
        "// fn on its inputs (shapes: the inputs', then the output's) with tangent `tangent`\n",
        "// (ones or tests/golden/make_grad_golden.py's pattern) on input wrt, zeros on the\n",
        "// others: each input's values and tangent, then the output's values and tangent.\n",
        "struct Reduction {\n  const char *fn;\n  int bits;\n  const char *tangent;\n  int wrt;\n",
        "  std::vector<std::vector<int64_t>> shapes;\n  std::vector<uint64_t> data;\n};\n\n",
    ]
    ew = elementwise_cases()
    parts.append("inline const std::vector<Elementwise> elementwise = {\n")
    for fn_name, b, arity, wrt, n, ws in ew:
        per_line = 6 if b == "64" else 10
        parts.append(f'  {{"{fn_name}", {b}, {arity}, {wrt}, {n}, {{\n'
                     f'{block(ws, per_line)}\n  }}}},\n')
    parts.append("};\n\n")
    red = reduction_cases()
    parts.append("inline const std::vector<Reduction> reductions = {\n")
    for fn_name, b, tangent, wrt, shapes, ws in red:
        per_line = 6 if b == "64" else 10
        shape_text = ", ".join("{" + ", ".join(map(str, s)) + "}" for s in shapes)
        parts.append(f'  {{"{fn_name}", {b}, "{tangent}", {wrt}, {{{shape_text}}}, {{\n'
                     f'{block(ws, per_line)}\n  }}}},\n')
    parts.append("};\n\n}  // namespace golden::grad\n")
    with open(OUT, "w") as f:
        f.write("".join(parts))
    points = sum(c[4] for c in ew)
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes): {len(ew)} elementwise cases "
          f"({points} points), {len(red)} reduction cases")


if __name__ == "__main__":
    main()
