// jnp's matrix helpers (tri, tril, triu and their indices, diag, diagonal, trace, vander), products
// beyond dot (inner, kron, cross, vecdot, matvec, vecmat), 1-D convolution and correlation,
// polynomials, and the finite differences and sums (trapezoid, ediff1d, gradient).
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::slice_along;
using api::to_inexact;
using api::wrap;

namespace {

// col - row over an n x m matrix: the diagonal each element is on.
Array diagonal_number(int64_t n, int64_t m) {
  if (n < 0 || m < 0) throw ValueError("negative dimensions are not allowed");
  const Shape shape{n, m};
  return wrap(ir::iota(DType::int64, shape, 1)) - wrap(ir::iota(DType::int64, shape, 0));
}

// The n x m mask j <= i + k.
Array tri_mask(int64_t n, int64_t m, int64_t k) { return diagonal_number(n, m) <= k; }

// The (rows, cols) where mask holds, in row-major order.
std::pair<Array, Array> mask_indices(int64_t n, int64_t m, int64_t k, bool lower) {
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      if ((j <= i + k) == lower) {
        rows.push_back(i);
        cols.push_back(j);
      }
  return {array(rows), array(cols)};
}

// lax.conv_general_dilated of 1-D x and y (a correlation): out[k] = sum_j x_padded[k + j] y[j].
Array correlate_padded(const Array &x, const Array &y, int64_t lo, int64_t hi) {
  const Array padded = pad(x, {{lo, hi}});
  const int64_t m = y.shape()[0], length = padded.shape()[0] - m + 1;
  Array out = slice_along(padded, 0, 0, length) * y(0);
  for (int64_t j = 1; j < m; ++j)
    out = out + slice_along(padded, 0, j, j + length) * y(j);
  return out;
}

// jnp's _conv: the longer operand slides, the shorter (flipped for a convolution) is the kernel.
Array conv(Array x, Array y, std::string_view mode, bool convolution) {
  const char *op = convolution ? "convolve" : "correlate";
  if (x.ndim() != 1 || y.ndim() != 1)
    throw ValueError(fmt::format("{}() only support 1-dimensional inputs.", op));
  if (x.size() == 0 || y.size() == 0)
    throw ValueError(fmt::format("{}: inputs cannot be empty, got shapes {} and {}.", op,
                                 shape_str(x.shape()), shape_str(y.shape())));
  const DType type = result_type({x, y});
  x = x.astype(type);
  y = convolution ? y.astype(type) : conj(y.astype(type)); // np.correlate conjugates v
  bool reverse = false;
  if (x.size() < y.size()) {
    std::swap(x, y);
    reverse = !convolution;
  }
  if (convolution) y = flip(y);
  const int64_t m = y.size();
  int64_t lo, hi;
  if (mode == "valid") {
    lo = hi = 0;
  } else if (mode == "same") {
    lo = m / 2;
    hi = m - m / 2 - 1;
  } else if (mode == "full") {
    lo = hi = m - 1;
  } else {
    throw ValueError("mode must be one of ['full', 'same', 'valid']");
  }
  const Array out = correlate_padded(x, y, lo, hi);
  return reverse ? flip(out) : out;
}

Array poly_combine(const Array &a1, const Array &a2, bool subtract) {
  Array x = atleast_1d(a1), y = atleast_1d(a2);
  const int64_t diff = y.size() - x.size();
  if (diff > 0) x = concatenate({zeros({diff}, x.dtype()), x});
  if (diff < 0) y = concatenate({zeros({-diff}, y.dtype()), y});
  return subtract ? x - y : x + y;
}

} // namespace

Array tri(int64_t n, const EyeOptions &o) {
  return tri_mask(n, o.M.value_or(n), o.k).astype(o.dtype);
}

Array tril(const Array &m, int64_t k) {
  if (m.ndim() < 2) throw ValueError("Argument to jax.numpy.tril must be at least 2D");
  const Array mask = tri_mask(m.shape()[m.ndim() - 2], m.shape()[m.ndim() - 1], k);
  return where(mask, m, zeros_like(m));
}
Array triu(const Array &m, int64_t k) {
  if (m.ndim() < 2) throw ValueError("Argument to jax.numpy.triu must be at least 2D");
  const Array mask = tri_mask(m.shape()[m.ndim() - 2], m.shape()[m.ndim() - 1], k - 1);
  return where(mask, zeros_like(m), m);
}

std::pair<Array, Array> tril_indices(int64_t n, const TriIndicesOptions &o) {
  return mask_indices(n, o.m.value_or(n), o.k, true);
}
std::pair<Array, Array> triu_indices(int64_t n, const TriIndicesOptions &o) {
  return mask_indices(n, o.m.value_or(n), o.k - 1, false);
}
std::pair<Array, Array> tril_indices_from(const Array &arr, int64_t k) {
  if (arr.ndim() != 2) throw ValueError("input array must be 2-d");
  return tril_indices(arr.shape()[0], k, arr.shape()[1]);
}
std::pair<Array, Array> triu_indices_from(const Array &arr, int64_t k) {
  if (arr.ndim() != 2) throw ValueError("input array must be 2-d");
  return triu_indices(arr.shape()[0], k, arr.shape()[1]);
}

std::vector<Array> diag_indices(int64_t n, int64_t ndim) {
  if (n < 0) throw ValueError("negative dimensions are not allowed");
  return std::vector<Array>(ndim, arange(n));
}
std::vector<Array> diag_indices_from(const Array &arr) {
  if (arr.ndim() < 2) throw ValueError("input array must be at least 2-d");
  for (int64_t d : arr.shape())
    if (d != arr.shape()[0]) throw ValueError("All dimensions of input must be of equal length");
  return diag_indices(arr.shape()[0], arr.ndim());
}

Array diagonal(const Array &a, const DiagonalOptions &o) {
  const int64_t offset = o.offset, a1 = api::normalize_axis(o.axis1, a.ndim()),
                a2 = api::normalize_axis(o.axis2, a.ndim());
  if (a1 == a2) throw ValueError("axis1 and axis2 cannot be the same");
  Array x = offset >= 0 ? slice_along(a, a2, offset, none) : slice_along(a, a1, -offset, none);
  const int64_t n = std::min(x.shape()[a1], x.shape()[a2]);
  x = slice_along(slice_along(x, a1, 0, n), a2, 0, n);
  return wrap(ir::diagonal(node_of(x), a1, a2));
}

Array trace(const Array &a, const DiagonalOptions &options) {
  return sum(diagonal(a, options), -1);
}

Array diag(const Array &v, int64_t k) {
  if (v.ndim() == 2) return diagonal(v, k);
  if (v.ndim() != 1) throw ValueError("Input must be 1- or 2-d.");
  const int64_t shift = k < 0 ? -k : k, n = v.size() + shift;
  const Array padded = pad(v, {{0, shift}});
  // Row i holds v[i] at column i + k (k >= 0); column j holds v[j] at row j - k (k < 0).
  const Array values = k >= 0 ? reshape(padded, {n, 1}) : reshape(padded, {1, n});
  return where(diagonal_number(n, n) == k, values, zeros({}, v.dtype()));
}
Array diagflat(const Array &v, int64_t k) { return diag(ravel(v), k); }

Array vander(const Array &x, const VanderOptions &o) {
  if (x.ndim() != 1) throw ValueError("x must be a one-dimensional array or sequence.");
  const int64_t columns = o.N.value_or(x.size());
  if (columns < 0) throw ValueError("N must be nonnegative.");
  Array powers = arange(columns, x.dtype() == DType::bool_ ? DType::int64 : x.dtype());
  if (!o.increasing) powers = (columns - 1) - powers;
  return power(expand_dims(x, 1), powers);
}

Array inner(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b);
  if (a.shape().back() != b.shape().back())
    throw ValueError(fmt::format("shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                                 shape_str(a.shape()), shape_str(b.shape()), a.shape().back(),
                                 a.ndim() - 1, b.shape().back(), b.ndim() - 1));
  return tensordot(a, b, {{a.ndim() - 1}, {b.ndim() - 1}});
}

// a's axes interleaved with b's: a[i, None, j, None] * b[None, k, None, l] -> (i k, j l).
Array kron(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b);
  const int64_t n = std::max(a.ndim(), b.ndim());
  auto lift = [&](const Array &x) {
    Shape s(n - x.ndim(), 1);
    s.insert(s.end(), x.shape().begin(), x.shape().end());
    return s;
  };
  const Shape as = lift(a), bs = lift(b);
  Shape sa, sb, merged;
  for (int64_t i = 0; i < n; ++i) {
    sa.insert(sa.end(), {as[i], 1});
    sb.insert(sb.end(), {1, bs[i]});
    merged.push_back(as[i] * bs[i]);
  }
  return reshape(multiply(reshape(a, sa), reshape(b, sb)), merged);
}

// NumPy's cases: a 2-vector's missing third component is zero (not 0 * x, which is NaN for x =
// inf); two 2-vectors give the scalar z component. axis, when given, is all three axes.
Array cross(const Array &a, const Array &b, const CrossOptions &o) {
  const int64_t axisa = o.axis.value_or(o.axisa), axisb = o.axis.value_or(o.axisb),
                axisc = o.axis.value_or(o.axisc);
  const Array x = moveaxis(a, axisa, -1), y = moveaxis(b, axisb, -1);
  const int64_t na = x.shape().back(), nb = y.shape().back();
  if ((na != 2 && na != 3) || (nb != 2 && nb != 3))
    throw ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)");
  auto at = [](const Array &v, int64_t i) { return v(ellipsis, i); };
  const Array a0 = at(x, 0), a1 = at(x, 1), b0 = at(y, 0), b1 = at(y, 1);
  const Array z = a0 * b1 - a1 * b0;
  if (na == 2 && nb == 2) return z;
  auto component = [&](int64_t i) {
    if (na == 3 && nb == 3)
      return i == 0 ? at(x, 1) * at(y, 2) - at(x, 2) * at(y, 1)
                    : at(x, 2) * at(y, 0) - at(x, 0) * at(y, 2);
    if (na == 2) return i == 0 ? a1 * at(y, 2) : -(a0 * at(y, 2));
    return i == 0 ? -(at(x, 2) * b1) : at(x, 2) * b0;
  };
  const Array c0 = component(0), c1 = component(1);
  const std::vector<Array> parts = broadcast_arrays({c0, c1, z});
  return moveaxis(stack(parts, -1), -1, axisc);
}

Array vecdot(const Array &x1, const Array &x2, const VecdotOptions &o) {
  const int64_t axis = o.axis;
  const int64_t a1 = api::normalize_axis(axis, x1.ndim()),
                a2 = api::normalize_axis(axis, x2.ndim());
  if (x1.shape()[a1] != x2.shape()[a2])
    throw ValueError(fmt::format("axes must match; got shapes {} and {} with axis={}",
                                 shape_str(x1.shape()), shape_str(x2.shape()), axis));
  return sum(moveaxis(conj(x1), a1, -1) * moveaxis(x2, a2, -1), -1);
}

Array matvec(const Array &x1, const Array &x2) {
  if (x1.ndim() < 2 || x2.ndim() < 1)
    throw ValueError(fmt::format("matvec requires x1 of at least 2 dimensions and x2 of at least "
                                 "1, got shapes {} and {}",
                                 shape_str(x1.shape()), shape_str(x2.shape())));
  return squeeze(matmul(x1, expand_dims(x2, -1)), -1);
}

Array vecmat(const Array &x1, const Array &x2) {
  if (x1.ndim() < 1 || x2.ndim() < 2)
    throw ValueError(fmt::format("vecmat requires x1 of at least 1 dimension and x2 of at least "
                                 "2, got shapes {} and {}",
                                 shape_str(x1.shape()), shape_str(x2.shape())));
  return squeeze(matmul(expand_dims(conj(x1), -2), x2), -2);
}

Array convolve(const Array &a, const Array &v, std::string_view mode) {
  return conv(a, v, mode, true);
}
Array correlate(const Array &a, const Array &v, std::string_view mode) {
  return conv(a, v, mode, false);
}

// Horner's rule from y = 0, as NumPy and jnp.
Array polyval(const Array &p, const Array &x) {
  if (p.ndim() != 1) throw ValueError("polyval: p must be 1-D");
  Array y = zeros_like(x);
  for (int64_t i = 0; i < p.size(); ++i)
    y = y * x + p(i);
  return y;
}
Array polyadd(const Array &a1, const Array &a2) { return poly_combine(a1, a2, false); }
Array polysub(const Array &a1, const Array &a2) { return poly_combine(a1, a2, true); }
Array polymul(const Array &a1, const Array &a2) {
  return convolve(atleast_1d(a1), atleast_1d(a2), "full");
}
Array polyder(const Array &p, int64_t m) {
  if (m < 0) throw ValueError("Order of derivative must be positive (see polyint)");
  Array out = atleast_1d(p);
  for (int64_t i = 0; i < m && out.size() > 0; ++i) {
    const int64_t n = out.size() - 1;
    out = slice_along(out, 0, 0, n) * arange(n, 0, -1);
  }
  return out;
}
Array polyint(const Array &p, const PolyintOptions &o) {
  const int64_t m = o.m;
  const Array &k = o.k;
  if (m < 0) throw ValueError("Order of integral must be positive (see polyder)");
  Array constants = atleast_1d(k);
  if (constants.size() == 1 && m > 1) constants = broadcast_to(constants, {m});
  if (constants.size() < m)
    throw ValueError("k must be a scalar or a rank-1 array of length 1 or >m.");
  Array out = to_inexact(atleast_1d(p));
  for (int64_t i = 0; i < m; ++i) {
    const int64_t n = out.size();
    out = concatenate({out / arange(n, 0, -1), atleast_1d(constants(i))});
  }
  return out;
}
Array poly(const Array &seq_of_zeros) {
  if (seq_of_zeros.ndim() == 2 && seq_of_zeros.shape()[0] == seq_of_zeros.shape()[1] &&
      seq_of_zeros.shape()[0] != 0)
    throw NotImplementedError("poly of a matrix needs its eigenvalues: jx has no eigvals yet");
  if (seq_of_zeros.ndim() != 1) throw ValueError("input must be 1d or non-empty square 2d array.");
  const Array zeros_ = to_inexact(seq_of_zeros);
  Array a = ones({1}, zeros_.dtype());
  for (int64_t i = 0; i < zeros_.size(); ++i)
    a = convolve(a, stack({ones({}, zeros_.dtype()), -zeros_(i)}), "full");
  return a;
}

Array trapezoid(const Array &y, const TrapezoidOptions &o) {
  const std::optional<Array> &x = o.x;
  const int64_t ax = api::normalize_axis(o.axis, y.ndim());
  Array d = o.dx;
  if (x) {
    if (x->ndim() == 1) {
      Shape along(y.ndim(), 1);
      along[ax] = x->size() - 1;
      d = reshape(diff(*x), along);
    } else {
      d = diff(*x, 1, ax);
    }
  }
  const Array f = to_inexact(y);
  return sum(d * (slice_along(f, ax, 1, none) + slice_along(f, ax, none, -1)) / 2.0, ax);
}

Array ediff1d(const Array &ary, const Ediff1dOptions &o) {
  const std::optional<Array> &to_end = o.to_end, &to_begin = o.to_begin;
  const Array flat = ravel(ary);
  std::vector<Array> parts;
  if (to_begin) parts.push_back(ravel(to_begin->astype(flat.dtype())));
  parts.push_back(slice_along(flat, 0, 1, none) - slice_along(flat, 0, none, -1));
  if (to_end) parts.push_back(ravel(to_end->astype(flat.dtype())));
  return concatenate(parts);
}

// Central differences inside, one-sided at the edges (edge_order 1), with uniform spacing.
std::vector<Array> gradient(const Array &f, const GradientOptions &o) {
  const double spacing = o.spacing;
  const Array x = to_inexact(f);
  std::vector<Array> out;
  for (int64_t a : api::normalize_axes(o.axis, x.ndim())) {
    const int64_t n = x.shape()[a];
    if (n < 2)
      throw ValueError("Shape of array too small to calculate a numerical gradient, at least "
                       "(edge_order + 1) elements are required.");
    const Array first = (slice_along(x, a, 1, 2) - slice_along(x, a, 0, 1)) / spacing;
    const Array last = (slice_along(x, a, n - 1, n) - slice_along(x, a, n - 2, n - 1)) / spacing;
    const Array inside =
        (slice_along(x, a, 2, none) - slice_along(x, a, 0, n - 2)) / (2.0 * spacing);
    out.push_back(concatenate({first, inside, last}, a));
  }
  return out;
}

} // namespace jx::numpy
