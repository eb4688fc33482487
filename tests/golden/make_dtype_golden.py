#!/usr/bin/env python3
"""Writes the goldens that tests/api/test_dtype_golden.cpp checks jx's narrow and unsigned integer,
storage float and complex dtypes against: NumPy's promotion table, wrapping arithmetic, divisions
by zero, shifts past the width, conversions from floats (in range and the wraps NumPy's x86 casts
give), reductions' accumulator dtypes, sorting, complex arithmetic and functions, and the .npy
files of every dtype.

Run with the project's venv: python tests/golden/make_dtype_golden.py. Results go to
dtypes/<case>.npy, inputs to dtypes/in_<name>.npy; dtypes/MANIFEST.txt lists them.
"""
import os

import ml_dtypes
import numpy as np

import golden_io

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtypes")
INPUTS = {}

# jx's dtype codes (include/jx/dtype.h), in order.
JX_DTYPES = ["bool", "int32", "int64", "float32", "float64", "int8", "int16", "uint8", "uint16",
             "uint32", "uint64", "float16", "bfloat16", "complex64", "complex128"]
BF16 = ml_dtypes.bfloat16


def inp(name, a):
    INPUTS[name] = np.asarray(a)
    return INPUTS[name]


INTS = [0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 127, -128, 255, 300, -300, 32767, -32768, 65535,
        2**31 - 1, -2**31, 2**32 - 1, 2**40 + 3, -2**40 - 5, 2**63 - 1, -2**63]
VALUES = {t: inp(t, np.array(INTS, dtype=np.int64).astype(t)) for t in
          ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]}
# Second operands: a rotation with zeros, ones and minus ones among them.
OTHERS = {t: inp(t + "b", np.roll(v, 5)) for t, v in VALUES.items()}
SHIFTS = {t: inp(t + "_shift", np.array([0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 65, 2, 5, 1, 0, 9,
                                         17, 33, 4, 6, 12, 60, 62, 1]).astype(t))
          for t in VALUES}
SMALL_EXP = {t: inp(t + "_exp", np.array([0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 31, 33, 63, 64, 1, 2, 3,
                                          4, 0, 1, 2, 3, 11, 13, 2]).astype(t)) for t in VALUES}
floats = inp("floats", np.array([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 127.9, -128.9, 200.0,
                                 255.0, 300.0, -1.0, -200.0, 65535.0, 70000.0, -40000.0,
                                 2.0**31 - 1, -2.0**31, 4e9, 2.0**53, 1e17, 2.0**63,
                                 1.5 * 2.0**63, -9e18]))
# Out-of-range casts are undefined in C (NumPy warns "invalid value encountered in cast"); these
# give the same result at every position of NumPy's loops, except to uint32 from 2^32 up, where
# NumPy's SIMD lanes give 0 and its scalar tail (and jx) the low bits of the int64 conversion:
# uint32 is tested on the values below 2^32.
floats_u32 = inp("floats_u32", floats[floats < 2.0**32])
grid = inp("grid", np.arange(-12, 12).reshape(2, 3, 4))

cases = [
    ("promotion_table", lambda: np.array(
        [[JX_DTYPES.index(np.promote_types(*(BF16 if t == "bfloat16" else t for t in (a, b))).name)
          for b in JX_DTYPES] for a in JX_DTYPES],
        dtype=np.int64)),
    # Weakly typed scalars keep the array's dtype (NEP 50, as jnp).
    ("scalar_add_u8", lambda: VALUES["uint8"] + 3),
    ("scalar_mul_i8", lambda: VALUES["int8"] * 5),
    ("scalar_float_u16", lambda: VALUES["uint16"] * 0.5),
    ("i8_plus_f32", lambda: VALUES["int8"] + np.float32(1.25)),
    ("u32_plus_i32", lambda: VALUES["uint32"] + VALUES["uint32"].astype(np.int32)),
    ("u64_plus_i64", lambda: VALUES["uint64"] + np.arange(25)),
    ("i16_plus_u8", lambda: VALUES["int16"] + VALUES["uint8"]),
    ("mean_i8", lambda: np.mean(VALUES["int8"])),
    ("sum_u8_dtype", lambda: np.sum(VALUES["uint8"])),
    ("sum_i16_axis", lambda: np.sum(grid.astype(np.int16), axis=1)),
    ("cumsum_u16", lambda: np.cumsum(VALUES["uint16"])),
    ("prod_i8", lambda: np.prod(grid.astype(np.int8)[0] + 13, axis=1)),
    ("max_u64", lambda: np.max(VALUES["uint64"])),
    ("min_u32", lambda: np.min(VALUES["uint32"])),
    ("argmax_u64", lambda: np.argmax(VALUES["uint64"])),
    ("argmin_i8", lambda: np.argmin(VALUES["int8"])),
    ("linspace_u8", lambda: np.linspace(0, 255, 7, dtype=np.uint8)),
    ("arange_i16", lambda: np.arange(-5, 20, 3, dtype=np.int16)),
]
for t, v in VALUES.items():
    w = OTHERS[t]
    cases += [
        (f"add_{t}", lambda v=v, w=w: v + w),
        (f"subtract_{t}", lambda v=v, w=w: v - w),
        (f"multiply_{t}", lambda v=v, w=w: v * w),
        (f"floor_divide_{t}", lambda v=v, w=w: np.floor_divide(v, w)),
        (f"remainder_{t}", lambda v=v, w=w: np.remainder(v, w)),
        (f"fmod_{t}", lambda v=v, w=w: np.fmod(v, w)),
        (f"true_divide_{t}", lambda v=v, w=w: v / w),
        (f"power_{t}", lambda v=v, t=t: np.power(v, SMALL_EXP[t])),
        (f"left_shift_{t}", lambda v=v, t=t: np.left_shift(v, SHIFTS[t])),
        (f"right_shift_{t}", lambda v=v, t=t: np.right_shift(v, SHIFTS[t])),
        (f"bitwise_{t}", lambda v=v, w=w: (v & w) ^ (v | ~w)),
        (f"negative_{t}", lambda v=v: np.negative(v)),
        (f"absolute_{t}", lambda v=v: np.absolute(v)),
        (f"sign_{t}", lambda v=v: np.sign(v)),
        (f"maximum_{t}", lambda v=v, w=w: np.maximum(v, w)),
        (f"less_{t}", lambda v=v, w=w: v < w),
        (f"equal_{t}", lambda v=v, w=w: v == w),
        (f"sort_{t}", lambda v=v: np.sort(v)),
        (f"argsort_{t}", lambda v=v: np.argsort(v, kind="stable")),
        (f"from_float_{t}", lambda t=t: (floats_u32 if t == "uint32" else floats).astype(t)),
        (f"to_float64_{t}", lambda v=v: v.astype(np.float64)),
        (f"to_float32_{t}", lambda v=v: v.astype(np.float32)),
        (f"to_int64_{t}", lambda v=v: v.astype(np.int64)),
        (f"to_bool_{t}", lambda v=v: v.astype(np.bool_)),
        (f"where_{t}", lambda v=v, w=w: np.where(v > w, v, w)),
    ]
# float16 (NumPy's) and bfloat16 (ml_dtypes', as JAX's): storage types whose ops compute in float32
# and round each result; correctly rounded ops only (libm's exp and friends may differ by an ulp).
wide = inp("wide", np.array([0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 2.0**-14, 2.0**-24, 2.0**-25,
                             3 * 2.0**-26, 65504.0, 65519.9, 65520.0, 1e5, -1e5, np.inf, -np.inf,
                             np.nan, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 256.5, 257.0, 3.0e38,
                             1e-40, 1.00390625]))
wide2 = inp("wide2", np.roll(wide, 3))
for t, dt in (("float16", np.float16), ("bfloat16", BF16)):
    cases += [
        (f"from_float64_{t}", lambda dt=dt: wide.astype(dt).astype(np.float32)),
        (f"from_float32_{t}", lambda dt=dt: wide.astype(np.float32).astype(dt).astype(np.float32)),
        (f"from_int_{t}", lambda dt=dt: np.array(INTS, dtype=np.int64).astype(dt)
         .astype(np.float32)),
        (f"add_{t}", lambda dt=dt: (wide.astype(dt) + wide2.astype(dt)).astype(np.float32)),
        (f"multiply_{t}", lambda dt=dt: (wide.astype(dt) * wide2.astype(dt)).astype(np.float32)),
        (f"divide_{t}", lambda dt=dt: (wide.astype(dt) / wide2.astype(dt)).astype(np.float32)),
        (f"chain_{t}", lambda dt=dt: (wide.astype(dt) * wide2.astype(dt) + wide.astype(dt))
         .astype(np.float32)),
        (f"sqrt_{t}", lambda dt=dt: np.sqrt(np.abs(wide).astype(dt)).astype(np.float32)),
        (f"less_{t}", lambda dt=dt: wide.astype(dt) < wide2.astype(dt)),
        (f"to_int32_{t}", lambda dt=dt: np.nan_to_num(wide, posinf=0, neginf=0, nan=0)
         .clip(-1e5, 1e5).astype(dt).astype(np.int32)),
        (f"scalar_{t}", lambda dt=dt: (wide.astype(dt) * 3).astype(np.float32)),
        (f"sort_{t}", lambda dt=dt: np.sort(wide.astype(dt)).astype(np.float32)),
    ]
ramp = inp("ramp", (np.arange(24) * 0.37 + 1000.0).reshape(4, 6))
cases += [
    # The whole mean in float32, rounded once (NumPy's float16 mean, jnp's _upcast_f16).
    ("mean_float16", lambda: np.mean(ramp.astype(np.float16), axis=1)),
    ("float16_plus_int8", lambda: (wide.astype(np.float16) + VALUES["int8"])),
    ("float16_plus_int16", lambda: (wide.astype(np.float16) + VALUES["int16"])),
    ("float16_plus_bfloat16", lambda: wide.astype(np.float16) + wide2.astype(BF16)),
    ("float16_matmul", lambda: (wide.astype(np.float16)[:16].reshape(4, 4)
                                @ wide2.astype(np.float16)[:16].reshape(4, 4)).astype(np.float32)),
]

# Complex numbers: arithmetic (NumPy's formulas: the schoolbook product, Smith's quotient), with
# zeros of both signs, infinities and NaNs among the operands; functions on finite values (libm's
# cexp, clog and csqrt special-case infinities in ways the composed formulas need not follow).
edge = [0, -0.0, 1, -1, 0.5, -2.5, 3, 1e-3, 7.25, 1e30, np.inf, -np.inf, np.nan]
re_, im_ = np.meshgrid(edge, edge)
special = (re_ + 0j).ravel()
special.imag = im_.ravel()
finite = np.array([1 + 2j, 3 - 4j, -0.5 + 0.25j, -2 - 7j, 1e-3 + 1e3j, 0.1 - 0.2j, 5 + 0j,
                   -5 + 0j, 0 + 1j, 0 - 3j, 0.75 + 0.75j, -1.25 - 0.5j, 2 + 1e-8j, 1e8 + 1j,
                   -1e-8 + 0j, 0 + 0j])
for t in ("complex64", "complex128"):
    z = inp(t, special.astype(t))
    w = inp(t + "b", np.roll(special, 7).astype(t))
    f = inp(t + "_finite", finite.astype(t))
    g = inp(t + "_finiteb", np.roll(finite, 3).astype(t))
    m = inp(t + "_matrix", (np.arange(12) * (0.5 - 0.25j) + (1 + 1j)).reshape(3, 4).astype(t))
    mf = inp(t + "_matrixb", (np.arange(20) * (-0.125 + 0.5j) + 2).reshape(4, 5).astype(t))
    cases += [
        (f"add_{t}", lambda z=z, w=w: z + w),
        (f"subtract_{t}", lambda z=z, w=w: z - w),
        (f"multiply_{t}", lambda z=z, w=w: z * w),
        (f"true_divide_{t}", lambda z=z, w=w: z / w),
        (f"negative_{t}", lambda z=z: -z),
        (f"conj_{t}", lambda z=z: np.conj(z)),
        (f"real_{t}", lambda z=z: np.real(z)),
        (f"imag_{t}", lambda z=z: np.imag(z)),
        (f"equal_{t}", lambda z=z, w=w: z == w),
        (f"not_equal_{t}", lambda z=z, w=w: z != w),
        (f"isnan_{t}", lambda z=z: np.isnan(z)),
        (f"isfinite_{t}", lambda z=z: np.isfinite(z)),
        (f"to_bool_{t}", lambda z=z: z.astype(np.bool_)),
        (f"to_float64_{t}", lambda z=z: z.real.astype(np.float64)),
        (f"where_{t}", lambda z=z, w=w: np.where(np.abs(z.real) > 1, z, w)),
        (f"absolute_{t}", lambda f=f: np.abs(f)),
        (f"angle_{t}", lambda f=f: np.angle(f)),
        (f"exp_{t}", lambda f=f: np.exp(f)),
        (f"log_{t}", lambda f=f: np.log(f[:-1])),
        (f"sqrt_{t}", lambda f=f: np.sqrt(f)),
        (f"sign_{t}", lambda f=f: np.sign(f)),
        (f"sin_{t}", lambda f=f: np.sin(f)),
        (f"cos_{t}", lambda f=f: np.cos(f)),
        # z ** 2 is NumPy's square, whose SIMD loop contracts a·a - b·b into an FMA: finite
        # operands, compared within 4 ulps.
        (f"square_{t}", lambda f=f: f ** 2),
        (f"power_int_{t}", lambda f=f: f ** 5),
        (f"power_negative_{t}", lambda f=f: f[:-1] ** -3),
        (f"power_{t}", lambda f=f, g=g: f[:-1] ** (g[:-1] * 0.25)),
        (f"chain_{t}", lambda f=f, g=g: (f * g + f) / (g - 0.5j)),
        (f"sum_{t}", lambda m=m: np.sum(m, axis=1)),
        (f"mean_{t}", lambda m=m: np.mean(m, axis=0)),
        (f"cumsum_{t}", lambda m=m: np.cumsum(m, axis=1)),
        (f"matmul_{t}", lambda m=m, mf=mf: m @ mf),
        (f"transpose_{t}", lambda m=m: m.T),
        (f"take_{t}", lambda m=m: m[:, [3, 0, 0, 2]]),
    ]
cases += [
    ("complex64_plus_float64", lambda: INPUTS["complex64_finite"] + finite.real),
    ("complex64_plus_int32", lambda: INPUTS["complex64_finite"] + np.arange(16, dtype=np.int32)),
    ("complex64_plus_int16", lambda: INPUTS["complex64_finite"] + np.arange(16, dtype=np.int16)),
    ("float32_times_1j", lambda: finite.real.astype(np.float32) * 1j),
    ("float64_to_complex64", lambda: wide.astype(np.complex64)),
    ("complex128_to_complex64", lambda: INPUTS["complex128"].astype(np.complex64)),
    # Functions whose complex forms conjugate: |x|^2 in var, std and norm, np.vdot's first
    # operand, np.correlate's second, np.cov's X^H.
    ("var_complex", lambda: np.var(INPUTS["complex128_matrix"], axis=1)),
    ("std_complex", lambda: np.std(INPUTS["complex128_matrix"])),
    ("norm_complex", lambda: np.linalg.norm(INPUTS["complex128_matrix"])),
    ("norm_axis_complex", lambda: np.linalg.norm(INPUTS["complex128_matrix"], axis=0)),
    ("vdot_complex", lambda: np.vdot(INPUTS["complex128_finite"], INPUTS["complex128_finiteb"])),
    ("correlate_complex", lambda: np.correlate(INPUTS["complex128_finite"][:6],
                                               INPUTS["complex128_finiteb"][:3])),
    ("cov_complex", lambda: np.cov(INPUTS["complex128_matrix"])),
    ("round_complex", lambda: np.round(INPUTS["complex128_finite"] * 3.37, 1)),
    ("linspace_complex", lambda: np.linspace(0, 1 + 2j, 5)),
    # Empty and 0-d complex arrays.
    ("empty_complex", lambda: np.sum(np.zeros((0, 3), np.complex64) * (1 - 2j), axis=0)),
    ("scalar_complex", lambda: np.array(1.5 - 2j) * np.array(0.25 + 4j) / np.array(-1j)),
    ("isclose_complex", lambda: np.isclose(INPUTS["complex128_finite"],
                                           INPUTS["complex128_finite"] * (1 + 1e-9j))),
]

# Conversions between the integer dtypes (wrapping).
for a in VALUES:
    for b in VALUES:
        if a != b:
            cases.append((f"cast_{a}_{b}", lambda a=a, b=b: VALUES[a].astype(b)))

golden_io.write(OUT, INPUTS, cases, "tests/golden/make_dtype_golden.py", max_size=256)
