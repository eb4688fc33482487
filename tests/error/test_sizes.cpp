// Issue 11, shape arithmetic: every size is checked where a node is made (ir::make_node calls
// checked_size), so an element count or byte size past the largest possible array is NumPy's
// ValueError instead of a wrapped product (which read and wrote out of bounds: SIGSEGV), slice
// lengths are exact for every int64 step, a refused allocation is a jx::MemoryError, and an Array
// that was moved from raises instead of dereferencing null.
#include <jx/jx.h>

#include <climits>
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::Shape;
using test_util::expect_error;

const std::string too_big =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

TEST(Sizes, ProductsPastTheLargestArrayAreValueErrors) {
  // 3 * 0x5555555555555556 wraps to 2: the old code computed 2 elements and wrote 3.
  expect_error<jx::ValueError>([] { jnp::zeros({3, int64_t(0x5555555555555556)}) + 1.0; }, too_big);
  expect_error<jx::ValueError>([] { jnp::arange(int64_t(1) << 62); }, too_big);
  expect_error<jx::ValueError>([] { jnp::zeros({int64_t(1) << 40, int64_t(1) << 40}); }, too_big);
  expect_error<jx::ValueError>([] { jnp::ones({int64_t(1) << 61}, jx::float64); }, too_big);
  expect_error<jx::ValueError>(
      [] {
        jnp::broadcast_to(jnp::zeros({1}), {int64_t(1) << 62, 8});
      },
      too_big);
  expect_error<jx::ValueError>([] { jnp::eye(int64_t(1) << 32); }, too_big);
  expect_error<jx::ValueError>([] { jnp::linspace(0.0, 1.0, int64_t(1) << 62); }, too_big);
  expect_error<jx::ValueError>(
      [] {
        jx::random::uniform(jx::random::PRNGKey(0), {int64_t(1) << 62, 4});
      },
      too_big);
  // As NumPy: a zero dimension does not excuse the others.
  expect_error<jx::ValueError>(
      [] {
        jnp::zeros({0, int64_t(1) << 62, int64_t(1) << 62});
      },
      too_big);
  // The largest sizes that fit are still shapes (never realized here).
  EXPECT_EQ(jnp::zeros({int64_t(1) << 59}, jx::float64).size(), int64_t(1) << 59);
  EXPECT_EQ(jnp::zeros({0, int64_t(1) << 59}).size(), 0);
}

TEST(Sizes, SumsOfDimensionsAreChecked) {
  // pad's 3 + 2 * INT64_MAX wrapped to 1.
  expect_error<jx::ValueError>(
      [] {
        jnp::pad(jnp::zeros({3}), {{INT64_MAX, INT64_MAX}});
      },
      too_big);
  const Array huge = jnp::broadcast_to(jnp::zeros({1}, jx::bool_), {INT64_MAX / 2 + 1});
  expect_error<jx::ValueError>([&] { jnp::concatenate({huge, huge}); }, too_big);
}

TEST(Sizes, ReshapeResolutionDoesNotWrap) {
  // The known dimensions' product wraps to 0 (2^62 * 4, 2^32 * 2^32): no division by it, no
  // false match with the size.
  expect_error<jx::ShapeError>(
      [] {
        jnp::zeros({6}).reshape({-1, int64_t(1) << 62, 4});
      },
      "cannot reshape array of size 6");
  expect_error<jx::ShapeError>(
      [] {
        jnp::zeros({0}).reshape({int64_t(1) << 32, int64_t(1) << 32, 0});
      },
      "cannot reshape array of size 0");
  // -1 resolves to 0, and the other dimensions' bytes do not fit (as NumPy's new-array check).
  expect_error<jx::ValueError>(
      [] {
        jnp::zeros({0}).reshape({-1, int64_t(1) << 32, 1 << 30});
      },
      too_big);
}

TEST(Sizes, RankIsCappedAt64) {
  EXPECT_EQ(jnp::zeros(Shape(64, 1)).ndim(), 64);
  expect_error<jx::ValueError>(
      [] { jnp::zeros(Shape(65, 1)); },
      "maximum supported dimension for an ndarray is currently 64, found 65");
  expect_error<jx::ValueError>([] { jnp::zeros(Shape(64, 1))(jx::newaxis); }, "found 65");
}

TEST(Sizes, ArangeLengthPastInt64) {
  expect_error<jx::ValueError>([] { jnp::arange(0.0, 1e19); }, "Maximum allowed size exceeded");
  expect_error<jx::ValueError>([] { jnp::arange(-1e19, 1e19, 1.0); },
                               "Maximum allowed size exceeded");
}

TEST(Sizes, SlicesWithExtremeStepsAreExact) {
  const Array x = jnp::arange(10);
  EXPECT_EQ(x(jx::slice(jx::none, jx::none, INT64_MAX)).to_vector<int64_t>(),
            std::vector<int64_t>({0}));
  EXPECT_EQ(x(jx::slice(jx::none, jx::none, INT64_MIN)).to_vector<int64_t>(),
            std::vector<int64_t>({9}));
  EXPECT_EQ(x(jx::slice(3, INT64_MAX, INT64_MAX - 1)).to_vector<int64_t>(),
            std::vector<int64_t>({3}));
  EXPECT_EQ(x(jx::slice(INT64_MIN, INT64_MAX, 4)).to_vector<int64_t>(),
            std::vector<int64_t>({0, 4, 8}));
  EXPECT_EQ(x(jx::slice(INT64_MAX, INT64_MIN, -3)).to_vector<int64_t>(),
            std::vector<int64_t>({9, 6, 3, 0}));
  EXPECT_EQ(jx::ir::slice_length(0, INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(jx::ir::slice_length(INT64_MAX, INT64_MIN, INT64_MIN), 2);
  EXPECT_EQ(jx::ir::slice_length(-5, INT64_MAX, INT64_MAX), 2);
}

TEST(Sizes, RefusedAllocationsAreMemoryErrors) {
  // 1 PiB: past the user address space, refused whatever the overcommit policy.
  expect_error<jx::MemoryError>(
      [] { jnp::zeros({int64_t(1) << 47}, jx::float64).block_until_ready(); },
      "Unable to allocate 1.05e+06 GiB");
  // Past what the allocator's size classes handle: refused before asking the system.
  expect_error<jx::MemoryError>(
      [] { jnp::zeros({int64_t(1) << 60}, jx::bool_).block_until_ready(); }, "Unable to allocate");
  // And the process goes on.
  EXPECT_EQ(jnp::sum(jnp::ones({4})).item<double>(), 4.0);
}

TEST(Sizes, MovedFromArraysRaise) {
  Array a = jnp::arange(3.0);
  Array b = std::move(a);
  EXPECT_EQ(b.size(), 3);
  const std::string gone = "this Array has no value: it was moved from";
  expect_error<jx::ValueError>([&] { (void)a.size(); }, gone);
  expect_error<jx::ValueError>([&] { (void)a.shape(); }, gone);
  expect_error<jx::ValueError>([&] { (void)a.data(); }, gone);
  expect_error<jx::ValueError>([&] { a + 1.0; }, gone);
  expect_error<jx::ValueError>([&] { jnp::sum(a); }, gone);
  expect_error<jx::ValueError>([&] { a(0); }, gone);
  expect_error<jx::ValueError>([&] { jx::jit([](const Array &x) { return x * 2.0; })(a); }, gone);
  const Array null{std::shared_ptr<const jx::ir::Node>()};
  expect_error<jx::ValueError>([&] { (void)null.dtype(); }, gone);
  // Assigning a new value makes it usable again.
  a = jnp::ones({2});
  EXPECT_EQ(a.size(), 2);
}

} // namespace
