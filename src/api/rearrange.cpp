// jnp functions that join, split, tile and rearrange arrays (all index arithmetic: slices,
// broadcasts, reshapes and concatenations of the existing ops), and the dtype/shape queries.
#include <jx/numpy.h>

#include <fmt/format.h>

#include <algorithm>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::slice_along;
using api::wrap;

namespace {

// x with ones prepended to its shape up to ndim.
Array with_rank(const Array &x, int64_t ndim) {
  if (x.ndim() >= ndim) return x;
  Shape s(ndim - x.ndim(), 1);
  s.insert(s.end(), x.shape().begin(), x.shape().end());
  return reshape(x, s);
}

// The pieces between split points (each a Python slice bound).
std::vector<Array> split_at(const Array &x, const std::vector<int64_t> &points, int64_t axis) {
  const int64_t a = api::normalize_axis(axis, x.ndim());
  std::vector<Array> out;
  std::optional<int64_t> lo = 0;
  for (int64_t p : points) {
    out.push_back(slice_along(x, a, lo, p));
    lo = p;
  }
  out.push_back(slice_along(x, a, lo, none));
  return out;
}

std::vector<Array> sections(const Array &x, int64_t count, int64_t axis, bool equal) {
  if (count <= 0) throw ValueError("number sections must be larger than 0.");
  if (x.ndim() == 0) throw ValueError("array split does not work on 0-d arrays");
  const int64_t n = x.shape()[api::normalize_axis(axis, x.ndim())];
  if (equal && n % count != 0) throw ValueError("array split does not result in an equal division");
  const int64_t each = n / count, extras = n % count;
  std::vector<int64_t> points;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < count; ++i)
    points.push_back(at += each + (i < extras ? 1 : 0));
  return split_at(x, points, axis);
}

} // namespace

Array permute_dims(const Array &x, std::vector<int64_t> axes) { return transpose(x, axes); }

Array matrix_transpose(const Array &x) {
  if (x.ndim() < 2)
    throw ValueError(fmt::format(
        "x must be at least two-dimensional for matrix_transpose; got ndim={}", x.ndim()));
  return swapaxes(x, -1, -2);
}

Array rollaxis(const Array &x, int64_t axis, int64_t start) {
  const int64_t n = x.ndim();
  axis = api::normalize_axis(axis, n);
  const int64_t given = start;
  if (start < 0) start += n;
  if (start < 0 || start >= n + 1)
    throw AxisError(fmt::format("'start' arg requires {} <= start < {}, but {} was passed in", -n,
                                n + 1, given));
  if (axis < start) --start;
  if (axis == start) return x;
  std::vector<int64_t> axes = api::iota_vector(n);
  axes.erase(axes.begin() + axis);
  axes.insert(axes.begin() + start, axis);
  return transpose(x, axes);
}

Array rot90(const Array &m, const Rot90Options &o) {
  const std::pair<int64_t, int64_t> &axes = o.axes;
  int64_t k = o.k;
  const int64_t n = m.ndim();
  if (axes.first == axes.second || std::abs(axes.first - axes.second) == n)
    throw ValueError("Axes must be different.");
  if (axes.first >= n || axes.first < -n || axes.second >= n || axes.second < -n)
    throw ValueError(fmt::format("Axes=({}, {}) out of range for array of ndim={}.", axes.first,
                                 axes.second, n));
  k = ((k % 4) + 4) % 4;
  if (k == 0) return m;
  if (k == 2) return flip(flip(m, axes.first), axes.second);
  std::vector<int64_t> perm = api::iota_vector(n);
  std::swap(perm[api::normalize_axis(axes.first, n)], perm[api::normalize_axis(axes.second, n)]);
  if (k == 1) return transpose(flip(m, axes.second), perm);
  return flip(transpose(m, perm), axes.second);
}

Array fliplr(const Array &m) {
  if (m.ndim() < 2) throw ValueError("Input must be >= 2-d.");
  return flip(m, 1);
}
Array flipud(const Array &m) {
  if (m.ndim() < 1) throw ValueError("Input must be >= 1-d.");
  return flip(m, 0);
}

Array atleast_1d(const Array &x) { return x.ndim() >= 1 ? x : reshape(x, {1}); }
Array atleast_2d(const Array &x) { return with_rank(x, 2); }
Array atleast_3d(const Array &x) {
  if (x.ndim() == 0) return reshape(x, {1, 1, 1});
  if (x.ndim() == 1) return reshape(x, {1, x.shape()[0], 1});
  if (x.ndim() == 2) return expand_dims(x, 2);
  return x;
}

Array concat(const std::vector<Array> &xs, const ConcatOptions &o) {
  return concatenate(xs, o.axis);
}

namespace {
std::vector<Array> each(const std::vector<Array> &xs, Array (*f)(const Array &)) {
  std::vector<Array> out;
  for (const Array &x : xs)
    out.push_back(f(x));
  return out;
}
} // namespace

Array hstack(const std::vector<Array> &xs) {
  const std::vector<Array> arrs = each(xs, atleast_1d);
  return concatenate(arrs, !arrs.empty() && arrs[0].ndim() == 1 ? 0 : 1);
}
Array vstack(const std::vector<Array> &xs) { return concatenate(each(xs, atleast_2d), 0); }
Array dstack(const std::vector<Array> &xs) { return concatenate(each(xs, atleast_3d), 2); }
Array column_stack(const std::vector<Array> &xs) {
  std::vector<Array> columns;
  for (const Array &x : xs)
    columns.push_back(x.ndim() < 2 ? reshape(x, {x.size(), 1}) : x);
  return concatenate(columns, 1);
}

std::vector<Array> split(const Array &x, int64_t count, int64_t axis) {
  return sections(x, count, axis, true);
}
std::vector<Array> split(const Array &x, const std::vector<int64_t> &indices, int64_t axis) {
  return split_at(x, indices, axis);
}
std::vector<Array> array_split(const Array &x, int64_t count, int64_t axis) {
  return sections(x, count, axis, false);
}
std::vector<Array> array_split(const Array &x, const std::vector<int64_t> &indices, int64_t axis) {
  return split_at(x, indices, axis);
}
std::vector<Array> hsplit(const Array &x, int64_t count) {
  if (x.ndim() == 0) throw ValueError("hsplit only works on arrays of 1 or more dimensions");
  return split(x, count, x.ndim() > 1 ? 1 : 0);
}
std::vector<Array> vsplit(const Array &x, int64_t count) {
  if (x.ndim() < 2) throw ValueError("vsplit only works on arrays of 2 or more dimensions");
  return split(x, count, 0);
}
std::vector<Array> dsplit(const Array &x, int64_t count) {
  if (x.ndim() < 3) throw ValueError("dsplit only works on arrays of 3 or more dimensions");
  return split(x, count, 2);
}

std::vector<Array> unstack(const Array &x, const UnstackOptions &o) {
  if (x.ndim() == 0)
    throw ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.");
  const int64_t a = api::normalize_axis(o.axis, x.ndim());
  std::vector<Array> out;
  for (int64_t i = 0; i < x.shape()[a]; ++i) {
    std::vector<IndexItem> idx(a, Slice{});
    idx.emplace_back(i);
    out.push_back(x.index(idx));
  }
  return out;
}

// x broadcast along a new axis before each of its own, then merged: (r0, s0, r1, s1...) ->
// (r0 s0, r1 s1, ...).
Array tile(const Array &x, const std::vector<int64_t> &reps) {
  for (int64_t r : reps)
    if (r < 0) throw ValueError("negative dimensions are not allowed");
  const int64_t n = std::max<int64_t>(x.ndim(), int64_t(reps.size()));
  const Array a = with_rank(x, n);
  std::vector<int64_t> r(n - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  Shape spread, grown, merged;
  for (int64_t i = 0; i < n; ++i) {
    spread.insert(spread.end(), {1, a.shape()[i]});
    grown.insert(grown.end(), {r[i], a.shape()[i]});
    merged.push_back(r[i] * a.shape()[i]);
  }
  return reshape(broadcast_to(reshape(a, spread), grown), merged);
}

Array repeat(const Array &x, int64_t repeats, std::optional<int64_t> axis) {
  if (repeats < 0) throw ValueError("repeats may not contain negative values.");
  const Array a = axis ? x : ravel(x);
  const int64_t ax = api::normalize_axis(axis.value_or(0), a.ndim());
  Shape grown = a.shape(), merged = a.shape();
  grown.insert(grown.begin() + ax + 1, repeats);
  merged[ax] *= repeats;
  return reshape(broadcast_to(expand_dims(a, ax + 1), grown), merged);
}

Array repeat(const Array &x, const std::vector<int64_t> &repeats, std::optional<int64_t> axis) {
  if (repeats.size() == 1) return repeat(x, repeats[0], axis);
  const Array a = axis ? x : ravel(x);
  const int64_t ax = api::normalize_axis(axis.value_or(0), a.ndim());
  const int64_t n = a.shape()[ax];
  if (int64_t(repeats.size()) != n)
    throw ValueError(fmt::format("operands could not be broadcast together with shape ({},) ({},)",
                                 n, repeats.size()));
  std::vector<Array> pieces;
  for (int64_t i = 0; i < n; ++i) {
    if (repeats[i] < 0) throw ValueError("repeats may not contain negative values.");
    if (repeats[i] > 0) pieces.push_back(repeat(slice_along(a, ax, i, i + 1), repeats[i], ax));
  }
  return pieces.empty() ? slice_along(a, ax, 0, 0) : concatenate(pieces, ax);
}

Array append(const Array &arr, const Array &values, std::optional<int64_t> axis) {
  if (!axis) return concatenate({ravel(arr), ravel(values)});
  return concatenate({arr, values}, *axis);
}

Array delete_(const Array &arr, const std::vector<int64_t> &indices, std::optional<int64_t> axis) {
  const Array a = axis ? arr : ravel(arr);
  const int64_t ax = api::normalize_axis(axis.value_or(0), a.ndim());
  const int64_t n = a.shape()[ax];
  std::vector<bool> keep(n, true);
  for (int64_t i : indices) {
    if (i < -n || i >= n)
      throw IndexError(fmt::format("index {} is out of bounds for axis {} with size {}", i, ax, n));
    keep[i < 0 ? i + n : i] = false;
  }
  std::vector<Array> runs;
  for (int64_t i = 0; i < n;) {
    if (!keep[i]) {
      ++i;
      continue;
    }
    int64_t j = i;
    while (j < n && keep[j])
      ++j;
    runs.push_back(slice_along(a, ax, i, j));
    i = j;
  }
  return runs.empty() ? slice_along(a, ax, 0, 0) : concatenate(runs, ax);
}

// NumPy's scalar-index insert: values (at least arr's rank, their first axis moved to axis)
// broadcast to arr's shape but for axis, in arr's dtype.
Array insert(const Array &arr, int64_t index, const Array &values, std::optional<int64_t> axis) {
  const Array a = axis ? arr : ravel(arr);
  const int64_t ax = api::normalize_axis(axis.value_or(0), a.ndim());
  const int64_t n = a.shape()[ax];
  if (index < -n || index > n)
    throw IndexError(
        fmt::format("index {} is out of bounds for axis {} with size {}", index, ax, n));
  if (index < 0) index += n;
  const Array v = moveaxis(with_rank(values.astype(a.dtype()), a.ndim()), 0, ax);
  Shape target = a.shape();
  target[ax] = v.shape()[ax];
  return concatenate(
      {slice_along(a, ax, 0, index), broadcast_to(v, target), slice_along(a, ax, index, none)}, ax);
}

Array resize(const Array &a, const Shape &new_shape) {
  int64_t new_size = 1;
  for (int64_t d : new_shape) {
    if (d < 0) throw ValueError("all elements of `new_shape` must be non-negative");
    new_size *= d;
  }
  const Array flat = ravel(a);
  if (flat.size() == 0 || new_size == 0) return zeros(new_shape, a.dtype());
  const int64_t copies = (new_size + flat.size() - 1) / flat.size();
  return reshape(slice_along(tile(flat, {copies}), 0, 0, new_size), new_shape);
}

std::vector<Array> broadcast_arrays(const std::vector<Array> &xs) {
  std::vector<Shape> shapes;
  for (const Array &x : xs)
    shapes.push_back(x.shape());
  const Shape shape = broadcast_shapes(shapes);
  std::vector<Array> out;
  for (const Array &x : xs)
    out.push_back(broadcast_to(x, shape));
  return out;
}

DType result_type(const std::vector<Array> &xs) {
  if (xs.empty()) throw ValueError("at least one array or dtype is required");
  std::vector<NodePtr> nodes;
  for (const Array &x : xs)
    nodes.push_back(node_of(x));
  return api::result_type(nodes).dtype;
}

DType promote_types(DType a, DType b) {
  return api::result_type({ir::literal(0, a, false), ir::literal(0, b, false)}).dtype;
}

int64_t ndim(const Array &x) { return x.ndim(); }
Shape shape(const Array &x) { return x.shape(); }
int64_t size(const Array &x, std::optional<int64_t> axis) {
  return axis ? x.shape()[api::normalize_axis(*axis, x.ndim())] : x.size();
}
bool isscalar(const Array &x) { return x.ndim() == 0; }

} // namespace jx::numpy
