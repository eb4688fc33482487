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

// The mean of squared deviations, divided by max(count - ddof, 0) as NumPy's (count: the elements
// where= keeps).
Array variance(const Array &x, const VarOptions &o) {
  if (is_storage_float(x.dtype())) // in float32, rounded once (jnp's _var_promote_types)
    return variance(x.astype(DType::float32), o).astype(x.dtype());
  const Array f = to_inexact(x);
  const Array centered = f - mean(f, {.axis = o.axis, .keepdims = true, .where = o.where});
  // |centered|^2: real(c conj(c)) for complex numbers (jnp's _var), c * c for reals.
  const Array total = sum(real(centered * conj(centered)),
                          {.axis = o.axis, .keepdims = o.keepdims, .where = o.where});
  if (!o.where) return total / double(std::max<int64_t>(reduced_count(x, o.axis) - o.ddof, 0));
  const Array count = sum(broadcast_to(o.where->astype(DType::bool_), x.shape()),
                          {.axis = o.axis, .keepdims = o.keepdims});
  return total / maximum(count - o.ddof, 0).astype(total.dtype());
}

Array nan_filled(const Array &x, double fill) { return where(isnan(x), full_like(x, fill), x); }

Array nan_arg(bool is_max, const Array &x, const ArgReduceOptions &o) {
  if (!is_floating(x.dtype())) return is_max ? argmax(x, o) : argmin(x, o);
  const Array filled = nan_filled(x, is_max ? -inf : inf);
  const Array index = is_max ? argmax(filled, o) : argmin(filled, o);
  const Array all_nan =
      all(isnan(x), {.axis = o.axis ? Axes(*o.axis) : Axes(), .keepdims = o.keepdims});
  return where(all_nan, full_like(index, -1), index);
}

// The count of x's elements that are not NaN (and that where= keeps).
Array not_nan_count(const Array &x, const Axes &axis, bool keepdims,
                    const std::optional<Array> &where) {
  return sum(logical_not(isnan(x)), {.axis = axis, .keepdims = keepdims, .where = where});
}

} // namespace

Array var(const Array &x, const VarOptions &options) { return variance(x, options); }
Array std(const Array &x, const VarOptions &options) { return sqrt(variance(x, options)); }

Array average(const Array &a, const AverageOptions &o) {
  if (!o.weights) return mean(a, {.axis = o.axis, .keepdims = o.keepdims});
  const Axes &axis = o.axis;
  const DType type = result_type({to_inexact(a), to_inexact(*o.weights)});
  const Array values = a.astype(type);
  Array w = o.weights->astype(type);
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
  return sum(values * w, {.axis = axis, .keepdims = o.keepdims}) /
         sum(broadcast_to(w, a.shape()), {.axis = axis, .keepdims = o.keepdims});
}

Array ptp(const Array &x, const AxisOptions &o) {
  return max(x, {.axis = o.axis, .keepdims = o.keepdims}) -
         min(x, {.axis = o.axis, .keepdims = o.keepdims});
}

Array count_nonzero(const Array &x, const AxisOptions &o) {
  return sum(x != 0, {.axis = o.axis, .keepdims = o.keepdims});
}

Array nansum(const Array &x, const ReduceOptions &o) {
  return sum(is_inexact(x.dtype()) ? nan_filled(x, 0) : x, o);
}
Array nanprod(const Array &x, const ReduceOptions &o) {
  return prod(is_inexact(x.dtype()) ? nan_filled(x, 1) : x, o);
}
// An all-NaN slice is NaN without initial; with it, the slice's result is initial (JAX's).
Array nanmax(const Array &x, const ReduceOptions &o) {
  if (!is_floating(x.dtype())) return max(x, o);
  const Array out = max(nan_filled(x, -inf), o);
  if (o.initial) return out;
  return where(all(isnan(x), {.axis = o.axis, .keepdims = o.keepdims}), full_like(out, nan), out);
}
Array nanmin(const Array &x, const ReduceOptions &o) {
  if (!is_floating(x.dtype())) return min(x, o);
  const Array out = min(nan_filled(x, inf), o);
  if (o.initial) return out;
  return where(all(isnan(x), {.axis = o.axis, .keepdims = o.keepdims}), full_like(out, nan), out);
}
Array nanmean(const Array &x, const MeanOptions &o) {
  if (!is_inexact(x.dtype())) return mean(x, o);
  const Array count = not_nan_count(x, o.axis, o.keepdims, o.where).astype(x.dtype());
  return nansum(x, {.axis = o.axis, .keepdims = o.keepdims, .where = o.where}) / count;
}
// jnp's: NaN where fewer than ddof + 1 values are not NaN.
Array nanvar(const Array &x, const VarOptions &o) {
  if (!is_inexact(x.dtype())) return var(x, o);
  const Array centered =
      where(isnan(x), zeros_like(x),
            x - nanmean(x, {.axis = o.axis, .keepdims = true, .where = o.where}));
  const Array normalizer = not_nan_count(x, o.axis, o.keepdims, o.where) - o.ddof;
  const Array total =
      sum(centered * centered, {.axis = o.axis, .keepdims = o.keepdims, .where = o.where});
  const Array too_few = normalizer <= 0;
  return where(too_few, full_like(total, nan), total) /
         where(too_few, ones_like(normalizer), normalizer).astype(x.dtype());
}
Array nanstd(const Array &x, const VarOptions &options) { return sqrt(nanvar(x, options)); }
Array nanargmax(const Array &x, const ArgReduceOptions &options) {
  return nan_arg(true, x, options);
}
Array nanargmin(const Array &x, const ArgReduceOptions &options) {
  return nan_arg(false, x, options);
}

Array cov(const Array &m, const CovOptions &o) {
  const std::optional<Array> &y = o.y;
  const bool rowvar = o.rowvar;
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
  const int64_t factor = std::max<int64_t>(x.shape()[1] - o.ddof.value_or(o.bias ? 0 : 1), 0);
  const Array centered = x - mean(x, {.axis = 1, .keepdims = true});
  return squeeze(matmul(centered, conj(transpose(centered))) * (1.0 / double(factor)));
}

Array corrcoef(const Array &x, const CorrcoefOptions &o) {
  const Array c = cov(x, {.y = o.y, .rowvar = o.rowvar});
  if (c.ndim() == 0) return c / c;
  const Array stddev = sqrt(diagonal(c));
  return clip(c / expand_dims(stddev, 1) / expand_dims(stddev, 0), -1, 1);
}

Array histogram_bin_edges(const Array &a, const BinEdgesOptions &o) {
  const Bins &bins = o.bins;
  const std::optional<Range> &range = o.range;
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
  return linspace(lo, hi, {.num = count + 1, .dtype = x.dtype()});
}

namespace {
// NumPy's histogram over equal bins: a value's bin from its distance to the first edge, moved by
// one where rounding put it on the wrong side of an edge (so it agrees with the edges, as a search
// would), without a search's log2(bins) gathers. The correction absorbs a rounding of the estimate
// too, so it multiplies where NumPy divides, and converts through int32 (a vector instruction on
// AVX2, where int64 has none). The last bin is closed; values outside the edges and NaNs drop.
Array equal_bin_counts(const Array &x, const Array &w, const Array &edges) {
  const int64_t bins = edges.size() - 1;
  const Array v = x.astype(edges.dtype()), first = edges(0), last = edges(-1);
  const Array kept = (v >= first) & (v <= last);
  // In float64 whatever the edges' type: float32's rounding would be a bin off past 2^24 bins.
  const auto wide = [](const Array &a) { return a.astype(DType::float64); };
  const Array estimate =
      clip(where(kept, (wide(v) - wide(first)) * (double(bins) / (wide(last) - wide(first))), 0.0),
           0, double(bins - 1));
  const auto edge = [&](const Array &i) {
    return api::wrap(ir::take(api::node_of(edges), api::node_of(i), 0, false));
  };
  Array bin = bins < (int64_t(1) << 31) ? estimate.astype(DType::int32).astype(DType::int64)
                                        : estimate.astype(DType::int64);
  bin = where(v < edge(bin), bin - 1, bin);
  bin = where((v >= edge(bin + 1)) & (bin != bins - 1), bin + 1, bin);
  return zeros({bins}, w.dtype()).at(where(kept, bin, Array(bins))).add(w);
}
} // namespace

std::pair<Array, Array> histogram(const Array &a, const HistogramOptions &o) {
  const std::optional<Array> &weights = o.weights;
  if (weights && weights->shape() != a.shape())
    throw ValueError("weights should have the same shape as a.");
  const Array x = ravel(a), w = weights ? ravel(*weights) : ones(x.shape(), x.dtype());
  const Array edges = histogram_bin_edges(x, o.bins, o.range);
  const int64_t n = edges.size();
  Array counts;
  if (std::holds_alternative<int64_t>(o.bins)) {
    counts = equal_bin_counts(x, w, edges);
  } else {
    // The last bin is closed: a value equal to the last edge goes in it; others out of range drop.
    Array bin = searchsorted(edges, x, "right");
    bin = where(x == edges(-1), Array(n - 1), bin);
    counts = zeros({n}, w.dtype()).at(bin).add(w)(jx::slice(1, std::nullopt));
  }
  if (o.density) counts = counts / diff(edges) / sum(counts);
  return {counts, edges};
}

std::pair<Array, std::vector<Array>> histogramdd(const Array &sample, const HistogramddOptions &o) {
  const std::vector<Bins> &bins = o.bins;
  const std::optional<std::vector<Range>> &range = o.range;
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
  Array hist = bincount(flat, {.weights = o.weights, .length = shape_size(nbins)}).reshape(nbins);
  std::vector<IndexItem> core(size_t(d), jx::slice(1, -1));
  hist = hist.index(core);
  if (o.density) {
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
                                            const HistogramddOptions &options) {
  const auto [hist, edges] = histogramdd(stack({x, y}, 1), options);
  return {hist, edges[0], edges[1]};
}

} // namespace jx::numpy
