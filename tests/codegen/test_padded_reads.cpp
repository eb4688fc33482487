// Reads of a padded buffer: inside the pad a branch around the read (a masked load of contiguous
// elements once vectorized), outside it the fill value, whatever the box and the pad widths; rows
// between their edges, where every pad read is inside, read plain vectors (pad_parts).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends_agree.h"
#include "heat/heat_step.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;

std::vector<double> values(const Array &a) { return a.astype(jx::float64).to_vector<double>(); }

TEST(PaddedReads, StencilReadsNeighboursWithoutGathers) {
  const auto compiled =
      jx::jit(heat::step).lower(jx::ShapeDtypeStruct{{64, 64}, jx::float64}).compile();
  const std::string text = compiled.as_text();
  // Without vector registers (no AVX2) nothing is vectorized: nothing to check.
  if (text.find("x double>") == std::string::npos) GTEST_SKIP() << "no vectorized loop";
  EXPECT_NE(text.find("masked.load"), std::string::npos);
  EXPECT_EQ(text.find("masked.gather"), std::string::npos);
}

// Rows shorter than both edges, rows with an empty or one-step middle, pads wider than a vector,
// pads read through transposes, strided slices and dynamic slices: the compiled bits are the
// evaluator's, in every part of a row.
TEST(PaddedReads, RowPartsAgreeWithTheEvaluatorBitForBit) {
  for (int64_t n : {1, 3, 16, 17, 18, 33, 100}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // A buffer: the kernels read it through the pads (an inlined reshape would keep them whole).
    const Array u = jnp::arange(double(n * n)).reshape({n, n}) * 0.37 - 1.0;
    u.block_until_ready();
    test_util::expect_backends_agree(heat::step(u));
    test_util::expect_backends_agree(jnp::pad(u, {{0, 0}, {11, 13}}, {.constant_values = 2.0}) +
                                     1.0);
    const Array p = jnp::pad(u, 2);
    test_util::expect_backends_agree(jnp::transpose(p) * p + 1.0);
    test_util::expect_backends_agree(p(jx::slice(), jx::slice(0, jx::none, 3)) - 0.5);
    const Array i = jnp::asarray(int64_t(n / 2));
    test_util::expect_backends_agree(
        jx::lax::dynamic_slice(p, {i, i}, {int64_t(2), std::min<int64_t>(n, 4)}) * 3.0);
  }
}

TEST(PaddedReads, EveryWidthAndFillMatchesNumPy) {
  const Array x = jnp::arange(5.0 * 37).reshape({5, 37}) + 1.0;
  for (const auto &[widths, fill] : std::vector<std::pair<std::vector<int64_t>, double>>{
           {{0, 0, 1, 0}, 0.0}, {{1, 2, 3, 0}, -2.5}, {{0, 3, 9, 17}, 7.0}, {{2, 2, 0, 40}, 1.5}}) {
    auto padded = jx::jit([&](const Array &v) {
      return jnp::pad(v, {{widths[0], widths[1]}, {widths[2], widths[3]}},
                      {.constant_values = fill}) *
             2.0;
    });
    const Array got = padded(x);
    const int64_t rows = 5 + widths[0] + widths[1], cols = 37 + widths[2] + widths[3];
    ASSERT_EQ(got.shape(), (jx::Shape{rows, cols}));
    const std::vector<double> out = values(got);
    int64_t wrong = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t r = i - widths[0], c = j - widths[2];
        const double want =
            (r >= 0 && r < 5 && c >= 0 && c < 37) ? 2.0 * (r * 37 + c + 1.0) : 2.0 * fill;
        if (out[size_t(i * cols + j)] != want && wrong++ < 5)
          ADD_FAILURE() << "[" << i << ", " << j << "] = " << out[size_t(i * cols + j)]
                        << ", expected " << want;
      }
    EXPECT_EQ(wrong, 0);
  }
}

} // namespace
