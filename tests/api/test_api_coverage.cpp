// docs/api-coverage.md (written by scripts/api_coverage.py) may only mark a name present that the
// public headers declare: each present row's jx name must appear as a declaration in its
// namespace's header.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

std::string read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ApiCoverage, EveryNameMarkedPresentIsDeclared) {
  const std::string root = JX_SOURCE_DIR;
  const std::map<std::string, std::string> header = {
      {"jx::numpy", "include/jx/numpy.h"}, {"jx::numpy::linalg", "include/jx/linalg.h"},
      {"jx::nn", "include/jx/nn.h"},       {"jx::scipy::special", "include/jx/scipy.h"},
      {"jx::lax", "include/jx/lax.h"},
  };
  std::ifstream table(root + "/docs/api-coverage.md");
  ASSERT_TRUE(table) << "docs/api-coverage.md is missing";
  const std::regex present_row(R"(\| [\w.]+ \| \w+ \| present \| `([\w:]+)::(\w+)` \|)");
  int checked = 0;
  for (std::string line; std::getline(table, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, present_row)) continue;
    const auto it = header.find(m[1]);
    ASSERT_NE(it, header.end()) << line;
    const std::string text = read(root + "/" + it->second);
    // The name after its return type, on the same line or (a long type) the line before.
    const std::regex declaration("[\\w>&*][ \\n]" + std::string(m[2]) + "\\(");
    EXPECT_TRUE(std::regex_search(text, declaration))
        << m[1] << "::" << m[2] << " is marked present but " << it->second
        << " does not declare it";
    ++checked;
  }
  // The table lists hundreds of present names; a format change that matched none would pass.
  EXPECT_GT(checked, 250);
}

} // namespace
