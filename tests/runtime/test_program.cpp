// runtime::run on programs written by hand: what the JIT (and later AOT objects) hand the runtime,
// with no LLVM involved.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "runtime/program.h"
#include "runtime/threefry.h"

namespace {

using jx::runtime::BufferPtr;
using jx::runtime::Program;
using jx::runtime::Step;

// out[i] = in[i] * literal over rows [box[0], box[1]) of a 1-D array.
void scale(const int64_t *box, void *const *buffers) {
  auto *out = static_cast<double *>(buffers[0]);
  const auto *in = static_cast<const double *>(buffers[1]);
  const double factor = std::bit_cast<double>(static_cast<const uint64_t *>(buffers[2])[0]);
  for (int64_t i = box[0]; i < box[1]; ++i)
    out[i] = in[i] * factor;
}

Step kernel_step(int in, int out, double factor, int64_t n) {
  Step s{.kind = Step::Kind::Kernel, .outs = {out}, .out_bytes = {size_t(n) * sizeof(double)}};
  s.kernel = &scale;
  s.inputs = {in};
  s.literals = {std::bit_cast<uint64_t>(factor)};
  s.extent = {n};
  s.outer = n;
  s.grain = 16;
  return s;
}

BufferPtr iota(int64_t n) {
  BufferPtr b = jx::runtime::make_buffer(size_t(n) * sizeof(double));
  for (int64_t i = 0; i < n; ++i)
    b->as<double>()[i] = double(i);
  return b;
}

TEST(RuntimeProgram, ChainThroughTheArena) {
  // x -> (x * 2, in the arena) -> * 3 (the output).
  const int64_t n = 1000;
  Program p;
  p.slot_count = 3;
  p.steps.push_back({.kind = Step::Kind::Argument, .outs = {0}});
  p.steps.push_back(kernel_step(0, 1, 2.0, n));
  p.steps.push_back(kernel_step(1, 2, 3.0, n));
  p.steps[2].frees = {1};
  p.outputs = {2};
  p.arena_offset = {-1, 0, -1};
  p.arena_bytes = size_t(n) * sizeof(double);
  std::vector<BufferPtr> out = jx::runtime::run(p, {iota(n)});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[0]->as<double>()[i], 6.0 * double(i));
}

TEST(RuntimeProgram, TasksCoverTheirBoxesOnly) {
  // Two devices' boxes, [0, 300) and [300, 700); rows from 700 on are nobody's and stay 0.
  const int64_t n = 1000;
  Program p;
  p.slot_count = 2;
  p.steps.push_back({.kind = Step::Kind::Argument, .outs = {0}});
  p.steps.push_back(kernel_step(0, 1, -1.0, n));
  p.steps[1].tasks = {0, 300, 300, 700};
  p.outputs = {1};
  p.arena_offset = {-1, -1};
  BufferPtr x = iota(n);
  BufferPtr out = jx::runtime::run(p, {x})[0];
  for (int64_t i = 0; i < 700; ++i)
    ASSERT_EQ(out->as<double>()[i], -double(i));
}

// Device boxes that tile a rectangle split as that rectangle, by whole rows (a sharding's column
// strips, 4 KiB of a row each, would stream page by page); boxes that overlap (replicas) or leave
// a gap split box by box, none past its box.
TEST(RuntimeProgram, BoxesTilingARectangleSplitByWholeRows) {
  using jx::runtime::split_boxes;
  auto covered = [](const std::vector<int64_t> &tasks) {
    std::vector<int> count(64 * 32, 0);
    for (size_t t = 0; t < tasks.size(); t += 4)
      for (int64_t i = tasks[t]; i < tasks[t + 1]; ++i)
        for (int64_t j = tasks[t + 2]; j < tasks[t + 3]; ++j)
          ++count[size_t(i * 32 + j)];
    return count;
  };
  const std::vector<int64_t> strips{0, 64, 0, 8, 0, 64, 8, 16, 0, 64, 16, 24, 0, 64, 24, 32};
  const std::vector<int64_t> tasks = split_boxes(strips, 2, 1 << 10, 2);
  ASSERT_GT(tasks.size(), 4u);
  for (size_t t = 0; t < tasks.size(); t += 4) {
    EXPECT_EQ(tasks[t + 2], 0);
    EXPECT_EQ(tasks[t + 3], 32);
  }
  EXPECT_EQ(covered(tasks), std::vector<int>(64 * 32, 1));
  // Replicated boxes, and boxes with a gap between them: their own tasks.
  const std::vector<int64_t> replicas{0, 64, 0, 32, 0, 64, 0, 32}, gap{0, 64, 0, 8, 0, 64, 16, 24};
  for (const auto &boxes : {replicas, gap}) {
    const std::vector<int64_t> own = split_boxes(boxes, 2, 1 << 10, 2);
    for (size_t t = 0; t < own.size(); t += 4)
      EXPECT_TRUE((own[t + 2] == 0 && own[t + 3] == boxes[3]) ||
                  (own[t + 2] == boxes[6] && own[t + 3] == boxes[7]));
  }
  const std::vector<int> twice = covered(split_boxes(replicas, 2, 1 << 10, 2));
  EXPECT_EQ(twice, std::vector<int>(64 * 32, 2));
}

TEST(RuntimeProgram, ValuesAndFills) {
  Program p;
  p.slot_count = 2;
  BufferPtr constant = iota(4);
  p.steps.push_back(
      {.kind = Step::Kind::Value, .outs = {0}, .value = [constant] { return constant; }});
  p.steps.push_back({.kind = Step::Kind::Fill,
                     .outs = {1},
                     .out_bytes = {4 * sizeof(double)},
                     .key_hi = 0,
                     .key_lo = 42,
                     .extent = {4}});
  p.outputs = {0, 1};
  p.arena_offset = {-1, -1};
  std::vector<BufferPtr> out = jx::runtime::run(p, {});
  EXPECT_EQ(out[0], constant);
  std::vector<double> expected(4);
  jx::random_impl::uniform01({0, 42}, {4}, jx::DType::float64, expected.data());
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[1]->as<double>()[i], expected[size_t(i)]);
}

TEST(RuntimeProgram, ResultsIntoTheCallersBuffers) {
  // Outputs: a kernel's (written in place), the argument itself and the kernel's again (copied).
  const int64_t n = 100;
  Program p;
  p.slot_count = 2;
  p.steps.push_back({.kind = Step::Kind::Argument, .outs = {0}});
  p.steps.push_back(kernel_step(0, 1, 2.0, n));
  p.outputs = {1, 0, 1};
  p.arena_offset = {-1, -1};
  std::vector<double> a(n), b(n), c(n);
  auto borrow = [&](std::vector<double> &v) {
    return jx::runtime::Buffer::borrow(v.data(), v.size() * sizeof(double));
  };
  std::vector<BufferPtr> results{borrow(a), borrow(b), borrow(c)};
  std::vector<BufferPtr> out = jx::runtime::run(p, {iota(n)}, results);
  EXPECT_EQ(out, results);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(a[size_t(i)], 2.0 * double(i));
    ASSERT_EQ(b[size_t(i)], double(i));
    ASSERT_EQ(c[size_t(i)], 2.0 * double(i));
  }
}

TEST(RuntimeProgram, LargeFillsSplitAcrossThePoolGiveTheSameBits) {
  // Pieces of the pool's choosing, not threefry's 512-element chunks.
  const int64_t n = 300001;
  Program p;
  p.slot_count = 1;
  p.steps.push_back({.kind = Step::Kind::Fill,
                     .outs = {0},
                     .out_bytes = {size_t(n) * sizeof(float)},
                     .key_hi = 3,
                     .key_lo = 9,
                     .dtype = jx::DType::float32,
                     .extent = {n}});
  p.outputs = {0};
  p.arena_offset = {-1};
  BufferPtr out = jx::runtime::run(p, {})[0];
  std::vector<float> expected(static_cast<size_t>(n));
  jx::random_impl::uniform01({3, 9}, {n}, jx::DType::float32, expected.data());
  EXPECT_EQ(std::memcmp(out->data(), expected.data(), expected.size() * sizeof(float)), 0);
}

} // namespace
