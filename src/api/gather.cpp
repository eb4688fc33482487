// Gathers and scatters by index arrays: take, take_along_axis, put, put_along_axis (ops.def's take
// and scatter ops); nonzero and its relatives with jnp's static size (positions from a running
// count, scattered); bincount (a scatter-add); unravel_index and ravel_multi_index.
#include <jx/lax.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include <limits>

#include "api/internal.h"
#include "ir/printer.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::wrap;
using ir::Op;

namespace {

Array as_indices(const Array &indices, std::string_view name) {
  if (indices.dtype() == DType::bool_ || is_inexact(indices.dtype()))
    throw TypeError(
        fmt::format("{} requires integer indices, got {}", name, dtype_name(indices.dtype())));
  return wrap(api::index_node(node_of(indices)));
}

// jnp's fill values for reads out of range: NaN, the smallest signed integer, the largest unsigned
// one, true.
Array default_fill(DType t) {
  if (is_inexact(t)) return full({}, nan, t);
  if (t == DType::bool_) return full({}, true, t);
  return Array(ir::literal_int(api::integer_limit(t, is_unsigned(t)), t, false));
}

// Integer indices as int64 brought into [0, n) by mode ("clip", "wrap"), or left as they are
// ("fill").
Array mode_indices(const Array &raw, int64_t n, std::string_view mode, std::string_view name) {
  // A uint64 index wraps by its value, not by its saturated int64 one.
  const bool wrap_unsigned = mode == "wrap" && n > 0 && raw.dtype() == DType::uint64;
  const Array indices = as_indices(wrap_unsigned ? remainder(raw, n) : raw, name);
  if (mode == "clip") return clip(indices, 0, std::max<int64_t>(n - 1, 0));
  if (mode == "wrap") return n == 0 ? indices : remainder(indices, n);
  if (mode != "fill")
    throw ValueError(fmt::format("Invalid mode '{}' for jnp.take; expected 'fill', 'clip' or "
                                 "'wrap'",
                                 mode));
  return indices;
}

// Out of range (below -n or from n on) for a "fill" read.
Array outside(const Array &indices, int64_t n) { return logical_or(indices < -n, indices >= n); }

void require_concrete(const Array &a, std::string_view name) {
  api::require_concrete(a, fmt::format("The size argument of jnp.{} must be statically specified "
                                       "to use jnp.{} within JAX transformations.",
                                       name, name));
}

// The flat positions of a's nonzero elements, the first `size` of them (padded with -1): each
// element's place among the nonzero ones is the running count before it.
Array nonzero_positions(const Array &a, std::optional<int64_t> size, std::string_view name) {
  const Array flags = ravel(a != 0);
  if (!size) {
    require_concrete(a, name);
    size = count_nonzero(flags).item<int64_t>();
  }
  const Array rank = cumsum(flags) - 1;
  const Array slot = where(flags, rank, Array(*size)); // zeros go past the end: dropped
  const Array none = full({*size}, int64_t(-1), DType::int64);
  return wrap(ir::scatter(Op::ScatterSet, node_of(none), node_of(slot),
                          node_of(arange(flags.size(), DType::int64)), 0));
}

} // namespace

Array take(const Array &a, const Array &indices, const TakeOptions &o) {
  const std::optional<int64_t> &axis = o.axis;
  const std::string_view mode = o.mode;
  const Array x = axis ? a : ravel(a);
  const int64_t ax = api::normalize_axis(axis.value_or(0), x.ndim());
  const int64_t n = x.shape()[ax];
  const Array idx = mode_indices(indices, n, mode, "take");
  if (n == 0 && idx.size() > 0)
    throw IndexError("Cannot do a non-empty jnp.take() from an empty axis.");
  const Array taken = wrap(ir::take(node_of(x), node_of(idx), ax, mode == "fill"));
  if (mode != "fill") return taken;
  // Out-of-range places read as the fill value, along the indices' axes of the result.
  Shape mask_shape(size_t(ax), 1);
  mask_shape.insert(mask_shape.end(), idx.shape().begin(), idx.shape().end());
  mask_shape.resize(size_t(taken.ndim()), 1);
  const Array fill = o.fill_value ? o.fill_value->astype(x.dtype()) : default_fill(x.dtype());
  return where(reshape(outside(idx, n), mask_shape), fill, taken);
}

// arr[..., indices[..., j, ...], ...] along axis: one take from the flattened array at each
// element's flat position (the indices broadcast with arr's other axes, as NumPy's).
Array take_along_axis(const Array &arr, const Array &indices, std::optional<int64_t> axis,
                      std::string_view mode) {
  const Array x = axis ? arr : ravel(arr);
  const Array idx0 = as_indices(indices, "take_along_axis");
  if (idx0.ndim() != x.ndim())
    throw ValueError(fmt::format("indices and arr must have the same number of dimensions; {} "
                                 "vs. {}",
                                 idx0.ndim(), x.ndim()));
  const int64_t ax = api::normalize_axis(axis.value_or(0), x.ndim());
  const int64_t n = x.shape()[ax];
  Shape out_shape = x.shape();
  out_shape[ax] = idx0.shape()[ax];
  out_shape = api::broadcast_shapes({out_shape, idx0.shape()});
  std::vector<Shape> check{x.shape(), out_shape};
  check[0][ax] = out_shape[ax];
  api::broadcast_shapes(check); // arr's other axes broadcast against the indices'
  // JAX counts negative indices from the end before clipping them (index_bounds below does), where
  // take's clip (NumPy's) clips them to 0.
  const Array idx = broadcast_to(
      mode == "clip" ? idx0 : mode_indices(indices, n, mode, "take_along_axis"), out_shape);
  const ir::IndexBounds j = ir::index_bounds(node_of(idx), n);
  const Array inside = wrap(j.inside);
  Array flat = zeros(out_shape, DType::int64);
  const std::vector<int64_t> strides = row_major_strides(x.shape());
  for (int64_t d = 0; d < x.ndim(); ++d) {
    const Array coord = d == ax             ? wrap(j.clamped)
                        : x.shape()[d] == 1 ? zeros(out_shape, DType::int64)
                                            : wrap(ir::iota(DType::int64, out_shape, d));
    flat = flat + coord * strides[size_t(d)];
  }
  if (x.size() == 0 && flat.size() > 0)
    throw IndexError("Cannot do a non-empty take_along_axis from an empty array.");
  const Array taken = wrap(ir::take(node_of(ravel(x)), node_of(flat), 0, false));
  if (mode != "fill") return taken;
  return where(inside, taken, default_fill(x.dtype()));
}

Array put(const Array &a, const Array &indices, const Array &values, std::string_view mode) {
  const Array flat = ravel(a);
  const Array idx = ravel(mode_indices(indices, flat.size(), mode, "put"));
  const Array v = broadcast_to(ravel(values.astype(a.dtype())), idx.shape());
  return reshape(wrap(ir::scatter(Op::ScatterSet, node_of(flat), node_of(idx), node_of(v), 0)),
                 a.shape());
}

Array put_along_axis(const Array &arr, const Array &indices, const Array &values,
                     std::optional<int64_t> axis) {
  const Array x = axis ? arr : ravel(arr);
  const int64_t ax = api::normalize_axis(axis.value_or(0), x.ndim());
  const Array idx = as_indices(indices, "put_along_axis");
  if (idx.ndim() != x.ndim())
    throw ValueError(fmt::format("indices and arr must have the same number of dimensions; {} "
                                 "vs. {}",
                                 idx.ndim(), x.ndim()));
  std::vector<IndexItem> items;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (d == ax) {
      items.emplace_back(idx);
      continue;
    }
    Shape along(size_t(x.ndim()), 1);
    along[size_t(d)] = x.shape()[d];
    items.emplace_back(reshape(arange(x.shape()[d]), along));
  }
  const Array out = At(x, items).set(values);
  return axis ? out : reshape(out, arr.shape());
}

std::vector<Array> nonzero(const Array &a, const NonzeroOptions &o) {
  if (a.ndim() == 0)
    throw ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar)"
                     ".nonzero() instead.");
  const Array positions = nonzero_positions(a, o.size, "nonzero");
  const Array padded = positions < 0;
  std::vector<Array> out;
  const std::vector<int64_t> strides = row_major_strides(a.shape());
  for (int64_t d = 0; d < a.ndim(); ++d) {
    const Array coord = remainder(floor_divide(positions, strides[size_t(d)]), a.shape()[d]);
    out.push_back(where(padded, Array(o.fill_value), coord));
  }
  return out;
}

Array flatnonzero(const Array &a, const NonzeroOptions &o) {
  const Array positions = nonzero_positions(a, o.size, "flatnonzero");
  return where(positions < 0, Array(o.fill_value), positions);
}

Array argwhere(const Array &a, const NonzeroOptions &options) {
  const Array x = atleast_1d(a);
  std::vector<Array> coords = nonzero(x, options);
  const Array out = stack(coords, 1);
  return a.ndim() == 0 ? out(slice(), slice(0, 0)) : out;
}

std::vector<Array> where(const Array &condition) { return nonzero(condition); }

Array extract(const Array &condition, const Array &arr, const SizeOptions &o) {
  const Array positions = nonzero_positions(condition, o.size, "extract");
  const Array flat = ravel(arr);
  const Array taken = wrap(ir::take(node_of(flat), node_of(maximum(positions, 0)), 0, false));
  return where(positions < 0, full({}, o.fill_value.value_or(0), flat.dtype()), taken);
}

Array compress(const Array &condition, const Array &a, const CompressOptions &o) {
  const std::optional<int64_t> &axis = o.axis;
  if (condition.ndim() != 1) throw ValueError("condition must be a 1D array");
  const Array x = axis ? a : ravel(a);
  const int64_t ax = api::normalize_axis(axis.value_or(0), x.ndim());
  const Array cond = condition.astype(DType::bool_);
  const int64_t n = std::min(cond.size(), x.shape()[ax]);
  const Array kept = api::slice_along(cond, 0, 0, n);
  const Array positions = nonzero_positions(kept, o.size, "compress");
  const Array taken = wrap(ir::take(node_of(x), node_of(maximum(positions, 0)), ax, false));
  Shape mask_shape(size_t(x.ndim()), 1);
  mask_shape[size_t(ax)] = positions.size();
  return where(reshape(positions < 0, mask_shape), full({}, o.fill_value.value_or(0), x.dtype()),
               taken);
}

Array bincount(const Array &x, const BincountOptions &o) {
  const std::optional<Array> &weights = o.weights;
  const int64_t minlength = o.minlength;
  std::optional<int64_t> length = o.length;
  if (x.ndim() != 1) throw ValueError("bincount only accepts 1-dimensional input");
  if (is_inexact(x.dtype()))
    throw TypeError(fmt::format("x argument to bincount must have an integer type; got {}",
                                dtype_name(x.dtype())));
  if (minlength < 0) throw ValueError("minlength must be non-negative");
  // NumPy's check where x can be read; traced, negative values count as 0 (JAX's clip).
  if (is_signed_integer(x.dtype()) && api::is_concrete(x) && any(x < 0).item<bool>())
    throw ValueError("'list' argument must have no negative elements");
  if (!length) {
    require_concrete(x, "bincount");
    const int64_t top = x.size() ? max(x).item<int64_t>() : -1;
    length = std::max(minlength, top + 1);
  }
  const Array w =
      weights ? weights->astype(result_type({*weights, Array(0)})) : ones(x.shape(), default_int);
  // JAX's clip of negative values to 0 (only traced values can be negative here); values past
  // the end are dropped.
  const Array idx = maximum(wrap(api::index_node(node_of(x))), 0);
  return wrap(ir::scatter(Op::ScatterAdd, node_of(zeros({*length}, w.dtype())), node_of(idx),
                          node_of(w), 0));
}

std::vector<Array> unravel_index(const Array &indices, const Shape &shape) {
  const Array idx = as_indices(indices, "unravel_index");
  int64_t total = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ValueError("negative dimensions are not allowed");
    total *= d;
  }
  // jnp's: indices out of range clipped into it (negative ones count from the end).
  const Array j = clip(where(idx < 0, idx + total, idx), 0, std::max<int64_t>(total - 1, 0));
  std::vector<Array> out;
  const std::vector<int64_t> strides = row_major_strides(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    out.push_back(remainder(floor_divide(j, strides[d]), shape[d]));
  return out;
}

namespace {
// mode="raise": NumPy's check of every coordinate, which JAX makes on concrete indices only.
void require_in_range(const Array &i, int64_t n) {
  api::require_concrete(i, "ravel_multi_index with mode='raise' needs concrete indices: the error "
                           "occurred because ravel_multi_index was jit-compiled with "
                           "mode='raise'. Use mode='wrap' or mode='clip' instead.");
  if (any(logical_or(i < 0, i >= n)).item<bool>())
    throw ValueError("invalid entry in coordinates array");
}
} // namespace

Array ravel_multi_index(const std::vector<Array> &multi_index, const Shape &dims,
                        std::string_view mode) {
  if (multi_index.size() != dims.size())
    throw ValueError(
        fmt::format("parameter multi_index must be a sequence of length {}", dims.size()));
  const std::vector<int64_t> strides = row_major_strides(dims);
  Array out = zeros({}, DType::int64);
  for (size_t d = 0; d < dims.size(); ++d) {
    Array i = as_indices(multi_index[d], "ravel_multi_index");
    if (mode == "clip")
      i = clip(i, 0, std::max<int64_t>(dims[d] - 1, 0));
    else if (mode == "wrap")
      i = remainder(i, dims[d]);
    else if (mode != "raise")
      throw ValueError(fmt::format("invalid mode={}. Expected 'raise', 'wrap', or 'clip'", mode));
    else
      require_in_range(i, dims[d]);
    out = out + i * strides[d];
  }
  return out;
}

} // namespace jx::numpy
