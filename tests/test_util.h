// Helpers shared by test executables: typed error checks and re-running this test binary as a
// child process (for what only a fresh process shows: a cold cache, a device count from the
// environment).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <type_traits>
#include <vector>

extern char **environ;

namespace test_util {

// Distance in representable values of T; NaNs match each other, +0 and -0 are one apart.
template <class T> int64_t ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (std::isinf(a) || std::isinf(b)) return a == b ? 0 : INT64_MAX;
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  auto key = [](T x) {
    const I i = std::bit_cast<I>(x);
    return int64_t(i < 0 ? std::numeric_limits<I>::min() - i : i) - (i < 0 ? 1 : 0);
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

// Runs f, expects exception type E whose message contains `part`.
template <class E, class F> void expect_error(F &&f, const std::string &part) {
  try {
    f();
    FAIL() << "no exception; expected one containing: " << part;
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "message: " << e.what();
  } catch (const std::exception &e) {
    FAIL() << "wrong exception type; message: " << e.what();
  }
}

// Runs this test binary again with --gtest_filter=filter and the environment with `set`
// ("NAME=value" entries) replacing those variables (GTEST_ ones dropped). Returns the exit code
// (128 + signal if killed), or -1 if it could not start.
inline int run_self(const std::string &filter, const std::vector<std::string> &set) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string_view v(*e);
    bool replaced = v.starts_with("GTEST_");
    for (const std::string &s : set)
      replaced = replaced || v.starts_with(s.substr(0, s.find('=') + 1));
    if (!replaced) env.emplace_back(v);
  }
  env.insert(env.end(), set.begin(), set.end());
  std::vector<char *> envp;
  for (std::string &s : env)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", flag = "--gtest_filter=" + filter;
  char *argv[] = {exe.data(), flag.data(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A fresh directory under the system's temporary directory (named prefix + 6 random
// characters), removed with everything in it.
class TempDir {
public:
  explicit TempDir(const std::string &prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

// A file's bytes ("" if it cannot be read), and writing them (truncating).
inline std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_all(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

} // namespace test_util
