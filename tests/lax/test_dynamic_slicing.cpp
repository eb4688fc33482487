// lax.dynamic_slice, dynamic_update_slice and their *_in_dim forms: JAX's clamping (goldens from
// JAX), the compiled kernels against the reference evaluator, traced starts under jit and in
// loops, derivatives, batching (batched operands, starts or both), and JAX's errors.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include "api/internal.h"
#include "backends_agree.h"
#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using test_util::expect_backends_agree;
using test_util::expect_error;

struct Golden {
  int64_t i, j;
  std::vector<int64_t> slice, updated;
};
const std::vector<Golden> goldens = {
#include "golden/dynamic_slice_golden.inc"
};

// x = arange(30).reshape(5, 6) and the (2, 3) update of the goldens.
Array operand() { return jnp::arange(30).astype(jx::int64).reshape({5, 6}); }
Array update() { return (100 + jnp::arange(6)).astype(jx::int64).reshape({2, 3}); }

std::vector<int64_t> values(const Array &a) { return a.astype(jx::int64).to_vector<int64_t>(); }

TEST(DynamicSlice, ClampsAsJax) {
  auto slice = jx::jit([](const Array &x, const Array &i, const Array &j) {
    return lax::dynamic_slice(x, {i, j}, {2, 3});
  });
  auto write = jx::jit([](const Array &x, const Array &u, const Array &i, const Array &j) {
    return lax::dynamic_update_slice(x, u, {i, j});
  });
  for (const Golden &g : goldens) {
    const std::string where = fmt::format("starts ({}, {})", g.i, g.j);
    if (g.updated.empty()) continue; // the typed cases below
    const Array i = Array(g.i).astype(jx::int32), j = Array(g.j).astype(jx::int32);
    const Array eager = lax::dynamic_slice(operand(), {i, j}, {2, 3});
    expect_backends_agree(eager);
    EXPECT_EQ(values(eager), g.slice) << where;
    EXPECT_EQ(values(slice(operand(), i, j)), g.slice) << where;
    const Array updated = lax::dynamic_update_slice(operand(), update(), {i, j});
    expect_backends_agree(updated);
    EXPECT_EQ(values(updated), g.updated) << where;
    EXPECT_EQ(values(write(operand(), update(), i, j)), g.updated) << where;
  }
}

TEST(DynamicSlice, UnsignedAndNarrowStarts) {
  const std::vector<std::pair<jx::DType, size_t>> typed = {{jx::uint8, goldens.size() - 3},
                                                           {jx::uint32, goldens.size() - 2},
                                                           {jx::int8, goldens.size() - 1}};
  for (const auto &[dtype, k] : typed) {
    const Golden &g = goldens[k];
    const Array i = Array(g.i).astype(dtype), j = Array(g.j).astype(dtype);
    EXPECT_EQ(values(lax::dynamic_slice(operand(), {i, j}, {2, 3})), g.slice)
        << jx::dtype_name(dtype);
  }
  // A uint64 start past INT64_MAX is past the end, not negative.
  const Array huge = Array(uint64_t(1) << 63).astype(jx::uint64);
  EXPECT_EQ(values(lax::dynamic_slice(operand(), {huge, huge}, {2, 3})),
            (std::vector<int64_t>{21, 22, 23, 27, 28, 29}));
  // allow_negative_indices=false: a negative start clamps to 0.
  EXPECT_EQ(values(lax::dynamic_slice(operand(), {-1, -1}, {2, 3}, false)),
            (std::vector<int64_t>{0, 1, 2, 6, 7, 8}));
}

TEST(DynamicSlice, InDimForms) {
  const Array x = operand();
  const Array i = jnp::array(int32_t(2));
  EXPECT_EQ(values(lax::dynamic_slice_in_dim(x, i, 2, 1)), values(x(jx::slice(), jx::slice(2, 4))));
  EXPECT_EQ(values(lax::dynamic_index_in_dim(x, i, 0, false)), values(x(2)));
  EXPECT_EQ(lax::dynamic_index_in_dim(x, i).shape(), (jx::Shape{1, 6}));
  EXPECT_EQ(lax::dynamic_index_in_dim(x, -1, 1, false).shape(), (jx::Shape{5}));
  const Array row = jnp::full({6}, -1).astype(jx::int64);
  EXPECT_EQ(values(lax::dynamic_update_index_in_dim(x, row, i, 0)(2)), values(row));
  const Array column = jnp::full({5, 1}, -2).astype(jx::int64);
  EXPECT_EQ(values(lax::dynamic_update_slice_in_dim(x, column, -1, 1)(jx::slice(), 5)),
            std::vector<int64_t>(5, -2));
}

TEST(DynamicSlice, TracedStartsInALoop) {
  // Row i of a carry written at a traced position, then every row read back.
  auto rows = [](const Array &init) {
    return lax::fori_loop(
        0, 5,
        [](const Array &i, const Array &a) {
          return lax::dynamic_update_slice(a, jnp::full({1, 4}, i).astype(a.dtype()), {i, 0});
        },
        init);
  };
  const Array written = jx::jit(rows)(jnp::zeros({5, 4}));
  EXPECT_EQ(values(written(jx::slice(), 3)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  auto diagonal_sum = [](const Array &a) {
    return lax::fori_loop(
        0, 4,
        [&a](const Array &i, const Array &acc) {
          return acc + lax::dynamic_slice(a, {i, i}, {1, 1}).reshape({});
        },
        jnp::zeros({}));
  };
  const Array m = jnp::arange(16.0).reshape({4, 4});
  EXPECT_EQ(jx::jit(diagonal_sum)(m).item<double>(), 0 + 5 + 10 + 15);
}

TEST(DynamicSlice, Derivatives) {
  const Array x = jnp::arange(12.0).reshape({3, 4});
  const Array i = jnp::array(int32_t(1)), j = jnp::array(int32_t(5)); // j clamps to 2
  auto f = [&](const Array &v) {
    return jnp::sum(jnp::square(lax::dynamic_slice(v, {i, j}, {2, 2})));
  };
  const Array expected = jnp::zeros({3, 4})
                             .at(jx::slice(1, 3), jx::slice(2, 4))
                             .set(2.0 * x(jx::slice(1, 3), jx::slice(2, 4)));
  EXPECT_EQ(jnp::array_equal(jx::grad(f)(x), expected).item<bool>(), true);
  EXPECT_EQ(jnp::array_equal(jx::jit(jx::grad(f))(x), expected).item<bool>(), true);
  const Array jf = jx::jacfwd(f)(x), jr = jx::jacrev(f)(x);
  EXPECT_EQ(jnp::allclose(jf, jr).item<bool>(), true);
  // dynamic_update_slice: the operand's gradient is zero in the window, the update's is 1s.
  const Array u = jnp::ones({2, 2});
  auto g = [&](const Array &v, const Array &w) {
    return jnp::sum(lax::dynamic_update_slice(v, w * w, {i, j}));
  };
  const auto [gx, gu] = jx::grad(g, jx::argnums<0, 1>)(x, u);
  EXPECT_EQ(jnp::array_equal(gx, jnp::ones({3, 4}).at(jx::slice(1, 3), jx::slice(2, 4)).set(0.0))
                .item<bool>(),
            true);
  EXPECT_EQ(jnp::array_equal(gu, 2.0 * u).item<bool>(), true);
}

TEST(DynamicSlice, Batching) {
  const Array xs = jnp::arange(60).astype(jx::int64).reshape({2, 5, 6});
  const Array starts = jnp::array(std::vector<int32_t>{-1, 2});
  auto slice = [](const Array &x, const Array &i) { return lax::dynamic_slice(x, {i, 1}, {2, 3}); };
  auto write = [](const Array &x, const Array &i) {
    return lax::dynamic_update_slice(x, jnp::full({2, 3}, -7).astype(jx::int64), {1, i});
  };
  for (int which = 0; which < 3; ++which) {
    // Batched operand, batched starts, both.
    const bool batch_x = which != 1, batch_i = which != 0;
    const std::optional<int64_t> no_axis;
    const jx::VmapAxes axes = {batch_x ? std::optional<int64_t>(0) : no_axis,
                               batch_i ? std::optional<int64_t>(0) : no_axis};
    const Array x = batch_x ? xs : xs(0);
    const Array i = batch_i ? starts : starts(1);
    const Array sliced = jx::vmap(slice, axes)(x, i);
    const Array written = jx::jit(jx::vmap(write, axes))(x, i);
    for (int64_t b = 0; b < 2; ++b) {
      const Array xb = batch_x ? xs(b) : xs(0), ib = batch_i ? starts(b) : starts(1);
      EXPECT_EQ(values(sliced(b)), values(slice(xb, ib))) << which << " " << b;
      EXPECT_EQ(values(written(b)), values(write(xb, ib))) << which << " " << b;
    }
    expect_backends_agree(jx::vmap(write, axes)(x, i));
  }
}

// x(i), x(slice(), i) and x.at(i, j).set(...) with 0-d integer arrays read and write a window
// (dynamic slice and update) with jnp's semantics: a read clamps, an update at an index out of
// range is dropped, negative indices count from the end.
TEST(DynamicSlice, IndexingWithRunTimeIndices) {
  const Array x = operand();
  for (int64_t k : {-6, -5, -1, 0, 2, 4, 5, 9}) {
    const Array i = Array(k).astype(jx::int32);
    const int64_t row = std::clamp<int64_t>(k < 0 ? k + 5 : k, 0, 4);
    const bool inside = k >= -5 && k < 5;
    EXPECT_EQ(values(x(i)), values(x(row))) << k;
    const int64_t column = std::clamp<int64_t>(k < 0 ? k + 6 : k, 0, 5);
    EXPECT_EQ(values(x(jx::slice(), i)), values(x(jx::slice(), column))) << k;
    const Array set = x.at(i).set(-1);
    EXPECT_EQ(values(set), values(inside ? x.at(row).set(-1) : x)) << k;
    const Array added = x.at(i, 1).add(1000);
    EXPECT_EQ(values(added), values(inside ? x.at(row, 1).add(1000) : x)) << k;
    expect_backends_agree(set);
    EXPECT_NE(set.node()->op, jx::ir::Op::ScatterSet);
  }
  // Under jit in a loop, under vmap with a batched index, and through grad.
  auto rows = jx::jit([](const Array &a) {
    return lax::fori_loop(
        0, 5, [](const Array &i, const Array &v) { return v.at(i, i).set(-(i + 1)); }, a);
  });
  EXPECT_EQ(values(jnp::diagonal(rows(x))), (std::vector<int64_t>{-1, -2, -3, -4, -5}));
  const Array batch = jx::vmap([&x](const Array &i) { return x.at(jx::slice(), i).set(0); })(
      jnp::array(std::vector<int32_t>{0, 7, -1}));
  EXPECT_EQ(values(batch(0)), values(x.at(jx::slice(), 0).set(0)));
  EXPECT_EQ(values(batch(1)), values(x));
  EXPECT_EQ(values(batch(2)), values(x.at(jx::slice(), 5).set(0)));
  const Array f = jnp::arange(6.0);
  const Array g = jx::grad(
      [](const Array &v) { return jnp::sum(v.at(Array(2).astype(jx::int32)).set(0.0) * v); })(f);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{0, 2, 0, 6, 8, 10}));
}

// A run-time index beside slices of step 1, integers and an ellipsis reads and writes a window
// (dynamic_slice, dynamic_update_slice; no gather or scatter through the whole array), equal to
// the same index known at trace time, clamped for reads and dropped for writes out of range.
TEST(DynamicSlice, RunTimeIndicesBesideSlicesAndIntegers) {
  using jx::IndexItem;
  using jx::slice;
  const Array x = jnp::arange(120).astype(jx::int64).reshape({4, 5, 6});
  // Items with the run-time index i (or the static index k), and the size of the axis i indexes.
  struct Case {
    std::function<std::vector<IndexItem>(IndexItem)> items;
    int64_t axis_size;
  };
  const std::vector<Case> cases = {
      {[](IndexItem i) {
         return std::vector<IndexItem>{i, slice(1, -1)};
       },
       4},
      {[](IndexItem i) {
         return std::vector<IndexItem>{slice(1, 4), i};
       },
       5},
      {[](IndexItem i) {
         return std::vector<IndexItem>{i, 2};
       },
       4},
      {[](IndexItem i) {
         return std::vector<IndexItem>{-1, i};
       },
       5},
      {[](IndexItem i) {
         return std::vector<IndexItem>{i, jx::ellipsis, slice(2, 5)};
       },
       4},
      {[](IndexItem i) {
         return std::vector<IndexItem>{slice(0, -1), slice(1, 5), i};
       },
       6},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case &cs = cases[c];
    for (int64_t k : {-7, -1, 0, 2, 3, 9}) {
      const Array i = Array(k).astype(jx::int32);
      const int64_t n = cs.axis_size, at = std::clamp<int64_t>(k < 0 ? k + n : k, 0, n - 1);
      const bool inside = k >= -n && k < n;
      const Array got = x.index(cs.items(i));
      EXPECT_EQ(values(got), values(x.index(cs.items(at)))) << c << " " << k;
      const Array set = jx::At(x, cs.items(i)).set(-1);
      EXPECT_EQ(values(set), values(inside ? jx::At(x, cs.items(at)).set(-1) : x)) << c << " " << k;
      const Array added = jx::At(x, cs.items(i)).add(1000);
      EXPECT_EQ(values(added), values(inside ? jx::At(x, cs.items(at)).add(1000) : x))
          << c << " " << k;
      EXPECT_EQ(set.node()->op, jx::ir::Op::DynamicUpdateSlice) << c;
      EXPECT_EQ(added.node()->op, jx::ir::Op::DynamicUpdateSlice) << c;
      expect_backends_agree(set);
    }
  }
  // Steps other than 1 and None keep the general path's results.
  const Array i = Array(int64_t(1));
  EXPECT_EQ(values(x.index({i, slice(0, 5, 2)})), values(x.index({1, slice(0, 5, 2)})));
  EXPECT_EQ(values(x.index({i, jx::newaxis, 3})), values(x.index({1, jx::newaxis, 3})));
}

// jnp.roll by a shift known at run time equals the static roll, along one axis, several, and
// flattened; under jit the shift is a traced argument.
TEST(DynamicSlice, RollByARunTimeShift) {
  const Array x = operand();
  auto rolled = jx::jit([](const Array &v, const Array &s) { return jnp::roll(v, s, 1); });
  for (int64_t k : {-13, -6, -1, 0, 1, 4, 6, 17}) {
    const Array s = Array(k).astype(jx::int32);
    EXPECT_EQ(values(jnp::roll(x, s, 1)), values(jnp::roll(x, k, 1))) << k;
    EXPECT_EQ(values(rolled(x, s)), values(jnp::roll(x, k, 1))) << k;
    EXPECT_EQ(values(jnp::roll(x, s)), values(jnp::roll(x, k))) << k;
  }
  const Array both = jnp::array(std::vector<int64_t>{2, -3});
  EXPECT_EQ(values(jnp::roll(x, both, std::vector<int64_t>{0, 1})),
            values(jnp::roll(x, std::vector<int64_t>{2, -3}, std::vector<int64_t>{0, 1})));
  expect_error<jx::TypeError>([&] { jnp::roll(x, Array(1.5), 0); },
                              "roll: shift must be an integer");
}

// A concatenate of one operand with itself, read at a run-time offset (roll's form): kernels
// read it through a wrapped index; three copies wrap twice.
TEST(DynamicSlice, RepeatedOperandReadAtARunTimeOffset) {
  const Array x = operand();
  auto window = jx::jit([](const Array &v, const Array &s) {
    return lax::dynamic_slice_in_dim(jnp::concatenate({v, v, v}, 1), s, 2 * v.shape()[1], 1);
  });
  const int64_t n = x.shape()[1];
  for (int64_t k : {int64_t(0), int64_t(1), n - 1, n}) {
    const Array expected =
        jnp::concatenate({x, x, x}, 1).index({jx::slice(), jx::slice(k, k + 2 * n)});
    EXPECT_EQ(values(window(x, Array(k))), values(expected)) << k;
  }
}

// Rolls by a run-time shift over rows longer than a chunk of the kernel's loop (1024): each
// chunk reads at a fixed offset where it does not cross the wrap, so the shifts put the wrap at,
// before and after chunk edges. The results match the static roll's bit for bit; a sum's to its
// rounding.
TEST(DynamicSlice, RollReadsChunkByChunk) {
  const int64_t n = 2500;
  const Array x = jnp::sin(jnp::arange(double(n))) + 2.0;
  const Array grid = jnp::cos(jnp::arange(3.0 * n)).reshape({3, n});
  auto update = jx::jit([](const Array &y, const Array &k, const Array &at) {
    return (y + 2.0 * jnp::roll(jnp::flip(y), k, 0)).at(at).set(-1.0);
  });
  auto two_shifts = jx::jit([](const Array &y, const Array &k) {
    const Array a = jnp::roll(y, k, 0);
    return a * jnp::roll(y, k + 700, 0) + a(7);
  });
  auto rows = jx::jit(
      [](const Array &g, const Array &k) { return jnp::roll(g, k, 1) - jnp::roll(g, k, 0); });
  auto dot = jx::jit([](const Array &y, const Array &k) {
    return jnp::sum(
        jnp::where(jnp::arange(y.shape()[0]) < k, y * jnp::roll(jnp::flip(y), k, 0), 0.0));
  });
  auto same = [](const Array &a, const Array &b) { return jnp::array_equal(a, b).item<bool>(); };
  auto close = [](const Array &a, const Array &b) {
    return jnp::allclose(a, b, 1e-13, 0.0).item<bool>();
  };
  for (int64_t k : {int64_t(1), int64_t(5), int64_t(1023), int64_t(1024), int64_t(1025),
                    int64_t(2047), int64_t(2048), n - 1, n, int64_t(-3), 3 * n + 11}) {
    const Array s = Array(k);
    const int64_t at = ((k % n) + n) % n;
    EXPECT_TRUE(
        same(update(x, s, Array(at)), (x + 2.0 * jnp::roll(jnp::flip(x), k, 0)).at(at).set(-1.0)))
        << k;
    const Array a = jnp::roll(x, k, 0);
    EXPECT_TRUE(same(two_shifts(x, s), a * jnp::roll(x, k + 700, 0) + a(7))) << k;
    EXPECT_TRUE(same(rows(grid, s), jnp::roll(grid, k, 1) - jnp::roll(grid, k, 0))) << k;
    const Array expected =
        jnp::sum(jnp::where(jnp::arange(n) < k, x * jnp::roll(jnp::flip(x), k, 0), 0.0));
    EXPECT_TRUE(close(dot(x, s), expected)) << k;
  }
}

TEST(DynamicSlice, JaxErrors) {
  const Array x = jnp::zeros({5, 6});
  const Array i = Array(1).astype(jx::int32);
  expect_error<jx::ValueError>(
      [&] {
        lax::dynamic_slice(x, {i}, {1, 1});
      },
      "Length of slice indices must match number of operand dimensions "
      "(1 vs (5, 6))");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_slice(x, {i, Array(1.5)}, {1, 1});
      },
      "index arguments to dynamic_slice must be integers of the same "
      "type, got: int32, float64");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_slice(x, {i, Array(0).astype(jx::int64)}, {1, 1});
      },
      "index arguments to dynamic_slice must be integers of the same type, got: int32, int64");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_slice(x, {i, i}, {6, 1});
      },
      "slice slice_sizes must be less than or equal to operand shape, got "
      "slice_sizes (6, 1) for operand shape (5, 6).");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_slice(x, {i, i}, {1, -1});
      },
      "slice slice_sizes must be greater than or equal to zero");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_slice(x, {i, jnp::zeros({2}).astype(jx::int32)}, {1, 1});
      },
      "start_indices arguments to dynamic_slice must be scalars");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_update_slice(x, jnp::zeros({2}), {i, i});
      },
      "dynamic_update_slice update must have the same rank as operand, "
      "got update shape (2,) for operand shape (5, 6).");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_update_slice(x, jnp::zeros({2, 7}), {i, i});
      },
      "dynamic_update_slice update shape must be smaller than operand "
      "shape, got update shape (2, 7) for operand shape (5, 6).");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_update_slice(x, jnp::zeros({1, 1}, jx::float32), {i, i});
      },
      "lax.dynamic_update_slice requires arguments to have the same dtypes, got float64, "
      "float32.");
  expect_error<jx::TypeError>(
      [&] {
        lax::dynamic_update_slice(x, jnp::zeros({1, 1}), {i, Array(0.5)});
      },
      "index arguments to dynamic_update_slice must be integers of the same type, got int32, "
      "float64");
}

} // namespace
