// A hostile environment: a thread pool the system refuses threads, bad JX_NUM_THREADS,
// JX_LLVM_FLAGS and JX_DUMP. Typed errors or one warning, never an abort or exit.
#include <jx/jx.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

#include "runtime/gemm.h"
#include "runtime/thread_pool.h"
#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::runtime::ThreadPool;
using test_util::expect_error;

namespace {

// Set in the children that the tests below start; the Child suites do nothing without it.
const char *const child_flag = "JX_ENVIRONMENT_TEST_CHILD";

bool in_child() { return std::getenv(child_flag) != nullptr; }

std::string child_flag_set() { return std::string(child_flag) + "=1"; }

// Counts occurrences of `part` in `text`.
int count(const std::string &text, const std::string &part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

// A compiled kernel (a parameter, so nothing folds to a constant), checked against its values.
void expect_compiled_result_right() {
  auto f = jx::jit([](const Array &x) { return x * 2.0 + 1.0; });
  std::vector<double> y = f(jnp::arange(1000.0)).to_vector<double>();
  ASSERT_EQ(y.size(), 1000u);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(y[i], 2.0 * double(i) + 1.0) << i;
}

void expect_pool_works(ThreadPool &pool) {
  std::vector<std::atomic<int>> seen(10000);
  pool.parallel_for(0, 10000, 7, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      seen[i].fetch_add(1);
  });
  for (size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i].load(), 1) << i;
  std::atomic<int64_t> sum{0};
  pool.run_batch(100, [&](int64_t i) { sum += i; });
  EXPECT_EQ(sum.load(), 99 * 100 / 2);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// A pool that gets fewer threads than it asks for

TEST(PoolStart, RunsWithTheWorkersItGotAndSaysSoOnce) {
  testing::internal::CaptureStderr();
  {
    ThreadPool pool(8, 3);
    EXPECT_EQ(pool.size(), 4);
    expect_pool_works(pool);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(err, "jx: warning: the thread pool could start only 3 of its 7 worker threads"),
            1)
      << err;
  EXPECT_NE(err.find("it runs on 4 threads"), std::string::npos) << err;
}

TEST(PoolStart, WithoutAnyWorkerTheCallerRunsEverything) {
  testing::internal::CaptureStderr();
  {
    ThreadPool pool(8, 0);
    EXPECT_EQ(pool.size(), 1);
    expect_pool_works(pool);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(err, "could start only 0 of its 7 worker threads"), 1) << err;
}

TEST(PoolStart, SizeIsBounded) {
  ThreadPool pool(-5); // at least the caller
  EXPECT_EQ(pool.size(), 1);
}

// Run only as the child of PoolStart.SystemRefusingThreadsIsNotFatal: the system refuses every
// new thread (RLIMIT_NPROC, which binds root only once it gives up its uid).
TEST(PoolStartChild, DefaultPoolUnderProcessLimit) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
    GTEST_SKIP() << "cannot drop root, which RLIMIT_NPROC does not bind";
  // Only the soft limit, so that it can be restored for what needs threads at exit (LSan).
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NPROC, &saved), 0);
  const rlimit one{1, saved.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NPROC, &one), 0);
  testing::internal::CaptureStderr();
  ThreadPool &pool = jx::runtime::default_pool();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(pool.size(), 1);
  EXPECT_EQ(count(err, "could start only 0 of its 3 worker threads"), 1) << err;
  expect_pool_works(pool);
  expect_compiled_result_right();
  EXPECT_EQ(setrlimit(RLIMIT_NPROC, &saved), 0);
}

TEST(PoolStart, SystemRefusingThreadsIsNotFatal) {
  EXPECT_EQ(test_util::run_self("PoolStartChild.*", {"JX_NUM_THREADS=4", child_flag_set()}), 0);
}

// ---------------------------------------------------------------------------------------------
// OpenBLAS's kernels: chosen by the CPU's features where OpenBLAS fell back to SSE3 ones by model
// name, the user's OPENBLAS_CORETYPE left alone.

TEST(BlasKernels, MatchTheCpusFeatures) {
  if (std::getenv("OPENBLAS_CORETYPE")) GTEST_SKIP() << "OPENBLAS_CORETYPE is set";
  const std::string kernels = jx::runtime::blas_kernels();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_NE(kernels, "Prescott");
  }
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) {
    EXPECT_TRUE(kernels != "Haswell" && kernels != "Sandybridge") << kernels;
  }
}

// Run only as the child of BlasKernels.TheUsersChoiceStays.
TEST(BlasKernelsChild, AreTheUsers) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  EXPECT_EQ(std::string(jx::runtime::blas_kernels()), "Prescott");
  EXPECT_EQ(jnp::matmul(jnp::ones({40, 40}), jnp::ones({40, 40}))(3, 5).item<double>(), 40.0);
}

TEST(BlasKernels, TheUsersChoiceStays) {
  EXPECT_EQ(
      test_util::run_self("BlasKernelsChild.*", {"OPENBLAS_CORETYPE=Prescott", child_flag_set()}),
      0);
}

// ---------------------------------------------------------------------------------------------
// JX_NUM_THREADS: a set value outside 1..1024 is a ValueError at every use of the pool

// Run only as the child of NumThreads.BadValuesAreValueErrors.
TEST(NumThreadsChild, BadValueIsAValueErrorAtEveryUse) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  const std::string message =
      std::string("JX_NUM_THREADS must be an integer from 1 to 1024, got '") +
      std::getenv("JX_NUM_THREADS") + "'";
  expect_error<jx::ValueError>([] { jx::runtime::default_pool(); }, message);
  expect_error<jx::ValueError>([] { jx::runtime::default_thread_count(); }, message);
  expect_error<jx::ValueError>([] { expect_compiled_result_right(); }, message);
  expect_error<jx::ValueError>([] { jx::runtime::default_pool(); }, message);
}

TEST(NumThreads, BadValuesAreValueErrors) {
  for (const char *bad : {"0", "-3", "abc", "4x", " 4", "1025", "100000000", "99999999999999"})
    EXPECT_EQ(test_util::run_self("NumThreadsChild.*",
                                  {std::string("JX_NUM_THREADS=") + bad, child_flag_set()}),
              0)
        << "JX_NUM_THREADS=" << bad;
}

TEST(NumThreads, ParseCount) {
  using jx::runtime::parse_count;
  EXPECT_EQ(parse_count("1", 1024), 1);
  EXPECT_EQ(parse_count("1024", 1024), 1024);
  for (const char *bad : {"", "0", "-1", "1025", "+4", " 4", "4 ", "0x10", "abc", "2147483648"})
    EXPECT_FALSE(parse_count(bad, 1024).has_value()) << "'" << bad << "'";
}

// ---------------------------------------------------------------------------------------------
// JX_LLVM_FLAGS: LLVM may not exit the process

// Run only as the child of LlvmFlags.RejectedOptionsAreValueErrors.
TEST(LlvmFlagsChild, EveryCompileRaisesAndTheProcessContinues) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  const std::string expected = std::getenv("JX_LLVM_FLAGS_TEST_EXPECTED");
  expect_error<jx::ValueError>([] { expect_compiled_result_right(); }, expected);
  expect_error<jx::ValueError>([] { expect_compiled_result_right(); }, expected);
  // Work that does not compile goes on.
  EXPECT_EQ(jnp::arange(4.0).shape(), jx::Shape{4});
}

TEST(LlvmFlags, RejectedOptionsAreValueErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--no-such-option", "Unknown command line argument '--no-such-option'"},
      {"-O3 --also-not-one", "Unknown command line argument '-O3'"},
      {"stray", "Unknown command line argument 'stray'"},
      {"-epilogue-vectorization-force-VF=abc", "is not a valid LLVM command line"},
      {"--help", "JX_LLVM_FLAGS: '--help' makes LLVM print and exit the process"},
      {"-version", "JX_LLVM_FLAGS: '-version' makes LLVM print and exit the process"},
  };
  for (const auto &[flags, expected] : cases)
    EXPECT_EQ(
        test_util::run_self("LlvmFlagsChild.EveryCompileRaisesAndTheProcessContinues",
                            {"JX_LLVM_FLAGS=" + flags, "JX_LLVM_FLAGS_TEST_EXPECTED=" + expected,
                             "JX_CACHE_DIR=", child_flag_set()}),
        0)
        << "JX_LLVM_FLAGS=" << flags;
}

// Run only as the child of LlvmFlags.ValidOptionsAreUsed.
TEST(LlvmFlagsChild, ValidOptionsCompile) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  expect_compiled_result_right();
}

TEST(LlvmFlags, ValidOptionsAreUsed) {
  // jx sets this option too: JX_LLVM_FLAGS comes after jx's options, so it overrides them.
  EXPECT_EQ(test_util::run_self("LlvmFlagsChild.ValidOptionsCompile",
                                {"JX_LLVM_FLAGS=-epilogue-vectorization-force-VF=2 "
                                 "--unroll-threshold=100",
                                 "JX_CACHE_DIR=", child_flag_set()}),
            0);
}

// ---------------------------------------------------------------------------------------------
// JX_DUMP: problems are one warning, never an error from a read

// Run only as the child of Dump.*.
TEST(DumpChild, ComputesAndReportsOnce) {
  if (!in_child()) GTEST_SKIP() << "a helper run in a child process";
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    // Constants fold: a pass changes the graph, so there is something to dump.
    Array x = jnp::arange(10.0) * 3.0 + double(i);
    EXPECT_EQ(x.to_vector<double>()[9], 27.0 + i);
    expect_compiled_result_right();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const char *expect_warning = std::getenv("JX_DUMP_TEST_WARNING");
  EXPECT_EQ(count(err, "jx: warning: JX_DUMP"), expect_warning ? 1 : 0) << err;
  if (expect_warning) {
    EXPECT_NE(err.find(expect_warning), std::string::npos) << err;
  }
}

TEST(Dump, ARegularFileIsAWarningAndNoDump) {
  const std::string file = testing::TempDir() + "jx_dump_is_a_file";
  std::ofstream(file) << "not a directory\n";
  EXPECT_EQ(test_util::run_self("DumpChild.*", {"JX_DUMP=" + file,
                                                "JX_DUMP_TEST_WARNING=is not a usable directory",
                                                child_flag_set()}),
            0);
  EXPECT_TRUE(std::filesystem::is_regular_file(file));
  std::filesystem::remove(file);
}

TEST(Dump, BelowARegularFileIsAWarning) {
  const std::string file = testing::TempDir() + "jx_dump_parent_is_a_file";
  std::ofstream(file) << "not a directory\n";
  EXPECT_EQ(test_util::run_self("DumpChild.*", {"JX_DUMP=" + file + "/sub",
                                                "JX_DUMP_TEST_WARNING=is not a usable directory",
                                                child_flag_set()}),
            0);
  std::filesystem::remove(file);
}

TEST(Dump, ADirectoryGetsTheDumps) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / ("jx_dump_dir_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(test_util::run_self("DumpChild.*",
                                {"JX_DUMP=" + (dir / "nested").string(), child_flag_set()}),
            0);
  EXPECT_FALSE(std::filesystem::is_empty(dir / "nested"));
  std::filesystem::remove_all(dir);
}
