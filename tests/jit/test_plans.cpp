// Golden texts of the two seeds (plan_golden.h; the diff seed placed on eight devices is in
// tests/sharding): Simpson's graph after the passes and its kernel plan, the diff seed's plan;
// and the structural promises behind them: both funcN variants compile to the same
// kernels, Simpson's work is one contraction kernel whose other buffers are small hoisted values,
// and the diff seed is one kernel.
#include <jx/jx.h>

#include <gtest/gtest.h>
#include <regex>
#include <sstream>

#include "ir/builder.h"
#include "ir/printer.h"
#include "jit/plan_golden.h"
#include "passes/pipeline.h"
#include "seeds.h"

using golden::expect_golden;
using golden::plan_of;
using jx::Array;

namespace {

std::string simpson_text(bool broadcast) {
  jx::ShapeDtypeStruct interval{{100}, jx::float64};
  auto f = [broadcast](const Array &x) {
    return broadcast ? seeds::funcN_broadcast(x) : seeds::funcN(x);
  };
  return jx::jit([&](const Array &a, const Array &b) { return seeds::simps(f, a, b, 512); })
      .lower(interval, interval)
      .compile()
      .as_text();
}

std::string simpson_plan(bool broadcast) { return plan_of(simpson_text(broadcast)); }

// Element counts of every buffer the plan's kernels write
// ("%3, %4 = kernel log, exp : f64[513,100], f64[513,100] reads ...").
std::vector<int64_t> buffer_sizes(const std::string &plan) {
  std::vector<int64_t> sizes;
  std::regex step(R"(= kernel [^:]*: (.*) reads)"), type(R"(\w+\[([0-9,]*)\])");
  for (std::sregex_iterator it(plan.begin(), plan.end(), step), end; it != end; ++it) {
    const std::string types = (*it)[1].str();
    for (std::sregex_iterator t(types.begin(), types.end(), type); t != end; ++t) {
      int64_t n = 1;
      std::stringstream dims((*t)[1].str());
      for (std::string d; std::getline(dims, d, ',');)
        n *= std::stoll(d);
      sizes.push_back(n);
    }
  }
  return sizes;
}

} // namespace

TEST(Plans, SimpsonGolden) { expect_golden(simpson_plan(false), "simpson_plan.txt"); }

TEST(Plans, SimpsonGraphAfterThePassesGolden) {
  const auto a = jx::ir::parameter(0, jx::float64, {100}),
             b = jx::ir::parameter(1, jx::float64, {100});
  const Array out =
      seeds::simps([](const Array &x) { return seeds::funcN(x); }, Array(a), Array(b), 512);
  expect_golden(jx::ir::print_graph(jx::passes::optimize({out.node()})), "simpson_passes.txt");
}

TEST(Plans, SimpsonNeverMaterializesTheFullIntegrand) {
  for (bool broadcast : {false, true}) {
    std::string plan = simpson_plan(broadcast);
    // One contraction kernel does all the (513, 200, 100) work.
    size_t first = plan.find("kernel dot_general");
    ASSERT_NE(first, std::string::npos) << plan;
    EXPECT_EQ(plan.find("kernel dot_general", first + 1), std::string::npos) << plan;
    // Nothing of the integrand or the weights exists in memory: the largest buffer holds one
    // value per (sample, interval) pair (hoisted exp(-x), log(x), predicates on x).
    const std::vector<int64_t> sizes = buffer_sizes(plan);
    EXPECT_GE(sizes.size(), 3u) << plan;
    for (int64_t n : sizes)
      EXPECT_LE(n, 513 * 100) << plan;
  }
}

TEST(Plans, DiffSeedIsOneKernel) {
  auto compiled = jx::jit(seeds::calc_fd_kernel)
                      .lower(jx::ShapeDtypeStruct{{4096, 4096}, jx::float64})
                      .compile();
  std::string plan = plan_of(compiled.as_text());
  expect_golden(plan, "diff_plan.txt");
  EXPECT_EQ(buffer_sizes(plan).size(), 1u) << plan;
}

TEST(Plans, SimpsonStackAndBroadcastVariantsCompileToTheSameKernels) {
  // The whole text: steps, kernel names (the second compile finds the first's kernels in the
  // cache) and LLVM IR.
  EXPECT_EQ(simpson_text(false), simpson_text(true));
}

TEST(Plans, IntermediatesShareMemoryWhenTheirLifetimesDoNotOverlap) {
  // r1 dies once r2 is computed, r2 once r3 is: r1's memory holds r3.
  auto f = [](const Array &x) {
    Array r1 = jx::numpy::sum(x * 2, {1});
    Array r2 = jx::numpy::sum(r1(jx::newaxis) * x, {1});
    Array r3 = jx::numpy::sum(r2(jx::newaxis) * x, {1});
    return jx::numpy::sum(r3(jx::newaxis) * x, {1});
  };
  auto compiled = jx::jit(f).lower(jx::ShapeDtypeStruct{{64, 64}, jx::float64}).compile();
  const std::string plan = plan_of(compiled.as_text());
  // Three 512-byte intermediates, at most two alive at once.
  EXPECT_NE(plan.find("arena 1024 bytes for 1536 bytes of intermediates"), std::string::npos)
      << plan;
  Array x = jx::numpy::ones({64, 64}) / 64;
  const double expected = 2; // each row sum of x is 1, so every r stays 2
  for (double v : compiled(x).to_vector<double>())
    EXPECT_NEAR(v, expected, 1e-12);
}
