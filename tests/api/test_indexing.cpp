// Basic indexing (ints, slices with any step, newaxis, ellipsis) and x.at[...] updates.
#include <jx/jx.h>

#include <gtest/gtest.h>
#include <limits>

#include "ir/node.h"
#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::ellipsis;
using jx::newaxis;
using jx::none;
using jx::slice;
using V = std::vector<int64_t>;

namespace {
Array grid() { return jnp::arange(12).reshape({3, 4}); } // [[0..3],[4..7],[8..11]]
} // namespace

TEST(Indexing, IntegersDropAxes) {
  EXPECT_EQ(grid()(1).to_vector<int64_t>(), (V{4, 5, 6, 7}));
  EXPECT_EQ(grid()(-1, -2).item<int64_t>(), 10);
  EXPECT_EQ(grid()(-1, -2).ndim(), 0);
  EXPECT_EQ(grid()[2].to_vector<int64_t>(), (V{8, 9, 10, 11}));
}

TEST(Indexing, Slices) {
  EXPECT_EQ(grid()(slice(), 1).to_vector<int64_t>(), (V{1, 5, 9}));
  EXPECT_EQ(grid()(slice(1, none), slice(none, none, 2)).to_vector<int64_t>(), (V{4, 6, 8, 10}));
  EXPECT_EQ(grid()(slice(none, none, -1), 0).to_vector<int64_t>(), (V{8, 4, 0}));
  EXPECT_EQ(grid()(0, slice(-1, 0, -2)).to_vector<int64_t>(), (V{3, 1}));
  EXPECT_EQ(grid()(0, slice(10, 20)).shape(), (jx::Shape{0}));
  EXPECT_EQ(grid()(0, slice(-100, 2)).to_vector<int64_t>(), (V{0, 1}));
  EXPECT_EQ(jnp::arange(10)(slice(2, -1, 2)).to_vector<int64_t>(), (V{2, 4, 6, 8}));
}

TEST(Indexing, NewaxisAndEllipsis) {
  EXPECT_EQ(grid()(newaxis).shape(), (jx::Shape{1, 3, 4}));
  EXPECT_EQ(grid()(slice(), newaxis, slice()).shape(), (jx::Shape{3, 1, 4}));
  EXPECT_EQ(grid()(ellipsis, newaxis).shape(), (jx::Shape{3, 4, 1}));
  EXPECT_EQ(grid()(ellipsis, 1).to_vector<int64_t>(), (V{1, 5, 9}));
  EXPECT_EQ(jnp::zeros({2, 3, 4, 5})(0, ellipsis, 1).shape(), (jx::Shape{3, 4}));
  EXPECT_EQ(Array(5.0)(newaxis).shape(), (jx::Shape{1}));
  EXPECT_EQ(Array(5.0)(ellipsis).shape(), (jx::Shape{}));
}

TEST(Indexing, AtSet) {
  Array w = jnp::ones({7});
  w = w.at(slice(2, -1, 2)).set(2.);
  w = w.at(slice(1, none, 2)).set(4.);
  EXPECT_EQ(w.to_vector<double>(), (std::vector<double>{1, 4, 2, 4, 2, 4, 1}));
  Array g = grid().at(1, slice(1, 3)).set(jnp::array<int64_t>({-1, -2}));
  EXPECT_EQ(g.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, -1, -2, 7, 8, 9, 10, 11}));
  // The update is cast to the array's dtype, as JAX does.
  EXPECT_EQ(grid().at(0, 0).set(9.7)(0, 0).item<int64_t>(), 9);
  EXPECT_EQ(grid().at(slice(), -1).set(0).dtype(), jnp::int64);
}

// A step of INT64_MIN selecting one element (found by the API fuzzer): the compiled update
// negated the step and updated nothing.
TEST(Indexing, AtWithExtremeStep) {
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  Array y = jnp::arange(5);
  y.block_until_ready();
  EXPECT_EQ(y.at(slice(none, none, lowest)).set(9).to_vector<int64_t>(), (V{0, 1, 2, 3, 9}));
  EXPECT_EQ(y.at(slice(none, none, lowest + 1)).add(1).to_vector<int64_t>(), (V{0, 1, 2, 3, 5}));
  EXPECT_EQ(y.at(slice(1, none, std::numeric_limits<int64_t>::max())).set(7).to_vector<int64_t>(),
            (V{0, 7, 2, 3, 4}));
  EXPECT_EQ(y(slice(none, none, lowest)).to_vector<int64_t>(), (V{4}));
}

TEST(Indexing, AtArithmetic) {
  Array x = jnp::arange(5.0);
  EXPECT_EQ(x.at(slice(1, 3)).add(10).to_vector<double>(), (std::vector<double>{0, 11, 12, 3, 4}));
  EXPECT_EQ(x.at(-1).multiply(3).to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 12}));
  EXPECT_EQ(x.at(slice(none, none, 2)).subtract(1).to_vector<double>(),
            (std::vector<double>{-1, 1, 1, 3, 3}));
  EXPECT_EQ(x.at(0).divide(2).at(1).divide(2).to_vector<double>(),
            (std::vector<double>{0, 0.5, 2, 3, 4}));
  EXPECT_EQ(x.at(slice()).min(2).to_vector<double>(), (std::vector<double>{0, 1, 2, 2, 2}));
  EXPECT_EQ(x.at(slice()).max(2).to_vector<double>(), (std::vector<double>{2, 2, 2, 3, 4}));
  EXPECT_EQ(x.at(slice(1, 3)).get().to_vector<double>(), (std::vector<double>{1, 2}));
  // The original is unchanged: arrays are values.
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(Indexing, AtOnLargeBroadcastIsLazy) {
  // Simpson's weights: the updates are graph nodes, not 10-million-element copies, until read.
  Array w = jnp::ones_like(jnp::zeros({513, 200, 100}));
  w = w.at(slice(2, -1, 2)).set(2.);
  EXPECT_EQ(w.node()->realized(), nullptr);
  EXPECT_EQ(w(2, 0, slice(0, 2)).to_vector<double>(), (std::vector<double>{2, 2}));
}

// A mask must have the sizes of the axes it spans (NumPy's and JAX's IndexError): a shorter one
// used to select from the start of the axis, arange(5.)[[T, F, T]] reading [0, 2].
TEST(Indexing, MaskOfOtherSizeRaises) {
  const Array mask = jnp::array({true, false, true});
  const std::string message = "boolean index did not match indexed array along axis 0; size of "
                              "axis is 5 but size of corresponding boolean axis is 3";
  auto raises = [](auto f, const std::string &part) {
    try {
      f();
      ADD_FAILURE() << "no exception; expected: " << part;
    } catch (const jx::IndexError &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  raises([&] { jnp::arange(5.)[mask]; }, message);
  raises([&] { jnp::arange(5.).at(mask).get(); }, message);
  raises([&] { jnp::arange(5.).at(mask).set(1.); }, message);
  // After an ellipsis and through a 2-d mask: the axis of the array named.
  raises(
      [&] {
        jnp::zeros({2, 3, 4})(ellipsis, jnp::ones({3, 5}, jnp::bool_));
      },
      "along axis 2; size of axis is 4 but size of corresponding boolean axis is 5");
  // Masks of the right sizes still select.
  EXPECT_EQ(jnp::arange(3.)[mask].to_vector<double>(), (std::vector<double>{0, 2}));
  EXPECT_EQ(grid()(ellipsis, jnp::array({false, true, false, true})).to_vector<int64_t>(),
            (V{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(jnp::arange(3.).at(mask).set(7.).to_vector<double>(), (std::vector<double>{7, 1, 7}));
}

TEST(Indexing, UnsignedIndicesPastInt64MaxRaise) {
  using test_util::expect_error;
  const Array x = jnp::arange(3.0);
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  // Converted to int64 they would count from the end (x[-1]); NumPy raises with the value.
  expect_error<jx::IndexError>([&] { x[top]; },
                               "index 18446744073709551615 is out of bounds for axis 0 with size 3");
  expect_error<jx::IndexError>([&] { x[uint64_t(1) << 63]; },
                               "index 9223372036854775808 is out of bounds for axis 0 with size 3");
  expect_error<jx::IndexError>([&] { jnp::ones({2, 3})(1, top); },
                               "index 18446744073709551615 is out of bounds for axis 1 with size 3");
  expect_error<jx::IndexError>([&] { x.at(top).set(1.0); },
                               "index 18446744073709551615 is out of bounds for axis 0 with size 3");
  // Within range an unsigned index reads as itself.
  EXPECT_EQ(x[uint64_t(2)].item<double>(), 2.0);
  EXPECT_EQ(x[uint8_t(1)].item<double>(), 1.0);
}
