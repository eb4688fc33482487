// Golden texts of compiled plans and graphs: tests/jit/golden/<name>, rewritten by a run with
// JX_UPDATE_GOLDEN=1 (review the diff).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace golden {

// The step list of a Compiled's text (the LLVM IR follows a blank line).
inline std::string plan_of(const std::string &text) {
  return text.substr(0, text.find("\n\n") + 1);
}

inline void expect_golden(const std::string &text, const std::string &name) {
  const std::string path = std::string(JX_GOLDEN_DIR) + "/../jit/golden/" + name;
  if (std::getenv("JX_UPDATE_GOLDEN")) std::ofstream(path) << text;
  std::ifstream in(path);
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "golden file " << path;
}

} // namespace golden
