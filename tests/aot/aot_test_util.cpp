// Calling generated entry points on jx::Arrays' data and comparing results with the JIT's.
#include "aot/aot_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>

#include "interp/dispatch.h"

namespace aot_test {
namespace {

size_t byte_size(const jx::Array &a) { return size_t(a.size()) * jx::itemsize(a.dtype()); }

// The multi-index of a flat C-order position, as "(i, j)".
std::string multi_index(const jx::Shape &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    index[a] = flat % shape[a];
    flat /= shape[a];
  }
  return fmt::format("({})", fmt::join(index, ", "));
}

// Units in the last place between two finite floats of one type (-0 and +0 are 1 apart).
template <class F> uint64_t ulp_distance(F a, F b) {
  using U = std::conditional_t<sizeof(F) == 8, uint64_t, uint32_t>;
  constexpr U sign = U(1) << (8 * sizeof(F) - 1);
  // Monotonic in the value: negative floats reversed below the positive ones.
  auto key = [](F x) {
    const U u = std::bit_cast<U>(x);
    return (u & sign) ? U(~u) : U(u | sign);
  };
  const U ka = key(a), kb = key(b);
  return ka > kb ? ka - kb : kb - ka;
}

template <class T>
std::string first_mismatch_typed(const jx::Array &like, const T *expected, const T *actual,
                                 const Tolerance &tolerance) {
  const bool tolerant = tolerance.ulps > 0 || tolerance.relative > 0;
  for (int64_t i = 0; i < like.size(); ++i) {
    const T e = expected[i], a = actual[i];
    if (std::memcmp(&e, &a, sizeof(T)) == 0) continue;
    if constexpr (std::is_floating_point_v<T>) {
      if (tolerant) {
        if (std::isnan(e) && std::isnan(a)) continue;
        if (std::isfinite(e) && std::isfinite(a) &&
            (ulp_distance(e, a) <= uint64_t(tolerance.ulps) ||
             std::abs(double(e) - double(a)) <= tolerance.relative * std::abs(double(e))))
          continue;
      }
    }
    using Bits = std::conditional_t<
        sizeof(T) == 8, uint64_t,
        std::conditional_t<sizeof(T) == 4, uint32_t,
                           std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
    Bits eb = 0, ab = 0;
    std::memcpy(&eb, &e, sizeof(T));
    std::memcpy(&ab, &a, sizeof(T));
    std::string extra;
    if constexpr (std::is_floating_point_v<T>)
      if (std::isfinite(e) && std::isfinite(a))
        extra = fmt::format(", {} ulp apart", ulp_distance(e, a));
    return fmt::format("{} {}: expected {} (0x{:x}), got {} (0x{:x}){}",
                       jx::dtype_name(like.dtype()), multi_index(like.shape(), i), e, eb, a, ab,
                       extra);
  }
  return "";
}

template <class T>
Differences differences_typed(const jx::Array &like, const T *expected, const T *actual) {
  Differences d;
  for (int64_t i = 0; i < like.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) == 0) continue;
    ++d.elements;
    if constexpr (std::is_floating_point_v<T>)
      if (std::isfinite(expected[i]) && std::isfinite(actual[i]))
        d.max_ulps = std::max(d.max_ulps, ulp_distance(expected[i], actual[i]));
  }
  return d;
}

} // namespace

ResultBuffer::ResultBuffer(const jx::Array &like, size_t offset)
    : offset_(offset), size_(byte_size(like)) {
  bytes_.assign(guard + 128 + size_ + guard, pattern);
  // data() lies `offset` bytes past a 64-byte boundary.
  const auto base = reinterpret_cast<uintptr_t>(bytes_.data() + guard);
  offset_ = (64 - base % 64) % 64 + offset;
}

bool ResultBuffer::guards_intact() const {
  const unsigned char *d = static_cast<const unsigned char *>(data());
  return std::all_of(bytes_.data(), d, [](unsigned char b) { return b == pattern; }) &&
         std::all_of(d + size_, bytes_.data() + bytes_.size(),
                     [](unsigned char b) { return b == pattern; });
}

bool ResultBuffer::untouched() const {
  return std::all_of(bytes_.begin(), bytes_.end(), [](unsigned char b) { return b == pattern; });
}

std::vector<ResultBuffer> run_aot(Entry entry, const std::vector<jx::Array> &args,
                                  const std::vector<jx::Array> &like) {
  std::vector<jx_aot_array> in, out;
  for (const jx::Array &a : args)
    in.push_back(
        {const_cast<void *>(a.data()), int32_t(a.dtype()), int32_t(a.ndim()), a.shape().data()});
  std::vector<ResultBuffer> results;
  results.reserve(like.size());
  for (const jx::Array &a : like) {
    results.emplace_back(a);
    out.push_back({results.back().data(), int32_t(a.dtype()), int32_t(a.ndim()), a.shape().data()});
  }
  char error[512] = "";
  const int32_t status =
      entry(in.data(), int32_t(in.size()), out.data(), int32_t(out.size()), error, sizeof error);
  EXPECT_EQ(status, JX_AOT_OK) << error;
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(results[i].guards_intact()) << "result " << i << " written out of bounds";
  return results;
}

std::string first_mismatch(const jx::Array &like, const void *expected, const void *actual,
                           const Tolerance &tolerance) {
  return jx::dispatch_dtype(like.dtype(), [&](auto tag) {
    // Bools as their stored bytes.
    using T = std::conditional_t<std::is_same_v<decltype(tag), bool>, uint8_t, decltype(tag)>;
    return first_mismatch_typed(like, static_cast<const T *>(expected),
                                static_cast<const T *>(actual), tolerance);
  });
}

Differences differences(const jx::Array &like, const void *expected, const void *actual) {
  return jx::dispatch_dtype(like.dtype(), [&](auto tag) {
    using T = std::conditional_t<std::is_same_v<decltype(tag), bool>, uint8_t, decltype(tag)>;
    return differences_typed(like, static_cast<const T *>(expected),
                             static_cast<const T *>(actual));
  });
}

std::string compare_with_jit(const std::vector<jx::Array> &expected, Entry entry,
                             const std::vector<jx::Array> &args, const Tolerance &tolerance) {
  const std::vector<ResultBuffer> actual = run_aot(entry, args, expected);
  std::string problems;
  for (size_t i = 0; i < expected.size(); ++i) {
    // Bit for bit: the whole buffer, byte-wise (NaN payloads and signed zeros included).
    if (tolerance.ulps == 0 && tolerance.relative == 0 && byte_size(expected[i]) > 0 &&
        std::memcmp(expected[i].data(), actual[i].data(), byte_size(expected[i])) == 0)
      continue;
    const std::string m =
        first_mismatch(expected[i], expected[i].data(), actual[i].data(), tolerance);
    if (!m.empty()) problems += fmt::format("result {}: {}\n", i, m);
  }
  return problems;
}

jx::Array random_array(const jx::Shape &shape, jx::DType dtype, uint64_t seed, double lo,
                       double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<double> values(static_cast<size_t>(n));
  for (double &v : values)
    v = dist(rng);
  return jx::numpy::array(values, shape).astype(dtype);
}

} // namespace aot_test
