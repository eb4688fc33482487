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

// An `axis=` argument: None (all axes), one axis, or several; negative counts from the end.
class Axes {
public:
  Axes() = default;
  Axes(std::nullopt_t) {}
  template <std::integral T> Axes(T axis) : axes_(std::vector<int64_t>{axis}) {}
  Axes(std::initializer_list<int64_t> axes) : axes_(std::vector<int64_t>(axes)) {}
  Axes(std::vector<int64_t> axes) : axes_(std::move(axes)) {}
  bool is_none() const { return !axes_.has_value(); }
  const std::vector<int64_t> &axes() const { return *axes_; }

private:
  std::optional<std::vector<int64_t>> axes_;
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
// jnp.linspace: start and stop may be arrays; the new axis is `axis` of the result.
Array linspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true,
               int64_t axis = 0, std::optional<DType> dtype = std::nullopt);
Array eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0, DType dtype = float64);
Array identity(int64_t n, DType dtype = float64);
// jx arrays are never uninitialized: empty is zeros, as in jnp.
Array empty(const Shape &shape, DType dtype = float64);
Array empty_like(const Array &x, std::optional<DType> dtype = std::nullopt);
Array copy(const Array &x);
Array logspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true,
               const Array &base = 10.0, std::optional<DType> dtype = std::nullopt,
               int64_t axis = 0);
Array geomspace(const Array &start, const Array &stop, int64_t num = 50, bool endpoint = true,
                std::optional<DType> dtype = std::nullopt, int64_t axis = 0);
Array tri(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0, DType dtype = float64);
Array tril(const Array &m, int64_t k = 0);
Array triu(const Array &m, int64_t k = 0);
// (rows, cols) of the lower/upper triangle of an n x m matrix, in row-major order.
std::pair<Array, Array> tril_indices(int64_t n, int64_t k = 0,
                                     std::optional<int64_t> m = std::nullopt);
std::pair<Array, Array> triu_indices(int64_t n, int64_t k = 0,
                                     std::optional<int64_t> m = std::nullopt);
std::pair<Array, Array> tril_indices_from(const Array &arr, int64_t k = 0);
std::pair<Array, Array> triu_indices_from(const Array &arr, int64_t k = 0);
std::vector<Array> diag_indices(int64_t n, int64_t ndim = 2);
std::vector<Array> diag_indices_from(const Array &arr);
Array diag(const Array &v, int64_t k = 0);
Array diagflat(const Array &v, int64_t k = 0);
Array diagonal(const Array &a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
Array trace(const Array &a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
Array vander(const Array &x, std::optional<int64_t> n = std::nullopt, bool increasing = false);
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
// maximum(min, x), then minimum(max, x), for the bounds given (jnp.clip).
Array clip(const Array &x, const std::optional<Array> &min = std::nullopt,
           const std::optional<Array> &max = std::nullopt);
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
// infinities close only to themselves, NaN to nothing unless equal_nan (JAX's).
Array isclose(const Array &a, const Array &b, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
// jnp.allclose: all(isclose(...)), a bool scalar.
Array allclose(const Array &a, const Array &b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
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
Array nan_to_num(const Array &x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                 std::optional<double> neginf = std::nullopt);
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
// Whether each element of element is in test_elements.
Array isin(const Array &element, const Array &test_elements, bool invert = false);
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
// pair for all axes.
Array pad(const Array &x, const std::vector<std::pair<int64_t, int64_t>> &pad_width,
          const Array &constant_values = 0);
Array pad(const Array &x, int64_t pad_width, const Array &constant_values = 0);
// jnp.diff(a, n, axis, prepend, append).
Array diff(const Array &a, int64_t n = 1, int64_t axis = -1,
           const std::optional<Array> &prepend = std::nullopt,
           const std::optional<Array> &append = std::nullopt);
Array flip(const Array &x, const Axes &axis = {});
// jnp.roll: with axis None the array is rolled flattened.
Array roll(const Array &x, const std::vector<int64_t> &shift, const Axes &axis = {});
Array roll(const Array &x, int64_t shift, const Axes &axis = {});
Array permute_dims(const Array &x, std::vector<int64_t> axes);
Array matrix_transpose(const Array &x);
Array rollaxis(const Array &x, int64_t axis, int64_t start = 0);
Array rot90(const Array &m, int64_t k = 1, std::pair<int64_t, int64_t> axes = {0, 1});
Array fliplr(const Array &m);
Array flipud(const Array &m);
Array atleast_1d(const Array &x);
Array atleast_2d(const Array &x);
Array atleast_3d(const Array &x);
Array concat(const std::vector<Array> &xs, int64_t axis = 0);
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
std::vector<Array> unstack(const Array &x, int64_t axis = 0);
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
Array sum(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array prod(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array max(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array min(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array amax(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array amin(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array mean(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array all(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array any(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array argmax(const Array &x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
Array argmin(const Array &x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
// Running sums and products along axis (the flattened array without one); bools and smaller
// integers accumulate in int64, as sum.
Array cumsum(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array cumprod(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array cumulative_sum(const Array &x, std::optional<int64_t> axis = std::nullopt,
                     bool include_initial = false);
Array cumulative_prod(const Array &x, std::optional<int64_t> axis = std::nullopt,
                      bool include_initial = false);
Array nancumsum(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array nancumprod(const Array &x, std::optional<int64_t> axis = std::nullopt);
Array unwrap(const Array &p, std::optional<double> discont = std::nullopt, int64_t axis = -1,
             double period = 2 * pi);
// Sorted along axis (the flattened array without one), NaNs last; argsort is stable.
Array sort(const Array &x, std::optional<int64_t> axis = -1, bool descending = false);
Array argsort(const Array &x, std::optional<int64_t> axis = -1, bool descending = false);
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
// fill_value (default: the smallest).
Array unique(const Array &ar, std::optional<int64_t> axis = std::nullopt, bool equal_nan = true,
             std::optional<int64_t> size = std::nullopt,
             const std::optional<Array> &fill_value = std::nullopt);
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
UniqueAllResult unique_all(const Array &x, std::optional<int64_t> size = std::nullopt,
                           const std::optional<Array> &fill_value = std::nullopt);
UniqueCountsResult unique_counts(const Array &x, std::optional<int64_t> size = std::nullopt,
                                 const std::optional<Array> &fill_value = std::nullopt);
UniqueInverseResult unique_inverse(const Array &x, std::optional<int64_t> size = std::nullopt,
                                   const std::optional<Array> &fill_value = std::nullopt);
Array unique_values(const Array &x, std::optional<int64_t> size = std::nullopt,
                    const std::optional<Array> &fill_value = std::nullopt);
Array union1d(const Array &ar1, const Array &ar2, std::optional<int64_t> size = std::nullopt,
              const std::optional<Array> &fill_value = std::nullopt);
Array intersect1d(const Array &ar1, const Array &ar2, bool assume_unique = false,
                  std::optional<int64_t> size = std::nullopt,
                  const std::optional<Array> &fill_value = std::nullopt);
Array setdiff1d(const Array &ar1, const Array &ar2, bool assume_unique = false,
                std::optional<int64_t> size = std::nullopt,
                const std::optional<Array> &fill_value = std::nullopt);
Array setxor1d(const Array &ar1, const Array &ar2, bool assume_unique = false,
               std::optional<int64_t> size = std::nullopt,
               const std::optional<Array> &fill_value = std::nullopt);
// method: "scan" (a binary search, JAX's default; "scan_unrolled" the same) or "compare_all".
Array searchsorted(const Array &a, const Array &v, std::string_view side = "left",
                   std::string_view method = "scan");
Array digitize(const Array &x, const Array &bins, bool right = false);
// Linear interpolation of (xp, fp) at x; left and right default to fp's end values.
Array interp(const Array &x, const Array &xp, const Array &fp,
             const std::optional<Array> &left = std::nullopt,
             const std::optional<Array> &right = std::nullopt);
// method: "linear" (the default), "lower", "higher", "nearest" or "midpoint". A line holding a NaN
// gives NaN; the nan* forms skip NaNs. Several quantiles stack along a new leading axis.
Array quantile(const Array &a, double q, const Axes &axis = {}, std::string_view method = "linear",
               bool keepdims = false);
Array quantile(const Array &a, const std::vector<double> &q, const Axes &axis = {},
               std::string_view method = "linear", bool keepdims = false);
Array percentile(const Array &a, double q, const Axes &axis = {},
                 std::string_view method = "linear", bool keepdims = false);
Array percentile(const Array &a, const std::vector<double> &q, const Axes &axis = {},
                 std::string_view method = "linear", bool keepdims = false);
Array median(const Array &a, const Axes &axis = {}, bool keepdims = false);
Array nanquantile(const Array &a, double q, const Axes &axis = {},
                  std::string_view method = "linear", bool keepdims = false);
Array nanquantile(const Array &a, const std::vector<double> &q, const Axes &axis = {},
                  std::string_view method = "linear", bool keepdims = false);
Array nanpercentile(const Array &a, double q, const Axes &axis = {},
                    std::string_view method = "linear", bool keepdims = false);
Array nanpercentile(const Array &a, const std::vector<double> &q, const Axes &axis = {},
                    std::string_view method = "linear", bool keepdims = false);
Array nanmedian(const Array &a, const Axes &axis = {}, bool keepdims = false);
// Gathers: mode "fill" (jnp's default: out-of-range indices give fill_value, NaN for floats, the
// smallest integer, true), "clip" or "wrap". take without an axis takes from the flattened array.
Array take(const Array &a, const Array &indices, std::optional<int64_t> axis = std::nullopt,
           std::string_view mode = "fill", const std::optional<Array> &fill_value = std::nullopt);
Array take_along_axis(const Array &arr, const Array &indices, std::optional<int64_t> axis,
                      std::string_view mode = "fill");
// a with values put at the flat indices (jnp.put(..., inplace=False)), or along an axis.
Array put(const Array &a, const Array &indices, const Array &values,
          std::string_view mode = "fill");
Array put_along_axis(const Array &arr, const Array &indices, const Array &values,
                     std::optional<int64_t> axis);
// The indices of nonzero elements, one array per axis. size: the static number of them (padded
// with fill_value, or cut); without it the count must be concrete (not inside jit), as jnp's.
std::vector<Array> nonzero(const Array &a, std::optional<int64_t> size = std::nullopt,
                           int64_t fill_value = 0);
Array flatnonzero(const Array &a, std::optional<int64_t> size = std::nullopt,
                  int64_t fill_value = 0);
Array argwhere(const Array &a, std::optional<int64_t> size = std::nullopt, int64_t fill_value = 0);
// where(condition) alone is nonzero(condition) (with a size: nonzero(condition, size)).
std::vector<Array> where(const Array &condition);
Array extract(const Array &condition, const Array &arr, std::optional<int64_t> size = std::nullopt,
              double fill_value = 0);
Array compress(const Array &condition, const Array &a, std::optional<int64_t> axis = std::nullopt,
               std::optional<int64_t> size = std::nullopt, double fill_value = 0);
// Counts (or weights summed) of each nonnegative integer: length (static) bins, else max(x) + 1
// (concrete) or minlength.
Array bincount(const Array &x, const std::optional<Array> &weights = std::nullopt,
               int64_t minlength = 0, std::optional<int64_t> length = std::nullopt);
std::vector<Array> unravel_index(const Array &indices, const Shape &shape);
Array ravel_multi_index(const std::vector<Array> &multi_index, const Shape &dims,
                        std::string_view mode = "raise");
// ---- histograms (JAX's: the counts take the weights' dtype, a's without weights) ----
// A `bins=` argument: a count of equal bins, or the edges.
using Bins = std::variant<int64_t, Array>;
// A `range=` argument: the lower and upper edge.
using Range = std::pair<double, double>;
Array histogram_bin_edges(const Array &a, const Bins &bins = int64_t(10),
                          const std::optional<Range> &range = std::nullopt);
// (counts, bin edges).
std::pair<Array, Array> histogram(const Array &a, const Bins &bins = int64_t(10),
                                  const std::optional<Range> &range = std::nullopt,
                                  const std::optional<Array> &weights = std::nullopt,
                                  bool density = false);
// sample (N, D): (the D-dimensional counts, each dimension's edges); one bins for all, or D.
std::pair<Array, std::vector<Array>>
histogramdd(const Array &sample, const std::vector<Bins> &bins = {int64_t(10)},
            const std::optional<std::vector<Range>> &range = std::nullopt,
            const std::optional<Array> &weights = std::nullopt, bool density = false);
// (counts, x edges, y edges).
std::tuple<Array, Array, Array>
histogram2d(const Array &x, const Array &y, const std::vector<Bins> &bins = {int64_t(10)},
            const std::optional<std::vector<Range>> &range = std::nullopt,
            const std::optional<Array> &weights = std::nullopt, bool density = false);
Array var(const Array &x, const Axes &axis = {}, int64_t ddof = 0, bool keepdims = false);
Array std(const Array &x, const Axes &axis = {}, int64_t ddof = 0, bool keepdims = false);
// The weighted mean; weights of a's shape, or 1-D along a single axis.
Array average(const Array &a, const Axes &axis = {},
              const std::optional<Array> &weights = std::nullopt, bool keepdims = false);
Array ptp(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array count_nonzero(const Array &x, const Axes &axis = {}, bool keepdims = false);
// Reductions that skip NaNs: an all-NaN slice is NaN (nanmax, nanmin, nanmean), as jnp.
Array nansum(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array nanprod(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array nanmax(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array nanmin(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array nanmean(const Array &x, const Axes &axis = {}, bool keepdims = false);
Array nanvar(const Array &x, const Axes &axis = {}, int64_t ddof = 0, bool keepdims = false);
Array nanstd(const Array &x, const Axes &axis = {}, int64_t ddof = 0, bool keepdims = false);
// jnp's: -1 for an all-NaN slice (NumPy raises).
Array nanargmax(const Array &x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
Array nanargmin(const Array &x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false);
// Covariance of the variables in m's rows (rowvar) or columns, with y's appended; ddof defaults to
// 1, or 0 with bias.
Array cov(const Array &m, const std::optional<Array> &y = std::nullopt, bool rowvar = true,
          bool bias = false, std::optional<int64_t> ddof = std::nullopt);
Array corrcoef(const Array &x, const std::optional<Array> &y = std::nullopt, bool rowvar = true);

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
Array cross(const Array &a, const Array &b, int64_t axisa = -1, int64_t axisb = -1,
            int64_t axisc = -1);
Array vecdot(const Array &x1, const Array &x2, int64_t axis = -1);
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
Array polyint(const Array &p, int64_t m = 1, const Array &k = 0);
Array poly(const Array &seq_of_zeros);
Array trapezoid(const Array &y, const std::optional<Array> &x = std::nullopt, double dx = 1.0,
                int64_t axis = -1);
Array ediff1d(const Array &ary, const std::optional<Array> &to_end = std::nullopt,
              const std::optional<Array> &to_begin = std::nullopt);
// One array per axis (NumPy returns the array itself for a single axis).
std::vector<Array> gradient(const Array &f, const Axes &axis = {}, double spacing = 1.0);

// ---- files ----
// jnp.save / jnp.load of NumPy .npy files.
void save(const std::string &path, const Array &x);
Array load(const std::string &path);

} // namespace jx::numpy

// jnp.linalg, as jnp::linalg (it includes this header first).
#include <jx/linalg.h>
