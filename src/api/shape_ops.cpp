// jnp shape functions: reshape, transpose, expand_dims, squeeze, broadcast_to, concatenate, stack,
// pad, diff, flip, roll. All build movement nodes; nothing here touches element data.
#include <jx/lax.h>
#include <jx/numpy.h>

#include <algorithm>
#include <fmt/format.h>

#include "api/internal.h"

namespace jx {

Shape api::resolve_reshape(int64_t size, const Shape &shape) {
  auto cannot = [&] {
    return ShapeError(
        fmt::format("cannot reshape array of size {} into shape {}", size, shape_str(shape)));
  };
  Shape out = shape;
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (unknown >= 0) throw ValueError("can only specify one unknown dimension");
      unknown = int64_t(i);
    } else if (out[i] < 0) {
      throw ValueError(
          fmt::format("negative dimensions not allowed, got shape {}", shape_str(shape)));
    } else if (__builtin_mul_overflow(known, out[i], &known)) {
      throw cannot(); // more elements than any array holds
    }
  }
  if (unknown >= 0 && known != 0 && size % known == 0) out[unknown] = size / known;
  if ((unknown >= 0 && out[unknown] == -1) || shape_size(out) != size) throw cannot();
  return out;
}

namespace numpy {

using api::node_of;
using api::NodePtr;
using api::wrap;

Array reshape(const Array &x, const Shape &shape) {
  return wrap(ir::reshape(node_of(x), api::resolve_reshape(x.size(), shape)));
}

Array ravel(const Array &x) { return reshape(x, {x.size()}); }

Array transpose(const Array &x, std::optional<std::vector<int64_t>> axes) {
  const int64_t r = x.ndim();
  std::vector<int64_t> perm;
  if (!axes) {
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  } else {
    if (int64_t(axes->size()) != r) throw ValueError("axes don't match array");
    for (int64_t a : *axes)
      perm.push_back(api::normalize_axis(a, r));
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw ValueError("repeated axis in transpose");
  }
  return wrap(ir::transpose(node_of(x), perm));
}

Array moveaxis(const Array &x, int64_t source, int64_t destination) {
  const int64_t r = x.ndim();
  source = api::normalize_axis(source, r);
  destination = api::normalize_axis(destination, r);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    if (i != source) perm.push_back(i);
  perm.insert(perm.begin() + destination, source);
  return wrap(ir::transpose(node_of(x), perm));
}

Array swapaxes(const Array &x, int64_t axis1, int64_t axis2) {
  const int64_t r = x.ndim();
  std::vector<int64_t> perm = api::iota_vector(r);
  std::swap(perm[api::normalize_axis(axis1, r)], perm[api::normalize_axis(axis2, r)]);
  return wrap(ir::transpose(node_of(x), perm));
}

Array expand_dims(const Array &x, const Axes &axis) {
  if (axis.is_none()) throw ValueError("expand_dims requires an axis");
  const int64_t out_rank = x.ndim() + int64_t(axis.axes().size());
  std::vector<int64_t> axes = api::normalize_axes(axis, out_rank);
  Shape out;
  for (int64_t i = 0, src = 0; i < out_rank; ++i)
    out.push_back(std::count(axes.begin(), axes.end(), i) ? 1 : x.shape()[src++]);
  return wrap(ir::reshape(node_of(x), out));
}

Array squeeze(const Array &x, const Axes &axis) {
  std::vector<int64_t> axes;
  if (axis.is_none()) {
    for (int64_t i = 0; i < x.ndim(); ++i)
      if (x.shape()[i] == 1) axes.push_back(i);
  } else {
    axes = api::normalize_axes(axis, x.ndim());
    for (int64_t a : axes)
      if (x.shape()[a] != 1)
        throw ValueError("cannot select an axis to squeeze out which has size not equal to one");
  }
  Shape out;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (!std::count(axes.begin(), axes.end(), i)) out.push_back(x.shape()[i]);
  return wrap(ir::reshape(node_of(x), out));
}

Array broadcast_to(const Array &x, const Shape &shape) {
  bool ok = shape.size() >= x.shape().size();
  for (size_t i = 0; ok && i < x.shape().size(); ++i) {
    int64_t d = x.shape()[i], t = shape[shape.size() - x.shape().size() + i];
    ok = d == t || d == 1;
  }
  for (int64_t d : shape)
    ok = ok && d >= 0;
  if (!ok)
    throw ShapeError(fmt::format("Incompatible shapes for broadcasting: {} and requested shape {}",
                                 shape_str(x.shape()), shape_str(shape)));
  return wrap(api::broadcast_node(node_of(x), shape));
}

Array concatenate(const std::vector<Array> &xs, int64_t axis) {
  if (xs.empty()) throw ValueError("need at least one array to concatenate");
  const int64_t r = xs[0].ndim();
  if (r == 0) throw ValueError("zero-dimensional arrays cannot be concatenated");
  axis = api::normalize_axis(axis, r);
  for (size_t i = 1; i < xs.size(); ++i) {
    if (xs[i].ndim() != r)
      throw ShapeError(fmt::format(
          "all the input arrays must have same number of dimensions, but the array at index 0 has "
          "{} dimension(s) and the array at index {} has {} dimension(s)",
          r, i, xs[i].ndim()));
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && xs[i].shape()[d] != xs[0].shape()[d])
        throw ShapeError(fmt::format(
            "all the input array dimensions except for the concatenation axis must match exactly, "
            "but along dimension {}, the array at index 0 has size {} and the array at index {} "
            "has "
            "size {}",
            d, xs[0].shape()[d], i, xs[i].shape()[d]));
  }
  std::vector<NodePtr> nodes;
  for (const Array &x : xs)
    nodes.push_back(node_of(x));
  api::ResultType type = api::result_type(nodes);
  for (NodePtr &n : nodes)
    n = api::cast_node(n, type.dtype, type.weak);
  // Empty pieces contribute nothing.
  std::vector<NodePtr> parts;
  for (NodePtr &n : nodes)
    if (n->shape[axis] != 0) parts.push_back(n);
  if (parts.empty()) parts.push_back(nodes[0]);
  return wrap(ir::concatenate(parts, axis));
}

Array stack(const std::vector<Array> &xs, int64_t axis) {
  if (xs.empty()) throw ValueError("need at least one array to stack");
  for (const Array &x : xs)
    if (x.shape() != xs[0].shape()) throw ShapeError("all input arrays must have the same shape");
  axis = api::normalize_axis(axis, xs[0].ndim() + 1);
  std::vector<Array> expanded;
  for (const Array &x : xs)
    expanded.push_back(expand_dims(x, axis));
  return concatenate(expanded, axis);
}

Array pad(const Array &x, const std::vector<std::pair<int64_t, int64_t>> &pad_width,
          const PadOptions &options) {
  const Array &constant_values = options.constant_values;
  const int64_t r = x.ndim();
  if (pad_width.size() != 1 && int64_t(pad_width.size()) != r)
    throw ValueError(fmt::format("pad_width has {} entries, expected 1 or {} (one per axis)",
                                 pad_width.size(), r));
  std::vector<int64_t> lo, hi;
  for (int64_t i = 0; i < r; ++i) {
    auto [before, after] = pad_width.size() == 1 ? pad_width[0] : pad_width[i];
    if (before < 0 || after < 0) throw ValueError("index can't contain negative values");
    lo.push_back(before);
    hi.push_back(after);
  }
  if (constant_values.ndim() != 0) throw ValueError("only scalar constant_values are supported");
  NodePtr value = api::cast_node(node_of(constant_values), x.dtype(), x.weak_type());
  return wrap(ir::pad(node_of(x), value, lo, hi));
}

Array pad(const Array &x, int64_t pad_width, const PadOptions &options) {
  return pad(x, {{pad_width, pad_width}}, options);
}

Array diff(const Array &a, const DiffOptions &o) {
  const int64_t n = o.n;
  const std::optional<Array> &prepend = o.prepend, &append = o.append;
  if (n < 0) throw ValueError(fmt::format("order must be non-negative but got {}", n));
  if (a.ndim() == 0) throw ValueError("diff requires input that is at least one dimensional");
  const int64_t axis = api::normalize_axis(o.axis, a.ndim());
  if (n == 0) return a;
  // Scalars become one slice along axis; arrays join as they are (concatenate checks them).
  auto as_edge = [&](const Array &e) {
    if (e.ndim() != 0) return e;
    Shape s = a.shape();
    s[axis] = 1;
    return broadcast_to(e, s);
  };
  std::vector<Array> parts;
  if (prepend) parts.push_back(as_edge(*prepend));
  parts.push_back(a);
  if (append) parts.push_back(as_edge(*append));
  Array x = parts.size() == 1 ? a : concatenate(parts, axis);
  const bool boolean = x.dtype() == DType::bool_;
  for (int64_t k = 0; k < n && x.shape()[axis] > 0; ++k) {
    std::vector<IndexItem> hi_idx(axis, Slice{}), lo_idx(axis, Slice{});
    hi_idx.push_back(slice(1, none));
    lo_idx.push_back(slice(none, -1));
    x = boolean ? not_equal(x.index(hi_idx), x.index(lo_idx))
                : subtract(x.index(hi_idx), x.index(lo_idx));
  }
  return x;
}

Array flip(const Array &x, const Axes &axis) {
  std::vector<int64_t> axes = api::normalize_axes(axis, x.ndim());
  std::vector<IndexItem> idx;
  for (int64_t i = 0; i < x.ndim(); ++i)
    idx.emplace_back(std::count(axes.begin(), axes.end(), i) ? slice(none, none, -1) : Slice{});
  return x.index(idx);
}

Array roll(const Array &x, const std::vector<int64_t> &shift, const Axes &axis) {
  if (axis.is_none()) {
    if (shift.size() != 1) throw ValueError("roll: shift must be a single value when axis is None");
    return reshape(roll(ravel(x), shift, 0), x.shape());
  }
  const std::vector<int64_t> &raw = axis.axes();
  if (raw.empty()) return x; // nothing to roll along, as np.roll(x, s, axis=())
  if (shift.size() != raw.size() && shift.size() != 1 && raw.size() != 1)
    throw ValueError("roll: shift and axis must have the same length");
  // NumPy broadcasts the two lists: an empty shift against one axis rolls nothing.
  const size_t count = shift.size() == 1 ? raw.size() : shift.size();
  std::vector<int64_t> total(x.ndim(), 0);
  for (size_t i = 0; i < count; ++i) {
    int64_t a = api::normalize_axis(raw[raw.size() == 1 ? 0 : i], x.ndim());
    // Reduced as it is summed, so extreme shifts do not overflow.
    if (const int64_t n = x.shape()[a]; n > 0)
      total[a] = (total[a] + shift[shift.size() == 1 ? 0 : i] % n) % n;
  }
  Array out = x;
  for (int64_t a = 0; a < x.ndim(); ++a) {
    const int64_t n = x.shape()[a];
    if (n == 0) continue;
    const int64_t s = ((total[a] % n) + n) % n;
    if (s == 0) continue;
    std::vector<IndexItem> tail(a, Slice{}), head(a, Slice{});
    tail.push_back(slice(n - s, none));
    head.push_back(slice(none, n - s));
    out = concatenate({out.index(tail), out.index(head)}, a);
  }
  return out;
}

Array roll(const Array &x, int64_t shift, const Axes &axis) {
  return roll(x, std::vector<int64_t>{shift}, axis);
}

// A shift known at run time (JAX's _roll_dynamic): along each axis, x twice end to end, read
// from (-shift) mod n by a dynamic slice of n.
Array detail::roll_traced(const Array &x, const Array &shift, const Axes &axis) {
  if (!is_integer(shift.dtype()) || shift.ndim() > 1)
    throw TypeError(fmt::format("roll: shift must be an integer scalar or 1-D array, got {}{}",
                                dtype_name(shift.dtype()), shape_str(shift.shape())));
  if (axis.is_none()) {
    if (shift.size() != 1) throw ValueError("roll: shift must be a single value when axis is None");
    return reshape(roll(ravel(x), shift.reshape({}), 0), x.shape());
  }
  const std::vector<int64_t> &raw = axis.axes();
  if (raw.empty()) return x;
  const int64_t count = shift.ndim() == 0 ? int64_t(raw.size()) : shift.shape()[0];
  if (count != int64_t(raw.size()) && raw.size() != 1 && shift.size() != 1)
    throw ValueError("roll: shift and axis must have the same length");
  Array out = x;
  for (int64_t i = 0; i < std::max<int64_t>(count, int64_t(raw.size())); ++i) {
    const int64_t a = api::normalize_axis(raw[raw.size() == 1 ? 0 : size_t(i)], x.ndim());
    const int64_t n = x.shape()[size_t(a)];
    if (n == 0) continue;
    const Array s = (shift.ndim() == 0 ? shift : shift(shift.size() == 1 ? 0 : i)).astype(int64);
    const Array start = remainder(-s, n);
    out = lax::dynamic_slice_in_dim(concatenate({out, out}, a), start, n, a);
  }
  return out;
}

} // namespace numpy

} // namespace jx
