// NumPy's meaning of each elementwise op on one element. Integer arithmetic wraps (as NumPy's
// does) instead of overflowing, which C++ would leave undefined. Math ops (ops.def's
// JX_UNARY_MATH / JX_BINARY_MATH) mean libm's function on floats: their cases come from the table.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>

#include "ir/convert.h"
#include "ir/op.h"
#include "ir/op_cases.h"
#include "runtime/int_math.h"
#include "runtime/threefry.h"

namespace jx::interp {

using ir::convert_scalar;
using ir::is_float_v;
using ir::is_storage_v;

using runtime::int_pow;
using runtime::wrap_add;
using runtime::wrap_mul;
using runtime::wrap_sub;

// numpy.floor_divide and numpy.remainder (npy_divmod).
template <class T> void float_divmod(T a, T b, T &floordiv, T &mod) {
  mod = std::fmod(a, b);
  if (b == 0) {
    floordiv = a / b;
    return;
  }
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
}

template <class T> T int_floordiv(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_unsigned_v<T>) {
    return T(a / b);
  } else {
    if (b == -1) return wrap_sub(T(0), a);
    T q = T(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
  }
}

// C's remainder (the dividend's sign), as jnp.fmod: by 0 (and -1, which overflows) it is 0.
template <class T> T int_fmod(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return 0;
  return b == 0 ? T(0) : T(a % b);
}

template <class T> T int_rem(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_unsigned_v<T>) {
    return T(a % b);
  } else {
    if (b == -1) return 0;
    T r = T(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
  }
}

// A shift count outside [0, bits): NumPy's shifts give 0 (or -1 shifting a negative right).
template <class T> bool out_of_shift_range(T b, int bits) {
  if constexpr (std::is_signed_v<T>)
    if (b < 0) return true;
  return uint64_t(b) >= uint64_t(bits);
}

// The classes of element type an op's case decides between. float16 and bfloat16 have no ops of
// their own: the graph computes them in float32.
template <class T> constexpr bool is_real_v = std::is_floating_point_v<T>;
template <class T>
constexpr bool is_integer_v = !is_storage_v<T> && !std::is_same_v<T, bool> && !is_real_v<T>;

// One case per unary op (no default: a new op fails the build here until it has one).
template <class T> T unary_scalar(ir::Op op, T x) {
  using ir::Op;
  constexpr bool boolean = std::is_same_v<T, bool>, real = is_real_v<T>, integer = is_integer_v<T>;
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Unary)
#include "ir/ops.def"
#undef JX_OP
  // Computed elsewhere: predicates (predicate_scalar), conversions and complex parts (the
  // evaluator's own loops).
  case Op::IsNan:
  case Op::IsFinite:
  case Op::SignBit:
  case Op::Convert:
  case Op::Real:
  case Op::Imag: break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)
#define JX_UNARY_MATH(name, str, fn, ulps, derivative)                                             \
  case Op::name:                                                                                   \
    if constexpr (real) return std::fn(x);                                                         \
    break;
#define JX_BINARY_MATH(name, str, fn, ulps, derivative)
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
  case Op::StopGradient: return x;
  case Op::Neg:
    if constexpr (real) return -x;
    if constexpr (integer) return wrap_sub(T(0), x);
    break;
  case Op::Abs:
    if constexpr (real) return std::fabs(x);
    if constexpr (std::is_signed_v<T> && integer) return x < 0 ? wrap_sub(T(0), x) : x;
    if constexpr (boolean || integer) return x;
    break;
  case Op::Sign:
    if constexpr (real) return x > 0 ? T(1) : x < 0 ? T(-1) : x == 0 ? T(0) : x;
    if constexpr (std::is_signed_v<T> && integer) return T((x > 0) - (x < 0));
    if constexpr (boolean || integer) return T(x > 0);
    break;
  case Op::Sqrt:
    if constexpr (real) return std::sqrt(x);
    break;
  case Op::Floor:
    if constexpr (real) return std::floor(x);
    if constexpr (boolean || integer) return x;
    break;
  case Op::Ceil:
    if constexpr (real) return std::ceil(x);
    if constexpr (boolean || integer) return x;
    break;
  case Op::Round:
    if constexpr (real) return std::nearbyint(x); // the default rounding mode: half to even
    if constexpr (boolean || integer) return x;
    break;
  case Op::ErfInv:
    if constexpr (real) return random_impl::erf_inv(x);
    break;
  case Op::Not:
    if constexpr (boolean) return !x;
    if constexpr (integer) return T(~x);
    break;
  case Op::PopulationCount:
    if constexpr (integer) return T(std::popcount(std::make_unsigned_t<T>(x)));
    break;
  case Op::Clz:
    if constexpr (integer) return T(std::countl_zero(std::make_unsigned_t<T>(x)));
    break;
  case Op::Square:
    if constexpr (real) return x * x;
    if constexpr (integer) return wrap_mul(x, x);
    break;
  case Op::Rsqrt:
    if constexpr (real) return T(1) / std::sqrt(x);
    break;
  case Op::Logistic:
    if constexpr (real) return T(1) / (T(1) + std::exp(-x));
    break;
  }
  throw std::logic_error("unary op not defined for this dtype");
}

template <class T> bool predicate_scalar(ir::Op op, T x) {
  if constexpr (is_float_v<T>) {
    if (op == ir::Op::SignBit) return std::signbit(x);
    return op == ir::Op::IsNan ? std::isnan(x) : std::isfinite(x);
  } else if constexpr (std::is_signed_v<T>) {
    if (op == ir::Op::SignBit) return x < 0;
  }
  return op == ir::Op::IsFinite;
}

// Comparisons: the binary ops with a bool result.
template <class T> bool compare_scalar(ir::Op op, T a, T b) {
  using ir::Op;
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind##rule, BinaryBool)
#include "ir/ops.def"
#undef JX_OP
    break;
  case Op::Eq: return a == b;
  case Op::Ne: return a != b;
  case Op::Lt: return a < b;
  case Op::Le: return a <= b;
  case Op::Gt: return a > b;
  case Op::Ge: return a >= b;
  }
  throw std::logic_error("not a comparison");
}

// One case per binary op (no default: a new op fails the build here until it has one).
template <class T> T binary_scalar(ir::Op op, T a, T b) {
  using ir::Op;
  constexpr bool boolean = std::is_same_v<T, bool>, real = is_real_v<T>, integer = is_integer_v<T>;
  constexpr int bits = sizeof(T) * 8;
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Binary)
#include "ir/ops.def"
#undef JX_OP
  // Computed elsewhere: comparisons (compare_scalar) and complex numbers (the evaluator).
  case Op::Eq:
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Complex: break;
  case Op::Ne:
    if constexpr (boolean) return a != b;
    break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)
#define JX_UNARY_MATH(name, str, fn, ulps, derivative)
#define JX_BINARY_MATH(name, str, fn, ulps, derivative)                                            \
  case Op::name:                                                                                   \
    if constexpr (real) return std::fn(a, b);                                                      \
    if constexpr (integer)                                                                         \
      if (op == Op::Pow) return int_pow(a, b); /* the one math op on integers */                   \
    break;
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
  case Op::Add:
    if constexpr (boolean) return a || b;
    if constexpr (real) return a + b;
    if constexpr (integer) return wrap_add(a, b);
    break;
  case Op::Sub:
    if constexpr (real) return a - b;
    if constexpr (integer) return wrap_sub(a, b);
    break;
  case Op::Mul:
    if constexpr (boolean) return a && b;
    if constexpr (real) return a * b;
    if constexpr (integer) return wrap_mul(a, b);
    break;
  case Op::Div:
    if constexpr (real) return a / b;
    break;
  case Op::Rem:
  case Op::FloorDiv:
    if constexpr (real) {
      T q, r;
      float_divmod(a, b, q, r);
      return op == Op::Rem ? r : q;
    }
    if constexpr (integer) return op == Op::Rem ? int_rem(a, b) : int_floordiv(a, b);
    break;
  case Op::CopySign:
    if constexpr (real) return std::copysign(a, b);
    break;
  case Op::Fmod:
    if constexpr (real) return std::fmod(a, b);
    if constexpr (integer) return int_fmod(a, b);
    break;
  // NaN-propagating, as numpy.maximum/minimum.
  case Op::Max:
    if constexpr (boolean) return a || b;
    if constexpr (real) return (a >= b || a != a) ? a : b;
    if constexpr (integer) return a > b ? a : b;
    break;
  case Op::Min:
    if constexpr (boolean) return a && b;
    if constexpr (real) return (a <= b || a != a) ? a : b;
    if constexpr (integer) return a < b ? a : b;
    break;
  case Op::And:
    if constexpr (boolean) return a && b;
    if constexpr (integer) return a & b;
    break;
  case Op::Or:
    if constexpr (boolean) return a || b;
    if constexpr (integer) return a | b;
    break;
  case Op::Xor:
    if constexpr (boolean) return a != b;
    if constexpr (integer) return a ^ b;
    break;
  case Op::LogAddExp2:
    if constexpr (real) {
      const T delta = a - b;
      if (delta != delta) return a + b; // NaNs, or infinities of one sign
      const T tail = T(1 / std::numbers::ln2) * std::log1p(std::exp2(-std::fabs(delta)));
      return (a > b ? a : b) + tail;
    }
    break;
  case Op::ShiftLeft:
    if constexpr (integer)
      return out_of_shift_range(b, bits) ? T(0) : T(runtime::wrap_t<T>(a) << b);
    break;
  case Op::ShiftRight:
    if constexpr (integer) {
      if (!out_of_shift_range(b, bits)) return T(a >> b);
      if constexpr (std::is_signed_v<T>) return T(a < 0 ? -1 : 0);
      return T(0);
    }
    break;
  }
  throw std::logic_error("binary op not defined for this dtype");
}

} // namespace jx::interp
