// The jx_ math wrappers of the AVX2 tier (vector_math.cpp has the rest). This source alone is
// compiled for the tier's instructions (-mavx2 -mfma, runtime/CMakeLists.txt): the wrappers take
// and return their vectors in the registers kernels pass them in, as the vector ABI wants, under
// GCC and clang alike (clang decides a function's ABI by the file's target, not by a target
// attribute). Nothing here is inline library code another source could end up calling.
#include "runtime/vector_math_tier.h"

#include <math.h>

namespace jx::runtime {

namespace avx2 {
namespace {
typedef double vd __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef float vf __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
vd widen(double x) { return vd{x}; }
vd widen(v2d x) { return __builtin_shufflevector(x, v2d{}, 0, 1, 2, 2); }
vf widen(float x) { return vf{x}; }
vf widen(v4f x) { return __builtin_shufflevector(x, v4f{}, 0, 1, 2, 3, 4, 4, 4, 4); }
double narrow(vd x, double) { return x[0]; }
v2d narrow(vd x, v2d) { return __builtin_shufflevector(x, x, 0, 1); }
float narrow(vf x, float) { return x[0]; }
v4f narrow(vf x, v4f) { return __builtin_shufflevector(x, x, 0, 1, 2, 3); }
} // namespace
#define JX_LIBMVEC_1(F) _ZGVdN4v_##F
#define JX_LIBMVEC_2(F) _ZGVdN4vv_##F
#define JX_LIBMVEC_F_1(F) _ZGVdN8v_##F##f
#define JX_LIBMVEC_F_2(F) _ZGVdN8vv_##F##f
#define JX_VECTOR_MATH(F, N)                                                                       \
  JX_DECLARE_##N(vd, JX_LIBMVEC_##N(F)) JX_DECLARE_##N(vf, JX_LIBMVEC_F_##N(F))                    \
      JX_WIDTH_##N(jx_avx2_##F, double, JX_LIBMVEC_##N(F))                                         \
          JX_WIDTH_##N(jx_avx2_##F##_w2, v2d, JX_LIBMVEC_##N(F))                                   \
              JX_WIDTH_##N(jx_avx2_##F##f, float, JX_LIBMVEC_F_##N(F))                             \
                  JX_WIDTH_##N(jx_avx2_##F##f_w4, v4f, JX_LIBMVEC_F_##N(F))
#define JX_SCALAR_MATH(F, N) JX_TIER_SCALAR_MATH(avx2, F, N)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
#undef JX_LIBMVEC_1
#undef JX_LIBMVEC_2
#undef JX_LIBMVEC_F_1
#undef JX_LIBMVEC_F_2
} // namespace avx2

const TierSymbol *avx2_math_symbols(size_t *count) {
  static const TierSymbol symbols[] = {
#define JX_VECTOR_MATH(F, N)                                                                       \
  JX_SYMBOL(avx2, F) JX_SYMBOL(avx2, F##_w2) JX_SYMBOL(avx2, F##f) JX_SYMBOL(avx2, F##f_w4)
#define JX_SCALAR_MATH(F, N) JX_SYMBOLS_SCALAR(avx2, F)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
  };
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}

} // namespace jx::runtime
