// Dtype promotion: NumPy's table between arrays; C++ scalars weakly typed as in JAX.
#include <jx/jx.h>

#include <gtest/gtest.h>

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;

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
