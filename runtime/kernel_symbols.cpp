#include "runtime/kernel_symbols.h"

#include <cstdint>

#include "runtime/int_math.h"
#include "runtime/threefry.h"

extern "C" {
double jx_erf_inv_f64(double x) { return jx::random_impl::erf_inv(x); }
float jx_erf_inv_f32(float x) { return jx::random_impl::erf_inv(x); }
int64_t jx_ipow_i64(int64_t b, int64_t e) { return jx::runtime::int_pow<int64_t>(b, e); }
int32_t jx_ipow_i32(int32_t b, int32_t e) { return jx::runtime::int_pow<int32_t>(b, e); }
uint64_t jx_ipow_u64(uint64_t b, uint64_t e) { return jx::runtime::int_pow<uint64_t>(b, e); }
}

namespace jx::runtime {

std::vector<MathSymbol> kernel_symbols(MathTier tier) {
  std::vector<MathSymbol> symbols = math_symbols(tier);
#define JX_HELPER(NAME) symbols.push_back({#NAME, #NAME, reinterpret_cast<void *>(&NAME)});
  JX_HELPER(jx_erf_inv_f64)
  JX_HELPER(jx_erf_inv_f32)
  JX_HELPER(jx_ipow_i64)
  JX_HELPER(jx_ipow_i32)
  JX_HELPER(jx_ipow_u64)
#undef JX_HELPER
  return symbols;
}

} // namespace jx::runtime
