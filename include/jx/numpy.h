// jx::numpy: the jax.numpy API (users write `namespace jnp = jx::numpy;`).
// Each function mirrors the jax.numpy function of the same name; docs/api.md has the table.
#pragma once

#include <jx/array.h>

#include <initializer_list>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jx::numpy {

using jx::Array;
using jx::DType;
using jx::Shape;
inline constexpr DType bool_ = DType::bool_;
inline constexpr DType int32 = DType::int32;
inline constexpr DType int64 = DType::int64;
inline constexpr DType float32 = DType::float32;
inline constexpr DType float64 = DType::float64;
using jx::dtype;
using jx::newaxis;
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
// jnp.broadcast_shapes.
Shape broadcast_shapes(const std::vector<Shape> &shapes);

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

// ---- files ----
// jnp.save / jnp.load of NumPy .npy files.
void save(const std::string &path, const Array &x);
Array load(const std::string &path);

} // namespace jx::numpy

// jax.scipy.special's elementwise functions.
namespace jx::scipy::special {
Array erf(const Array &x);
Array erfc(const Array &x);
} // namespace jx::scipy::special
