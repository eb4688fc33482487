// Helpers of the AOT tests: calling a generated entry point on jx::Arrays' data, and comparing
// its results with the JIT's, bit for bit or within a tolerance.
#pragma once

#include <jx/aot_abi.h>
#include <jx/jx.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aot_test {

// A generated function's C entry point (NAME.h declares it).
using Entry = int32_t (*)(const jx_aot_array *args, int32_t num_args, const jx_aot_array *results,
                          int32_t num_results, char *error, size_t error_size);

// A buffer for one result, with guard bytes on both sides; it starts filled with a pattern, so
// that bytes a call does not write show, and so do writes outside it.
class ResultBuffer {
public:
  // offset: bytes past a 64-byte boundary where the data starts (a multiple of the itemsize).
  explicit ResultBuffer(const jx::Array &like, size_t offset = 0);
  void *data() { return bytes_.data() + guard + offset_; }
  const void *data() const { return bytes_.data() + guard + offset_; }
  size_t size() const { return size_; }
  // Whether the guard bytes are intact.
  bool guards_intact() const;
  // Whether every byte still holds the fill pattern.
  bool untouched() const;

  static constexpr size_t guard = 64;
  static constexpr unsigned char pattern = 0xA5;

private:
  std::vector<unsigned char> bytes_;
  size_t offset_, size_;
};

// The outputs of a lowered function run through the JIT (compiled, then called with args).
template <class Out>
std::vector<jx::Array> jit_outputs(const jx::Lowered<Out> &lowered,
                                   const std::vector<jx::Array> &args) {
  return jx::detail::Outputs<Out>::flatten(lowered.compile().call(args));
}

// Calls entry with args' data and results shaped like `like`; expects JX_AOT_OK with intact
// guards.
std::vector<ResultBuffer> run_aot(Entry entry, const std::vector<jx::Array> &args,
                                  const std::vector<jx::Array> &like);

// How results may differ from the JIT's: bit for bit (the default), or floats within `ulps`
// units in the last place or `relative` relative error (NaN matching any NaN).
struct Tolerance {
  int64_t ulps = 0;
  double relative = 0;
};

// The first element of `actual` that differs from `expected` (like's dtype and shape) beyond the
// tolerance, described with both values and their bits; "" when none does.
std::string first_mismatch(const jx::Array &like, const void *expected, const void *actual,
                           const Tolerance &tolerance = {});

// The number of elements whose bits differ, and the largest ulp distance among finite floats.
struct Differences {
  int64_t elements = 0;
  uint64_t max_ulps = 0;
};
Differences differences(const jx::Array &like, const void *expected, const void *actual);

// Runs lowered through the JIT and entry on the same arguments; returns the description of each
// result that differs, "" when all match.
std::string compare_with_jit(const std::vector<jx::Array> &expected, Entry entry,
                             const std::vector<jx::Array> &args, const Tolerance &tolerance = {});
template <class Out>
std::string compare_with_jit(const jx::Lowered<Out> &lowered, Entry entry,
                             const std::vector<jx::Array> &args, const Tolerance &tolerance = {}) {
  return compare_with_jit(jit_outputs(lowered, args), entry, args, tolerance);
}

// A deterministic array of `shape` with values uniform in [lo, hi), converted to dtype.
jx::Array random_array(const jx::Shape &shape, jx::DType dtype, uint64_t seed, double lo,
                       double hi);

} // namespace aot_test
