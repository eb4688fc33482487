// The wider jnp, jax.nn and jax.scipy.special API beyond values (those are in
// test_breadth_golden.cpp): errors with NumPy's/JAX's messages, results that are lists,
// derivatives where JAX defines its own, and the compositions under jit.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>

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
  EXPECT_EQ(jnp::unstack(jnp::zeros({2, 3}), {.axis = 1}).size(), 3u);
  EXPECT_EQ(jnp::meshgrid({jnp::zeros({2}), jnp::zeros({3}), jnp::zeros({4})})[0].shape(),
            (Shape{3, 2, 4}));
  EXPECT_EQ(jnp::cov(jnp::arange(4.0)).ndim(), 0);
  EXPECT_EQ(jnp::result_type({jnp::zeros({2}, jnp::int32), Array(2.5)}), jnp::float64);
  EXPECT_EQ(jnp::promote_types(jnp::int32, jnp::float32), jnp::float64);
  EXPECT_EQ(jnp::size(jnp::zeros({2, 5}), -1), 5);
  EXPECT_TRUE(jnp::isscalar(Array(1.0)));
}

// jnp.mgrid[0:2, 0:3] is jnp::mgrid({{0, 2}, {0, 3}}) (and ogrid likewise), a complex step a
// number of points with stop included: NumPy's values, shapes and dtypes.
TEST(Breadth, MgridAndOgridAreNumpys) {
  using namespace std::complex_literals;
  const Array m = jnp::mgrid({{0, 2}, {0, 3}});
  EXPECT_EQ(m.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(m.dtype(), jnp::int64);
  EXPECT_EQ(m.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}));
  // np.mgrid[-1:1:5j]: one slice gives its values, 1-D.
  const Array points = jnp::mgrid({-1, 1, 5i});
  EXPECT_EQ(points.dtype(), jnp::float64);
  EXPECT_EQ(points.to_vector<double>(), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  // np.mgrid[0:4:2, 0:1:3j]: the axes' dtypes promote.
  const Array mixed = jnp::mgrid({{0, 4, 2}, {0, 1, 3i}});
  EXPECT_EQ(mixed.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(mixed.dtype(), jnp::float64);
  EXPECT_EQ(mixed.to_vector<double>(),
            (std::vector<double>{0, 0, 0, 2, 2, 2, 0, 0.5, 1, 0, 0.5, 1}));
  EXPECT_EQ(jnp::mgrid({0.0, 1.0, 0.25}).to_vector<double>(),
            (std::vector<double>{0, 0.25, 0.5, 0.75}));
  // np.mgrid[1:7:2,] (a tuple of one slice) is stacked; jx::slice is a slice too.
  const Array one = jnp::mgrid({jx::slice(1, 7, 2)});
  EXPECT_EQ(one.shape(), (Shape{1, 3}));
  EXPECT_EQ(one.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(jnp::mgrid({}).shape(), (Shape{0}));
  expect_error<jx::ValueError>([] { jnp::mgrid(jx::slice(2, jx::none)); }, "need a stop");
  // ogrid: one open array per slice, each of its own dtype (as JAX's), broadcasting to mgrid.
  const std::vector<Array> open = jnp::ogrid({{0, 4, 2}, {0, 1, 3i}});
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(open[0].dtype(), jnp::int64);
  EXPECT_EQ(open[1].shape(), (Shape{1, 3}));
  EXPECT_EQ(open[1].dtype(), jnp::float64);
  EXPECT_EQ(jnp::stack(jnp::broadcast_arrays(open)).to_vector<double>(), mixed.to_vector<double>());
  EXPECT_EQ(jnp::ogrid({5, 0, -2}).to_vector<int64_t>(), (std::vector<int64_t>{5, 3, 1}));
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

// Gathers and scatters differentiate as JAX's: take's gradient adds back at the places read
// (repeated ones accumulate, clamped ones land on the edge), .at[].set's gives x's cotangent
// where nothing landed and each update its place's only if it stayed (the last of its index).
TEST(Breadth, GatherAndScatterGradients) {
  const Array x = jnp::arange(5.0);
  const Array idx = jnp::array({1, 1, 4, 9, -1});
  auto gathered = [&](const Array &v) { return jnp::sum(v(idx) * jnp::arange(1.0, 6.0)); };
  EXPECT_EQ(jx::grad(gathered)(x).to_vector<double>(), (std::vector<double>{0, 3, 0, 0, 12}));
  auto set = [&](const Array &v, const Array &u) {
    return jnp::sum(v.at(jnp::array({0, 2, 0, 7})).set(u) * jnp::arange(1.0, 6.0));
  };
  const Array u = jnp::array({10.0, 20.0, 30.0, 40.0});
  const std::vector<Array> g = jx::grad(set, {0, 1})(x, u);
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0, 2, 0, 4, 5}));
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{0, 3, 1, 0}));
  auto added = [&](const Array &v, const Array &w) {
    return jnp::sum(v.at(jnp::array({0, 2, 0, 7})).add(w) * jnp::arange(1.0, 6.0));
  };
  const std::vector<Array> ga = jx::grad(added, {0, 1})(x, u);
  EXPECT_EQ(ga[0].to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ga[1].to_vector<double>(), (std::vector<double>{1, 3, 1, 0}));
}

// vmap of a gather whose indices are batched too reads each example's own row.
TEST(Breadth, BatchedGathersAndScatters) {
  const Array x = jnp::arange(12.0).reshape({3, 4});
  const Array idx = jnp::array<int64_t>({3, 0, 1, 1, 2, -1}).reshape({3, 2});
  auto pick = [](const Array &row, const Array &i) { return row(i); };
  EXPECT_EQ(jx::vmap(pick)(x, idx).to_vector<double>(), (std::vector<double>{3, 0, 5, 5, 10, 11}));
  auto bump = [](const Array &row, const Array &i) { return row.at(i).add(1.0); };
  EXPECT_EQ(jx::vmap(bump)(x, idx).to_vector<double>(),
            (std::vector<double>{1, 1, 2, 4, 4, 7, 6, 7, 8, 9, 11, 12}));
  EXPECT_EQ(jx::jit(pick)(x(0), idx(0)).to_vector<double>(), (std::vector<double>{3, 0}));
}

TEST(Breadth, BadIndicesRaiseJaxsErrors) {
  const Array x = jnp::arange(6.0);
  expect_error<jx::IndexError>([&] { x(jnp::array({0.5, 1.0})); }, "only integers, slices");
  expect_error<jx::TypeError>([&] { jnp::take(x, jnp::array({0.5})); },
                              "take requires integer indices, got float64");
  expect_error<jx::IndexError>([&] { jnp::take(jnp::zeros({0}), jnp::array({0})); },
                               "Cannot do a non-empty jnp.take() from an empty axis.");
  expect_error<jx::ValueError>([&] { jnp::take(x, jnp::array({0}), {.axis = 0, .mode = "raise"}); },
                               "Invalid mode 'raise' for jnp.take");
  expect_error<jx::ValueError>([&] { jnp::nonzero(Array(1.0)); },
                               "Calling nonzero on 0d arrays is not allowed.");
  expect_error<jx::ValueError>(
      [&] {
        jnp::take_along_axis(x, jnp::zeros({1, 1}, jnp::int64), 0);
      },
      "indices and arr must have the same number of dimensions");
  expect_error<jx::TypeError>([&] { jnp::bincount(jnp::array({0.5})); },
                              "x argument to bincount must have an integer type");
  // Inside jit a mask and a size-less nonzero are not concrete (JAX's errors).
  auto masked = [](const Array &v) { return v(v > 2.0); };
  expect_error<jx::IndexError>([&] { jx::jit(masked)(x); },
                               "Array boolean indices must be concrete");
  auto count = [](const Array &v) { return jnp::nonzero(v)[0]; };
  expect_error<jx::ConcretizationTypeError>(
      [&] { jx::jit(count)(x); }, "The size argument of jnp.nonzero must be statically specified");
  auto sized = [](const Array &v) { return jnp::nonzero(v, {.size = 3})[0]; };
  EXPECT_EQ(jx::jit(sized)(x).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
}

// mode="raise" checks every coordinate (NumPy's ValueError; JAX's on concrete indices, and its
// ConcretizationTypeError under jit): ((5,), (0,)) in (2, 3) used to give 15.
TEST(Breadth, RavelMultiIndexRaiseChecksCoordinates) {
  expect_error<jx::ValueError>(
      [] {
        jnp::ravel_multi_index({jnp::array({5}), jnp::array({0})}, {2, 3});
      },
      "invalid entry in coordinates array");
  expect_error<jx::ValueError>(
      [] {
        jnp::ravel_multi_index({jnp::array({0}), jnp::array({-1})}, {2, 3});
      },
      "invalid entry in coordinates array");
  EXPECT_EQ(
      jnp::ravel_multi_index({jnp::array({1, 0}), jnp::array({2, 1})}, {2, 3}).to_vector<int64_t>(),
      (std::vector<int64_t>{5, 1}));
  EXPECT_EQ(jnp::ravel_multi_index({jnp::array({5}), jnp::array({0})}, {2, 3}, "clip")
                .to_vector<int64_t>(),
            (std::vector<int64_t>{3}));
  auto raised = [](const Array &i) { return jnp::ravel_multi_index({i, i}, {2, 3}); };
  expect_error<jx::ConcretizationTypeError>([&] { jx::jit(raised)(jnp::array({0})); },
                                            "Use mode='wrap' or mode='clip' instead.");
}

// NumPy rejects negative values it can see; traced ones count as 0 (JAX's clip). -1 used to be
// dropped.
TEST(Breadth, BincountOfNegativeValues) {
  const Array x = jnp::array({-1, 0, 2});
  expect_error<jx::ValueError>([&] { jnp::bincount(x); },
                               "'list' argument must have no negative elements");
  expect_error<jx::ValueError>([&] { jnp::bincount(x, {.length = 4}); },
                               "'list' argument must have no negative elements");
  auto counted = [](const Array &v) { return jnp::bincount(v, {.length = 4}); };
  EXPECT_EQ(jx::jit(counted)(x).to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1, 0}));
  EXPECT_EQ(jnp::bincount(jnp::array<uint8_t>({1, 1, 3})).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 2, 0, 1}));
}

// JAX's take_along_axis counts negative indices from the end, then clips (or fills): -1 is the
// last element, where it used to be clipped to the first. take's clip is NumPy's (-1 to 0).
TEST(Breadth, TakeAlongAxisClipCountsNegativeIndicesFromTheEnd) {
  const Array x = jnp::arange(5.0);
  const Array i = jnp::array({-1, -6, 7, 2});
  EXPECT_EQ(jnp::take_along_axis(x, i, 0, "clip").to_vector<double>(),
            (std::vector<double>{4, 0, 4, 2}));
  const std::vector<double> filled = jnp::take_along_axis(x, i, 0).to_vector<double>();
  EXPECT_EQ(filled[0], 4);
  EXPECT_TRUE(std::isnan(filled[1]) && std::isnan(filled[2]));
  EXPECT_EQ(filled[3], 2);
  EXPECT_EQ(jnp::take(x, i, {.axis = 0, .mode = "clip"}).to_vector<double>(),
            (std::vector<double>{0, 0, 4, 2}));
}

// uint64 indices past INT64_MAX are past the end (clamped on reads, filled by mode "fill", dropped
// by updates, by their value with "wrap"); converted to int64 they had turned negative: 2^63 read
// element 0 and 2^64 - 1 the last.
TEST(Breadth, Uint64IndicesPastInt64MaxArePastTheEnd) {
  const Array x = jnp::arange(5.0);
  const Array idx = jnp::array<uint64_t>({uint64_t(1) << 63, 2, ~uint64_t(0)});
  using D = std::vector<double>;
  EXPECT_EQ(x(idx).to_vector<double>(), (D{4, 2, 4}));
  EXPECT_EQ(x.at(idx).get().to_vector<double>(), (D{4, 2, 4}));
  EXPECT_EQ(x.at(idx).set(9.0).to_vector<double>(), (D{0, 1, 9, 3, 4}));
  EXPECT_EQ(jnp::take(x, idx, {.axis = 0, .mode = "clip"}).to_vector<double>(), (D{4, 2, 4}));
  EXPECT_EQ(jnp::take(x, idx, {.axis = 0, .mode = "wrap"}).to_vector<double>(),
            (D{3, 2, 0})); // 2^63 % 5 == 3
  EXPECT_EQ(jnp::take_along_axis(x, idx, 0, "clip").to_vector<double>(), (D{4, 2, 4}));
  for (const D &filled : {jnp::take(x, idx).to_vector<double>(),
                          jnp::take_along_axis(x, idx, 0).to_vector<double>()}) {
    EXPECT_TRUE(std::isnan(filled[0]) && std::isnan(filled[2]));
    EXPECT_EQ(filled[1], 2);
  }
  EXPECT_EQ(jnp::put(x, idx, jnp::array({7.0, 8.0, 9.0})).to_vector<double>(), (D{0, 1, 8, 3, 4}));
}

// The binary search and the comparison with every element agree, NaNs and ties included.
TEST(Breadth, SearchsortedMethodsAgree) {
  const Array a = jnp::sort(jnp::floor(jx::random::uniform(jx::random::PRNGKey(3), {257}) * 40));
  const Array sorted = jnp::concatenate({a, jnp::array({jnp::nan, jnp::nan})});
  const Array v =
      jnp::concatenate({jnp::floor(jx::random::uniform(jx::random::PRNGKey(4), {300}) * 44) - 2,
                        jnp::array({jnp::nan, -jnp::inf, jnp::inf})});
  for (const char *side : {"left", "right"})
    for (const Array &haystack : {a, sorted, a(jx::slice(0, 1)), a(jx::slice(0, 0))})
      EXPECT_TRUE(
          jnp::array_equal(jnp::searchsorted(haystack, v, side),
                           jnp::searchsorted(haystack, v, {.side = side, .method = "compare_all"}))
              .item<bool>())
          << side << " " << haystack.size();
  expect_error<jx::ValueError>(
      [&] { jnp::searchsorted(a, v, {.side = "left", .method = "sort2"}); },
      "'sort2' is an invalid value for keyword 'method'");
}

TEST(Breadth, SetRoutinesUnderJitNeedASize) {
  const Array x = jnp::array({4.0, 1.0, 4.0, 2.0, jnp::nan, 1.0});
  const Array y = jnp::array({2.0, 5.0, 2.0});
  expect_error<jx::ConcretizationTypeError>(
      [&] { jx::jit([](const Array &v) { return jnp::unique(v); })(x); },
      "The error arose for the first argument of jnp.unique(). To make jnp.unique() compatible "
      "with JIT and other transforms, you can specify a concrete value for the size argument");
  expect_error<jx::ConcretizationTypeError>(
      [&] { jx::jit([](const Array &v, const Array &w) { return jnp::union1d(v, w); })(x, y); },
      "The error arose in union1d()");
  expect_error<jx::ValueError>(
      [&] { jnp::unique(jnp::zeros({0}), {.size = 3}); },
      "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified");
  auto sized = [](const Array &v, const Array &w) {
    return std::tuple{jnp::unique(v, {.size = 5}),         jnp::unique_all(v, {.size = 7}).counts,
                      jnp::intersect1d(v, w, {.size = 3}), jnp::setdiff1d(v, w, {.size = 4}),
                      jnp::setxor1d(v, w, {.size = 5}),    jnp::union1d(v, w, {.size = 6})};
  };
  const auto eager = sized(x, y);
  const auto jitted = jx::jit(sized)(x, y);
  auto same = [](const Array &p, const Array &q) {
    return jnp::array_equal(p, q, true).item<bool>();
  };
  EXPECT_TRUE(same(std::get<0>(jitted), std::get<0>(eager)));
  EXPECT_TRUE(same(std::get<1>(jitted), std::get<1>(eager)));
  EXPECT_TRUE(same(std::get<2>(jitted), std::get<2>(eager)));
  EXPECT_TRUE(same(std::get<3>(jitted), std::get<3>(eager)));
  EXPECT_TRUE(same(std::get<4>(jitted), std::get<4>(eager)));
  EXPECT_TRUE(same(std::get<5>(jitted), std::get<5>(eager)));
  // unique's values and inverse rebuild x; its counts sum to x's size.
  const jnp::UniqueAllResult u = jnp::unique_all(jnp::array({3, 1, 3, 2, 1, 3}));
  EXPECT_TRUE(same(jnp::take(u.values, u.inverse_indices), jnp::array({3, 1, 3, 2, 1, 3})));
  EXPECT_EQ(jnp::sum(u.counts).item<int64_t>(), 6);
}

// Equal bins place a value by arithmetic, then correct by one where rounding crossed an edge
// (NumPy's way): the counts equal those of the same edges searched, for values on every edge,
// one ulp either side, outside the range, infinite and NaN, in float32 and float64.
TEST(Breadth, EqualBinsAgreeWithTheirEdgesSearched) {
  for (const jx::DType type : {jx::float64, jx::float32}) {
    const Array edges = jnp::histogram_bin_edges(jnp::array({-0.3, 0.7}).astype(type), int64_t(7));
    const Array inf = jnp::array(std::numeric_limits<double>::infinity()).astype(type);
    const Array x = jnp::concatenate(
        {edges, jnp::nextafter(edges, inf), jnp::nextafter(edges, -inf),
         jx::random::uniform(jx::random::PRNGKey(2), {500}, type, -0.5, 0.9),
         jnp::array(std::vector<double>{std::nan(""), INFINITY, -INFINITY}).astype(type)});
    const Array w = jnp::arange(double(x.size())).astype(type);
    const auto equal = [&](const Array &v, const std::optional<Array> &weights) {
      return jnp::histogram(v, {.bins = int64_t(7), .range = jnp::Range{-0.3, 0.7},
                                .weights = weights});
    };
    for (const bool jitted : {false, true}) {
      const auto counts = jitted ? jx::jit([&](const Array &v, const Array &weights) {
                                     return equal(v, weights).first;
                                   })(x, w)
                                 : equal(x, w).first;
      const Array searched = jnp::histogram(x, {.bins = edges, .weights = w}).first;
      EXPECT_TRUE(jnp::array_equal(counts, searched).item<bool>()) << jitted;
      EXPECT_TRUE(jnp::array_equal(equal(x, std::nullopt).first,
                                   jnp::histogram(x, {.bins = edges}).first)
                      .item<bool>());
    }
  }
}

TEST(Breadth, HistogramsUnderJitAndErrors) {
  const Array x = jx::random::normal(jx::random::PRNGKey(5), {1000});
  const auto eager = jnp::histogram(x, int64_t(12), jnp::Range{-3, 3});
  const auto jitted = jx::jit([](const Array &v) {
    const auto [counts, edges] = jnp::histogram(v, int64_t(12), jnp::Range{-3, 3});
    return std::tuple{counts, edges};
  })(x);
  EXPECT_TRUE(jnp::array_equal(std::get<0>(jitted), eager.first).item<bool>());
  // Values outside the range are not counted; the last edge is in the last bin.
  EXPECT_EQ(
      jnp::sum(
          jnp::histogram(jnp::array({-1.0, 0.0, 1.0, 2.0}), int64_t(2), jnp::Range{0, 1}).first)
          .item<double>(),
      2.0);
  expect_error<jx::ValueError>(
      [&] { jnp::histogram(x, {.bins = int64_t(3), .weights = jnp::ones({3})}); },
      "weights should have the same shape as a.");
  expect_error<jx::ValueError>([&] { jnp::histogram(x, int64_t(0)); },
                               "`bins` must be positive, when an integer");
  expect_error<jx::ValueError>(
      [&] {
        jnp::histogramdd(jnp::ones({4, 2}), {int64_t(2), int64_t(2), int64_t(2)});
      },
      "should be a bin for each dimension.");
}

// cumprod, cummax and cummin differentiate through a combining scan (JAX's associative_scan), sort
// by gathering the tangents in the sorted order.
TEST(Breadth, ScanAndSortDerivativesAreJaxs) {
  const Array x = jnp::array({0.7, -1.3, 2.1, 0.4, -0.6, 1.8, 0.9, -2.4, 1.1, 0.3}).reshape({2, 5});
  const Array w =
      jnp::array({0.5, -1.0, 2.0, 1.5, -0.5, 1.0, 0.25, -2.0, 3.0, 0.75}).reshape({2, 5});
  const Array d = jnp::array({0.3, 0.1, -0.2, 0.4, 0.5, -0.1, 0.2, 0.6, -0.3, 0.1}).reshape({2, 5});
  using F = std::function<Array(const Array &)>;
  const std::vector<std::pair<const char *, F>> cases = {
      {"cumprod", [](const Array &a) { return jnp::cumprod(a, 1); }},
      {"cumprod_axis0", [](const Array &a) { return jnp::cumprod(a, 0); }},
      {"cummax", [](const Array &a) { return jx::lax::cummax(a, 1); }},
      {"cummin_reverse", [](const Array &a) { return jx::lax::cummin(a, 1, true); }},
      {"sort", [](const Array &a) { return jnp::sort(a, 1); }},
      {"sort_axis0", [](const Array &a) { return jnp::sort(a, 0); }},
  };
  for (const auto &[name, f] : cases) {
    SCOPED_TRACE(name);
    const double h = 1e-6;
    const double numeric =
        (jnp::sum(f(x + d * h) * w).item<double>() - jnp::sum(f(x - d * h) * w).item<double>()) /
        (2 * h);
    const Array g = jx::grad([&](const Array &a) { return jnp::sum(f(a) * w); })(x);
    EXPECT_NEAR(jnp::sum(g * d).item<double>(), numeric, 1e-7 * (1 + std::abs(numeric)));
  }
  // A zero factor: the product rule holds exactly (JAX's, not a division by x).
  const Array z = jnp::array({2.0, 0.0, 3.0, 4.0});
  EXPECT_EQ(
      jx::grad([](const Array &a) { return jnp::sum(jnp::cumprod(a)); })(z).to_vector<double>(),
      (std::vector<double>{1, 2 + 6 + 24, 0, 0}));
  // sort's gradient is w put back where each sorted element came from.
  const Array v = jnp::array({3.0, 1.0, 2.0});
  EXPECT_EQ(jx::grad([](const Array &a) {
              return jnp::sum(jnp::sort(a) * jnp::array({10.0, 20.0, 30.0}));
            })(v)
                .to_vector<double>(),
            (std::vector<double>{30, 10, 20}));
}

// .at[].min/max share a place's tangent among the values that tie for it, .at[].multiply scales x's
// (JAX's values, printed by jax.grad on the same arrays); the updates of a multiply have JAX's
// error (their indices are not promised unique).
TEST(Breadth, ExtremalAndProductScatterGradientsAreJaxs) {
  const Array x = jnp::array({1.0, 5.0, 3.0, 7.0}), u = jnp::array({2.0, 4.0, 3.0, 1.0});
  const Array idx = jnp::array({1, 1, 2, 9}), w = jnp::array({1.0, 2.0, 3.0, 4.0});
  auto min_of = [&](const Array &a, const Array &b) { return jnp::sum(a.at(idx).min(b) * w); };
  auto max_of = [&](const Array &a, const Array &b) { return jnp::sum(a.at(idx).max(b) * w); };
  const std::vector<Array> gmin = jx::grad(min_of, std::vector<int>{0, 1})(x, u);
  EXPECT_EQ(gmin[0].to_vector<double>(), (std::vector<double>{1, 0, 1.5, 4}));
  EXPECT_EQ(gmin[1].to_vector<double>(), (std::vector<double>{2, 0, 1.5, 0}));
  const std::vector<Array> gmax = jx::grad(max_of, std::vector<int>{0, 1})(x, u);
  EXPECT_EQ(gmax[0].to_vector<double>(), (std::vector<double>{1, 2, 1.5, 4}));
  EXPECT_EQ(gmax[1].to_vector<double>(), (std::vector<double>{0, 0, 1.5, 0}));
  EXPECT_EQ(jx::grad([&](const Array &a) { return jnp::sum(a.at(idx).multiply(u) * w); })(x)
                .to_vector<double>(),
            (std::vector<double>{1, 16, 9, 4}));
  expect_error<jx::NotImplementedError>(
      [&] { jx::grad([&](const Array &b) { return jnp::sum(x.at(idx).multiply(b)); })(u); },
      "scatter_mul gradients are only implemented if `unique_indices=True`");
}

} // namespace
