// The compile driver's stages one at a time (src/compile/lower.h): each is called on the output
// of the stages before it, as lower() calls them.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "api/internal.h"
#include "compile/executable.h"
#include "compile/lower.h"
#include "ir/builder.h"
#include "passes/pipeline.h"

namespace {

using jx::Array;
using jx::Shape;
using jx::compile::ProgramPlan;
using jx::compile::ProgramStep;
using jx::sharding::Placement;
namespace jnp = jx::numpy;
namespace ir = jx::ir;

// Two devices, each half of the rows of a (rows, cols) array.
Placement halves(int64_t rows, int64_t cols) {
  return {{0, {0, 0}, {rows / 2, cols}}, {1, {rows / 2, 0}, {rows, cols}}};
}

// Stages 1-3 of lower(): the fusion plan and its placement.
struct Planned {
  std::vector<ir::NodePtr> roots;
  std::vector<jx::passes::Step> plan;
  std::vector<jx::sharding::StepPlacement> placed;
};
Planned plan_and_place(const std::vector<ir::NodePtr> &params,
                       const std::vector<ir::NodePtr> &outputs,
                       const std::vector<Placement> &placements = {},
                       const std::vector<Placement> &param_placements = {}) {
  Planned p;
  p.roots = jx::passes::optimize(outputs);
  p.plan = jx::passes::plan_steps(p.roots);
  p.placed = jx::sharding::place(p.plan, p.roots, placements, params, param_placements);
  return p;
}

size_t kernel_index(const std::vector<jx::passes::Step> &plan) {
  for (size_t i = 0; i < plan.size(); ++i)
    if (plan[i].kind == jx::passes::Step::Kind::Kernel) return i;
  ADD_FAILURE() << "no kernel";
  return 0;
}

TEST(ShardingStage, PlacedKernelGetsItsOutputsBoxesAndBoxedAxes) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array out = Array(x) * 2.0 + 1.0;
  Planned p = plan_and_place({x}, {out.node()}, {halves(64, 128)});
  const size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].boxes[1].lo, (std::vector<int64_t>{32, 0}));
  // Axis 0 is split; axis 1 is whole.
  EXPECT_EQ(p.plan[k].plan.boxed_axes & 3u, 1u);
  EXPECT_TRUE(p.placed[k].transfers.empty()); // the argument is not placed: nothing to move
}

TEST(ShardingStage, OutputsLiveWhereDeclaredElseWithAPlacedArgumentOfTheirShape) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  auto y = ir::parameter(1, jx::float64, {64, 128});
  const Array a = Array(x) + 1.0, b = jnp::sum(Array(x), 0), c = Array(y) * 2.0;
  const Placement declared = {{0, {0, 0}, {64, 64}}, {1, {0, 64}, {64, 128}}};
  const std::vector<int> like = jx::sharding::outputs_placed_like_params(
      {a.node(), b.node(), c.node()}, {{}, {}, declared}, {x, y}, {{}, halves(64, 128)});
  ASSERT_EQ(like.size(), 3u);
  EXPECT_EQ(like[0], 1);  // y's shape, y placed
  EXPECT_EQ(like[1], -1); // no placed argument of its shape: whole
  EXPECT_EQ(like[2], -1); // declared: placed as declared
}

TEST(ShardingStage, HaloReadFromANeighbourIsACollectivePermute) {
  const int64_t rows = 64, cols = 128;
  auto x = ir::parameter(0, jx::float64, {rows, cols});
  // out[i] = x[i + 1] - x[i] along axis 0, zero padded: each half reads one row of the other.
  Array xa(x);
  Array shifted = jnp::pad(xa[jx::slice(1)], {{0, 1}, {0, 0}});
  Array out = shifted - xa;
  Planned p = plan_and_place({x}, {out.node()}, {halves(rows, cols)}, {halves(rows, cols)});
  const size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].transfers.size(), 1u);
  EXPECT_STREQ(p.placed[k].transfers[0].collective, "collective-permute");
  EXPECT_EQ(p.placed[k].transfers[0].bytes, double(cols * 8)); // device 0 reads row 32
}

TEST(ShardingStage, ShortInnerRunsAreComputedInRowBands) {
  // Columns cut into 8 runs of 16: computed as 8 bands of rows instead.
  Placement columns;
  for (int d = 0; d < 8; ++d)
    columns.push_back({d, {0, 16 * d}, {64, 16 * (d + 1)}});
  const Placement boxes = jx::sharding::compute_boxes(columns, {64, 128});
  ASSERT_EQ(boxes.size(), 8u);
  for (const auto &b : boxes)
    EXPECT_EQ(b.hi[1] - b.lo[1], 128);
}

TEST(ShardingStage, AcrossProcessesRowBandsStayInsideEachProcess) {
  // Columns cut into 8 runs of 16 over 2 processes of 4 devices: each process's 64 columns in
  // bands of its rows, so nothing crosses processes; runs of 8 per process stay whole rows.
  Placement columns;
  for (int d = 0; d < 8; ++d)
    columns.push_back({d, {0, 16 * d}, {64, 16 * (d + 1)}});
  const Placement boxes = jx::sharding::compute_boxes(columns, {64, 128}, 4);
  ASSERT_EQ(boxes.size(), 8u);
  for (const auto &b : boxes) {
    EXPECT_EQ(b.lo[1], b.device < 4 ? 0 : 64);
    EXPECT_EQ(b.hi[1] - b.lo[1], 64);
    EXPECT_EQ(b.hi[0] - b.lo[0], 16);
  }
  Placement narrow;
  for (int d = 0; d < 8; ++d)
    narrow.push_back({d, {0, 8 * d}, {64, 8 * (d + 1)}});
  for (const auto &b : jx::sharding::compute_boxes(narrow, {64, 64}, 4))
    EXPECT_EQ(b.hi[1] - b.lo[1], 64);
}

TEST(ShardingStage, IntermediateFollowsItsPlacedInputThroughKeptAxes) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array y = jnp::sum(Array(x) * 2.0, 1); // f64[64]: axis 0 of x passes through
  Planned p = plan_and_place({x}, {y.node()}, {}, {halves(64, 128)});
  const size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].boxes[0].hi, (std::vector<int64_t>{32}));
  EXPECT_EQ(p.placed[k].boxes[1].lo, (std::vector<int64_t>{32}));
  EXPECT_EQ(p.placed[k].source, 0);
  EXPECT_EQ(p.placed[k].why, "through axes 0<-0");
  EXPECT_TRUE(p.placed[k].transfers.empty()); // each device reduces its own rows
}

TEST(ShardingStage, TransposeMapsTheSplitAxis) {
  auto x = ir::parameter(0, jx::float64, {256, 128});
  Array y = jnp::exp(jnp::transpose(Array(x))); // f64[128, 256]: x's rows are y's columns
  Planned p = plan_and_place({x}, {y.node()}, {}, {halves(256, 128)});
  const size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].why, "through axes 1<-0");
  EXPECT_EQ(p.placed[k].boxes[1].lo, (std::vector<int64_t>{0, 128}));
  EXPECT_EQ(p.placed[k].boxes[1].hi, (std::vector<int64_t>{128, 256}));
  EXPECT_TRUE(p.placed[k].transfers.empty());
}

TEST(ShardingStage, SliceShiftsTheSplitAndAStencilReadsItsHalo) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array xa(x);
  // y[i] = exp(x[i + 1]): device 1's rows 32..63 of x are y's rows 31..62.
  Array y = jnp::exp(xa[jx::slice(1)]);
  Planned p = plan_and_place({x}, {y.node()}, {}, {halves(64, 128)});
  size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].why, "through axes 0<-0+1");
  EXPECT_EQ(p.placed[k].boxes[0].hi[0], 31);
  EXPECT_EQ(p.placed[k].boxes[1].lo[0], 31);
  EXPECT_EQ(p.placed[k].boxes[1].hi[0], 63);
  EXPECT_TRUE(p.placed[k].transfers.empty());
  // z[i] = x[i + 1] - x[i]: split where x is, device 0 reads row 32 from device 1.
  Array z = jnp::sin(xa[jx::slice(1)] - xa[jx::slice(jx::none, -1)]);
  p = plan_and_place({x}, {z.node()}, {}, {halves(64, 128)});
  k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].why, "through axes 0<-0");
  EXPECT_EQ(p.placed[k].boxes[0].hi[0], 32);
  EXPECT_EQ(p.placed[k].boxes[1].hi[0], 63);
  ASSERT_EQ(p.placed[k].transfers.size(), 1u);
  EXPECT_STREQ(p.placed[k].transfers[0].collective, "collective-permute");
  EXPECT_EQ(p.placed[k].transfers[0].bytes, 128.0 * 8);
}

TEST(ShardingStage, ReductionOverTheSplitAxisIsPartialsThenAnAllReduce) {
  // Large enough for split_reductions: 16 partial sums over blocks of rows, then their sum.
  const int64_t rows = 2048, cols = 64;
  auto x = ir::parameter(0, jx::float64, {rows, cols});
  Array y = jnp::sum(Array(x), 0);
  Planned p = plan_and_place({x}, {y.node()}, {}, {halves(rows, cols)});
  std::vector<size_t> kernels;
  for (size_t i = 0; i < p.plan.size(); ++i)
    if (p.plan[i].kind == jx::passes::Step::Kind::Kernel) kernels.push_back(i);
  ASSERT_EQ(kernels.size(), 2u);
  // The partials: each device sums blocks of its own rows, reading nothing of the other's.
  const auto &partials = p.placed[kernels[0]];
  ASSERT_EQ(partials.boxes.size(), 2u);
  EXPECT_EQ(partials.boxes[0].hi[0], 8);
  EXPECT_TRUE(partials.transfers.empty());
  // The combine: each device sums its half of the columns over all 16 partials, 8 of them the
  // other device's.
  const auto &combine = p.placed[kernels[1]];
  ASSERT_EQ(combine.boxes.size(), 2u);
  ASSERT_EQ(combine.transfers.size(), 1u);
  EXPECT_STREQ(combine.transfers[0].collective, "all-reduce");
  EXPECT_EQ(combine.transfers[0].bytes, 2.0 * 8 * (cols / 2) * 8);
}

TEST(ShardingStage, ValueNoSplitAxisReachesIsComputedInRowBands) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array y = jnp::sum(Array(x), 0); // f64[128]: the split axis is reduced away
  Planned p = plan_and_place({x}, {y.node()}, {}, {halves(64, 128)});
  const size_t k = kernel_index(p.plan);
  ASSERT_EQ(p.placed[k].boxes.size(), 2u);
  EXPECT_EQ(p.placed[k].boxes[0].hi, (std::vector<int64_t>{64}));
  EXPECT_EQ(p.placed[k].source, -1);
  ASSERT_EQ(p.placed[k].transfers.size(), 1u);
  EXPECT_STREQ(p.placed[k].transfers[0].collective, "all-reduce");
  // Each device reads the other's 32 rows of its 64 columns.
  EXPECT_EQ(p.placed[k].transfers[0].bytes, 2.0 * 32 * 64 * 8);
}

// Whether boxes cover every element of shape exactly once.
bool partitions(const Placement &boxes, const Shape &shape) {
  int64_t total = 0, size = 1;
  for (int64_t d : shape)
    size *= d;
  for (size_t i = 0; i < boxes.size(); ++i) {
    int64_t n = 1;
    for (size_t a = 0; a < shape.size(); ++a)
      n *= std::max<int64_t>(0, boxes[i].hi[a] - boxes[i].lo[a]);
    total += n;
    for (size_t j = 0; j < i; ++j) {
      bool overlap = n > 0;
      for (size_t a = 0; a < shape.size(); ++a)
        overlap = overlap && std::max(boxes[i].lo[a], boxes[j].lo[a]) <
                                 std::min(boxes[i].hi[a], boxes[j].hi[a]);
      if (overlap) return false;
    }
  }
  return total == size;
}

// Every kernel of programs reading a placed argument through slices, pads, stencils,
// transposes, broadcasts, reductions and concatenations, on meshes with uneven and empty shards:
// its boxes cover its output exactly once, and the values are the unplaced program's bits.
TEST(ShardingStage, PropagatedBoxesPartitionEveryValueAndKeepItsBits) {
  const std::vector<std::function<Array(const Array &)>> programs = {
      [](const Array &x) { return jnp::exp(x[jx::slice(1)]) * 2.0; },
      [](const Array &x) {
        return jnp::pad(x, {{2, 1}, {0, 3}}) + 1.0;
      },
      [](const Array &x) {
        return jnp::cos(x[jx::slice(2)] - x[jx::slice(jx::none, -2)]) * jnp::sum(x, 0);
      },
      [](const Array &x) { return jnp::transpose(jnp::tanh(x)) + jnp::sum(x, 1); },
      [](const Array &x) {
        return jnp::concatenate({x, x * 2.0}, 1) - 1.0;
      },
      [](const Array &x) { return jnp::sum(jnp::exp(x[jx::slice(jx::none, jx::none, 2)]), 0); },
      [](const Array &x) { return jnp::max(jnp::outer(jnp::sum(x, 1), jnp::sum(x, 0)), 1); },
  };
  const std::vector<std::pair<Shape, Placement>> meshes = {
      {{37, 70}, {{0, {0, 0}, {19, 70}}, {1, {19, 0}, {37, 70}}}},
      {{40, 100},
       {{0, {0, 0}, {20, 50}},
        {1, {0, 50}, {20, 100}},
        {2, {20, 0}, {40, 50}},
        {3, {20, 50}, {40, 100}}}},
      // 3 rows over 8 devices: JAX's ceil tiling leaves 5 shards empty.
      {{3, 130},
       {{0, {0, 0}, {1, 130}},
        {1, {1, 0}, {2, 130}},
        {2, {2, 0}, {3, 130}},
        {3, {3, 0}, {3, 130}},
        {4, {3, 0}, {3, 130}},
        {5, {3, 0}, {3, 130}},
        {6, {3, 0}, {3, 130}},
        {7, {3, 0}, {3, 130}}}},
  };
  for (size_t m = 0; m < meshes.size(); ++m)
    for (size_t f = 0; f < programs.size(); ++f) {
      const auto &[shape, placement] = meshes[m];
      auto x = ir::parameter(0, jx::float64, shape);
      const ir::NodePtr out = programs[f](Array(x)).node();
      Planned p = plan_and_place({x}, {out}, {}, {placement});
      for (size_t i = 0; i < p.plan.size(); ++i)
        if (p.plan[i].kind == jx::passes::Step::Kind::Kernel) {
          EXPECT_TRUE(partitions(p.placed[i].boxes, p.plan[i].plan.roots[0]->shape))
              << "mesh " << m << ", program " << f << ", step " << i << ": " << p.placed[i].why;
        }
      Array input = jx::random::normal(jx::random::PRNGKey(int(m * 10 + f)), shape, jx::float64);
      const auto arg = jx::api::realize(input.node());
      const auto whole = jx::compile::Executable({x}, {out}).run({arg})[0];
      const auto placed =
          jx::compile::Executable({x}, {out}, true, {}, {}, {placement}).run({arg})[0];
      const size_t bytes = size_t(out->size()) * 8;
      EXPECT_EQ(std::memcmp(whole->data(), placed->data(), bytes), 0)
          << "mesh " << m << ", program " << f;
    }
}

TEST(ShardingStage, UnplacedProgramHasNoBoxes) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array out = jnp::exp(Array(x));
  Planned p = plan_and_place({x}, {out.node()});
  for (const auto &s : p.placed) {
    EXPECT_TRUE(s.boxes.empty());
    EXPECT_TRUE(s.transfers.empty());
  }
}

TEST(BufferStage, IntermediatesWithDisjointLifetimesShareTheArena) {
  // A chain of reductions, each read only by the next: a is dead once b is written, so c can
  // take a's place in the arena.
  auto x = ir::parameter(0, jx::float64, {256, 256});
  Array a = jnp::sum(Array(x) * 2.0, 1);
  Array b = jnp::sum(jnp::outer(a, a) + 1.0, 0);
  Array c = jnp::sum(jnp::outer(b, b) * 3.0, 0);
  Array d = jnp::sum(jnp::outer(c, c) - 1.0, 0);
  Planned p = plan_and_place({x}, {d.node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {});
  ASSERT_EQ(program.output_slots.size(), 1u);
  std::vector<int64_t> offsets;
  for (int64_t o : program.arena_offset)
    if (o >= 0) offsets.push_back(o);
  ASSERT_GE(offsets.size(), 2u);
  EXPECT_LT(program.arena_bytes, program.intermediate_bytes);
  // Every intermediate is freed by exactly one step, and no output is.
  std::vector<int> freed;
  for (const ProgramStep &s : program.steps)
    freed.insert(freed.end(), s.run.frees.begin(), s.run.frees.end());
  std::sort(freed.begin(), freed.end());
  EXPECT_TRUE(std::adjacent_find(freed.begin(), freed.end()) == freed.end());
  EXPECT_EQ(std::count(freed.begin(), freed.end(), program.output_slots[0]), 0);
}

// The arena offsets of the contractions' outputs and of the kernel's, in step order.
std::pair<std::vector<int64_t>, int64_t> contraction_and_kernel_offsets(const ProgramPlan &p) {
  std::vector<int64_t> contractions;
  int64_t kernel = -2;
  for (const ProgramStep &s : p.steps) {
    if (s.kind == ProgramStep::Kind::Contraction)
      contractions.push_back(p.arena_offset[size_t(s.run.outs[0])]);
    if (s.kind == ProgramStep::Kind::Kernel) kernel = p.arena_offset[size_t(s.run.outs[0])];
  }
  return {contractions, kernel};
}

TEST(BufferStage, ElementwiseKernelWritesOverTheInputThatDiesAtIt) {
  const int64_t n = 64; // 2n^3 flops: worth a BLAS call
  auto x = ir::parameter(0, jx::float64, {n, n}), w = ir::parameter(1, jx::float64, {n, n});
  Array a = jnp::matmul(Array(x), Array(w));
  // exp(a) * 2 reads a only where it writes, and a dies there: one buffer holds both. Through a
  // transpose it also reads other elements than it writes: a buffer of its own.
  Array in_place = jnp::matmul(jnp::exp(a) * 2.0, Array(w));
  Array moved = jnp::matmul(a + jnp::transpose(a), Array(w));
  for (const auto &[out, shares] : {std::pair{in_place, true}, std::pair{moved, false}}) {
    Planned p = plan_and_place({x, w}, {out.node()});
    ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x, w}, p.roots, {});
    const auto [contractions, kernel] = contraction_and_kernel_offsets(program);
    ASSERT_EQ(contractions.size(), 2u);
    ASSERT_GE(contractions[0], 0);
    ASSERT_GE(kernel, 0);
    EXPECT_EQ(kernel == contractions[0], shares);
    EXPECT_EQ(program.arena_bytes, size_t(shares ? 1 : 2) * n * n * 8);
  }
  // The values: against the same products as loops.
  std::vector<double> xv(n * n), wv(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    xv[i] = std::sin(double(i)) * 0.1;
    wv[i] = std::cos(double(i) * 0.7) * 0.1;
  }
  auto product = [&](const std::vector<double> &l, const std::vector<double> &r) {
    std::vector<double> o(n * n, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j)
          o[i * n + j] += l[i * n + k] * r[k * n + j];
    return o;
  };
  std::vector<double> e = product(xv, wv);
  for (double &v : e)
    v = std::exp(v) * 2.0;
  const std::vector<double> expected = product(e, wv);
  Array got = jx::jit([](const Array &x, const Array &w) {
    return jnp::matmul(jnp::exp(jnp::matmul(x, w)) * 2.0, w);
  })(jnp::array(xv).reshape({n, n}), jnp::array(wv).reshape({n, n}));
  const std::vector<double> values = got.to_vector<double>();
  for (int64_t i = 0; i < n * n; ++i)
    EXPECT_NEAR(values[size_t(i)], expected[size_t(i)], 1e-12 * std::fabs(expected[size_t(i)]))
        << i;
}

TEST(BufferStage, WiderElementsNeverWriteOverTheirInput) {
  // any(isnan(x), 1) is bool[8] and exp of it float64[8]: one cache line each, but each float64
  // written in place would overwrite seven bools not yet read (found by the random vmap test).
  auto x = ir::parameter(0, jx::float64, {8, 2});
  auto f = [](const Array &x) {
    Array y = jnp::exp(jnp::any(jnp::isnan(x), 1));
    return jnp::sum(jnp::outer(y, y), 0);
  };
  Planned p = plan_and_place({x}, {f(Array(x)).node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {});
  std::vector<int64_t> offsets;
  for (const ProgramStep &s : program.steps)
    if (s.kind == ProgramStep::Kind::Kernel && program.arena_offset[size_t(s.run.outs[0])] >= 0)
      offsets.push_back(program.arena_offset[size_t(s.run.outs[0])]);
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_NE(offsets[0], offsets[1]);
  const double nan = std::nan("");
  Array values = jnp::array(
      std::vector<double>{nan, 1, 2, 3, 4, nan, 6, 7, 8, 9, 10, 11, nan, nan, 14, 15}, Shape{8, 2});
  const double e = std::exp(1.0), total = 3 * e + 5; // y = (e, 1, e, 1, 1, 1, e, 1)
  const std::vector<double> expected = {e * total, total, e * total, total,
                                        total,     total, e * total, total};
  const std::vector<double> got = jx::jit(f)(values).to_vector<double>();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(got[i], expected[i]) << i;
}

TEST(BufferStage, DonatedArgumentIsTakenByAnOutputOfItsSize) {
  auto x = ir::parameter(0, jx::float64, {1000});
  Array out = jnp::sqrt(Array(x)) + 1.0;
  Planned p = plan_and_place({x}, {out.node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {0});
  bool donated = false;
  for (const ProgramStep &s : program.steps)
    donated = donated || (!s.run.donors.empty() && s.run.donors[0] == 0);
  EXPECT_TRUE(donated);
  // Without donation, no step takes it.
  program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {});
  for (const ProgramStep &s : program.steps)
    EXPECT_TRUE(s.run.donors.empty());
}

TEST(BufferStage, LargeUnreadOutputsAreStreamedSmallOnesAreNot) {
  auto big = ir::parameter(0, jx::float64, {int64_t(8) << 20}); // 64 MiB
  auto small = ir::parameter(1, jx::float64, {1024});
  Array a = Array(big) + 1.0, b = Array(small) * 3.0;
  for (const auto &[param, node, streamed] :
       {std::tuple{big, a.node(), true}, std::tuple{small, b.node(), false}}) {
    Planned p = plan_and_place({param}, {node});
    jx::compile::assign_buffers(p.plan, p.placed, {param}, p.roots, {});
    EXPECT_EQ(p.plan[kernel_index(p.plan)].plan.stream_outputs, streamed);
  }
}

TEST(CostStage, CountsFlopsTranscendentalsAndBytes) {
  auto x = ir::parameter(0, jx::float64, {1000});
  Array out = jnp::exp(Array(x)) * 2.0 + 1.0;
  Planned p = plan_and_place({x}, {out.node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {});
  const jx::compile::Cost cost = jx::compile::cost_analysis(p.plan, program);
  EXPECT_EQ(cost.flops, 2000);
  EXPECT_EQ(cost.transcendentals, 1000);
  EXPECT_EQ(cost.bytes_accessed, 2 * 1000 * 8);
  EXPECT_EQ(cost.communication_bytes, 0);
}

TEST(CostStage, ContractionCountsTwoFlopsPerMultiplyAdd) {
  auto a = ir::parameter(0, jx::float32, {64, 32});
  auto b = ir::parameter(1, jx::float32, {32, 48});
  Array out = jnp::matmul(Array(a), Array(b));
  Planned p = plan_and_place({a, b}, {out.node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {a, b}, p.roots, {});
  EXPECT_EQ(jx::compile::cost_analysis(p.plan, program).flops, 2.0 * 64 * 48 * 32);
}

TEST(RuntimeProgramStage, StepKindsSlotsAndSizes) {
  auto x = ir::parameter(0, jx::float32, {10, 20});
  Array out = jnp::sum(Array(x) * 2.0f, 0);
  Planned p = plan_and_place({x}, {out.node()});
  ProgramPlan program = jx::compile::assign_buffers(p.plan, p.placed, {x}, p.roots, {});
  jx::compile::compile_kernels(program);
  const jx::runtime::Program rp = jx::compile::runtime_program(program, {x});
  ASSERT_EQ(rp.steps.size(), program.steps.size());
  EXPECT_EQ(rp.argument_bytes, (std::vector<int64_t>{10 * 20 * 4}));
  EXPECT_EQ(rp.outputs, program.output_slots);
  EXPECT_EQ(rp.slot_count, program.slot_count);
  ASSERT_EQ(rp.steps.size(), 2u);
  EXPECT_EQ(rp.steps[0].kind, jx::runtime::Step::Kind::Argument);
  EXPECT_EQ(rp.steps[1].kind, jx::runtime::Step::Kind::Kernel);
  EXPECT_NE(rp.steps[1].kernel, nullptr);
  EXPECT_EQ(rp.steps[1].out_bytes, (std::vector<size_t>{20 * 4}));
}

TEST(Lower, RunsEveryStageAndTheExecutableRunsItsProgram) {
  auto x = ir::parameter(0, jx::float64, {64, 128});
  Array out = jnp::tanh(Array(x)) * 3.0;
  const jx::compile::Lowered lowered = jx::compile::lower({x}, {out.node()}, {});
  const ProgramPlan &program = lowered.plan;
  ASSERT_FALSE(program.steps.empty());
  EXPECT_FALSE(program.processes);                               // one process: no stage 6
  EXPECT_NE(program.steps.back().kernel, nullptr);               // stage 7 ran
  EXPECT_EQ(program.cost.transcendentals, 64 * 128);             // stage 8 ran
  ASSERT_EQ(lowered.program.steps.size(), program.steps.size()); // stage 9 ran
  EXPECT_EQ(lowered.program.steps.back().kernel, program.steps.back().kernel->fn);
  // The unfused baseline skips the passes and fusion: one kernel per op.
  const jx::compile::Lowered unfused = jx::compile::lower({x}, {out.node()}, {.fuse = false});
  EXPECT_GT(unfused.plan.steps.size(), program.steps.size());
}

} // namespace
