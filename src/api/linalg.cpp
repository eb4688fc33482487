// jnp.linalg: the LAPACK-backed ops (ir::linalg, whose several results come packed in one array
// and are sliced here) and what JAX composes from them: inv as a solve, lstsq and pinv from the
// SVD, the norms, matrix_power by squaring, multi_dot in NumPy's cheapest order.
#include <jx/linalg.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/internal.h"
#include "ir/builder.h"

namespace jx::numpy::linalg {

using api::node_of;
using api::slice_along;
using api::to_inexact;
using api::wrap;

namespace {

// NumPy's message for an operand of too few dimensions.
void require_matrices(const Array &a) {
  if (a.ndim() < 2)
    throw ValueError(fmt::format(
        "{}-dimensional array given. Array must be at least two-dimensional", a.ndim()));
}

bool square(const Array &a) {
  return a.ndim() >= 2 && a.shape()[a.ndim() - 1] == a.shape()[a.ndim() - 2];
}

Shape batch_of(const Array &a) { return Shape(a.shape().begin(), a.shape().end() - 2); }

Shape with(Shape batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}

Array run(ir::Op op, const Array &a, int64_t mode = 0) {
  return wrap(ir::linalg(op, {node_of(a)}, mode));
}

// Elements [lo, hi) of the packed last axis, as batch + shape.
Array unpack(const Array &packed, int64_t lo, int64_t hi, std::initializer_list<int64_t> shape) {
  const Shape batch(packed.shape().begin(), packed.shape().end() - 1);
  return reshape(slice_along(packed, -1, lo, hi), with(batch, shape));
}

Array symmetrized(const Array &a) { return (a + matrix_transpose(a)) / 2; }

// a in a float dtype, else the ValueError whose message `format` gives a's shape.
Array square_operand(const Array &a, fmt::format_string<std::string> format) {
  const Array x = to_inexact(a);
  if (!square(x)) throw ValueError(fmt::format(format, shape_str(x.shape())));
  return x;
}

} // namespace

Array cholesky(const Array &a, const CholeskyOptions &o) {
  const Array x = square_operand(a, "The input to cholesky must be a square matrix. Got shape {}.");
  const Array l = run(ir::Op::Cholesky, o.symmetrize_input ? symmetrized(x) : x);
  return o.upper ? matrix_transpose(l) : l;
}

Array det(const Array &a) {
  const Array x = square_operand(a, "Argument to _det() must have shape [..., n, n], got {}");
  return run(ir::Op::Determinant, x, 0);
}

SlogdetResult slogdet(const Array &a) {
  const Array x = square_operand(a, "Argument to slogdet() must have shape [..., n, n], got {}");
  const Array packed = run(ir::Op::Determinant, x, 1);
  return {squeeze(slice_along(packed, -1, 0, 1), -1), squeeze(slice_along(packed, -1, 1, 2), -1)};
}

Array inv(const Array &a) {
  const Array x = square_operand(a, "Argument to inv must have shape [..., n, n], got {}.");
  const int64_t n = x.shape().back();
  return solve(x, broadcast_to(eye(n, std::nullopt, 0, x.dtype()), x.shape()));
}

Array solve(const Array &a, const Array &b) {
  const DType type = result_type({to_inexact(a), to_inexact(b)});
  const Array x = to_inexact(a).astype(type), y = to_inexact(b).astype(type);
  if (x.ndim() < 2)
    throw ValueError(fmt::format("left hand array must be at least two dimensional; got a.shape={}",
                                 shape_str(x.shape())));
  const int64_t n = x.shape().back();
  if (y.ndim() > 1 && x.ndim() == y.ndim() + 1 && n == y.shape().back() &&
      n != y.shape()[y.ndim() - 2])
    throw ValueError(fmt::format(
        "Invalid shapes for solve: {}, {}. Prior to JAX v0.5.0, this would have been treated as "
        "a batched 1-dimensional solve. To recover this behavior, use solve(a, b[..., "
        "None]).squeeze(-1).",
        shape_str(x.shape()), shape_str(y.shape())));
  const bool vector = y.ndim() == 1;
  // jnp.vectorize's signature (m,m),(m,n)->(m,n): the core shapes must agree, the rest broadcast.
  if (!square(x) || y.shape()[y.ndim() - (vector ? 1 : 2)] != n)
    throw ValueError(fmt::format("solve: shapes {} and {} do not match the signature "
                                 "(m,m),(m{})->(m{})",
                                 shape_str(x.shape()), shape_str(y.shape()), vector ? "" : ",n",
                                 vector ? "" : ",n"));
  const Array rhs = vector ? y.reshape({n, 1}) : y;
  const int64_t k = rhs.shape().back();
  const Shape batch = api::broadcast_shapes({batch_of(x), batch_of(rhs)});
  const Array out =
      wrap(ir::linalg(ir::Op::Solve, {node_of(broadcast_to(x, with(batch, {n, n}))),
                                      node_of(broadcast_to(rhs, with(batch, {n, k})))}));
  return vector ? squeeze(out, -1) : out;
}

namespace {
// eigh's operand: its lower triangle holds the matrix (read from the UPLO one), symmetrized first
// unless told not to.
Array symmetric_operand(const Array &a, const std::string &UPLO, bool symmetrize_input) {
  if (UPLO != "L" && UPLO != "U")
    throw ValueError(fmt::format("UPLO must be one of None, 'L', or 'U', got {}", UPLO));
  Array x = square_operand(
      a, "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {}");
  if (symmetrize_input) x = symmetrized(x);
  return UPLO == "U" ? matrix_transpose(x) : x;
}
} // namespace

EighResult eigh(const Array &a, const EighOptions &o) {
  const Array x = symmetric_operand(a, o.UPLO.value_or("L"), o.symmetrize_input);
  const int64_t n = x.shape().back();
  const Array packed = run(ir::Op::Eigh, x, 0);
  return {squeeze(slice_along(packed, -2, 0, 1), -2),
          matrix_transpose(slice_along(packed, -2, 1, n + 1))};
}

namespace {
Array nonsymmetric_operand(const Array &a) {
  return square_operand(
      a, "Argument to nonsymmetric eigendecomposition must have shape [..., n, n], got shape {}");
}
} // namespace

EigResult eig(const Array &a) {
  const Array x = nonsymmetric_operand(a);
  const int64_t n = x.shape().back();
  const Array packed = run(ir::Op::Eig, x, 0);
  return {squeeze(slice_along(packed, -2, 0, 1), -2), slice_along(packed, -2, 1, n + 1)};
}

Array eigvals(const Array &a) { return run(ir::Op::Eig, nonsymmetric_operand(a), 1); }

Array eigvalsh(const Array &a, const EighOptions &o) {
  return run(ir::Op::Eigh, symmetric_operand(a, o.UPLO.value_or("L"), o.symmetrize_input), 1);
}

SVDResult svd(const Array &a, bool full_matrices) {
  const Array x = to_inexact(a);
  require_matrices(x);
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back(), k = std::min(m, n);
  const Array packed = run(ir::Op::Svd, x, full_matrices ? 2 : 1);
  const int64_t u_cols = full_matrices ? m : k, vt_rows = full_matrices ? n : k;
  const int64_t s0 = m * u_cols;
  return {unpack(packed, 0, s0, {m, u_cols}), unpack(packed, s0, s0 + k, {k}),
          unpack(packed, s0 + k, s0 + k + vt_rows * n, {vt_rows, n})};
}

Array svdvals(const Array &x) {
  const Array y = to_inexact(x);
  require_matrices(y);
  return run(ir::Op::Svd, y, 0);
}

QRResult qr(const Array &a, const std::string &mode) {
  if (mode != "reduced" && mode != "complete" && mode != "r")
    throw ValueError(fmt::format("Unsupported QR decomposition mode '{}'", mode));
  const Array x = to_inexact(a);
  require_matrices(x);
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back();
  const int64_t q_cols = mode == "complete" ? m : std::min(m, n);
  const Array packed = run(ir::Op::Qr, x, mode == "complete" ? 1 : 0);
  const Array r = unpack(packed, m * q_cols, m * q_cols + q_cols * n, {q_cols, n});
  if (mode == "r") return {zeros({0}, x.dtype()), r};
  return {unpack(packed, 0, m * q_cols, {m, q_cols}), r};
}

LstsqResult lstsq(const Array &a, const Array &b, std::optional<double> rcond) {
  const DType type = result_type({to_inexact(a), to_inexact(b)});
  const Array x = to_inexact(a).astype(type);
  Array y = to_inexact(b).astype(type);
  if (x.ndim() >= 1 && y.ndim() >= 1 && x.shape()[0] != y.shape()[0])
    throw ValueError("Leading dimensions of input arrays must match");
  const bool vector = y.ndim() == 1;
  if (vector) y = expand_dims(y, 1);
  if (x.ndim() != 2)
    throw TypeError(
        fmt::format("{}-dimensional array given. Array must be two-dimensional", x.ndim()));
  if (y.ndim() != 2)
    throw TypeError(
        fmt::format("{}-dimensional array given. Array must be one or two-dimensional", y.ndim()));
  const int64_t m = x.shape()[0], n = x.shape()[1];
  Array solution = zeros({n, y.shape()[1]}, type), s = zeros({0}, type),
        rank = zeros({}, DType::int64);
  if (x.size() != 0) {
    const double cut = !rcond       ? api::epsilon(type) * double(std::max(n, m))
                       : *rcond < 0 ? api::epsilon(type)
                                    : *rcond;
    auto [u, sv, vt] = svd(x, false);
    const Array mask = logical_and(sv > 0, sv >= Array(cut).astype(type) * sv(0));
    rank = sum(mask);
    const Array safe = where(mask, sv, Array(1).astype(type));
    const Array s_inv = expand_dims(where(mask, 1 / safe, Array(0).astype(type)), 1);
    solution = matmul(matrix_transpose(vt), s_inv * matmul(matrix_transpose(u), y));
    s = sv;
  }
  const Array resid = power(norm(y - matmul(x, solution), {}, 0), Array(2));
  return {vector ? ravel(solution) : solution, resid, rank, s};
}

Array pinv(const Array &a, std::optional<double> rtol) {
  const Array x = to_inexact(a);
  require_matrices(x);
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back();
  if (x.size() == 0) return zeros(with(batch_of(x), {n, m}), x.dtype());
  const double tol = rtol ? *rtol : 10 * double(std::max(m, n)) * api::epsilon(x.dtype());
  auto [u, s, vh] = svd(x, false);
  const Array cutoff = Array(tol).astype(x.dtype()) * amax(s, {.axis = -1, .keepdims = true});
  const Array kept =
      where(s > cutoff, s, Array(std::numeric_limits<double>::infinity()).astype(x.dtype()));
  return matmul(matrix_transpose(vh), matrix_transpose(u) / expand_dims(kept, -1));
}

Array matrix_power(const Array &a, int64_t n) {
  if (a.ndim() < 2)
    throw TypeError(fmt::format(
        "{}-dimensional array given. Array must be at least two-dimensional", a.ndim()));
  if (!square(a)) throw TypeError("Last 2 dimensions of the array must be square");
  if (n == 0) return broadcast_to(eye(a.shape().back(), std::nullopt, 0, a.dtype()), a.shape());
  Array x = n < 0 ? inv(a) : a;
  uint64_t e = n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n);
  if (e == 1) return x;
  if (e == 2) return matmul(x, x);
  if (e == 3) return matmul(matmul(x, x), x);
  std::optional<Array> z, result;
  while (e > 0) {
    z = z ? matmul(*z, *z) : x;
    if (e & 1) result = result ? matmul(*result, *z) : *z;
    e >>= 1;
  }
  return *result;
}

Array matrix_rank(const Array &M, std::optional<double> rtol) {
  const Array x = to_inexact(M);
  if (x.ndim() < 2) return logical_not(all(x == 0));
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back();
  const Array s = svdvals(x);
  const double r = rtol ? *rtol : double(std::max(m, n)) * api::epsilon(x.dtype());
  const Array tol = Array(r).astype(x.dtype()) * amax(s, {.axis = -1, .keepdims = true});
  return count_nonzero(s > tol, -1);
}

namespace {

std::string order_text(const NormOrder &ord) {
  if (ord.name()) return *ord.name();
  const double p = *ord.number();
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  return p == std::floor(p) && std::abs(p) < 1e15 ? fmt::format("{}", int64_t(p))
                                                  : fmt::format("{}", p);
}

// The 2-norms sum real(x conj(x)): |x|^2 for complex numbers, x * x for reals (as jnp's norm).
Array vector_norm_of(const Array &x, const NormOrder &ord, const Axes &axis, bool keepdims) {
  if (ord.name()) throw ValueError(fmt::format("Invalid order '{}' for vector norm.", *ord.name()));
  const double p = ord.number().value_or(2);
  const ReduceOptions over{.axis = axis, .keepdims = keepdims};
  if (p == 2) return sqrt(sum(real(x * conj(x)), over));
  if (std::isinf(p)) return p > 0 ? amax(abs(x), over) : amin(abs(x), over);
  if (p == 0) return sum((x != 0).astype(x.dtype()), over);
  if (p == 1) return sum(abs(x), over);
  const Array q = Array(p).astype(x.dtype());
  return power(sum(power(abs(x), q), over), 1 / q);
}

Array matrix_norm_of(const Array &x, const NormOrder &ord, int64_t row, int64_t col,
                     bool keepdims) {
  const std::string text = ord.is_none() ? "fro" : order_text(ord);
  if (text == "fro")
    return sqrt(sum(real(x * conj(x)), {.axis = {row, col}, .keepdims = keepdims}));
  auto sums = [&](int64_t along, int64_t then, bool largest) {
    if (!keepdims && then > along) --then;
    const Array s = sum(abs(x), {.axis = along, .keepdims = keepdims});
    return largest ? amax(s, {.axis = then, .keepdims = keepdims})
                   : amin(s, {.axis = then, .keepdims = keepdims});
  };
  if (text == "1") return sums(row, col, true);
  if (text == "-1") return sums(row, col, false);
  if (text == "inf") return sums(col, row, true);
  if (text == "-inf") return sums(col, row, false);
  if (text == "nuc" || text == "2" || text == "-2") {
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < x.ndim(); ++d)
      if (d != row && d != col) perm.push_back(d);
    perm.push_back(row);
    perm.push_back(col);
    const Array s = svdvals(transpose(x, perm));
    Array y = text == "2" ? amax(s, -1) : text == "-2" ? amin(s, -1) : sum(s, -1);
    return keepdims ? expand_dims(y, {row, col}) : y;
  }
  throw ValueError(fmt::format("Invalid order '{}' for matrix norm.", text));
}

} // namespace

Array norm(const Array &a, const NormOptions &o) {
  const NormOrder &ord = o.ord;
  const Axes &axis = o.axis;
  const bool keepdims = o.keepdims;
  const Array x = to_inexact(a);
  std::vector<int64_t> axes;
  if (axis.is_none()) {
    if (ord.is_none()) {
      const Array y = sqrt(sum(real(x * conj(x))));
      return keepdims ? reshape(y, Shape(size_t(x.ndim()), 1)) : y;
    }
    if (x.ndim() != 1 && x.ndim() != 2) throw ValueError("Improper number of dimensions to norm.");
    axes = x.ndim() == 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1};
  } else {
    // In the order given: a matrix norm's first axis is its rows.
    for (int64_t a : axis.axes())
      axes.push_back(api::normalize_axis(a, x.ndim()));
    if (axes.size() == 2 && axes[0] == axes[1]) throw ValueError("Duplicate axes given.");
  }
  if (axes.size() == 1) return vector_norm_of(x, ord, axes, keepdims);
  if (axes.size() == 2) return matrix_norm_of(x, ord, axes[0], axes[1], keepdims);
  throw ValueError(fmt::format("Improper number of axes for norm: axis=({}). Pass one axis to "
                               "compute a vector-norm, or two axes to compute a matrix-norm.",
                               fmt::join(axes, ", ")));
}

Array vector_norm(const Array &x, const VectorNormOptions &o) {
  const Array y = to_inexact(x);
  if (o.axis.is_none()) {
    const Array flat = vector_norm_of(ravel(y), o.ord, 0, false);
    return o.keepdims ? reshape(flat, Shape(size_t(y.ndim()), 1)) : flat;
  }
  return vector_norm_of(y, o.ord, o.axis, o.keepdims);
}

Array matrix_norm(const Array &x, const MatrixNormOptions &o) {
  const Array y = to_inexact(x);
  require_matrices(y);
  return matrix_norm_of(y, o.ord, y.ndim() - 2, y.ndim() - 1, o.keepdims);
}

Array cond(const Array &x, const NormOrder &p) {
  const Array y = to_inexact(x);
  if (y.ndim() < 2)
    throw ValueError(
        fmt::format("jnp.linalg.cond: input array must be at least 2D; got arr.shape={}",
                    shape_str(y.shape())));
  if (y.size() == 0)
    throw ValueError(fmt::format("jnp.linalg.cond: input array must not be empty; got arr.shape={}",
                                 shape_str(y.shape())));
  const std::string text = p.is_none() ? "2" : order_text(p);
  if (text == "2" || text == "-2") {
    const Array s = svdvals(y);
    const Array first = squeeze(slice_along(s, -1, 0, 1), -1);
    const Array last = squeeze(slice_along(s, -1, -1, std::nullopt), -1);
    return text == "2" ? first / last : last / first;
  }
  if (!square(y))
    throw ValueError(
        fmt::format("jnp.linalg.cond: for p={}, array must be square; got arr.shape={}",
                    p.name() ? fmt::format("'{}'", text) : text, shape_str(y.shape())));
  return matrix_norm(y, {.ord = p}) * matrix_norm(inv(y), {.ord = p});
}

Array multi_dot(const std::vector<Array> &arrays) {
  if (arrays.size() < 2)
    throw ValueError(
        fmt::format("multi_dot requires at least two arrays; got len(arrays)={}", arrays.size()));
  std::vector<Array> ms = arrays;
  const bool row = ms.front().ndim() == 1, column = ms.back().ndim() == 1;
  if (row) ms.front() = expand_dims(ms.front(), 0);
  if (column) ms.back() = expand_dims(ms.back(), 1);
  for (const Array &m : ms)
    if (m.ndim() != 2)
      throw ValueError("multi_dot: input arrays must all be two-dimensional, except for the first "
                       "and last array which may be 1 or 2 dimensional.");
  for (size_t i = 0; i + 1 < ms.size(); ++i)
    if (ms[i].shape()[1] != ms[i + 1].shape()[0])
      throw ValueError("multi_dot: last dimension of each array must match first dimension of "
                       "following array.");
  // NumPy's _multi_dot_matrix_chain_order: the cheapest parenthesization, split[i][j] its cut.
  const size_t n = ms.size();
  std::vector<double> dims;
  for (const Array &m : ms)
    dims.push_back(double(m.shape()[0]));
  dims.push_back(double(ms.back().shape()[1]));
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t length = 1; length < n; ++length)
    for (size_t i = 0; i + length < n; ++i) {
      const size_t j = i + length;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  auto product = [&](auto &self, size_t i, size_t j) -> Array {
    if (i == j) return ms[i];
    return matmul(self(self, i, split[i][j]), self(self, split[i][j] + 1, j));
  };
  Array out = product(product, 0, n - 1);
  if (row) out = squeeze(out, 0);
  if (column) out = squeeze(out, -1);
  return out;
}

Array tensorinv(const Array &a, int64_t ind) {
  if (ind <= 0) throw ValueError(fmt::format("ind must be a positive integer; got ind={}", ind));
  const Shape &s = a.shape();
  const Shape contracting(s.begin(), s.begin() + std::min<int64_t>(ind, a.ndim())),
      rest(s.begin() + std::min<int64_t>(ind, a.ndim()), s.end());
  const int64_t rows = shape_size(contracting), cols = shape_size(rest);
  if (rows != cols)
    throw ValueError(fmt::format("tensorinv is only possible when the product of the first `ind` "
                                 "dimensions equals that of the remaining dimensions. got "
                                 "arr.shape={} with ind={}.",
                                 shape_str(s), ind));
  Shape out = rest;
  out.insert(out.end(), contracting.begin(), contracting.end());
  return reshape(inv(reshape(a, {rows, cols})), out);
}

Array tensorsolve(const Array &a, const Array &b, std::optional<std::vector<int64_t>> axes) {
  Array x = a;
  if (axes) {
    std::vector<int64_t> moved = api::normalize_axes(*axes, x.ndim()), perm;
    for (int64_t d = 0; d < x.ndim(); ++d)
      if (std::find(moved.begin(), moved.end(), d) == moved.end()) perm.push_back(d);
    perm.insert(perm.end(), moved.begin(), moved.end());
    x = transpose(x, perm);
  }
  const Shape &s = x.shape();
  if (b.ndim() > x.ndim() || !std::equal(b.shape().begin(), b.shape().end(), s.begin()))
    throw ValueError(fmt::format("After moving axes to end, leading shape of a must match shape "
                                 "of b. got a.shape={}, b.shape={}",
                                 shape_str(s), shape_str(b.shape())));
  const Shape out(s.begin() + b.ndim(), s.end());
  if (b.size() != shape_size(out))
    throw ValueError(fmt::format("Input arrays must have prod(a.shape[:b.ndim]) == "
                                 "prod(a.shape[b.ndim:]); got a.shape={}, b.ndim={}.",
                                 shape_str(s), b.ndim()));
  return reshape(solve(reshape(x, {b.size(), shape_size(out)}), ravel(b)), out);
}

Array cross(const Array &x1, const Array &x2, const CrossOptions &o) {
  return numpy::cross(x1, x2, {.axis = o.axis});
}
Array diagonal(const Array &x, const OffsetOptions &o) {
  return numpy::diagonal(x, o.offset, -2, -1);
}
Array matmul(const Array &x1, const Array &x2) { return numpy::matmul(x1, x2); }
Array matrix_transpose(const Array &x) { return numpy::matrix_transpose(x); }
Array outer(const Array &x1, const Array &x2) {
  if (x1.ndim() != 1 || x2.ndim() != 1)
    throw ValueError(
        fmt::format("Input arrays must be one-dimensional, but they are x1.ndim={} x2.ndim={}",
                    x1.ndim(), x2.ndim()));
  return numpy::outer(x1, x2);
}
Array tensordot(const Array &x1, const Array &x2, const TensordotOptions &o) {
  return numpy::tensordot(x1, x2, o.axes);
}
Array trace(const Array &x, const OffsetOptions &o) { return numpy::trace(x, o.offset, -2, -1); }
Array vecdot(const Array &x1, const Array &x2, const VecdotOptions &options) {
  return numpy::vecdot(x1, x2, options);
}

} // namespace jx::numpy::linalg
