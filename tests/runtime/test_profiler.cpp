// jx::profiler / JX_TRACE: the trace parses as JSON in Chrome's trace-event format, names the
// compile driver's stages and graph passes as the pipeline does, has one span per executed step
// and one per device box of a placed kernel, and its spans nest in time.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "eight_devices.h"
#include "passes/pipeline.h"
#include "runtime/trace.h"
#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using nlohmann::json;

std::string trace_dir(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("jx_trace_" + name)).string();
}

// Records what `body` does, and returns the trace's events (parsed: a malformed file throws).
std::vector<json> traced(const std::string &name, const std::function<void()> &body) {
  jx::profiler::start_trace(trace_dir(name));
  try {
    body();
  } catch (...) {
    jx::profiler::stop_trace();
    throw;
  }
  const std::string path = jx::profiler::stop_trace();
  std::ifstream in(path);
  const json trace = json::parse(in);
  std::filesystem::remove_all(trace_dir(name));
  EXPECT_TRUE(trace.contains("traceEvents"));
  return trace.at("traceEvents").get<std::vector<json>>();
}

std::vector<json> of(const std::vector<json> &events, const std::string &cat) {
  std::vector<json> out;
  for (const json &e : events)
    if (e.value("cat", "") == cat) out.push_back(e);
  return out;
}

bool within(const json &inner, const json &outer) {
  const double a = inner["ts"], b = a + double(inner["dur"]), c = outer["ts"],
               d = c + double(outer["dur"]);
  return a >= c && b <= d;
}

// Every event is well formed: a phase, a time, a process and a thread; spans have durations.
void expect_well_formed(const std::vector<json> &events) {
  for (const json &e : events) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e;
    if (e["ph"] == "M") continue;
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    if (e["ph"] == "X") {
      EXPECT_GE(double(e["dur"]), 0) << e;
    }
  }
}

TEST(Profiler, SimpsonSeedTraceNamesStagesPassesAndSteps) {
  const Array a = jnp::linspace(0.0, 1.0, 100), b = a + 1.0;
  auto f = jx::jit([](const Array &lo, const Array &hi) {
    return seeds::simps([](const Array &x) { return seeds::funcN(x); }, lo, hi, 512);
  });
  const std::vector<json> events = traced("simpson", [&] { f(a, b).block_until_ready(); });
  expect_well_formed(events);
  // The compile driver's stages in order, after tracing (stage 6 runs across processes only).
  std::vector<std::string> stages;
  for (const json &e : of(events, "compile"))
    if (e["name"] != "compile") stages.push_back(e["name"]);
  const std::vector<std::string> driver{
      "0. trace",           "1. graph passes",      "2. fusion plan",
      "3. sharding",        "4. buffer assignment", "5. control regions",
      "7. code generation", "8. cost analysis",     "9. runtime program"};
  ASSERT_GE(stages.size(), driver.size());
  EXPECT_EQ(std::vector<std::string>(stages.begin(), stages.begin() + 9), driver);
  // Graph passes as the pipeline names them, the first round in the pipeline's order, inside the
  // graph passes stage.
  const std::vector<std::string> pipeline = jx::passes::pass_names();
  const std::vector<json> passes = of(events, "pass");
  ASSERT_GE(passes.size(), pipeline.size() - 1);
  for (size_t k = 0; k + 1 < pipeline.size(); ++k)
    EXPECT_EQ(passes[k]["name"], pipeline[k]);
  const std::set<std::string> names(pipeline.begin(), pipeline.end());
  for (const json &p : passes) {
    EXPECT_TRUE(names.count(p["name"])) << p;
    EXPECT_TRUE(std::any_of(events.begin(), events.end(), [&](const json &e) {
      return e.value("name", "") == "1. graph passes" && within(p, e);
    })) << p;
  }
  // LLVM's spans name the kernels they compile; the steps of the call name theirs.
  EXPECT_FALSE(of(events, "llvm").empty());
  const std::vector<json> steps = of(events, "step");
  const std::vector<json> tasks = of(events, "task");
  EXPECT_FALSE(tasks.empty());
  for (const json &t : tasks)
    EXPECT_TRUE(std::any_of(steps.begin(), steps.end(), [&](const json &s) {
      return s["name"] == t["name"] && within(t, s);
    })) << t;
  std::set<std::string> kernels;
  for (const json &s : steps)
    if (s["args"]["kind"] == "kernel") kernels.insert(s["name"]);
  EXPECT_FALSE(kernels.empty());
  // The arena the call allocated is the one memory_analysis() reports.
  const jx::MemoryAnalysis memory = f.lower(a, b).compile().memory_analysis();
  std::vector<double> arenas;
  for (const json &e : events)
    if (e["ph"] == "C" && e["name"] == "arena bytes") arenas.push_back(e["args"]["value"]);
  ASSERT_FALSE(arenas.empty());
  EXPECT_GT(memory.arena_size_in_bytes, 0);
  EXPECT_EQ(arenas.back(), double(memory.arena_size_in_bytes));
  EXPECT_GE(memory.temp_size_in_bytes, memory.arena_size_in_bytes);
}

// Seed 000 placed (8,1) on 8 devices: one step span per step of the program, and per placed
// kernel one task span per device box, each naming its device.
TEST(Profiler, ShardedDiffSeedHasATaskPerDeviceBox) {
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {512, 256}, jx::float64);
  const jx::Sharding rows = seeds::diff_layout(8, 1);
  const Array placed = jx::device_put(x, rows);
  placed.block_until_ready();
  // Traced from the trace of the function on (its signature, with the sharding's text, is an
  // argument of the trace span).
  const std::vector<json> events = traced("diff", [&] {
    jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}})
        .lower(jx::ShapeDtypeStruct{{512, 256}, jx::float64, rows})
        .compile()(placed)
        .block_until_ready();
  });
  expect_well_formed(events);
  const std::vector<json> steps = of(events, "step");
  // parameter, kernel: the plan's two steps.
  ASSERT_EQ(steps.size(), 2u);
  std::set<int> devices;
  for (const json &t : of(events, "task"))
    if (t["args"].contains("device")) devices.insert(int(t["args"]["device"]));
  EXPECT_EQ(devices, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(of(events, "task").size() % 8, 0u);
}

TEST(Profiler, AnnotationsAndErrors) {
  const std::vector<json> events = traced("annotation", [] {
    jx::profiler::TraceAnnotation outer("outer");
    jx::profiler::TraceAnnotation inner("inner");
  });
  const std::vector<json> user = of(events, "user");
  ASSERT_EQ(user.size(), 2u);
  EXPECT_EQ(user[0]["name"], "inner");
  EXPECT_TRUE(within(user[0], user[1]));
  EXPECT_THROW(jx::profiler::stop_trace(), jx::Error);
  jx::profiler::start_trace(trace_dir("twice"));
  EXPECT_THROW(jx::profiler::start_trace(trace_dir("twice")), jx::Error);
  jx::profiler::stop_trace();
  std::filesystem::remove_all(trace_dir("twice"));
  // Nothing recorded while off.
  EXPECT_FALSE(jx::runtime::trace::recording());
}

// How many times `part` occurs in `text`.
size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

// Graphviz renders `dot` to SVG (false, with its messages on stderr, when it refuses it).
bool renders(const std::string &dot, const std::string &name) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / (name + ".dot");
  std::ofstream(file) << dot;
  const std::string svg = file.string() + ".svg";
  const bool ok =
      std::system(("dot -Tsvg '" + file.string() + "' -o '" + svg + "'").c_str()) == 0 &&
      std::filesystem::file_size(svg) > 0;
  std::filesystem::remove(file);
  std::filesystem::remove(svg);
  return ok;
}

// The seeds' plans as pictures: Graphviz parses them, and every fused kernel is one cluster.
TEST(PlanPictures, SeedsRenderWithAClusterPerKernel) {
  if (std::system("dot -V > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "Graphviz's dot is not installed (apt-get install graphviz)";
  auto simpson = jx::jit([](const Array &lo, const Array &hi) {
    return seeds::simps([](const Array &x) { return seeds::funcN(x); }, lo, hi, 512);
  });
  const jx::ShapeDtypeStruct intervals{{100}, jx::float64};
  const auto lowered = simpson.lower(intervals, intervals);
  const auto compiled = lowered.compile();
  EXPECT_TRUE(renders(lowered.as_dot(), "jx_simpson_graph"));
  const std::string plan = compiled.as_dot();
  EXPECT_TRUE(renders(plan, "jx_simpson_plan"));
  EXPECT_EQ(count(plan, "subgraph cluster_"), count(compiled.as_text(), " = kernel "));
  EXPECT_GT(count(plan, "subgraph cluster_"), 0u);
  // The seed's exp(-x) and pow's tests on x, hoisted out of the function axis.
  EXPECT_GT(count(plan, "hoisted kernel"), 0u) << plan;

  const jx::Sharding rows = seeds::diff_layout(8, 1);
  const auto diff =
      jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}})
          .lower(jx::ShapeDtypeStruct{{512, 256}, jx::float64})
          .compile();
  const std::string placed = diff.as_dot();
  EXPECT_TRUE(renders(placed, "jx_diff_plan"));
  EXPECT_EQ(count(placed, "subgraph cluster_"), count(diff.as_text(), " = kernel "));
  // Each device's box, and the halo rows read across devices.
  for (int d = 0; d < 8; ++d)
    EXPECT_NE(placed.find(fmt::format("dev{}[", d)), std::string::npos) << placed;
  EXPECT_NE(placed.find("collective-permute"), std::string::npos) << placed;
}

} // namespace
