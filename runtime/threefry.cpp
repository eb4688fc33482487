// Bit-exact C++ core of jax.random (threefry2x32 keys, bits, uniform, normal) and XLA's ErfInv.
// The float code below spells out every FMA XLA uses, so the compiler must fuse nothing else.
// Without FP traps the sampling loops if-convert and vectorize. (Set before any include so that
// inlined library code gets the same options.)
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off", "no-trapping-math")
#endif

#include "runtime/threefry.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

// Unless the target already has FMA, the bulk samplers get an x86-64-v3 (AVX2+FMA) clone:
// std::fma then inlines and the loops vectorize. (Clang dispatches "arch=" clones on the CPU
// model, so it gets an FMA clone instead.) Not under ThreadSanitizer: the clones' resolver runs
// during relocation, before the sanitizer's runtime is up.
#if defined(__SANITIZE_THREAD__)
#define JX_FMA_CLONES
#elif defined(__x86_64__) && defined(__linux__) && !defined(__FMA__) && defined(__clang__)
#define JX_FMA_CLONES __attribute__((target_clones("fma", "default")))
#elif defined(__x86_64__) && defined(__linux__) && !defined(__FMA__) && defined(__GNUC__)
#define JX_FMA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define JX_FMA_CLONES
#endif

namespace jx::random_impl {
namespace {

// Elements per pass; all per-pass loops have this fixed trip count so that -O2 vectorizes them.
constexpr int kChunk = 512;

int64_t element_count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("jx.random: negative dimension");
    n *= d;
  }
  return n;
}

// One Threefry round with rotation R on N lanes.
template <int R, int N>
[[gnu::always_inline]] inline void mix(uint32_t (&x0)[N], uint32_t (&x1)[N]) {
  for (int j = 0; j < N; ++j) {
    x0[j] += x1[j];
    x1[j] = ((x1[j] << R) | (x1[j] >> (32 - R))) ^ x0[j];
  }
}

template <int N>
[[gnu::always_inline]] inline void inject(uint32_t (&x0)[N], uint32_t (&x1)[N], uint32_t k0,
                                          uint32_t k1) {
  for (int j = 0; j < N; ++j) {
    x0[j] += k0;
    x1[j] += k1;
  }
}

// Threefry-2x32, 20 rounds, on N counter pairs in place, as jax's threefry2x32 lowering.
template <int N>
[[gnu::always_inline]] inline void threefry(Key key, uint32_t (&x0)[N], uint32_t (&x1)[N]) {
  const uint32_t k0 = key.hi, k1 = key.lo, k2 = k0 ^ k1 ^ 0x1BD11BDAu;
  inject(x0, x1, k0, k1);
  mix<13>(x0, x1), mix<15>(x0, x1), mix<26>(x0, x1), mix<6>(x0, x1);
  inject(x0, x1, k1, k2 + 1);
  mix<17>(x0, x1), mix<29>(x0, x1), mix<16>(x0, x1), mix<24>(x0, x1);
  inject(x0, x1, k2, k0 + 2);
  mix<13>(x0, x1), mix<15>(x0, x1), mix<26>(x0, x1), mix<6>(x0, x1);
  inject(x0, x1, k0, k1 + 3);
  mix<17>(x0, x1), mix<29>(x0, x1), mix<16>(x0, x1), mix<24>(x0, x1);
  inject(x0, x1, k1, k2 + 4);
  mix<13>(x0, x1), mix<15>(x0, x1), mix<26>(x0, x1), mix<6>(x0, x1);
  inject(x0, x1, k2, k0 + 5);
}

inline Key hash_counter(Key key, uint64_t c) {
  uint32_t x0[1] = {static_cast<uint32_t>(c >> 32)}, x1[1] = {static_cast<uint32_t>(c)};
  threefry(key, x0, x1);
  return {x0[0], x1[0]};
}

// Threefry outputs (o0, o1) of the 64-bit counters start, ..., start + kChunk - 1.
[[gnu::always_inline]] inline void hash_chunk(Key key, int64_t start, uint32_t (&o0)[kChunk],
                                              uint32_t (&o1)[kChunk]) {
  for (int i = 0; i < kChunk; ++i) {
    const auto c = static_cast<uint64_t>(start + i);
    o0[i] = static_cast<uint32_t>(c >> 32);
    o1[i] = static_cast<uint32_t>(c);
  }
  threefry(key, o0, o1);
}

// jax.random.uniform's bit trick: random mantissa under the exponent of 1.0, minus 1.
[[gnu::always_inline]] inline void uniform_chunk(Key key, int64_t start, float (&out)[kChunk]) {
  uint32_t o0[kChunk], o1[kChunk];
  hash_chunk(key, start, o0, o1);
  for (int i = 0; i < kChunk; ++i)
    out[i] = std::bit_cast<float>(((o0[i] ^ o1[i]) >> 9) | 0x3F800000u) - 1.0f;
}

[[gnu::always_inline]] inline void uniform_chunk(Key key, int64_t start, double (&out)[kChunk]) {
  uint32_t o0[kChunk], o1[kChunk];
  hash_chunk(key, start, o0, o1);
  for (int i = 0; i < kChunk; ++i) {
    const uint64_t bits = (uint64_t{o0[i]} << 32) | o1[i];
    out[i] = std::bit_cast<double>((bits >> 12) | 0x3FF0000000000000u) - 1.0;
  }
}

// Eigen's plog<float> (Cephes) as XLA:CPU inlines it for llvm.log.f32, FMAs included.
[[gnu::always_inline]] inline float log_f32(float t) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float v = t > std::numeric_limits<float>::min() ? t : std::numeric_limits<float>::min();
  const uint32_t b = std::bit_cast<uint32_t>(v);
  float e = static_cast<float>(static_cast<int32_t>(b >> 23) - 127) + 1.0f;
  const float m = std::bit_cast<float>((b & 0x807FFFFFu) | 0x3F000000u); // in [0.5, 1)
  const bool below = m < 0x1.6a09e6p-1f;                                 // sqrt(1/2)
  const float r = (m - 1.0f) + (below ? m : 0.0f);
  e = e - (below ? 1.0f : 0.0f);
  const float r2 = r * r, r3 = r2 * r;
  float y = std::fma(std::fma(0x1.204376p-4f, r, -0x1.d7a37p-4f), r, 0x1.de4a34p-4f);
  const float y1 = std::fma(std::fma(-0x1.fcba9ep-4f, r, 0x1.23d37ep-3f), r, -0x1.555cap-3f);
  const float y2 = std::fma(std::fma(0x1.999d58p-3f, r, -0x1.fffff8p-3f), r, 0x1.555554p-2f);
  y = std::fma(y, r3, y1);
  y = std::fma(y, r3, y2);
  y = std::fma(y, r3, e * -0x1.bd0106p-13f);
  float res = std::fma(e, 0x1.63p-1f, std::fma(-0.5f, r2, r) + y);
  res = t > 0.0f ? res : std::numeric_limits<float>::quiet_NaN();
  res = t == 0.0f ? -kInf : res;
  return t == kInf ? kInf : res;
}

// Cephes log1p rational approximation for |z| < sqrt(2) - 1, as XLA emits it (its polynomials
// start from 0 * z, hence the "zero" term).
template <class T>
[[gnu::always_inline]] inline T log1p_small(T z, const T (&p)[7], const T (&q)[7]) {
  const T zero = z * T(0);
  T num = zero + p[0], den = zero + q[0];
#pragma GCC unroll 7
  for (int k = 1; k < 7; ++k) {
    num = std::fma(num, z, p[k]);
    den = std::fma(den, z, q[k]);
  }
  const T z2 = z * z;
  return z + std::fma(T(-0.5), z2, (z * z2) * (num / den));
}

constexpr float kLog1pP32[7] = {0x1.7bc096p-15f, 0x1.fe818ap-2f, 0x1.a509f4p+2f, 0x1.de9738p+4f,
                                0x1.e798ecp+5f,  0x1.c8e75ap+5f, 0x1.40a202p+4f};
constexpr float kLog1pQ32[7] = {1.0f,           0x1.e2035ap+3f, 0x1.4c30b6p+6f, 0x1.bb865ap+7f,
                                0x1.351946p+8f, 0x1.b0db14p+7f, 0x1.e0f304p+5f};
constexpr double kLog1pP64[7] = {4.52700008624452e-05, 0.49854102823193375, 6.578732594206104,
                                 29.911919328553072,   60.94966798098779,   57.11296359058554,
                                 20.039553499201283};
constexpr double kLog1pQ64[7] = {1.0,
                                 15.062909083469192,
                                 83.04756596796722,
                                 221.76239823732857,
                                 309.09872225312057,
                                 216.42788614495947,
                                 60.11866049760384};

// Giles, "Approximating the erfinv function" (2010), float: w < 5 and w >= 5.
constexpr float kErfInvNear32[9] = {0x1.e2cb1p-26f,   0x1.70966cp-22f, -0x1.d8e6aep-19f,
                                    -0x1.26b582p-18f, 0x1.ca65b6p-13f, -0x1.48a81p-10f,
                                    -0x1.11c9dep-8f,  0x1.f91ec6p-3f,  0x1.805c5ep+0f};
constexpr float kErfInvFar32[9] = {-0x1.a3e136p-13f, 0x1.a76ad6p-14f, 0x1.61b8e4p-10f,
                                   -0x1.e17bcep-9f,  0x1.7824f6p-8f,  -0x1.f38baep-8f,
                                   0x1.354afcp-7f,   0x1.006db6p+0f,  0x1.6a9efcp+1f};

// erf_inv runs in three steps so that the samplers can keep the libm calls (log for double, sqrt)
// in loops of their own and vectorize the rest: l = log1p(-x^2), s = sqrt(|l|), then
// erf_inv = x * P(t) with t from l and s.

[[gnu::always_inline]] inline float log1p_neg_sq(float x) {
  const float z = x * -x;
  const float log_large = log_f32(z + 1.0f);
  const float log_small = log1p_small(z, kLog1pP32, kLog1pQ32);
  return std::fabs(z) < 0x1.a8279ap-2f ? log_small : log_large;
}

[[gnu::always_inline]] inline float erf_inv_poly(float x, float l, float s) {
  const bool w_lt_5 = l > -5.0f; // w = -l
  const float t_near = -2.5f - l, t_far = s + -3.0f;
  const float t = w_lt_5 ? t_near : t_far;
  float p = std::fma(t, w_lt_5 ? kErfInvNear32[0] : kErfInvFar32[0],
                     w_lt_5 ? kErfInvNear32[1] : kErfInvFar32[1]);
#pragma GCC unroll 8
  for (int k = 2; k < 9; ++k)
    p = std::fma(t, p, w_lt_5 ? kErfInvNear32[k] : kErfInvFar32[k]);
  return x * (std::fabs(x) == 1.0f ? std::numeric_limits<float>::infinity() : p);
}

// Giles, double: w < 6.25, w < 16 and w >= 16, with 23, 19 and 17 coefficients.
constexpr double kErfInvA[23] = {
    -3.64441206401782e-21,  -1.6850591381820166e-19, 1.28584807152564e-18,
    1.1157877678025181e-17, -1.333171662854621e-16,  2.0972767875968562e-17,
    6.637638134358324e-15,  -4.054566272975207e-14,  -8.151934197605472e-14,
    2.6335093153082323e-12, -1.2975133253453532e-11, -5.415412054294628e-11,
    1.0512122733215323e-09, -4.112633980346984e-09,  -2.9070369957882005e-08,
    4.2347877827932404e-07, -1.3654692000834679e-06, -1.3882523362786469e-05,
    0.00018673420803405714, -0.000740702534166267,   -0.006033670871430149,
    0.24015818242558962,    1.6536545626831027};
constexpr double kErfInvB[19] = {
    2.2137376921775787e-09, 9.075656193888539e-08,  -2.7517406297064545e-07,
    1.8239629214389228e-08, 1.5027403968909828e-06, -4.013867526981546e-06,
    2.9234449089955446e-06, 1.2475304481671779e-05, -4.7318229009055734e-05,
    6.828485145957318e-05,  2.4031110387097894e-05, -0.0003550375203628475,
    0.0009532893797373805,  -0.0016882755560235047, 0.002491442096107851,
    -0.003751208507569241,  0.005370914553590064,   1.0052589676941592,
    3.0838856104922208};
constexpr double kErfInvC[17] = {
    -2.7109920616438573e-11, -2.555641816996525e-10,  1.5076572693500548e-09,
    -3.789465440126737e-09,  7.61570120807834e-09,    -1.496002662714924e-08,
    2.914795345090108e-08,   -6.771199775845234e-08,  2.2900482228026655e-07,
    -9.9298272942317e-07,    4.526062597223154e-06,   -1.968177810553167e-05,
    7.599527703001776e-05,   -0.00021503011930044477, -0.00013871931833623122,
    1.0103004648645344,      4.849906401408584};

// log1p(-x^2) given z = x * -x and log_large = log(z + 1).
[[gnu::always_inline]] inline double log1p_neg_sq(double z, double log_large) {
  const double log_small = log1p_small(z, kLog1pP64, kLog1pQ64);
  return std::fabs(z) < 0.41421356237309503 ? log_small : log_large;
}

[[gnu::always_inline]] inline double erf_inv_poly(double x, double l, double s) {
  const bool w_lt_6 = l > -6.25, w_lt_16 = l > -16.0; // w = -l
  const double t_near = -3.125 - l, t_far = s - (w_lt_16 ? 3.25 : 5.0);
  const double t = w_lt_6 ? t_near : t_far;
  // One Horner pass of 23 steps for all three: the shorter polynomials get leading zero
  // coefficients, which fma steps carry through exactly.
  double p = w_lt_6 ? kErfInvA[0] : 0.0;
#pragma GCC unroll 23
  for (int k = 1; k < 23; ++k) {
    const double b = k < 4 ? 0.0 : kErfInvB[k - 4], c = k < 6 ? 0.0 : kErfInvC[k - 6];
    p = std::fma(t, p, w_lt_6 ? kErfInvA[k] : w_lt_16 ? b : c);
  }
  return x * (std::fabs(x) == 1.0 ? std::numeric_limits<double>::infinity() : p);
}

// lax.max(lo, v) for non-nan v.
template <class T> [[gnu::always_inline]] inline T clamp_below(T lo, T v) {
  return v < lo ? lo : v;
}

// Row-major elements [start, start + n) of each sampler, n <= kChunk.

JX_FMA_CLONES void bits_chunk(Key key, int64_t start, int n, int bit_width, void *out) {
  uint32_t o0[kChunk], o1[kChunk];
  hash_chunk(key, start, o0, o1);
  if (bit_width == 32) {
    uint32_t bits[kChunk];
    for (int i = 0; i < kChunk; ++i)
      bits[i] = o0[i] ^ o1[i];
    std::copy_n(bits, n, static_cast<uint32_t *>(out));
  } else {
    uint64_t bits[kChunk];
    for (int i = 0; i < kChunk; ++i)
      bits[i] = (uint64_t{o0[i]} << 32) | o1[i];
    std::copy_n(bits, n, static_cast<uint64_t *>(out));
  }
}

JX_FMA_CLONES void uniform_chunk_f32(Key key, int64_t start, int n, float *out) {
  float u[kChunk];
  uniform_chunk(key, start, u);
  std::copy_n(u, n, out);
}

JX_FMA_CLONES void uniform_chunk_f64(Key key, int64_t start, int n, double *out) {
  double u[kChunk];
  uniform_chunk(key, start, u);
  std::copy_n(u, n, out);
}

// The libm calls (sqrt, double log) get loops of their own; the other loops vectorize.
JX_FMA_CLONES void normal_chunk_f32(Key key, int64_t start, int n, float *out) {
  float u[kChunk], l[kChunk], s[kChunk];
  uniform_chunk(key, start, u);
  const float lo = std::nextafter(-1.0f, 0.0f), hi = 1.0f;
  for (int i = 0; i < kChunk; ++i) {
    u[i] = clamp_below(lo, u[i] * (hi - lo) + lo);
    l[i] = log1p_neg_sq(u[i]);
  }
  for (int i = 0; i < kChunk; ++i)
    s[i] = std::sqrt(std::fabs(l[i]));
  for (int i = 0; i < kChunk; ++i)
    u[i] = 1.41421354f * erf_inv_poly(u[i], l[i], s[i]);
  std::copy_n(u, n, out);
}

JX_FMA_CLONES void normal_chunk_f64(Key key, int64_t start, int n, double *out) {
  double u[kChunk], z[kChunk], log_large[kChunk], l[kChunk], s[kChunk];
  uniform_chunk(key, start, u);
  const double lo = std::nextafter(-1.0, 0.0), hi = 1.0;
  for (int i = 0; i < kChunk; ++i) {
    u[i] = clamp_below(lo, u[i] * (hi - lo) + lo);
    z[i] = u[i] * -u[i];
  }
  for (int i = 0; i < kChunk; ++i)
    log_large[i] = std::log(z[i] + 1.0);
  for (int i = 0; i < kChunk; ++i)
    l[i] = log1p_neg_sq(z[i], log_large[i]);
  for (int i = 0; i < kChunk; ++i)
    s[i] = std::sqrt(std::fabs(l[i]));
  for (int i = 0; i < kChunk; ++i)
    u[i] = 1.4142135623730951 * erf_inv_poly(u[i], l[i], s[i]);
  std::copy_n(u, n, out);
}

// Runs chunk(start, count) over [begin, end) in kChunk pieces.
template <class F> void by_chunks(int64_t begin, int64_t end, F chunk) {
  for (int64_t s = begin; s < end; s += kChunk)
    chunk(s, static_cast<int>(std::min<int64_t>(kChunk, end - s)));
}
template <class F> void by_chunks(int64_t n, F chunk) { by_chunks(0, n, chunk); }

jx::DType check_float(jx::DType dtype, const char *what) {
  if (dtype != jx::DType::float32 && dtype != jx::DType::float64)
    throw std::invalid_argument(std::string(what) + ": dtype must be float32 or float64");
  return dtype;
}

} // namespace

void threefry2x32(Key key, uint32_t &x0, uint32_t &x1) {
  const Key out = hash_counter(key, (uint64_t{x0} << 32) | x1);
  x0 = out.hi;
  x1 = out.lo;
}

Key prng_key(int64_t seed) {
  const auto s = static_cast<uint64_t>(seed);
  return {static_cast<uint32_t>(s >> 32), static_cast<uint32_t>(s)};
}

std::vector<Key> split(Key key, int64_t num) {
  if (num < 0) throw std::invalid_argument("jx.random.split: negative count");
  std::vector<Key> keys(static_cast<size_t>(num));
  for (int64_t i = 0; i < num; ++i)
    keys[static_cast<size_t>(i)] = hash_counter(key, static_cast<uint64_t>(i));
  return keys;
}

Key fold_in(Key key, uint32_t data) { return hash_counter(key, data); }

void random_bits(Key key, const std::vector<int64_t> &shape, int bit_width, void *out) {
  if (bit_width != 32 && bit_width != 64)
    throw std::invalid_argument("jx.random.bits: bit_width must be 32 or 64");
  auto *bytes = static_cast<char *>(out);
  by_chunks(element_count(shape), [&](int64_t s, int m) {
    bits_chunk(key, s, m, bit_width, bytes + s * (bit_width / 8));
  });
}

void uniform01(Key key, const std::vector<int64_t> &shape, jx::DType dtype, void *out) {
  uniform01_range(key, dtype, out, 0, element_count(shape));
}

void uniform01_range(Key key, jx::DType dtype, void *out, int64_t begin, int64_t end) {
  if (check_float(dtype, "jx.random.uniform") == jx::DType::float32) {
    auto *dst = static_cast<float *>(out);
    by_chunks(begin, end, [&](int64_t s, int m) { uniform_chunk_f32(key, s, m, dst + s); });
  } else {
    auto *dst = static_cast<double *>(out);
    by_chunks(begin, end, [&](int64_t s, int m) { uniform_chunk_f64(key, s, m, dst + s); });
  }
}

void normal(Key key, const std::vector<int64_t> &shape, jx::DType dtype, void *out) {
  const int64_t n = element_count(shape);
  if (check_float(dtype, "jx.random.normal") == jx::DType::float32) {
    auto *dst = static_cast<float *>(out);
    by_chunks(n, [&](int64_t s, int m) { normal_chunk_f32(key, s, m, dst + s); });
  } else {
    auto *dst = static_cast<double *>(out);
    by_chunks(n, [&](int64_t s, int m) { normal_chunk_f64(key, s, m, dst + s); });
  }
}

// Compiled kernels call these per element: the FMA clone keeps the 23 fma steps in hardware
// (the default build's std::fma is a libm call), with the same, exactly rounded, results.
JX_FMA_CLONES double erf_inv(double x) {
  const double z = x * -x;
  const double l = log1p_neg_sq(z, std::log(z + 1.0));
  return erf_inv_poly(x, l, std::sqrt(std::fabs(l)));
}

JX_FMA_CLONES float erf_inv(float x) {
  const float l = log1p_neg_sq(x);
  return erf_inv_poly(x, l, std::sqrt(std::fabs(l)));
}

} // namespace jx::random_impl
