// lax.dynamic_slice and dynamic_update_slice (and their *_in_dim forms): slices at starts known
// only at run time. A negative start counts from the end once, as JAX's _dynamic_slice_indices;
// the ops then clamp every start so that the slice fits (XLA's semantics).
#include <jx/lax.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx::lax {

namespace {

// The starts as 0-d int64 nodes, negatives counted from the end (if allowed). `name`:
// "dynamic_slice" or "dynamic_update_slice", for JAX's errors.
std::vector<ir::NodePtr> starts_of(std::string_view name, const Array &operand,
                                   const std::vector<Array> &starts, bool allow_negative) {
  if (int64_t(starts.size()) != operand.ndim())
    throw ValueError(fmt::format("Length of slice indices must match number of operand "
                                 "dimensions ({} vs {})",
                                 starts.size(), shape_str(operand.shape())));
  // JAX: integers of one type; a C++ integer (weakly typed) takes the others'.
  std::vector<std::string> types;
  std::optional<DType> strong;
  bool mixed = false;
  for (const Array &s : starts) {
    types.emplace_back(dtype_name(s.dtype()));
    mixed = mixed || !is_integer(s.dtype()) || (!s.weak_type() && strong && *strong != s.dtype());
    if (!s.weak_type()) strong = s.dtype();
  }
  if (mixed)
    throw TypeError(fmt::format("index arguments to {} must be integers of the same type, got{} {}",
                                name, name == "dynamic_slice" ? ":" : "", fmt::join(types, ", ")));
  std::vector<ir::NodePtr> nodes;
  for (size_t k = 0; k < starts.size(); ++k) {
    const Array &s = starts[k];
    if (s.ndim() != 0)
      throw TypeError(fmt::format("start_indices arguments to {} must be scalars, got indices of "
                                  "shape {}",
                                  name, shape_str(s.shape())));
    const int64_t extent = operand.shape()[k];
    // A constant start stays one, so windows at the same place compare equal (an update reading
    // its own window runs in place).
    if (const ir::NodePtr &n = api::node_of(s);
        n->op == ir::Op::Literal && s.dtype() != DType::uint64) {
      const int64_t v = n->ivalue;
      nodes.push_back(
          ir::literal_int(allow_negative && v < 0 ? v + extent : v, DType::int64, false));
      continue;
    }
    // A uint64 start past INT64_MAX would turn negative as int64; past the end, all clamp alike.
    Array start = s.dtype() == DType::uint64
                      ? numpy::minimum(s, Array(uint64_t(extent)).astype(DType::uint64))
                      : s;
    start = start.astype(DType::int64);
    if (allow_negative && is_signed_integer(s.dtype()))
      start = numpy::where(start < 0, start + extent, start);
    nodes.push_back(api::node_of(start));
  }
  return nodes;
}

} // namespace

Array dynamic_slice(const Array &operand, const std::vector<Array> &start_indices,
                    const Shape &slice_sizes, bool allow_negative_indices) {
  std::vector<ir::NodePtr> starts =
      starts_of("dynamic_slice", operand, start_indices, allow_negative_indices);
  const Shape &shape = operand.shape();
  bool fits = slice_sizes.size() == shape.size();
  for (size_t k = 0; fits && k < shape.size(); ++k)
    fits = slice_sizes[k] <= shape[k];
  if (!fits)
    throw TypeError(fmt::format("slice slice_sizes must be less than or equal to operand shape, "
                                "got slice_sizes {} for operand shape {}.",
                                shape_str(slice_sizes), shape_str(shape)));
  for (int64_t size : slice_sizes)
    if (size < 0)
      throw TypeError(fmt::format("slice slice_sizes must be greater than or equal to zero, got "
                                  "slice_sizes of {}.",
                                  shape_str(slice_sizes)));
  return api::wrap(ir::dynamic_slice(api::node_of(operand), std::move(starts), slice_sizes));
}

Array dynamic_update_slice(const Array &operand, const Array &update,
                           const std::vector<Array> &start_indices, bool allow_negative_indices) {
  if (update.ndim() != operand.ndim())
    throw TypeError(fmt::format("dynamic_update_slice update must have the same rank as operand, "
                                "got update shape {} for operand shape {}.",
                                shape_str(update.shape()), shape_str(operand.shape())));
  std::vector<ir::NodePtr> starts =
      starts_of("dynamic_update_slice", operand, start_indices, allow_negative_indices);
  for (size_t k = 0; k < operand.shape().size(); ++k)
    if (update.shape()[k] > operand.shape()[k])
      throw TypeError(fmt::format("dynamic_update_slice update shape must be smaller than operand "
                                  "shape, got update shape {} for operand shape {}.",
                                  shape_str(update.shape()), shape_str(operand.shape())));
  // JAX's check_same_dtypes; a C++ scalar update takes the operand's type.
  if (update.dtype() != operand.dtype() && !update.weak_type())
    throw TypeError(fmt::format("lax.dynamic_update_slice requires arguments to have the same "
                                "dtypes, got {}, {}.",
                                dtype_name(operand.dtype()), dtype_name(update.dtype())));
  const ir::NodePtr value =
      ir::convert(api::node_of(update), operand.dtype(), operand.weak_type());
  return api::wrap(
      ir::dynamic_update_slice(api::node_of(operand), value, std::move(starts)));
}

namespace {
// Zeros for every axis but `axis`, which gets `start` (the zeros of start's type).
std::vector<Array> starts_in_dim(const Array &operand, const Array &start, int64_t axis) {
  std::vector<Array> starts(size_t(operand.ndim()), Array(0).astype(start.dtype()));
  starts[size_t(axis)] = start;
  return starts;
}
} // namespace

Array dynamic_slice_in_dim(const Array &operand, const Array &start_index, int64_t slice_size,
                           int64_t axis, bool allow_negative_indices) {
  const int64_t a = api::normalize_axis(axis, operand.ndim());
  Shape sizes = operand.shape();
  sizes[size_t(a)] = slice_size;
  return dynamic_slice(operand, starts_in_dim(operand, start_index, a), sizes,
                       allow_negative_indices);
}

Array dynamic_index_in_dim(const Array &operand, const Array &index, int64_t axis, bool keepdims,
                           bool allow_negative_indices) {
  const int64_t a = api::normalize_axis(axis, operand.ndim());
  const Array slice = dynamic_slice_in_dim(operand, index, 1, a, allow_negative_indices);
  return keepdims ? slice : numpy::squeeze(slice, {a});
}

Array dynamic_update_slice_in_dim(const Array &operand, const Array &update,
                                  const Array &start_index, int64_t axis,
                                  bool allow_negative_indices) {
  const int64_t a = api::normalize_axis(axis, operand.ndim());
  return dynamic_update_slice(operand, update, starts_in_dim(operand, start_index, a),
                              allow_negative_indices);
}

Array dynamic_update_index_in_dim(const Array &operand, const Array &update, const Array &index,
                                  int64_t axis, bool allow_negative_indices) {
  const int64_t a = api::normalize_axis(axis, operand.ndim());
  // An update of one rank less gets the axis (JAX's expand_dims).
  const Array value =
      update.ndim() + 1 == operand.ndim() ? numpy::expand_dims(update, {a}) : update;
  return dynamic_update_slice_in_dim(operand, value, index, a, allow_negative_indices);
}

} // namespace jx::lax
