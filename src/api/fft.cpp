// jnp.fft: every transform is ir::fft (a complex transform along one axis, runtime/fft.h) on the
// parts of the input, one axis at a time, with NumPy's cropping and zero-padding (n, s) and its
// normalizations applied as products. rfft is the complex transform's first n / 2 + 1 values;
// irfft the real part of the inverse transform of the Hermitian spectrum rebuilt from them.
#include <jx/numpy.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "api/internal.h"
#include "ir/builder.h"

namespace jx::numpy::fft {

namespace {

enum class Scaling { Backward, Ortho, Forward };

Scaling scaling_of(const Norm &norm) {
  if (!norm || *norm == "backward") return Scaling::Backward;
  if (*norm == "ortho") return Scaling::Ortho;
  if (*norm == "forward") return Scaling::Forward;
  throw ValueError(fmt::format(
      "Invalid norm value {}; should be \"backward\",\"ortho\" or \"forward\".", *norm));
}

// hfft and ihfft are irfft and rfft with the other direction's scaling (NumPy's swap).
Norm swapped(const Norm &norm) {
  switch (scaling_of(norm)) {
  case Scaling::Backward: return "forward";
  case Scaling::Forward: return "backward";
  case Scaling::Ortho: return "ortho";
  }
  return norm;
}

// x scaled for a transform of n points in the given direction.
Array scaled(const Array &x, int64_t n, const Norm &norm, bool inverse) {
  const Scaling s = scaling_of(norm);
  if (s == Scaling::Ortho) return x * (1.0 / std::sqrt(double(n)));
  if ((s == Scaling::Backward) == inverse) return x * (1.0 / double(n));
  return x;
}

void check_points(int64_t n) {
  if (n < 1) throw ValueError(fmt::format("Invalid number of FFT data points ({}) specified.", n));
}

// a cropped or zero-padded at the end of axis to n values.
Array resized(const Array &a, int64_t axis, int64_t n) {
  const int64_t m = a.shape()[size_t(axis)];
  if (n <= m) return n == m ? a : api::slice_along(a, axis, 0, n);
  std::vector<std::pair<int64_t, int64_t>> widths(size_t(a.ndim()), {0, 0});
  widths[size_t(axis)].second = n - m;
  return pad(a, widths);
}

// a's values as complex numbers of the matching precision.
Array as_complex(const Array &a) {
  if (is_complex(a.dtype())) return a;
  const Array x = api::to_inexact(a);
  return astype(x, complex_dtype(x.dtype()));
}

// The unscaled complex transform along a normalized axis.
Array transform(const Array &a, int64_t axis, bool inverse) {
  const Array z = as_complex(a);
  return api::wrap(ir::fft(api::node_of(real(z)), api::node_of(imag(z)), axis, inverse));
}

Array complex_1d(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm,
                 bool inverse) {
  axis = api::normalize_axis(axis, a.ndim());
  const int64_t points = n.value_or(a.shape()[size_t(axis)]);
  check_points(points);
  return scaled(transform(resized(a, axis, points), axis, inverse), points, norm, inverse);
}

Array real_1d(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  if (is_complex(a.dtype()))
    throw TypeError(fmt::format("rfft does not accept dtype {}. Accepted dtypes are subtypes of "
                                "floating, integer or bool.",
                                dtype_name(a.dtype())));
  axis = api::normalize_axis(axis, a.ndim());
  const int64_t points = n.value_or(a.shape()[size_t(axis)]);
  check_points(points);
  const Array full = transform(resized(a, axis, points), axis, false);
  return scaled(api::slice_along(full, axis, 0, points / 2 + 1), points, norm, false);
}

// The real signal of `points` values whose spectrum's first points / 2 + 1 values are a's.
Array inverse_real_1d(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  axis = api::normalize_axis(axis, a.ndim());
  const int64_t points = n.value_or(2 * (a.shape()[size_t(axis)] - 1));
  check_points(points);
  const Array half = resized(as_complex(a), axis, points / 2 + 1);
  // Values points / 2 + 1 .. points - 1: conj(a[points - k]), i.e. a[1 .. (points - 1) / 2]
  // conjugated and reversed.
  const Array mirrored = conj(flip(api::slice_along(half, axis, 1, (points - 1) / 2 + 1), axis));
  const Array spectrum = concatenate({half, mirrored}, axis);
  return scaled(real(transform(spectrum, axis, true)), points, norm, true);
}

// The axes and lengths of an n-dimensional transform (NumPy's _cook_nd_args): every axis by
// default, the last len(s) axes when only s is given; `last_default` gives the default length of
// the last axis (irfftn's 2 (m - 1)).
struct Plan {
  std::vector<int64_t> axes, lengths;
};

Plan plan_of(const char *name, const Array &a, const std::optional<Shape> &s, const Axes &axes,
             bool inverse_real) {
  Plan p;
  const int64_t r = a.ndim();
  if (axes.is_none()) {
    const int64_t count = s ? int64_t(s->size()) : r;
    if (count > r) throw ValueError("Shape and axes have different lengths.");
    for (int64_t i = r - count; i < r; ++i)
      p.axes.push_back(i);
  } else {
    for (int64_t axis : axes.axes())
      p.axes.push_back(api::normalize_axis(axis, r));
  }
  if (s && s->size() != p.axes.size()) throw ValueError("Shape and axes have different lengths.");
  if (std::set<int64_t>(p.axes.begin(), p.axes.end()).size() != p.axes.size())
    throw ValueError(
        fmt::format("{} does not support repeated axes. Got axes {}.", name, axes.axes()));
  for (size_t i = 0; i < p.axes.size(); ++i) {
    int64_t length = a.shape()[size_t(p.axes[i])];
    if (inverse_real && i + 1 == p.axes.size()) length = 2 * (length - 1);
    p.lengths.push_back(s ? (*s)[i] : length);
    check_points(p.lengths.back());
  }
  return p;
}

// The complex transform over the plan's axes, the last axis first (NumPy's order).
Array complex_nd(const char *name, const Array &a, const std::optional<Shape> &s, const Axes &axes,
                 const Norm &norm, bool inverse) {
  const Plan p = plan_of(name, a, s, axes, false);
  Array x = as_complex(a);
  for (size_t i = p.axes.size(); i-- > 0;)
    x = complex_1d(x, p.lengths[i], p.axes[i], norm, inverse);
  return x;
}

// Sample indices k as the frequencies k / (d n).
Array frequencies(const Array &k, int64_t n, double d, std::optional<DType> dtype) {
  check_points(n);
  const DType t = dtype.value_or(default_float);
  return astype(astype(k, t) * (1.0 / (d * double(n))), t);
}

// x rolled by half of each axis (every axis by default) forward (sign 1) or back (-1).
Array rolled_by_half(const Array &x, const Axes &axes, int64_t sign) {
  const std::vector<int64_t> all = api::normalize_axes(axes, x.ndim());
  std::vector<int64_t> shifts;
  for (int64_t axis : all)
    shifts.push_back(sign * (x.shape()[size_t(axis)] / 2));
  return roll(x, shifts, all);
}

} // namespace

Array fft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return complex_1d(a, n, axis, norm, false);
}

Array ifft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return complex_1d(a, n, axis, norm, true);
}

Array rfft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return real_1d(a, n, axis, norm);
}

Array irfft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return inverse_real_1d(a, n, axis, norm);
}

Array hfft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return inverse_real_1d(conj(as_complex(a)), n, axis, swapped(norm));
}

Array ihfft(const Array &a, std::optional<int64_t> n, int64_t axis, const Norm &norm) {
  return conj(real_1d(a, n, axis, swapped(norm)));
}

Array fftn(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return complex_nd("fftn", a, s, axes, norm, false);
}

Array ifftn(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return complex_nd("ifftn", a, s, axes, norm, true);
}

Array rfftn(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  const Plan p = plan_of("rfftn", a, s, axes, false);
  if (p.axes.empty()) return as_complex(a);
  Array x = real_1d(a, p.lengths.back(), p.axes.back(), norm);
  for (size_t i = p.axes.size() - 1; i-- > 0;)
    x = complex_1d(x, p.lengths[i], p.axes[i], norm, false);
  return x;
}

Array irfftn(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  const Plan p = plan_of("irfftn", a, s, axes, true);
  if (p.axes.empty()) return real(as_complex(a));
  Array x = as_complex(a);
  for (size_t i = 0; i + 1 < p.axes.size(); ++i)
    x = complex_1d(x, p.lengths[i], p.axes[i], norm, true);
  return inverse_real_1d(x, p.lengths.back(), p.axes.back(), norm);
}

Array fft2(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return complex_nd("fft2", a, s, axes, norm, false);
}

Array ifft2(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return complex_nd("ifft2", a, s, axes, norm, true);
}

Array rfft2(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return rfftn(a, s, axes, norm);
}

Array irfft2(const Array &a, const std::optional<Shape> &s, const Axes &axes, const Norm &norm) {
  return irfftn(a, s, axes, norm);
}

Array fftfreq(int64_t n, double d, std::optional<DType> dtype) {
  const int64_t positive = (n - 1) / 2 + 1;
  return frequencies(concatenate({arange(int64_t(0), positive), arange(-(n / 2), int64_t(0))}), n,
                     d, dtype);
}

Array rfftfreq(int64_t n, double d, std::optional<DType> dtype) {
  return frequencies(arange(int64_t(0), n / 2 + 1), n, d, dtype);
}

Array fftshift(const Array &x, const Axes &axes) { return rolled_by_half(x, axes, 1); }

Array ifftshift(const Array &x, const Axes &axes) { return rolled_by_half(x, axes, -1); }

} // namespace jx::numpy::fft
