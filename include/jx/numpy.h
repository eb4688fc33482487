// jx::numpy: the jax.numpy API (users write `namespace jnp = jx::numpy;`).
// Each function mirrors the jax.numpy function of the same name; docs/api.md has the table.
#pragma once

#include <jx/array.h>

#include <complex>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace jx::numpy {

using jx::Array;
using jx::DType;
using jx::Shape;
// jnp.bool_, jnp.int8, ...: jx's dtype constants.
using jx::bfloat16;
using jx::bool_;
using jx::complex128;
using jx::complex64;
using jx::dtype;
using jx::float16;
using jx::float32;
using jx::float64;
using jx::int16;
using jx::int32;
using jx::int64;
using jx::int8;
using jx::newaxis;
using jx::uint16;
using jx::uint32;
using jx::uint64;
using jx::uint8;
// jnp.pi, jnp.e, jnp.euler_gamma, jnp.inf, jnp.nan: doubles, weakly typed where they meet arrays.
inline constexpr double pi = std::numbers::pi, e = std::numbers::e,
                        euler_gamma = std::numbers::egamma,
                        inf = std::numeric_limits<double>::infinity(),
                        nan = std::numeric_limits<double>::quiet_NaN();

// An `axis=` argument: None (all axes), one axis, or several; negative counts from the end. A bool
// is no axis (sum(x, true) does not compile).
class Axes {
public:
  Axes() = default;
  Axes(std::nullopt_t) {}
  template <std::integral T>
  requires(!std::same_as<T, bool>) Axes(T axis) : axes_(std::vector<int64_t>{int64_t(axis)}) {}
  Axes(std::initializer_list<int64_t> axes) : axes_(std::vector<int64_t>(axes)) {}
  Axes(std::vector<int64_t> axes) : axes_(std::move(axes)) {}
  bool is_none() const { return !axes_.has_value(); }
  const std::vector<int64_t> &axes() const { return *axes_; }

private:
  std::optional<std::vector<int64_t>> axes_;
};

// Keyword arguments. A function with several optional parameters takes them positionally only as
// far as NumPy's positional order goes (sum(x, axis), std(x, axis), linspace(start, stop, num,
// endpoint)); the rest, and every parameter that is keyword-only in JAX, are the fields of an
// options struct written with designated initializers, the fields in NumPy's keyword order:
//   jnp::std(x, {.axis = -1, .ddof = 1, .keepdims = true, .where = mask})
// so std(x, -1, true), which in NumPy would pass true as the dtype, does not compile.
// KeywordOnly is the first member of every options struct: it takes no value, so the struct can
// only be written with designators ({0, true} does not compile, and sum(x, {0, 1}) stays the axes
// (0, 1)). Fields left out keep the defaults shown.
// The positional forms beside an options form are templates (template <class = void>) for one
// reason: GCC 12 also weighs a designated list such as {.axis = 0} as a conversion to their
// parameters (Axes, std::optional, ...), and in such a tie the non-template options form wins.
struct KeywordOnly {
  KeywordOnly() = default;
};

// ---- creation ----
// jnp.array(data).reshape(shape): copies data; shape defaults to (data.size(),).
template <class T>
Array array(const std::vector<T> &data, std::optional<Shape> shape = std::nullopt);
template <class T>
Array array(std::initializer_list<T> data, std::optional<Shape> shape = std::nullopt) {
  return array(std::vector<T>(data), std::move(shape));
}
// A braced list of ints is int64, as np.array([1, 2, 3]) on Linux and JAX with x64 (name the
// type, jnp::array<int32_t>({...}), for int32).
inline Array array(std::initializer_list<int> data, std::optional<Shape> shape = std::nullopt) {
  return array(std::vector<int64_t>(data.begin(), data.end()), std::move(shape));
}
// jnp.array(scalar, dtype): a strongly typed 0-d array.
Array array(double value, DType dtype);
// jnp.array(scalar): a 0-d array as JAX makes one of a Python scalar: a double is a weakly
// typed float64 and an integer a weakly typed int64 (float32 * jnp.array(2.0) stays float32), a
// bool a bool and a float (NumPy's float32 scalar) a float32, both strongly typed.
// A complex number: a weakly typed complex128 0-d array (JAX's Python complex).
template <class T>
requires std::is_floating_point_v<T> Array array(std::complex<T> value) { return Array(value); }
template <class T>
requires std::is_arithmetic_v<T> Array array(T value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, float>)
    return array(double(value), std::is_same_v<T, bool> ? bool_ : float32);
  else if constexpr (std::is_floating_point_v<T>)
    return Array(double(value));
  else
    return Array(int64_t(value));
}
// jnp.asarray(x, dtype): x converted to dtype (a strong type).
Array asarray(const Array &x, std::optional<DType> dtype = std::nullopt);
Array zeros(const Shape &shape, DType dtype = float64);
Array ones(const Shape &shape, DType dtype = float64);
// jnp.full: dtype defaults to the fill value's (int64, float64 or bool for C++ scalars).
Array full(const Shape &shape, const Array &fill_value, std::optional<DType> dtype = std::nullopt);
Array zeros_like(const Array &x, std::optional<DType> dtype = std::nullopt);
Array ones_like(const Array &x, std::optional<DType> dtype = std::nullopt);
Array full_like(const Array &x, const Array &fill_value, std::optional<DType> dtype = std::nullopt);
// jnp.arange(stop), jnp.arange(start, stop, step): int64 when all bounds are integers, else
// float64 (unless dtype is given).
Array arange_impl(double start, double stop, double step, bool integral,
                  std::optional<DType> dtype);
template <class A>
requires std::is_arithmetic_v<A> Array arange(A stop, std::optional<DType> dtype = std::nullopt) {
  return arange_impl(0, double(stop), 1, std::is_integral_v<A>, dtype);
}
template <class A, class B, class C = int>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
    Array arange(A start, B stop, C step = 1, std::optional<DType> dtype = std::nullopt) {
  constexpr bool integral = std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>;
  return arange_impl(double(start), double(stop), double(step), integral, dtype);
}
// jnp.linspace: start and stop may be arrays; the new axis is `axis` of the result. Positional as
// far as NumPy's (start, stop, num, endpoint); dtype and axis by keyword:
// linspace(0, 1, {.num = 5, .dtype = float32}). geomspace takes the same keywords.
struct LinspaceOptions {
  KeywordOnly keyword_only{};
  int64_t num = 50;
  bool endpoint = true;
  std::optional<DType> dtype = std::nullopt;
  int64_t axis = 0;
};
Array linspace(const Array &start, const Array &stop, const LinspaceOptions &options);
template <class = void>
Array linspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true) {
  return linspace(start, stop, {.num = num, .endpoint = endpoint});
}
// jnp.eye(N, M, k, dtype) and jnp.tri: positional in NumPy's order, or eye(3, {.k = 1}).
struct EyeOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> M = std::nullopt;
  int64_t k = 0;
  DType dtype = float64;
};
Array eye(int64_t n, const EyeOptions &options);
template <class = void>
Array eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
          DType dtype = float64) {
  return eye(n, {.M = m, .k = k, .dtype = dtype});
}
Array identity(int64_t n, DType dtype = float64);
// jx arrays are never uninitialized: empty is zeros, as in jnp.
Array empty(const Shape &shape, DType dtype = float64);
Array empty_like(const Array &x, std::optional<DType> dtype = std::nullopt);
Array copy(const Array &x);
// jnp.logspace(start, stop, num, endpoint, base, dtype, axis): positional in NumPy's order, or
// logspace(0, 3, {.num = 4, .base = 2.0}).
struct LogspaceOptions {
  KeywordOnly keyword_only{};
  int64_t num = 50;
  bool endpoint = true;
  Array base = 10.0;
  std::optional<DType> dtype = std::nullopt;
  int64_t axis = 0;
};
Array logspace(const Array &start, const Array &stop, const LogspaceOptions &options);
template <class = void>
Array logspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true,
               const Array &base = 10.0, std::optional<DType> dtype = std::nullopt,
               int64_t axis = 0) {
  return logspace(start, stop,
                  {.num = num, .endpoint = endpoint, .base = base, .dtype = dtype, .axis = axis});
}
// jnp.geomspace(start, stop, num, endpoint, dtype, axis): NumPy's order, or linspace's keywords.
Array geomspace(const Array &start, const Array &stop, const LinspaceOptions &options);
template <class = void>
Array geomspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true,
                std::optional<DType> dtype = std::nullopt, int64_t axis = 0) {
  return geomspace(start, stop, {.num = num, .endpoint = endpoint, .dtype = dtype, .axis = axis});
}
Array tri(int64_t n, const EyeOptions &options);
template <class = void>
Array tri(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
          DType dtype = float64) {
  return tri(n, {.M = m, .k = k, .dtype = dtype});
}
Array tril(const Array &m, int64_t k = 0);
Array triu(const Array &m, int64_t k = 0);
// (rows, cols) of the lower/upper triangle of an n x m matrix, in row-major order:
// tril_indices(n, k, m) or tril_indices(n, {.m = 5}).
struct TriIndicesOptions {
  KeywordOnly keyword_only{};
  int64_t k = 0;
  std::optional<int64_t> m = std::nullopt;
};
std::pair<Array, Array> tril_indices(int64_t n, const TriIndicesOptions &options);
std::pair<Array, Array> triu_indices(int64_t n, const TriIndicesOptions &options);
template <class = void>
std::pair<Array, Array> tril_indices(int64_t n, int64_t k = 0,
                                     std::optional<int64_t> m = std::nullopt) {
  return tril_indices(n, {.k = k, .m = m});
}
template <class = void>
std::pair<Array, Array> triu_indices(int64_t n, int64_t k = 0,
                                     std::optional<int64_t> m = std::nullopt) {
  return triu_indices(n, {.k = k, .m = m});
}
std::pair<Array, Array> tril_indices_from(const Array &arr, int64_t k = 0);
std::pair<Array, Array> triu_indices_from(const Array &arr, int64_t k = 0);
std::vector<Array> diag_indices(int64_t n, int64_t ndim = 2);
std::vector<Array> diag_indices_from(const Array &arr);
Array diag(const Array &v, int64_t k = 0);
Array diagflat(const Array &v, int64_t k = 0);
// diagonal(a, offset, axis1, axis2) and trace: NumPy's order, or diagonal(a, {.axis1 = 1, ...}).
struct DiagonalOptions {
  KeywordOnly keyword_only{};
  int64_t offset = 0;
  int64_t axis1 = 0;
  int64_t axis2 = 1;
};
Array diagonal(const Array &a, const DiagonalOptions &options);
Array trace(const Array &a, const DiagonalOptions &options);
template <class = void>
Array diagonal(const Array &a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1) {
  return diagonal(a, {.offset = offset, .axis1 = axis1, .axis2 = axis2});
}
template <class = void>
Array trace(const Array &a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1) {
  return trace(a, {.offset = offset, .axis1 = axis1, .axis2 = axis2});
}
// vander(x, N, increasing), or vander(x, {.increasing = true}).
struct VanderOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> N = std::nullopt;
  bool increasing = false;
};
Array vander(const Array &x, const VanderOptions &options);
template <class = void>
Array vander(const Array &x, std::optional<int64_t> n = std::nullopt, bool increasing = false) {
  return vander(x, {.N = n, .increasing = increasing});
}
// indexing: "xy" (Cartesian, the default) or "ij" (matrix).
std::vector<Array> meshgrid(const std::vector<Array> &xi, std::string_view indexing = "xy");
Array indices(const Shape &dimensions, DType dtype = int64);
// One slice of jnp.mgrid / jnp.ogrid, which C++ writes without slice syntax: {0, 5} is 0:5,
// {0, 1, 0.25} is 0:1:0.25 (arange's values: int64 when all three are integers, else float64),
// and a complex step is a number of points with stop included, as NumPy's 0:1:5j: {0, 1, 5i}
// (std::complex_literals) is linspace(0, 1, 5). A jx::slice works too (start 0 and step 1 when
// absent; a stop is required).
struct GridSlice {
  template <class A, class B, class C = int>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
  GridSlice(A start, B stop, C step = 1)
      : start(double(start)), stop(double(stop)), step(double(step)),
        integral(std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>) {}
  template <class A, class B>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> GridSlice(A start, B stop,
                                                                        std::complex<double> step)
      : start(double(start)), stop(double(stop)), step(step), integral(false) {}
  GridSlice(const Slice &s);

  double start, stop;
  std::complex<double> step;
  bool integral;
};
// jnp.mgrid[s0, s1, ...] is mgrid({s0, s1, ...}): the axes' values as a dense grid, stacked into
// one array of shape (number of slices, len(s0), len(s1), ...) in their promoted dtype;
// jnp.mgrid[s] (one slice, no tuple) is mgrid(s): its values, 1-D.
Array mgrid(const std::vector<GridSlice> &slices);
inline Array mgrid(std::initializer_list<GridSlice> slices) {
  return mgrid(std::vector<GridSlice>(slices));
}
Array mgrid(const GridSlice &slice);
// jnp.ogrid[s0, s1, ...] is ogrid({s0, s1, ...}): the open grid, axis i's values along dimension
// i of array i and size 1 elsewhere, each in its own dtype (as JAX's, where NumPy promotes them);
// jnp.ogrid[s] is ogrid(s): its values, 1-D.
std::vector<Array> ogrid(const std::vector<GridSlice> &slices);
inline std::vector<Array> ogrid(std::initializer_list<GridSlice> slices) {
  return ogrid(std::vector<GridSlice>(slices));
}
Array ogrid(const GridSlice &slice);
// Window functions.
Array bartlett(int64_t m);
Array blackman(int64_t m);
Array hamming(int64_t m);
Array hanning(int64_t m);
Array kaiser(int64_t m, double beta);

// ---- elementwise ----
Array add(const Array &a, const Array &b);
Array subtract(const Array &a, const Array &b);
Array multiply(const Array &a, const Array &b);
Array divide(const Array &a, const Array &b);
Array true_divide(const Array &a, const Array &b);
Array floor_divide(const Array &a, const Array &b);
Array remainder(const Array &a, const Array &b);
Array mod(const Array &a, const Array &b);
Array power(const Array &a, const Array &b);
Array maximum(const Array &a, const Array &b);
Array minimum(const Array &a, const Array &b);
Array negative(const Array &x);
Array positive(const Array &x);
Array abs(const Array &x);
Array absolute(const Array &x);
Array sign(const Array &x);
Array exp(const Array &x);
Array expm1(const Array &x);
Array log(const Array &x);
Array log1p(const Array &x);
Array sqrt(const Array &x);
Array square(const Array &x);
Array sin(const Array &x);
Array cos(const Array &x);
Array tan(const Array &x);
Array tanh(const Array &x);
Array sinh(const Array &x);
Array cosh(const Array &x);
Array arcsin(const Array &x);
Array arccos(const Array &x);
Array arctan(const Array &x);
Array arcsinh(const Array &x);
Array arccosh(const Array &x);
Array arctanh(const Array &x);
Array exp2(const Array &x);
Array log2(const Array &x);
Array log10(const Array &x);
Array cbrt(const Array &x);
Array floor(const Array &x);
Array ceil(const Array &x);
// Half to even; integers are returned as they are (decimals < 0: NotImplementedError, as jnp).
Array round(const Array &x, int decimals = 0);
// Integers and bools compute in the default float type, as the one-argument functions above.
Array arctan2(const Array &y, const Array &x);
Array hypot(const Array &a, const Array &b);
Array copysign(const Array &a, const Array &b);
Array nextafter(const Array &a, const Array &b);
Array logaddexp(const Array &a, const Array &b);
// C's remainder (the dividend's sign); on integers, by 0 it is 0 (as jnp.fmod).
Array fmod(const Array &a, const Array &b);
// maximum(min, x), then minimum(max, x), for the bounds given (jnp.clip): clip(x, 0, 1) or
// clip(x, {.max = 1}).
struct ClipOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> min = std::nullopt;
  std::optional<Array> max = std::nullopt;
};
Array clip(const Array &x, const ClipOptions &options);
template <class = void>
Array clip(const Array &x, const std::optional<Array> &min = std::nullopt,
           const std::optional<Array> &max = std::nullopt) {
  return clip(x, {.min = min, .max = max});
}
Array isnan(const Array &x);
Array isfinite(const Array &x);
Array signbit(const Array &x);
Array isinf(const Array &x);
Array where(const Array &condition, const Array &x, const Array &y);
Array equal(const Array &a, const Array &b);
Array not_equal(const Array &a, const Array &b);
Array less(const Array &a, const Array &b);
Array less_equal(const Array &a, const Array &b);
Array greater(const Array &a, const Array &b);
Array greater_equal(const Array &a, const Array &b);
Array logical_and(const Array &a, const Array &b);
Array logical_or(const Array &a, const Array &b);
Array logical_xor(const Array &a, const Array &b);
Array logical_not(const Array &x);
// Integer and bool only (DTypeError on floats), as NumPy.
Array bitwise_and(const Array &a, const Array &b);
Array bitwise_or(const Array &a, const Array &b);
Array bitwise_xor(const Array &a, const Array &b);
Array bitwise_not(const Array &x);
Array invert(const Array &x);
Array left_shift(const Array &a, const Array &b);
Array right_shift(const Array &a, const Array &b);
Array astype(const Array &x, DType dtype);
// jnp.isclose: |a - b| <= atol + rtol * |b| in the promoted dtype (equality for ints and bools);
// infinities close only to themselves, NaN to nothing unless equal_nan (JAX's). Positional in
// NumPy's order, or isclose(a, b, {.atol = 1e-3}).
struct IscloseOptions {
  KeywordOnly keyword_only{};
  double rtol = 1e-05;
  double atol = 1e-08;
  bool equal_nan = false;
};
Array isclose(const Array &a, const Array &b, const IscloseOptions &options);
template <class = void>
Array isclose(const Array &a, const Array &b, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false) {
  return isclose(a, b, {.rtol = rtol, .atol = atol, .equal_nan = equal_nan});
}
// jnp.allclose: all(isclose(...)), a bool scalar.
Array allclose(const Array &a, const Array &b, const IscloseOptions &options);
template <class = void>
Array allclose(const Array &a, const Array &b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false) {
  return allclose(a, b, {.rtol = rtol, .atol = atol, .equal_nan = equal_nan});
}
// jnp.array_equal: the same shape and equal elements (NaNs equal with equal_nan), a bool scalar.
Array array_equal(const Array &a1, const Array &a2, bool equal_nan = false);
// jnp.array_equiv: broadcastable to one shape and equal there, a bool scalar.
Array array_equiv(const Array &a1, const Array &a2);
// Array API and NumPy 2 spellings.
Array acos(const Array &x);
Array acosh(const Array &x);
Array asin(const Array &x);
Array asinh(const Array &x);
Array atan(const Array &x);
Array atanh(const Array &x);
Array atan2(const Array &y, const Array &x);
Array pow(const Array &a, const Array &b);
Array bitwise_invert(const Array &x);
Array bitwise_left_shift(const Array &a, const Array &b);
Array bitwise_right_shift(const Array &a, const Array &b);
Array fabs(const Array &x);
// maximum/minimum that ignore a NaN operand.
Array fmax(const Array &a, const Array &b);
Array fmin(const Array &a, const Array &b);
Array float_power(const Array &a, const Array &b);
// NumPy's: NaN where x1 is NaN (jnp returns x2 there).
Array heaviside(const Array &x1, const Array &x2);
Array logaddexp2(const Array &a, const Array &b);
// Integers compute in the default float type, as jnp (NumPy keeps integers: 1 // x).
Array reciprocal(const Array &x);
Array rint(const Array &x);
Array trunc(const Array &x);
Array fix(const Array &x);
Array around(const Array &x, int decimals = 0);
Array deg2rad(const Array &x);
Array rad2deg(const Array &x);
Array radians(const Array &x);
Array degrees(const Array &x);
Array sinc(const Array &x);
Array isneginf(const Array &x);
Array isposinf(const Array &x);
// jnp.nan_to_num(x, copy, nan, posinf, neginf): NumPy's second positional is copy, so the
// replacements are keywords only: nan_to_num(x, {.nan = 0, .posinf = 1e9}).
struct NanToNumOptions {
  KeywordOnly keyword_only{};
  double nan = 0.0;
  std::optional<double> posinf = std::nullopt;
  std::optional<double> neginf = std::nullopt;
};
Array nan_to_num(const Array &x, const NanToNumOptions &options = {});
// (floor_divide, remainder).
std::pair<Array, Array> divmod(const Array &a, const Array &b);
// (fractional part, integral part), both with x's sign.
std::pair<Array, Array> modf(const Array &x);
Array ldexp(const Array &x1, const Array &x2);
Array spacing(const Array &x);
Array gcd(const Array &a, const Array &b);
Array lcm(const Array &a, const Array &b);
// Complex numbers' parts; on real arrays the identity, zeros, false, ... (as NumPy).
Array conj(const Array &x);
Array conjugate(const Array &x);
Array real(const Array &x);
Array imag(const Array &x);
Array angle(const Array &x, bool deg = false);
Array iscomplex(const Array &x);
Array isreal(const Array &x);
bool iscomplexobj(const Array &x);
bool isrealobj(const Array &x);
// np.select: the choice of the first condition that holds, else default.
Array select(const std::vector<Array> &condlist, const std::vector<Array> &choicelist,
             const Array &default_ = 0);
// Whether each element of element is in test_elements. NumPy's third positional is assume_unique,
// so invert is a keyword: isin(x, t, {.invert = true}).
struct IsinOptions {
  KeywordOnly keyword_only{};
  bool invert = false;
};
Array isin(const Array &element, const Array &test_elements, const IsinOptions &options = {});
Array i0(const Array &x);
// jnp.broadcast_shapes.
Shape broadcast_shapes(const std::vector<Shape> &shapes);
std::vector<Array> broadcast_arrays(const std::vector<Array> &xs);
DType result_type(const std::vector<Array> &xs);
DType promote_types(DType a, DType b);
// numpy.iinfo and numpy.finfo: an integer or float dtype's limits (ValueError for another kind).
struct IInfo {
  DType dtype;
  int bits;
  int64_t min;
  uint64_t max; // uint64's does not fit an int64
};
IInfo iinfo(DType dtype);
struct FInfo {
  DType dtype;
  int bits;
  double eps, epsneg, max, min, tiny, smallest_normal, resolution;
  int precision, nmant, nexp, maxexp, minexp;
};
FInfo finfo(DType dtype);
// numpy.can_cast(from, to, casting) for casting "no", "equiv", "safe", "same_kind" or "unsafe".
bool can_cast(DType from, DType to, std::string_view casting = "safe");
// jnp.isdtype: whether dtype is of a kind ("bool", "signed integer", "unsigned integer",
// "integral", "real floating", "complex floating", "numeric") or is one of the dtypes given.
using DTypeKindSpec = std::variant<DType, std::string_view>;
bool isdtype(DType dtype, const DTypeKindSpec &kind);
bool isdtype(DType dtype, const std::vector<DTypeKindSpec> &kinds);
int64_t ndim(const Array &x);
Shape shape(const Array &x);
int64_t size(const Array &x, std::optional<int64_t> axis = std::nullopt);
// True for 0-d arrays, as jnp.isscalar.
bool isscalar(const Array &x);

// ---- shape ----
Array reshape(const Array &x, const Shape &shape);
Array ravel(const Array &x);
Array transpose(const Array &x, std::optional<std::vector<int64_t>> axes = std::nullopt);
inline Array transpose(const Array &x, std::initializer_list<int64_t> axes) {
  return transpose(x, std::vector<int64_t>(axes));
}
Array moveaxis(const Array &x, int64_t source, int64_t destination);
Array swapaxes(const Array &x, int64_t axis1, int64_t axis2);
Array expand_dims(const Array &x, const Axes &axis);
Array squeeze(const Array &x, const Axes &axis = {});
Array broadcast_to(const Array &x, const Shape &shape);
Array concatenate(const std::vector<Array> &xs, int64_t axis = 0);
Array stack(const std::vector<Array> &xs, int64_t axis = 0);
// jnp.pad(x, pad_width, constant_values=c): pad_width has one (before, after) per axis, or one
// pair for all axes. Mode "constant" only; NumPy's third positional is mode, so the value is a
// keyword: pad(x, 1, {.constant_values = 5}).
struct PadOptions {
  KeywordOnly keyword_only{};
  Array constant_values = 0;
};
Array pad(const Array &x, const std::vector<std::pair<int64_t, int64_t>> &pad_width,
          const PadOptions &options = {});
Array pad(const Array &x, int64_t pad_width, const PadOptions &options = {});
// jnp.diff(a, n, axis, prepend, append), or diff(a, {.axis = 0}).
struct DiffOptions {
  KeywordOnly keyword_only{};
  int64_t n = 1;
  int64_t axis = -1;
  std::optional<Array> prepend = std::nullopt;
  std::optional<Array> append = std::nullopt;
};
Array diff(const Array &a, const DiffOptions &options);
template <class = void>
Array diff(const Array &a, int64_t n = 1, int64_t axis = -1,
           const std::optional<Array> &prepend = std::nullopt,
           const std::optional<Array> &append = std::nullopt) {
  return diff(a, {.n = n, .axis = axis, .prepend = prepend, .append = append});
}
Array flip(const Array &x, const Axes &axis = {});
// jnp.roll: with axis None the array is rolled flattened.
Array roll(const Array &x, const std::vector<int64_t> &shift, const Axes &axis = {});
Array roll(const Array &x, int64_t shift, const Axes &axis = {});
namespace detail {
Array roll_traced(const Array &x, const Array &shift, const Axes &axis);
}
// A shift known at run time (an integer scalar, or one per axis): a dynamic slice, under jit too.
// (A template so that roll(x, {1}) stays the std::vector overload.)
template <class S>
requires std::is_same_v<S, Array> Array roll(const Array &x, const S &shift,
                                             const Axes &axis = {}) {
  return detail::roll_traced(x, shift, axis);
}
Array permute_dims(const Array &x, std::vector<int64_t> axes);
Array matrix_transpose(const Array &x);
Array rollaxis(const Array &x, int64_t axis, int64_t start = 0);
// rot90(m, k, axes), or rot90(m, {.axes = {1, 2}}).
struct Rot90Options {
  KeywordOnly keyword_only{};
  int64_t k = 1;
  std::pair<int64_t, int64_t> axes = {0, 1};
};
Array rot90(const Array &m, const Rot90Options &options);
template <class = void>
Array rot90(const Array &m, int64_t k = 1, std::pair<int64_t, int64_t> axes = {0, 1}) {
  return rot90(m, {.k = k, .axes = axes});
}
Array fliplr(const Array &m);
Array flipud(const Array &m);
Array atleast_1d(const Array &x);
Array atleast_2d(const Array &x);
Array atleast_3d(const Array &x);
// The array API's concat(arrays, /, *, axis=0): axis by keyword, concat(xs, {.axis = 1}).
struct ConcatOptions {
  KeywordOnly keyword_only{};
  int64_t axis = 0;
};
Array concat(const std::vector<Array> &xs, const ConcatOptions &options = {});
Array hstack(const std::vector<Array> &xs);
Array vstack(const std::vector<Array> &xs);
Array dstack(const std::vector<Array> &xs);
Array column_stack(const std::vector<Array> &xs);
// split into equal sections (ValueError when they are not), or at the given indices.
std::vector<Array> split(const Array &x, int64_t sections, int64_t axis = 0);
std::vector<Array> split(const Array &x, const std::vector<int64_t> &indices, int64_t axis = 0);
std::vector<Array> array_split(const Array &x, int64_t sections, int64_t axis = 0);
std::vector<Array> array_split(const Array &x, const std::vector<int64_t> &indices,
                               int64_t axis = 0);
std::vector<Array> hsplit(const Array &x, int64_t sections);
std::vector<Array> vsplit(const Array &x, int64_t sections);
std::vector<Array> dsplit(const Array &x, int64_t sections);
// unstack(x, /, *, axis=0): axis by keyword, unstack(x, {.axis = 1}).
struct UnstackOptions {
  KeywordOnly keyword_only{};
  int64_t axis = 0;
};
std::vector<Array> unstack(const Array &x, const UnstackOptions &options = {});
Array tile(const Array &x, const std::vector<int64_t> &reps);
Array repeat(const Array &x, int64_t repeats, std::optional<int64_t> axis = std::nullopt);
Array repeat(const Array &x, const std::vector<int64_t> &repeats,
             std::optional<int64_t> axis = std::nullopt);
Array append(const Array &arr, const Array &values, std::optional<int64_t> axis = std::nullopt);
Array delete_(const Array &arr, const std::vector<int64_t> &indices,
              std::optional<int64_t> axis = std::nullopt);
Array insert(const Array &arr, int64_t index, const Array &values,
             std::optional<int64_t> axis = std::nullopt);
Array resize(const Array &a, const Shape &new_shape);

// ---- reductions ----
// Positional: the array and the axis (NumPy's third positional is dtype or out, never keepdims);
// keepdims, ddof, initial and where are keywords:
// sum(x, {.axis = 0, .keepdims = true, .where = x > 0}). `where` broadcasts to x's shape and
// leaves out the elements where it is false; `initial` (a scalar) joins every reduced slice, as
// NumPy's. max and min have no identity: with `where` they need `initial` (JAX's ValueError).
// sum, prod, max, min, amax, amin, nansum, nanprod, nanmax, nanmin:
struct ReduceOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  bool keepdims = false;
  std::optional<Array> initial = std::nullopt;
  std::optional<Array> where = std::nullopt;
};
// mean, nanmean, all, any (NumPy's have no initial):
struct MeanOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  bool keepdims = false;
  std::optional<Array> where = std::nullopt;
};
// var, std, nanvar, nanstd: the sum of squared deviations over max(count - ddof, 0) (count: the
// elements `where` keeps).
struct VarOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  int64_t ddof = 0;
  bool keepdims = false;
  std::optional<Array> where = std::nullopt;
};
// argmax, argmin, nanargmax, nanargmin (one axis, or the flattened array):
struct ArgReduceOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = std::nullopt;
  bool keepdims = false;
};
// ptp, count_nonzero, median, nanmedian (and nn::logsumexp, logmeanexp):
struct AxisOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  bool keepdims = false;
};
Array sum(const Array &x, const ReduceOptions &options);
Array prod(const Array &x, const ReduceOptions &options);
Array max(const Array &x, const ReduceOptions &options);
Array min(const Array &x, const ReduceOptions &options);
Array amax(const Array &x, const ReduceOptions &options);
Array amin(const Array &x, const ReduceOptions &options);
Array mean(const Array &x, const MeanOptions &options);
Array all(const Array &x, const MeanOptions &options);
Array any(const Array &x, const MeanOptions &options);
Array argmax(const Array &x, const ArgReduceOptions &options);
Array argmin(const Array &x, const ArgReduceOptions &options);
template <class = void> Array sum(const Array &x, const Axes &axis = {}) {
  return sum(x, {.axis = axis});
}
template <class = void> Array prod(const Array &x, const Axes &axis = {}) {
  return prod(x, {.axis = axis});
}
template <class = void> Array max(const Array &x, const Axes &axis = {}) {
  return max(x, {.axis = axis});
}
template <class = void> Array min(const Array &x, const Axes &axis = {}) {
  return min(x, {.axis = axis});
}
template <class = void> Array amax(const Array &x, const Axes &axis = {}) {
  return amax(x, {.axis = axis});
}
template <class = void> Array amin(const Array &x, const Axes &axis = {}) {
  return amin(x, {.axis = axis});
}
template <class = void> Array mean(const Array &x, const Axes &axis = {}) {
  return mean(x, {.axis = axis});
}
template <class = void> Array all(const Array &x, const Axes &axis = {}) {
  return all(x, {.axis = axis});
}
template <class = void> Array any(const Array &x, const Axes &axis = {}) {
  return any(x, {.axis = axis});
}
template <class = void> Array argmax(const Array &x, std::optional<int64_t> axis = std::nullopt) {
  return argmax(x, {.axis = axis});
}
template <class = void> Array argmin(const Array &x, std::optional<int64_t> axis = std::nullopt) {
  return argmin(x, {.axis = axis});
}
// Running sums and products along axis (the flattened array without one); bools and smaller
// integers accumulate in int64, as sum.
Array cumsum(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array cumprod(const Array &x, std::optional<int64_t> axis = std::nullopt);
// The array API's cumulative_sum(x, /, *, axis, include_initial): keywords only.
struct CumulativeOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = std::nullopt;
  bool include_initial = false;
};
Array cumulative_sum(const Array &x, const CumulativeOptions &options = {});
Array cumulative_prod(const Array &x, const CumulativeOptions &options = {});
Array nancumsum(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array nancumprod(const Array &x, std::optional<int64_t> axis = std::nullopt);
// unwrap(p, discont, axis, *, period): period by keyword, unwrap(p, {.period = 360}).
struct UnwrapOptions {
  KeywordOnly keyword_only{};
  std::optional<double> discont = std::nullopt;
  int64_t axis = -1;
  double period = 2 * pi;
};
Array unwrap(const Array &p, const UnwrapOptions &options);
template <class = void>
Array unwrap(const Array &p, std::optional<double> discont = std::nullopt, int64_t axis = -1) {
  return unwrap(p, {.discont = discont, .axis = axis});
}
// Sorted along axis (the flattened array without one), NaNs last; argsort is stable. descending
// is keyword-only (JAX's): sort(x, {.axis = 0, .descending = true}).
struct SortOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = -1;
  bool descending = false;
};
Array sort(const Array &x, const SortOptions &options);
Array argsort(const Array &x, const SortOptions &options);
template <class = void> Array sort(const Array &x, std::optional<int64_t> axis = -1) {
  return sort(x, {.axis = axis});
}
template <class = void> Array argsort(const Array &x, std::optional<int64_t> axis = -1) {
  return argsort(x, {.axis = axis});
}
// The indices that sort by the last key, then the one before it, ...
Array lexsort(const std::vector<Array> &keys, int64_t axis = -1);
// Element kth in its sorted place, smaller ones before, larger after (jx returns the whole line
// sorted, which is such an arrangement).
Array partition(const Array &x, int64_t kth, int64_t axis = -1);
Array argpartition(const Array &x, int64_t kth, int64_t axis = -1);
// Where v's elements would be inserted into the sorted 1-D a: before equal ones ("left") or after
// ("right"); NaNs sort last.
// ---- set routines (without a size, the result's length depends on the values: not in jit) ----
// The sorted unique values (rows along axis), JAX's: the first `size` of them padded with
// fill_value (default: the smallest). NumPy's positionals after ar are return_index,
// return_inverse and return_counts, so the rest are keywords: unique(x, {.axis = 0, .size = 4}).
struct UniqueOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = std::nullopt;
  bool equal_nan = true;
  std::optional<int64_t> size = std::nullopt;
  std::optional<Array> fill_value = std::nullopt;
};
Array unique(const Array &ar, const UniqueOptions &options = {});
// The static `size` of a result whose length depends on the values, padded with fill_value
// (keywords only in JAX): unique_values, unique_all/counts/inverse, union1d, extract, compress.
struct SizeOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> size = std::nullopt;
  std::optional<Array> fill_value = std::nullopt;
};
// The array API's forms, over the flattened x (NaNs distinct): values, the first index of each,
// the inverse (in x's shape) and the counts.
struct UniqueAllResult {
  Array values, indices, inverse_indices, counts;
};
struct UniqueCountsResult {
  Array values, counts;
};
struct UniqueInverseResult {
  Array values, inverse_indices;
};
UniqueAllResult unique_all(const Array &x, const SizeOptions &options = {});
UniqueCountsResult unique_counts(const Array &x, const SizeOptions &options = {});
UniqueInverseResult unique_inverse(const Array &x, const SizeOptions &options = {});
Array unique_values(const Array &x, const SizeOptions &options = {});
Array union1d(const Array &ar1, const Array &ar2, const SizeOptions &options = {});
// intersect1d, setdiff1d, setxor1d: (ar1, ar2, assume_unique) positional, as NumPy's; size and
// fill_value by keyword: setdiff1d(a, b, {.size = 3}).
struct SetOptions {
  KeywordOnly keyword_only{};
  bool assume_unique = false;
  std::optional<int64_t> size = std::nullopt;
  std::optional<Array> fill_value = std::nullopt;
};
Array intersect1d(const Array &ar1, const Array &ar2, const SetOptions &options);
Array setdiff1d(const Array &ar1, const Array &ar2, const SetOptions &options);
Array setxor1d(const Array &ar1, const Array &ar2, const SetOptions &options);
template <class = void>
Array intersect1d(const Array &ar1, const Array &ar2, bool assume_unique = false) {
  return intersect1d(ar1, ar2, {.assume_unique = assume_unique});
}
template <class = void>
Array setdiff1d(const Array &ar1, const Array &ar2, bool assume_unique = false) {
  return setdiff1d(ar1, ar2, {.assume_unique = assume_unique});
}
template <class = void>
Array setxor1d(const Array &ar1, const Array &ar2, bool assume_unique = false) {
  return setxor1d(ar1, ar2, {.assume_unique = assume_unique});
}
// searchsorted(a, v, side); method by keyword (NumPy's fourth positional is sorter): "scan" (a
// binary search, JAX's default; "scan_unrolled" the same) or "compare_all".
struct SearchsortedOptions {
  KeywordOnly keyword_only{};
  std::string_view side = "left";
  std::string_view method = "scan";
};
Array searchsorted(const Array &a, const Array &v, const SearchsortedOptions &options);
template <class = void>
Array searchsorted(const Array &a, const Array &v, std::string_view side = "left") {
  return searchsorted(a, v, {.side = side});
}
Array digitize(const Array &x, const Array &bins, bool right = false);
// Linear interpolation of (xp, fp) at x; left and right default to fp's end values:
// interp(x, xp, fp, left, right) or interp(x, xp, fp, {.right = 0.0}).
struct InterpOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> left = std::nullopt;
  std::optional<Array> right = std::nullopt;
};
Array interp(const Array &x, const Array &xp, const Array &fp, const InterpOptions &options);
template <class = void>
Array interp(const Array &x, const Array &xp, const Array &fp,
             const std::optional<Array> &left = std::nullopt,
             const std::optional<Array> &right = std::nullopt) {
  return interp(x, xp, fp, {.left = left, .right = right});
}
// method: "linear" (the default), "lower", "higher", "nearest" or "midpoint". A line holding a NaN
// gives NaN; the nan* forms skip NaNs. Several quantiles stack along a new leading axis.
// Positional: (a, q, axis) (NumPy's fourth is out); method and keepdims by keyword:
// quantile(x, 0.5, {.axis = 0, .method = "lower", .keepdims = true}).
struct QuantileOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  std::string_view method = "linear";
  bool keepdims = false;
};
Array quantile(const Array &a, double q, const QuantileOptions &options);
Array quantile(const Array &a, const std::vector<double> &q, const QuantileOptions &options);
Array percentile(const Array &a, double q, const QuantileOptions &options);
Array percentile(const Array &a, const std::vector<double> &q, const QuantileOptions &options);
Array nanquantile(const Array &a, double q, const QuantileOptions &options);
Array nanquantile(const Array &a, const std::vector<double> &q, const QuantileOptions &options);
Array nanpercentile(const Array &a, double q, const QuantileOptions &options);
Array nanpercentile(const Array &a, const std::vector<double> &q, const QuantileOptions &options);
template <class = void> Array quantile(const Array &a, double q, const Axes &axis = {}) {
  return quantile(a, q, {.axis = axis});
}
template <class = void>
Array quantile(const Array &a, const std::vector<double> &q, const Axes &axis = {}) {
  return quantile(a, q, {.axis = axis});
}
template <class = void> Array percentile(const Array &a, double q, const Axes &axis = {}) {
  return percentile(a, q, {.axis = axis});
}
template <class = void>
Array percentile(const Array &a, const std::vector<double> &q, const Axes &axis = {}) {
  return percentile(a, q, {.axis = axis});
}
template <class = void> Array nanquantile(const Array &a, double q, const Axes &axis = {}) {
  return nanquantile(a, q, {.axis = axis});
}
template <class = void>
Array nanquantile(const Array &a, const std::vector<double> &q, const Axes &axis = {}) {
  return nanquantile(a, q, {.axis = axis});
}
template <class = void> Array nanpercentile(const Array &a, double q, const Axes &axis = {}) {
  return nanpercentile(a, q, {.axis = axis});
}
template <class = void>
Array nanpercentile(const Array &a, const std::vector<double> &q, const Axes &axis = {}) {
  return nanpercentile(a, q, {.axis = axis});
}
// median(a, axis); keepdims by keyword (NumPy's third positional is out).
Array median(const Array &a, const AxisOptions &options);
Array nanmedian(const Array &a, const AxisOptions &options);
template <class = void> Array median(const Array &a, const Axes &axis = {}) {
  return median(a, {.axis = axis});
}
template <class = void> Array nanmedian(const Array &a, const Axes &axis = {}) {
  return nanmedian(a, {.axis = axis});
}
// Gathers: mode "fill" (jnp's default: out-of-range indices give fill_value, NaN for floats, the
// smallest integer, true), "clip" or "wrap". take without an axis takes from the flattened array.
// take(a, indices, axis); mode and fill_value by keyword (NumPy's fourth positional is out).
struct TakeOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = std::nullopt;
  std::string_view mode = "fill";
  std::optional<Array> fill_value = std::nullopt;
};
Array take(const Array &a, const Array &indices, const TakeOptions &options);
template <class = void>
Array take(const Array &a, const Array &indices, std::optional<int64_t> axis = std::nullopt) {
  return take(a, indices, {.axis = axis});
}
Array take_along_axis(const Array &arr, const Array &indices, std::optional<int64_t> axis,
                      std::string_view mode = "fill");
// a with values put at the flat indices (jnp.put(..., inplace=False)), or along an axis.
Array put(const Array &a, const Array &indices, const Array &values,
          std::string_view mode = "fill");
Array put_along_axis(const Array &arr, const Array &indices, const Array &values,
                     std::optional<int64_t> axis);
// The indices of nonzero elements, one array per axis. size: the static number of them (padded
// with fill_value, or cut); without it the count must be concrete (not inside jit), as jnp's.
// Keywords only, as JAX's: nonzero(a, {.size = 3, .fill_value = -1}); flatnonzero and argwhere
// take the same.
struct NonzeroOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> size = std::nullopt;
  int64_t fill_value = 0;
};
std::vector<Array> nonzero(const Array &a, const NonzeroOptions &options = {});
Array flatnonzero(const Array &a, const NonzeroOptions &options = {});
Array argwhere(const Array &a, const NonzeroOptions &options = {});
// where(condition) alone is nonzero(condition) (with a size: nonzero(condition, {.size = n})).
std::vector<Array> where(const Array &condition);
// extract(condition, arr, *, size, fill_value) (fill_value defaults to 0).
Array extract(const Array &condition, const Array &arr, const SizeOptions &options = {});
// compress(condition, a, axis); size and fill_value by keyword (fill_value defaults to 0).
struct CompressOptions {
  KeywordOnly keyword_only{};
  std::optional<int64_t> axis = std::nullopt;
  std::optional<int64_t> size = std::nullopt;
  std::optional<Array> fill_value = std::nullopt;
};
Array compress(const Array &condition, const Array &a, const CompressOptions &options);
template <class = void>
Array compress(const Array &condition, const Array &a, std::optional<int64_t> axis = std::nullopt) {
  return compress(condition, a, {.axis = axis});
}
// Counts (or weights summed) of each nonnegative integer: length (static) bins, else max(x) + 1
// (concrete) or minlength. bincount(x, weights, minlength), or bincount(x, {.length = 5}).
struct BincountOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> weights = std::nullopt;
  int64_t minlength = 0;
  std::optional<int64_t> length = std::nullopt;
};
Array bincount(const Array &x, const BincountOptions &options);
template <class = void>
Array bincount(const Array &x, const std::optional<Array> &weights = std::nullopt,
               int64_t minlength = 0) {
  return bincount(x, {.weights = weights, .minlength = minlength});
}
std::vector<Array> unravel_index(const Array &indices, const Shape &shape);
Array ravel_multi_index(const std::vector<Array> &multi_index, const Shape &dims,
                        std::string_view mode = "raise");
// ---- histograms (JAX's: the counts take the weights' dtype, a's without weights) ----
// A `bins=` argument: a count of equal bins, or the edges.
using Bins = std::variant<int64_t, Array>;
// A `range=` argument: the lower and upper edge.
using Range = std::pair<double, double>;
// histogram_bin_edges(a, bins, range), or histogram_bin_edges(a, {.range = {{0, 1}}}).
struct BinEdgesOptions {
  KeywordOnly keyword_only{};
  Bins bins = int64_t(10);
  std::optional<Range> range = std::nullopt;
};
Array histogram_bin_edges(const Array &a, const BinEdgesOptions &options);
template <class = void>
Array histogram_bin_edges(const Array &a, const Bins &bins = int64_t(10),
                          const std::optional<Range> &range = std::nullopt) {
  return histogram_bin_edges(a, {.bins = bins, .range = range});
}
// (counts, bin edges): histogram(a, bins, range), density and weights by keyword (NumPy's fourth
// positional is density, JAX's weights): histogram(a, 5, {{0, 1}}, {.density = true}) is
// histogram(a, {.bins = 5, .range = {{0, 1}}, .density = true}).
struct HistogramOptions {
  KeywordOnly keyword_only{};
  Bins bins = int64_t(10);
  std::optional<Range> range = std::nullopt;
  bool density = false;
  std::optional<Array> weights = std::nullopt;
};
std::pair<Array, Array> histogram(const Array &a, const HistogramOptions &options);
template <class = void>
std::pair<Array, Array> histogram(const Array &a, const Bins &bins = int64_t(10),
                                  const std::optional<Range> &range = std::nullopt) {
  return histogram(a, {.bins = bins, .range = range});
}
// histogramdd and histogram2d: one bins for all dimensions, or one per dimension; density and
// weights by keyword, as histogram's.
struct HistogramddOptions {
  KeywordOnly keyword_only{};
  std::vector<Bins> bins = {int64_t(10)};
  std::optional<std::vector<Range>> range = std::nullopt;
  bool density = false;
  std::optional<Array> weights = std::nullopt;
};
// sample (N, D): (the D-dimensional counts, each dimension's edges).
std::pair<Array, std::vector<Array>> histogramdd(const Array &sample,
                                                 const HistogramddOptions &options);
template <class = void>
std::pair<Array, std::vector<Array>>
histogramdd(const Array &sample, const std::vector<Bins> &bins = {int64_t(10)},
            const std::optional<std::vector<Range>> &range = std::nullopt) {
  return histogramdd(sample, {.bins = bins, .range = range});
}
// (counts, x edges, y edges).
std::tuple<Array, Array, Array> histogram2d(const Array &x, const Array &y,
                                            const HistogramddOptions &options);
template <class = void>
std::tuple<Array, Array, Array>
histogram2d(const Array &x, const Array &y, const std::vector<Bins> &bins = {int64_t(10)},
            const std::optional<std::vector<Range>> &range = std::nullopt) {
  return histogram2d(x, y, {.bins = bins, .range = range});
}
// var(x, axis) and std(x, axis); ddof, keepdims and where by keyword (NumPy's third positional is
// dtype): std(x, {.axis = -1, .ddof = 1, .keepdims = true, .where = mask}).
Array var(const Array &x, const VarOptions &options);
Array std(const Array &x, const VarOptions &options);
template <class = void> Array var(const Array &x, const Axes &axis = {}) {
  return var(x, {.axis = axis});
}
template <class = void> Array std(const Array &x, const Axes &axis = {}) {
  return std(x, {.axis = axis});
}
// The weighted mean; weights of a's shape, or 1-D along a single axis. average(a, axis, weights);
// keepdims by keyword (NumPy's fourth positional is returned).
struct AverageOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  std::optional<Array> weights = std::nullopt;
  bool keepdims = false;
};
Array average(const Array &a, const AverageOptions &options);
template <class = void>
Array average(const Array &a, const Axes &axis = {},
              const std::optional<Array> &weights = std::nullopt) {
  return average(a, {.axis = axis, .weights = weights});
}
Array ptp(const Array &x, const AxisOptions &options);
Array count_nonzero(const Array &x, const AxisOptions &options);
template <class = void> Array ptp(const Array &x, const Axes &axis = {}) {
  return ptp(x, {.axis = axis});
}
template <class = void> Array count_nonzero(const Array &x, const Axes &axis = {}) {
  return count_nonzero(x, {.axis = axis});
}
// Reductions that skip NaNs: an all-NaN slice is NaN (nanmax and nanmin without initial,
// nanmean), as jnp; the same keywords as sum, mean and var.
Array nansum(const Array &x, const ReduceOptions &options);
Array nanprod(const Array &x, const ReduceOptions &options);
Array nanmax(const Array &x, const ReduceOptions &options);
Array nanmin(const Array &x, const ReduceOptions &options);
Array nanmean(const Array &x, const MeanOptions &options);
Array nanvar(const Array &x, const VarOptions &options);
Array nanstd(const Array &x, const VarOptions &options);
template <class = void> Array nansum(const Array &x, const Axes &axis = {}) {
  return nansum(x, {.axis = axis});
}
template <class = void> Array nanprod(const Array &x, const Axes &axis = {}) {
  return nanprod(x, {.axis = axis});
}
template <class = void> Array nanmax(const Array &x, const Axes &axis = {}) {
  return nanmax(x, {.axis = axis});
}
template <class = void> Array nanmin(const Array &x, const Axes &axis = {}) {
  return nanmin(x, {.axis = axis});
}
template <class = void> Array nanmean(const Array &x, const Axes &axis = {}) {
  return nanmean(x, {.axis = axis});
}
template <class = void> Array nanvar(const Array &x, const Axes &axis = {}) {
  return nanvar(x, {.axis = axis});
}
template <class = void> Array nanstd(const Array &x, const Axes &axis = {}) {
  return nanstd(x, {.axis = axis});
}
// jnp's: -1 for an all-NaN slice (NumPy raises).
Array nanargmax(const Array &x, const ArgReduceOptions &options);
Array nanargmin(const Array &x, const ArgReduceOptions &options);
template <class = void>
Array nanargmax(const Array &x, std::optional<int64_t> axis = std::nullopt) {
  return nanargmax(x, {.axis = axis});
}
template <class = void>
Array nanargmin(const Array &x, std::optional<int64_t> axis = std::nullopt) {
  return nanargmin(x, {.axis = axis});
}
// Covariance of the variables in m's rows (rowvar) or columns, with y's appended; ddof defaults to
// 1, or 0 with bias. cov(m, y, rowvar, bias, ddof) in NumPy's order, or cov(m, {.rowvar = false}).
struct CovOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> y = std::nullopt;
  bool rowvar = true;
  bool bias = false;
  std::optional<int64_t> ddof = std::nullopt;
};
Array cov(const Array &m, const CovOptions &options);
template <class = void>
Array cov(const Array &m, const std::optional<Array> &y = std::nullopt, bool rowvar = true,
          bool bias = false, std::optional<int64_t> ddof = std::nullopt) {
  return cov(m, {.y = y, .rowvar = rowvar, .bias = bias, .ddof = ddof});
}
// corrcoef(x, y, rowvar), or corrcoef(x, {.rowvar = false}).
struct CorrcoefOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> y = std::nullopt;
  bool rowvar = true;
};
Array corrcoef(const Array &x, const CorrcoefOptions &options);
template <class = void>
Array corrcoef(const Array &x, const std::optional<Array> &y = std::nullopt, bool rowvar = true) {
  return corrcoef(x, {.y = y, .rowvar = rowvar});
}

// ---- contractions ----
Array einsum(std::string_view subscripts, const std::vector<Array> &operands);
template <class... A>
Array einsum(std::string_view subscripts, const Array &first, const A &...rest) {
  return einsum(subscripts, std::vector<Array>{first, rest...});
}
Array matmul(const Array &a, const Array &b);
Array dot(const Array &a, const Array &b);
Array tensordot(const Array &a, const Array &b, int64_t axes = 2);
Array tensordot(const Array &a, const Array &b,
                const std::pair<std::vector<int64_t>, std::vector<int64_t>> &axes);
Array vdot(const Array &a, const Array &b);
Array outer(const Array &a, const Array &b);
Array inner(const Array &a, const Array &b);
Array kron(const Array &a, const Array &b);
// cross(a, b, axisa, axisb, axisc) in NumPy's order, or cross(a, b, {.axis = 0}) (axis, when
// given, stands for all three).
struct CrossOptions {
  KeywordOnly keyword_only{};
  int64_t axisa = -1;
  int64_t axisb = -1;
  int64_t axisc = -1;
  std::optional<int64_t> axis = std::nullopt;
};
Array cross(const Array &a, const Array &b, const CrossOptions &options);
template <class = void>
Array cross(const Array &a, const Array &b, int64_t axisa = -1, int64_t axisb = -1,
            int64_t axisc = -1) {
  return cross(a, b, {.axisa = axisa, .axisb = axisb, .axisc = axisc});
}
// vecdot(x1, x2, /, *, axis=-1): axis by keyword, vecdot(a, b, {.axis = 0}) (linalg's too).
struct VecdotOptions {
  KeywordOnly keyword_only{};
  int64_t axis = -1;
};
Array vecdot(const Array &x1, const Array &x2, const VecdotOptions &options = {});
Array matvec(const Array &x1, const Array &x2);
Array vecmat(const Array &x1, const Array &x2);
// mode: "full", "same" or "valid" (correlate's default).
Array convolve(const Array &a, const Array &v, std::string_view mode = "full");
Array correlate(const Array &a, const Array &v, std::string_view mode = "valid");
// Polynomials as coefficient vectors, highest power first.
Array polyval(const Array &p, const Array &x);
Array polyadd(const Array &a1, const Array &a2);
Array polysub(const Array &a1, const Array &a2);
Array polymul(const Array &a1, const Array &a2);
Array polyder(const Array &p, int64_t m = 1);
// polyint(p, m, k), or polyint(p, {.k = 2}).
struct PolyintOptions {
  KeywordOnly keyword_only{};
  int64_t m = 1;
  Array k = 0;
};
Array polyint(const Array &p, const PolyintOptions &options);
template <class = void> Array polyint(const Array &p, int64_t m = 1, const Array &k = 0) {
  return polyint(p, {.m = m, .k = k});
}
Array poly(const Array &seq_of_zeros);
// trapezoid(y, x, dx, axis) in NumPy's order, or trapezoid(y, {.axis = 0}).
struct TrapezoidOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> x = std::nullopt;
  double dx = 1.0;
  int64_t axis = -1;
};
Array trapezoid(const Array &y, const TrapezoidOptions &options);
template <class = void>
Array trapezoid(const Array &y, const std::optional<Array> &x = std::nullopt, double dx = 1.0,
                int64_t axis = -1) {
  return trapezoid(y, {.x = x, .dx = dx, .axis = axis});
}
// ediff1d(ary, to_end, to_begin), or ediff1d(ary, {.to_begin = 0}).
struct Ediff1dOptions {
  KeywordOnly keyword_only{};
  std::optional<Array> to_end = std::nullopt;
  std::optional<Array> to_begin = std::nullopt;
};
Array ediff1d(const Array &ary, const Ediff1dOptions &options);
template <class = void>
Array ediff1d(const Array &ary, const std::optional<Array> &to_end = std::nullopt,
              const std::optional<Array> &to_begin = std::nullopt) {
  return ediff1d(ary, {.to_end = to_end, .to_begin = to_begin});
}
// gradient(f, {.spacing = 0.5, .axis = 0}): one array per axis (NumPy returns the array itself
// for a single axis). NumPy's second positional is the spacing (varargs) and axis a keyword, so
// both are keywords here: gradient(f, 0) does not compile.
struct GradientOptions {
  KeywordOnly keyword_only{};
  double spacing = 1.0;
  Axes axis = {};
};
std::vector<Array> gradient(const Array &f, const GradientOptions &options = {});

// ---- jnp.fft ----
// Discrete Fourier transforms, NumPy's and JAX's signatures and meaning: n (s) crops or zero-pads
// the input along the axis (axes) first; norm is "backward" (the default: the inverse scaled by
// 1 / n), "ortho" (both by 1 / sqrt(n)) or "forward" (the forward by 1 / n). Real and integer
// inputs become complex of the matching precision (float32 -> complex64; otherwise complex128).
// Any length: runtime/fft.h.
namespace fft {
using Norm = std::optional<std::string>;
Array fft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
          const Norm &norm = std::nullopt);
Array ifft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const Norm &norm = std::nullopt);
// The n / 2 + 1 non-negative frequencies of a real input's transform.
Array rfft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const Norm &norm = std::nullopt);
// The real signal of length n (default 2 (m - 1)) whose rfft is a; imaginary parts a Hermitian
// spectrum cannot have (at 0 and n / 2) are ignored.
Array irfft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            const Norm &norm = std::nullopt);
// The transform of a Hermitian signal given by its first half (irfft of conj(a), scaled as a
// forward transform), and its inverse.
Array hfft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const Norm &norm = std::nullopt);
Array ihfft(const Array &a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            const Norm &norm = std::nullopt);
// Over several axes: every axis by default, the last len(s) axes when only s is given.
Array fftn(const Array &a, const std::optional<Shape> &s = std::nullopt, const Axes &axes = {},
           const Norm &norm = std::nullopt);
Array ifftn(const Array &a, const std::optional<Shape> &s = std::nullopt, const Axes &axes = {},
            const Norm &norm = std::nullopt);
Array rfftn(const Array &a, const std::optional<Shape> &s = std::nullopt, const Axes &axes = {},
            const Norm &norm = std::nullopt);
Array irfftn(const Array &a, const std::optional<Shape> &s = std::nullopt, const Axes &axes = {},
             const Norm &norm = std::nullopt);
Array fft2(const Array &a, const std::optional<Shape> &s = std::nullopt,
           const Axes &axes = {-2, -1}, const Norm &norm = std::nullopt);
Array ifft2(const Array &a, const std::optional<Shape> &s = std::nullopt,
            const Axes &axes = {-2, -1}, const Norm &norm = std::nullopt);
Array rfft2(const Array &a, const std::optional<Shape> &s = std::nullopt,
            const Axes &axes = {-2, -1}, const Norm &norm = std::nullopt);
Array irfft2(const Array &a, const std::optional<Shape> &s = std::nullopt,
             const Axes &axes = {-2, -1}, const Norm &norm = std::nullopt);
// Sample frequencies: [0, 1, ..., -(n / 2), ..., -1] / (d n), and the non-negative ones.
Array fftfreq(int64_t n, double d = 1.0, std::optional<DType> dtype = std::nullopt);
Array rfftfreq(int64_t n, double d = 1.0, std::optional<DType> dtype = std::nullopt);
// The zero frequency moved to the middle of each axis (every axis by default), and back.
Array fftshift(const Array &x, const Axes &axes = {});
Array ifftshift(const Array &x, const Axes &axes = {});
} // namespace fft

// ---- files ----
// jnp.save / jnp.load of NumPy .npy files.
void save(const std::string &path, const Array &x);
Array load(const std::string &path);

} // namespace jx::numpy

// jnp.linalg, as jnp::linalg (it includes this header first).
#include <jx/linalg.h>
