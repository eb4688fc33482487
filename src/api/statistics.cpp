// jnp statistics composed of reductions: var, std, average, ptp, count_nonzero, the NaN-skipping
// reductions (jnp's results for all-NaN slices), cov and corrcoef.
#include <jx/numpy.h>

#include <fmt/format.h>

#include <limits>

#include "api/internal.h"

namespace jx::numpy {

using api::to_inexact;

namespace {

int64_t reduced_count(const Array &x, const Axes &axis) {
  int64_t count = 1;
  for (int64_t a : api::normalize_axes(axis, x.ndim()))
    count *= x.shape()[a];
  return count;
}

// The mean of squared deviations, divided by max(count - ddof, 0) as NumPy's.
Array variance(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  const Array f = to_inexact(x);
  const Array centered = f - mean(f, axis, true);
  const double normalizer = double(std::max<int64_t>(reduced_count(x, axis) - ddof, 0));
  return sum(centered * centered, axis, keepdims) / normalizer;
}

Array nan_filled(const Array &x, double fill) { return where(isnan(x), full_like(x, fill), x); }

Array nan_arg(bool is_max, const Array &x, std::optional<int64_t> axis, bool keepdims) {
  if (!is_floating(x.dtype()))
    return is_max ? argmax(x, axis, keepdims) : argmin(x, axis, keepdims);
  const Array filled = nan_filled(x, is_max ? -inf : inf);
  const Array index = is_max ? argmax(filled, axis, keepdims) : argmin(filled, axis, keepdims);
  const Array all_nan = axis ? all(isnan(x), *axis, keepdims) : all(isnan(x), {}, keepdims);
  return where(all_nan, full_like(index, -1), index);
}

} // namespace

Array var(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  return variance(x, axis, ddof, keepdims);
}
Array std(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  return sqrt(variance(x, axis, ddof, keepdims));
}

Array average(const Array &a, const Axes &axis, const std::optional<Array> &weights,
              bool keepdims) {
  if (!weights) return mean(a, axis, keepdims);
  const DType type = result_type({to_inexact(a), to_inexact(*weights)});
  const Array values = a.astype(type);
  Array w = weights->astype(type);
  if (a.shape() != w.shape()) {
    if (axis.is_none())
      throw ValueError("Axis must be specified when shapes of a and weights differ.");
    if (w.ndim() != 1) throw ValueError("1D weights expected when shapes of a and weights differ.");
    if (axis.axes().size() != 1)
      throw ValueError("Single axis expected when shapes of a and weights differ");
    const int64_t ax = api::normalize_axis(axis.axes()[0], a.ndim());
    if (w.shape()[0] != a.shape()[ax])
      throw ValueError("Length of weights not compatible with specified axis.");
    Shape along(a.ndim(), 1);
    along[ax] = w.shape()[0];
    w = reshape(w, along);
  }
  return sum(values * w, axis, keepdims) / sum(broadcast_to(w, a.shape()), axis, keepdims);
}

Array ptp(const Array &x, const Axes &axis, bool keepdims) {
  return max(x, axis, keepdims) - min(x, axis, keepdims);
}

Array count_nonzero(const Array &x, const Axes &axis, bool keepdims) {
  return sum(x != 0, axis, keepdims);
}

Array nansum(const Array &x, const Axes &axis, bool keepdims) {
  return sum(is_floating(x.dtype()) ? nan_filled(x, 0) : x, axis, keepdims);
}
Array nanprod(const Array &x, const Axes &axis, bool keepdims) {
  return prod(is_floating(x.dtype()) ? nan_filled(x, 1) : x, axis, keepdims);
}
Array nanmax(const Array &x, const Axes &axis, bool keepdims) {
  if (!is_floating(x.dtype())) return max(x, axis, keepdims);
  const Array out = max(nan_filled(x, -inf), axis, keepdims);
  return where(all(isnan(x), axis, keepdims), full_like(out, nan), out);
}
Array nanmin(const Array &x, const Axes &axis, bool keepdims) {
  if (!is_floating(x.dtype())) return min(x, axis, keepdims);
  const Array out = min(nan_filled(x, inf), axis, keepdims);
  return where(all(isnan(x), axis, keepdims), full_like(out, nan), out);
}
Array nanmean(const Array &x, const Axes &axis, bool keepdims) {
  if (!is_floating(x.dtype())) return mean(x, axis, keepdims);
  const Array count = sum(logical_not(isnan(x)), axis, keepdims).astype(x.dtype());
  return nansum(x, axis, keepdims) / count;
}
// jnp's: NaN where fewer than ddof + 1 values are not NaN.
Array nanvar(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  if (!is_floating(x.dtype())) return var(x, axis, ddof, keepdims);
  const Array centered = where(isnan(x), zeros_like(x), x - nanmean(x, axis, true));
  const Array normalizer = sum(logical_not(isnan(x)), axis, keepdims) - ddof;
  const Array total = sum(centered * centered, axis, keepdims);
  const Array too_few = normalizer <= 0;
  return where(too_few, full_like(total, nan), total) /
         where(too_few, ones_like(normalizer), normalizer).astype(x.dtype());
}
Array nanstd(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  return sqrt(nanvar(x, axis, ddof, keepdims));
}
Array nanargmax(const Array &x, std::optional<int64_t> axis, bool keepdims) {
  return nan_arg(true, x, axis, keepdims);
}
Array nanargmin(const Array &x, std::optional<int64_t> axis, bool keepdims) {
  return nan_arg(false, x, axis, keepdims);
}

Array cov(const Array &m, const std::optional<Array> &y, bool rowvar, bool bias,
          std::optional<int64_t> ddof) {
  if (m.ndim() > 2) throw ValueError("m has more than 2 dimensions");
  if (y && y->ndim() > 2) throw ValueError("y has more than 2 dimensions");
  const DType type = y ? result_type({to_inexact(m), to_inexact(*y)}) : to_inexact(m).dtype();
  auto variables = [&](const Array &v) {
    Array x = atleast_2d(v.astype(type));
    return !rowvar && x.shape()[0] != 1 ? transpose(x) : x;
  };
  Array x = variables(m);
  if (x.shape()[0] == 0) return zeros({0, 0}, type);
  if (y) x = concatenate({x, variables(*y)}, 0);
  const int64_t factor = std::max<int64_t>(x.shape()[1] - ddof.value_or(bias ? 0 : 1), 0);
  const Array centered = x - mean(x, 1, true);
  return squeeze(matmul(centered, transpose(centered)) * (1.0 / double(factor)));
}

Array corrcoef(const Array &x, const std::optional<Array> &y, bool rowvar) {
  const Array c = cov(x, y, rowvar);
  if (c.ndim() == 0) return c / c;
  const Array stddev = sqrt(diagonal(c));
  return clip(c / expand_dims(stddev, 1) / expand_dims(stddev, 0), -1, 1);
}

} // namespace jx::numpy
