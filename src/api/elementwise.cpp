// jnp and jax.scipy.special elementwise functions: NumPy dtype rules per function, then one graph
// node each (a few for the compositions JAX uses: logaddexp, clip, round with decimals).
#include <jx/numpy.h>
#include <jx/scipy.h>

#include <cmath>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include "api/internal.h"
#include "transforms/custom.h"

namespace jx::numpy {

using api::to_inexact;

using api::node_of;
using api::NodePtr;
using api::wrap;
using ir::Op;

namespace {

// Promotes a and b to their result type, broadcasts, applies op.
Array binary_promoted(Op op, const Array &a, const Array &b,
                      std::optional<DType> force = std::nullopt) {
  std::vector<NodePtr> xs{node_of(a), node_of(b)};
  api::ResultType type = api::result_type(xs);
  if (force) type.dtype = *force;
  std::vector<NodePtr> p = api::promote_and_broadcast(xs, type);
  return wrap(ir::binary(op, p[0], p[1]));
}

[[noreturn]] void ufunc_type_error(std::string_view ufunc, const std::vector<DType> &types) {
  std::string list;
  for (DType t : types)
    list += fmt::format("{}dtype('{}')", list.empty() ? "" : ", ", dtype_name(t));
  throw DTypeError(fmt::format("ufunc '{}' not supported for the input types ({}), and the inputs "
                               "could not be safely coerced to any supported types according to "
                               "the casting rule 'safe'",
                               ufunc, list));
}

// Integer/bool-only binary ufuncs.
Array bitwise(Op op, std::string_view ufunc, const Array &a, const Array &b) {
  // Integers whose common type is a float (uint64 with a signed integer) have no bitwise op either.
  if (is_inexact(a.dtype()) || is_inexact(b.dtype()) ||
      is_inexact(api::result_type({node_of(a), node_of(b)}).dtype))
    ufunc_type_error(ufunc, {a.dtype(), b.dtype()});
  return binary_promoted(op, a, b);
}

// Transcendental functions: integers and bools compute in the default float type.
Array float_unary(Op op, const Array &x) {
  NodePtr n = node_of(x);
  if (!is_inexact(n->dtype)) n = ir::convert(n, default_float, n->weak);
  return wrap(ir::unary(op, n));
}

// Operands of two-argument float functions: integers and bools compute in the default float type.
std::vector<NodePtr> float_operands(const Array &a, const Array &b) {
  std::vector<NodePtr> xs{node_of(a), node_of(b)};
  api::ResultType type = api::result_type(xs);
  if (!is_inexact(type.dtype)) type.dtype = default_float;
  return api::promote_and_broadcast(xs, type);
}

Array float_binary(Op op, const Array &a, const Array &b) {
  std::vector<NodePtr> p = float_operands(a, b);
  return wrap(ir::binary(op, p[0], p[1]));
}

// Arithmetic that NumPy defines on numbers but not on bools (bool -> int64 for these).
NodePtr numeric(const NodePtr &n) {
  return n->dtype == DType::bool_ ? ir::convert(n, default_int, n->weak) : n;
}

} // namespace

Array add(const Array &a, const Array &b) { return binary_promoted(Op::Add, a, b); }

Array subtract(const Array &a, const Array &b) {
  if (a.dtype() == DType::bool_ && b.dtype() == DType::bool_)
    throw DTypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                     "bitwise_xor, the `^` operator, or the logical_xor function instead.");
  return binary_promoted(Op::Sub, a, b);
}

Array multiply(const Array &a, const Array &b) { return binary_promoted(Op::Mul, a, b); }

Array divide(const Array &a, const Array &b) { return float_binary(Op::Div, a, b); }

Array true_divide(const Array &a, const Array &b) { return divide(a, b); }

Array floor_divide(const Array &a, const Array &b) {
  return binary_promoted(Op::FloorDiv, wrap(numeric(node_of(a))), wrap(numeric(node_of(b))));
}

Array remainder(const Array &a, const Array &b) {
  return binary_promoted(Op::Rem, wrap(numeric(node_of(a))), wrap(numeric(node_of(b))));
}

Array mod(const Array &a, const Array &b) { return remainder(a, b); }

Array power(const Array &a, const Array &b) {
  NodePtr base = numeric(node_of(a)), exponent = numeric(node_of(b));
  api::ResultType type = api::result_type({base, exponent});
  if (is_integer(type.dtype) && exponent->op == Op::Literal && exponent->ivalue < 0)
    throw ValueError("Integers to negative integer powers are not allowed.");
  return binary_promoted(Op::Pow, wrap(base), wrap(exponent));
}

Array maximum(const Array &a, const Array &b) { return binary_promoted(Op::Max, a, b); }
Array minimum(const Array &a, const Array &b) { return binary_promoted(Op::Min, a, b); }

Array negative(const Array &x) {
  if (x.dtype() == DType::bool_)
    throw DTypeError("The numpy boolean negative, the `-` operator, is not supported, use the "
                     "`~` operator or the logical_not function instead.");
  return wrap(ir::unary(Op::Neg, node_of(x)));
}

Array positive(const Array &x) { return x; }
Array abs(const Array &x) { return wrap(ir::unary(Op::Abs, node_of(x))); }
Array absolute(const Array &x) { return abs(x); }

Array sign(const Array &x) {
  if (x.dtype() == DType::bool_) ufunc_type_error("sign", {x.dtype()});
  return wrap(ir::unary(Op::Sign, node_of(x)));
}

Array exp(const Array &x) { return float_unary(Op::Exp, x); }
Array expm1(const Array &x) { return float_unary(Op::Expm1, x); }
Array log(const Array &x) { return float_unary(Op::Log, x); }
Array log1p(const Array &x) { return float_unary(Op::Log1p, x); }
Array sqrt(const Array &x) { return float_unary(Op::Sqrt, x); }
Array sin(const Array &x) { return float_unary(Op::Sin, x); }
Array cos(const Array &x) { return float_unary(Op::Cos, x); }
Array tan(const Array &x) { return float_unary(Op::Tan, x); }
Array tanh(const Array &x) { return float_unary(Op::Tanh, x); }
Array sinh(const Array &x) { return float_unary(Op::Sinh, x); }
Array cosh(const Array &x) { return float_unary(Op::Cosh, x); }
Array arcsin(const Array &x) { return float_unary(Op::Asin, x); }
Array arccos(const Array &x) { return float_unary(Op::Acos, x); }
Array arctan(const Array &x) { return float_unary(Op::Atan, x); }
Array arcsinh(const Array &x) { return float_unary(Op::Asinh, x); }
Array arccosh(const Array &x) { return float_unary(Op::Acosh, x); }
Array arctanh(const Array &x) { return float_unary(Op::Atanh, x); }
Array exp2(const Array &x) { return float_unary(Op::Exp2, x); }
Array log2(const Array &x) { return float_unary(Op::Log2, x); }
Array log10(const Array &x) { return float_unary(Op::Log10, x); }
Array cbrt(const Array &x) { return float_unary(Op::Cbrt, x); }
Array square(const Array &x) {
  Array n = wrap(numeric(node_of(x)));
  return multiply(n, n);
}

// Integers are their own floor and ceiling (as jnp and NumPy >= 2.3); bools go to float.
Array floor(const Array &x) {
  if (is_integer(x.dtype())) return x;
  return float_unary(Op::Floor, x);
}
Array ceil(const Array &x) {
  if (is_integer(x.dtype())) return x;
  return float_unary(Op::Ceil, x);
}

// jnp.round: x * 10^decimals rounded half to even, divided back (so 2.675 -> 2.68 as in jnp).
Array round(const Array &x, int decimals) {
  const DType t = x.dtype();
  if (t == DType::bool_) throw ValueError("data type <class 'numpy.bool'> not inexact");
  if (is_complex(t)) // each part (np.round)
    return Array(ir::complex(node_of(round(real(x), decimals)), node_of(round(imag(x), decimals))));
  if (!is_floating(t)) {
    if (decimals < 0)
      throw NotImplementedError("integer np.round not implemented for decimals < 0");
    return x;
  }
  // Beyond the type's range of exponents rounding changes nothing.
  if (decimals > (t == DType::float32 ? 38 : 308)) return x;
  if (decimals == 0) return wrap(ir::unary(Op::Round, node_of(x)));
  const double factor = std::pow(10.0, decimals); // weak: rounded to x's dtype, as jnp's constant
  return wrap(ir::unary(Op::Round, node_of(x * factor))) / factor;
}

Array arctan2(const Array &y, const Array &x) { return float_binary(Op::Atan2, y, x); }
Array hypot(const Array &a, const Array &b) { return float_binary(Op::Hypot, a, b); }
Array copysign(const Array &a, const Array &b) { return float_binary(Op::CopySign, a, b); }

namespace {
// nextafter of float16 or bfloat16, whose ops compute in float32 (is_storage_float): float32's
// step would round back to x. Their spacing is float32's scaled by 2^(23 - mantissa bits), at
// least their smallest subnormal (float32's exponent range holds theirs, so every value and step
// here is exact in float32), measured on the side of x the step goes.
Array storage_nextafter(const Array &x16, const Array &y16) {
  const DType t = x16.dtype();
  const bool half = t == DType::float16;
  const double scale = half ? 0x1p13 : 0x1p16, tiny = half ? 0x1p-24 : 0x1p-133,
               largest = half ? 65504.0 : 0x1.fep127;
  const Array x = x16.astype(DType::float32), y = y16.astype(DType::float32), a = abs(x);
  const Array up =
      maximum((nextafter(a, std::numeric_limits<double>::infinity()) - a) * scale, tiny);
  const Array down = maximum((a - nextafter(a, 0.0)) * scale, tiny);
  const Array away = (y > x) == (x > 0.0); // from zero
  // The sign of x throughout: -tiny toward zero is -0, as C's nextafter.
  Array r = copysign(where(away, a + up, a - down), x);
  r = where(x == 0.0, copysign(full_like(x, tiny), y), r);
  r = where(isinf(x), copysign(full_like(x, largest), x), r); // toward a finite y
  r = where(x == y, y, r);
  r = where(logical_or(isnan(x), isnan(y)), x + y, r);
  return r.astype(t);
}
} // namespace

Array nextafter(const Array &a, const Array &b) {
  const std::vector<NodePtr> p = float_operands(a, b);
  if (is_storage_float(p[0]->dtype)) return storage_nextafter(wrap(p[0]), wrap(p[1]));
  return wrap(ir::binary(Op::NextAfter, p[0], p[1]));
}

// As jnp: max(a, b) + log1p(exp(-|a - b|)), stable for large |a - b|; a - b is nan only for
// equal infinities (or a nan), where a + b is the answer.
namespace {
// lax.logaddexp's primal.
NodePtr composed_logaddexp(const NodePtr &x1, const NodePtr &x2) {
  NodePtr delta = ir::binary(Op::Sub, x1, x2);
  NodePtr tail =
      ir::unary(Op::Log1p, ir::unary(Op::Exp, ir::unary(Op::Neg, ir::unary(Op::Abs, delta))));
  NodePtr finite = ir::binary(Op::Add, ir::binary(Op::Max, x1, x2), tail);
  return ir::select(ir::unary(Op::IsNan, delta), ir::binary(Op::Add, x1, x2), finite);
}

// lax.logaddexp's custom_jvp rule: t1 exp(x1 - out) + t2 exp(x2 - out), with +inf replaced by 0
// in x and out (_replace_inf), so that ties share the tangent (1/2 each) and infinities give no
// NaN.
int64_t logaddexp_rule() {
  static const int64_t id = transforms::register_jvp_rule([](const std::vector<NodePtr> &x,
                                                             const std::vector<NodePtr> &t) {
    auto finite = [](const NodePtr &v) {
      NodePtr inf = ir::broadcast(
          ir::literal(std::numeric_limits<double>::infinity(), v->dtype, v->weak), v->shape, {});
      NodePtr zero = ir::broadcast(ir::literal(0, v->dtype, v->weak), v->shape, {});
      return ir::select(ir::binary(Op::Eq, v, inf), zero, v);
    };
    const NodePtr out = finite(composed_logaddexp(x[0], x[1]));
    auto term = [&](size_t i) {
      return ir::binary(Op::Mul, t[i], ir::unary(Op::Exp, ir::binary(Op::Sub, finite(x[i]), out)));
    };
    return ir::binary(Op::Add, term(0), term(1));
  });
  return id;
}
} // namespace

Array logaddexp(const Array &a, const Array &b) {
  std::vector<NodePtr> p = float_operands(a, b);
  return wrap(transforms::custom_jvp_node(logaddexp_rule(), composed_logaddexp(p[0], p[1]), p));
}

// Real floats: the op (JAX's form and derivative); complex numbers composed.
Array logaddexp2(const Array &a, const Array &b) {
  const Array x1 = to_inexact(a), x2 = to_inexact(b);
  if (!is_complex(x1.dtype()) && !is_complex(x2.dtype()))
    return float_binary(Op::LogAddExp2, x1, x2);
  const Array delta = x1 - x2;
  const Array tail = log1p(exp2(-abs(delta))) * (1 / std::numbers::ln2);
  return where(isnan(delta), x1 + x2, maximum(x1, x2) + tail);
}

Array fmod(const Array &a, const Array &b) {
  return binary_promoted(Op::Fmod, wrap(numeric(node_of(a))), wrap(numeric(node_of(b))));
}

Array clip(const Array &x, const ClipOptions &o) {
  Array out = x;
  if (o.min) out = maximum(*o.min, out);
  if (o.max) out = minimum(*o.max, out);
  return out;
}

Array isnan(const Array &x) { return wrap(ir::unary(Op::IsNan, node_of(x))); }
Array signbit(const Array &x) { return wrap(ir::unary(Op::SignBit, node_of(x))); }
Array isfinite(const Array &x) { return wrap(ir::unary(Op::IsFinite, node_of(x))); }
Array isinf(const Array &x) { return logical_not(logical_or(isfinite(x), isnan(x))); }

Array where(const Array &condition, const Array &x, const Array &y) {
  std::vector<NodePtr> xs{node_of(x), node_of(y)};
  api::ResultType type = api::result_type(xs);
  NodePtr pred = ir::convert(node_of(condition), DType::bool_, false);
  Shape shape = api::broadcast_shapes({pred->shape, xs[0]->shape, xs[1]->shape});
  auto fit = [&](const NodePtr &n) {
    return api::broadcast_node(api::cast_node(n, type.dtype, type.weak), shape);
  };
  return wrap(ir::select(api::broadcast_node(pred, shape), fit(xs[0]), fit(xs[1])));
}

Array equal(const Array &a, const Array &b) { return binary_promoted(Op::Eq, a, b); }
Array not_equal(const Array &a, const Array &b) { return binary_promoted(Op::Ne, a, b); }
Array less(const Array &a, const Array &b) { return binary_promoted(Op::Lt, a, b); }
Array less_equal(const Array &a, const Array &b) { return binary_promoted(Op::Le, a, b); }
Array greater(const Array &a, const Array &b) { return binary_promoted(Op::Gt, a, b); }
Array greater_equal(const Array &a, const Array &b) { return binary_promoted(Op::Ge, a, b); }

Array logical_and(const Array &a, const Array &b) {
  return binary_promoted(Op::And, a.astype(DType::bool_), b.astype(DType::bool_));
}
Array logical_or(const Array &a, const Array &b) {
  return binary_promoted(Op::Or, a.astype(DType::bool_), b.astype(DType::bool_));
}
Array logical_xor(const Array &a, const Array &b) {
  return binary_promoted(Op::Xor, a.astype(DType::bool_), b.astype(DType::bool_));
}
Array logical_not(const Array &x) {
  return wrap(ir::unary(Op::Not, node_of(x.astype(DType::bool_))));
}

Array isclose(const Array &a, const Array &b, const IscloseOptions &o) {
  const double rtol = o.rtol, atol = o.atol;
  const api::ResultType type = api::result_type({node_of(a), node_of(b)});
  const Array x(api::cast_node(node_of(a), type.dtype, type.weak)),
      y(api::cast_node(node_of(b), type.dtype, type.weak));
  if (!is_inexact(type.dtype)) return equal(x, y);
  // rtol and atol weakly typed: converted to the arrays' dtype, as JAX converts them.
  Array out = less_equal(abs(x - y), Array(atol) + Array(rtol) * abs(y));
  const Array x_inf = isinf(x), y_inf = isinf(y);
  out = logical_and(out, logical_not(logical_or(x_inf, y_inf)));
  out = logical_or(out, logical_and(logical_and(x_inf, y_inf), equal(x, y)));
  const Array x_nan = isnan(x), y_nan = isnan(y);
  out = logical_and(out, logical_not(logical_or(x_nan, y_nan)));
  return o.equal_nan ? logical_or(out, logical_and(x_nan, y_nan)) : out;
}

Array allclose(const Array &a, const Array &b, const IscloseOptions &options) {
  return all(isclose(a, b, options));
}

Array array_equal(const Array &a1, const Array &a2, bool equal_nan) {
  if (a1.shape() != a2.shape()) return array(false);
  Array same = equal(a1, a2);
  if (equal_nan) same = logical_or(same, logical_and(isnan(a1), isnan(a2)));
  return all(same);
}

Array array_equiv(const Array &a1, const Array &a2) {
  try {
    broadcast_shapes({a1.shape(), a2.shape()});
  } catch (const ShapeError &) {
    return array(false);
  }
  return all(equal(a1, a2));
}

Array bitwise_and(const Array &a, const Array &b) { return bitwise(Op::And, "bitwise_and", a, b); }
Array bitwise_or(const Array &a, const Array &b) { return bitwise(Op::Or, "bitwise_or", a, b); }
Array bitwise_xor(const Array &a, const Array &b) { return bitwise(Op::Xor, "bitwise_xor", a, b); }
namespace {

// Shifts have no bool loop: two bools shift as int64, a bool with an integer takes its type.
Array shift(Op op, std::string_view ufunc, const Array &a, const Array &b) {
  if (a.dtype() == DType::bool_ && b.dtype() == DType::bool_)
    return bitwise(op, ufunc, wrap(numeric(node_of(a))), wrap(numeric(node_of(b))));
  return bitwise(op, ufunc, a, b);
}

} // namespace

Array left_shift(const Array &a, const Array &b) {
  return shift(Op::ShiftLeft, "left_shift", a, b);
}
Array right_shift(const Array &a, const Array &b) {
  return shift(Op::ShiftRight, "right_shift", a, b);
}

Array bitwise_not(const Array &x) {
  if (is_inexact(x.dtype())) ufunc_type_error("invert", {x.dtype()});
  return wrap(ir::unary(Op::Not, node_of(x)));
}
Array invert(const Array &x) { return bitwise_not(x); }

Array astype(const Array &x, DType dtype) { return x.astype(dtype); }

Shape broadcast_shapes(const std::vector<Shape> &shapes) { return api::broadcast_shapes(shapes); }

} // namespace jx::numpy

namespace jx::scipy::special {

Array erf(const Array &x) { return numpy::float_unary(ir::Op::Erf, x); }
Array erfc(const Array &x) { return numpy::float_unary(ir::Op::Erfc, x); }
Array erfinv(const Array &x) { return numpy::float_unary(ir::Op::ErfInv, x); }

} // namespace jx::scipy::special
