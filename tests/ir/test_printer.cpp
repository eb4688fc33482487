// Printer: golden text of the Simpson seed's graph (set JX_UPDATE_GOLDEN=1 to rewrite the file,
// then review the diff).
#include <jx/jx.h>

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "ir/printer.h"
#include "seeds.h"

namespace jnp = jx::numpy;
using jx::Array;

namespace {

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_golden(const std::string &text, const std::string &name) {
  const std::string path = std::string(JX_GOLDEN_DIR) + "/../ir/golden/" + name;
  if (std::getenv("JX_UPDATE_GOLDEN")) std::ofstream(path) << text;
  EXPECT_EQ(text, read_file(path)) << "golden file " << path;
}

// The Simpson seed, small: 3 functions, N = 4.
Array simpson_small() {
  auto a = jnp::arange(0, 1, 0.5);
  auto b = a + 0.05;
  return seeds::simps([](const Array &x) { return seeds::funcN(x, 3); }, a, b, 4);
}

} // namespace

TEST(Printer, SimpsonGraphGolden) {
  expect_golden(jx::ir::print_graph(simpson_small().node()), "simpson_graph.txt");
}

TEST(Printer, SharedSubexpressionsPrintOnce) {
  auto x = jnp::arange(4.0);
  auto y = jnp::exp(x) + jnp::exp(x);
  std::string text = jx::ir::print_graph(y.node());
  size_t first = text.find("exp(");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("exp(", first + 1), std::string::npos) << text;
  EXPECT_NE(text.find("add(%"), std::string::npos);
}

TEST(Printer, RealizedNodesAreLeaves) {
  auto x = jnp::exp(jnp::arange(3.0));
  x.block_until_ready();
  std::string text = jx::ir::print_graph(x.node());
  EXPECT_NE(text.find("<realized>"), std::string::npos) << text;
  EXPECT_EQ(text.find("iota"), std::string::npos) << text;
}

TEST(Printer, TypeStrings) {
  auto x = jnp::zeros({2, 3}, jnp::float32);
  EXPECT_EQ(jx::ir::type_str(*x.node()), "f32[2,3]");
  EXPECT_EQ(jx::ir::type_str(*Array(2.0).node()), "f64[]~");
}
