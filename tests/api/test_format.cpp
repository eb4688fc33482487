// NumPy-style printing through fmt and ostream.
#include <jx/jx.h>

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace jnp = jx::numpy;
using jx::Array;

TEST(Format, Floats) {
  EXPECT_EQ(fmt::format("{}", jnp::array({1.0, 2.0, 3.0, 4.0}, jx::Shape{2, 2})),
            "[[1. 2.]\n [3. 4.]]");
  EXPECT_EQ(fmt::format("{}", jnp::array({0.5, -1.25, 10.0})), "[ 0.5  -1.25 10.  ]");
  EXPECT_EQ(fmt::format("{}", jnp::array<double>({NAN, INFINITY, 1.0})), "[nan inf  1.]");
  EXPECT_EQ(fmt::format("{}", jnp::array({1e-5, 1.0})), "[1.e-05 1.e+00]");
  EXPECT_EQ(fmt::format("{}", jnp::array({0.1f, 0.2f})), "[0.1 0.2]");
}

TEST(Format, IntsBoolsAndScalars) {
  EXPECT_EQ(fmt::format("{}", jnp::array<int64_t>({1, -20, 300})), "[  1 -20 300]");
  EXPECT_EQ(fmt::format("{}", jnp::array({true, false})), "[ True False]");
  EXPECT_EQ(fmt::format("{}", Array(2.5)), "2.5");
  EXPECT_EQ(fmt::format("{}", jnp::zeros({0})), "[]");
  EXPECT_EQ(fmt::format("{}", jnp::zeros({2, 2, 2}, jnp::int32)),
            "[[[0 0]\n  [0 0]]\n\n [[0 0]\n  [0 0]]]");
}

TEST(Format, LargeArraysAreSummarized) {
  std::string s = fmt::format("{}", jnp::arange(2000));
  EXPECT_EQ(s, "[   0    1    2 ... 1997 1998 1999]");
}

TEST(Format, Ostream) {
  std::ostringstream os;
  os << jnp::arange(3);
  EXPECT_EQ(os.str(), "[0 1 2]");
}

// A dtype prints as its NumPy name, through fmt (with its format spec) and ostream.
TEST(Format, DTypes) {
  EXPECT_EQ(fmt::format("{}", jnp::float32), "float32");
  EXPECT_EQ(fmt::format("[{:>6}]", jx::bool_), "[  bool]");
  std::ostringstream os;
  os << jnp::complex128 << ' ' << jnp::arange(3).dtype();
  EXPECT_EQ(os.str(), "complex128 int64");
}

class FormatGolden : public ::testing::TestWithParam<const char *> {};

// str(x) from NumPy itself, for wrapping, summarization, scientific notation and dtypes.
TEST_P(FormatGolden, MatchesNumPy) {
  const std::string base = std::string(JX_GOLDEN_DIR) + "/format/" + GetParam();
  std::ifstream in(base + ".txt");
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(jx::to_string(jnp::load(base + ".npy")), expected.str());
}

INSTANTIATE_TEST_SUITE_P(NumPy, FormatGolden,
                         ::testing::Values("scientific", "wrapped_floats", "wrapped_ints",
                                           "summarized_2d", "float32", "bool_2d", "nonfinite",
                                           "cutoff_1e8", "negative_scientific", "ints_3d",
                                           "int64_large", "empty_2d", "scalar", "trimmed_digits",
                                           "trimmed_scientific", "float16", "float16_fixed",
                                           "uint64_large", "int8", "complex128", "complex64_2d",
                                           "complex_nonfinite", "complex_scientific",
                                           "complex_scalar", "complex_scalar_imaginary"));
