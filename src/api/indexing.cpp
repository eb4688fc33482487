// Basic indexing (integers, slices, newaxis, ellipsis) and the functional x.at[...] updates.
#include <jx/array.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx {

using api::NodePtr;
using api::wrap;

namespace {

// An index expression resolved against a shape: a strided slice of every axis, then a reshape
// that drops integer-indexed axes and inserts new ones.
struct ResolvedIndex {
  std::vector<int64_t> starts, limits, steps;
  Shape sliced_shape; // rank of the operand
  Shape result_shape;
};

// Python's slice.indices(n).
void slice_indices(const Slice &s, int64_t n, int64_t &start, int64_t &stop, int64_t &step) {
  step = s.step.value_or(1);
  if (step == 0) throw ValueError("slice step cannot be zero");
  const int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + n : *v;
    return x < lower ? lower : x > upper ? upper : x;
  };
  start = clamp(s.start, step > 0 ? lower : upper);
  stop = clamp(s.stop, step > 0 ? upper : lower);
}

ResolvedIndex resolve(const Shape &shape, const std::vector<IndexItem> &items) {
  const int64_t ndim = int64_t(shape.size());
  int64_t consumed = 0, ellipses = 0;
  for (const IndexItem &it : items) {
    if (std::holds_alternative<int64_t>(it.value()) || std::holds_alternative<Slice>(it.value()))
      ++consumed;
    if (std::holds_alternative<Ellipsis>(it.value())) ++ellipses;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > ndim)
    throw IndexError(
        fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed",
                    ndim, consumed));
  std::vector<IndexItem> expanded;
  for (const IndexItem &it : items) {
    if (std::holds_alternative<Ellipsis>(it.value())) {
      for (int64_t i = 0; i < ndim - consumed; ++i)
        expanded.emplace_back(Slice{});
    } else {
      expanded.push_back(it);
    }
  }
  if (!ellipses)
    for (int64_t i = 0; i < ndim - consumed; ++i)
      expanded.emplace_back(Slice{});

  ResolvedIndex r;
  int64_t axis = 0;
  for (const IndexItem &it : expanded) {
    const auto &v = it.value();
    if (std::holds_alternative<NewAxis>(v)) {
      r.result_shape.push_back(1);
      continue;
    }
    const int64_t n = shape[axis];
    if (const int64_t *i = std::get_if<int64_t>(&v)) {
      if (*i < -n || *i >= n)
        throw IndexError(
            fmt::format("index {} is out of bounds for axis {} with size {}", *i, axis, n));
      int64_t at = *i < 0 ? *i + n : *i;
      r.starts.push_back(at);
      r.limits.push_back(at + 1);
      r.steps.push_back(1);
      r.sliced_shape.push_back(1);
    } else {
      int64_t start, stop, step;
      slice_indices(std::get<Slice>(v), n, start, stop, step);
      int64_t len = ir::slice_length(start, stop, step);
      if (len == 0) start = 0, stop = 0, step = 1;
      // One element: step 1, so no backend negates a huge step (-INT64_MIN overflows).
      if (len == 1) stop = start + 1, step = 1;
      r.starts.push_back(start);
      r.limits.push_back(stop);
      r.steps.push_back(step);
      r.sliced_shape.push_back(len);
      r.result_shape.push_back(len);
    }
    ++axis;
  }
  return r;
}

} // namespace

Array Array::index(const std::vector<IndexItem> &items) const {
  ResolvedIndex r = resolve(shape(), items);
  NodePtr sliced = ir::slice(node(), r.starts, r.limits, r.steps);
  return wrap(ir::reshape(sliced, r.result_shape));
}

Array At::get() const { return base_.index(items_); }

Array At::set(const Array &values) const {
  ResolvedIndex r = resolve(base_.shape(), items_);
  NodePtr v = api::cast_node(values.node(), base_.dtype(), base_.weak_type());
  bool fits = v->shape.size() <= r.result_shape.size();
  for (size_t i = 0; fits && i < v->shape.size(); ++i) {
    int64_t d = v->shape[v->shape.size() - 1 - i],
            t = r.result_shape[r.result_shape.size() - 1 - i];
    fits = d == t || d == 1;
  }
  if (!fits)
    throw ShapeError(fmt::format("could not broadcast input array from shape {} into shape {}",
                                 shape_str_compact(v->shape), shape_str_compact(r.result_shape)));
  NodePtr update = ir::reshape(api::broadcast_node(v, r.result_shape), r.sliced_shape);
  return wrap(ir::slice_update(base_.node(), update, r.starts, r.limits, r.steps));
}

namespace {
Array cast_like(const Array &values, const Array &base) {
  return wrap(api::cast_node(values.node(), base.dtype(), base.weak_type()));
}
} // namespace

Array At::add(const Array &values) const { return set(get() + cast_like(values, base_)); }
Array At::subtract(const Array &values) const { return set(get() - cast_like(values, base_)); }
Array At::multiply(const Array &values) const { return set(get() * cast_like(values, base_)); }
Array At::divide(const Array &values) const { return set(get() / cast_like(values, base_)); }
Array At::min(const Array &values) const {
  return set(numpy::minimum(get(), cast_like(values, base_)));
}
Array At::max(const Array &values) const {
  return set(numpy::maximum(get(), cast_like(values, base_)));
}

} // namespace jx
