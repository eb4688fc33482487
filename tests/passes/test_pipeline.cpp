// The pass pipeline (passes::optimize): a fixed point, on the random graphs of the differential
// tests and on graphs that reach each pass; JX_DUMP's files, one per pass that changed the graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "diff/random_graph.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "test_util.h"

namespace {

namespace ir = jx::ir;
namespace passes = jx::passes;
using jx::ir::NodePtr;
using jx::ir::Op;

std::string text(const std::vector<NodePtr> &roots) { return ir::print_graph(roots); }

// optimize(optimize(g)) has the text of optimize(g); "" when it does, else both texts.
std::string not_a_fixed_point(const std::vector<NodePtr> &graph) {
  const std::vector<NodePtr> once = passes::optimize(graph);
  const std::vector<NodePtr> twice = passes::optimize(once);
  if (text(twice) == text(once)) return "";
  return "optimized once:\n" + text(once) + "optimized twice:\n" + text(twice);
}

// The random graphs of tests/diff; the first failures are shown in full. Most graphs must reach
// a pass, or the test would prove little.
void expect_fixed_points(const jx::diff::GraphOptions &options, uint64_t first, uint64_t count) {
  int failures = 0;
  uint64_t rewritten = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    const jx::diff::GeneratedGraph g = jx::diff::random_graph(seed, options);
    rewritten += text(passes::optimize({g.root.node()})) != text({g.root.node()});
    const std::string problem = not_a_fixed_point({g.root.node()});
    if (problem.empty()) continue;
    if (++failures <= 3)
      ADD_FAILURE() << "seed " << seed << ":\n" << g.description << "\n" << problem;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " graphs";
  EXPECT_GT(rewritten, count / 2);
}

TEST(Pipeline, FixedPointOnRandomGraphs) { expect_fixed_points({}, 1, 1000); }

TEST(Pipeline, FixedPointOnLargerRandomGraphs) {
  expect_fixed_points({.min_ops = 12, .max_ops = 40}, 10001, 300);
}

// Graphs each pass rewrites, alone and together.
TEST(Pipeline, FixedPointOnGraphsEveryPassRewrites) {
  NodePtr x = ir::parameter(0, jx::float64, {8});
  auto fill = [&](double v, const NodePtr &like) {
    return ir::broadcast(ir::literal(v, jx::float64, true), like->shape, {});
  };
  // fold_constants and simplify: (x * 1) + (2 + 3).
  NodePtr folded = ir::binary(Op::Add, ir::binary(Op::Mul, x, fill(1, x)),
                              ir::binary(Op::Add, fill(2, x), fill(3, x)));
  // stack_to_broadcast: stack([x * c for c in 1..4]); sink_movement: exp below a broadcast.
  std::vector<NodePtr> terms;
  for (double c : {1.0, 2.0, 3.0, 4.0})
    terms.push_back(ir::reshape(ir::binary(Op::Mul, x, fill(c, x)), {1, 8}));
  NodePtr stacked = ir::concatenate(terms, 0);
  NodePtr sunk = ir::unary(Op::Exp, ir::broadcast(x, {5, 8}, {1}));
  // split_reductions: 64 Ki elements summed to one value.
  NodePtr big = ir::parameter(1, jx::float64, {256, 256});
  NodePtr sum = ir::reduce(Op::ReduceSum, big, {0, 1});
  // split_concatenates: 100 pieces.
  std::vector<NodePtr> pieces;
  for (int i = 0; i < 100; ++i)
    pieces.push_back(ir::slice(x, {i % 8}, {i % 8 + 1}, {1}));
  NodePtr wide = ir::concatenate(pieces, 0);
  for (const NodePtr &root : {folded, stacked, sunk, sum, wide}) {
    EXPECT_NE(text(passes::optimize({root})), text({root})) << text({root}); // reaches a pass
    EXPECT_EQ(not_a_fixed_point({root}), "");
  }
  EXPECT_EQ(not_a_fixed_point({folded, stacked, sunk, sum, wide}), "");
}

// A stack of 100 whose operands differ only in a literal for 70 of them: stack_to_broadcast
// leaves the whole alone (a run among others), and split_concatenates makes levels of 50, the
// first of which the operands of one run: the passes rewrite it too (the literals start at 2:
// x * 1 would simplify and break the run).
TEST(Pipeline, FixedPointOnAStackOfManyWithARunThatMatches) {
  NodePtr x = ir::parameter(0, jx::float64, {8});
  auto fill = [&](double v) { return ir::broadcast(ir::literal(v, jx::float64, true), {8}, {}); };
  std::vector<NodePtr> terms;
  for (int i = 0; i < 100; ++i) {
    NodePtr base = i < 70 ? x : ir::unary(Op::Log, x);
    terms.push_back(ir::reshape(ir::binary(Op::Mul, base, fill(i + 2)), {1, 8}));
  }
  EXPECT_EQ(not_a_fixed_point({ir::concatenate(terms, 0)}), "");
}

// ---- JX_DUMP ----

// The graph the dump tests optimize: fold_constants and simplify change it in round 0 (into
// x + 5), then nothing does.
std::vector<NodePtr> dumped_graph() {
  NodePtr x = ir::parameter(0, jx::float64, {4});
  auto fill = [&](double v) { return ir::broadcast(ir::literal(v, jx::float64, true), {4}, {}); };
  return {
      ir::binary(Op::Add, ir::binary(Op::Mul, x, fill(1)), ir::binary(Op::Add, fill(2), fill(3)))};
}

// Run only as the child of the tests below, which set JX_DUMP (read once per process).
TEST(Pipeline, DumpChild) {
  if (!std::getenv("JX_TEST_DUMP_CHILD")) GTEST_SKIP() << "run by the Pipeline dump tests";
  passes::optimize(dumped_graph());
}

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Pipeline, DumpsTheGraphAfterEachPassThatChangedIt) {
  const test_util::TempDir tmp("jx_dump_");
  const std::filesystem::path dir = std::filesystem::path(tmp.path()) / "dumps";
  ASSERT_EQ(test_util::run_self("Pipeline.DumpChild",
                                {"JX_DUMP=" + dir.string(), "JX_TEST_DUMP_CHILD=1"}),
            0);
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names, (std::vector<std::string>{"0000_fold_constants.txt", "0001_simplify.txt"}));
  // A header with the pass, its round and its time, then the graph as it left the pass.
  const std::vector<NodePtr> graph = dumped_graph();
  const std::string expected[] = {text(passes::fold_constants(graph)),
                                  text(passes::optimize(graph))};
  const char *pass[] = {"fold_constants", "simplify"};
  for (size_t i = 0; i < 2; ++i) {
    const std::string dump = read_file(dir / names[i]);
    const std::string header = dump.substr(0, dump.find('\n') + 1);
    EXPECT_TRUE(std::regex_match(
        header, std::regex(std::string("# ") + pass[i] + " \\(round 0\\): [0-9]+\\.[0-9]{3} ms\n")))
        << header;
    EXPECT_EQ(dump.substr(header.size()), expected[i]);
  }
  EXPECT_NE(expected[0], text(graph));
  EXPECT_NE(expected[1], expected[0]);
}

TEST(Pipeline, AnUnusableDumpDirectoryOnlyWarns) {
  const test_util::TempDir tmp("jx_dump_");
  const std::string file = tmp.path() + "/file";
  std::ofstream(file) << "not a directory";
  EXPECT_EQ(test_util::run_self("Pipeline.DumpChild", {"JX_DUMP=" + file, "JX_TEST_DUMP_CHILD=1"}),
            0);
  EXPECT_EQ(read_file(file), "not a directory");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()),
                          std::filesystem::directory_iterator()),
            1);
}

} // namespace
