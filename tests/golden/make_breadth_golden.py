#!/usr/bin/env python3
"""Writes the goldens that tests/api/test_breadth_golden.cpp checks jx's wider API against.

Run with a Python that has NumPy and JAX (the project's venv): python tests/golden/make_breadth_golden.py.
Each case is one call: NumPy's for the jnp functions NumPy has (np), JAX's (with x64, jax.numpy's
semantics) for jax.nn, jax.scipy.special and where jnp deliberately differs from NumPy (noted at
the case). Results go to breadth/<case>.npy, inputs to breadth/in_<name>.npy; breadth/MANIFEST.txt
lists them. The C++ test of the same name computes the same thing with jx.
"""
import os

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.nn as jnn  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402

import golden_io  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "breadth")
rng = np.random.default_rng(1)
INPUTS = {}


def inp(name, a):
    INPUTS[name] = np.asarray(a)
    return INPUTS[name]


x = inp("x", rng.normal(size=(3, 4)))
y = inp("y", rng.normal(size=(3, 4)))
f32 = inp("f32", rng.normal(size=(3, 4)).astype(np.float32))
pos = inp("pos", rng.uniform(0.1, 4.0, size=(3, 4)))
unit = inp("unit", rng.uniform(0.01, 0.99, size=(3, 4)))
sp = inp("sp", np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, 1e300,
                         -1e-300]).reshape(3, 4))
ints = inp("ints", rng.integers(-10, 10, size=(3, 4)))
ints2 = inp("ints2", rng.integers(-12, 12, size=(3, 4)))
nanx = x.copy()
nanx[1, :] = np.nan
nanx[0, 2] = np.nan
nanx[2, 0] = np.nan
nanx = inp("nanx", nanx)
v5 = inp("v5", rng.normal(size=(5,)))
v3 = inp("v3", rng.normal(size=(3,)))
v10 = inp("v10", np.arange(10.0))
cube = inp("cube", rng.normal(size=(2, 3, 4)))
sq = inp("sq", rng.normal(size=(4, 4)))
m35 = inp("m35", rng.normal(size=(3, 5)))
m35b = inp("m35b", rng.normal(size=(3, 5)))
w4 = inp("w4", rng.uniform(0.5, 2.0, size=(4,)))
w34 = inp("w34", rng.uniform(0.5, 2.0, size=(3, 4)))
a3 = inp("a3", rng.normal(size=(4, 3)))
b3 = inp("b3", rng.normal(size=(4, 3)))
a2 = inp("a2", rng.normal(size=(4, 2)))
b2 = inp("b2", rng.normal(size=(4, 2)))
gam = inp("gam", np.array([-2.5, -1.5, -0.5, 0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.2, 50.5, 170.3]))
poles = inp("poles", np.array([-3.0, -1.0, 0.0, 1e-8, -1e-8, 1e-300, 0.999, 1.001, 2.0, 1e10,
                               np.inf, np.nan]))
cls = inp("cls", np.array([0, 2, 1, 3, -1, 5]))
roots = inp("roots", np.array([1.0, -2.0, 0.5]))
p4 = inp("p4", np.array([2.0, -1.0, 0.5, 3.0]))
p2 = inp("p2", np.array([1.5, -4.0]))
xs = inp("xs", np.array([0.0, 0.5, 1.5, 3.0, 3.5]))
ties = inp("ties", np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 3.7]))
g_m = inp("g_m", np.array([1, 2, -3, 3, 0, 0, 5, 7]))
g_n = inp("g_n", np.array([4, 0, 9, 3, 0, -6, 25, 11]))
test_set = inp("test_set", np.array([1, 2, 3, -4]))
# Sorting and scans: ties, NaNs, infinities, signed zeros.
sortme = inp("sortme", np.array([[3.0, np.nan, -1.0, 2.0, -np.inf, 2.0],
                                 [0.0, -0.0, np.inf, 1.5, 1.5, -2.0],
                                 [np.nan, 4.0, np.nan, -3.0, 0.5, 1.0]]))
ties_int = inp("ties_int", np.array([[3, 1, 2, 1, 3, 0], [5, 5, 5, -1, 0, 5]]))
key2 = inp("key2", np.array([1, 0, 1, 0, 1, 0]))
key1 = inp("key1", np.array([2.0, 2.0, 1.0, 1.0, 3.0, 3.0]))
bins = inp("bins", np.array([-1.0, 0.0, 0.5, 2.0]))
queries = inp("queries", np.array([-2.0, -1.0, 0.0, 0.25, 0.5, 3.0, np.nan, 2.0]))
dup = inp("dup", np.array([3.0, 1.0, 2.0, 1.0, np.nan, 3.0, -0.0, 0.0, np.nan, 2.0]))
dup_rows = inp("dup_rows", np.array([[1, 2], [3, 4], [1, 2], [0, 5], [3, 4]]))
set1 = inp("set1", np.array([5, 1, 3, 3, 7, 1]))
set2 = inp("set2", np.array([3, 9, 1, 1, 4]))
edges = inp("edges", np.array([-2.0, -0.5, 0.0, 0.5, 2.0]))
xp = inp("xp", np.array([0.0, 1.0, 1.5, 4.0]))
fp = inp("fp", np.array([1.0, -1.0, 2.0, 0.5]))
phase = inp("phase", np.cumsum(rng.uniform(0.5, 2.5, size=(12,))) % (2 * np.pi))
# Indexing: repeated, negative and (for JAX's clamping and dropping) out-of-range indices.
idx = inp("idx", np.array([2, 0, -1, 2, 1]))
idx_oob = inp("idx_oob", np.array([0, 7, -1, -9, 0]))
idx2 = inp("idx2", np.array([[0, 3], [-2, 1]]))
mask = inp("mask", x > 0)
upd = inp("upd", np.arange(1.0, 6.0))
counts = inp("counts", np.array([0, 3, 1, 3, 3, 7, 0]))

_ = slice(None)
CASES = [
    # ---- elementwise compositions ----
    ("fabs_int", lambda: np.fabs(ints)),
    ("fmax_special", lambda: np.fmax(sp, sp[::-1])),
    ("fmin_special", lambda: np.fmin(sp, sp[::-1])),
    ("float_power_f32", lambda: np.float_power(f32, 2)),
    ("heaviside_special", lambda: np.heaviside(sp, 0.5)),
    ("logaddexp2", lambda: np.logaddexp2(x, y)),
    ("logaddexp2_special", lambda: np.logaddexp2(sp, sp[::-1])),
    ("reciprocal", lambda: np.reciprocal(x)),
    ("rint_ties", lambda: np.rint(ties)),
    ("trunc_special", lambda: np.trunc(sp)),
    ("trunc_int", lambda: np.trunc(ints)),
    ("fix", lambda: np.fix(x * 3)),
    ("deg2rad", lambda: np.deg2rad(x * 100)),
    ("rad2deg_int", lambda: np.rad2deg(ints)),
    ("sinc", lambda: np.sinc(x)),
    ("sinc_special", lambda: np.sinc(np.array([0.0, 1.0, -1.0, 0.5, 2.0, -0.0]))),
    ("isneginf", lambda: np.isneginf(sp)),
    ("isposinf", lambda: np.isposinf(sp)),
    ("nan_to_num", lambda: np.nan_to_num(sp)),
    ("nan_to_num_values", lambda: np.nan_to_num(sp, nan=-1.0, posinf=9.0, neginf=-9.0)),
    ("nan_to_num_f32", lambda: np.nan_to_num(np.array([np.nan, np.inf, -np.inf, 1], np.float32))),
    ("divmod_q", lambda: np.divmod(x * 5, y)[0]),
    ("divmod_r", lambda: np.divmod(x * 5, y)[1]),
    ("modf_fraction", lambda: np.modf(sp)[0]),
    ("modf_whole", lambda: np.modf(sp)[1]),
    ("modf_neg", lambda: np.modf(np.array([-2.5, -2.0, 3.25, 0.0]))[0]),
    ("ldexp", lambda: np.ldexp(x, ints)),
    ("ldexp_far", lambda: np.ldexp(np.array([1e-300, 1e300, 3.0]), np.array([1100, -1100, 2]))),
    ("spacing", lambda: np.spacing(np.array([1.0, -1.0, 0.0, 1e300, 2.5, -1e-310]))),
    ("gcd", lambda: np.gcd(g_m, g_n)),
    ("lcm", lambda: np.lcm(g_m, g_n)),
    ("gcd_broadcast", lambda: np.gcd(ints, 6)),
    ("angle", lambda: np.angle(sp)),
    ("angle_deg", lambda: np.angle(x, deg=True)),
    ("imag", lambda: np.imag(x)),
    ("select", lambda: np.select([x < -0.5, x > 0.5], [x * 10, x * 100], -1.0)),
    ("isin", lambda: np.isin(ints, test_set)),
    ("isin_invert", lambda: np.isin(ints, test_set, invert=True)),
    ("i0", lambda: np.i0(x * 6)),
    # ---- statistics ----
    ("var", lambda: np.var(x)),
    ("var_axis_ddof", lambda: np.var(cube, axis=(0, 2), ddof=1)),
    ("var_int", lambda: np.var(ints, axis=1)),
    ("std_keepdims", lambda: np.std(x, axis=1, keepdims=True)),
    ("std_f32", lambda: np.std(f32, axis=0)),
    ("average_weights", lambda: np.average(x, weights=w34)),
    ("average_axis_weights", lambda: np.average(x, axis=1, weights=w4)),
    ("average_plain", lambda: np.average(cube, axis=2)),
    ("ptp", lambda: np.ptp(x, axis=0)),
    ("ptp_int", lambda: np.ptp(ints)),
    ("count_nonzero", lambda: np.count_nonzero(ints, axis=0)),
    ("count_nonzero_all", lambda: np.array(np.count_nonzero(sp))),
    ("nansum", lambda: np.nansum(nanx, axis=1)),
    ("nanprod", lambda: np.nanprod(nanx, axis=0)),
    ("nanmax", lambda: np.nanmax(nanx, axis=1)),
    ("nanmin", lambda: np.nanmin(nanx, axis=1)),
    ("nanmean", lambda: np.nanmean(nanx, axis=1)),
    ("nanmean_all", lambda: np.nanmean(nanx)),
    ("nanvar", lambda: np.nanvar(nanx, axis=0, ddof=1)),
    ("nanstd", lambda: np.nanstd(nanx, axis=1)),
    # jnp: -1 for an all-NaN slice (NumPy raises).
    ("nanargmax", lambda: jnp.nanargmax(nanx, axis=1)),
    ("nanargmin", lambda: jnp.nanargmin(nanx, axis=1)),
    ("cov", lambda: np.cov(m35)),
    ("cov_columns", lambda: np.cov(m35, rowvar=False)),
    ("cov_y", lambda: np.cov(v5, m35b)),
    ("cov_bias", lambda: np.cov(m35, bias=True)),
    ("cov_one", lambda: np.cov(v5)),
    ("corrcoef", lambda: np.corrcoef(m35)),
    ("corrcoef_y", lambda: np.corrcoef(m35, m35b)),
    # ---- rearranging ----
    ("rot90", lambda: np.rot90(x)),
    ("rot90_k2", lambda: np.rot90(cube, 2)),
    ("rot90_k3_axes", lambda: np.rot90(cube, 3, axes=(0, 2))),
    ("rot90_neg", lambda: np.rot90(x, -1)),
    ("fliplr", lambda: np.fliplr(x)),
    ("flipud", lambda: np.flipud(cube)),
    ("rollaxis", lambda: np.rollaxis(cube, 2)),
    ("rollaxis_start", lambda: np.rollaxis(cube, 0, 3)),
    ("atleast_3d", lambda: np.atleast_3d(v5)),
    ("atleast_3d_2d", lambda: np.atleast_3d(x)),
    ("atleast_2d", lambda: np.atleast_2d(v5)),
    ("hstack", lambda: np.hstack([x, y])),
    ("hstack_1d", lambda: np.hstack([v5, v3])),
    ("vstack_1d", lambda: np.vstack([v5, v5 * 2])),
    ("dstack", lambda: np.dstack([x, y])),
    ("column_stack", lambda: np.column_stack([v3, x])),
    ("split_1", lambda: np.split(v10, 5)[1]),
    ("split_indices", lambda: np.split(v10, [3, 7])[1]),
    ("split_indices_neg", lambda: np.split(v10, [-3, 20])[0]),
    ("array_split_uneven", lambda: np.array_split(v10, 3)[0]),
    ("array_split_last", lambda: np.array_split(v10, 3)[2]),
    ("hsplit", lambda: np.hsplit(x, 2)[1]),
    ("vsplit", lambda: np.vsplit(sq, 2)[1]),
    ("dsplit", lambda: np.dsplit(cube, [1])[1]),
    ("unstack", lambda: jnp.unstack(cube, axis=1)[2]),
    ("tile", lambda: np.tile(x, (2, 1))),
    ("tile_more", lambda: np.tile(v3, (2, 1, 2))),
    ("tile_fewer", lambda: np.tile(cube, 2)),
    ("repeat", lambda: np.repeat(x, 2, axis=1)),
    ("repeat_flat", lambda: np.repeat(ints, 3)),
    ("repeat_counts", lambda: np.repeat(x, [1, 0, 3], axis=0)),
    ("append", lambda: np.append(x, y)),
    ("append_axis", lambda: np.append(x, y, axis=0)),
    ("delete", lambda: np.delete(x, [0, -1], axis=1)),
    ("delete_flat", lambda: np.delete(ints, [1, 5, 11])),
    ("insert", lambda: np.insert(x, 1, 5.0, axis=1)),
    ("insert_values", lambda: np.insert(x, 3, v3, axis=1)),
    ("insert_flat", lambda: np.insert(ints, -2, np.array([7, 8]))),
    ("resize_grow", lambda: np.resize(v5, (3, 4))),
    ("resize_shrink", lambda: np.resize(x, (5,))),
    ("broadcast_arrays", lambda: np.broadcast_arrays(v3[:, None], v5)[1]),
    ("matrix_transpose", lambda: np.matrix_transpose(cube)),
    # ---- creation ----
    ("logspace", lambda: np.logspace(0.0, 3.0, 7)),
    ("logspace_base2", lambda: np.logspace(1.0, 4.0, 4, endpoint=False, base=2.0)),
    ("geomspace", lambda: np.geomspace(1.0, 1000.0, 4)),
    ("geomspace_negative", lambda: np.geomspace(-1000.0, -1.0, 5)),
    ("geomspace_no_endpoint", lambda: np.geomspace(2.0, 32.0, 4, endpoint=False)),
    ("meshgrid_xy_0", lambda: np.meshgrid(v3, v5)[0]),
    ("meshgrid_xy_1", lambda: np.meshgrid(v3, v5)[1]),
    ("meshgrid_ij_1", lambda: np.meshgrid(v3, v5, indexing="ij")[1]),
    ("meshgrid_3", lambda: np.meshgrid(v3, v5, p2)[2]),
    ("indices", lambda: np.indices((2, 3))),
    ("identity_int", lambda: np.identity(3, dtype=np.int32)),
    ("tri", lambda: np.tri(3, 5, 1)),
    ("tril", lambda: np.tril(x)),
    ("tril_k", lambda: np.tril(cube, -1)),
    ("triu", lambda: np.triu(x, 1)),
    ("triu_int", lambda: np.triu(ints, -1)),
    ("tril_indices_rows", lambda: np.tril_indices(4)[0]),
    ("tril_indices_cols", lambda: np.tril_indices(3, 1, 5)[1]),
    ("triu_indices_rows", lambda: np.triu_indices(4, 1)[0]),
    ("triu_indices_cols", lambda: np.triu_indices(4, -1, 3)[1]),
    ("diag_1d", lambda: np.diag(v3)),
    ("diag_1d_k", lambda: np.diag(v3, 2)),
    ("diag_1d_neg_k", lambda: np.diag(v3, -1)),
    ("diag_2d", lambda: np.diag(x, 1)),
    ("diag_2d_neg", lambda: np.diag(x, -2)),
    ("diagflat", lambda: np.diagflat(np.array([[1.0, 2.0], [3.0, 4.0]]), -1)),
    ("diagonal_offset", lambda: np.diagonal(cube, 1, 1, 2)),
    ("diagonal_far", lambda: np.diagonal(x, 7)),
    ("trace", lambda: np.trace(sq)),
    ("trace_offset", lambda: np.trace(cube, -1, 1, 2)),
    ("trace_int", lambda: np.trace(ints)),
    ("vander", lambda: np.vander(v3)),
    ("vander_increasing", lambda: np.vander(v3, 5, increasing=True)),
    ("vander_int", lambda: np.vander(np.array([1, 2, 3]), 4)),
    ("bartlett", lambda: np.bartlett(7)),
    ("blackman", lambda: np.blackman(6)),
    ("hamming", lambda: np.hamming(5)),
    ("hanning", lambda: np.hanning(8)),
    ("hanning_one", lambda: np.hanning(1)),
    ("kaiser", lambda: np.kaiser(9, 5.0)),
    # ---- products, convolution, polynomials, differences ----
    ("inner", lambda: np.inner(x, y)),
    ("inner_1d", lambda: np.inner(v5, v5)),
    ("kron", lambda: np.kron(x, sq)),
    ("kron_mixed", lambda: np.kron(v3, cube)),
    ("cross", lambda: np.cross(a3, b3)),
    ("cross_2_3", lambda: np.cross(a2, b3)),
    ("cross_3_2", lambda: np.cross(a3, b2)),
    ("cross_2_2", lambda: np.cross(np.array([1.0, 2.0]), np.array([3.0, 4.0]))),
    ("cross_axis", lambda: np.cross(a3.T, b3.T, axisa=0, axisb=0, axisc=0)),
    ("vecdot", lambda: np.vecdot(x, y)),
    ("vecdot_axis", lambda: np.vecdot(cube, cube, axis=1)),
    ("matvec", lambda: np.matvec(cube, w4)),
    ("vecmat", lambda: np.vecmat(v3, m35)),
    ("convolve_full", lambda: np.convolve(v10, v3)),
    ("convolve_same", lambda: np.convolve(v10, v3, "same")),
    ("convolve_valid", lambda: np.convolve(v10, v3, "valid")),
    ("convolve_swapped", lambda: np.convolve(v3, v10, "same")),
    ("correlate_valid", lambda: np.correlate(v10, v3)),
    ("correlate_full", lambda: np.correlate(v10, v3, "full")),
    ("correlate_swapped", lambda: np.correlate(v3, v10, "full")),
    ("correlate_same_even", lambda: np.correlate(v10, w4, "same")),
    ("polyval", lambda: np.polyval(p4, x)),
    ("polyval_int", lambda: np.polyval(np.array([3, 0, 1]), ints)),
    ("polyadd", lambda: np.polyadd(p4, p2)),
    ("polysub", lambda: np.polysub(p2, p4)),
    ("polymul", lambda: np.polymul(p4, p2)),
    ("polyder", lambda: np.polyder(p4)),
    ("polyder_2", lambda: np.polyder(p4, 2)),
    ("polyint", lambda: np.polyint(p4)),
    ("polyint_k", lambda: np.polyint(p4, 2, [1.0, 2.0])),
    ("poly", lambda: np.poly(roots)),
    ("trapezoid", lambda: np.trapezoid(x)),
    ("trapezoid_dx", lambda: np.trapezoid(cube, dx=0.5, axis=1)),
    ("trapezoid_x", lambda: np.trapezoid(np.sin(xs), xs)),
    ("ediff1d", lambda: np.ediff1d(x)),
    ("ediff1d_ends", lambda: np.ediff1d(v5, to_end=np.array([9.0, 8.0]), to_begin=-1.0)),
    ("gradient_0", lambda: np.gradient(cube, axis=0)),
    ("gradient_2", lambda: np.gradient(cube, 0.5, axis=2)),
    # ---- scans, sorting, searching, order statistics ----
    ("cumsum", lambda: np.cumsum(x)),
    ("cumsum_axis", lambda: np.cumsum(cube, axis=1)),
    ("cumsum_int32", lambda: np.cumsum(ints.astype(np.int32), axis=1)),
    ("cumsum_bool", lambda: np.cumsum(x > 0, axis=0)),
    ("cumprod", lambda: np.cumprod(x, axis=1)),
    ("cumprod_int", lambda: np.cumprod(ints, axis=0)),
    ("cumsum_special", lambda: np.cumsum(sp, axis=1)),
    ("cumulative_sum_initial", lambda: np.cumulative_sum(v5, include_initial=True)),
    ("cumulative_prod", lambda: np.cumulative_prod(x, axis=0)),
    ("nancumsum", lambda: np.nancumsum(nanx, axis=1)),
    ("nancumprod", lambda: np.nancumprod(nanx)),
    ("lax_cummax", lambda: jax.lax.cummax(sortme, axis=1)),
    ("lax_cummin_reverse", lambda: jax.lax.cummin(sortme, axis=1, reverse=True)),
    ("lax_cumsum_reverse", lambda: jax.lax.cumsum(cube, axis=2, reverse=True)),
    ("unwrap", lambda: np.unwrap(phase)),
    ("unwrap_discont", lambda: np.unwrap(phase * 2, discont=4.0)),
    ("sort", lambda: np.sort(sortme)),
    ("sort_axis0", lambda: np.sort(sortme, axis=0)),
    ("sort_flat", lambda: np.sort(cube, axis=None)),
    ("sort_int", lambda: np.sort(ties_int)),
    ("sort_bool", lambda: np.sort(x > 0, axis=1)),
    ("sort_descending", lambda: jnp.sort(sortme, descending=True)),
    ("argsort", lambda: np.argsort(sortme, kind="stable")),
    ("argsort_axis0", lambda: np.argsort(sortme, axis=0, kind="stable")),
    ("argsort_int", lambda: np.argsort(ties_int, kind="stable")),
    ("argsort_descending", lambda: jnp.argsort(ties_int, descending=True)),
    ("argsort_flat", lambda: np.argsort(cube, axis=None, kind="stable")),
    ("lexsort", lambda: np.lexsort([key1, key2])),
    ("lexsort_rows", lambda: np.lexsort([ties_int[1], ties_int[0]])),
    ("partition_kth", lambda: np.partition(sortme[1], 2)[2]),
    ("searchsorted_left", lambda: np.searchsorted(bins, queries)),
    ("searchsorted_right", lambda: np.searchsorted(bins, queries, side="right")),
    ("searchsorted_2d", lambda: np.searchsorted(xs, x)),
    ("searchsorted_left_all", lambda: np.searchsorted(bins, queries)),
    ("searchsorted_right_long", lambda: np.searchsorted(np.arange(37.0), np.linspace(-1, 40, 50),
                                                        side="right")),
    ("digitize", lambda: np.digitize(queries, bins)),
    ("digitize_right", lambda: np.digitize(queries, bins, right=True)),
    ("digitize_decreasing", lambda: np.digitize(queries, bins[::-1])),
    ("interp", lambda: np.interp(queries[:6], xp, fp)),
    ("interp_grid", lambda: np.interp(np.linspace(-1, 5, 13), xp, fp, left=-9.0, right=9.0)),
    ("unique", lambda: np.unique(dup)),
    ("unique_nan_distinct", lambda: np.unique(dup, equal_nan=False)),
    ("unique_rows", lambda: np.unique(dup_rows, axis=0)),
    ("unique_cols", lambda: np.unique(ties_int, axis=1)),
    ("unique_empty", lambda: np.unique(np.zeros(0))),
    ("unique_size", lambda: jnp.unique(dup, size=8)),  # JAX: padded with the smallest value
    ("unique_size_fill", lambda: jnp.unique(dup, size=8, fill_value=-9.0)),
    ("unique_all_values", lambda: np.unique_all(ties_int).values),
    ("unique_all_indices", lambda: np.unique_all(ties_int).indices),
    ("unique_all_inverse", lambda: np.unique_all(ties_int).inverse_indices),
    ("unique_all_counts", lambda: np.unique_all(ties_int).counts),
    ("unique_counts_nan", lambda: np.unique_counts(dup).counts),
    ("unique_inverse_rows", lambda: np.unique_inverse(dup_rows).inverse_indices),
    ("unique_values", lambda: jnp.unique_values(set1)),  # NumPy 2.3's need not be sorted
    ("unique_counts_size", lambda: jnp.unique_counts(set1, size=6).counts),
    ("union1d", lambda: np.union1d(set1, set2)),
    ("intersect1d", lambda: np.intersect1d(set1, set2)),
    ("setdiff1d", lambda: np.setdiff1d(set1, set2)),
    ("setxor1d", lambda: np.setxor1d(set1, set2)),
    ("setxor1d_unique", lambda: np.setxor1d(np.unique(set1), np.unique(set2), assume_unique=True)),
    ("union1d_size", lambda: jnp.union1d(set1, set2, size=9)),
    ("intersect1d_size", lambda: jnp.intersect1d(set1, set2, size=4)),
    ("intersect1d_fill", lambda: jnp.intersect1d(set1, set2, size=4, fill_value=-1)),
    ("setdiff1d_size", lambda: jnp.setdiff1d(set1, set2, size=4)),
    ("setxor1d_size", lambda: jnp.setxor1d(set1, set2, size=6)),
    # JAX's counts take a's (or the weights') dtype; NumPy's are int64.
    ("histogram_counts", lambda: np.histogram(x)[0], np.float64),
    ("histogram_edges", lambda: np.histogram(x)[1]),
    ("histogram_range", lambda: np.histogram(x, bins=5, range=(-1, 1))[0], np.float64),
    ("histogram_bins_array", lambda: np.histogram(x, bins=edges)[0], np.float64),
    ("histogram_weights", lambda: np.histogram(x, bins=4, weights=w34)[0]),
    ("histogram_density", lambda: np.histogram(x, bins=4, density=True)[0]),
    ("histogram_int", lambda: np.histogram(ints, bins=3)[0]),
    ("histogram_bin_edges", lambda: np.histogram_bin_edges(x, bins=6)),
    ("histogram_one_value", lambda: np.histogram(np.ones(4), bins=2)[1]),
    # JAX counts by bincount: int64 without weights (NumPy's float64).
    ("histogram2d", lambda: np.histogram2d(x.ravel(), y.ravel(), bins=3)[0], np.int64),
    ("histogram2d_yedges", lambda: np.histogram2d(x.ravel(), y.ravel(), bins=[3, 2])[2]),
    ("histogramdd", lambda: np.histogramdd(cube.reshape(8, 3), bins=[2, 3, 4])[0], np.int64),
    ("histogramdd_density", lambda: np.histogramdd(cube.reshape(8, 3), bins=2, density=True)[0]),
    ("median", lambda: np.median(x)),
    ("median_axis", lambda: np.median(cube, axis=1)),
    ("median_even", lambda: np.median(x, axis=1, keepdims=True)),
    ("median_nan", lambda: np.median(sortme, axis=1)),
    ("nanmedian", lambda: np.nanmedian(sortme, axis=1)),
    ("nanmedian_all_nan", lambda: np.nanmedian(nanx, axis=1)),
    ("quantile", lambda: np.quantile(x, 0.3)),
    ("quantile_axis", lambda: np.quantile(cube, [0.1, 0.5, 0.95], axis=(0, 2))),
    ("quantile_lower", lambda: np.quantile(x, 0.3, axis=1, method="lower")),
    ("quantile_higher", lambda: np.quantile(x, 0.3, axis=1, method="higher")),
    ("quantile_nearest", lambda: np.quantile(v10, [0.25, 0.5, 0.35], method="nearest")),
    ("quantile_midpoint", lambda: np.quantile(x, [0.2, 1.0], axis=0, method="midpoint")),
    ("quantile_keepdims", lambda: np.quantile(cube, 0.75, axis=2, keepdims=True)),
    ("quantile_int", lambda: np.quantile(ints, 0.5, axis=1)),
    ("percentile", lambda: np.percentile(x, [10.0, 90.0], axis=1)),
    ("nanquantile", lambda: np.nanquantile(sortme, 0.4, axis=1)),
    ("nanpercentile", lambda: np.nanpercentile(nanx, [25.0, 50.0], axis=1)),
    # ---- gathers and scatters ----
    ("index_array", lambda: v10[idx]),
    ("index_array_2d", lambda: x[idx2[..., :1] % 3]),
    ("index_rows", lambda: x[idx]),
    ("index_columns", lambda: x[:, idx2]),
    ("index_two_arrays", lambda: cube[idx[:3] % 2, :, idx[:3]]),
    ("index_adjacent", lambda: cube[:, idx[:3], idx[:3]]),
    ("index_int_and_array", lambda: cube[0, :, idx]),
    ("index_mask", lambda: x[mask]),
    ("index_mask_rows", lambda: x[mask[:, 0]]),
    ("index_clamped", lambda: jnp.asarray(v10)[idx_oob]),
    ("at_get_clamped", lambda: jnp.asarray(v10).at[idx_oob].get()),
    ("at_set_repeated", lambda: jnp.asarray(v10).at[idx_oob].set(upd)),
    ("at_add_repeated", lambda: jnp.asarray(v10).at[idx_oob].add(upd)),
    ("at_add_rows", lambda: jnp.asarray(x).at[idx % 3].add(1.0)),
    ("at_multiply", lambda: jnp.asarray(v10).at[idx].multiply(upd)),
    ("at_min", lambda: jnp.asarray(v10).at[idx].min(upd)),
    ("at_max", lambda: jnp.asarray(x).at[:, idx2[0]].max(jnp.asarray(y)[:, :2])),
    ("at_subtract_mask", lambda: jnp.asarray(x).at[mask].subtract(1.0)),
    ("take_fill", lambda: jnp.take(v10, idx_oob)),
    ("take_axis", lambda: np.take(cube, idx, axis=2)),
    ("take_clip", lambda: np.take(v10, idx_oob, mode="clip")),
    ("take_wrap", lambda: np.take(x, idx_oob, axis=1, mode="wrap")),
    ("take_along_axis", lambda: np.take_along_axis(x, np.argsort(x, axis=1), axis=1)),
    ("take_along_axis_0", lambda: np.take_along_axis(cube, np.zeros((1, 3, 4), int), axis=0)),
    ("put", lambda: (lambda a: (np.put(a, [0, 5, -1], [9.0, 8.0, 7.0]), a)[1])(x.copy())),
    ("put_along_axis", lambda: (lambda a: (np.put_along_axis(a, np.argmax(a, axis=1)[:, None],
                                                             0.0, axis=1), a)[1])(x.copy())),
    ("nonzero_0", lambda: np.nonzero(x > 0.5)[0]),
    ("nonzero_1", lambda: np.nonzero(x > 0.5)[1]),
    ("nonzero_size", lambda: jnp.nonzero(x > 0.5, size=6, fill_value=-1)[1]),
    ("flatnonzero", lambda: np.flatnonzero(ints)),
    ("argwhere", lambda: np.argwhere(cube > 1.0)),
    ("argwhere_size", lambda: jnp.argwhere(cube > 1.0, size=3)),
    ("extract", lambda: np.extract(mask, x)),
    ("compress", lambda: np.compress([True, False, True], x, axis=0)),
    ("bincount", lambda: np.bincount(counts)),
    ("bincount_weights", lambda: np.bincount(counts, weights=np.arange(7.0), minlength=10)),
    ("bincount_length", lambda: jnp.bincount(counts, length=4)),
    ("unravel_index_1", lambda: np.unravel_index(np.array([0, 5, 11, 7]), (3, 4))[1]),
    ("ravel_multi_index", lambda: np.ravel_multi_index((np.array([0, 2, 1]), np.array([3, 0, 2])),
                                                       (3, 4))),
    # ---- jax.nn ----
    ("nn_relu", lambda: jnn.relu(sp)),
    ("nn_relu6", lambda: jnn.relu6(x * 5)),
    ("nn_sigmoid", lambda: jnn.sigmoid(x * 3)),
    ("nn_log_sigmoid", lambda: jnn.log_sigmoid(x * 10)),
    ("nn_softplus", lambda: jnn.softplus(x * 10)),
    ("nn_sparse_plus", lambda: jnn.sparse_plus(x * 2)),
    ("nn_sparse_sigmoid", lambda: jnn.sparse_sigmoid(x * 2)),
    ("nn_soft_sign", lambda: jnn.soft_sign(x)),
    ("nn_silu", lambda: jnn.silu(x * 3)),
    ("nn_hard_sigmoid", lambda: jnn.hard_sigmoid(x * 4)),
    ("nn_hard_silu", lambda: jnn.hard_silu(x * 4)),
    ("nn_hard_tanh", lambda: jnn.hard_tanh(x * 2)),
    ("nn_leaky_relu", lambda: jnn.leaky_relu(x, 0.2)),
    ("nn_elu", lambda: jnn.elu(x * 2)),
    ("nn_celu", lambda: jnn.celu(x * 2, 0.5)),
    ("nn_selu", lambda: jnn.selu(x * 2)),
    ("nn_gelu", lambda: jnn.gelu(x * 2)),
    ("nn_gelu_exact", lambda: jnn.gelu(x * 2, approximate=False)),
    ("nn_glu", lambda: jnn.glu(x)),
    ("nn_mish", lambda: jnn.mish(x * 3)),
    ("nn_squareplus", lambda: jnn.squareplus(x * 3)),
    ("nn_log1mexp", lambda: jnn.log1mexp(pos)),
    ("nn_softmax", lambda: jnn.softmax(x)),
    ("nn_softmax_axis0", lambda: jnn.softmax(cube, axis=0)),
    ("nn_softmax_inf", lambda: jnn.softmax(np.array([-np.inf, 0.0, 1.0, -np.inf]))),
    ("nn_log_softmax", lambda: jnn.log_softmax(x * 10)),
    ("nn_logsumexp", lambda: jnn.logsumexp(x * 100, axis=1)),
    ("nn_logsumexp_all", lambda: jnn.logsumexp(cube)),
    ("nn_logsumexp_inf", lambda: jnn.logsumexp(np.array([[-np.inf, -np.inf], [np.inf, 1.0]]),
                                               axis=1)),
    ("nn_logmeanexp", lambda: jnn.logmeanexp(x, axis=0)),
    ("nn_standardize", lambda: jnn.standardize(x)),
    ("nn_one_hot", lambda: jnn.one_hot(cls, 4)),
    ("nn_one_hot_int", lambda: jnn.one_hot(cls, 3, dtype=jnp.int32)),
    # ---- jax.scipy.special ----
    ("sp_erfinv", lambda: jsp.erfinv(unit * 2 - 1)),
    ("sp_gammaln", lambda: jsp.gammaln(gam)),
    ("sp_gammaln_poles", lambda: jsp.gammaln(poles)),
    ("sp_digamma", lambda: jsp.digamma(gam)),
    ("sp_digamma_poles", lambda: jsp.digamma(poles)),
    ("sp_gamma", lambda: jsp.gamma(gam[:10])),
    ("sp_betaln", lambda: jsp.betaln(pos, unit * 5)),
    ("sp_beta", lambda: jsp.beta(pos, unit * 5)),
    ("sp_xlogy", lambda: jsp.xlogy(np.array([0.0, 0.0, 1.0, 2.0, -1.0]),
                                   np.array([0.0, 3.0, 0.0, 2.5, 4.0]))),
    ("sp_xlog1py", lambda: jsp.xlog1py(np.array([0.0, 0.0, 1.0, 2.0]),
                                       np.array([-1.0, 3.0, -1.0, 2.5]))),
    ("sp_entr", lambda: jsp.entr(np.array([0.0, 0.5, 1.0, -1.0, 2.0, np.inf]))),
    ("sp_rel_entr", lambda: jsp.rel_entr(np.array([0.0, 0.0, 1.0, 2.0, -1.0, 1.0]),
                                         np.array([0.0, 1.0, 0.0, 0.5, 1.0, 3.0]))),
    ("sp_kl_div", lambda: jsp.kl_div(np.array([0.0, 0.0, 1.0, 2.0, -1.0, 1.0]),
                                     np.array([0.0, 1.0, 0.0, 0.5, 1.0, 3.0]))),
    ("sp_expit", lambda: jsp.expit(x * 10)),
    ("sp_logit", lambda: jsp.logit(unit)),
    ("sp_ndtr", lambda: jsp.ndtr(x * 4)),
    ("sp_logsumexp", lambda: jsp.logsumexp(x, axis=0, keepdims=True)),
    ("sp_softmax_all", lambda: jsp.softmax(x, axis=None)),
    ("sp_i0e", lambda: jsp.i0e(x * 10)),
    ("sp_i0", lambda: jsp.i0(x * 3)),
]


def main():
    golden_io.write(OUT, INPUTS, CASES, "make_breadth_golden.py", 400)


if __name__ == "__main__":
    main()
