// The wider jnp, jax.nn and jax.scipy.special API beyond values (those are in
// test_breadth_golden.cpp): errors with NumPy's/JAX's messages, results that are lists,
// derivatives where JAX defines its own, and the compositions under jit.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace jsp = jx::scipy::special;
namespace nn = jx::nn;
using jx::Array;
using jx::Shape;
using test_util::expect_error;

TEST(Breadth, BadInputRaisesNumpysErrors) {
  const Array x = jnp::arange(12.0).reshape({3, 4});
  expect_error<jx::ValueError>([&] { jnp::split(x, 5); },
                               "array split does not result in an equal division");
  expect_error<jx::ValueError>([&] { jnp::array_split(x, 0); },
                               "number sections must be larger than 0.");
  expect_error<jx::ValueError>([&] { jnp::vsplit(jnp::arange(4.0), 2); },
                               "vsplit only works on arrays of 2 or more dimensions");
  expect_error<jx::ValueError>([&] { jnp::rot90(x, 1, {1, 1}); }, "Axes must be different.");
  expect_error<jx::ValueError>(
      [&] {
        jnp::rot90(x, 1, {0, 3});
      },
      "Axes=(0, 3) out of range for array of ndim=2.");
  expect_error<jx::ValueError>([&] { jnp::fliplr(jnp::arange(3.0)); }, "Input must be >= 2-d.");
  expect_error<jx::ValueError>([&] { jnp::matrix_transpose(jnp::arange(3.0)); },
                               "x must be at least two-dimensional for matrix_transpose; got "
                               "ndim=1");
  expect_error<jx::AxisError>([&] { jnp::rollaxis(x, 0, 4); },
                              "'start' arg requires -2 <= start < 3, but 4 was passed in");
  expect_error<jx::IndexError>([&] { jnp::delete_(x, {4}, 1); },
                               "index 4 is out of bounds for axis 1 with size 4");
  expect_error<jx::ValueError>(
      [&] {
        jnp::repeat(x, {1, 2}, 0);
      },
      "operands could not be broadcast together with shape (3,) (2,)");
  expect_error<jx::ValueError>([&] { jnp::gcd(x, 2); },
                               "Arguments to jax.numpy.gcd must be integers.");
  expect_error<jx::DTypeError>([&] { jnp::ldexp(x, 1.5); }, "ldexp: x2 must be an integer");
  expect_error<jx::ValueError>(
      [&] {
        jnp::select({x > 1}, {x, x});
      },
      "condlist must have length equal to choicelist (1 vs 2)");
  expect_error<jx::TypeError>([&] { jnp::select({x}, {x}); },
                              "condlist must be a list of boolean arrays");
  expect_error<jx::ValueError>([&] { jnp::average(x, {}, jnp::ones({4})); },
                               "Axis must be specified when shapes of a and weights differ.");
  expect_error<jx::ValueError>([&] { jnp::average(x, 1, jnp::ones({3})); },
                               "Length of weights not compatible with specified axis.");
  expect_error<jx::ValueError>(
      [&] {
        jnp::cov(jnp::zeros({2, 2, 2}));
      },
      "m has more than 2 dimensions");
  expect_error<jx::ValueError>([&] { jnp::convolve(x, jnp::ones({2})); },
                               "convolve() only support 1-dimensional inputs.");
  expect_error<jx::ValueError>([&] { jnp::correlate(jnp::zeros({0}), jnp::ones({2})); },
                               "correlate: inputs cannot be empty, got shapes (0,) and (2,).");
  expect_error<jx::ValueError>([&] { jnp::convolve(jnp::ones({3}), jnp::ones({2}), "middle"); },
                               "mode must be one of ['full', 'same', 'valid']");
  expect_error<jx::ValueError>([&] { jnp::cross(jnp::ones({4}), jnp::ones({3})); },
                               "incompatible dimensions for cross product");
  expect_error<jx::ValueError>([&] { jnp::vecdot(x, jnp::ones({3})); },
                               "axes must match; got shapes (3, 4) and (3,) with axis=-1");
  expect_error<jx::ValueError>(
      [&] {
        jnp::diag(jnp::zeros({2, 2, 2}));
      },
      "Input must be 1- or 2-d.");
  expect_error<jx::ValueError>([&] { jnp::tril(jnp::ones({3})); },
                               "Argument to jax.numpy.tril must be at least 2D");
  expect_error<jx::ValueError>([&] { jnp::vander(x); },
                               "x must be a one-dimensional array or sequence.");
  expect_error<jx::ValueError>([&] { jnp::meshgrid({x}, "yx"); },
                               "Valid values for `indexing` are 'xy' and 'ij'.");
  expect_error<jx::ValueError>([&] { jnp::gradient(jnp::ones({1})); },
                               "Shape of array too small to calculate a numerical gradient");
  expect_error<jx::ValueError>([&] { jnp::polyder(x, -1); },
                               "Order of derivative must be positive (see polyint)");
  expect_error<jx::ValueError>([&] { jnp::polyint(jnp::ones({3}), 3, jnp::ones({2})); },
                               "k must be a scalar or a rank-1 array of length 1 or >m.");
  expect_error<jx::ValueError>([&] { nn::glu(jnp::ones({3})); },
                               "axis size must be divisible by 2");
  expect_error<jx::ValueError>([&] { nn::one_hot(jnp::arange(3), -1); },
                               "num_classes must be non-negative, got -1");
}

TEST(Breadth, SplitsAndListsHaveNumpysShapes) {
  const Array x = jnp::arange(10.0);
  std::vector<Shape> shapes;
  for (const Array &piece : jnp::array_split(x, 4))
    shapes.push_back(piece.shape());
  EXPECT_EQ(shapes, (std::vector<Shape>{{3}, {3}, {2}, {2}}));
  // Split points past the end give empty pieces, as Python's slices.
  const std::vector<Array> pieces = jnp::split(x, {3, 20, 25});
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[1].shape(), (Shape{7}));
  EXPECT_EQ(pieces[3].shape(), (Shape{0}));
  EXPECT_EQ(jnp::concatenate(pieces).to_vector<double>(), x.to_vector<double>());
  EXPECT_EQ(jnp::unstack(jnp::zeros({2, 3}), 1).size(), 3u);
  EXPECT_EQ(jnp::meshgrid({jnp::zeros({2}), jnp::zeros({3}), jnp::zeros({4})})[0].shape(),
            (Shape{3, 2, 4}));
  EXPECT_EQ(jnp::cov(jnp::arange(4.0)).ndim(), 0);
  EXPECT_EQ(jnp::result_type({jnp::zeros({2}, jnp::int32), Array(2.5)}), jnp::float64);
  EXPECT_EQ(jnp::promote_types(jnp::int32, jnp::float32), jnp::float64);
  EXPECT_EQ(jnp::size(jnp::zeros({2, 5}), -1), 5);
  EXPECT_TRUE(jnp::isscalar(Array(1.0)));
}

// jax.nn.relu and relu6 have derivative 0 at their kinks (JAX's custom_jvp), and logsumexp's
// gradient is softmax, through the stop_gradient of the shift.
TEST(Breadth, ActivationDerivativesAreJaxs) {
  const Array x = jnp::array({-1.0, 0.0, 2.0, 6.0, 7.0});
  auto relu_sum = [](const Array &v) { return jnp::sum(nn::relu(v)); };
  EXPECT_EQ(jx::grad(relu_sum)(x).to_vector<double>(), (std::vector<double>{0, 0, 1, 1, 1}));
  auto relu6_sum = [](const Array &v) { return jnp::sum(nn::relu6(v)); };
  EXPECT_EQ(jx::grad(relu6_sum)(x).to_vector<double>(), (std::vector<double>{0, 0, 1, 0, 0}));
  auto lse = [](const Array &v) { return nn::logsumexp(v); };
  const std::vector<double> g = jx::grad(lse)(x).to_vector<double>();
  const std::vector<double> s = nn::softmax(x).to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], s[i], 1e-15);
  // digamma is gammaln's derivative.
  auto lgamma_sum = [](const Array &v) { return jnp::sum(jsp::gammaln(v)); };
  const Array points = jnp::array({0.3, 1.5, 4.0, 12.5});
  const std::vector<double> dg = jx::grad(lgamma_sum)(points).to_vector<double>();
  const std::vector<double> psi = jsp::digamma(points).to_vector<double>();
  for (size_t i = 0; i < dg.size(); ++i)
    EXPECT_NEAR(dg[i], psi[i], 1e-12 * std::abs(psi[i]) + 1e-13);
}

// gcd's while_loop, the statistics and the activations trace and compile as any jnp code.
TEST(Breadth, CompositionsUnderJit) {
  auto f = [](const Array &a, const Array &b) {
    return jnp::lcm(a, b) + jnp::count_nonzero(a) + jnp::trace(jnp::outer(a, b));
  };
  const Array a = jnp::array({4, 6, 10}), b = jnp::array({6, 4, 15});
  EXPECT_EQ(jx::jit(f)(a, b).to_vector<int64_t>(), f(a, b).to_vector<int64_t>());
  auto g = [](const Array &v) { return nn::gelu(jnp::nanvar(v, 0) + jnp::diff(v)); };
  const Array v = jnp::array({1.0, jnp::nan, 3.0, 0.5});
  EXPECT_TRUE(jnp::array_equal(jx::jit(g)(v), g(v), true).item<bool>());
}

} // namespace
