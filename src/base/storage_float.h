// float16 and bfloat16 as the evaluator and the compiler's constants hold them: their bits, with
// conversions that round to nearest even (float16 from a double directly, as NumPy; bfloat16
// through float32, as ml_dtypes and XLA). Arithmetic on them happens in float32 (see
// jx::is_storage_float), so these types only convert.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace jx {

// In software (GCC 12's _Float16 meets the same internal compiler error as below): rounding
// by nearbyint in the default mode, to nearest even; NaNs quieted, keeping their top payload bits
// (as F16C's vcvtps2ph).
inline uint16_t float16_bits(double v) {
  const uint16_t sign = uint16_t((std::bit_cast<uint64_t>(v) >> 48) & 0x8000);
  const double a = std::fabs(v);
  if (std::isnan(v)) return uint16_t(sign | 0x7e00 | ((std::bit_cast<uint64_t>(v) >> 42) & 0x3ff));
  if (a >= 65520.0) return uint16_t(sign | 0x7c00); // past the largest half-way point: inf
  if (a < 0x1p-14) return uint16_t(sign | uint16_t(std::nearbyint(a * 0x1p24))); // subnormal
  int e = 0;
  std::frexp(a, &e);                                              // a = f * 2^e, f in [0.5, 1)
  const auto m = uint16_t(std::nearbyint(std::ldexp(a, 11 - e))); // [1024, 2048], 2048 carries
  return uint16_t(sign | (((e + 14) << 10) + m - 1024));
}
// Not inlined: GCC 12's vectorizer meets an internal compiler error on the evaluator's loops of
// these conversions (signbit of their results); the evaluator's speed does not matter here.
[[gnu::noinline]] inline float float16_value(uint16_t bits) {
  const uint32_t sign = uint32_t(bits & 0x8000) << 16, exponent = (bits >> 10) & 0x1f,
                 mantissa = bits & 0x3ff;
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  const float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                                        : std::ldexp(float(1024 + mantissa), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

// NaNs stay NaNs (quieted), as ml_dtypes' and XLA's conversions keep them.
inline uint16_t bfloat16_bits(double v) {
  const float f = float(v);
  const uint32_t b = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return uint16_t((b >> 16) | 0x40);
  return uint16_t((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}
[[gnu::noinline]] inline float bfloat16_value(uint16_t bits) {
  return std::bit_cast<float>(uint32_t(bits) << 16);
}

// Element types of the evaluator's buffers: constructed from any number (rounded), read as float.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  Float16(double v) : bits(float16_bits(v)) {}
  operator float() const { return float16_value(bits); }
};
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(double v) : bits(bfloat16_bits(v)) {}
  operator float() const { return bfloat16_value(bits); }
};

} // namespace jx
