// docs/api-coverage.md (written by scripts/api_coverage.py) may only mark a name present that the
// public headers declare: each present row's jx name must appear as a declaration in its
// namespace's headers (namespace jx's are several; every jx::scipy::* namespace is scipy.h's).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ApiCoverage, EveryNameMarkedPresentIsDeclared) {
  const std::string root = JX_SOURCE_DIR;
  const std::map<std::string, std::vector<std::string>> headers = {
      {"jx::numpy", {"include/jx/numpy.h"}},
      {"jx::numpy::linalg", {"include/jx/linalg.h"}},
      {"jx::numpy::fft", {"include/jx/numpy.h"}},
      {"jx::nn", {"include/jx/nn.h"}},
      {"jx::random", {"include/jx/random.h"}},
      {"jx::lax", {"include/jx/lax.h"}},
      {"jx::scipy", {"include/jx/scipy.h"}},
      {"jx",
       {"include/jx/array.h", "include/jx/distributed.h", "include/jx/dtype.h",
        "include/jx/error.h", "include/jx/jit.h", "include/jx/shape.h", "include/jx/sharding.h",
        "include/jx/transforms.h", "include/jx/tree.h"}},
  };
  std::ifstream table(root + "/docs/api-coverage.md");
  ASSERT_TRUE(table) << "docs/api-coverage.md is missing";
  const std::regex present_row(R"(\| [\w.]+ \| \w+ \| present \| `([\w:]+)::(\w+)` \|)");
  int checked = 0;
  for (std::string line; std::getline(table, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, present_row)) continue;
    const std::string ns = m[1];
    auto it = headers.find(ns);
    if (it == headers.end() && ns.rfind("jx::scipy::", 0) == 0) it = headers.find("jx::scipy");
    ASSERT_NE(it, headers.end()) << line;
    std::string text;
    for (const std::string &path : it->second)
      text += read(root + "/" + path) + "\n";
    // The name after its return type, on the same line or (a long type) the line before.
    const std::regex declaration("[\\w>&*][ \\n]" + std::string(m[2]) + "\\(");
    EXPECT_TRUE(std::regex_search(text, declaration))
        << m[1] << "::" << m[2] << " is marked present but " << it->second.front()
        << (it->second.size() > 1 ? " and the other headers of " + ns : std::string())
        << " do not declare it";
    ++checked;
  }
  // The table lists hundreds of present names; a format change that matched none would pass.
  EXPECT_GT(checked, 250);
}

} // namespace
