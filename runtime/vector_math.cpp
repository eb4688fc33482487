// The jx_ math wrappers: a scalar or a narrow vector is padded into one call of the host's widest
// libmvec variant, so every width computes the same value for the same input. Each tier is
// compiled for its instruction set (GCC target pragmas) and used only on hosts that have it.
// The functions are runtime/math_functions.def, expanded once per tier. Each wrapper is an
// exported C symbol named by its tier (jx_avx512_exp_w4), which ahead-of-time objects link
// against; the JIT binds kernels' tier-neutral names (jx_exp_w4) to the same code.
#include "runtime/vector_math.h"

#include <cmath>
#include <math.h>

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

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
namespace {
typedef double vd __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef float vf __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
vd widen(double x) { return vd{x}; }
vd widen(v2d x) { return __builtin_shufflevector(x, v2d{}, 0, 1, 2, 2, 2, 2, 2, 2); }
vd widen(v4d x) { return __builtin_shufflevector(x, v4d{}, 0, 1, 2, 3, 4, 4, 4, 4); }
vf widen(float x) { return vf{x}; }
vf widen(v4f x) {
  return __builtin_shufflevector(x, v4f{}, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4);
}
vf widen(v8f x) {
  return __builtin_shufflevector(x, v8f{}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 8);
}
double narrow(vd x, double) { return x[0]; }
v2d narrow(vd x, v2d) { return __builtin_shufflevector(x, x, 0, 1); }
v4d narrow(vd x, v4d) { return __builtin_shufflevector(x, x, 0, 1, 2, 3); }
float narrow(vf x, float) { return x[0]; }
v4f narrow(vf x, v4f) { return __builtin_shufflevector(x, x, 0, 1, 2, 3); }
v8f narrow(vf x, v8f) { return __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7); }
} // namespace
#define JX_LIBMVEC_1(F) _ZGVeN8v_##F
#define JX_LIBMVEC_2(F) _ZGVeN8vv_##F
#define JX_LIBMVEC_F_1(F) _ZGVeN16v_##F##f
#define JX_LIBMVEC_F_2(F) _ZGVeN16vv_##F##f
#define JX_VECTOR_MATH(F, N)                                                                       \
  JX_DECLARE_##N(vd, JX_LIBMVEC_##N(F)) JX_DECLARE_##N(vf, JX_LIBMVEC_F_##N(F))                    \
      JX_WIDTH_##N(jx_avx512_##F, double, JX_LIBMVEC_##N(F))                                       \
          JX_WIDTH_##N(jx_avx512_##F##_w2, v2d, JX_LIBMVEC_##N(F))                                 \
              JX_WIDTH_##N(jx_avx512_##F##_w4, v4d, JX_LIBMVEC_##N(F))                             \
                  JX_WIDTH_##N(jx_avx512_##F##f, float, JX_LIBMVEC_F_##N(F))                       \
                      JX_WIDTH_##N(jx_avx512_##F##f_w4, v4f, JX_LIBMVEC_F_##N(F))                  \
                          JX_WIDTH_##N(jx_avx512_##F##f_w8, v8f, JX_LIBMVEC_F_##N(F))
#define JX_SCALAR_MATH(F, N) JX_TIER_SCALAR_MATH(avx512, F, N)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
#undef JX_LIBMVEC_1
#undef JX_LIBMVEC_2
#undef JX_LIBMVEC_F_1
#undef JX_LIBMVEC_F_2
} // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
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
#pragma GCC pop_options

// Hosts without AVX2 and FMA: libm's scalar functions, no vector variants.
namespace scalar {
#define JX_VECTOR_MATH(F, N) JX_TIER_SCALAR_MATH(scalar, F, N)
#define JX_SCALAR_MATH(F, N) JX_TIER_SCALAR_MATH(scalar, F, N)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
} // namespace scalar

namespace {

struct Function {
  const char *name;
  unsigned args;
};
// The functions with libmvec variants.
constexpr Function functions[] = {
#define JX_VECTOR_MATH(F, N) {#F, N},
#define JX_SCALAR_MATH(F, N)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
};

// The widest lane count per type, and the narrower widths that go through wrappers.
struct Tier {
  char isa; // the vector ABI's ISA letter: 'e' AVX-512, 'd' AVX2
  unsigned widest_double, widest_float;
  std::vector<unsigned> narrow_double, narrow_float;
};
Tier tier_of(MathTier tier) {
  if (tier == MathTier::avx512) return {'e', 8, 16, {2, 4}, {4, 8}};
  return {'d', 4, 8, {2}, {4}};
}

} // namespace

std::string math_function(const std::string &libm_name, bool is_float) {
  return "jx_" + libm_name + (is_float ? "f" : "");
}

std::vector<VectorVariant> math_vector_variants(MathTier tier) {
  if (tier == MathTier::scalar) return {};
  const Tier t = tier_of(tier);
  std::vector<VectorVariant> out;
  for (const Function &f : functions)
    for (bool is_float : {false, true}) {
      const std::string libm = std::string(f.name) + (is_float ? "f" : "");
      const std::string scalar = math_function(f.name, is_float);
      const unsigned widest = is_float ? t.widest_float : t.widest_double;
      out.push_back({scalar,
                     "_ZGV" + std::string(1, t.isa) + "N" + std::to_string(widest) +
                         std::string(f.args, 'v') + "_" + libm,
                     widest, f.args});
      for (unsigned lanes : is_float ? t.narrow_float : t.narrow_double)
        out.push_back({scalar, scalar + "_w" + std::to_string(lanes), lanes, f.args});
    }
  return out;
}

std::vector<MathSymbol> math_symbols(MathTier tier) {
  auto at = [](auto fn) { return reinterpret_cast<void *>(fn); };
  // Each symbol under its tier-neutral name and its link name; the link name is spelled once, so
  // the list cannot name a function other than the one it takes the address of.
#define JX_SYMBOL(TIER, NAME) {"jx_" #NAME, "jx_" #TIER "_" #NAME, at(&TIER::jx_##TIER##_##NAME)},
#define JX_SYMBOLS_SCALAR(TIER, F) JX_SYMBOL(TIER, F) JX_SYMBOL(TIER, F##f)
#define JX_SYMBOLS_512(F)                                                                          \
  JX_SYMBOL(avx512, F)                                                                             \
  JX_SYMBOL(avx512, F##_w2)                                                                        \
  JX_SYMBOL(avx512, F##_w4)                                                                        \
  JX_SYMBOL(avx512, F##f) JX_SYMBOL(avx512, F##f_w4) JX_SYMBOL(avx512, F##f_w8)
#define JX_SYMBOLS_2(F)                                                                            \
  JX_SYMBOL(avx2, F) JX_SYMBOL(avx2, F##_w2) JX_SYMBOL(avx2, F##f) JX_SYMBOL(avx2, F##f_w4)
  switch (tier) {
  case MathTier::scalar:
    return {
#define JX_VECTOR_MATH(F, N) JX_SYMBOLS_SCALAR(scalar, F)
#define JX_SCALAR_MATH(F, N) JX_SYMBOLS_SCALAR(scalar, F)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
    };
  case MathTier::avx512:
    return {
#define JX_VECTOR_MATH(F, N) JX_SYMBOLS_512(F)
#define JX_SCALAR_MATH(F, N) JX_SYMBOLS_SCALAR(avx512, F)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
    };
  case MathTier::avx2:
    return {
#define JX_VECTOR_MATH(F, N) JX_SYMBOLS_2(F)
#define JX_SCALAR_MATH(F, N) JX_SYMBOLS_SCALAR(avx2, F)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
    };
  }
  return {};
#undef JX_SYMBOL
#undef JX_SYMBOLS_SCALAR
#undef JX_SYMBOLS_512
#undef JX_SYMBOLS_2
}

} // namespace jx::runtime
