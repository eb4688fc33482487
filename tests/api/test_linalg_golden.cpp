// Golden tests of jnp.linalg against NumPy's results, written by
// tests/golden/make_linalg_golden.py (same case names): float64 within 1e-12 of the largest
// expected value, float32 within 1e-5. Eigen- and singular vectors are compared scaled by the
// sign of their first element, as the script scales NumPy's.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "api/golden_util.h"

namespace {

namespace jnp = jx::numpy;
namespace la = jx::numpy::linalg;
using golden::in;
using jx::Array;

constexpr double inf = jnp::inf;

// Columns scaled by the sign of their first element.
Array signs(const Array &v) { return v * jnp::sign(v(jx::ellipsis, jx::slice(0, 1), jx::slice())); }

Array eigh_vectors(const Array &a) { return signs(la::eigh(a).eigenvectors); }

// Complex columns scaled to make their first element real and positive.
Array phases(const Array &v) {
  return v * jnp::conj(jnp::sign(v(jx::ellipsis, jx::slice(0, 1), jx::slice())));
}

// U and Vh with U's columns (and Vh's rows) scaled by the sign of U's first row.
std::pair<Array, Array> svd_parts(const Array &a) {
  const auto [u, s, vh] = la::svd(a, false);
  const Array flip = jnp::sign(u(jx::ellipsis, jx::slice(0, 1), jx::slice()));
  return {u * flip, vh * jnp::matrix_transpose(flip)};
}

std::vector<Array> chain() { return {in("chain0"), in("chain1"), in("chain2"), in("chain3")}; }

GOLDEN_LINALG(det_sq, la::det(in("sq")))
GOLDEN_LINALG(det_batch, la::det(in("batch")))
GOLDEN_LINALG(det_big, la::det(in("big") / 70))
GOLDEN_LINALG(det_int, la::det(in("ints")))
GOLDEN_LINALG(det_f32, la::det(in("sq32")))
GOLDEN_LINALG(det_empty, la::det(jnp::zeros({0, 0})))
GOLDEN_LINALG(det_singular, la::det(in("singular")))
GOLDEN_LINALG(det_nan, la::det(jnp::where(jnp::eye(5) > 0, jnp::nan, in("sq"))))
GOLDEN_LINALG(slogdet_sign, la::slogdet(-in("sq")).sign)
GOLDEN_LINALG(slogdet_log, la::slogdet(-in("sq")).logabsdet)
GOLDEN_LINALG(slogdet_batch_sign, la::slogdet(in("batch")).sign)
GOLDEN_LINALG(slogdet_batch_log, la::slogdet(in("batch")).logabsdet)
GOLDEN_LINALG(slogdet_big_log, la::slogdet(in("big")).logabsdet)
GOLDEN_LINALG(slogdet_singular_sign, la::slogdet(in("singular")).sign)
GOLDEN_LINALG(slogdet_singular_log, la::slogdet(in("singular")).logabsdet)
GOLDEN_LINALG(inv_sq, la::inv(in("sq")))
GOLDEN_LINALG(inv_batch, la::inv(in("batch")))
GOLDEN_LINALG(inv_big, la::inv(in("big")))
GOLDEN_LINALG(inv_f32, la::inv(in("sq32")))
GOLDEN_LINALG(inv_int, la::inv(in("ints")))
GOLDEN_LINALG(solve_vec, la::solve(in("sq"), in("rhs_vec")))
GOLDEN_LINALG(solve_mat, la::solve(in("sq"), in("rhs")))
GOLDEN_LINALG(solve_broadcast, la::solve(in("batch"), in("rhs4")))
GOLDEN_LINALG(solve_broadcast_vec, la::solve(in("batch"), in("rhs4_vec")))
GOLDEN_LINALG(solve_big, la::solve(in("big"), in("big")(jx::slice(), jx::slice(0, 3))))
GOLDEN_LINALG(cholesky_pd, la::cholesky(in("pd")))
GOLDEN_LINALG(cholesky_batch, la::cholesky(in("pd_batch")))
GOLDEN_LINALG(cholesky_upper, la::cholesky(in("pd"), {.upper = true}))
GOLDEN_LINALG(cholesky_big, la::cholesky(in("pd_big")))
GOLDEN_LINALG(eigvalsh_pd, la::eigvalsh(in("pd")))
GOLDEN_LINALG(eigvalsh_batch, la::eigvalsh(in("pd_batch")))
GOLDEN_LINALG(eigvalsh_big, la::eigvalsh(in("pd_big")))
GOLDEN_LINALG(eig_values, la::eig(in("sq")).eigenvalues)
GOLDEN_LINALG(eig_vectors, phases(la::eig(in("sq")).eigenvectors))
GOLDEN_LINALG(eig_batch_values, la::eig(in("batch")).eigenvalues)
GOLDEN_LINALG(eigvals_float32, la::eigvals(in("sq32")))
GOLDEN_LINALG(eigvals_rotation, la::eigvals(jnp::array({0.0, -1.0, 1.0, 0.0}, jx::Shape{2, 2})))
GOLDEN_LINALG(eig_symmetric_vectors, phases(la::eig(in("pd")).eigenvectors))
GOLDEN_LINALG(eigh_values, la::eigh(in("pd")).eigenvalues)
GOLDEN_LINALG(eigh_vectors, eigh_vectors(in("pd")))
GOLDEN_LINALG(eigh_batch_vectors, eigh_vectors(in("pd_batch")))
GOLDEN_LINALG(eigh_big_vectors, eigh_vectors(in("separated")))
GOLDEN_LINALG(svdvals_tall, la::svdvals(in("tall")))
GOLDEN_LINALG(svdvals_wide, la::svdvals(in("wide")))
GOLDEN_LINALG(svdvals_batch, la::svdvals(in("batch")))
GOLDEN_LINALG(svd_tall_u, svd_parts(in("tall")).first)
GOLDEN_LINALG(svd_tall_s, la::svd(in("tall"), false).S)
GOLDEN_LINALG(svd_tall_vh, svd_parts(in("tall")).second)
GOLDEN_LINALG(svd_wide_u, svd_parts(in("wide")).first)
GOLDEN_LINALG(svd_wide_vh, svd_parts(in("wide")).second)
GOLDEN_LINALG(svd_big_s, la::svd(in("big")).S)
GOLDEN_LINALG(qr_tall_q, la::qr(in("tall")).Q)
GOLDEN_LINALG(qr_tall_r, la::qr(in("tall")).R)
GOLDEN_LINALG(qr_wide_q, la::qr(in("wide")).Q)
GOLDEN_LINALG(qr_wide_r, la::qr(in("wide")).R)
GOLDEN_LINALG(qr_complete_q, la::qr(in("tall"), "complete").Q)
GOLDEN_LINALG(qr_complete_r, la::qr(in("tall"), "complete").R)
GOLDEN_LINALG(qr_r, la::qr(in("tall"), "r").R)
GOLDEN_LINALG(qr_batch_r, la::qr(in("batch")).R)
GOLDEN_LINALG(lstsq_x, la::lstsq(in("tall"), in("tall_rhs")).x)
GOLDEN_LINALG(lstsq_resid, la::lstsq(in("tall"), in("tall_rhs")).residuals)
GOLDEN_LINALG(lstsq_rank, la::lstsq(in("tall"), in("tall_rhs")).rank)
GOLDEN_LINALG(lstsq_s, la::lstsq(in("tall"), in("tall_rhs")).s)
GOLDEN_LINALG(lstsq_vec, la::lstsq(in("tall"), in("tall_rhs_vec")).x)
GOLDEN_LINALG(pinv_tall, la::pinv(in("tall")))
GOLDEN_LINALG(pinv_batch, la::pinv(in("batch")))
GOLDEN_LINALG(matrix_power_5, la::matrix_power(in("sq") / 5, 5))
GOLDEN_LINALG(matrix_power_13, la::matrix_power(in("sq") / 5, 13))
GOLDEN_LINALG(matrix_power_neg3, la::matrix_power(in("sq"), -3))
GOLDEN_LINALG(matrix_power_0, la::matrix_power(in("batch"), 0))
GOLDEN_LINALG(matrix_rank_full, la::matrix_rank(in("sq")))
GOLDEN_LINALG(matrix_rank_low, la::matrix_rank(in("low_rank")))
GOLDEN_LINALG(norm_all, la::norm(in("cube")))
GOLDEN_LINALG(norm_fro, la::norm(in("sq"), "fro"))
GOLDEN_LINALG(norm_nuc, la::norm(in("sq"), "nuc"))
GOLDEN_LINALG(norm_2, la::norm(in("sq"), 2))
GOLDEN_LINALG(norm_m2, la::norm(in("sq"), -2))
GOLDEN_LINALG(norm_1, la::norm(in("sq"), 1))
GOLDEN_LINALG(norm_m1, la::norm(in("sq"), -1))
GOLDEN_LINALG(norm_inf, la::norm(in("sq"), inf))
GOLDEN_LINALG(norm_minf, la::norm(in("sq"), -inf))
GOLDEN_LINALG(norm_vec_3, la::norm(in("rhs_vec"), 3))
GOLDEN_LINALG(norm_vec_0, la::norm(jnp::array({0.0, 1.0, -2.0, 0.0}), 0))
GOLDEN_LINALG(norm_vec_inf, la::norm(in("rhs_vec"), inf))
GOLDEN_LINALG(norm_vec_m1, la::norm(in("rhs_vec"), -1))
GOLDEN_LINALG(norm_axis, la::norm(in("cube"), {}, 1))
GOLDEN_LINALG(norm_axes_keepdims, la::norm(in("cube"), 1, {2, 0}, true))
GOLDEN_LINALG(norm_axes_2, la::norm(in("cube"), 2, {0, 2}))
GOLDEN_LINALG(vector_norm, la::vector_norm(in("cube"), {.axis = {0, 2}, .ord = 1}))
GOLDEN_LINALG(vector_norm_all, la::vector_norm(in("cube")))
GOLDEN_LINALG(matrix_norm, la::matrix_norm(in("cube"), {.ord = "nuc"}))
GOLDEN_LINALG(cond_2, la::cond(in("sq")))
GOLDEN_LINALG(cond_fro, la::cond(in("sq"), "fro"))
GOLDEN_LINALG(cond_1, la::cond(in("sq"), 1))
GOLDEN_LINALG(cond_m2, la::cond(in("batch"), -2))
GOLDEN_LINALG(multi_dot, la::multi_dot(chain()))
GOLDEN_LINALG(multi_dot_vectors, la::multi_dot({in("chain_v"), in("chain0"), in("chain1"),
                                                in("chain2"), in("chain3"), in("chain_w")}))
GOLDEN_LINALG(tensorinv, la::tensorinv(in("tensor")))
GOLDEN_LINALG(tensorsolve, la::tensorsolve(in("tensor"), in("tensor_b")))
GOLDEN_LINALG(linalg_trace, la::trace(in("batch"), {.offset = 1}))
GOLDEN_LINALG(linalg_diagonal, la::diagonal(in("batch"), {.offset = -1}))
GOLDEN_LINALG(linalg_cross, la::cross(in("v3a"), in("v3b")))
GOLDEN_LINALG(linalg_outer, la::outer(in("rhs_vec"), in("rhs4_vec")))
GOLDEN_LINALG(linalg_vecdot, la::vecdot(in("v3a"), in("v3b")))
GOLDEN_LINALG(linalg_tensordot,
              la::tensordot(in("cube"), in("tall")(jx::slice(0, 3), jx::slice(0, 4)), {.axes = 2}))

} // namespace
