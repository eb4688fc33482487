// NumPy's meaning of each elementwise op on one element. Integer arithmetic wraps (as NumPy's
// does) instead of overflowing, which C++ would leave undefined. Math ops (ops.def's
// JX_UNARY_MATH / JX_BINARY_MATH) mean libm's function on floats: their cases come from the table.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ir/convert.h"
#include "ir/op.h"
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

// float16 and bfloat16 have no ops of their own: the graph computes them in float32.
template <class T> T unary_scalar(ir::Op op, T x) {
  using ir::Op;
  if constexpr (is_storage_v<T>) {
    if (op == Op::StopGradient) return x;
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
    case Op::Abs:
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::Sign:
    case Op::StopGradient: return x;
    case Op::Not: return !x;
    default: break;
    }
  } else if constexpr (is_float_v<T>) {
    switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps)
#define JX_UNARY_MATH(name, str, fn, ulps)                                                         \
  case Op::name:                                                                                   \
    return std::fn(x);
#define JX_BINARY_MATH(name, str, fn, ulps)
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
    case Op::Neg: return -x;
    case Op::Abs: return std::fabs(x);
    case Op::Sign: return x > 0 ? T(1) : x < 0 ? T(-1) : x == 0 ? T(0) : x;
    case Op::Sqrt: return std::sqrt(x);
    case Op::Floor: return std::floor(x);
    case Op::Ceil: return std::ceil(x);
    case Op::Round: return std::nearbyint(x); // the default rounding mode: half to even
    case Op::ErfInv: return random_impl::erf_inv(x);
    case Op::StopGradient: return x;
    default: break;
    }
  } else {
    switch (op) {
    case Op::Neg: return wrap_sub(T(0), x);
    case Op::Abs:
      if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_sub(T(0), x) : x;
      return x;
    case Op::Sign:
      if constexpr (std::is_signed_v<T>) return T((x > 0) - (x < 0));
      return T(x > 0);
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::StopGradient: return x;
    case Op::Not: return T(~x);
    default: break;
    }
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

template <class T> bool compare_scalar(ir::Op op, T a, T b) {
  using ir::Op;
  switch (op) {
  case Op::Eq: return a == b;
  case Op::Ne: return a != b;
  case Op::Lt: return a < b;
  case Op::Le: return a <= b;
  case Op::Gt: return a > b;
  case Op::Ge: return a >= b;
  default: throw std::logic_error("not a comparison");
  }
}

template <class T> T binary_scalar(ir::Op op, T a, T b) {
  using ir::Op;
  if constexpr (is_storage_v<T>) {
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
    case Op::And:
    case Op::Mul:
    case Op::Min: return a && b;
    case Op::Or:
    case Op::Add:
    case Op::Max: return a || b;
    case Op::Xor:
    case Op::Ne: return a != b;
    default: break;
    }
  } else if constexpr (is_float_v<T>) {
    T q, r;
    switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps)
#define JX_UNARY_MATH(name, str, fn, ulps)
#define JX_BINARY_MATH(name, str, fn, ulps)                                                        \
  case Op::name:                                                                                   \
    return std::fn(a, b);
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Rem: float_divmod(a, b, q, r); return r;
    case Op::FloorDiv: float_divmod(a, b, q, r); return q;
    case Op::CopySign: return std::copysign(a, b);
    case Op::Fmod: return std::fmod(a, b);
    // NaN-propagating, as numpy.maximum/minimum.
    case Op::Max: return (a >= b || a != a) ? a : b;
    case Op::Min: return (a <= b || a != a) ? a : b;
    default: break;
    }
  } else {
    constexpr int bits = sizeof(T) * 8;
    switch (op) {
    case Op::Add: return wrap_add(a, b);
    case Op::Sub: return wrap_sub(a, b);
    case Op::Mul: return wrap_mul(a, b);
    case Op::Rem: return int_rem(a, b);
    case Op::Fmod: return int_fmod(a, b);
    case Op::FloorDiv: return int_floordiv(a, b);
    case Op::Pow: return int_pow(a, b);
    case Op::Max: return a > b ? a : b;
    case Op::Min: return a < b ? a : b;
    case Op::And: return a & b;
    case Op::Or: return a | b;
    case Op::Xor: return a ^ b;
    case Op::ShiftLeft: return out_of_shift_range(b, bits) ? T(0) : T(runtime::wrap_t<T>(a) << b);
    case Op::ShiftRight:
      if (!out_of_shift_range(b, bits)) return T(a >> b);
      if constexpr (std::is_signed_v<T>) return T(a < 0 ? -1 : 0);
      return T(0);
    default: break;
    }
  }
  throw std::logic_error("binary op not defined for this dtype");
}

} // namespace jx::interp
