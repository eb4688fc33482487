// jit with in_shardings and out_shardings over the 8 devices test_sharding.cpp configures: every
// device computes its shard of one global buffer, results are bit-identical to the unsharded
// program, and arguments placed otherwise than compiled for are refused.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "heat/heat_step.h"
#include "jit/plan_golden.h"
#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::P;
using jx::Sharding;

std::vector<double> values(const Array &x) { return x.to_vector<double>(); }

TEST(JitSharding, DiffSeedLayoutsMatchUnsharded) {
  Array x = jx::random::normal(jx::random::PRNGKey(0), {64, 48}, jx::float64);
  const std::vector<double> expected = values(jx::jit(seeds::calc_fd_kernel)(x));
  for (auto [rows, cols] : {std::pair{1, 1}, std::pair{8, 1}, std::pair{1, 8}}) {
    const Sharding s = seeds::diff_layout(rows, cols);
    auto compiled = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}})
                        .lower(jx::ShapeDtypeStruct{{64, 48}, jx::float64})
                        .compile();
    Array out = compiled(jx::device_put(x, s));
    EXPECT_EQ(values(out), expected) << rows << "x" << cols;
    EXPECT_TRUE(out.sharding() == s);
    EXPECT_EQ(out.addressable_shards().size(), size_t(rows * cols));
    if (rows * cols > 1) {
      EXPECT_NE(compiled.as_text().find(" dev7["), std::string::npos) << compiled.as_text();
    }
  }
}

// The placed plan: each device's box, the sharding stage's reasons and the halo rows read from
// the neighbours (golden text, tests/jit/golden).
TEST(JitSharding, DiffSeedPlacedOnEightDevicesGolden) {
  const Sharding rows = seeds::diff_layout(8, 1);
  auto compiled = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}})
                      .lower(jx::ShapeDtypeStruct{{4096, 4096}, jx::float64})
                      .compile();
  golden::expect_golden(golden::plan_of(compiled.as_text()), "diff_8x1_plan.txt");
}

TEST(JitSharding, NamedShardingOnATwoByFourMesh) {
  jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  const Sharding s = jx::NamedSharding(mesh, P("x", "y"));
  auto f = [](const Array &a) { return jnp::tanh(a) * 2 + jnp::roll(a, 3, 1); };
  Array a = jx::random::uniform(jx::random::PRNGKey(1), {30, 44}, jx::float64);
  const std::vector<double> expected = values(jx::jit(f)(a));
  Array out = jx::jit(f, {.in_shardings = {s}, .out_shardings = {s}})(jx::device_put(a, s));
  EXPECT_EQ(values(out), expected);
  // An uncommitted argument is placed as asked.
  EXPECT_EQ(values(jx::jit(f, {.in_shardings = {s}, .out_shardings = {s}})(a)), expected);
}

// A loop whose carry is placed keeps it placed: the body's kernels run per device box (halos
// read from the neighbours' boxes each step), bit for bit the unsharded loop's.
TEST(JitSharding, LoopBodiesRunOnTheirCarriesDeviceBoxes) {
  auto loop = [](const Array &u) {
    return jx::lax::fori_loop(
        0, 25, [](const Array &, const Array &v) { return heat::step(v); }, u);
  };
  Array u = jx::random::normal(jx::random::PRNGKey(4), {40, 64});
  const std::vector<double> expected = values(jx::jit(loop)(u));
  jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  const Sharding s = jx::NamedSharding(mesh, P("x", "y"));
  auto sharded = jx::jit(loop, {.in_shardings = {s}, .out_shardings = {s}});
  EXPECT_EQ(values(sharded(jx::device_put(u, s))), expected);
  const std::string text =
      sharded.lower(jx::ShapeDtypeStruct{{40, 64}, jx::float64}).compile().as_text();
  const size_t body = text.find("region 0:");
  ASSERT_NE(body, std::string::npos) << text;
  // Its boxes' rows of 16 are short: the body computes in bands of rows, one per device.
  EXPECT_NE(text.find("dev7[35:40,0:64] (sharding: output 1's sharding)", body), std::string::npos)
      << text;
}

TEST(JitSharding, SimpsonShardedAlongEitherAxis) {
  auto simpson = [](const Array &a, const Array &b) {
    return seeds::simps([](const Array &x) { return seeds::funcN(x); }, a, b, 512);
  };
  Array a = jnp::arange(0, 10, 0.1), b = a + 0.05;
  const std::vector<double> expected = values(jx::jit(simpson)(a, b));
  jx::Mesh mesh = jx::make_mesh({8}, {"d"});
  for (const P &spec : {P("d", nullptr), P(nullptr, "d")}) {
    const Sharding s = jx::NamedSharding(mesh, spec);
    Array out = jx::jit(simpson, {.out_shardings = {s}})(a, b);
    EXPECT_EQ(values(out), expected) << s.str();
  }
}

TEST(JitSharding, CallableFromFourThreads) {
  const Sharding s = seeds::diff_layout(8, 1);
  auto compiled = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}})
                      .lower(jx::ShapeDtypeStruct{{256, 64}, jx::float64})
                      .compile();
  Array x = jx::device_put(jx::random::normal(jx::random::PRNGKey(2), {256, 64}, jx::float64), s);
  const std::vector<double> expected = values(compiled(x));
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      bool all = true;
      for (int r = 0; r < 20; ++r)
        all = all && values(compiled(x)) == expected;
      ok[size_t(t)] = all;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

TEST(JitSharding, ArgumentPlacedOtherwiseIsAValueError) {
  const Sharding rows = seeds::diff_layout(8, 1), cols = seeds::diff_layout(1, 8);
  auto compiled = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}})
                      .lower(jx::ShapeDtypeStruct{{16, 16}, jx::float64})
                      .compile();
  Array x = jx::device_put(jnp::ones({16, 16}), cols);
  try {
    compiled(x);
    FAIL() << "no error";
  } catch (const jx::ValueError &e) {
    EXPECT_NE(std::string(e.what()).find("does not match the sharding"), std::string::npos)
        << e.what();
  }
}

TEST(JitSharding, ShardingCountAndRankAreChecked) {
  const Sharding s = seeds::diff_layout(8, 1);
  auto two = [](const Array &a, const Array &b) { return a + b; };
  EXPECT_THROW((jx::jit(two, {.in_shardings = {s, s, s}})
                    .lower(jx::ShapeDtypeStruct{{8, 8}, jx::float64},
                           jx::ShapeDtypeStruct{{8, 8}, jx::float64})),
               jx::ValueError);
  auto one = [](const Array &a) { return a * 2; };
  EXPECT_THROW(jx::jit(one, {.out_shardings = {s}}).lower(jx::ShapeDtypeStruct{{8}, jx::float64}),
               jx::ValueError);
}

} // namespace

namespace {

TEST(JitSharding, PlanShowsTheHaloExchangeAndItsBytes) {
  // (8, 1): each device but the first reads the row above its shard from its neighbour.
  const Sharding rows = seeds::diff_layout(8, 1), cols = seeds::diff_layout(1, 8);
  auto lower = [](const Sharding &s) {
    return jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}})
        .lower(jx::ShapeDtypeStruct{{64, 1024}, jx::float64})
        .compile();
  };
  auto by_rows = lower(rows);
  const double halo = 7 * 1024 * 8; // 7 devices, one row of 1024 doubles each
  EXPECT_NE(by_rows.as_text().find("collective-permute of %0: 57344 bytes"), std::string::npos)
      << by_rows.as_text();
  EXPECT_EQ(by_rows.cost_analysis().communication_bytes, halo);
  // (1, 8): the difference runs along each device's own columns.
  auto by_cols = lower(cols);
  EXPECT_EQ(by_cols.cost_analysis().communication_bytes, 0);
  EXPECT_EQ(by_cols.as_text().find("collective-permute"), std::string::npos) << by_cols.as_text();
}

TEST(JitSharding, ReductionAcrossShardsGathers) {
  // Every device's rows of the (8, 1)-sharded output read all of the column-sharded input.
  const Sharding rows = seeds::diff_layout(8, 1), cols = seeds::diff_layout(1, 8);
  auto f = [](const Array &a) { return a - jnp::sum(a, {.axis = 1, .keepdims = true}); };
  auto compiled = jx::jit(f, {.in_shardings = {cols}, .out_shardings = {rows}})
                      .lower(jx::ShapeDtypeStruct{{64, 64}, jx::float64})
                      .compile();
  EXPECT_GT(compiled.cost_analysis().communication_bytes, 0);
  Array x = jx::random::normal(jx::random::PRNGKey(3), {64, 64}, jx::float64);
  EXPECT_EQ(values(compiled(jx::device_put(x, cols))), values(jx::jit(f)(x)));
}

} // namespace

namespace {

TEST(JitSharding, ArgumentShardingsPropagateWithoutOptions) {
  // No in/out_shardings: a placed argument's sharding is part of the signature and its
  // placement carries to outputs of its shape, as JAX propagates it.
  const Sharding rows = seeds::diff_layout(8, 1), cols = seeds::diff_layout(1, 8);
  auto f = jx::jit([](const Array &a) { return jnp::exp(a) - a; });
  Array x = jx::random::normal(jx::random::PRNGKey(4), {64, 512}, jx::float64);
  const std::vector<double> expected = values(f(x));
  EXPECT_FALSE(f(x).committed());
  Array by_rows = f(jx::device_put(x, rows)), by_cols = f(jx::device_put(x, cols));
  EXPECT_TRUE(by_rows.sharding() == rows);
  EXPECT_TRUE(by_cols.sharding() == cols);
  EXPECT_EQ(values(by_rows), expected);
  EXPECT_EQ(values(by_cols), expected);
  EXPECT_EQ(f.cache_size(), 3u);
}

TEST(JitSharding, ShapeDtypeStructCarriesTheSharding) {
  const Sharding rows = seeds::diff_layout(8, 1);
  auto compiled = jx::jit(seeds::calc_fd_kernel)
                      .lower(jx::ShapeDtypeStruct{{64, 1024}, jx::float64, rows})
                      .compile();
  EXPECT_GT(compiled.cost_analysis().communication_bytes, 0);
  Array x = jx::random::normal(jx::random::PRNGKey(5), {64, 1024}, jx::float64);
  Array out = compiled(jx::device_put(x, rows));
  EXPECT_TRUE(out.sharding() == rows);
  EXPECT_EQ(values(out), values(jx::jit(seeds::calc_fd_kernel)(x)));
  EXPECT_THROW(compiled(jx::device_put(x, seeds::diff_layout(1, 8))), jx::ValueError);
}

} // namespace

namespace {

TEST(JitSharding, WithShardingConstraintPlacesAnIntermediate) {
  const Sharding rows = seeds::diff_layout(8, 1);
  auto f = [&](const Array &a) {
    Array e = jx::with_sharding_constraint(jnp::exp(a(jx::slice(jx::none, jx::none, -1))), rows);
    EXPECT_TRUE(e.sharding() == rows);
    return jnp::sum(e, {0});
  };
  auto compiled = jx::jit(f).lower(jx::ShapeDtypeStruct{{64, 16}, jx::float64}).compile();
  const std::string plan = compiled.as_text();
  EXPECT_NE(plan.find("kernel exp : f64[64,16] reads 0 rows=64 dev0[0:8,0:16]"), std::string::npos)
      << plan;
  Array x = jx::random::normal(jx::random::PRNGKey(6), {64, 16}, jx::float64);
  EXPECT_EQ(values(compiled(x)),
            values(jnp::sum(jnp::exp(x(jx::slice(jx::none, jx::none, -1))), {0})));
  // Outside jit it places the array, as device_put.
  EXPECT_TRUE(jx::with_sharding_constraint(x, rows).sharding() == rows);
  EXPECT_THROW(jx::with_sharding_constraint(jnp::ones({4}), rows), jx::ValueError);
}

} // namespace

namespace {

TEST(JitSharding, SplitReductionsGiveTheSameBitsOnEveryMesh) {
  // A full sum of 256 Ki elements runs as 16 partials and their sum, whatever the placement.
  auto f = [](const Array &a) { return jnp::sum(jnp::exp(a) * a); };
  Array x = jx::random::normal(jx::random::PRNGKey(7), {512, 512}, jx::float64);
  const double expected = jx::jit(f)(x).item<double>();
  for (auto [rows, cols] : {std::pair{8, 1}, std::pair{1, 8}, std::pair{2, 4}}) {
    std::vector<jx::Device> devices = jx::devices();
    const Sharding s = jx::PositionalSharding(jx::mesh_utils::create_device_mesh({8}, devices))
                           .reshape(rows, cols);
    EXPECT_EQ(jx::jit(f, {.in_shardings = {s}})(jx::device_put(x, s)).item<double>(), expected);
  }
}

} // namespace

namespace {

TEST(JitSharding, ReshardingRoundTrips) {
  // rows -> columns -> a 2x4 grid -> rows again, through computations and device_put.
  const Sharding rows = seeds::diff_layout(8, 1), cols = seeds::diff_layout(1, 8);
  const Sharding grid = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("x", "y"));
  Array x = jx::random::normal(jx::random::PRNGKey(8), {64, 128}, jx::float64);
  auto twice = jx::jit([](const Array &a) { return a * 2; },
                       {.in_shardings = {rows}, .out_shardings = {cols}});
  auto half = jx::jit([](const Array &a) { return a / 2; },
                      {.in_shardings = {cols}, .out_shardings = {grid}});
  Array y = half(twice(jx::device_put(x, rows)));
  EXPECT_TRUE(y.sharding() == grid);
  Array back = jx::device_put(y, rows);
  EXPECT_TRUE(back.sharding() == rows);
  EXPECT_EQ(values(back), values(x));
  for (const jx::Shard &shard : back.addressable_shards())
    EXPECT_EQ(values(shard.data), values(x(shard.index[0], shard.index[1])));
}

} // namespace
