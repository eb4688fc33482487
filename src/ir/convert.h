// Scalar dtype conversion with NumPy's results, shared by literal folding and the evaluator.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "base/storage_float.h"

namespace jx::ir {

template <class T>
constexpr bool is_storage_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <class T> constexpr bool is_float_v = std::is_floating_point_v<T> || is_storage_v<T>;

// Float -> int as x86's cvttsd2si does it, which NumPy inherits: NaN and out-of-range values give
// the target's minimum.
template <class I, class F> I truncate_to(F x) {
  // 2^(bits-1) is exact in any float; the range is [-2^(bits-1), 2^(bits-1)).
  constexpr F limit = F(uint64_t(1) << (sizeof(I) * 8 - 1));
  if (!(x >= -limit && x < limit)) return std::numeric_limits<I>::min();
  return static_cast<I>(x);
}

// Float -> int as C's casts compile on x86-64, whose results NumPy's casts give (out-of-range
// values are undefined in C; NumPy warns "invalid value encountered in cast"): types narrower
// than 32 bits through int32, uint32 through int64, uint64 by GCC's two-range sequence.
template <class To, class From> To convert_scalar(From x) {
  if constexpr (is_storage_v<From>) {
    return convert_scalar<To>(float(x)); // exact
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (is_float_v<From> && std::is_same_v<To, uint64_t>) {
    constexpr From top = From(uint64_t(1) << 63);
    if (x >= top) return uint64_t(truncate_to<int64_t>(From(x - top))) ^ (uint64_t(1) << 63);
    return uint64_t(truncate_to<int64_t>(x));
  } else if constexpr (is_float_v<From> && !is_float_v<To>) {
    using Via = std::conditional_t<(sizeof(To) < 4), int32_t,
                                   std::conditional_t<std::is_same_v<To, uint32_t>, int64_t, To>>;
    return static_cast<To>(truncate_to<Via>(x));
  } else {
    return static_cast<To>(x);
  }
}

} // namespace jx::ir
