#!/usr/bin/env python3
"""Writes the golden inputs and NumPy results that tests/api/test_golden.cpp checks jx against.

Run from anywhere: python3 tests/golden/make_golden.py. Every case is one NumPy call below; its
result goes to api/<case>.npy, each input to api/in_<name>.npy, and api/MANIFEST.txt lists each
file's dtype and shape. The C++ test with the same case name must compute the same thing with jx.
"""
import math
import os

import numpy as np

import golden_io

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api")
rng = np.random.default_rng(0)
INPUTS = {}


def inp(name, a):
    """Registers an input array, written to api/in_<name>.npy."""
    INPUTS[name] = np.asarray(a)
    return INPUTS[name]


def normal(shape, dtype=np.float64):
    return rng.normal(size=shape).astype(dtype)


def ints(lo, hi, shape, dtype):
    return rng.integers(lo, hi, size=shape, dtype=dtype)


def nonzero_ints(shape, dtype):
    return (ints(1, 6, shape, dtype) * rng.choice([-1, 1], size=shape)).astype(dtype)


# ---- inputs ----
f64 = inp("f64", normal((3, 4)))
f64b = inp("f64b", normal((3, 4)))
f64pos = inp("f64pos", rng.uniform(0.1, 4.0, size=(3, 4)))
f64half = inp("f64half", np.round(normal((3, 4)) * 2) / 2)  # many ties, for comparisons
f64half2 = inp("f64half2", np.round(normal((3, 4)) * 2) / 2)
f32 = inp("f32", normal((3, 4), np.float32))
f32b = inp("f32b", normal((3, 4), np.float32))
f32pos = inp("f32pos", rng.uniform(0.1, 4.0, size=(3, 4)).astype(np.float32))
i32 = inp("i32", ints(-10, 10, (3, 4), np.int32))
i32b = inp("i32b", ints(-10, 10, (3, 4), np.int32))
i32nz = inp("i32nz", nonzero_ints((3, 4), np.int32))
i64 = inp("i64", ints(-1000, 1000, (3, 4), np.int64))
i64b = inp("i64b", ints(-1000, 1000, (3, 4), np.int64))
i64small = inp("i64small", ints(-10, 10, (3, 4), np.int64))
i64nz = inp("i64nz", nonzero_ints((3, 4), np.int64))
i64exp = inp("i64exp", ints(0, 5, (3, 4), np.int64))
i32shift = inp("i32shift", ints(0, 31, (3, 4), np.int32))
i64shift = inp("i64shift", ints(0, 63, (3, 4), np.int64))
b = inp("b", rng.random((3, 4)) < 0.5)
bb = inp("bb", rng.random((3, 4)) < 0.5)
special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, 1e300, -1e-300]
sp64 = inp("sp64", np.array(special).reshape(3, 4))
sp64r = inp("sp64r", sp64[::-1])
sp32 = inp("sp32", np.array(special[:10] + [3e38, -1e-40], dtype=np.float32).reshape(3, 4))
row = inp("row", normal((4,)))
col = inp("col", normal((3, 1)))
row2d = inp("row2d", normal((1, 4)))
r13 = inp("r13", normal((1, 3)))
c214 = inp("c214", normal((2, 1, 4)))
m24 = inp("m24", normal((2, 4)))
row3 = inp("row3", normal((3,)))
cube = inp("cube", normal((2, 3, 4)))
cube2 = inp("cube2", normal((2, 3, 4)))
i64cube = inp("i64cube", ints(-5, 5, (2, 3, 4), np.int64))
bcube = inp("bcube", rng.random((2, 3, 4)) < 0.7)
mat45 = inp("mat45", normal((4, 5)))
mat54 = inp("mat54", normal((5, 4)))
mat53 = inp("mat53", normal((5, 3)))
sq = inp("sq", normal((4, 4)))
i32mat45 = inp("i32mat45", ints(-5, 5, (4, 5), np.int32))
f32mat45 = inp("f32mat45", normal((4, 5), np.float32))
batch245 = inp("batch245", normal((2, 4, 5)))
b2134 = inp("b2134", normal((2, 1, 3, 4)))
b342 = inp("b342", normal((3, 4, 2)))
b546 = inp("b546", normal((5, 4, 6)))
b345 = inp("b345", normal((3, 4, 5)))
b325 = inp("b325", normal((3, 2, 5)))
ones1 = inp("ones1", normal((1, 3, 1, 4)))
s0 = inp("s0", np.array(1.75))  # 0-d
i0 = inp("i0", np.array(3, dtype=np.int32))  # 0-d
empty = inp("empty", np.zeros((0, 3)))
m23 = inp("m23", normal((2, 3)))
lo = inp("lo", np.array([0.0, 1.0, -2.0]))
hi = inp("hi", np.array([1.0, -3.0, 5.0]))
lo2 = inp("lo2", normal((2, 3)))
hi2 = inp("hi2", normal((2, 3)))
lo32 = inp("lo32", np.array([0.0, 1.5], dtype=np.float32))
hi32 = inp("hi32", np.array([1.0, -2.25], dtype=np.float32))
v1d = inp("v1d", np.arange(10.0))
i64seq = inp("i64seq", np.array([1, 4, 9, 16, 25, 36, 49], dtype=np.int64))
# Integers at the edges of their range: arithmetic wraps around as in NumPy.
i32ext = inp("i32ext", np.array([2**31 - 1, -2**31, -1, 0, 1, 46341, -46341, 65536], np.int32))
i32ext2 = inp("i32ext2", np.array([1, -1, -1, 7, 2, 46341, 46341, 65536], np.int32))
i64big = inp("i64big", np.array([2**62 + 1, -2**62 - 3, 2**53 + 1, -2**53 - 1, 3, -2**63,
                                 2**63 - 1, 2**60 + 2**36 + 1]))
i64big2 = inp("i64big2", np.array([2**62 - 1, 2**61 + 7, 2**53, -2**53, 3, 2**40 + 1, 1, -1]))
# Differ only below float64's precision, so any detour through double shows.
i64near = inp("i64near", np.array([2**53 + 1, 2**53 + 3, 2**53 + 2, 2**53]))
i64pm = inp("i64pm", np.array([1, -1, 1, -1]))
f32long = inp("f32long", normal((200,), np.float32))
f32longpos = inp("f32longpos", rng.uniform(0.01, 20.0, size=(200,)).astype(np.float32))
f64long = inp("f64long", normal((10, 20)))
sq3 = inp("sq3", normal((3, 3, 4)))
emp04 = inp("emp04", np.zeros((0, 4)))
emp20 = inp("emp20", np.zeros((2, 0)))
emp03 = inp("emp03", np.zeros((0, 3)))
m32 = inp("m32", normal((3, 2)))
# Arguments of the functions with limited domains.
f64trig = inp("f64trig", rng.uniform(-3.0, 3.0, size=(3, 4)))
f32trig = inp("f32trig", rng.uniform(-3.0, 3.0, size=(3, 4)).astype(np.float32))
f64log1p = inp("f64log1p", rng.uniform(-0.9, 3.0, size=(3, 4)))
# Fixed values (no draws: the generator's later inputs stay as they were).
unit = inp("unit", np.linspace(-0.99, 0.99, 12).reshape(3, 4))
ge1 = inp("ge1", np.linspace(1.0, 40.0, 12).reshape(3, 4))
ties = inp("ties", np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 2.0**52 + 1,
                             -0.0, 2.675, 1.005, -3.7]).reshape(3, 4))
ties32 = inp("ties32", ties.astype(np.float32))
tens = inp("tens", np.array([15.0, 25.0, 35.0, -45.0, 1234.0, -5.0, 4.9, 0.0]))


def at_set(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def at_add(x, idx, v):
    y = x.copy()
    y[idx] += v
    return y


def at_multiply(x, idx, v):
    y = x.copy()
    y[idx] *= v
    return y


def at_subtract(x, idx, v):
    y = x.copy()
    y[idx] -= v
    return y


def at_divide(x, idx, v):
    y = x.copy()
    y[idx] /= v
    return y


def at_min(x, idx, v):
    y = x.copy()
    y[idx] = np.minimum(y[idx], v)
    return y


def at_max(x, idx, v):
    y = x.copy()
    y[idx] = np.maximum(y[idx], v)
    return y


_ = slice(None)
# (case name, NumPy call[, jx dtype where it deliberately differs from NumPy's]).
CASES = [
    # ---- creation ----
    ("arange_stop", lambda: np.arange(10)),
    ("arange_step", lambda: np.arange(2, 20, 3)),
    ("arange_neg_step", lambda: np.arange(10, -5, -2)),
    ("arange_float_step", lambda: np.arange(0, 1, 0.1)),
    ("arange_float_neg_step", lambda: np.arange(1.5, -1.0, -0.25)),
    ("arange_float_stop", lambda: np.arange(4.5)),
    ("arange_empty", lambda: np.arange(5, 2)),
    ("arange_f32", lambda: np.arange(0, 2, 0.25, dtype=np.float32)),
    ("arange_i32", lambda: np.arange(3, 12, 2, dtype=np.int32)),
    ("arange_stop_dtype", lambda: np.arange(5, dtype=np.float32)),
    # With a dtype, NumPy computes in that dtype: start, delta = dtype(start + step) - start.
    ("arange_int_dtype_float_step", lambda: np.arange(0, 5, 1.5, dtype=np.int32)),
    ("arange_f32_inexact", lambda: np.arange(0.1, 1, 0.3, dtype=np.float32)),
    ("linspace_scalar", lambda: np.linspace(0.0, 1.0, 11)),
    ("linspace_int_bounds", lambda: np.linspace(0, 10, 7)),
    ("linspace_no_endpoint", lambda: np.linspace(2.0, 3.0, 5, endpoint=False)),
    ("linspace_num1", lambda: np.linspace(2.0, 3.0, 1)),
    ("linspace_num0", lambda: np.linspace(2.0, 3.0, 0)),
    ("linspace_dtype_int", lambda: np.linspace(-3, 10, 6, dtype=np.int64)),
    ("linspace_array", lambda: np.linspace(lo, hi, 5)),
    ("linspace_array_axis1", lambda: np.linspace(lo, hi, 5, axis=1)),
    ("linspace_array_axis1_no_endpoint", lambda: np.linspace(lo, hi, 4, endpoint=False, axis=1)),
    ("linspace_2d_axis_neg1", lambda: np.linspace(lo2, hi2, 4, axis=-1)),
    ("linspace_scalar_array", lambda: np.linspace(0.0, hi, 3)),
    ("linspace_f32", lambda: np.linspace(lo32, hi32, 6)),
    ("linspace_f32_dtype", lambda: np.linspace(0.0, 1.0, 7, dtype=np.float32)),
    ("eye", lambda: np.eye(3)),
    ("eye_k1", lambda: np.eye(3, 4, k=1)),
    ("eye_kneg_i32", lambda: np.eye(4, 3, k=-2, dtype=np.int32)),
    ("eye_k2_bool", lambda: np.eye(3, k=2, dtype=bool)),
    ("full_float", lambda: np.full((2, 3), 1.5)),
    ("full_int", lambda: np.full((2, 2), 7)),
    ("full_bool", lambda: np.full((3,), True)),
    ("full_dtype_i32", lambda: np.full((2, 3), 2.7, dtype=np.int32)),
    ("full_array_fill", lambda: np.full((2, 3), row3)),
    ("zeros_i32", lambda: np.zeros((2, 3), dtype=np.int32)),
    ("ones_bool", lambda: np.ones((4,), dtype=bool)),
    ("zeros_like_f32", lambda: np.zeros_like(f32)),
    ("ones_like_i64", lambda: np.ones_like(i64)),
    ("full_like_i32", lambda: np.full_like(i32, 3.9)),
    ("zeros_like_dtype", lambda: np.zeros_like(f64, dtype=np.int32)),
    ("full_like_dtype", lambda: np.full_like(i32, 2.5, dtype=np.float64)),
    ("asarray_i32_f32", lambda: np.asarray(i32, dtype=np.float32)),
    ("astype_f64_i32", lambda: f64half.astype(np.int32)),
    ("astype_f64_bool", lambda: sp64.astype(bool)),
    ("astype_i32_bool", lambda: i32.astype(bool)),
    ("astype_bool_f32", lambda: b.astype(np.float32)),
    ("astype_f64_f32", lambda: f64.astype(np.float32)),
    ("arange_float_len_up", lambda: np.arange(1, 1.3, 0.1)),
    ("arange_float_len_down", lambda: np.arange(0, 0.3, 0.1)),
    ("arange_neg_float_start", lambda: np.arange(-1.5, 1, 0.5)),
    ("linspace_step_zero", lambda: np.linspace(np.array([0.0, 1.0]), np.array([1.0, 1.0]), 50)),
    ("linspace_int_dtype_neg", lambda: np.linspace(-5.5, 5.5, 7, dtype=np.int32)),
    ("eye_k_beyond", lambda: np.eye(3, k=5)),
    ("eye_wide_kneg", lambda: np.eye(2, 5, k=-1)),
    ("full_f32_from_int", lambda: np.full((2, 2), 3, dtype=np.float32)),
    ("astype_i64_i32_wrap", lambda: i64big.astype(np.int32)),
    ("astype_i64_f64", lambda: i64big.astype(np.float64)),
    ("astype_i64_f32", lambda: i64big.astype(np.float32)),
    ("astype_f64_f32_overflow", lambda: sp64.astype(np.float32)),
    # ---- arithmetic ----
    ("add_f64", lambda: np.add(f64, f64b)),
    ("add_f32", lambda: np.add(f32, f32b)),
    ("add_i32", lambda: np.add(i32, i32b)),
    ("add_i64", lambda: np.add(i64, i64b)),
    ("add_bool", lambda: np.add(b, bb)),
    ("add_i32_f32", lambda: np.add(i32, f32)),
    ("add_i32_i64", lambda: np.add(i32, i64)),
    ("add_f32_f64", lambda: np.add(f32, f64)),
    ("add_bool_i32", lambda: np.add(b, i32)),
    ("add_f32_scalar", lambda: np.add(f32, 2.5)),
    ("add_i32_scalar_int", lambda: np.add(i32, 3)),
    ("add_i32_scalar_float", lambda: np.add(i32, 2.5)),
    ("add_bool_scalar_int", lambda: np.add(b, 1)),
    ("add_special", lambda: np.add(sp64, sp64r)),
    ("subtract_f64", lambda: np.subtract(f64, f64b)),
    ("subtract_i32", lambda: np.subtract(i32, i32b)),
    ("subtract_f32_i64", lambda: np.subtract(f32, i64)),
    ("subtract_scalar_f32", lambda: np.subtract(1.0, f32)),
    ("multiply_f64", lambda: np.multiply(f64, f64b)),
    ("multiply_f32", lambda: np.multiply(f32, f32b)),
    ("multiply_i64", lambda: np.multiply(i64, i64b)),
    ("multiply_bool", lambda: np.multiply(b, bb)),
    ("multiply_scalar_f32", lambda: np.multiply(2.0, f32)),
    ("divide_f64", lambda: np.divide(f64, f64b)),
    ("divide_f32", lambda: np.divide(f32, f32b)),
    ("divide_i32", lambda: np.divide(i32, i32nz)),
    ("divide_i32_f32", lambda: np.divide(i32, f32)),
    ("divide_f32_scalar", lambda: np.divide(f32, 3)),
    ("divide_by_zero", lambda: np.divide(sp64, np.array([0.0, -0.0, 0.0, 0.0]))),
    ("true_divide_i64", lambda: np.true_divide(i64, i64nz)),
    ("floor_divide_f64", lambda: np.floor_divide(f64 * 3, f64b)),
    ("floor_divide_f32", lambda: np.floor_divide(f32 * 3, f32b)),
    ("floor_divide_i32", lambda: np.floor_divide(i32, i32nz)),
    ("floor_divide_i64", lambda: np.floor_divide(i64, i64nz)),
    ("floor_divide_i64_scalar", lambda: np.floor_divide(i64, -7)),
    ("floor_divide_special", lambda: np.floor_divide(sp64, np.array([0.0, 1.5, -1.5, -0.0]))),
    ("remainder_f64", lambda: np.remainder(f64 * 3, f64b)),
    ("remainder_f32", lambda: np.remainder(f32 * 3, f32b)),
    ("remainder_i32", lambda: np.remainder(i32, i32nz)),
    ("remainder_i64", lambda: np.remainder(i64, i64nz)),
    ("remainder_i64_scalar", lambda: np.remainder(i64, -7)),
    ("remainder_special", lambda: np.remainder(sp64, np.array([0.0, 1.5, -1.5, np.inf]))),
    ("mod_f64_scalar", lambda: np.mod(f64, -0.75)),
    ("power_f64", lambda: np.power(f64pos, f64)),
    ("power_f32", lambda: np.power(f32pos, f32)),
    ("power_f64_scalar", lambda: np.power(f64, 2.0)),
    ("power_f64_int_scalar", lambda: np.power(f64, 3)),
    ("power_f64_half", lambda: np.power(f64, 0.5)),
    ("power_i64", lambda: np.power(i64nz, i64exp)),
    ("power_i32_scalar", lambda: np.power(i32, 3)),
    ("power_i32_f32", lambda: np.power(i32nz, f32)),
    ("power_zero_zero_f64", lambda: np.power(np.array([0.0, 0.0, 2.0, -0.0]),
                                             np.array([0.0, 1.0, 0.0, 0.0]))),
    ("power_zero_zero_i64", lambda: np.power(np.array([0, 0, 2, -3]), np.array([0, 1, 0, 0]))),
    ("power_neg_base", lambda: np.power(np.array([-8.0, -1.0, -0.5, -2.0, -2.0]),
                                        np.array([1 / 3, 0.5, 2.5, 3.0, -2.0]))),
    ("power_special", lambda: np.power(sp64, np.array([2.0, 0.0, -1.0, np.nan]))),
    ("power_one_nan", lambda: np.power(np.array([1.0, np.nan, np.inf, 0.0]),
                                       np.array([np.nan, 0.0, -1.0, -1.0]))),
    ("power_i64_overflow", lambda: np.power(np.array([3, -3, 2, 7, -1]),
                                            np.array([40, 41, 63, 23, 1001]))),
    ("power_i32_large", lambda: np.power(np.array([7, 10, -2, 3], np.int32),
                                         np.array([11, 10, 31, 19], np.int32))),
    ("power_i64_float_scalar", lambda: np.power(i64exp, 2.0)),
    ("power_f32_int_scalar", lambda: np.power(f32, 2)),
    ("power_f64_neg_int_scalar", lambda: np.power(f64, -2)),
    # NumPy's floor_divide and remainder go through fmod: 1.0 // 0.1 is 9, not floor(1.0 / 0.1).
    ("floor_divide_fmod", lambda: np.floor_divide(np.array([1.0, 0.3, -1.0, 7.0, 0.5]),
                                                  np.array([0.1, 0.1, 0.1, 0.7, 0.1]))),
    ("remainder_fmod", lambda: np.remainder(np.array([1.0, 0.3, -1.0, 7.0, 0.5]),
                                            np.array([0.1, 0.1, 0.1, 0.7, 0.1]))),
    ("floor_divide_fmod_f32", lambda: np.floor_divide(np.array([1.0, 0.3, -1.0, 7.0], np.float32),
                                                      np.float32(0.1))),
    # Integer division by zero is 0 in NumPy; INT_MIN // -1 wraps.
    ("floor_divide_int_zero", lambda: np.floor_divide(np.array([7, -7, 0, -2**63, 5]),
                                                      np.array([0, 0, 0, -1, -1]))),
    ("remainder_int_zero", lambda: np.remainder(np.array([7, -7, 0, -2**63, 5]),
                                                np.array([0, 0, 0, -1, -1]))),
    ("floor_divide_i32_min", lambda: np.floor_divide(i32ext, i32ext2)),
    ("remainder_i32_min", lambda: np.remainder(i32ext, i32ext2)),
    ("add_i32_overflow", lambda: np.add(i32ext, i32ext2)),
    ("multiply_i32_overflow", lambda: np.multiply(i32ext, i32ext2)),
    ("subtract_i64_big", lambda: np.subtract(i64big, i64big2)),
    ("add_i64_big", lambda: np.add(i64big, i64big2)),
    ("multiply_i64_big", lambda: np.multiply(i64big, i64big2)),
    ("floor_divide_i64_big", lambda: np.floor_divide(i64big, 3)),
    ("remainder_i64_big", lambda: np.remainder(i64big, 1000003)),
    ("maximum_i64_big", lambda: np.maximum(i64big, i64big2)),
    ("minimum_i64_near", lambda: np.minimum(i64near, 2**53 + 2)),
    ("add_i32_bool_scalar", lambda: np.add(i32, True)),
    ("add_f32_0d_i32", lambda: np.add(f32, i0)),
    ("multiply_f32_0d_f64", lambda: np.multiply(f32, s0)),
    ("divide_bool", lambda: np.divide(b, np.ones(4, dtype=bool))),
    ("maximum_f64", lambda: np.maximum(f64, f64b)),
    ("maximum_i32", lambda: np.maximum(i32, i32b)),
    ("maximum_bool", lambda: np.maximum(b, bb)),
    ("maximum_nan", lambda: np.maximum(sp64, 0.5)),
    ("maximum_nan_f32", lambda: np.maximum(np.float32(0.5), sp32)),
    ("maximum_i64_f32", lambda: np.maximum(i64, f32)),
    ("minimum_f64", lambda: np.minimum(f64, f64b)),
    ("minimum_i64", lambda: np.minimum(i64, i64b)),
    ("minimum_nan", lambda: np.minimum(sp64, sp64r)),
    ("minimum_nan_f32", lambda: np.minimum(sp32, 0.5)),
    # ---- unary ----
    ("negative_f64", lambda: np.negative(f64)),
    ("negative_f32", lambda: np.negative(sp32)),
    ("negative_i32", lambda: np.negative(i32)),
    ("negative_i64", lambda: np.negative(i64)),
    ("positive_i32", lambda: np.positive(i32)),
    ("abs_f64", lambda: np.abs(sp64)),
    ("abs_f32", lambda: np.abs(f32)),
    ("abs_i32", lambda: np.abs(i32)),
    ("abs_bool", lambda: np.abs(b)),
    ("absolute_i64", lambda: np.absolute(i64)),
    ("sign_f64", lambda: np.sign(sp64)),
    ("sign_f32", lambda: np.sign(sp32)),
    ("sign_i32", lambda: np.sign(i32)),
    ("sign_i64", lambda: np.sign(i64)),
    ("negative_i32_min", lambda: np.negative(i32ext)),
    ("abs_i32_min", lambda: np.abs(i32ext)),
    ("sign_i64_big", lambda: np.sign(i64big)),
    ("exp_f64", lambda: np.exp(f64)),
    ("exp_f32", lambda: np.exp(f32)),
    ("exp_i32", lambda: np.exp(i32)),
    ("exp_special", lambda: np.exp(sp64)),
    ("expm1_f64", lambda: np.expm1(f64 * 1e-3)),
    ("expm1_f32", lambda: np.expm1(f32)),
    ("log_f64", lambda: np.log(f64pos)),
    ("log_f32", lambda: np.log(f32pos)),
    ("log_i64", lambda: np.log(i64exp)),
    ("log_special", lambda: np.log(sp64)),
    ("log1p_f64", lambda: np.log1p(f64log1p)),
    ("log1p_f32", lambda: np.log1p(f32pos)),
    ("log1p_special", lambda: np.log1p(sp64)),
    ("sqrt_f64", lambda: np.sqrt(f64pos)),
    ("sqrt_f32", lambda: np.sqrt(f32pos)),
    ("sqrt_i64", lambda: np.sqrt(i64exp)),
    ("sqrt_special", lambda: np.sqrt(sp64)),
    ("square_f64", lambda: np.square(f64)),
    ("square_f32", lambda: np.square(f32)),
    ("square_i32", lambda: np.square(i32)),
    ("sin_f64", lambda: np.sin(f64trig)),
    ("sin_f32", lambda: np.sin(f32trig)),
    ("sin_i32", lambda: np.sin(i32)),
    ("cos_f64", lambda: np.cos(f64trig)),
    ("cos_f32", lambda: np.cos(f32trig)),
    ("cos_special", lambda: np.cos(sp64[:, :2])),
    ("tan_f64", lambda: np.tan(f64)),
    ("tan_f32", lambda: np.tan(f32)),
    ("tanh_f64", lambda: np.tanh(f64trig)),
    ("tanh_f32", lambda: np.tanh(f32trig)),
    ("tanh_special", lambda: np.tanh(sp64)),
    ("floor_f64", lambda: np.floor(f64 * 3)),
    ("floor_special", lambda: np.floor(sp64)),
    ("floor_f32", lambda: np.floor(f32 * 3)),
    ("floor_i32", lambda: np.floor(i32)),
    ("ceil_f64", lambda: np.ceil(f64 * 3)),
    ("ceil_f32", lambda: np.ceil(sp32)),
    ("ceil_i64", lambda: np.ceil(i64)),
    ("floor_special_f32", lambda: np.floor(sp32)),
    ("exp_special_f32", lambda: np.exp(sp32)),
    ("expm1_special", lambda: np.expm1(sp64)),
    ("log_special_f32", lambda: np.log(sp32)),
    ("sqrt_special_f32", lambda: np.sqrt(sp32)),
    ("sin_special", lambda: np.sin(sp64[:, :2])),
    ("tan_special_f32", lambda: np.tan(sp32[:, :2])),
    ("tanh_special_f32", lambda: np.tanh(sp32)),
    ("exp_f32_long", lambda: np.exp(f32long * 10)),
    ("log_f32_long", lambda: np.log(f32longpos)),
    ("sin_f32_long", lambda: np.sin(f32longpos)),
    ("cos_f32_long", lambda: np.cos(f32longpos)),
    ("tanh_f32_long", lambda: np.tanh(f32long)),
    ("power_f32_long", lambda: np.power(f32longpos, f32long)),
    ("exp_f64_long", lambda: np.exp(f64long * 10)),
    ("sin_f64_long", lambda: np.sin(f64long * 10)),
    ("log_f64_long", lambda: np.log(np.abs(f64long))),
    ("isnan_f64", lambda: np.isnan(sp64)),
    ("isnan_f32", lambda: np.isnan(sp32)),
    ("isnan_i32", lambda: np.isnan(i32)),
    ("isfinite_f64", lambda: np.isfinite(sp64)),
    ("isfinite_f32", lambda: np.isfinite(sp32)),
    ("isfinite_i64", lambda: np.isfinite(i64)),
    ("isinf_f64", lambda: np.isinf(sp64)),
    ("isinf_f32", lambda: np.isinf(sp32)),
    ("isinf_bool", lambda: np.isinf(b)),
    # ---- where, comparisons, logic ----
    ("where_f64", lambda: np.where(b, f64, f64b)),
    ("where_i32_scalar", lambda: np.where(b, i32, 0.5)),
    ("where_f32_scalar", lambda: np.where(b, f32, 0.0)),
    ("where_int_cond", lambda: np.where(i32, 1, 2)),
    ("where_broadcast", lambda: np.where(col > 0, 1.5, row)),
    ("where_mixed", lambda: np.where(bb, i32, i64)),
    ("where_nan_cond", lambda: np.where(sp64, 1, 0)),
    ("where_int_float_scalars", lambda: np.where(b, 1, 2.5)),
    ("where_scalar_cond", lambda: np.where(True, f32, 0.0)),
    ("equal_f64", lambda: np.equal(f64half, f64half2)),
    ("equal_i32_i64", lambda: np.equal(i32, i64small)),
    ("equal_nan", lambda: np.equal(sp64, sp64)),
    ("equal_bool", lambda: np.equal(b, bb)),
    ("not_equal_f32_scalar", lambda: np.not_equal(f32, 0.0)),
    ("not_equal_nan", lambda: np.not_equal(sp64, sp64)),
    ("less_f64", lambda: np.less(f64half, 0.5)),
    ("less_i32_f32", lambda: np.less(i32, f32)),
    ("less_nan", lambda: np.less(sp64, sp64r)),
    ("less_equal_f64", lambda: np.less_equal(f64half, f64half2)),
    ("less_equal_i64", lambda: np.less_equal(i64, i64b)),
    ("greater_f32", lambda: np.greater(f32, f32b)),
    ("greater_bool", lambda: np.greater(b, bb)),
    ("greater_equal_i32_scalar", lambda: np.greater_equal(i32, -2)),
    ("greater_equal_nan", lambda: np.greater_equal(sp64, 0.5)),
    ("equal_i64_near", lambda: np.equal(i64near, 2**53)),
    ("less_i64_near", lambda: np.less(i64near, i64near[::-1])),
    ("greater_i64_big_float", lambda: np.greater(i64big, 2.0**53)),
    ("logical_and_bool", lambda: np.logical_and(b, bb)),
    ("logical_and_f64", lambda: np.logical_and(sp64, f64half)),
    ("logical_or_i32", lambda: np.logical_or(i32, i32b)),
    ("logical_xor_bool", lambda: np.logical_xor(b, bb)),
    ("logical_xor_i64_f32", lambda: np.logical_xor(i64exp, f32)),
    ("logical_not_f64", lambda: np.logical_not(sp64)),
    ("logical_not_i32", lambda: np.logical_not(i32)),
    ("bitwise_and_i32", lambda: np.bitwise_and(i32, i32b)),
    ("bitwise_and_bool", lambda: np.bitwise_and(b, bb)),
    ("bitwise_or_i64", lambda: np.bitwise_or(i64, i64b)),
    ("bitwise_or_i32_i64", lambda: np.bitwise_or(i32, i64)),
    ("bitwise_xor_i64", lambda: np.bitwise_xor(i64, i64b)),
    ("bitwise_xor_bool", lambda: np.bitwise_xor(b, bb)),
    ("bitwise_not_i32", lambda: np.bitwise_not(i32)),
    ("bitwise_not_bool", lambda: np.bitwise_not(b)),
    ("invert_i64", lambda: np.invert(i64)),
    ("bitwise_and_i64_big", lambda: np.bitwise_and(i64big, i64big2)),
    ("bitwise_xor_i64_big", lambda: np.bitwise_xor(i64big, i64big2)),
    ("invert_i64_big", lambda: np.invert(i64big)),
    ("left_shift_i32", lambda: np.left_shift(i32, i32shift)),
    ("left_shift_i64", lambda: np.left_shift(i64, i64shift)),
    ("left_shift_scalar", lambda: np.left_shift(1, i64shift)),
    ("left_shift_wide", lambda: np.left_shift(np.array([1, -1, 5, 3]), np.array([63, 64, 100, 0]))),
    ("left_shift_i32_overflow", lambda: np.left_shift(i32ext, 1)),
    ("right_shift_i32", lambda: np.right_shift(i32, i32shift)),
    ("right_shift_i64", lambda: np.right_shift(i64, i64shift % 12)),
    ("right_shift_i64_big", lambda: np.right_shift(i64big, 3)),
    ("right_shift_wide", lambda: np.right_shift(np.array([-8, 8, -1, 7]),
                                                np.array([70, 64, 3, 63]))),
    # ---- where jx deliberately differs from NumPy's dtype (third item: jx's dtype) ----
    # NumPy 2.4 returns bool for floor/ceil of bools; jx, like JAX, returns the default float.
    ("floor_bool", lambda: np.floor(b), "float64"),
    ("ceil_bool", lambda: np.ceil(bb), "float64"),
    # NumPy computes arithmetic on bools in int8, which jx lacks; jx (like JAX) uses int64.
    ("floor_divide_bool", lambda: np.floor_divide(b, np.ones(4, dtype=bool)), "int64"),
    ("power_bool", lambda: np.power(b, bb), "int64"),
    ("left_shift_bool", lambda: np.left_shift(b, bb), "int64"),
    ("square_bool", lambda: np.square(b), "int64"),
    # Python scalars passed to NumPy's diff become strong int64/float64 arrays; jx's C++ scalars
    # stay weakly typed, as in JAX.
    ("diff_i32_prepend_scalar", lambda: np.diff(i32, prepend=0), "int32"),
    ("diff_f32_append_scalar", lambda: np.diff(f32, axis=0, append=0.5), "float32"),
    # ---- operators ----
    ("op_add_broadcast", lambda: f64 + row),
    ("op_mod_i32", lambda: i32 % i32nz),
    ("op_neg_f32", lambda: -f32),
    ("op_invert_i32", lambda: ~i32),
    ("op_and_bool", lambda: b & bb),
    ("op_xor_i64", lambda: i64 ^ i64b),
    ("op_lt_f64", lambda: f64 < f64b),
    ("op_ge_i32_scalar", lambda: i32 >= 0),
    # ---- broadcasting, 0-d and size-0 ----
    ("broadcast_row", lambda: np.add(f64, row)),
    ("broadcast_col", lambda: np.multiply(f64, col)),
    ("broadcast_col_row", lambda: np.subtract(col, row)),
    ("broadcast_ranks", lambda: np.add(cube, col)),
    ("broadcast_both", lambda: np.multiply(c214, col)),
    ("broadcast_0d", lambda: np.add(s0, f64)),
    ("broadcast_0d_0d", lambda: np.multiply(s0, i0)),
    ("broadcast_empty", lambda: np.add(empty, row3)),
    ("broadcast_empty_1", lambda: np.add(empty, r13)),
    ("broadcast_compare", lambda: np.greater(col, row)),
    ("broadcast_shapes", lambda: np.array(np.broadcast_shapes((2, 1, 4), (3, 1), ()))),
    ("broadcast_shapes_zero", lambda: np.array(np.broadcast_shapes((0, 1), (1, 5)))),
    ("sin_0d", lambda: np.sin(s0)),
    ("exp_empty", lambda: np.exp(empty)),
    ("flip_empty", lambda: np.flip(empty, 0)),
    ("roll_empty", lambda: np.roll(empty, 1, axis=0)),
    ("pad_empty", lambda: np.pad(empty, 1)),
    ("diff_empty", lambda: np.diff(empty, axis=1)),
    ("diff_n_too_large", lambda: np.diff(row, n=5)),
    ("transpose_empty", lambda: np.transpose(empty)),
    ("concatenate_empty_middle", lambda: np.concatenate([f64, emp04, f64b])),
    ("stack_empty", lambda: np.stack([empty, empty], axis=1)),
    ("broadcast_to_zero", lambda: np.broadcast_to(row3, (0, 3))),
    ("sum_empty_all", lambda: np.sum(empty)),
    ("mean_empty", lambda: np.mean(empty, axis=0)),
    ("argmax_empty_other_axis", lambda: np.argmax(empty, axis=1)),
    ("einsum_empty", lambda: np.einsum("ij,jk->ik", emp03, m32)),
    ("matmul_empty_inner", lambda: np.matmul(emp20, emp03)),
    ("at_set_empty_slice", lambda: at_set(f64, slice(3, 1), 9.0)),
    ("squeeze_0d", lambda: np.squeeze(s0)),
    ("transpose_0d", lambda: np.transpose(s0)),
    # ---- shape ----
    ("reshape_neg1", lambda: np.reshape(cube, (4, -1))),
    ("reshape_flat", lambda: np.reshape(cube, (-1,))),
    ("reshape_mid_neg1", lambda: np.reshape(cube, (2, -1, 2))),
    ("reshape_i32", lambda: np.reshape(i32, (2, 6))),
    ("reshape_0d", lambda: np.reshape(s0, (1, 1))),
    ("reshape_empty", lambda: np.reshape(empty, (3, 0))),
    ("ravel", lambda: np.ravel(cube)),
    ("transpose", lambda: np.transpose(cube)),
    ("transpose_axes", lambda: np.transpose(cube, (1, 0, 2))),
    ("transpose_neg_axes", lambda: np.transpose(cube, (-1, 0, -2))),
    ("moveaxis_first_last", lambda: np.moveaxis(cube, 0, -1)),
    ("moveaxis_last_first", lambda: np.moveaxis(cube, -1, 0)),
    ("moveaxis_1_2", lambda: np.moveaxis(i64cube, 1, 2)),
    ("swapaxes_0_2", lambda: np.swapaxes(cube, 0, 2)),
    ("swapaxes_neg", lambda: np.swapaxes(bcube, -1, -2)),
    ("expand_dims_0", lambda: np.expand_dims(f64, 0)),
    ("expand_dims_neg1", lambda: np.expand_dims(i32, -1)),
    ("expand_dims_several", lambda: np.expand_dims(f64, (0, 2))),
    ("expand_dims_neg_several", lambda: np.expand_dims(f64, (0, -1))),
    ("expand_dims_0d", lambda: np.expand_dims(s0, 0)),
    ("expand_dims_neg_axes", lambda: np.expand_dims(f64, (-1, -3))),
    ("squeeze_all", lambda: np.squeeze(ones1)),
    ("squeeze_axis", lambda: np.squeeze(ones1, axis=2)),
    ("squeeze_neg_axes", lambda: np.squeeze(ones1, axis=(0, -2))),
    ("broadcast_to_row", lambda: np.broadcast_to(row, (3, 4))),
    ("broadcast_to_col", lambda: np.broadcast_to(col, (2, 3, 4))),
    ("broadcast_to_0d", lambda: np.broadcast_to(s0, (2, 2))),
    ("broadcast_to_bool", lambda: np.broadcast_to(row2d > 0, (2, 3, 4))),
    ("concatenate_0", lambda: np.concatenate([f64, f64b], axis=0)),
    ("concatenate_1", lambda: np.concatenate([f64, f64b], axis=1)),
    ("concatenate_neg1", lambda: np.concatenate([f64, f64b, f64], axis=-1)),
    ("concatenate_neg2", lambda: np.concatenate([f64, m24], axis=-2)),
    ("concatenate_cube_2", lambda: np.concatenate([cube, cube2], axis=2)),
    ("concatenate_cube_neg3", lambda: np.concatenate([cube, cube2], axis=-3)),
    ("concatenate_i32_f32", lambda: np.concatenate([i32, f32])),
    ("concatenate_i32_i64", lambda: np.concatenate([i32, i64], axis=1)),
    ("concatenate_bool_i32", lambda: np.concatenate([b, i32])),
    ("concatenate_empty", lambda: np.concatenate([empty, m23])),
    ("stack_rows_0", lambda: np.stack([row, row * 2], axis=0)),
    ("stack_rows_1", lambda: np.stack([row, row * 2], axis=1)),
    ("stack_0", lambda: np.stack([f64, f64b])),
    ("stack_1", lambda: np.stack([f64, f64b], axis=1)),
    ("stack_2", lambda: np.stack([f64, f64b, f64], axis=2)),
    ("stack_neg1", lambda: np.stack([f64, f64b], axis=-1)),
    ("stack_neg3", lambda: np.stack([f64, f64b], axis=-3)),
    ("stack_i32_f64", lambda: np.stack([i32, f64], axis=1)),
    ("stack_0d", lambda: np.stack([s0, s0])),
    ("pad_per_axis", lambda: np.pad(f64, ((1, 2), (0, 3)), constant_values=-1.5)),
    ("pad_int", lambda: np.pad(i32, 2)),
    ("pad_one_pair", lambda: np.pad(f64, ((1, 2),))),
    ("pad_cube", lambda: np.pad(cube, ((0, 0), (1, 0), (2, 1)))),
    ("pad_f32_constant", lambda: np.pad(f32, 1, constant_values=7)),
    ("pad_bool", lambda: np.pad(b, ((1, 1), (0, 0)), constant_values=True)),
    ("pad_i32_float_constant", lambda: np.pad(i32, 1, constant_values=-2.7)),
    ("pad_zero_widths", lambda: np.pad(cube, 0)),
    ("diff", lambda: np.diff(f64)),
    ("diff_n2_axis0", lambda: np.diff(f64, n=2, axis=0)),
    ("diff_n3", lambda: np.diff(f64, n=3)),
    ("diff_n2_axis_neg1", lambda: np.diff(sq, n=2, axis=-1)),
    ("diff_cube_axis1", lambda: np.diff(cube, n=2, axis=1)),
    ("diff_i64", lambda: np.diff(i64seq)),
    ("diff_i32_axis0", lambda: np.diff(i32, axis=0)),
    ("diff_bool", lambda: np.diff(b)),
    ("diff_prepend_scalar", lambda: np.diff(f64, axis=1, prepend=0.5)),
    ("diff_append_scalar", lambda: np.diff(f64, axis=0, append=-1.0)),
    ("diff_prepend_append_scalars", lambda: np.diff(f64, n=2, prepend=1.0, append=2.0)),
    ("diff_prepend_array_axis1", lambda: np.diff(f64, axis=1, prepend=col)),
    ("diff_append_array_axis0", lambda: np.diff(f64, axis=0, append=m24)),
    ("diff_prepend_append_arrays", lambda: np.diff(f64, n=3, axis=0, prepend=row2d, append=f64b)),
    ("diff_cube_prepend", lambda: np.diff(cube, axis=-2, prepend=c214)),
    ("diff_i64_near", lambda: np.diff(i64near)),
    ("flip_all", lambda: np.flip(f64)),
    ("flip_0", lambda: np.flip(f64, 0)),
    ("flip_neg1", lambda: np.flip(i32, -1)),
    ("flip_cube_axes", lambda: np.flip(cube, (0, 2))),
    ("roll_flat", lambda: np.roll(f64, 2)),
    ("roll_flat_neg", lambda: np.roll(i32, -5)),
    ("roll_axis0", lambda: np.roll(f64, 1, axis=0)),
    ("roll_axis1_beyond", lambda: np.roll(f64, -5, axis=1)),
    ("roll_several", lambda: np.roll(cube, (1, -2), axis=(0, 2))),
    ("roll_neg_axis", lambda: np.roll(i64cube, 7, axis=-1)),
    # ---- reductions ----
    ("sum_f64", lambda: np.sum(f64)),
    ("sum_f64_axis0", lambda: np.sum(f64, axis=0)),
    ("sum_f64_axis_neg1", lambda: np.sum(f64, axis=-1)),
    ("sum_cube_axes", lambda: np.sum(cube, axis=(0, 2))),
    ("sum_cube_neg_axes_keepdims", lambda: np.sum(cube, axis=(0, -1), keepdims=True)),
    ("sum_keepdims", lambda: np.sum(f64, keepdims=True)),
    ("sum_f32", lambda: np.sum(f32, axis=1)),
    ("sum_i32", lambda: np.sum(i32, axis=0)),
    ("sum_i64", lambda: np.sum(i64)),
    ("sum_bool", lambda: np.sum(b, axis=1)),
    ("sum_empty", lambda: np.sum(empty, axis=0)),
    ("sum_0d", lambda: np.sum(s0)),
    ("sum_all_axes_listed", lambda: np.sum(cube, axis=(0, 1, 2))),
    ("sum_f32_long", lambda: np.sum(f32long)),
    ("sum_f64_long_axis1", lambda: np.sum(f64long, axis=1)),
    ("sum_i32_ext", lambda: np.sum(i32ext)),
    ("sum_i64_big", lambda: np.sum(i64big)),
    ("sum_i64_near", lambda: np.sum(i64near * i64pm)),
    ("prod_f64_axis1", lambda: np.prod(f64, axis=1)),
    ("prod_f32", lambda: np.prod(f32pos)),
    ("prod_i32", lambda: np.prod(i32nz, axis=0)),
    ("prod_bool", lambda: np.prod(b, axis=-1, keepdims=True)),
    ("prod_empty", lambda: np.prod(empty, axis=0)),
    ("prod_i64_big", lambda: np.prod(i64big2)),
    ("prod_i32_ext", lambda: np.prod(i32ext[5:])),
    ("max_f64", lambda: np.max(f64)),
    ("max_f64_axis0", lambda: np.max(f64, axis=0)),
    ("max_cube_axes", lambda: np.max(cube, axis=(0, 2))),
    ("max_i32_keepdims", lambda: np.max(i32, axis=-1, keepdims=True)),
    ("max_bool", lambda: np.max(bcube, axis=1)),
    ("max_nan", lambda: np.max(sp64, axis=1)),
    ("max_nan_f32", lambda: np.max(sp32, axis=0)),
    ("min_f64_axis_neg1", lambda: np.min(f64, axis=-1)),
    ("min_i64", lambda: np.min(i64)),
    ("min_nan", lambda: np.min(sp64, axis=0)),
    ("min_empty_other_axis", lambda: np.min(empty, axis=1)),
    ("max_neg_axes_listed", lambda: np.max(cube, axis=(-1, -2, -3))),
    ("max_i64_near", lambda: np.max(i64near)),
    ("min_i32_ext", lambda: np.min(i32ext)),
    ("min_bool", lambda: np.min(b, axis=0)),
    ("amax_cube", lambda: np.amax(i64cube, axis=(1, 2), keepdims=True)),
    ("amin_f32", lambda: np.amin(f32, axis=0)),
    ("mean_f64", lambda: np.mean(f64)),
    ("mean_f64_axis1", lambda: np.mean(f64, axis=1)),
    ("mean_cube_axes", lambda: np.mean(cube, axis=(0, -1))),
    ("mean_i32", lambda: np.mean(i32, axis=0)),
    ("mean_bool", lambda: np.mean(b)),
    ("mean_f32", lambda: np.mean(f32, axis=1, keepdims=True)),
    ("mean_f32_long", lambda: np.mean(f32long)),
    ("mean_i64_near", lambda: np.mean(i64near)),
    ("argmax_f64", lambda: np.argmax(f64)),
    ("argmax_f64_axis0", lambda: np.argmax(f64, axis=0)),
    ("argmax_f64_axis_neg1_keepdims", lambda: np.argmax(f64, axis=-1, keepdims=True)),
    ("argmax_ties", lambda: np.argmax(f64half, axis=1)),
    ("argmax_nan", lambda: np.argmax(sp64, axis=1)),
    ("argmax_nan_flat", lambda: np.argmax(sp64r)),
    ("argmax_bool", lambda: np.argmax(bcube, axis=2)),
    ("argmax_keepdims_flat", lambda: np.argmax(cube, keepdims=True)),
    ("argmin_i32", lambda: np.argmin(i32)),
    ("argmin_cube_axis1", lambda: np.argmin(cube, axis=1)),
    ("argmin_nan", lambda: np.argmin(sp64, axis=0)),
    ("argmin_f32_ties", lambda: np.argmin(np.floor(f32), axis=0)),
    ("argmax_i64_near", lambda: np.argmax(i64near)),
    ("argmin_i64_near", lambda: np.argmin(i64near)),
    ("argmin_keepdims_flat", lambda: np.argmin(i32, keepdims=True)),
    ("argmax_nan_f32", lambda: np.argmax(sp32)),
    ("all_bool", lambda: np.all(b)),
    ("all_bool_axis0", lambda: np.all(bcube, axis=0)),
    ("all_bool_axes_keepdims", lambda: np.all(bcube, axis=(0, -1), keepdims=True)),
    ("all_f64", lambda: np.all(sp64, axis=1)),
    ("all_empty", lambda: np.all(empty, axis=0)),
    ("any_bool_axis_neg1", lambda: np.any(bcube, axis=-1)),
    ("any_i32", lambda: np.any(i32 * b, axis=0)),
    ("any_empty", lambda: np.any(empty)),
    ("any_f32_nan", lambda: np.any(sp32, axis=1)),
    # ---- contractions ----
    ("einsum_matmul", lambda: np.einsum("ij,jk->ik", f64, mat45)),
    ("einsum_matmul_implicit", lambda: np.einsum("ij,jk", f64, mat45)),
    ("einsum_trace", lambda: np.einsum("ii", sq)),
    ("einsum_diag", lambda: np.einsum("ii->i", sq)),
    ("einsum_ellipsis_dot", lambda: np.einsum("i...,i...", cube2[0], cube[0])),
    ("einsum_batch_ellipsis", lambda: np.einsum("...ij,...jk->...ik", cube, batch245)),
    ("einsum_broadcast_ellipsis", lambda: np.einsum("...ij,...jk->...ik", cube, mat45)),
    ("einsum_transpose", lambda: np.einsum("ijk->kji", cube)),
    ("einsum_outer", lambda: np.einsum("i,j->ij", row3, row)),
    ("einsum_batch", lambda: np.einsum("bij,bjk->bik", cube, batch245)),
    ("einsum_three", lambda: np.einsum("ij,jk,kl->il", f64, mat45, mat54)),
    ("einsum_upper_implicit", lambda: np.einsum("bA,Bb", f64, mat53)),
    ("einsum_upper_lower_implicit", lambda: np.einsum("Ai,iB", f64, mat45)),
    ("einsum_sum_all", lambda: np.einsum("ij->", f64)),
    ("einsum_sum_axis", lambda: np.einsum("ijk->j", cube)),
    ("einsum_i32", lambda: np.einsum("ij,jk->ik", i32, i32mat45)),
    ("einsum_f32", lambda: np.einsum("ij,jk->ik", f32, f32mat45)),
    ("einsum_f32_f64", lambda: np.einsum("ij,jk->ik", f32, mat45)),
    ("einsum_elementwise", lambda: np.einsum("ij,ij->ij", f64, f64b)),
    ("einsum_transpose_dot", lambda: np.einsum("ij,ji", f64, mat45[:, :3])),
    ("einsum_diag_sum", lambda: np.einsum("iij->j", sq3)),
    ("einsum_ellipsis_broadcast", lambda: np.einsum("...i,...i->...", f64, row)),
    ("einsum_ellipsis_size1", lambda: np.einsum("...ij,...jk->...ik", b2134, b342)),
    ("einsum_implicit_batch", lambda: np.einsum("bij,bjk", cube, batch245)),
    ("einsum_i64_near", lambda: np.einsum("i,i", i64near, i64pm)),
    ("einsum_three_shared", lambda: np.einsum("ij,ij,j->i", f64, f64b, row)),
    ("einsum_ellipsis_middle", lambda: np.einsum("a...c,c->a...", cube, row)),
    ("einsum_bool", lambda: np.einsum("ij,kj", b, bb)),
    ("matmul_2d", lambda: np.matmul(f64, mat45)),
    ("matmul_1d_2d", lambda: np.matmul(row, mat45)),
    ("matmul_2d_1d", lambda: np.matmul(f64, row)),
    ("matmul_1d_1d", lambda: np.matmul(row, row)),
    ("matmul_batched", lambda: np.matmul(cube, batch245)),
    ("matmul_broadcast", lambda: np.matmul(cube, mat45)),
    ("matmul_broadcast_4d", lambda: np.matmul(b2134, b342)),
    ("matmul_1d_3d", lambda: np.matmul(row, batch245)),
    ("matmul_3d_1d", lambda: np.matmul(cube, row)),
    ("matmul_i32", lambda: np.matmul(i32, i32mat45)),
    ("matmul_i32_f32", lambda: np.matmul(i32, f32mat45)),
    ("matmul_f32", lambda: np.matmul(f32, f32mat45)),
    ("matmul_i64_near", lambda: np.matmul(i64near, i64pm)),
    ("matmul_bool", lambda: np.matmul(b, bb.T)),
    ("dot_1d", lambda: np.dot(row, row)),
    ("dot_2d", lambda: np.dot(f64, mat45)),
    ("dot_2d_1d", lambda: np.dot(f64, row)),
    ("dot_1d_2d", lambda: np.dot(row, mat45)),
    ("dot_nd_2d", lambda: np.dot(cube, mat45)),
    ("dot_nd_nd", lambda: np.dot(cube, b546)),
    ("dot_0d", lambda: np.dot(s0, f64)),
    ("dot_i64", lambda: np.dot(i64, i64b.T)),
    ("dot_i64_near", lambda: np.dot(i64near, i64pm)),
    ("tensordot_default", lambda: np.tensordot(cube, b345)),
    ("tensordot_1", lambda: np.tensordot(f64, mat45, axes=1)),
    ("tensordot_0", lambda: np.tensordot(row3, row, axes=0)),
    ("tensordot_pairs", lambda: np.tensordot(cube, b325, axes=([0, 1], [1, 0]))),
    ("tensordot_neg_pairs", lambda: np.tensordot(cube, mat45, axes=([-1], [0]))),
    ("vdot_1d", lambda: np.vdot(row, row * 2)),
    ("vdot_2d", lambda: np.vdot(f64, f64b)),
    ("vdot_i32", lambda: np.vdot(i32, i32b)),
    ("vdot_i64_near", lambda: np.vdot(i64near, i64pm)),
    ("tensordot_i64_near", lambda: np.tensordot(i64near, i64pm, axes=1)),
    ("outer", lambda: np.outer(row3, row)),
    ("outer_2d", lambda: np.outer(m23, row)),
    ("outer_i32_f32", lambda: np.outer(i32[0], f32[1])),
    # ---- indexing ----
    ("index_slice", lambda: f64[1:3]),
    ("index_reverse", lambda: v1d[::-1]),
    ("index_neg_step", lambda: v1d[-1:0:-3]),
    ("index_neg_steps_2d", lambda: f64[2::-1, ::-2]),
    ("index_int", lambda: f64[1]),
    ("index_int_neg_0d", lambda: f64[-1, 2]),
    ("index_newaxis", lambda: f64[None]),
    ("index_slice_newaxis_int", lambda: f64[:, None, 1]),
    ("index_ellipsis_int", lambda: cube[..., 0]),
    ("index_int_ellipsis_newaxis", lambda: cube[0, ..., None]),
    ("index_ellipsis_mid", lambda: cube[1, ..., 1:3]),
    ("index_out_of_range_slice", lambda: v1d[-20:20]),
    ("index_empty_slice", lambda: f64[3:1]),
    ("index_bool", lambda: b[::2, 1:]),
    ("index_neg_step_clamped", lambda: v1d[20:-20:-1]),
    ("index_neg_step_from_5", lambda: v1d[5:-20:-2]),
    ("index_tail", lambda: v1d[-3:]),
    ("index_ellipsis_newaxis", lambda: f64[..., None]),
    ("index_last_row_reversed", lambda: f64[-1:, ::-1]),
    ("index_ellipsis_reverse_int", lambda: cube[..., ::-1, 1]),
    ("index_newaxis_ellipsis_newaxis", lambda: cube[None, ..., None]),
    ("index_neg_start_stop", lambda: cube[:, -1:-3:-1]),
    ("at_set_row", lambda: at_set(f64, 1, 5.0)),
    ("at_set_strided", lambda: at_set(v1d, slice(2, -1, 2), 2.0)),
    ("at_set_reversed", lambda: at_set(v1d, slice(None, None, -1), np.arange(10.0))),
    ("at_set_broadcast", lambda: at_set(f64, (slice(None, None, 2), -1), row3[:2])),
    ("at_set_ellipsis", lambda: at_set(cube, (..., 0), -1.0)),
    ("at_set_int_into_float", lambda: at_set(f32, (_, 1), 3)),
    ("at_set_i32", lambda: at_set(i32, (0, slice(1, 3)), 100)),
    ("at_set_bool", lambda: at_set(b, (_, 0), True)),
    ("at_set_neg_int_ellipsis", lambda: at_set(cube, (-1, ..., -1), 0.0)),
    ("at_set_0d", lambda: at_set(s0, ..., 2.0)),
    ("at_add", lambda: at_add(f64, (_, slice(1, None, 2)), 4.0)),
    ("at_add_i64", lambda: at_add(i64, (slice(None, None, -2),), i64b[:2])),
    ("at_multiply", lambda: at_multiply(f64, (slice(0, 2), slice(None, None, -1)), row)),
    ("at_multiply_f32_newaxis", lambda: at_multiply(f32, (1, None), 0.5)),
    ("at_subtract", lambda: at_subtract(f64, (_, 2), row3)),
    ("at_divide", lambda: at_divide(f64, (slice(1, None), slice(None, None, 3)), 4.0)),
    ("at_min", lambda: at_min(i32, (_, slice(1, 3)), 0)),
    ("at_max", lambda: at_max(f64, (0,), row)),
    ("at_get", lambda: f64[1:, ::2]),
    # ---- math functions, round, clip, fmod and friends (the op table's math ops) ----
    ("sinh_f64", lambda: np.sinh(f64 * 3)),
    ("sinh_f32", lambda: np.sinh(f32 * 3)),
    ("sinh_special", lambda: np.sinh(sp64)),
    ("cosh_f64", lambda: np.cosh(f64 * 3)),
    ("cosh_special", lambda: np.cosh(sp64)),
    ("arcsin_f64", lambda: np.arcsin(unit)),
    ("arcsin_f32", lambda: np.arcsin(unit.astype(np.float32))),
    ("arcsin_special", lambda: np.arcsin(sp64)),
    ("arccos_f64", lambda: np.arccos(unit)),
    ("arccos_special", lambda: np.arccos(sp64)),
    ("arctan_f64", lambda: np.arctan(f64 * 10)),
    ("arctan_special", lambda: np.arctan(sp64)),
    ("arcsinh_f64", lambda: np.arcsinh(f64 * 10)),
    ("arcsinh_special", lambda: np.arcsinh(sp64)),
    ("arccosh_f64", lambda: np.arccosh(ge1)),
    ("arccosh_special", lambda: np.arccosh(sp64)),
    ("arctanh_f64", lambda: np.arctanh(unit)),
    ("arctanh_special", lambda: np.arctanh(sp64)),
    ("exp2_f64", lambda: np.exp2(f64 * 10)),
    ("exp2_f32", lambda: np.exp2(f32 * 10)),
    ("exp2_special", lambda: np.exp2(sp64)),
    ("exp2_i64", lambda: np.exp2(i64small)),
    ("log2_f64", lambda: np.log2(f64pos)),
    ("log2_special", lambda: np.log2(sp64)),
    ("log10_f64", lambda: np.log10(f64pos)),
    ("log10_f32", lambda: np.log10(f32pos)),
    ("log10_special", lambda: np.log10(sp64)),
    ("cbrt_f64", lambda: np.cbrt(f64 * 100)),
    ("cbrt_special", lambda: np.cbrt(sp64)),
    ("cbrt_i64", lambda: np.cbrt(i64)),
    # jax.scipy.special.erf / erfc (NumPy has none: Python's math, libm's functions).
    ("erf_f64", lambda: np.vectorize(math.erf, otypes=[np.float64])(f64 * 2)),
    ("erf_special", lambda: np.vectorize(math.erf, otypes=[np.float64])(sp64)),
    ("erfc_f64", lambda: np.vectorize(math.erfc, otypes=[np.float64])(f64 * 4)),
    ("erfc_special", lambda: np.vectorize(math.erfc, otypes=[np.float64])(sp64)),
    ("round_f64", lambda: np.round(f64 * 3)),
    ("round_ties", lambda: np.round(ties)),
    ("round_ties_f32", lambda: np.round(ties32)),
    ("round_decimals", lambda: np.round(ties, 2)),
    ("round_decimals_f32", lambda: np.round(ties32, 1)),
    ("round_neg_decimals", lambda: np.round(tens, -1)),
    ("round_special", lambda: np.round(sp64)),
    ("round_i64", lambda: np.round(i64, 2)),
    ("clip_f64", lambda: np.clip(f64, -0.5, 0.5)),
    ("clip_special", lambda: np.clip(sp64, -1, 1)),
    ("clip_lower_only", lambda: np.clip(i64, -100, None)),
    ("clip_upper_only", lambda: np.clip(f64, None, 0.25)),
    ("clip_arrays", lambda: np.clip(f64, row, 1.5)),
    ("clip_int_float_bounds", lambda: np.clip(i64small, -2.5, 4)),
    ("arctan2_f64", lambda: np.arctan2(f64, f64b)),
    ("arctan2_f32", lambda: np.arctan2(f32, f32b)),
    ("arctan2_special", lambda: np.arctan2(sp64, sp64r)),
    ("arctan2_i64", lambda: np.arctan2(i64, i64b)),
    ("hypot_f64", lambda: np.hypot(f64, f64b)),
    ("hypot_f32", lambda: np.hypot(f32, f32b)),
    ("hypot_special", lambda: np.hypot(sp64, sp64r)),
    ("logaddexp_f64", lambda: np.logaddexp(f64, f64b)),
    ("logaddexp_f32", lambda: np.logaddexp(f32, f32b)),
    ("logaddexp_far", lambda: np.logaddexp(f64 * 1000, f64b * 1000)),
    ("logaddexp_special", lambda: np.logaddexp(sp64, sp64r)),
    ("logaddexp_i64", lambda: np.logaddexp(i64small, i64b)),
    ("copysign_f64", lambda: np.copysign(f64, f64b)),
    ("copysign_special", lambda: np.copysign(sp64, sp64r)),
    ("copysign_i64", lambda: np.copysign(i64, i64b)),
    ("nextafter_f64", lambda: np.nextafter(f64, f64b)),
    ("nextafter_f32", lambda: np.nextafter(f32, f32b)),
    ("nextafter_special", lambda: np.nextafter(sp64, sp64r)),
    ("nextafter_i64", lambda: np.nextafter(i64, i64b)),
    ("fmod_f64", lambda: np.fmod(f64 * 3, f64b)),
    ("fmod_f32", lambda: np.fmod(f32 * 3, f32b)),
    ("fmod_special", lambda: np.fmod(sp64, np.array([0.0, 1.5, -1.5, np.inf]))),
    ("fmod_i64", lambda: np.fmod(i64, i64nz)),
    ("fmod_i32", lambda: np.fmod(i32, i32nz)),
    ("fmod_int_zero", lambda: np.fmod(np.array([7, -7, 0, -2**63, 5]),
                                      np.array([0, 0, 0, -1, -3]))),
    ("fmod_i32_min", lambda: np.fmod(i32ext, i32ext2)),
]


def main():
    golden_io.write(OUT, INPUTS, CASES, "make_golden.py", 200)


if __name__ == "__main__":
    main()
