// jnp statistics composed of reductions: var, std, average, ptp, count_nonzero, the NaN-skipping
// reductions (jnp's results for all-NaN slices), cov and corrcoef; histograms as JAX computes
// them (each value's bin by searchsorted, the counts by a scatter-add).
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
  if (is_storage_float(x.dtype())) // in float32, rounded once (jnp's _var_promote_types)
    return variance(x.astype(DType::float32), axis, ddof, keepdims).astype(x.dtype());
  const Array f = to_inexact(x);
  const Array centered = f - mean(f, axis, true);
  const double normalizer = double(std::max<int64_t>(reduced_count(x, axis) - ddof, 0));
  // |centered|^2: real(c conj(c)) for complex numbers (jnp's _var), c * c for reals.
  return sum(real(centered * conj(centered)), axis, keepdims) / normalizer;
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
  return sum(is_inexact(x.dtype()) ? nan_filled(x, 0) : x, axis, keepdims);
}
Array nanprod(const Array &x, const Axes &axis, bool keepdims) {
  return prod(is_inexact(x.dtype()) ? nan_filled(x, 1) : x, axis, keepdims);
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
  if (!is_inexact(x.dtype())) return mean(x, axis, keepdims);
  const Array count = sum(logical_not(isnan(x)), axis, keepdims).astype(x.dtype());
  return nansum(x, axis, keepdims) / count;
}
// jnp's: NaN where fewer than ddof + 1 values are not NaN.
Array nanvar(const Array &x, const Axes &axis, int64_t ddof, bool keepdims) {
  if (!is_inexact(x.dtype())) return var(x, axis, ddof, keepdims);
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
  return squeeze(matmul(centered, conj(transpose(centered))) * (1.0 / double(factor)));
}

Array corrcoef(const Array &x, const std::optional<Array> &y, bool rowvar) {
  const Array c = cov(x, y, rowvar);
  if (c.ndim() == 0) return c / c;
  const Array stddev = sqrt(diagonal(c));
  return clip(c / expand_dims(stddev, 1) / expand_dims(stddev, 0), -1, 1);
}

Array histogram_bin_edges(const Array &a, const Bins &bins, const std::optional<Range> &range) {
  const Array x = to_inexact(a);
  if (const Array *edges = std::get_if<Array>(&bins)) {
    if (edges->ndim() != 1)
      throw ValueError(fmt::format("bins must be an integer or a 1-D array of edges, got shape {}",
                                   shape_str(edges->shape())));
    return edges->astype(x.dtype());
  }
  const int64_t count = std::get<int64_t>(bins);
  if (count < 1) throw ValueError("`bins` must be positive, when an integer");
  Array lo = range ? Array(range->first).astype(x.dtype()) : min(x);
  Array hi = range ? Array(range->second).astype(x.dtype()) : max(x);
  const Array flat = hi == lo; // NumPy's: a range of one value widened by half on each side
  lo = where(flat, lo - 0.5, lo);
  hi = where(flat, hi + 0.5, hi);
  return linspace(lo, hi, count + 1, true, 0, x.dtype());
}

std::pair<Array, Array> histogram(const Array &a, const Bins &bins,
                                  const std::optional<Range> &range,
                                  const std::optional<Array> &weights, bool density) {
  if (weights && weights->shape() != a.shape())
    throw ValueError("weights should have the same shape as a.");
  const Array x = ravel(a), w = weights ? ravel(*weights) : ones(x.shape(), x.dtype());
  const Array edges = histogram_bin_edges(x, bins, range);
  const int64_t n = edges.size();
  // The last bin is closed: a value equal to the last edge goes in it; others out of range drop.
  Array bin = searchsorted(edges, x, "right");
  bin = where(x == edges(-1), Array(n - 1), bin);
  Array counts = zeros({n}, w.dtype()).at(bin).add(w)(jx::slice(1, std::nullopt));
  if (density) counts = counts / diff(edges) / sum(counts);
  return {counts, edges};
}

std::pair<Array, std::vector<Array>> histogramdd(const Array &sample, const std::vector<Bins> &bins,
                                                 const std::optional<std::vector<Range>> &range,
                                                 const std::optional<Array> &weights,
                                                 bool density) {
  if (sample.ndim() != 2)
    throw ValueError(fmt::format("histogramdd: sample must be 2-dimensional (N, D), got shape {}",
                                 shape_str(sample.shape())));
  const int64_t n = sample.shape()[0], d = sample.shape()[1];
  if (range && int64_t(range->size()) != d)
    throw ValueError(fmt::format("For sample.shape=({}, {}), range must be a sequence of {} pairs "
                                 "or Nones; got {} pairs",
                                 n, d, d, range->size()));
  if (bins.size() != 1 && int64_t(bins.size()) != d)
    throw ValueError("should be a bin for each dimension.");
  std::vector<Array> bin_index, edges;
  Shape nbins;
  for (int64_t i = 0; i < d; ++i) {
    const Array column = sample(jx::slice(), i);
    const Array e =
        histogram_bin_edges(column, bins[bins.size() == 1 ? 0 : size_t(i)],
                            range ? std::optional<Range>((*range)[size_t(i)]) : std::nullopt);
    const Array idx = searchsorted(e, column, "right");
    bin_index.push_back(where(column == e(-1), idx - 1, idx));
    edges.push_back(e);
    nbins.push_back(e.size() + 1);
  }
  const Array flat = ravel_multi_index(bin_index, nbins, "clip");
  Array hist = bincount(flat, weights, 0, shape_size(nbins)).reshape(nbins);
  std::vector<IndexItem> core(size_t(d), jx::slice(1, -1));
  hist = hist.index(core);
  if (density) {
    hist = hist.astype(to_inexact(sample).dtype());
    hist = hist / sum(hist);
    for (int64_t i = 0; i < d; ++i) {
      Shape shape(size_t(d), 1);
      shape[size_t(i)] = nbins[size_t(i)] - 2;
      hist = hist / diff(edges[size_t(i)]).reshape(shape);
    }
  }
  return {hist, edges};
}

std::tuple<Array, Array, Array> histogram2d(const Array &x, const Array &y,
                                            const std::vector<Bins> &bins,
                                            const std::optional<std::vector<Range>> &range,
                                            const std::optional<Array> &weights, bool density) {
  const auto [hist, edges] = histogramdd(stack({x, y}, 1), bins, range, weights, density);
  return {hist, edges[0], edges[1]};
}

} // namespace jx::numpy
