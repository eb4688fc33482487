// One implementation per math function and host: every width a kernel uses (the vectorized body,
// its epilogue, a scalar remainder) computes through the host's widest libmvec variant, so an
// element's value does not depend on its position in a loop, an array's shape or a sharding.
// No LLVM types here.
#pragma once

#include <string>
#include <vector>

namespace jx::runtime {

// A vector variant of a scalar math function, for LLVM's vectorizer (a VecDesc).
struct VectorVariant {
  std::string scalar; // the name kernels call, e.g. "jx_exp", "jx_powf"
  std::string vector; // the function taking and returning `lanes`-wide vectors
  unsigned lanes;
  unsigned args;
};

// A function kernels call: its tier-neutral name in kernels' IR (jx_exp_w4), the exported symbol
// that defines it for one tier (jx_avx512_exp_w4; ahead-of-time objects are linked against it)
// and its address (the JIT binds the name to it).
struct MathSymbol {
  std::string name, link_name;
  void *address;
};

// The math functions kernels call (runtime/math_functions.def, by libm name: exp, pow, ...),
// as "jx_<name>" for double and "jx_<name>f" for float.
std::string math_function(const std::string &libm_name, bool is_float);

// What the host runs: libmvec's AVX-512 or AVX2 variants, or (without AVX2 and FMA) scalar libm
// with no vector variants.
enum class MathTier { avx512, avx2, scalar };

// The vector variants to register for a tier, and the jx_ functions (scalar and narrower widths,
// each computing in the widest variant).
std::vector<VectorVariant> math_vector_variants(MathTier tier);
std::vector<MathSymbol> math_symbols(MathTier tier);

} // namespace jx::runtime
