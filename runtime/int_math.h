// NumPy's wrapping integer arithmetic (C++ leaves signed overflow undefined), shared by the
// reference evaluator and the runtime helpers compiled kernels call.
#pragma once

#include <type_traits>

namespace jx::runtime {

// The unsigned type the arithmetic of T runs in: at least unsigned int, so that int8/int16
// operands (promoted to int) cannot overflow int.
template <class T> using wrap_t = std::make_unsigned_t<std::common_type_t<T, int>>;

template <class T> T wrap_add(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T> T wrap_sub(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T> T wrap_mul(T a, T b) {
  using U = wrap_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// numpy.power for integers: negative exponents give 0 except for bases 1 and -1.
template <class T> T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>)
    if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  T result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp = T(exp >> 1);
  }
  return result;
}

} // namespace jx::runtime
