// The jx_ math wrappers: a scalar or a narrow vector is padded into one call of the host's widest
// libmvec variant, so every width computes the same value for the same input. Each tier is a
// source of its own compiled for its instruction set (vector_math_avx512.cpp,
// vector_math_avx2.cpp) and used only on hosts that have it; this one holds the scalar tier and
// the tables. The functions are runtime/math_functions.def, expanded once per tier. Each wrapper
// is an exported C symbol named by its tier (jx_avx512_exp_w4), which ahead-of-time objects link
// against; the JIT binds kernels' tier-neutral names (jx_exp_w4) to the same code.
#include "runtime/vector_math.h"

#include <cmath>
#include <math.h>

#include "runtime/vector_math_tier.h"

namespace jx::runtime {

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
  static const TierSymbol scalar_symbols[] = {
#define JX_VECTOR_MATH(F, N) JX_SYMBOLS_SCALAR(scalar, F)
#define JX_SCALAR_MATH(F, N) JX_SYMBOLS_SCALAR(scalar, F)
#include "runtime/math_functions.def"
#undef JX_VECTOR_MATH
#undef JX_SCALAR_MATH
  };
  size_t count = sizeof(scalar_symbols) / sizeof(scalar_symbols[0]);
  const TierSymbol *symbols = tier == MathTier::avx512 ? avx512_math_symbols(&count)
                              : tier == MathTier::avx2 ? avx2_math_symbols(&count)
                                                       : scalar_symbols;
  std::vector<MathSymbol> out;
  for (size_t i = 0; i < count; ++i)
    out.push_back({symbols[i].name, symbols[i].link_name, symbols[i].address});
  return out;
}

} // namespace jx::runtime
