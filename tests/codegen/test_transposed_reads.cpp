// Kernels that read a large input transposed loop over 32x32 tiles of the output (emit.cpp's
// transposed_axis and tiled_box_nest): every element of the box computed once, nothing outside
// it written, at extents that are not multiples of 32, whole and under placements that box the
// tiled axes; values equal to the reference evaluator's (movement is exact). Kernels whose plan
// asks for streaming stores (large outputs no later step reads) compute tiles and row chunks into
// a stack buffer and copy them out by cache lines: the same checks for them, over rows that start
// on cache lines and rows that do not, and the driver's choice of which kernels stream.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "api/internal.h"
#include "backend/orc_jit.h"
#include "compile/executable.h"
#include "eight_devices.h"
#include "ir/builder.h"
#include "passes/kernel_plan.h"

namespace {

namespace ir = jx::ir;
namespace jnp = jx::numpy;
using ir::NodePtr;
using ir::Op;
using jx::Array;
using jx::P;
using jx::Shape;
using jx::compile::Executable;
using jx::sharding::Placement;

// Inputs of at least this many elements are read in tiles (emit.cpp's min_tiled_input).
constexpr int64_t tiled_input = 1 << 15;

// Distinct values, so that any misplaced element shows.
Array distinct(const Shape &shape, jx::DType dtype = jx::float64) {
  return (jnp::arange(jx::shape_size(shape)).astype(jx::float64) * 0.5 - 7.0)
      .reshape(shape)
      .astype(dtype);
}

// The reference evaluator's value of f(x), and whether `actual` holds the same bytes.
::testing::AssertionResult equals_evaluator(const std::function<Array(const Array &)> &f,
                                            const Array &x, const void *actual) {
  const Array lazy = f(x);
  const jx::runtime::BufferPtr expected =
      jx::api::evaluate_with(jx::api::Backend::Interpreter, lazy.node());
  const size_t item = jx::itemsize(lazy.dtype());
  const auto *a = static_cast<const unsigned char *>(actual);
  const auto *e = static_cast<const unsigned char *>(expected->data());
  for (int64_t i = 0; i < lazy.size(); ++i)
    if (std::memcmp(a + size_t(i) * item, e + size_t(i) * item, item) != 0)
      return ::testing::AssertionFailure()
             << "first difference at flat element " << i << " of " << lazy.size();
  return ::testing::AssertionSuccess();
}

struct Case {
  std::string name;
  std::function<Array(const Array &)> f;
  Shape input;
};

std::string shape_text(const Shape &s) {
  std::string t;
  for (int64_t d : s) {
    if (!t.empty()) t += 'x';
    t += std::to_string(d);
  }
  return t;
}

std::vector<Case> cases() {
  auto plus_one = [](const Array &x) { return jnp::transpose(x) + 1.0; };
  auto reversed_twice = [](const Array &x) {
    return jnp::transpose(x, std::vector<int64_t>{2, 1, 0}) * 2.0;
  };
  auto rotated = [](const Array &x) {
    return jnp::transpose(x, std::vector<int64_t>{1, 2, 0}) * 3.0 - 1.0;
  };
  auto bare = [](const Array &x) { return jnp::transpose(x); };
  // The last axis stays last: no tiling, rows copied along it.
  auto outer_swap = [](const Array &x) { return jnp::transpose(x, std::vector<int64_t>{1, 0, 2}); };
  std::vector<Case> out;
  for (const Shape &s : {Shape{33, 65}, Shape{200, 170}, Shape{33, 1000}, Shape{7, 5000},
                         Shape{1, 40000}, Shape{40000, 1}, Shape{300, 130}})
    out.push_back({"transpose(x) + 1 of " + shape_text(s), plus_one, s});
  for (const Shape &s : {Shape{200, 171}, Shape{1000, 33}})
    out.push_back({"transpose(x) of " + shape_text(s), bare, s});
  for (const Shape &s : {Shape{33, 31, 40}, Shape{7, 65, 90}, Shape{300, 3, 41}, Shape{3, 5, 4}})
    out.push_back({"transpose(x, {2,1,0}) * 2 of " + shape_text(s), reversed_twice, s});
  for (const Shape &s : {Shape{290, 11, 13}, Shape{100, 3, 130}})
    out.push_back({"transpose(x, {1,2,0}) * 3 - 1 of " + shape_text(s), rotated, s});
  for (const Shape &s : {Shape{65, 33, 20}, Shape{300, 7, 17}})
    out.push_back({"transpose(x, {1,0,2}) of " + shape_text(s), outer_swap, s});
  return out;
}

TEST(TransposedReads, CasesCoverTiledAndUntiledInputs) {
  int tiled = 0, untiled = 0;
  for (const Case &c : cases())
    (jx::shape_size(c.input) >= tiled_input ? tiled : untiled) += 1;
  EXPECT_GE(tiled, 10);
  EXPECT_GE(untiled, 2);
}

TEST(TransposedReads, JitMatchesTheEvaluator) {
  for (const Case &c : cases()) {
    SCOPED_TRACE(c.name);
    for (jx::DType dtype : {jx::float64, jx::float32}) {
      const Array x = distinct(c.input, dtype);
      const Array out = jx::jit(c.f)(x);
      EXPECT_TRUE(equals_evaluator(c.f, x, out.data())) << jx::dtype_name(dtype);
    }
  }
}

// Shardings that box the output's axes: both of a 2-d output over a 2x4 mesh, the first and last
// (or the last two) of a 3-d one; with and without the argument placed the same way.
TEST(TransposedReads, ShardedJitMatchesTheEvaluator) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  for (const Case &c : cases()) {
    SCOPED_TRACE(c.name);
    const Array x = distinct(c.input);
    const int64_t rank = int64_t(c.input.size());
    const Shape out_shape = c.f(x).shape();
    // Per spec, the devices along each axis ("x": 2, "y": 4).
    std::vector<std::pair<P, std::vector<int64_t>>> specs;
    if (rank == 2)
      specs = {{P("x", "y"), {2, 4}}, {P("y", "x"), {4, 2}}, {P(nullptr, "y"), {1, 4}}};
    if (rank == 3)
      specs = {{P("x", nullptr, "y"), {2, 1, 4}},
               {P(nullptr, "x", "y"), {1, 2, 4}},
               {P("y", "x", nullptr), {4, 2, 1}}};
    for (const auto &[spec, ways] : specs) {
      const jx::Sharding s = jx::NamedSharding(mesh, spec);
      const Array out = jx::jit(c.f, {.out_shardings = {s}})(x);
      EXPECT_TRUE(equals_evaluator(c.f, x, out.data())) << s.str();
      // The argument placed too, where both shapes divide evenly (device_put's rule).
      bool even = true;
      for (size_t a = 0; a < ways.size(); ++a)
        even = even && c.input[a] % ways[a] == 0 && out_shape[a] % ways[a] == 0;
      if (!even) continue;
      const Array placed = jx::jit(c.f, {.in_shardings = {s}, .out_shardings = {s}})(x);
      EXPECT_TRUE(equals_evaluator(c.f, x, placed.data())) << "in and out " << s.str();
    }
  }
}

// mesh_rows x mesh_cols device boxes over axes (a, b) of an output of `shape`, at uneven cuts.
Placement grid(const Shape &shape, size_t a, size_t b, int64_t mesh_rows, int64_t mesh_cols) {
  Placement p;
  for (int64_t d = 0; d < mesh_rows * mesh_cols; ++d) {
    const int64_t r = d / mesh_cols, c = d % mesh_cols;
    std::vector<int64_t> lo(shape.size(), 0), hi(shape.begin(), shape.end());
    lo[a] = shape[a] * r / mesh_rows;
    hi[a] = shape[a] * (r + 1) / mesh_rows;
    lo[b] = shape[b] * c / mesh_cols;
    hi[b] = shape[b] * (c + 1) / mesh_cols;
    p.push_back({int(d), lo, hi});
  }
  return p;
}

// The executable with explicit placements (boxes cut at any element, as test_placement does).
TEST(TransposedReads, PlacedExecutablesMatchTheEvaluator) {
  for (const Case &c : cases()) {
    SCOPED_TRACE(c.name);
    const Array x = distinct(c.input);
    const NodePtr param = ir::parameter(0, jx::float64, c.input);
    const NodePtr root = c.f(Array(param)).node();
    const Shape &out = root->shape;
    const size_t last = out.size() - 1;
    const jx::runtime::BufferPtr input = jx::api::realize(x.node());
    for (auto [rows, cols] :
         {std::pair{1, 1}, std::pair{3, 1}, std::pair{1, 3}, std::pair{2, 4}, std::pair{8, 1}}) {
      for (size_t a = 0; a < last; ++a) {
        Executable placed({param}, {root}, true, {}, {grid(out, a, last, rows, cols)});
        EXPECT_TRUE(equals_evaluator(c.f, x, placed.run({input})[0]->data()))
            << rows << "x" << cols << " over axes " << a << " and " << last;
      }
    }
  }
}

// ---- the kernel itself on chosen boxes ----

constexpr double untouched = -12345.5;

// Runs plan's kernel (one input) on box; the output starts filled with `untouched`.
std::vector<double> run_kernel(const jx::passes::KernelPlan &plan, std::vector<int64_t> box,
                               std::vector<double> x) {
  auto kernel = jx::backend::compile(plan);
  std::vector<double> out(size_t(plan.roots[0]->size()), untouched);
  std::vector<uint64_t> literals = plan.literal_values();
  void *buffers[] = {out.data(), x.data(), literals.data()};
  kernel->fn(box.data(), buffers);
  return out;
}

std::vector<double> iota(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = double(i);
  return v;
}

TEST(TransposedReadKernel, WritesExactlyItsBox) {
  // out (C, R) = transpose(x (R, C)) + 1, R * C >= 32 Ki, both axes boxed.
  const int64_t rows = 190, cols = 211;
  ASSERT_GE(rows * cols, tiled_input);
  const NodePtr x = ir::parameter(0, jx::float64, {rows, cols});
  const NodePtr y = ir::binary(Op::Add, ir::transpose(x, {1, 0}),
                               ir::broadcast(ir::literal(1, jx::float64, true), {cols, rows}, {}));
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.boxed_axes = 0b11;
  plan.collect_literals();
  const std::vector<double> input = iota(rows * cols);
  // Boxes starting and ending off the 32-element grid, a single element, a single row and column,
  // an empty one and the whole output.
  const std::vector<std::vector<int64_t>> boxes = {
      {0, cols, 0, rows}, {5, 70, 3, 190},  {33, 34, 100, 101}, {200, 211, 0, 190},
      {7, 8, 0, 190},     {0, 211, 31, 32}, {64, 96, 32, 64},   {10, 10, 5, 50},
  };
  for (const std::vector<int64_t> &box : boxes) {
    SCOPED_TRACE(testing::Message() << "box [" << box[0] << "," << box[1] << ") x [" << box[2]
                                    << "," << box[3] << ")");
    const std::vector<double> out = run_kernel(plan, box, input);
    int64_t wrong = 0;
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < rows; ++j) {
        const bool inside = i >= box[0] && i < box[1] && j >= box[2] && j < box[3];
        const double expected = inside ? double(j * cols + i) + 1 : untouched;
        if (out[size_t(i * rows + j)] != expected && wrong++ < 5)
          ADD_FAILURE() << "out[" << i << "," << j << "] = " << out[size_t(i * rows + j)]
                        << ", expected " << expected;
      }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(TransposedReadKernel, ThreeDimensionalBoxOverTheTiledAxes) {
  // out (D2, D1, D0) = transpose(x (D0, D1, D2), {2, 1, 0}) * 2: axes 0 and 2 tiled, axis 1
  // between them, boxed on all three.
  const int64_t d0 = 45, d1 = 23, d2 = 37;
  ASSERT_GE(d0 * d1 * d2, tiled_input);
  const NodePtr x = ir::parameter(0, jx::float64, {d0, d1, d2});
  const NodePtr y = ir::binary(Op::Mul, ir::transpose(x, {2, 1, 0}),
                               ir::broadcast(ir::literal(2, jx::float64, true), {d2, d1, d0}, {}));
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.boxed_axes = 0b111;
  plan.collect_literals();
  const std::vector<double> input = iota(d0 * d1 * d2);
  for (const std::vector<int64_t> &box :
       {std::vector<int64_t>{0, d2, 0, d1, 0, d0}, std::vector<int64_t>{3, 36, 2, 5, 1, 44},
        std::vector<int64_t>{32, 37, 0, 23, 0, 33}}) {
    const std::vector<double> out = run_kernel(plan, box, input);
    int64_t wrong = 0;
    for (int64_t i = 0; i < d2; ++i)
      for (int64_t j = 0; j < d1; ++j)
        for (int64_t k = 0; k < d0; ++k) {
          const bool inside =
              i >= box[0] && i < box[1] && j >= box[2] && j < box[3] && k >= box[4] && k < box[5];
          const double expected = inside ? 2.0 * double((k * d1 + j) * d2 + i) : untouched;
          const double got = out[size_t((i * d1 + j) * d0 + k)];
          if (got != expected && wrong++ < 5)
            ADD_FAILURE() << "out[" << i << "," << j << "," << k << "] = " << got << ", expected "
                          << expected;
        }
    EXPECT_EQ(wrong, 0);
  }
}

// ---- streaming stores ----

// Outputs of at least this many bytes that no later step reads stream (executable.cpp's
// min_streamed_bytes).
constexpr int64_t streamed_bytes = int64_t(32) << 20;

template <class C> bool streams(const C &c) {
  return c.as_text().find("!nontemporal") != std::string::npos;
}

// Checks every element of `out` (C-order over `shape`): inside box, expected(flat index of the
// element); outside, untouched.
void expect_box(const std::vector<double> &out, const Shape &shape, const std::vector<int64_t> &box,
                const std::function<double(const std::vector<int64_t> &)> &expected) {
  int64_t wrong = 0;
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    bool inside = true;
    for (size_t a = 0; a < shape.size(); ++a)
      inside = inside && idx[a] >= box[2 * a] && idx[a] < box[2 * a + 1];
    const double want = inside ? expected(idx) : untouched;
    if (out[flat] != want && wrong++ < 5)
      ADD_FAILURE() << "flat " << flat << ": " << out[flat] << ", expected " << want;
    for (size_t a = shape.size(); a-- > 0;) {
      if (++idx[a] < shape[a]) break;
      idx[a] = 0;
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(StreamedStores, TiledKernelWritesExactlyItsBox) {
  // out (C, R) = transpose(x (R, C)) + 1: output rows of 190 float64 (1520 bytes) start on and
  // off cache lines; boxes off the 32-element grid, partial tiles, one element, empty.
  const int64_t rows = 190, cols = 211;
  const NodePtr x = ir::parameter(0, jx::float64, {rows, cols});
  const NodePtr y = ir::binary(Op::Add, ir::transpose(x, {1, 0}),
                               ir::broadcast(ir::literal(1, jx::float64, true), {cols, rows}, {}));
  jx::passes::KernelPlan plan{{y}, {x.get()}};
  plan.boxed_axes = 0b11;
  plan.stream_outputs = true;
  plan.collect_literals();
  const std::vector<double> input = iota(rows * cols);
  for (const std::vector<int64_t> &box :
       {std::vector<int64_t>{0, cols, 0, rows}, std::vector<int64_t>{5, 70, 3, 190},
        std::vector<int64_t>{64, 96, 32, 64}, std::vector<int64_t>{33, 34, 100, 101},
        std::vector<int64_t>{200, 211, 1, 190}, std::vector<int64_t>{10, 10, 5, 50}}) {
    SCOPED_TRACE(testing::Message() << "box [" << box[0] << "," << box[1] << ") x [" << box[2]
                                    << "," << box[3] << ")");
    expect_box(run_kernel(plan, box, input), {cols, rows}, box,
               [&](const std::vector<int64_t> &i) { return double(i[1] * cols + i[0]) + 1; });
  }
}

TEST(StreamedStores, RowKernelWritesExactlyItsBox) {
  // out = x * 2 + 1 over (R, C) row by row in 64-element chunks that end at multiples of 64 in
  // the flat index: rows of 203 (misaligned starts, partial chunks) and 256 (whole lines).
  for (const int64_t cols : {int64_t(203), int64_t(256)}) {
    const int64_t rows = 37;
    const NodePtr x = ir::parameter(0, jx::float64, {rows, cols});
    const NodePtr y = ir::binary(
        Op::Add,
        ir::binary(Op::Mul, x, ir::broadcast(ir::literal(2, jx::float64, true), {rows, cols}, {})),
        ir::broadcast(ir::literal(1, jx::float64, true), {rows, cols}, {}));
    jx::passes::KernelPlan plan{{y}, {x.get()}};
    plan.boxed_axes = 0b11;
    plan.stream_outputs = true;
    plan.collect_literals();
    const std::vector<double> input = iota(rows * cols);
    for (const std::vector<int64_t> &box :
         {std::vector<int64_t>{0, rows, 0, cols}, std::vector<int64_t>{3, 20, 5, 200},
          std::vector<int64_t>{0, rows, 64, 128}, std::vector<int64_t>{10, 11, 63, 65},
          std::vector<int64_t>{4, 4, 0, cols}}) {
      SCOPED_TRACE(testing::Message() << cols << " columns, box [" << box[0] << "," << box[1]
                                      << ") x [" << box[2] << "," << box[3] << ")");
      expect_box(run_kernel(plan, box, input), {rows, cols}, box,
                 [&](const std::vector<int64_t> &i) { return double(i[0] * cols + i[1]) * 2 + 1; });
    }
  }
}

TEST(StreamedStores, LargeOutputsStreamAndMatchTheEvaluator) {
  auto transposed = [](const Array &x) { return jnp::transpose(x) + 1.0; };
  auto rows = [](const Array &x) { return x * 2.0 - 3.0; };
  // float64 transposed rows of 2056 (whole lines); float32 rows of 2900 elements (11600 bytes:
  // most rows start off a cache line).
  const Shape square{2048, 2056}, odd{2900, 2900};
  ASSERT_GE(jx::shape_size(square) * 8, streamed_bytes);
  ASSERT_GE(jx::shape_size(odd) * 4, streamed_bytes);
  for (const auto &[f, shape, dtype] :
       {std::tuple{std::function<Array(const Array &)>(transposed), square, jx::float64},
        std::tuple{std::function<Array(const Array &)>(rows), odd, jx::float32}}) {
    SCOPED_TRACE(shape_text(shape) + " " + std::string(jx::dtype_name(dtype)));
    const Array x = distinct(shape, dtype);
    const auto compiled = jx::jit(f).lower(jx::ShapeDtypeStruct{shape, dtype}).compile();
    EXPECT_TRUE(streams(compiled));
    EXPECT_TRUE(equals_evaluator(f, x, compiled(x).data()));
  }
  // Over a 2x4 mesh: device boxes cut the transposed output's rows and columns.
  const jx::Sharding s = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("x", "y"));
  const Array x = distinct(square);
  EXPECT_TRUE(
      equals_evaluator(transposed, x, jx::jit(transposed, {.out_shardings = {s}})(x).data()));
}

TEST(StreamedStores, OnlyLargeUnreadNonBoolOutputsStream) {
  auto lower = [](const std::function<std::vector<Array>(const Array &)> &f, const Shape &shape) {
    return jx::jit(f).lower(jx::ShapeDtypeStruct{shape, jx::float64}).compile();
  };
  const Shape big{4096, 1024}, small{1024, 1024};
  EXPECT_TRUE(streams(lower([](const Array &x) { return std::vector<Array>{jnp::exp(x)}; }, big)));
  EXPECT_FALSE(
      streams(lower([](const Array &x) { return std::vector<Array>{jnp::exp(x)}; }, small)));
  EXPECT_FALSE(streams(lower([](const Array &x) { return std::vector<Array>{x > 0.0}; }, big)));
  // exp(x) is an output and a GEMM operand: a later step reads it.
  EXPECT_FALSE(streams(lower(
      [](const Array &x) {
        const Array e = jnp::exp(x);
        return std::vector<Array>{e, jnp::matmul(e, jnp::ones({1024, 8}))};
      },
      big)));
}

} // namespace
