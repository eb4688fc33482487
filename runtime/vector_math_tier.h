// What the per-tier sources of the jx_ math wrappers share (vector_math.cpp, vector_math_avx2.cpp,
// vector_math_avx512.cpp): the wrappers' macros and each tier's table of symbols. Included by
// those sources alone.
#pragma once

#include <cstddef>

namespace jx::runtime {

// NAME_wN: the function at N lanes through WIDE, the widest libmvec variant: widen() pads with
// zero lanes (a valid input of every function here) and narrow() keeps the first N results, in
// registers. The overloads of widen and narrow are defined per tier, for its target. The suffix
// is the argument count.
#define JX_WIDTH_1(NAME, VN, WIDE)                                                                 \
  extern "C" VN NAME(VN x) { return narrow(WIDE(widen(x)), VN{}); }
#define JX_WIDTH_2(NAME, VN, WIDE)                                                                 \
  extern "C" VN NAME(VN x, VN y) { return narrow(WIDE(widen(x), widen(y)), VN{}); }
#define JX_DECLARE_1(VN, NAME) extern "C" VN NAME(VN);
#define JX_DECLARE_2(VN, NAME) extern "C" VN NAME(VN, VN);
// A function libmvec lacks: libm's scalar one under the tier's name.
#define JX_LIBM_1(NAME, T, FN)                                                                     \
  extern "C" T NAME(T x) { return FN(x); }
#define JX_LIBM_2(NAME, T, FN)                                                                     \
  extern "C" T NAME(T x, T y) { return FN(x, y); }
#define JX_TIER_SCALAR_MATH(TIER, F, N)                                                            \
  JX_LIBM_##N(jx_##TIER##_##F, double, ::F) JX_LIBM_##N(jx_##TIER##_##F##f, float, ::F##f)

// One wrapper: its tier-neutral name, its exported name and its address.
struct TierSymbol {
  const char *name, *link_name;
  void *address;
};
#define JX_SYMBOL(TIER, NAME)                                                                      \
  {"jx_" #NAME, "jx_" #TIER "_" #NAME, reinterpret_cast<void *>(&TIER::jx_##TIER##_##NAME)},
#define JX_SYMBOLS_SCALAR(TIER, F) JX_SYMBOL(TIER, F) JX_SYMBOL(TIER, F##f)

// The wrappers of the AVX-512 and AVX2 tiers (count in *count), built on the first call: call
// only on a host of the tier, as the sources are compiled for its instructions.
const TierSymbol *avx512_math_symbols(size_t *count);
const TierSymbol *avx2_math_symbols(size_t *count);

} // namespace jx::runtime
