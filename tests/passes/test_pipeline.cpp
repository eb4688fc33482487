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
NodePtr stack_with_a_run() {
  NodePtr x = ir::parameter(0, jx::float64, {8});
  auto fill = [&](double v) { return ir::broadcast(ir::literal(v, jx::float64, true), {8}, {}); };
  std::vector<NodePtr> terms;
  for (int i = 0; i < 100; ++i) {
    NodePtr base = i < 70 ? x : ir::unary(Op::Log, x);
    terms.push_back(ir::reshape(ir::binary(Op::Mul, base, fill(i + 2)), {1, 8}));
  }
  return ir::concatenate(terms, 0);
}

TEST(Pipeline, FixedPointOnAStackOfManyWithARunThatMatches) {
  EXPECT_EQ(not_a_fixed_point({stack_with_a_run()}), "");
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

// Run only as the child of the tests below, which set JX_DUMP (read once per process) and
// JX_TEST_DUMP_CHILD to the graph to optimize.
TEST(Pipeline, DumpChild) {
  const char *graph = std::getenv("JX_TEST_DUMP_CHILD");
  if (!graph) GTEST_SKIP() << "run by the Pipeline dump tests";
  passes::optimize(std::string(graph) == "levels" ? std::vector{stack_with_a_run()}
                                                  : dumped_graph());
}

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Dump {
  std::string name, header, graph;
};

// The files a child optimizing `graph` ("1" or "levels") dumps, in order: each a header with the
// pass, its round and its time, then the graph as it left the pass.
std::vector<Dump> dumps(const std::string &graph) {
  const test_util::TempDir tmp("jx_dump_");
  const std::filesystem::path dir = std::filesystem::path(tmp.path()) / "dumps";
  EXPECT_EQ(test_util::run_self("Pipeline.DumpChild",
                                {"JX_DUMP=" + dir.string(), "JX_TEST_DUMP_CHILD=" + graph}),
            0);
  std::vector<Dump> out;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    const std::string dump = read_file(entry.path());
    const size_t end = dump.find('\n') + 1;
    out.push_back({entry.path().filename().string(), dump.substr(0, end), dump.substr(end)});
  }
  std::sort(out.begin(), out.end(), [](const Dump &a, const Dump &b) { return a.name < b.name; });
  return out;
}

bool header_of(const Dump &d, const std::string &pass, int round) {
  return std::regex_match(d.header, std::regex("# " + pass + " \\(round " + std::to_string(round) +
                                               "\\): [0-9]+\\.[0-9]{3} ms\n"));
}

TEST(Pipeline, DumpsTheGraphAfterEachPassThatChangedIt) {
  const std::vector<Dump> d = dumps("1");
  ASSERT_EQ(d.size(), 2u);
  const std::vector<NodePtr> graph = dumped_graph();
  EXPECT_EQ(d[0].name, "0000_fold_constants.txt");
  EXPECT_TRUE(header_of(d[0], "fold_constants", 0)) << d[0].header;
  EXPECT_EQ(d[0].graph, text(passes::fold_constants(graph)));
  EXPECT_EQ(d[1].name, "0001_simplify.txt");
  EXPECT_TRUE(header_of(d[1], "simplify", 0)) << d[1].header;
  EXPECT_EQ(d[1].graph, text(passes::optimize(graph)));
  EXPECT_NE(d[0].graph, text(graph));
  EXPECT_NE(d[1].graph, d[0].graph);
}

TEST(Pipeline, DumpsThePassesOverTheLevelsAsLaterRounds) {
  // Nothing changes stack_with_a_run until split_concatenates (numbered round 4, past the rounds
  // of the passes); the rounds over its levels follow.
  const std::vector<Dump> d = dumps("levels");
  ASSERT_GE(d.size(), 2u);
  EXPECT_EQ(d[0].name, "0000_split_concatenates.txt");
  EXPECT_TRUE(header_of(d[0], "split_concatenates", 4)) << d[0].header;
  EXPECT_EQ(d[0].graph, text(passes::split_concatenates({stack_with_a_run()})));
  EXPECT_EQ(d[1].name, "0001_stack_to_broadcast.txt");
  EXPECT_TRUE(header_of(d[1], "stack_to_broadcast", 5)) << d[1].header;
  EXPECT_EQ(d.back().graph, text(passes::optimize({stack_with_a_run()})));
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
