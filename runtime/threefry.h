// Bit-exact C++ core of jax.random (threefry2x32 keys, bits, uniform, normal) and XLA's ErfInv.
#pragma once

#include <jx/dtype.h>

#include <cstdint>
#include <vector>

namespace jx::random_impl {

// The two uint32 words of a legacy jax PRNGKey, in JAX order (key_data()[0], key_data()[1]).
struct Key {
  uint32_t hi, lo;
  friend bool operator==(const Key &, const Key &) = default;
};

// The Threefry-2x32 (20 rounds) hash of the counter pair (x0, x1), in place.
void threefry2x32(Key key, uint32_t &x0, uint32_t &x1);

// All functions below follow JAX 0.10.2 with its default jax_threefry_partitionable=True:
// element i of a row-major output of n elements hashes the 64-bit counter i split as
// (x0, x1) = (i >> 32, i & 0xffffffff).

// == jax.random.PRNGKey(seed) with x64 on: (seed >> 32, seed & 0xffffffff) as uint32.
Key prng_key(int64_t seed);
// == jax.random.split(key, num): key i is threefry2x32(key, counter i).
std::vector<Key> split(Key key, int64_t num);
// == jax.random.fold_in(key, data): threefry2x32(key, (0, data)).
Key fold_in(Key key, uint32_t data);

// == jax.random.bits(key, shape, uint32 / uint64); bit_width is 32 or 64. With (o0, o1) the hash of
// counter i, 32-bit bits are o0 ^ o1 and 64-bit bits are (o0 << 32) | o1.
void random_bits(Key key, const std::vector<int64_t> &shape, int bit_width, void *out);

// == jax.random.uniform(key, shape, dtype) (minval 0, maxval 1), dtype float32 or float64:
// bitcast((bits >> (nbits - nmant)) | bits(1.0)) - 1.0, i.e. the top 23 / 52 random bits as the
// mantissa of a float in [1, 2), minus one. (The "* (max - min) + min" and "max(min, .)" steps of
// JAX are identities for [0, 1).)
void uniform01(Key key, const std::vector<int64_t> &shape, jx::DType dtype, void *out);
// Elements [begin, end) of that sample, in place in out (the whole sample's buffer). An element
// depends only on the key and its index, so pieces fill in parallel to the same bits.
void uniform01_range(Key key, jx::DType dtype, void *out, int64_t begin, int64_t end);

// == jax.random.normal(key, shape, dtype), dtype float32 or float64. JAX (random/core.py,
// _normal_real) composes it as, all in dtype T:
//   lo = nextafter(T(-1), T(0)); hi = T(1)                      // lo = -(1 - eps/2)
//   f  = uniform01 bits as above                                // f in [0, 1)
//   u  = maximum(lo, f * (hi - lo) + lo)                        // hi - lo rounds to exactly 2
//   n  = T(sqrt(2)) * erf_inv(u)                                // sqrt(2) rounded to T
// i.e. graph ops: subtract (hi - lo), multiply, add, maximum, erf_inv, multiply (each rounded to
// T). f * 2 is exact, so fusing the multiply-add into an FMA gives the same result.
void normal(Key key, const std::vector<int64_t> &shape, jx::DType dtype, void *out);

// Inverse error function: a transcription of what XLA:CPU (jaxlib 0.10.2, x86-64 with FMA)
// runs for chlo.erf_inv, so that normal() above matches JAX bit for bit:
//   z = x * -x;  l = log1p(z);  w = -l
//   log1p(z) = |z| < sqrt(2) - 1 ? Cephes' rational approximation : log(z + 1)
//   p = Giles' polynomial in t, by Horner with fma:
//       float:  w < 5: t = w - 2.5;  else t = sqrt(w) - 3
//       double: w < 6.25: t = w - 3.125;  w < 16: t = sqrt(w) - 3.25;  else t = sqrt(w) - 5
//   erf_inv = x * (|x| == 1 ? inf : p)
// with the kernel's FMA contractions; the float log is the Eigen plog that XLA inlines, the
// double log is libm's (XLA:CPU calls it too). |x| > 1 and nan give nan.
// The accuracy is XLA's, not a libm function's 1 ulp: erf(erf_inv(x)) is within 16 ulp (double)
// and 3 ulp (float) of x, but rounding x * x costs forward accuracy near +-1, where erf_inv is
// ill-conditioned. Unlike XLA:CPU, which flushes denormals to zero, this keeps denormals.
double erf_inv(double x);
float erf_inv(float x);

} // namespace jx::random_impl
