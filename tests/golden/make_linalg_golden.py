#!/usr/bin/env python3
"""Writes tests/golden/linalg/: NumPy's jnp.linalg results on well-conditioned inputs (random
matrices plus a multiple of the identity, SPD ones as a a^T + n I), singular and empty edge cases,
float32 beside float64. Eigenvectors and singular vectors are unique up to sign only: the cases
scale each by the sign of its first element, as the C++ side does. Run with a current NumPy:
/opt/jx-venv/bin/python tests/golden/make_linalg_golden.py"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import golden_io  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg")
rng = np.random.default_rng(7)
INPUTS = {}


def inp(name, a):
    INPUTS[name] = np.asarray(a)
    return INPUTS[name]


def general(*shape):
    n = shape[-1]
    return rng.normal(size=shape) + n * np.eye(n)


def spd(*shape):
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


sq = inp("sq", general(5, 5))
batch = inp("batch", general(2, 3, 4, 4))
big = inp("big", general(70, 70))
sq32 = inp("sq32", general(5, 5).astype(np.float32))
pd = inp("pd", spd(5, 5))
pd_batch = inp("pd_batch", spd(3, 4, 4))
pd_big = inp("pd_big", spd(70, 70))
# Eigenvalues 1 apart: eigenvectors are only as well-conditioned as the gaps between them.
rotation = np.linalg.qr(rng.normal(size=(70, 70))).Q
separated = inp("separated", rotation @ np.diag(np.arange(1.0, 71.0)) @ rotation.T)
ints = inp("ints", rng.integers(-5, 6, size=(4, 4)) + 8 * np.eye(4, dtype=np.int64))
tall = inp("tall", rng.normal(size=(6, 4)))
wide = inp("wide", rng.normal(size=(4, 6)))
rhs = inp("rhs", rng.normal(size=(5, 3)))
rhs_vec = inp("rhs_vec", rng.normal(size=(5,)))
rhs4 = inp("rhs4", rng.normal(size=(4, 2)))
rhs4_vec = inp("rhs4_vec", rng.normal(size=(4,)))
tall_rhs = inp("tall_rhs", rng.normal(size=(6, 2)))
tall_rhs_vec = inp("tall_rhs_vec", rng.normal(size=(6,)))
singular = inp("singular", np.array([[1.0, 2.0], [2.0, 4.0]]))
low_rank = inp("low_rank", rng.normal(size=(5, 2)) @ rng.normal(size=(2, 5)))
cube = inp("cube", rng.normal(size=(2, 3, 4)))
chain = [inp(f"chain{i}", rng.normal(size=s)) for i, s in enumerate([(3, 5), (5, 2), (2, 6),
                                                                     (6, 4)])]
chain_v = inp("chain_v", rng.normal(size=(3,)))
chain_w = inp("chain_w", rng.normal(size=(4,)))
tensor = inp("tensor", rng.normal(size=(4, 6, 8, 3)) + np.eye(24).reshape(4, 6, 8, 3) * 6)
tensor_b = inp("tensor_b", rng.normal(size=(4, 6)))
v3a = inp("v3a", rng.normal(size=(2, 3)))
v3b = inp("v3b", rng.normal(size=(2, 3)))

la = np.linalg


def signs(v):
    """Columns scaled by the sign of their first element."""
    return v * np.sign(v[..., :1, :])


def eigh_vectors(a):
    return signs(la.eigh(a).eigenvectors)


def phases(v):
    """Complex columns scaled to make their first element real and positive."""
    return v * np.conj(np.sign(v[..., :1, :]))


def complex_of(a):
    """NumPy's eig gives real arrays where every imaginary part is zero; JAX's are complex."""
    return a.astype(np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128)


def svd_parts(a):
    u, s, vh = la.svd(a, full_matrices=False)
    flip = np.sign(u[..., :1, :])
    return u * flip, s, vh * np.swapaxes(flip, -1, -2)


CASES = [
    ("det_sq", lambda: la.det(sq)),
    ("det_batch", lambda: la.det(batch)),
    ("det_big", lambda: la.det(big / 70)),
    ("det_int", lambda: la.det(ints)),
    ("det_f32", lambda: la.det(sq32)),
    ("det_empty", lambda: la.det(np.zeros((0, 0)))),
    ("det_singular", lambda: la.det(singular)),
    ("det_nan", lambda: la.det(np.where(np.eye(5) > 0, np.nan, sq))),
    ("slogdet_sign", lambda: la.slogdet(-sq).sign),
    ("slogdet_log", lambda: la.slogdet(-sq).logabsdet),
    ("slogdet_batch_sign", lambda: la.slogdet(batch).sign),
    ("slogdet_batch_log", lambda: la.slogdet(batch).logabsdet),
    ("slogdet_big_log", lambda: la.slogdet(big).logabsdet),
    ("slogdet_singular_sign", lambda: la.slogdet(singular).sign),
    ("slogdet_singular_log", lambda: la.slogdet(singular).logabsdet),
    ("inv_sq", lambda: la.inv(sq)),
    ("inv_batch", lambda: la.inv(batch)),
    ("inv_big", lambda: la.inv(big)),
    ("inv_f32", lambda: la.inv(sq32)),
    ("inv_int", lambda: la.inv(ints)),
    ("solve_vec", lambda: la.solve(sq, rhs_vec)),
    ("solve_mat", lambda: la.solve(sq, rhs)),
    ("solve_broadcast", lambda: la.solve(batch, rhs4)),
    ("solve_broadcast_vec", lambda: la.solve(batch, rhs4_vec)),
    ("solve_big", lambda: la.solve(big, big[:, :3])),
    ("cholesky_pd", lambda: la.cholesky(pd)),
    ("cholesky_batch", lambda: la.cholesky(pd_batch)),
    ("cholesky_upper", lambda: la.cholesky(pd, upper=True)),
    ("cholesky_big", lambda: la.cholesky(pd_big)),
    ("eigvalsh_pd", lambda: la.eigvalsh(pd)),
    ("eigvalsh_batch", lambda: la.eigvalsh(pd_batch)),
    ("eigvalsh_big", lambda: la.eigvalsh(pd_big)),
    ("eig_values", lambda: complex_of(la.eig(sq).eigenvalues)),
    ("eig_vectors", lambda: phases(complex_of(la.eig(sq).eigenvectors))),
    ("eig_batch_values", lambda: complex_of(la.eig(batch).eigenvalues)),
    ("eigvals_float32", lambda: complex_of(la.eigvals(sq32))),
    ("eigvals_rotation", lambda: complex_of(la.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]])))),
    ("eig_symmetric_vectors", lambda: phases(complex_of(la.eig(pd).eigenvectors))),
    ("eigh_values", lambda: la.eigh(pd).eigenvalues),
    ("eigh_vectors", lambda: eigh_vectors(pd)),
    ("eigh_batch_vectors", lambda: eigh_vectors(pd_batch)),
    ("eigh_big_vectors", lambda: eigh_vectors(separated)),
    ("svdvals_tall", lambda: la.svdvals(tall)),
    ("svdvals_wide", lambda: la.svdvals(wide)),
    ("svdvals_batch", lambda: la.svdvals(batch)),
    ("svd_tall_u", lambda: svd_parts(tall)[0]),
    ("svd_tall_s", lambda: svd_parts(tall)[1]),
    ("svd_tall_vh", lambda: svd_parts(tall)[2]),
    ("svd_wide_u", lambda: svd_parts(wide)[0]),
    ("svd_wide_vh", lambda: svd_parts(wide)[2]),
    ("svd_big_s", lambda: la.svd(big, compute_uv=False)),
    ("qr_tall_q", lambda: la.qr(tall).Q),
    ("qr_tall_r", lambda: la.qr(tall).R),
    ("qr_wide_q", lambda: la.qr(wide).Q),
    ("qr_wide_r", lambda: la.qr(wide).R),
    ("qr_complete_q", lambda: la.qr(tall, mode="complete").Q),
    ("qr_complete_r", lambda: la.qr(tall, mode="complete").R),
    ("qr_r", lambda: la.qr(tall, mode="r")),
    ("qr_batch_r", lambda: la.qr(batch).R),
    ("lstsq_x", lambda: la.lstsq(tall, tall_rhs)[0]),
    ("lstsq_resid", lambda: la.lstsq(tall, tall_rhs)[1]),
    ("lstsq_rank", lambda: la.lstsq(tall, tall_rhs)[2], np.int64),  # JAX's int64
    ("lstsq_s", lambda: la.lstsq(tall, tall_rhs)[3]),
    ("lstsq_vec", lambda: la.lstsq(tall, tall_rhs_vec)[0]),
    ("pinv_tall", lambda: la.pinv(tall)),
    ("pinv_batch", lambda: la.pinv(batch)),
    ("matrix_power_5", lambda: la.matrix_power(sq / 5, 5)),
    ("matrix_power_13", lambda: la.matrix_power(sq / 5, 13)),
    ("matrix_power_neg3", lambda: la.matrix_power(sq, -3)),
    ("matrix_power_0", lambda: la.matrix_power(batch, 0)),
    ("matrix_rank_full", lambda: la.matrix_rank(sq)),
    ("matrix_rank_low", lambda: la.matrix_rank(low_rank)),
    ("norm_all", lambda: la.norm(cube)),
    ("norm_fro", lambda: la.norm(sq, "fro")),
    ("norm_nuc", lambda: la.norm(sq, "nuc")),
    ("norm_2", lambda: la.norm(sq, 2)),
    ("norm_m2", lambda: la.norm(sq, -2)),
    ("norm_1", lambda: la.norm(sq, 1)),
    ("norm_m1", lambda: la.norm(sq, -1)),
    ("norm_inf", lambda: la.norm(sq, np.inf)),
    ("norm_minf", lambda: la.norm(sq, -np.inf)),
    ("norm_vec_3", lambda: la.norm(rhs_vec, 3)),
    ("norm_vec_0", lambda: la.norm(np.array([0.0, 1.0, -2.0, 0.0]), 0)),
    ("norm_vec_inf", lambda: la.norm(rhs_vec, np.inf)),
    ("norm_vec_m1", lambda: la.norm(rhs_vec, -1)),
    ("norm_axis", lambda: la.norm(cube, axis=1)),
    ("norm_axes_keepdims", lambda: la.norm(cube, 1, axis=(2, 0), keepdims=True)),
    ("norm_axes_2", lambda: la.norm(cube, 2, axis=(0, 2))),
    ("vector_norm", lambda: la.vector_norm(cube, axis=(0, 2), ord=1)),
    ("vector_norm_all", lambda: la.vector_norm(cube)),
    ("matrix_norm", lambda: la.matrix_norm(cube, ord="nuc")),
    ("cond_2", lambda: la.cond(sq)),
    ("cond_fro", lambda: la.cond(sq, "fro")),
    ("cond_1", lambda: la.cond(sq, 1)),
    ("cond_m2", lambda: la.cond(batch, -2)),
    ("multi_dot", lambda: la.multi_dot(chain)),
    ("multi_dot_vectors", lambda: la.multi_dot([chain_v] + chain + [chain_w])),
    ("tensorinv", lambda: la.tensorinv(tensor)),
    ("tensorsolve", lambda: la.tensorsolve(tensor, tensor_b)),
    ("linalg_trace", lambda: la.trace(batch, offset=1)),
    ("linalg_diagonal", lambda: la.diagonal(batch, offset=-1)),
    ("linalg_cross", lambda: la.cross(v3a, v3b)),
    ("linalg_outer", lambda: la.outer(rhs_vec, rhs4_vec)),
    ("linalg_vecdot", lambda: la.vecdot(v3a, v3b)),
    ("linalg_tensordot", lambda: la.tensordot(cube, tall[:3, :4], axes=2)),
]


def main():
    golden_io.write(OUT, INPUTS, CASES, "make_linalg_golden.py", 6000)


if __name__ == "__main__":
    main()
