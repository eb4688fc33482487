// Bad input gives a typed jx::Error with NumPy's message: one test per case.
#include <jx/jx.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;

namespace {

using test_util::expect_error;

Array m(int64_t r, int64_t c) { return jnp::zeros({r, c}); }

} // namespace

TEST(Errors, AllDeriveFromJxError) {
  EXPECT_THROW(jnp::add(m(3, 4), jnp::zeros({5})), jx::Error);
  EXPECT_THROW(jnp::add(m(3, 4), jnp::zeros({5})), jx::ValueError);
}

TEST(Errors, BroadcastMismatch) {
  expect_error<jx::ShapeError>([] { jnp::add(m(3, 4), jnp::zeros({5})); },
                               "operands could not be broadcast together with shapes (3,4) (5,)");
  expect_error<jx::ShapeError>([] { jnp::where(jnp::zeros({2}, jnp::bool_), m(3, 4), 1.0); },
                               "shapes (2,) (3,4) ()");
  expect_error<jx::ShapeError>(
      [] { jnp::broadcast_to(jnp::zeros({3}), {4}); },
      "Incompatible shapes for broadcasting: (3,) and requested shape (4,)");
}

TEST(Errors, AxisOutOfRange) {
  expect_error<jx::AxisError>([] { jnp::sum(m(2, 3), 2); },
                              "axis 2 is out of bounds for array of dimension 2");
  expect_error<jx::AxisError>([] { jnp::sum(m(2, 3), -3); },
                              "axis -3 is out of bounds for array of dimension 2");
  expect_error<jx::AxisError>([] { jnp::diff(m(2, 3), 1, 5); }, "axis 5 is out of bounds");
  expect_error<jx::AxisError>([] { jnp::concatenate({m(2, 3), m(2, 3)}, 2); }, "axis 2");
  expect_error<jx::AxisError>([] { jnp::argmax(m(2, 3), 3); }, "axis 3");
  expect_error<jx::ValueError>([] { jnp::sum(m(2, 3), {0, -2}); }, "repeated axis");
}

TEST(Errors, EinsumOutputLetterAbsent) {
  expect_error<jx::ValueError>([] { jnp::einsum("ij->k", m(2, 3)); },
                               "output subscript 'k' which never appeared in an input");
}

TEST(Errors, EinsumInconsistentSizes) {
  expect_error<jx::ShapeError>(
      [] { jnp::einsum("ij,jk->ik", m(2, 3), m(4, 5)); },
      "size of label 'j' for operand 1 (4) does not match previous terms (3)");
  // Size 1 broadcasts; other sizes that differ do not, whatever came before.
  expect_error<jx::ShapeError>(
      [] { jnp::einsum("ij,jk", m(3, 4), m(5, 6)); },
      "size of label 'j' for operand 1 (5) does not match previous terms (4)");
  expect_error<jx::ShapeError>(
      [] { jnp::einsum("ij,ij->ij", m(2, 4), m(3, 4)); },
      "size of label 'i' for operand 1 (3) does not match previous terms (2)");
  expect_error<jx::ShapeError>(
      [] { jnp::einsum("i,i,i", jnp::zeros({1}), jnp::zeros({5}), jnp::zeros({6})); },
      "size of label 'i' for operand 2 (6) does not match previous terms (5)");
  // Within one operand a repeated label's sizes must agree, 1 included.
  expect_error<jx::ShapeError>(
      [] { jnp::einsum("ii->i", m(1, 3)); },
      "dimensions in single operand for collapsing index 'i' don't match (1 != 3)");
}

TEST(Errors, EinsumWrongOperandCount) {
  expect_error<jx::ValueError>([] { jnp::einsum("ij,jk->ik", m(2, 3)); }, "fewer operands");
  expect_error<jx::ValueError>([] { jnp::einsum("ij->ij", m(2, 3), m(2, 3)); }, "more operands");
}

TEST(Errors, EinsumBadEllipsis) {
  expect_error<jx::ValueError>([] { jnp::einsum("i..,i", m(2, 3), jnp::zeros({2})); },
                               "'.' that is not part of an ellipsis");
  expect_error<jx::ValueError>([] { jnp::einsum("...i...", m(2, 3)); }, "multiple ellipses");
  expect_error<jx::ValueError>([] { jnp::einsum("ijk", m(2, 3)); },
                               "too many subscripts for operand 0");
  expect_error<jx::ValueError>([] { jnp::einsum("i", m(2, 3)); }, "no '...' ellipsis");
  expect_error<jx::ValueError>([] { jnp::einsum("i1", m(2, 3)); }, "invalid subscript '1'");
  expect_error<jx::ValueError>([] { jnp::einsum("ij->ii", m(2, 3)); },
                               "output subscript 'i' multiple times");
}

TEST(Errors, ReshapeSizeMismatch) {
  expect_error<jx::ShapeError>(
      [] {
        jnp::reshape(m(3, 4), {5, -1});
      },
      "cannot reshape array of size 12 into shape (5, -1)");
  expect_error<jx::ShapeError>([] { jnp::reshape(m(3, 4), {5}); },
                               "cannot reshape array of size 12 into shape (5,)");
  expect_error<jx::ValueError>(
      [] {
        jnp::reshape(m(3, 4), {-1, -1});
      },
      "can only specify one unknown dimension");
}

TEST(Errors, SliceStepZero) {
  expect_error<jx::ValueError>([] { m(3, 4)(jx::slice(0, 2, 0)); }, "slice step cannot be zero");
  expect_error<jx::ValueError>([] { m(3, 4).at(jx::slice(jx::none, jx::none, 0)).set(1.0); },
                               "slice step cannot be zero");
}

TEST(Errors, IndexOutOfRange) {
  expect_error<jx::IndexError>([] { m(3, 4)(3); },
                               "index 3 is out of bounds for axis 0 with size 3");
  expect_error<jx::IndexError>([] { m(3, 4)(0, -5); },
                               "index -5 is out of bounds for axis 1 with size 4");
  expect_error<jx::IndexError>(
      [] { m(3, 4)(0, 0, 0); },
      "too many indices for array: array is 2-dimensional, but 3 were indexed");
  expect_error<jx::IndexError>([] { m(3, 4)(jx::ellipsis, 0, jx::ellipsis); }, "a single ellipsis");
  expect_error<jx::IndexError>([] { m(3, 4).at(7).set(1.0); }, "index 7 is out of bounds");
}

TEST(Errors, AtSetShapeMismatch) {
  expect_error<jx::ShapeError>([] { m(3, 4).at(0).set(jnp::ones({3})); },
                               "could not broadcast input array from shape (3,) into shape (4,)");
}

TEST(Errors, ConcatenateMismatch) {
  expect_error<jx::ShapeError>(
      [] {
        jnp::concatenate({m(2, 3), m(2, 4)}, 0);
      },
      "along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 4");
  expect_error<jx::ShapeError>(
      [] {
        jnp::concatenate({m(2, 3), jnp::zeros({3})});
      },
      "the array at index 0 has 2 dimension(s) and the array at index 1 has 1 dimension(s)");
  expect_error<jx::ValueError>([] { jnp::concatenate({}); },
                               "need at least one array to concatenate");
  expect_error<jx::ValueError>(
      [] {
        jnp::concatenate({Array(1.0), Array(2.0)});
      },
      "zero-dimensional arrays cannot be concatenated");
}

TEST(Errors, StackMismatch) {
  expect_error<jx::ShapeError>(
      [] {
        jnp::stack({m(2, 3), m(3, 2)});
      },
      "all input arrays must have the same shape");
  expect_error<jx::ValueError>([] { jnp::stack({}); }, "need at least one array to stack");
  expect_error<jx::AxisError>(
      [] {
        jnp::stack({m(2, 3), m(2, 3)}, 3);
      },
      "axis 3 is out of bounds for array of dimension 3");
}

TEST(Errors, DiffNegativeOrder) {
  expect_error<jx::ValueError>([] { jnp::diff(m(2, 3), -1); },
                               "order must be non-negative but got -1");
  expect_error<jx::ValueError>([] { jnp::diff(Array(1.0)); },
                               "diff requires input that is at least one dimensional");
  expect_error<jx::ShapeError>(
      [] {
        jnp::diff(m(2, 3), 1, 0, jnp::zeros({1, 4}));
      },
      "along dimension 1");
}

TEST(Errors, IntegerOnlyOpOnFloats) {
  expect_error<jx::DTypeError>(
      [] {
        jnp::bitwise_and(m(2, 2), jnp::ones({2, 2}, jnp::int32));
      },
      "ufunc 'bitwise_and' not supported for the input types");
  expect_error<jx::DTypeError>([] { jnp::left_shift(m(2, 2), 1); },
                               "ufunc 'left_shift' not supported");
  expect_error<jx::DTypeError>([] { jnp::invert(m(2, 2)); }, "ufunc 'invert' not supported");
  expect_error<jx::DTypeError>([] { jnp::arange(4) | 1.5; }, "ufunc 'bitwise_or' not supported");
}

TEST(Errors, BooleanArithmetic) {
  expect_error<jx::DTypeError>([] { -jnp::zeros({2}, jnp::bool_); }, "boolean negative");
  expect_error<jx::DTypeError>([] { jnp::zeros({2}, jnp::bool_) - jnp::ones({2}, jnp::bool_); },
                               "boolean subtract");
}

TEST(Errors, IntegerNegativePower) {
  expect_error<jx::ValueError>([] { jnp::power(jnp::arange(3), -1); },
                               "Integers to negative integer powers are not allowed.");
}

TEST(Errors, WeakIntOverflowsInt32) {
  expect_error<jx::OverflowError>([] { jnp::ones({2}, jnp::int32) + (int64_t(1) << 40); },
                                  "Python integer 1099511627776 out of bounds for int32");
}

TEST(Errors, BitwiseOpsOfUint64AndASignedIntegerHaveNoCommonInteger) {
  expect_error<jx::DTypeError>(
      [] { jnp::right_shift(jnp::ones({2}, jnp::uint64), jnp::ones({2}, jnp::int32)); },
      "ufunc 'right_shift' not supported for the input types (dtype('uint64'), dtype('int32')), "
      "and the inputs could not be safely coerced to any supported types according to the casting "
      "rule 'safe'");
  EXPECT_EQ(jnp::bitwise_and(jnp::ones({2}, jnp::uint64), 3).dtype(), jnp::uint64);
}

TEST(Errors, WeakIntOverflowsSmallAndUnsignedIntegers) {
  expect_error<jx::OverflowError>([] { jnp::ones({2}, jnp::uint8) + 300; },
                                  "Python integer 300 out of bounds for uint8");
  expect_error<jx::OverflowError>([] { jnp::ones({2}, jnp::uint32) * -1; },
                                  "Python integer -1 out of bounds for uint32");
  expect_error<jx::OverflowError>([] { jnp::ones({2}, jnp::int8) - 129; },
                                  "Python integer 129 out of bounds for int8");
  EXPECT_EQ((jnp::ones({2}, jnp::int8) + -128).dtype(), jnp::int8);
  EXPECT_EQ((jnp::ones({2}, jnp::uint64) + INT64_MAX).dtype(), jnp::uint64);
}

TEST(Errors, EmptyReductions) {
  expect_error<jx::ValueError>(
      [] { jnp::max(jnp::zeros({0})); },
      "zero-size array to reduction operation maximum which has no identity");
  expect_error<jx::ValueError>(
      [] {
        jnp::min(jnp::zeros({2, 0}), 1);
      },
      "reduction operation minimum");
  expect_error<jx::ValueError>([] { jnp::argmax(jnp::zeros({0})); },
                               "attempt to get argmax of an empty sequence");
}

TEST(Errors, ContractionShapes) {
  expect_error<jx::ShapeError>([] { jnp::matmul(m(2, 3), m(4, 5)); },
                               "mismatch in its core dimension 0");
  expect_error<jx::ShapeError>([] { jnp::matmul(m(3, 4), m(5, 6)); },
                               "matmul: Input operand 1 has a mismatch in its core dimension 0, "
                               "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 5 is different "
                               "from 4)");
  expect_error<jx::ValueError>([] { jnp::matmul(Array(1.0), m(2, 2)); },
                               "does not have enough dimensions");
  expect_error<jx::ShapeError>([] { jnp::dot(m(2, 3), jnp::zeros({4})); },
                               "shapes (2, 3) and (4,) not aligned");
  expect_error<jx::ShapeError>([] { jnp::tensordot(m(2, 3), m(4, 5), 1); },
                               "shape-mismatch for sum");
}

TEST(Errors, ShapeFunctions) {
  expect_error<jx::ValueError>([] { jnp::squeeze(m(2, 3), 0); },
                               "cannot select an axis to squeeze out");
  expect_error<jx::ValueError>([] { jnp::transpose(m(2, 3), std::vector<int64_t>{0}); },
                               "axes don't match array");
  expect_error<jx::ValueError>([] { jnp::pad(m(2, 3), -1); },
                               "index can't contain negative values");
  expect_error<jx::ValueError>([] { jnp::zeros({-1}); }, "negative dimensions are not allowed");
  expect_error<jx::ValueError>([] { jnp::arange(0, 10, 0); }, "step cannot be zero");
  expect_error<jx::ValueError>([] { jnp::linspace(0.0, 1.0, -2); },
                               "Number of samples, -2, must be non-negative.");
}

TEST(Errors, DTypes) {
  expect_error<jx::DTypeError>([] { jx::dtype("complex32"); },
                               "data type 'complex32' not understood");
  expect_error<jx::DTypeError>([] { jx::random::uniform(jx::random::PRNGKey(0), {2}, jnp::int32); },
                               "dtype argument to `uniform` must be a float dtype, got int32");
  expect_error<jx::DTypeError>([] { jx::random::normal(jx::random::PRNGKey(0), {2}, jnp::bool_); },
                               "must be a float dtype, got bool");
}

// A DType outside the enum (a cast integer) names no dtype: NumPy's TypeError wherever it enters,
// where astype and the creation functions accepted it.
TEST(Errors, OutOfRangeDTypes) {
  const jx::DType bad = jx::DType(42);
  const std::string message = "Cannot interpret '42' as a data type";
  expect_error<jx::DTypeError>([&] { jnp::zeros({2}).astype(bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::zeros({2}, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::ones({2}, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::full({2}, 1.0, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::array(1.0, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::arange(3, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::promote_types(bad, jnp::float32); }, message);
  expect_error<jx::DTypeError>([&] { jx::promote_types(jnp::int8, bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::can_cast(bad, jnp::float32, "unsafe"); }, message);
  expect_error<jx::DTypeError>([&] { jnp::iinfo(bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::finfo(bad); }, message);
  expect_error<jx::DTypeError>([&] { jnp::zeros({2}).astype(jx::DType(255)); },
                               "Cannot interpret '255' as a data type");
}

// Ops with no complex form raise lax's TypeError naming the op and the dtype.
TEST(Errors, ComplexOperands) {
  const Array z = jnp::array(std::vector<std::complex<double>>{{1, 2}, {-1, 0.5}});
  const std::string accepted = ". Accepted dtypes are subtypes of floating, integer or bool.";
  expect_error<jx::TypeError>([&] { jnp::floor(z); },
                              "floor does not accept dtype complex128" + accepted);
  expect_error<jx::TypeError>([&] { (void)(z < z); },
                              "lt does not accept dtype complex128" + accepted);
  expect_error<jx::TypeError>([&] { jnp::maximum(z, z.astype(jnp::complex64)); },
                              "max does not accept dtype complex128");
  expect_error<jx::TypeError>([&] { jnp::sort(z); }, "sort does not accept dtype complex128");
  expect_error<jx::TypeError>([&] { jnp::prod(z); },
                              "reduce_prod does not accept dtype complex128");
  expect_error<jx::TypeError>(
      [&] {
        jnp::linalg::eigvals(z.reshape({1, 2}) * z.reshape({2, 1}));
      },
      "eig does not accept dtype complex128");
  expect_error<jx::TypeError>([&] { jnp::bitwise_and(z, z); }, "ufunc 'bitwise_and' not supported");
  expect_error<jx::DTypeError>(
      [] { jx::random::uniform(jx::random::PRNGKey(0), {2}, jnp::complex64); },
      "dtype argument to `uniform` must be a float dtype, got complex64");
  expect_error<jx::ValueError>(
      [] {
        jnp::linalg::eig(jnp::zeros({2, 3}));
      },
      "Argument to nonsymmetric eigendecomposition must have shape [..., "
      "n, n], got shape (2, 3)");
  expect_error<jx::TypeError>(
      [] { jx::lax::complex(jnp::zeros({2}), jnp::zeros({2}, jnp::float32)); },
      "lax.complex requires arguments to have the same dtypes, got float64, float32.");
  expect_error<jx::TypeError>(
      [] { jx::lax::complex(jnp::zeros({2}, jnp::int32), jnp::zeros({2}, jnp::int32)); },
      "complex does not accept dtype int32. Accepted dtypes are subtypes of float32 or float64.");
  EXPECT_EQ(jx::lax::complex(jnp::ones({2}, jnp::float32), jnp::zeros({2}, jnp::float32)).dtype(),
            jnp::complex64);
  expect_error<jx::TypeError>(
      [] { jx::grad([](const Array &x) { return x * std::complex<double>(0, 1); })(Array(1.0)); },
      "grad requires real-valued outputs");
}

TEST(Errors, ItemOfLargerArray) {
  expect_error<jx::ValueError>([] { jnp::zeros({2}).item<double>(); },
                               "can only convert an array of size 1");
}

class NpyErrors : public ::testing::Test {
protected:
  // One directory per test: ctest runs tests in parallel processes.
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("jx_test_errors_" +
       std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
       std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string &name, const std::string &bytes) {
    std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // A valid file for a (3,) float64 array, as bytes.
  std::string valid_bytes() {
    std::string path = (dir / "valid.npy").string();
    jnp::save(path, jnp::array({1.0, 2.0, 3.0}));
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(NpyErrors, Missing) {
  expect_error<jx::IOError>([&] { jnp::load((dir / "nope.npy").string()); },
                            "No such file or directory");
}

TEST_F(NpyErrors, TruncatedData) {
  std::string bytes = valid_bytes();
  std::string path = write("truncated.npy", bytes.substr(0, bytes.size() - 5));
  expect_error<jx::IOError>([&] { jnp::load(path); }, "expected 24 bytes");
}

TEST_F(NpyErrors, TruncatedHeader) {
  std::string path = write("short.npy", valid_bytes().substr(0, 20));
  expect_error<jx::IOError>([&] { jnp::load(path); }, "EOF");
}

TEST_F(NpyErrors, CorruptHeader) {
  std::string bytes = valid_bytes();
  bytes.replace(bytes.find("'shape'"), 7, "'shapX'");
  std::string path = write("corrupt.npy", bytes);
  expect_error<jx::IOError>([&] { jnp::load(path); }, "Cannot parse header");
  std::string magic = valid_bytes();
  magic[1] = 'X';
  std::string path2 = write("magic.npy", magic);
  expect_error<jx::IOError>([&] { jnp::load(path2); }, "magic string is not correct");
}

TEST_F(NpyErrors, UnsupportedDtype) {
  std::string bytes = valid_bytes();
  bytes.replace(bytes.find("<f8"), 3, "<f16");
  std::string path = write("longdouble.npy", bytes);
  expect_error<jx::DTypeError>([&] { jnp::load(path); }, "unsupported dtype '<f16'");
}

// Regressions found by the differential tests' generator.
TEST(EdgeCases, RollWithNoAxesIsIdentity) {
  EXPECT_EQ(jnp::roll(jnp::arange(3), 1, std::vector<int64_t>{}).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2}));
}

TEST(EdgeCases, EinsumBroadcastsSizeOneEllipsisAgainstZero) {
  EXPECT_EQ(jnp::einsum("...,...->...", jnp::zeros({0}), jnp::ones({1})).shape(), (jx::Shape{0}));
}

TEST(EdgeCases, NonFiniteFloatToIntLiteralIsIntMin) {
  EXPECT_EQ(jnp::array(NAN, jnp::int32).item<int64_t>(), INT32_MIN);
  EXPECT_EQ(jnp::array(1e300, jnp::int64).item<int64_t>(), INT64_MIN);
  EXPECT_EQ(jnp::array(2.0, jnp::bool_).item<bool>(), true);
}

TEST(EdgeCases, EmptyVectorArray) {
  EXPECT_EQ(jnp::array(std::vector<double>{}, jx::Shape{0}).shape(), (jx::Shape{0}));
}

// jnp.round: bools are not inexact (jax.dtypes.finfo's ValueError); integers are their own
// rounding only to decimals >= 0.
TEST(Errors, RoundDTypes) {
  expect_error<jx::ValueError>(
      [] {
        jnp::round(jnp::array({true, false}));
      },
      "data type <class 'numpy.bool'> not inexact");
  expect_error<jx::NotImplementedError>([] { jnp::round(jnp::arange(5), -1); },
                                        "integer np.round not implemented for decimals < 0");
  EXPECT_NO_THROW(jnp::round(jnp::arange(5), 0));
}

// Two-argument functions broadcast as every binary ufunc; clip's bounds too.
TEST(Errors, NewBinaryFunctionsBroadcast) {
  expect_error<jx::ShapeError>([] { jnp::arctan2(m(3, 4), jnp::zeros({5})); },
                               "operands could not be broadcast together");
  expect_error<jx::ShapeError>([] { jnp::fmod(m(3, 4), jnp::zeros({5})); },
                               "operands could not be broadcast together");
  expect_error<jx::ShapeError>([] { jnp::clip(m(3, 4), jnp::zeros({5})); },
                               "operands could not be broadcast together");
}
