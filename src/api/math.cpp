// jnp's elementwise functions composed of other ones: NumPy 2 spellings, float variants
// (fabs, fmax, float_power), rounding, angles, gcd/lcm, complex numbers' parts, select and isin.
#include <jx/lax.h>
#include <jx/numpy.h>
#include <jx/scipy.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::to_inexact;
using api::wrap;
using ir::NodePtr;
using ir::Op;

Array acos(const Array &x) { return arccos(x); }
Array acosh(const Array &x) { return arccosh(x); }
Array asin(const Array &x) { return arcsin(x); }
Array asinh(const Array &x) { return arcsinh(x); }
Array atan(const Array &x) { return arctan(x); }
Array atanh(const Array &x) { return arctanh(x); }
Array atan2(const Array &y, const Array &x) { return arctan2(y, x); }
Array pow(const Array &a, const Array &b) { return power(a, b); }
Array bitwise_invert(const Array &x) { return bitwise_not(x); }
Array bitwise_left_shift(const Array &a, const Array &b) { return left_shift(a, b); }
Array bitwise_right_shift(const Array &a, const Array &b) { return right_shift(a, b); }

Array fabs(const Array &x) { return abs(to_inexact(x)); }

Array fmax(const Array &a, const Array &b) {
  return where(isnan(a), b, where(isnan(b), a, maximum(a, b)));
}
Array fmin(const Array &a, const Array &b) {
  return where(isnan(a), b, where(isnan(b), a, minimum(a, b)));
}

// Both operands in float64 (the widest float; complex is not supported yet).
Array float_power(const Array &a, const Array &b) {
  return power(a.astype(DType::float64), b.astype(DType::float64));
}

Array heaviside(const Array &x1, const Array &x2) {
  const Array x = to_inexact(x1);
  const Array zero = zeros_like(x), one = ones_like(x);
  return where(isnan(x), x, where(x < 0, zero, where(x > 0, one, x2)));
}

// As logaddexp, in base 2: max + log2(1 + 2^-|a - b|).
Array reciprocal(const Array &x) {
  const Array f = to_inexact(x);
  return ones_like(f) / f;
}

Array rint(const Array &x) { return round(to_inexact(x)); }
Array trunc(const Array &x) {
  if (is_integer(x.dtype())) return x;
  const Array f = to_inexact(x);
  return where(f < 0, ceil(f), floor(f));
}
Array fix(const Array &x) { return trunc(x); }
Array around(const Array &x, int decimals) { return round(x, decimals); }

Array deg2rad(const Array &x) { return to_inexact(x) * (std::numbers::pi / 180); }
Array rad2deg(const Array &x) { return to_inexact(x) * (180 / std::numbers::pi); }
Array radians(const Array &x) { return deg2rad(x); }
Array degrees(const Array &x) { return rad2deg(x); }

// sin(pi x) / (pi x), 1 at 0.
Array sinc(const Array &x) {
  const Array f = to_inexact(x);
  const Array is_zero = f == 0;
  const Array safe = where(is_zero, ones_like(f), f) * std::numbers::pi;
  return where(is_zero, ones_like(f), sin(safe) / safe);
}

Array isneginf(const Array &x) { return logical_and(isinf(x), signbit(x)); }
Array isposinf(const Array &x) { return logical_and(isinf(x), logical_not(signbit(x))); }

Array nan_to_num(const Array &x, const NanToNumOptions &o) {
  if (!is_floating(x.dtype())) return x;
  const double big = x.dtype() == DType::float32 ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<double>::max();
  Array out = where(isnan(x), full_like(x, o.nan), x);
  out = where(isposinf(x), full_like(x, o.posinf.value_or(big)), out);
  return where(isneginf(x), full_like(x, o.neginf.value_or(-big)), out);
}

std::pair<Array, Array> divmod(const Array &a, const Array &b) {
  return {floor_divide(a, b), remainder(a, b)};
}

std::pair<Array, Array> modf(const Array &x) {
  const Array f = to_inexact(x);
  const Array whole = trunc(f);
  const Array fraction = copysign(where(isinf(f), zeros_like(f), f - whole), f);
  return {fraction, whole};
}

// x1 * 2^x2 in two steps, so that 2^x2 alone may overflow or underflow where the product does not.
Array ldexp(const Array &x1, const Array &x2) {
  if (is_floating(x2.dtype()))
    throw DTypeError(fmt::format("ldexp: x2 must be an integer, got {}", dtype_name(x2.dtype())));
  const Array f = to_inexact(x1);
  const Array half = floor_divide(x2, 2);
  const Array p1 = exp2(half.astype(f.dtype())), p2 = exp2((x2 - half).astype(f.dtype()));
  return f * p1 * p2;
}

Array spacing(const Array &x) {
  const Array f = to_inexact(x);
  const Array toward = copysign(full_like(f, std::numeric_limits<double>::infinity()), f);
  return nextafter(f, toward) - f;
}

namespace {
void require_integers(std::string_view name, const Array &a, const Array &b) {
  for (const Array *x : {&a, &b})
    if (!is_integer(x->dtype()) && x->dtype() != DType::bool_)
      throw ValueError(fmt::format("Arguments to jax.numpy.{} must be integers.", name));
}
} // namespace

// Euclid's algorithm on every element at once, while any remainder is nonzero (jnp's loop).
Array gcd(const Array &a, const Array &b) {
  require_integers("gcd", a, b);
  std::vector<Array> xs = broadcast_arrays({abs(a + zeros_like(b)), abs(b + zeros_like(a))});
  auto cond = [](const std::vector<Array> &v) { return any(v[1] != 0); };
  auto body = [](const std::vector<Array> &v) {
    const Array nonzero = v[1] != 0;
    const Array x1 = where(nonzero, v[1], v[0]);
    const Array x2 =
        where(nonzero, remainder(v[0], where(nonzero, v[1], ones_like(v[1]))), zeros_like(v[1]));
    return std::vector<Array>{where(x1 < x2, x2, x1), where(x1 < x2, x1, x2)};
  };
  return lax::while_loop(cond, body, xs)[0];
}

Array lcm(const Array &a, const Array &b) {
  require_integers("lcm", a, b);
  const Array d = gcd(a, b);
  return where(d == 0, zeros_like(d), abs(a * floor_divide(b, where(d == 0, ones_like(d), d))));
}

Array conj(const Array &x) {
  const NodePtr &z = node_of(x);
  if (!is_complex(z->dtype)) return x;
  return wrap(ir::complex(ir::real(z), ir::unary(Op::Neg, ir::imag(z))));
}
Array conjugate(const Array &x) { return conj(x); }
Array real(const Array &x) {
  const NodePtr &z = node_of(x);
  return is_complex(z->dtype) ? wrap(ir::real(z)) : x;
}
Array imag(const Array &x) {
  const NodePtr &z = node_of(x);
  return is_complex(z->dtype) ? wrap(ir::imag(z)) : zeros_like(x);
}
Array angle(const Array &x, bool deg) {
  const Array f = to_inexact(x);
  const Array a = arctan2(imag(f), real(f));
  return deg ? rad2deg(a) : a;
}
Array iscomplex(const Array &x) {
  return iscomplexobj(x) ? imag(x) != 0 : zeros_like(x, DType::bool_);
}
Array isreal(const Array &x) { return iscomplexobj(x) ? imag(x) == 0 : ones_like(x, DType::bool_); }
bool iscomplexobj(const Array &x) { return is_complex(x.dtype()); }
bool isrealobj(const Array &x) { return !iscomplexobj(x); }

Array select(const std::vector<Array> &condlist, const std::vector<Array> &choicelist,
             const Array &default_) {
  if (condlist.size() != choicelist.size())
    throw ValueError(fmt::format("condlist must have length equal to choicelist ({} vs {})",
                                 condlist.size(), choicelist.size()));
  if (condlist.empty()) throw ValueError("condlist must be non-empty");
  for (const Array &c : condlist)
    if (c.dtype() != DType::bool_)
      throw TypeError(
          fmt::format("condlist must be a list of boolean arrays, got {}", dtype_name(c.dtype())));
  Array out = default_;
  for (size_t i = condlist.size(); i-- > 0;)
    out = where(condlist[i], choicelist[i], out);
  return out;
}

// Every element against every test element (jnp's method for small tests: compare_all).
Array isin(const Array &element, const Array &test_elements, const IsinOptions &o) {
  const Array tests = ravel(test_elements);
  const Array found = any(expand_dims(element, -1) == tests, -1);
  return o.invert ? logical_not(found) : found;
}

Array i0(const Array &x) { return scipy::special::i0(x); }

} // namespace jx::numpy

namespace jx::lax {

Array complex(const Array &x, const Array &y) {
  if (x.dtype() != y.dtype())
    throw TypeError(
        fmt::format("lax.complex requires arguments to have the same dtypes, got {}, {}.",
                    dtype_name(x.dtype()), dtype_name(y.dtype())));
  if (x.shape() != y.shape())
    throw TypeError(fmt::format("complex got incompatible shapes for broadcasting: {}, {}.",
                                shape_str(x.shape()), shape_str(y.shape())));
  return Array(ir::complex(x.node(), y.node()));
}

} // namespace jx::lax
