// Placed kernels: each device computes its box of the output (one global buffer), and the values
// never depend on the placement.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <sstream>

#include "api/internal.h"
#include "compile/executable.h"
#include "ir/builder.h"
#include "seeds.h"

namespace {

using jx::Array;
using jx::compile::Executable;
using jx::sharding::DeviceBox;
using jx::sharding::Placement;
namespace jnp = jx::numpy;

// mesh_rows x mesh_cols devices over a 2-D array, device d at (d / mesh_cols, d % mesh_cols).
Placement grid(int64_t rows, int64_t cols, int64_t mesh_rows, int64_t mesh_cols) {
  Placement p;
  for (int64_t d = 0; d < mesh_rows * mesh_cols; ++d) {
    const int64_t r = d / mesh_cols, c = d % mesh_cols;
    p.push_back({int(d),
                 {rows * r / mesh_rows, cols * c / mesh_cols},
                 {rows * (r + 1) / mesh_rows, cols * (c + 1) / mesh_cols}});
  }
  return p;
}

std::vector<double> values(const jx::runtime::BufferPtr &b, int64_t n) {
  return {b->as<double>(), b->as<double>() + n};
}

// Every kernel and gemm step of a placed plan lists its device boxes.
void expect_every_step_placed(const std::string &plan) {
  std::istringstream lines(plan);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("%") && (line.find("= kernel ") != std::string::npos ||
                                  line.find("= gemm ") != std::string::npos)) {
      EXPECT_NE(line.find(" dev"), std::string::npos) << line << "\n" << plan;
    }
  }
}

class Placed : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(Placed, DiffSeedMatchesUnplacedBitForBit) {
  const auto [mr, mc] = GetParam();
  const int64_t rows = 67, cols = 45; // not divisible: boxes of unequal sizes
  auto param = jx::ir::parameter(0, jx::float64, {rows, cols});
  Array out = seeds::calc_fd_kernel(Array(param));
  Array x = jx::random::normal(jx::random::PRNGKey(0), {rows, cols}, jx::float64);
  auto input = jx::api::realize(x.node());
  Executable whole({param}, {out.node()});
  Executable placed({param}, {out.node()}, true, {}, {grid(rows, cols, mr, mc)});
  EXPECT_EQ(values(placed.run({input})[0], rows * cols),
            values(whole.run({input})[0], rows * cols));
  if (mr * mc > 1) {
    EXPECT_NE(placed.as_text().find(" dev1["), std::string::npos) << placed.as_text();
  }
  expect_every_step_placed(placed.as_text());
}

TEST_P(Placed, SimpsonMatchesUnplacedBitForBit) {
  const auto [mr, mc] = GetParam();
  auto a = jx::ir::parameter(0, jx::float64, {100});
  auto b = jx::ir::parameter(1, jx::float64, {100});
  Array out = seeds::simps([](const Array &x) { return seeds::funcN(x); }, Array(a), Array(b), 512);
  Array av = jnp::arange(0, 10, 0.1), bv = av + 0.05;
  std::vector<jx::runtime::BufferPtr> args{jx::api::realize(av.node()),
                                           jx::api::realize(bv.node())};
  Executable whole({a, b}, {out.node()});
  Executable placed({a, b}, {out.node()}, true, {}, {grid(200, 100, mr, mc)});
  EXPECT_EQ(values(placed.run(args)[0], 200 * 100), values(whole.run(args)[0], 200 * 100));
  expect_every_step_placed(placed.as_text());
}

INSTANTIATE_TEST_SUITE_P(Meshes, Placed,
                         ::testing::Values(std::pair{1, 1}, std::pair{8, 1}, std::pair{1, 8},
                                           std::pair{2, 4}, std::pair{3, 1}, std::pair{1, 3}));

TEST(Placement, ReplicasComputeOnce) {
  auto param = jx::ir::parameter(0, jx::float64, {16});
  Array out = jnp::exp(Array(param));
  Placement replicated;
  for (int d = 0; d < 4; ++d)
    replicated.push_back({d, {0}, {16}});
  Executable placed({param}, {out.node()}, true, {}, {replicated});
  // One box, the whole output, and no split axes compiled in.
  EXPECT_NE(placed.as_text().find(" dev0[0:16] (sharding: output 0's sharding)"), std::string::npos)
      << placed.as_text();
  EXPECT_EQ(placed.as_text().find(" dev1"), std::string::npos) << placed.as_text();
  EXPECT_TRUE(placed.program().steps.back().boxes.empty());
}

} // namespace

namespace {

TEST(Placement, ShortInnermostRunsBecomeRowBands) {
  // 1x8 over 100 columns: runs of 12 or 13 elements. The devices compute bands of whole rows.
  auto x = jx::ir::parameter(0, jx::float64, {200, 100});
  Array out = jnp::exp(Array(x));
  Executable placed({x}, {out.node()}, true, {}, {grid(200, 100, 1, 8)});
  const std::string text = placed.as_text();
  EXPECT_NE(text.find(" dev0[0:25,0:100] dev1[25:50,0:100]"), std::string::npos) << text;
  // 1x8 over 4096 columns: runs of 512, boxes as placed.
  auto wide = jx::ir::parameter(0, jx::float64, {16, 4096});
  Array wide_out = jnp::exp(Array(wide));
  Executable columns({wide}, {wide_out.node()}, true, {}, {grid(16, 4096, 1, 8)});
  EXPECT_NE(columns.as_text().find(" dev1[0:16,512:1024]"), std::string::npos) << columns.as_text();
}

} // namespace
