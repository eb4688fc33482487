// Dtype promotion: NumPy's table between arrays; C++ scalars weakly typed as in JAX.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <limits>

#include "base/storage_float.h"
#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;
using test_util::expect_error;

namespace {
Array z(DType t) { return jnp::zeros({2}, t); }
} // namespace

TEST(Promotion, NumPyTableBetweenArrays) {
  EXPECT_EQ(jx::promote_types(jnp::int32, jnp::int64), jnp::int64);
  EXPECT_EQ(jx::promote_types(jnp::int32, jnp::float32), jnp::float64);
  EXPECT_EQ(jx::promote_types(jnp::int64, jnp::float32), jnp::float64);
  EXPECT_EQ(jx::promote_types(jnp::bool_, jnp::float32), jnp::float32);
  EXPECT_EQ(jx::promote_types(jnp::bool_, jnp::int32), jnp::int32);
  EXPECT_EQ(jx::promote_types(jnp::float32, jnp::float64), jnp::float64);
  EXPECT_EQ((z(jnp::int32) + z(jnp::float32)).dtype(), jnp::float64);
  EXPECT_EQ((z(jnp::bool_) + z(jnp::bool_)).dtype(), jnp::bool_);
}

TEST(Promotion, ScalarsAreWeak) {
  EXPECT_EQ((2.0 * z(jnp::float32)).dtype(), jnp::float32);
  EXPECT_EQ((z(jnp::int32) + 3).dtype(), jnp::int32);
  EXPECT_EQ((z(jnp::int32) * 2.5).dtype(), jnp::float64);
  EXPECT_EQ((z(jnp::bool_) + 1).dtype(), jnp::int64);
  EXPECT_EQ((z(jnp::float32) + 1).dtype(), jnp::float32);
  EXPECT_EQ((z(jnp::bool_) * true).dtype(), jnp::bool_);
  EXPECT_FALSE((2.0 * z(jnp::float32)).weak_type());
}

TEST(Promotion, WeakWithWeakStaysWeak) {
  Array s = Array(2) * 3.0;
  EXPECT_EQ(s.dtype(), jnp::float64);
  EXPECT_TRUE(s.weak_type());
  EXPECT_EQ((s * z(jnp::float32)).dtype(), jnp::float32);
  EXPECT_FALSE(jnp::array(2.0, jnp::float64).weak_type());
}

TEST(Promotion, DivisionIsTrueDivision) {
  EXPECT_EQ((z(jnp::int32) / z(jnp::int32)).dtype(), jnp::float64);
  EXPECT_EQ((z(jnp::float32) / 2).dtype(), jnp::float32);
  EXPECT_EQ((jnp::arange(5) / 2).to_vector<double>(), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  EXPECT_EQ(jnp::floor_divide(jnp::arange(5), 2).dtype(), jnp::int64);
}

TEST(Promotion, FunctionResultTypes) {
  EXPECT_EQ(jnp::exp(z(jnp::int32)).dtype(), jnp::float64);
  EXPECT_EQ(jnp::exp(z(jnp::float32)).dtype(), jnp::float32);
  EXPECT_EQ(jnp::sum(z(jnp::int32)).dtype(), jnp::int64);
  EXPECT_EQ(jnp::sum(z(jnp::bool_)).dtype(), jnp::int64);
  EXPECT_EQ(jnp::sum(z(jnp::float32)).dtype(), jnp::float32);
  EXPECT_EQ(jnp::mean(z(jnp::int32)).dtype(), jnp::float64);
  EXPECT_EQ(jnp::mean(z(jnp::float32)).dtype(), jnp::float32);
  EXPECT_EQ(jnp::max(z(jnp::int32)).dtype(), jnp::int32);
  EXPECT_EQ(jnp::argmax(z(jnp::float32)).dtype(), jnp::int64);
  EXPECT_EQ((z(jnp::float64) < 1).dtype(), jnp::bool_);
  EXPECT_EQ(jnp::where(z(jnp::bool_), z(jnp::int32), 1.5).dtype(), jnp::float64);
  EXPECT_EQ(jnp::where(z(jnp::bool_), z(jnp::float32), 1.5).dtype(), jnp::float32);
  EXPECT_EQ(jnp::concatenate({z(jnp::int32), z(jnp::float32)}).dtype(), jnp::float64);
  EXPECT_EQ(jnp::einsum("i,i", z(jnp::int32), z(jnp::int64)).dtype(), jnp::int64);
  EXPECT_EQ(jnp::power(z(jnp::int32), 2).dtype(), jnp::int32);
  EXPECT_EQ(jnp::power(z(jnp::int32), 0.5).dtype(), jnp::float64);
  EXPECT_EQ(jnp::linspace(0, 1, 5).dtype(), jnp::float64);
  EXPECT_EQ(jnp::arange(5).dtype(), jnp::int64);
  EXPECT_EQ(jnp::arange(0, 1, 0.25).dtype(), jnp::float64);
  EXPECT_EQ(jnp::full({2}, 3).dtype(), jnp::int64);
  EXPECT_EQ(jnp::full({2}, true).dtype(), jnp::bool_);
}

TEST(Promotion, AstypeAndDtypeNames) {
  Array x = jnp::array({1.5, -2.5, 3.0});
  EXPECT_EQ(x.astype(jnp::int32).to_vector<int>(), (std::vector<int>{1, -2, 3}));
  EXPECT_EQ(x.astype(jnp::bool_).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(jx::dtype("f8"), jnp::float64);
  EXPECT_EQ(jx::dtype("<i4"), jnp::int32);
  EXPECT_EQ(jx::dtype("bool"), jnp::bool_);
  EXPECT_EQ(jx::dtype_name(jnp::float32), "float32");
}

// numpy.iinfo / numpy.finfo values (NumPy 2.4, ml_dtypes for bfloat16).
TEST(DTypeInfo, IntegerAndFloatLimitsAreNumPys) {
  EXPECT_EQ(jnp::iinfo(jnp::int8).min, -128);
  EXPECT_EQ(jnp::iinfo(jnp::int8).max, 127u);
  EXPECT_EQ(jnp::iinfo(jnp::uint64).max, 18446744073709551615u);
  EXPECT_EQ(jnp::iinfo(jnp::uint64).min, 0);
  EXPECT_EQ(jnp::iinfo(jnp::int64).min, INT64_MIN);
  EXPECT_EQ(jnp::iinfo(jnp::uint16).bits, 16);
  const jnp::FInfo h = jnp::finfo(jnp::float16), b = jnp::finfo(jnp::bfloat16);
  EXPECT_EQ(h.eps, 0x1p-10);
  EXPECT_EQ(h.max, 65504.0);
  EXPECT_EQ(h.tiny, 0x1p-14);
  EXPECT_EQ(h.precision, 3);
  EXPECT_EQ(h.resolution, double(jx::Float16(0.001)));
  EXPECT_EQ(h.epsneg, 0x1p-11);
  EXPECT_EQ(b.eps, 0.0078125);
  EXPECT_EQ(float(b.max), 3.38953139e38f);
  EXPECT_EQ(b.minexp, -126);
  EXPECT_EQ(b.precision, 2);
  EXPECT_EQ(jnp::finfo(jnp::float32).eps, double(std::numeric_limits<float>::epsilon()));
  EXPECT_EQ(jnp::finfo(jnp::float32).max, double(std::numeric_limits<float>::max()));
  EXPECT_EQ(jnp::finfo(jnp::float64).tiny, std::numeric_limits<double>::min());
  EXPECT_EQ(jnp::finfo(jnp::float64).min, -std::numeric_limits<double>::max());
  EXPECT_EQ(jnp::finfo(jnp::float64).maxexp, 1024);
  expect_error<jx::ValueError>([] { jnp::iinfo(jnp::float32); }, "Invalid integer data type 'f'.");
  expect_error<jx::ValueError>([] { jnp::finfo(jnp::int32); },
                               "data type <class 'numpy.int32'> not inexact");
}

TEST(DTypeInfo, CanCastAndIsDTypeAsNumPyAndJax) {
  EXPECT_TRUE(jnp::can_cast(jnp::uint8, jnp::int16));
  EXPECT_FALSE(jnp::can_cast(jnp::int8, jnp::uint8));
  EXPECT_FALSE(jnp::can_cast(jnp::int8, jnp::uint8, "same_kind"));
  EXPECT_TRUE(jnp::can_cast(jnp::uint8, jnp::int8, "same_kind"));
  EXPECT_TRUE(jnp::can_cast(jnp::float64, jnp::float32, "same_kind"));
  EXPECT_FALSE(jnp::can_cast(jnp::float32, jnp::int64, "same_kind"));
  EXPECT_TRUE(jnp::can_cast(jnp::bool_, jnp::uint8, "same_kind"));
  EXPECT_TRUE(jnp::can_cast(jnp::float64, jnp::int8, "unsafe"));
  EXPECT_FALSE(jnp::can_cast(jnp::int32, jnp::int64, "no"));
  expect_error<jx::ValueError>(
      [] { jnp::can_cast(jnp::int8, jnp::uint8, "bad"); },
      "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got 'bad')");
  EXPECT_TRUE(jnp::isdtype(jnp::uint32, "unsigned integer"));
  EXPECT_TRUE(jnp::isdtype(jnp::bfloat16, "real floating"));
  EXPECT_FALSE(jnp::isdtype(jnp::bool_, "numeric"));
  EXPECT_TRUE(jnp::isdtype(jnp::int16, {"bool", jnp::int16}));
  EXPECT_FALSE(jnp::isdtype(jnp::int16, {"bool", "unsigned integer"}));
  expect_error<jx::ValueError>([] { jnp::isdtype(jnp::int8, "foo"); }, "Unrecognized kind='foo'");
}
