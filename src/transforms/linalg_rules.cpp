// The linear algebra ops' JVPs and solve's transpose (JAX's rules in jax/_src/lax/linalg.py),
// written over batched matrices (..., n, n).
#include "transforms/linalg_rules.h"

#include <jx/error.h>

#include <numeric>

#include "ir/builder.h"
#include "transforms/batch.h"
#include "transforms/dsl.h"

namespace jx::transforms {

namespace {

using namespace dsl;

std::vector<int64_t> batch_axes(const NodePtr &x) {
  std::vector<int64_t> axes(size_t(x->ndim() - 2));
  std::iota(axes.begin(), axes.end(), 0);
  return axes;
}

// a @ b over the leading axes: (..., n, m) x (..., m, k).
NodePtr matmul(const NodePtr &a, const NodePtr &b) {
  const int64_t r = a->ndim();
  return ir::dot_general(a, b, batch_axes(a), batch_axes(b), {r - 1}, {r - 2});
}

// The last two axes swapped.
NodePtr matrix_transpose(const NodePtr &x) { return move_axis(x, x->ndim() - 1, x->ndim() - 2); }

// Row and column numbers of x's matrices (int64, x's shape).
NodePtr rows(const NodePtr &x) { return ir::iota(DType::int64, x->shape, x->ndim() - 2); }
NodePtr cols(const NodePtr &x) { return ir::iota(DType::int64, x->shape, x->ndim() - 1); }

// x on the matrices' diagonals, 0 elsewhere.
NodePtr diagonal_part(const NodePtr &x) { return select(eq(rows(x), cols(x)), x, lit(0, x)); }

// The trace of each matrix, of shape (...).
NodePtr trace(const NodePtr &x) {
  return ir::reduce(Op::ReduceSum, diagonal_part(x), {x->ndim() - 2, x->ndim() - 1});
}

// The vector v (..., k) spread over (..., k, k) matrices along their rows (v_i at (i, j)) and
// along their columns (v_j).
std::pair<NodePtr, NodePtr> along_rows_and_columns(const NodePtr &v) {
  Shape shape = v->shape;
  shape.push_back(v->shape.back());
  std::vector<int64_t> row_dims(v->shape.size()), col_dims(v->shape.size());
  std::iota(row_dims.begin(), row_dims.end(), 0);
  std::iota(col_dims.begin(), col_dims.end(), 0);
  col_dims.back() += 1;
  return {ir::broadcast(v, shape, row_dims), ir::broadcast(v, shape, col_dims)};
}

// (...) as (..., 1) or (..., n) as (..., 1, n).
NodePtr with_unit_axis(const NodePtr &x, size_t position) {
  Shape shape = x->shape;
  shape.insert(shape.begin() + int64_t(position), 1);
  return ir::reshape(x, shape);
}

// Elements [lo, hi) of a packed output's last axis, as the batch's matrices of rows x cols.
NodePtr unpack(const NodePtr &packed, int64_t lo, int64_t hi, int64_t rows, int64_t cols) {
  Shape shape(packed->shape.begin(), packed->shape.end() - 1);
  shape.push_back(rows);
  if (cols > 0) shape.push_back(cols);
  return ir::reshape(ir::slice_in_dim(packed, packed->ndim() - 1, lo, hi), shape);
}

// Matrices (or vectors) flattened and joined along one last axis: a packed output's layout.
NodePtr pack(const std::vector<NodePtr> &parts, size_t batch_rank) {
  std::vector<NodePtr> flat;
  for (const NodePtr &p : parts) {
    Shape shape(p->shape.begin(), p->shape.begin() + int64_t(batch_rank));
    int64_t size = 1;
    for (size_t i = batch_rank; i < p->shape.size(); ++i)
      size *= p->shape[i];
    shape.push_back(size);
    flat.push_back(ir::reshape(p, shape));
  }
  return ir::concatenate(flat, int64_t(batch_rank));
}

} // namespace

NodePtr solve_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const NodePtr &a = ans->inputs[0];
  NodePtr rhs = ts[1];
  if (ts[0]) {
    const NodePtr a_dot_x = matmul(ts[0], ans);
    rhs = rhs ? sub(rhs, a_dot_x) : neg(a_dot_x);
  }
  return rhs ? ir::linalg(Op::Solve, {a, rhs}) : nullptr;
}

NodePtr solve_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i != 1) throw Error("internal: solve is not linear in its input 0"); // never a tangent
  return ir::linalg(Op::Solve, {matrix_transpose(ans.inputs[0]), ct});
}

NodePtr determinant_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &a = ans->inputs[0];
  const NodePtr log_dot = trace(ir::linalg(Op::Solve, {a, ts[0]}));
  if (ans->attrs[0] == 0) return mul(ans, log_dot);
  const size_t r = log_dot->shape.size();
  const NodePtr column = with_unit_axis(log_dot, r);
  return ir::concatenate({lit(0, column), column}, int64_t(r));
}

NodePtr cholesky_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &l = ans;
  const NodePtr left = ir::linalg(Op::Solve, {l, ts[0]}); // L^-1 a'
  const NodePtr both = matrix_transpose(ir::linalg(Op::Solve, {l, matrix_transpose(left)}));
  const NodePtr phi =
      select(lt(cols(both), rows(both)), both,
             select(eq(rows(both), cols(both)), mul(both, lit(0.5, both)), lit(0, both)));
  return matmul(l, phi);
}

NodePtr eigh_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &a = ans->inputs[0];
  const int64_t n = a->shape.back(), r = a->ndim();
  // eigvalsh computed no vectors: the rule needs them.
  const NodePtr packed = ans->attrs[0] == 0 ? ans : ir::linalg(Op::Eigh, {a}, 0);
  Shape values_shape = a->shape;
  values_shape.pop_back();
  const NodePtr w = ir::reshape(ir::slice_in_dim(packed, r - 2, 0, 1), values_shape);
  const NodePtr v = matrix_transpose(ir::slice_in_dim(packed, r - 2, 1, n + 1));
  const NodePtr vav = matmul(matmul(matrix_transpose(v), ts[0]), v);
  // F = 1 / (I + w_j - w_i) - I, built without dividing by a zero gap on the diagonal.
  const auto [w_i, w_j] = along_rows_and_columns(w);
  const NodePtr eye = diagonal_part(lit(1, a));
  const NodePtr f = sub(div(lit(1, a), sub(add(eye, w_j), w_i)), eye);
  const NodePtr dw = ir::reduce(Op::ReduceSum, diagonal_part(vav), {r - 1});
  if (ans->attrs[0] == 1) return dw;
  const NodePtr dv = matmul(v, mul(f, vav));
  return ir::concatenate({with_unit_axis(dw, size_t(r - 2)), matrix_transpose(dv)}, r - 2);
}

NodePtr svd_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &a = ans->inputs[0], &da = ts[0];
  const int64_t mode = ans->attrs[0], r = a->ndim();
  const int64_t m = a->shape[size_t(r - 2)], n = a->shape.back(), k = std::min(m, n);
  if (mode == 2)
    throw NotImplementedError("Singular value decomposition JVP not implemented for full matrices");
  const NodePtr packed = mode == 1 ? ans : ir::linalg(Op::Svd, {a}, 1);
  const NodePtr u = unpack(packed, 0, m * k, m, k);
  const NodePtr s = unpack(packed, m * k, m * k + k, k, 0);
  const NodePtr vt = unpack(packed, m * k + k, m * k + k + k * n, k, n);
  const NodePtr v = matrix_transpose(vt), ut = matrix_transpose(u);
  const NodePtr ds_matrix = matmul(matmul(ut, da), v); // U^T a' V, k x k
  const NodePtr ds = ir::reduce(Op::ReduceSum, diagonal_part(ds_matrix), {r - 1});
  if (mode == 0) return ds;
  // F = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it.
  const auto [s_i, s_j] = along_rows_and_columns(s);
  const NodePtr gaps = mul(add(s_j, s_i), sub(s_j, s_i)), eye = diagonal_part(lit(1, gaps));
  const NodePtr f = sub(div(lit(1, gaps), add(gaps, eye)), eye);
  const NodePtr dss = mul(s_j, ds_matrix), sds = mul(s_i, ds_matrix);
  // (JAX's extra term, (dS - dS^H) / 2 on the diagonal over s, is zero for real matrices.)
  NodePtr du = matmul(u, mul(f, add(dss, matrix_transpose(dss))));
  NodePtr dv = matmul(v, mul(f, add(sds, matrix_transpose(sds))));
  std::vector<int64_t> s_dims = batch_axes(ds_matrix);
  s_dims.push_back(r - 1);
  if (m > n) {
    const NodePtr dav = matmul(da, v);
    const NodePtr s_cols = ir::broadcast(s, dav->shape, s_dims);
    du = add(du, div(sub(dav, matmul(u, matmul(ut, dav))), s_cols));
  }
  if (n > m) {
    const NodePtr dau = matmul(matrix_transpose(da), u);
    const NodePtr s_cols = ir::broadcast(s, dau->shape, s_dims);
    dv = add(dv, div(sub(dau, matmul(v, matmul(vt, dau))), s_cols));
  }
  return pack({du, ds, matrix_transpose(dv)}, size_t(r - 2));
}

NodePtr qr_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &a = ans->inputs[0], &dx = ts[0];
  const int64_t mode = ans->attrs[0], r = a->ndim();
  const int64_t m = a->shape[size_t(r - 2)], n = a->shape.back();
  if (m < n || (mode == 1 && m != n))
    throw NotImplementedError("Unimplemented case of QR decomposition derivative");
  const NodePtr q = unpack(ans, 0, m * n, m, n), rr = unpack(ans, m * n, m * n + n * n, n, n);
  // dx R^-1 = (R^-T dx^T)^T.
  const NodePtr dx_rinv =
      matrix_transpose(ir::linalg(Op::Solve, {matrix_transpose(rr), matrix_transpose(dx)}));
  const NodePtr qt_dx_rinv = matmul(matrix_transpose(q), dx_rinv);
  const NodePtr lower =
      select(lt(cols(qt_dx_rinv), rows(qt_dx_rinv)), qt_dx_rinv, lit(0, qt_dx_rinv));
  const NodePtr skew = sub(lower, matrix_transpose(lower));
  const NodePtr dq = add(matmul(q, sub(skew, qt_dx_rinv)), dx_rinv);
  const NodePtr dr = matmul(sub(qt_dx_rinv, skew), rr);
  return pack({dq, dr}, size_t(r - 2));
}

} // namespace jx::transforms
