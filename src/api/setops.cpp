// jnp's set routines as JAX writes them: unique (the rows along an axis sorted stably, the first of
// each run kept; jnp's static size and fill_value), its array API forms, and union1d, intersect1d,
// setdiff1d and setxor1d over sorted unique values. Without a size the count must be concrete.
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx::numpy {

using api::slice_along;

namespace {

constexpr const char *unique_size_hint =
    "To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete "
    "value for the size argument, which will determine the output size.";

Array first_rows(const Array &x) { return slice_along(x, 0, std::nullopt, -1); }
Array later_rows(const Array &x) { return slice_along(x, 0, 1, std::nullopt); }

// x's rows (axis moved first) sorted stably, a flag on the first of each run of equal rows (NaNs
// equal when equal_nan), and the rows' original positions.
struct SortedRuns {
  Array aux, mask, perm;
};

SortedRuns sorted_runs(const Array &ar, int64_t axis, bool equal_nan) {
  const Array moved = moveaxis(ar, axis, 0);
  const int64_t n = moved.shape()[0], rest = n ? moved.size() / n : 0;
  Array perm = zeros({0}, DType::int64);
  if (rest == 0 || n == 0) {
    perm = zeros({std::min<int64_t>(n, 1)}, DType::int64);
  } else if (moved.ndim() == 1) {
    perm = argsort(moved, 0);
  } else {
    // lexsort's last key is the primary one: the rows' first column.
    const Array rows = moved.reshape({n, rest});
    std::vector<Array> keys;
    for (int64_t c = rest - 1; c >= 0; --c)
      keys.push_back(rows(jx::slice(), c));
    perm = lexsort(keys, -1);
  }
  const Array aux = n ? take(moved, perm, {.axis = 0, .mode = "clip"}) : moved;
  if (aux.size() == 0) return {aux, zeros({perm.size()}, DType::bool_), perm};
  const Array a = later_rows(aux), b = first_rows(aux);
  Array differ = a != b;
  if (is_floating(aux.dtype()) && equal_nan)
    differ = logical_and(differ, logical_not(logical_and(isnan(a), isnan(b))));
  std::vector<int64_t> rest_axes;
  for (int64_t d = 1; d < aux.ndim(); ++d)
    rest_axes.push_back(d);
  if (!rest_axes.empty()) differ = any(differ, rest_axes);
  return {aux, concatenate({ones({1}, DType::bool_), differ}), perm};
}

struct UniqueParts {
  Array values, indices, inverse, counts, count;
};

// JAX's _unique: the parts along axis (indices: each value's first position; inverse: each row's
// value; counts: its run's length; count: how many values there are).
UniqueParts unique_parts(const Array &ar, int64_t axis, bool equal_nan, std::optional<int64_t> size,
                         const std::optional<Array> &fill_value) {
  axis = api::normalize_axis(axis, ar.ndim());
  const int64_t extent = ar.shape()[size_t(axis)];
  if (extent == 0 && size && *size && !fill_value)
    throw ValueError("jnp.unique: for zero-sized input with nonzero size argument, fill_value must "
                     "be specified");
  const SortedRuns s = sorted_runs(ar, axis, equal_nan);
  const Array count = sum(s.mask).astype(DType::int64);
  const int64_t rows = size ? *size : count.item<int64_t>();
  const Array ind = flatnonzero(s.mask, {.size = rows});
  Array result = s.aux.size() ? take(s.aux, ind, {.axis = 0, .mode = "clip"}) : s.aux;
  if (size && fill_value) {
    const Array fill = fill_value->astype(result.dtype());
    if (result.shape()[0]) {
      Shape valid_shape(size_t(result.ndim()), 1);
      valid_shape[0] = *size;
      result = where(reshape(arange(*size) < count, valid_shape), result, fill);
    } else {
      Shape shape = result.shape();
      shape[0] = *size;
      result = full(shape, fill, result.dtype());
    }
  }
  UniqueParts p{moveaxis(result, 0, axis),
                s.aux.size() ? take(s.perm, ind, {.axis = 0, .mode = "clip"}) : s.perm,
                zeros({extent}, DType::int64), zeros({0}, DType::int64), count};
  if (s.aux.size()) p.inverse = p.inverse.at(s.perm).set(cumsum(s.mask.astype(DType::int64)) - 1);
  const int64_t n = s.mask.size();
  if (s.aux.size()) {
    Array idx = zeros({0}, DType::int64);
    if (!size) {
      idx = append(flatnonzero(s.mask, {.size = rows}), full({1}, Array(n), DType::int64));
    } else {
      idx = flatnonzero(s.mask, {.size = *size + 1});
      const Array tail = later_rows(idx);
      idx = idx.at(jx::slice(1, std::nullopt)).set(where(tail != 0, tail, Array(n)));
    }
    p.counts = diff(idx);
  } else if (extent) {
    p.counts = full({1}, Array(extent), DType::int64);
  }
  return p;
}

void require_concrete_unique(const Array &ar, std::optional<int64_t> size) {
  if (!size)
    api::require_concrete(ar,
                          std::string("The error arose for the first argument of jnp.unique(). ") +
                              unique_size_hint);
}

// unique over the flattened x, its inverse in x's shape.
UniqueParts unique_flat(const Array &x, bool equal_nan, std::optional<int64_t> size,
                        const std::optional<Array> &fill_value) {
  require_concrete_unique(x, size);
  UniqueParts p = unique_parts(ravel(x), 0, equal_nan, size, fill_value);
  p.inverse = p.inverse.reshape(x.shape());
  return p;
}

// The default fill of intersect1d and setxor1d with a size: the smallest result (after the
// padding is replaced by the largest).
Array fill_results(const Array &vals, const Array &count, const std::optional<Array> &fill_value) {
  const Array valid = arange(vals.size()) < count;
  if (fill_value) return where(valid, vals, fill_value->astype(vals.dtype()));
  const Array high = where(valid, vals, max(vals));
  return where(valid, high, min(high));
}

// The sorted unique values of x and y (each padded to its size), valid ones first: JAX's
// _concat_unique followed by the sort on (invalid, value).
struct Joined {
  Array aux, count;
};
Joined joined_unique(const Array &x, const Array &y, bool assume_unique) {
  Array ux = x, uy = y, cx = Array(x.size()), cy = Array(y.size());
  if (!assume_unique) {
    const UniqueParts px = unique_parts(x, 0, true, x.size(), Array(0));
    const UniqueParts py = unique_parts(y, 0, true, y.size(), Array(0));
    ux = px.values;
    uy = py.values;
    cx = px.count;
    cy = py.count;
  }
  const Array arr = concatenate({ux, uy});
  const Array valid = concatenate({arange(x.size()) < cx, arange(y.size()) < cy});
  const Array perm = lexsort({arr, logical_not(valid)});
  return {take(arr, perm, {.axis = 0, .mode = "clip"}), (cx + cy).astype(DType::int64)};
}

// The first `size` sorted values where flags hold (as JAX's: the gather past the end gives 0), with
// fill_results' fill.
Array flagged_values(const Array &aux, const Array &flags, int64_t size,
                     const std::optional<Array> &fill_value) {
  const Array vals = take(aux, flatnonzero(flags, {.size = size, .fill_value = aux.size()}),
                          {.axis = 0, .mode = "fill", .fill_value = Array(0)});
  return fill_results(vals, sum(flags).astype(DType::int64), fill_value);
}

// The sorted concatenation of x's and y's unique values (without a size: concrete x and y).
Array sorted_uniques(const Array &x, const Array &y, bool assume_unique) {
  return sort(concatenate({assume_unique ? x : unique(x), assume_unique ? y : unique(y)}));
}

std::pair<Array, Array> promoted_flat(const Array &a, const Array &b) {
  const DType type = result_type({a, b});
  return {ravel(a).astype(type), ravel(b).astype(type)};
}

} // namespace

Array unique(const Array &ar, const UniqueOptions &o) {
  require_concrete_unique(ar, o.size);
  if (!o.axis) return unique_parts(ravel(ar), 0, o.equal_nan, o.size, o.fill_value).values;
  return unique_parts(ar, *o.axis, o.equal_nan, o.size, o.fill_value).values;
}

UniqueAllResult unique_all(const Array &x, const SizeOptions &o) {
  const UniqueParts p = unique_flat(x, false, o.size, o.fill_value);
  return {p.values, p.indices, p.inverse, p.counts};
}

UniqueCountsResult unique_counts(const Array &x, const SizeOptions &o) {
  const UniqueParts p = unique_flat(x, false, o.size, o.fill_value);
  return {p.values, p.counts};
}

UniqueInverseResult unique_inverse(const Array &x, const SizeOptions &o) {
  const UniqueParts p = unique_flat(x, false, o.size, o.fill_value);
  return {p.values, p.inverse};
}

Array unique_values(const Array &x, const SizeOptions &o) {
  return unique_flat(x, false, o.size, o.fill_value).values;
}

Array union1d(const Array &ar1, const Array &ar2, const SizeOptions &o) {
  if (!o.size) {
    api::require_concrete(ar1, "The error arose in union1d()");
    api::require_concrete(ar2, "The error arose in union1d()");
  }
  return unique(concatenate({ravel(ar1), ravel(ar2)}),
                {.size = o.size, .fill_value = o.fill_value});
}

Array setdiff1d(const Array &ar1, const Array &ar2, const SetOptions &o) {
  const bool assume_unique = o.assume_unique;
  const std::optional<int64_t> &size = o.size;
  const std::optional<Array> &fill_value = o.fill_value;
  Array arr1 = ravel(ar1);
  const Array arr2 = ravel(ar2);
  if (!size) api::require_concrete(ar1, "The error arose in setdiff1d()");
  const Array fill = (fill_value ? *fill_value : Array(0)).astype(arr1.dtype());
  if (arr1.size() == 0) return full({size.value_or(0)}, fill, arr1.dtype());
  if (!assume_unique)
    arr1 = unique(arr1, {.size = size ? std::optional<int64_t>(arr1.size()) : std::nullopt});
  Array mask = isin(arr1, arr2, {.invert = true});
  if (!size) return take(arr1, flatnonzero(mask), {.axis = 0, .mode = "clip"});
  if (!assume_unique) {
    // unique's padding repeats its first value: drop it.
    const Array n_unique = arr1.size() + 1 - sum(arr1 == arr1(0)).astype(DType::int64);
    mask = where(arange(arr1.size()) < n_unique, mask, Array(false));
  }
  return where(arange(*size) < sum(mask).astype(DType::int64),
               take(arr1, flatnonzero(mask, {.size = *size}), {.axis = 0, .mode = "clip"}), fill);
}

Array intersect1d(const Array &ar1, const Array &ar2, const SetOptions &o) {
  const bool assume_unique = o.assume_unique;
  const std::optional<int64_t> &size = o.size;
  const std::optional<Array> &fill_value = o.fill_value;
  const auto [arr1, arr2] = promoted_flat(ar1, ar2);
  if (size) {
    const Joined j = joined_unique(arr1, arr2, assume_unique);
    const int64_t n = j.aux.size();
    if (n == 0) return fill_results(zeros({*size}, arr1.dtype()), Array(int64_t(0)), fill_value);
    const Array same =
        logical_and(later_rows(j.aux) == first_rows(j.aux), later_rows(arange(n) < j.count));
    return flagged_values(j.aux, same, *size, fill_value);
  }
  api::require_concrete(arr1, "The error arose in intersect1d()");
  const Array aux = sorted_uniques(arr1, arr2, assume_unique);
  if (aux.size() == 0) return aux;
  const Array lower = first_rows(aux);
  return take(lower, flatnonzero(later_rows(aux) == lower), {.axis = 0, .mode = "clip"});
}

Array setxor1d(const Array &ar1, const Array &ar2, const SetOptions &o) {
  const bool assume_unique = o.assume_unique;
  const std::optional<int64_t> &size = o.size;
  const std::optional<Array> &fill_value = o.fill_value;
  const auto [arr1, arr2] = promoted_flat(ar1, ar2);
  if (size) {
    const Joined j = joined_unique(arr1, arr2, assume_unique);
    const int64_t n = j.aux.size();
    if (n == 0) return fill_results(zeros({*size}, arr1.dtype()), Array(int64_t(0)), fill_value);
    // A value is alone when it differs from both neighbours among the valid ones.
    const Array flag = concatenate({ones({1}, DType::bool_), later_rows(j.aux) != first_rows(j.aux),
                                    zeros({1}, DType::bool_)});
    const Array position = arange(n + 1);
    const Array bounded =
        where(position == j.count, Array(true), logical_and(flag, position < j.count + 1));
    const Array alone = logical_and(later_rows(bounded), first_rows(bounded));
    return flagged_values(j.aux, alone, *size, fill_value);
  }
  api::require_concrete(arr1, "The error arose in setxor1d()");
  const Array aux = sorted_uniques(arr1, arr2, assume_unique);
  if (aux.size() == 0) return aux;
  const Array flag = concatenate(
      {ones({1}, DType::bool_), later_rows(aux) != first_rows(aux), ones({1}, DType::bool_)});
  const Array alone = logical_and(later_rows(flag), first_rows(flag));
  return take(aux, flatnonzero(alone), {.axis = 0, .mode = "clip"});
}

} // namespace jx::numpy
