// Indexing (integers, slices, newaxis, ellipsis, and integer and bool arrays by NumPy's advanced
// indexing rules) and the functional x.at[...] updates: basic indexing is a slice and a reshape,
// advanced indexing a take (gather) of the sliced array, an advanced update a scatter into it.
#include <jx/array.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include <algorithm>

#include "api/internal.h"
#include "ir/printer.h"

namespace jx {

using api::NodePtr;
using api::wrap;
using ir::Op;

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

// The axes an index consumes (integers, slices, arrays), checked against the rank: at most one
// ellipsis, no more indices than axes (NumPy's errors).
int64_t consumed_axes(int64_t ndim, const std::vector<IndexItem> &items) {
  int64_t consumed = 0, ellipses = 0;
  for (const IndexItem &it : items) {
    const auto &v = it.value();
    if (std::holds_alternative<int64_t>(v) || std::holds_alternative<Slice>(v) ||
        std::holds_alternative<IndexItem::ArrayNode>(v))
      ++consumed;
    if (std::holds_alternative<Ellipsis>(v)) ++ellipses;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > ndim)
    throw IndexError(
        fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed",
                    ndim, consumed));
  return consumed;
}

ResolvedIndex resolve(const Shape &shape, const std::vector<IndexItem> &items) {
  const int64_t ndim = int64_t(shape.size()), consumed = consumed_axes(ndim, items);
  const bool ellipses = std::any_of(items.begin(), items.end(), [](const IndexItem &it) {
    return std::holds_alternative<Ellipsis>(it.value());
  });
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
        throw IndexError(fmt::format("index {} is out of bounds for axis {} with size {}",
                                     it.integer_text(), axis, n));
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

namespace {

bool is_array(const IndexItem &it) {
  return std::holds_alternative<IndexItem::ArrayNode>(it.value());
}

// An advanced index: the basic items (each advanced one a full slice), the axes of their result
// that the index arrays index, in order, the arrays as int64 broadcast to one shape, and whether
// the advanced items were adjacent (their shape then replaces them in place; else it goes first).
// Integers count as advanced (0-d arrays) beside arrays, and a bool array stands for the integer
// arrays of its nonzero places (which must be concrete), as in NumPy.
struct Advanced {
  std::vector<IndexItem> basic;
  std::vector<int64_t> axes;
  std::vector<NodePtr> indices;
  Shape index_shape;
  bool adjacent = true;
};

// The axes of the indexed array an item spans: a mask its rank, an ellipsis none (counted apart).
int64_t spanned_axes(const IndexItem &it) {
  const auto &v = it.value();
  if (const auto *a = std::get_if<IndexItem::ArrayNode>(&v))
    return (*a)->dtype == DType::bool_ ? int64_t((*a)->shape.size()) : 1;
  return std::holds_alternative<int64_t>(v) || std::holds_alternative<Slice>(v) ? 1 : 0;
}

Advanced decompose(const Shape &shape, const std::vector<IndexItem> &items) {
  const int64_t ndim = int64_t(shape.size());
  int64_t spanned = 0;
  for (const IndexItem &it : items)
    spanned += spanned_axes(it);
  std::vector<IndexItem> flat; // bools expanded, integers as 0-d arrays
  int64_t axis = 0;            // of the indexed array, where the item starts
  for (const IndexItem &it : items) {
    const int64_t at = axis;
    axis += std::holds_alternative<Ellipsis>(it.value()) ? std::max<int64_t>(ndim - spanned, 0)
                                                         : spanned_axes(it);
    if (const int64_t *i = std::get_if<int64_t>(&it.value())) {
      flat.emplace_back(Array(ir::literal_int(*i, DType::int64, false)));
      continue;
    }
    if (!is_array(it)) {
      flat.push_back(it);
      continue;
    }
    const NodePtr &a = std::get<IndexItem::ArrayNode>(it.value());
    if (a->dtype == DType::bool_) {
      if (ir::tracing() && !a->realized())
        throw IndexError(fmt::format("Array boolean indices must be concrete; got ShapedArray({})",
                                     ir::type_str(*a)));
      // A mask selects among the axes it spans, so their sizes must be its own (past the last
      // axis, consumed_axes reports too many indices).
      for (int64_t d = 0; d < int64_t(a->shape.size()) && at + d < ndim; ++d)
        if (a->shape[size_t(d)] != shape[size_t(at + d)])
          throw IndexError(fmt::format("boolean index did not match indexed array along axis {}; "
                                       "size of axis is {} but size of corresponding boolean "
                                       "axis is {}",
                                       at + d, shape[size_t(at + d)], a->shape[size_t(d)]));
      const Array mask(a);
      const std::vector<bool> values = mask.to_vector<bool>();
      const std::vector<int64_t> strides = row_major_strides(a->shape);
      std::vector<std::vector<int64_t>> coords(a->shape.size());
      for (size_t k = 0; k < values.size(); ++k)
        if (values[k])
          for (size_t d = 0; d < coords.size(); ++d)
            coords[d].push_back(int64_t(k) / strides[d] % a->shape[d]);
      for (const std::vector<int64_t> &c : coords)
        flat.emplace_back(numpy::array(c));
      if (coords.empty()) {
        // A 0-d mask: x[True] is x[None]; x[False] would be an empty new axis.
        if (!values[0]) throw NotImplementedError("indexing with a 0-d False mask");
        flat.emplace_back(NewAxis{});
      }
      continue;
    }
    if (is_inexact(a->dtype))
      throw IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                       "integer or boolean arrays are valid indices");
    flat.push_back(it);
  }
  const int64_t consumed = consumed_axes(ndim, flat);
  Advanced adv;
  int64_t out_axis = 0, last = -2, position = 0;
  std::vector<Shape> shapes;
  auto add = [&](const IndexItem &it) {
    if (is_array(it)) {
      const NodePtr &a = std::get<IndexItem::ArrayNode>(it.value());
      if (last >= 0 && last != position - 1) adv.adjacent = false;
      last = position;
      adv.axes.push_back(out_axis);
      adv.indices.push_back(api::index_node(a));
      shapes.push_back(a->shape);
      adv.basic.emplace_back(Slice{});
    } else {
      adv.basic.push_back(it);
    }
    if (!std::holds_alternative<Ellipsis>(it.value())) ++out_axis;
    ++position;
  };
  for (const IndexItem &it : flat) {
    if (std::holds_alternative<Ellipsis>(it.value())) {
      for (int64_t i = 0; i < ndim - consumed; ++i)
        add(Slice{});
      continue;
    }
    add(it);
  }
  adv.index_shape = api::broadcast_shapes(shapes);
  for (NodePtr &i : adv.indices)
    i = api::broadcast_node(i, adv.index_shape);
  return adv;
}

// The sliced array with the indexed axes first, merged: (n_1 ... n_k, rest...), and the flat
// positions of the index arrays in those merged axes: each index counted from the end when
// negative, then clamped (a read) or, past the end of any axis, set past the merged axis (an
// update: dropped).
struct Merged {
  Array lines;
  NodePtr positions;
  std::vector<int64_t> perm; // sliced axes in the order of lines' (unmerged) axes
  Shape moved_shape;         // lines' shape before the merge
};

Merged merge_indexed(const Array &sliced, const Advanced &adv, bool drop) {
  Merged m{sliced, nullptr, {}, {}};
  m.perm = adv.axes;
  for (int64_t a = 0; a < sliced.ndim(); ++a)
    if (std::find(adv.axes.begin(), adv.axes.end(), a) == adv.axes.end()) m.perm.push_back(a);
  const Array moved = numpy::transpose(sliced, m.perm);
  m.moved_shape = moved.shape();
  int64_t total = 1;
  for (int64_t a : adv.axes)
    total *= sliced.shape()[a];
  Shape merged{total};
  merged.insert(merged.end(), m.moved_shape.begin() + int64_t(adv.axes.size()),
                m.moved_shape.end());
  m.lines = numpy::reshape(moved, merged);
  const Shape &s = adv.index_shape;
  auto c = [&](int64_t v) {
    return api::broadcast_node(ir::literal_int(v, DType::int64, false), s);
  };
  NodePtr flat = c(0), inside = api::broadcast_node(ir::literal_int(1, DType::bool_, false), s);
  for (size_t i = 0; i < adv.axes.size(); ++i) {
    const int64_t n = sliced.shape()[adv.axes[i]];
    const NodePtr &idx = adv.indices[i];
    const ir::IndexBounds j = ir::index_bounds(idx, n);
    inside = ir::binary(Op::And, inside, j.inside);
    flat = ir::binary(Op::Add, ir::binary(Op::Mul, flat, c(n)), j.clamped);
  }
  m.positions = drop ? ir::select(inside, flat, c(total)) : flat;
  return m;
}

// Where the index shape's axes go in the result: in place of the first advanced axis when the
// advanced items were adjacent, else first. Returns the permutation from (index..., rest...).
std::vector<int64_t> result_order(const Advanced &adv, int64_t rest) {
  const int64_t k = int64_t(adv.index_shape.size());
  const int64_t at = adv.adjacent ? adv.axes[0] : 0;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < at; ++d)
    perm.push_back(k + d);
  for (int64_t d = 0; d < k; ++d)
    perm.push_back(d);
  for (int64_t d = at; d < rest; ++d)
    perm.push_back(k + d);
  return perm;
}

bool any_array(const std::vector<IndexItem> &items) {
  return std::any_of(items.begin(), items.end(), is_array);
}

// x[i, 1:-1, j] with 0-d integer arrays (indices known at run time) beside slices of step 1,
// integers and an ellipsis: a window of x, one element along each axis an index array or integer
// selects, read by a dynamic slice and written by a dynamic update (one fused kernel, in place
// where x dies there) rather than gathered and scattered through the whole array.
struct WindowAxis {
  enum Kind { Whole, Range, Integer, Traced } kind = Whole;
  int64_t start = 0, size = 0; // Range and Integer: where the axis's window starts, its length
  NodePtr index;               // Traced: the 0-d index array
  bool dropped() const { return kind == Integer || kind == Traced; }
};

struct Window {
  std::vector<NodePtr> starts; // per axis, int64: the index counted from the end and clamped
  Shape sizes;                 // 1 along a dropped axis, the range's length elsewhere
  std::vector<bool> dropped;   // per axis: indexed by an array or an integer
  NodePtr inside;              // every index array's index in range (bool 0-d)
};

// Per axis of x, how items read it where they make a window (above) with at least one index
// array; nullopt where they do not (None, steps other than 1, empty ranges, integers out of
// range: the general path's result or error).
std::optional<std::vector<WindowAxis>> window_axes(const Shape &shape,
                                                   const std::vector<IndexItem> &items) {
  const auto ndim = int64_t(shape.size());
  int64_t ellipses = 0, consumed = 0;
  bool traced = false;
  for (const IndexItem &it : items) {
    if (std::holds_alternative<Ellipsis>(it.value())) {
      ++ellipses;
      continue;
    }
    ++consumed;
    if (is_array(it)) {
      const NodePtr &a = std::get<IndexItem::ArrayNode>(it.value());
      if (!a->shape.empty() || !is_integer(a->dtype)) return std::nullopt;
      traced = true;
    } else if (std::holds_alternative<NewAxis>(it.value())) {
      return std::nullopt;
    }
  }
  if (!traced || ellipses > 1 || consumed > ndim) return std::nullopt;
  std::vector<WindowAxis> axes;
  for (const IndexItem &it : items) {
    if (std::holds_alternative<Ellipsis>(it.value())) {
      axes.insert(axes.end(), size_t(ndim - consumed), WindowAxis{});
      continue;
    }
    const int64_t n = shape[axes.size()];
    WindowAxis axis;
    if (is_array(it)) {
      if (n == 0) return std::nullopt; // the general path's error or drop
      axis.kind = WindowAxis::Traced;
      axis.index = std::get<IndexItem::ArrayNode>(it.value());
    } else if (const Slice *sl = std::get_if<Slice>(&it.value())) {
      int64_t start = 0, stop = 0, step = 0;
      slice_indices(*sl, n, start, stop, step);
      if (step != 1 || stop <= start) return std::nullopt;
      if (start > 0 || stop < n) axis = {WindowAxis::Range, start, stop - start, nullptr};
    } else {
      const int64_t i = std::get<int64_t>(it.value());
      if (i < -n || i >= n) return std::nullopt;
      axis = {WindowAxis::Integer, i < 0 ? i + n : i, 1, nullptr};
    }
    axes.push_back(std::move(axis));
  }
  axes.resize(size_t(ndim));
  return axes;
}

std::optional<Window> window_of(const Shape &shape, const std::vector<IndexItem> &items) {
  std::optional<std::vector<WindowAxis>> axes = window_axes(shape, items);
  if (!axes) return std::nullopt;
  Window w;
  w.inside = ir::literal_int(1, DType::bool_, false);
  for (size_t k = 0; k < shape.size(); ++k) {
    const WindowAxis &a = (*axes)[k];
    w.dropped.push_back(a.dropped());
    switch (a.kind) {
    case WindowAxis::Whole:
      w.starts.push_back(ir::literal_int(0, DType::int64, false));
      w.sizes.push_back(shape[k]);
      break;
    case WindowAxis::Range:
    case WindowAxis::Integer:
      w.starts.push_back(ir::literal_int(a.start, DType::int64, false));
      w.sizes.push_back(a.size);
      break;
    case WindowAxis::Traced: {
      const ir::IndexBounds b = ir::index_bounds(api::index_node(a.index), shape[k]);
      w.starts.push_back(b.clamped);
      w.sizes.push_back(1);
      w.inside = ir::binary(Op::And, w.inside, b.inside);
      break;
    }
    }
  }
  return w;
}

// The shape of x[items] for a window: the window's without the dropped axes.
Shape window_result(const Window &w) {
  Shape out;
  for (size_t k = 0; k < w.sizes.size(); ++k)
    if (!w.dropped[k]) out.push_back(w.sizes[k]);
  return out;
}

} // namespace

std::string IndexItem::integer_text() const {
  if (unsigned_) return fmt::format("{}", *unsigned_);
  const int64_t *i = std::get_if<int64_t>(&v_);
  return i ? fmt::format("{}", *i) : std::string();
}

Array Array::index(const std::vector<IndexItem> &items) const {
  if (!any_array(items)) {
    ResolvedIndex r = resolve(shape(), items);
    NodePtr sliced = ir::slice(node(), r.starts, r.limits, r.steps);
    return wrap(ir::reshape(sliced, r.result_shape));
  }
  if (const std::optional<Window> w = window_of(shape(), items))
    return wrap(ir::reshape(ir::dynamic_slice(node(), w->starts, w->sizes), window_result(*w)));
  const Advanced adv = decompose(shape(), items);
  const Array sliced = index(adv.basic);
  const Merged m = merge_indexed(sliced, adv, false);
  if (m.lines.shape()[0] == 0 && shape_size(adv.index_shape) > 0)
    throw IndexError("index is out of bounds for an axis of size 0");
  const Array taken = wrap(ir::take(m.lines.node(), m.positions, 0, false));
  const int64_t rest = m.lines.ndim() - 1;
  return numpy::transpose(taken, result_order(adv, rest));
}

Array At::get() const { return base_.index(items_); }

namespace {
// values (cast to base's type) broadcast to base[items]'s shape, or NumPy's error.
NodePtr fitted(const Array &values, const Array &base, const Shape &target) {
  NodePtr v = api::cast_node(values.node(), base.dtype(), base.weak_type());
  bool fits = v->shape.size() <= target.size();
  for (size_t i = 0; fits && i < v->shape.size(); ++i) {
    int64_t d = v->shape[v->shape.size() - 1 - i], t = target[target.size() - 1 - i];
    fits = d == t || d == 1;
  }
  if (!fits)
    throw ShapeError(fmt::format("could not broadcast input array from shape {} into shape {}",
                                 shape_str_compact(v->shape), shape_str_compact(target)));
  return api::broadcast_node(v, target);
}

// base with each update of values combined by a scatter op into the places items select:
// repeated places combine in order (add accumulates; set keeps the last), places out of range are
// dropped (JAX's updates).
Array scatter_into(const Array &base, const std::vector<IndexItem> &items, const Array &values,
                   Op op) {
  const Advanced adv = decompose(base.shape(), items);
  const Array sliced = base.index(adv.basic);
  const Merged m = merge_indexed(sliced, adv, true);
  const int64_t rest = m.lines.ndim() - 1;
  // The result's shape (as get() gives it), then the values in (index..., rest...) order.
  const std::vector<int64_t> order = result_order(adv, rest);
  Shape unordered = adv.index_shape;
  unordered.insert(unordered.end(), m.lines.shape().begin() + 1, m.lines.shape().end());
  Shape target;
  for (int64_t d : order)
    target.push_back(unordered[size_t(d)]);
  std::vector<int64_t> inverse(order.size());
  for (size_t d = 0; d < order.size(); ++d)
    inverse[size_t(order[d])] = int64_t(d);
  const Array v = numpy::transpose(wrap(fitted(values, base, target)), inverse);
  Shape rows{shape_size(adv.index_shape)};
  rows.insert(rows.end(), m.lines.shape().begin() + 1, m.lines.shape().end());
  const NodePtr positions = ir::reshape(m.positions, {shape_size(adv.index_shape)});
  const Array updated =
      wrap(ir::scatter(op, m.lines.node(), positions, numpy::reshape(v, rows).node(), 0));
  std::vector<int64_t> back(m.perm.size());
  for (size_t d = 0; d < m.perm.size(); ++d)
    back[size_t(m.perm[d])] = int64_t(d);
  const Array unmerged = numpy::transpose(numpy::reshape(updated, m.moved_shape), back);
  // Back into base through the basic items' slices.
  const ResolvedIndex r = resolve(base.shape(), adv.basic);
  return wrap(ir::slice_update(base.node(), ir::reshape(unmerged.node(), r.sliced_shape), r.starts,
                               r.limits, r.steps));
}

Array cast_like(const Array &values, const Array &base) {
  return wrap(api::cast_node(values.node(), base.dtype(), base.weak_type()));
}

// base with values written into a window (an index out of range drops the update, as the
// scatter would: the window keeps its own values).
Array window_set(const Array &base, const Window &w, const Array &values) {
  const NodePtr v = ir::reshape(fitted(values, base, window_result(w)), w.sizes);
  const NodePtr kept = ir::dynamic_slice(base.node(), w.starts, w.sizes);
  const NodePtr update = ir::select(api::broadcast_node(w.inside, w.sizes), v, kept);
  return wrap(ir::dynamic_update_slice(base.node(), update, w.starts));
}

// Whether an update goes through a scatter (index arrays other than a window's).
bool scatters(const Array &base, const std::vector<IndexItem> &items) {
  return any_array(items) && !window_axes(base.shape(), items);
}
} // namespace

Array At::set(const Array &values) const {
  if (any_array(items_)) {
    if (const std::optional<Window> w = window_of(base_.shape(), items_))
      return window_set(base_, *w, values);
    return scatter_into(base_, items_, values, Op::ScatterSet);
  }
  ResolvedIndex r = resolve(base_.shape(), items_);
  NodePtr update = ir::reshape(fitted(values, base_, r.result_shape), r.sliced_shape);
  return wrap(ir::slice_update(base_.node(), update, r.starts, r.limits, r.steps));
}

Array At::add(const Array &values) const {
  if (scatters(base_, items_)) return scatter_into(base_, items_, values, Op::ScatterAdd);
  return set(get() + cast_like(values, base_));
}
Array At::subtract(const Array &values) const {
  if (scatters(base_, items_))
    return scatter_into(base_, items_, -cast_like(values, base_), Op::ScatterAdd);
  return set(get() - cast_like(values, base_));
}
Array At::multiply(const Array &values) const {
  if (scatters(base_, items_)) return scatter_into(base_, items_, values, Op::ScatterMul);
  return set(get() * cast_like(values, base_));
}
// As jnp: a scatter of the reciprocals (repeated places divide in turn).
Array At::divide(const Array &values) const {
  if (scatters(base_, items_)) {
    if (!is_inexact(base_.dtype()))
      throw TypeError("x.at[idx].divide with array indices needs a float array x");
    return scatter_into(base_, items_, 1.0 / cast_like(values, base_), Op::ScatterMul);
  }
  return set(get() / cast_like(values, base_));
}
Array At::min(const Array &values) const {
  if (scatters(base_, items_)) return scatter_into(base_, items_, values, Op::ScatterMin);
  return set(numpy::minimum(get(), cast_like(values, base_)));
}
Array At::max(const Array &values) const {
  if (scatters(base_, items_)) return scatter_into(base_, items_, values, Op::ScatterMax);
  return set(numpy::maximum(get(), cast_like(values, base_)));
}

} // namespace jx
