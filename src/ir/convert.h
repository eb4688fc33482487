// Scalar dtype conversion with NumPy's results, shared by literal folding and the evaluator.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace jx::ir {

template <class T> constexpr bool is_float_v = std::is_floating_point_v<T>;

// Float -> int as x86's cvttsd2si does it, which NumPy inherits: NaN and out-of-range values give
// the target's minimum.
template <class To, class From> To convert_scalar(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (is_float_v<From> && !is_float_v<To>) {
    // 2^(bits-1) is exact in any float; the range is [-2^(bits-1), 2^(bits-1)).
    constexpr From limit = From(uint64_t(1) << (sizeof(To) * 8 - 1));
    if (!(x >= -limit && x < limit)) return std::numeric_limits<To>::min();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

} // namespace jx::ir
