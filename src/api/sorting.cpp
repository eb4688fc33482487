// Sorting and searching: lax.sort, jnp.sort/argsort/lexsort (ops.def's sort and argsort library
// ops: vqsort in the runtime), partition, searchsorted (a binary search of gathers, jnp's
// method="scan", or comparing against every element), digitize, interp, and the order statistics
// (median, quantile, percentile and their nan forms) over sorted lines.
#include <jx/lax.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/internal.h"

namespace jx::lax {

Array sort(const Array &operand, int64_t dimension) {
  const int64_t a = api::normalize_axis(dimension, operand.ndim());
  return api::wrap(ir::sort(api::node_of(operand), a));
}

} // namespace jx::lax

namespace jx::numpy {

using api::node_of;
using api::slice_along;
using api::wrap;

namespace {

// NumPy's total order for sorting: NaNs after every number.
Array sort_less(const Array &a, const Array &b) {
  if (!is_floating(a.dtype()) && !is_floating(b.dtype())) return a < b;
  return logical_or(a < b, logical_and(isnan(b), logical_not(isnan(a))));
}

// v[idx] for a 1-D v and int64 indices in range: a gather.
Array take_1d(const Array &v, const Array &idx) {
  return wrap(ir::take(node_of(v), node_of(idx), 0, false));
}

// x with the reduced axes last, flattened into one: (kept..., n).
Array lines_last(const Array &x, const Axes &axis) {
  const std::vector<int64_t> reduced = api::normalize_axes(axis, x.ndim());
  std::vector<int64_t> perm;
  Shape shape;
  for (int64_t a = 0; a < x.ndim(); ++a)
    if (!std::count(reduced.begin(), reduced.end(), a)) {
      perm.push_back(a);
      shape.push_back(x.shape()[a]);
    }
  int64_t n = 1;
  for (int64_t a : reduced) {
    perm.push_back(a);
    n *= x.shape()[a];
  }
  shape.push_back(n);
  return reshape(transpose(x, perm), shape);
}

// A statistic of lines_last's lines (..., qs...) back in x's axes: the reduced ones dropped, or
// kept as ones after any leading quantile axis.
Array restore_axes(const Array &stat, const Array &x, const Axes &axis, bool keepdims,
                   int64_t leading) {
  if (!keepdims) return stat;
  Shape shape(stat.shape().begin(), stat.shape().begin() + leading);
  const std::vector<int64_t> reduced = api::normalize_axes(axis, x.ndim());
  for (int64_t a = 0; a < x.ndim(); ++a)
    shape.push_back(std::count(reduced.begin(), reduced.end(), a) ? 1 : x.shape()[a]);
  return reshape(stat, shape);
}

enum class Method { Linear, Lower, Higher, Nearest, Midpoint };

Method parse_method(std::string_view method) {
  if (method == "linear") return Method::Linear;
  if (method == "lower") return Method::Lower;
  if (method == "higher") return Method::Higher;
  if (method == "nearest") return Method::Nearest;
  if (method == "midpoint") return Method::Midpoint;
  throw ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', or 'nearest'");
}

// NumPy's _lerp: a + (b - a) t, or b - (b - a)(1 - t) from t = 0.5 on (exact at t = 1).
Array lerp(const Array &a, const Array &b, const Array &t) {
  const Array diff = b - a;
  return where(t >= 0.5, b - diff * (1.0 - t), a + diff * t);
}

// Element index[...] of each line (..., n) (the nan forms' counts differ by line): a gather.
Array line_element(const Array &sorted, const Array &index) {
  return squeeze(take_along_axis(sorted, expand_dims(index, -1), -1, "clip"), -1);
}

// The q-quantile of sorted lines (..., n) whose first `count` elements are numbers: NumPy's
// virtual index q (count - 1), then the method's choice or interpolation.
Array quantile_of_sorted(const Array &sorted, double q, const Array &count, Method method) {
  const Array last = maximum(count - 1, 0);
  const Array virtual_index = q * last.astype(DType::float64);
  const Array lo = floor(virtual_index), hi = ceil(virtual_index);
  auto at = [&](const Array &position) {
    return line_element(sorted, clip(position.astype(DType::int64), 0, last));
  };
  switch (method) {
  case Method::Lower: return at(lo);
  case Method::Higher: return at(hi);
  case Method::Nearest: return at(round(virtual_index)); // halves to even, as np.around
  case Method::Midpoint:
    return lerp(at(lo), at(hi),
                where(lo == hi, zeros_like(lo), full_like(lo, 0.5)).astype(sorted.dtype()));
  case Method::Linear: break;
  }
  return lerp(at(lo), at(lo + 1), (virtual_index - lo).astype(sorted.dtype()));
}

// The same for a count known when tracing: plain slices of the lines.
Array static_quantile_of_sorted(const Array &sorted, double q, int64_t count, Method method) {
  const int64_t last = std::max<int64_t>(count - 1, 0);
  const double virtual_index = double(last) * q;
  const double lo = std::floor(virtual_index), hi = std::ceil(virtual_index);
  auto at = [&](double position) {
    return sorted(ellipsis, std::clamp<int64_t>(int64_t(position), 0, last));
  };
  auto scalar = [&](double t) { return full({}, t, sorted.dtype()); };
  switch (method) {
  case Method::Lower: return at(lo);
  case Method::Higher: return at(hi);
  case Method::Nearest: return at(std::nearbyint(virtual_index)); // halves to even
  case Method::Midpoint: return lerp(at(lo), at(hi), scalar(lo == hi ? 0 : 0.5));
  case Method::Linear: break;
  }
  return lerp(at(lo), at(lo + 1), scalar(virtual_index - lo));
}

Array quantiles(const Array &x, const std::vector<double> &qs, const Axes &axis,
                std::string_view method_name, bool keepdims, bool skip_nan, bool single,
                const char *range_error, double scale) {
  const Method method = parse_method(method_name);
  for (double q : qs)
    if (!(q >= 0 && q <= scale)) throw ValueError(range_error);
  const Array f = api::to_inexact(x);
  const Array sorted = sort(lines_last(f, axis), -1);
  const int64_t n = sorted.shape().back();
  const Array nan_count = sum(isnan(sorted), -1);
  const Array count = skip_nan ? n - nan_count : Array(n);
  std::vector<Array> out;
  for (double q : qs) {
    Array value = n == 0     ? full(sorted.shape(), nan).astype(f.dtype())(ellipsis, 0)
                  : skip_nan ? quantile_of_sorted(sorted, q / scale, count, method)
                             : static_quantile_of_sorted(sorted, q / scale, n, method);
    // A line with a NaN (without skip_nan) or with no numbers is NaN.
    const Array undefined = skip_nan ? count == 0 : nan_count > 0;
    if (n > 0) value = where(undefined, full({}, nan, value.dtype()), value);
    out.push_back(value);
  }
  if (single) return restore_axes(out[0], f, axis, keepdims, 0);
  return restore_axes(stack(out), f, axis, keepdims, 1);
}

constexpr const char *quantile_range = "Quantiles must be in the range [0, 1]";
constexpr const char *percentile_range = "Percentiles must be in the range [0, 100]";

// NumPy's median: the middle element, or the mean of the middle two; NaN for a line holding one
// (nanmedian: of the numbers alone).
Array median_of(const Array &a, const Axes &axis, bool keepdims, bool skip_nan) {
  const Array f = api::to_inexact(a);
  const Array sorted = sort(lines_last(f, axis), -1);
  const int64_t n = sorted.shape().back();
  const Array undefined = full({}, nan, sorted.dtype());
  auto middle = [&]() -> Array {
    if (n == 0)
      return broadcast_to(undefined, Shape(sorted.shape().begin(), sorted.shape().end() - 1));
    if (!skip_nan) {
      const Array value = n % 2 ? sorted(ellipsis, n / 2)
                                : (sorted(ellipsis, n / 2 - 1) + sorted(ellipsis, n / 2)) / 2;
      return where(isnan(sorted(ellipsis, n - 1)), undefined, value);
    }
    const Array count = n - sum(isnan(sorted), -1);
    const Array lo = line_element(sorted, floor_divide(maximum(count - 1, 0), 2));
    const Array hi = line_element(sorted, minimum(floor_divide(count, 2), n - 1));
    return where(count == 0, undefined, where(count % 2 == 1, hi, (lo + hi) / 2));
  };
  const Array value = middle();
  return restore_axes(value, f, axis, keepdims, 0);
}

} // namespace

Array sort(const Array &x, const SortOptions &o) {
  const std::optional<int64_t> &axis = o.axis;
  const Array in = axis ? x : ravel(x);
  const int64_t a = api::normalize_axis(axis.value_or(0), in.ndim());
  const Array sorted = lax::sort(in, a);
  return o.descending ? flip(sorted, a) : sorted;
}

// Descending and stable, as jnp: the stable ascending order of the reversed line, reversed.
Array argsort(const Array &x, const SortOptions &o) {
  const std::optional<int64_t> &axis = o.axis;
  const Array in = axis ? x : ravel(x);
  const int64_t a = api::normalize_axis(axis.value_or(0), in.ndim());
  if (!o.descending) return wrap(ir::argsort({node_of(in)}, a));
  const Array reversed = wrap(ir::argsort({node_of(flip(in, a))}, a));
  return flip((in.shape()[a] - 1) - reversed, a);
}

Array lexsort(const std::vector<Array> &keys, int64_t axis) {
  if (keys.empty()) throw TypeError("need sequence of keys with len > 0 in lexsort");
  for (const Array &k : keys)
    if (k.shape() != keys[0].shape()) throw ValueError("all keys need to be the same shape");
  const DType type = result_type(keys);
  const int64_t a = api::normalize_axis(axis, keys[0].ndim());
  std::vector<api::NodePtr> primary_first;
  for (size_t i = keys.size(); i-- > 0;)
    primary_first.push_back(node_of(keys[i].astype(type)));
  return wrap(ir::argsort(std::move(primary_first), a));
}

Array partition(const Array &x, int64_t kth, int64_t axis) {
  const int64_t a = api::normalize_axis(axis, x.ndim());
  const int64_t n = x.shape()[a];
  if (kth < -n || kth >= n) throw ValueError(fmt::format("kth(={}) out of bounds ({})", kth, n));
  return sort(x, a);
}
Array argpartition(const Array &x, int64_t kth, int64_t axis) {
  const int64_t a = api::normalize_axis(axis, x.ndim());
  const int64_t n = x.shape()[a];
  if (kth < -n || kth >= n) throw ValueError(fmt::format("kth(={}) out of bounds ({})", kth, n));
  return argsort(x, a);
}

Array searchsorted(const Array &a, const Array &v, const SearchsortedOptions &o) {
  const std::string_view side = o.side, method = o.method;
  if (a.ndim() != 1) throw ValueError("a should be 1-dimensional");
  if (side != "left" && side != "right")
    throw ValueError(fmt::format("'{}' is an invalid value for keyword 'side'", side));
  if (method != "scan" && method != "scan_unrolled" && method != "compare_all")
    throw ValueError(fmt::format("'{}' is an invalid value for keyword 'method'", method));
  const DType type = result_type({a, v});
  const Array sorted = a.astype(type), values = v.astype(type);
  const bool left = side == "left";
  if (method == "compare_all") {
    // left: the elements before v; right: those not after it.
    const Array query = expand_dims(values, -1);
    const Array before = left ? sort_less(sorted, query) : logical_not(sort_less(query, sorted));
    return sum(before, -1).astype(DType::int64);
  }
  // JAX's "scan": a binary search, ceil(log2(n + 1)) halvings of (low, high], each a gather of the
  // middle elements (one fused kernel over v, O(log n) per element).
  const int64_t n = a.size();
  Array low = zeros(values.shape(), DType::int64),
        high = full(values.shape(), Array(n), DType::int64);
  for (int64_t span = n; span > 0; span /= 2) {
    const Array mid = floor_divide(low + high, 2);
    const Array at_mid = take_1d(sorted, clip(mid, 0, std::max<int64_t>(n - 1, 0)));
    const Array go_left = left ? logical_not(sort_less(at_mid, values)) : sort_less(values, at_mid);
    low = where(go_left, low, mid);
    high = where(go_left, mid, high);
  }
  return high;
}

Array digitize(const Array &x, const Array &bins, bool right) {
  if (bins.ndim() != 1) throw ValueError("digitize: bins must be a 1-dimensional array");
  if (bins.size() == 0) return zeros(x.shape(), DType::int64);
  const std::string_view side = right ? "left" : "right";
  const int64_t n = bins.size();
  return where(bins(-1) >= bins(0), searchsorted(bins, x, side),
               n - searchsorted(flip(bins), x, side));
}

// jnp's: the segment of xp that x falls in (searchsorted, right), its end values gathered, a
// slope step of at most one spacing of eps taken flat.
Array interp(const Array &x, const Array &xp, const Array &fp, const InterpOptions &o) {
  const std::optional<Array> &left = o.left, &right = o.right;
  if (xp.ndim() != 1 || fp.ndim() != 1) throw ValueError("xp and fp must be one-dimensional");
  if (xp.size() != fp.size()) throw ValueError("fp and xp are not of the same length.");
  if (xp.size() == 0) throw ValueError("array of sample points is empty");
  const DType type = result_type({api::to_inexact(x), api::to_inexact(xp), api::to_inexact(fp)});
  const Array xf = x.astype(type), xpf = xp.astype(type), fpf = fp.astype(type);
  const int64_t n = xp.size();
  auto inside = [&]() -> Array {
    if (n == 1) return broadcast_to(fpf(0), xf.shape());
    const Array i = clip(searchsorted(xpf, xf, "right"), 1, n - 1);
    const Array x0 = take_1d(xpf, i - 1), x1 = take_1d(xpf, i);
    const Array f0 = take_1d(fpf, i - 1), f1 = take_1d(fpf, i);
    const Array dx = x1 - x0, delta = xf - x0;
    // np.spacing(eps): a step this small is taken flat (no 0/0 and no huge slope).
    const double eps = api::epsilon(type);
    const double tiny = type == DType::float32
                            ? double(std::nextafter(float(eps), 1.0f) - float(eps))
                            : std::nextafter(eps, 1.0) - eps;
    const Array flat = abs(dx) <= tiny;
    return where(flat, f0, f0 + (delta / where(flat, ones_like(dx), dx)) * (f1 - f0));
  };
  Array f = inside();
  f = where(xf < xpf(0), left ? left->astype(type) : fpf(0), f);
  return where(xf > xpf(-1), right ? right->astype(type) : fpf(-1), f);
}

Array quantile(const Array &a, double q, const QuantileOptions &o) {
  return quantiles(a, {q}, o.axis, o.method, o.keepdims, false, true, quantile_range, 1);
}
Array quantile(const Array &a, const std::vector<double> &q, const QuantileOptions &o) {
  return quantiles(a, q, o.axis, o.method, o.keepdims, false, false, quantile_range, 1);
}
Array percentile(const Array &a, double q, const QuantileOptions &o) {
  return quantiles(a, {q}, o.axis, o.method, o.keepdims, false, true, percentile_range, 100);
}
Array percentile(const Array &a, const std::vector<double> &q, const QuantileOptions &o) {
  return quantiles(a, q, o.axis, o.method, o.keepdims, false, false, percentile_range, 100);
}
Array nanquantile(const Array &a, double q, const QuantileOptions &o) {
  return quantiles(a, {q}, o.axis, o.method, o.keepdims, true, true, quantile_range, 1);
}
Array nanquantile(const Array &a, const std::vector<double> &q, const QuantileOptions &o) {
  return quantiles(a, q, o.axis, o.method, o.keepdims, true, false, quantile_range, 1);
}
Array nanpercentile(const Array &a, double q, const QuantileOptions &o) {
  return quantiles(a, {q}, o.axis, o.method, o.keepdims, true, true, percentile_range, 100);
}
Array nanpercentile(const Array &a, const std::vector<double> &q, const QuantileOptions &o) {
  return quantiles(a, q, o.axis, o.method, o.keepdims, true, false, percentile_range, 100);
}
Array median(const Array &a, const AxisOptions &o) {
  return median_of(a, o.axis, o.keepdims, false);
}
Array nanmedian(const Array &a, const AxisOptions &o) {
  return median_of(a, o.axis, o.keepdims, true);
}

} // namespace jx::numpy
