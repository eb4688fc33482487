// Ahead-of-time compiled functions (generator.cpp, functions.h) against the JIT of the same
// functions: the host library's results equal the JIT's bit for bit; the x86-64-v3 library's
// (AVX2 math tier, where the JIT here may use AVX-512 variants) and the x86-64 baseline's (libm's
// scalar functions) within a few ulp where libm functions are involved, and bit for bit
// elsewhere.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <thread>

#include "aot/aot_test_util.h"
#include "aot/functions.h"
#include "random_graph_seeds.h"

#include "base_diff_1x8.h"
#include "base_float32_math.h"
#include "base_random_normal.h"
#include "base_simpson_stack.h"
#include "bool_output.h"
#include "constant_output.h"
#include "contraction.h"
#include "control_flow.h"
#include "diff_1x1.h"
#include "diff_1x8.h"
#include "diff_8x1.h"
#include "donated_argument.h"
#include "eight_devices.h"
#include "empty_arrays.h"
#include "float32_math.h"
#include "int_power.h"
#include "linear_algebra.h"
#include "passthrough.h"
#include "random_normal.h"
#include "random_uniform.h"
#include "reduction.h"
#include "repeated_output.h"
#include "scalar_output.h"
#include "sequential_loops.h"
#include "several_outputs.h"
#include "sharding_constraint.h"
#include "simpson_broadcast.h"
#include "simpson_stack.h"
#include "sort_and_scan.h"
#include "updates.h"
#include "v3_diff_1x1.h"
#include "v3_diff_1x8.h"
#include "v3_diff_8x1.h"
#include "v3_float32_math.h"
#include "v3_int_power.h"
#include "v3_random_normal.h"
#include "v3_simpson_broadcast.h"
#include "v3_simpson_stack.h"
#include "v3_value_and_grad.h"
#include "value_and_grad.h"

// The random graphs' exported entry points (their headers' inline random_graph_SEED call them).
#define JX_AOT_TEST_DECLARE_GRAPH(SEED)                                                            \
  extern "C" int32_t jx_aot_fn_random_graph_##SEED(const jx_aot_array *, int32_t,                  \
                                                   const jx_aot_array *, int32_t, char *, size_t);
JX_AOT_TEST_RANDOM_GRAPHS(JX_AOT_TEST_DECLARE_GRAPH)

// c_caller.c: simpson_stack called from C.
extern "C" int32_t c_call_simpson_stack(const double *a, const double *b, double *result,
                                        char *error, size_t error_size);

namespace {

namespace jnp = jx::numpy;
using aot_test::compare_with_jit;
using aot_test::Entry;
using aot_test::jit_outputs;
using aot_test::random_array;
using aot_test::run_aot;
using aot_test::Tolerance;
using jx::Array;

// libm-computed results of the x86-64-v3 objects: libmvec's AVX2 variants against the JIT's
// (AVX-512 on hosts that have it), each within 4 ulp of the correctly rounded value.
constexpr Tolerance libm_tier{.ulps = 8, .relative = 1e-13};

// Whether this CPU runs x86-64-v3 code (AVX2, FMA, BMI2, ...).
bool runs_x86_64_v3() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("movbe");
}

// The x86-64-v3 library's tests, skipped on older CPUs.
class AotX86v3 : public testing::Test {
protected:
  void SetUp() override {
    if (!runs_x86_64_v3()) GTEST_SKIP() << "this CPU does not run x86-64-v3 code";
  }
};

// Seed 001's intervals: a = arange(0, 10, 0.1) (NumPy: i * 0.1), b = a + 0.05.
std::vector<Array> simpson_args() {
  std::vector<double> a(static_cast<size_t>(aot_test::simpson_intervals)), b(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = double(i) * 0.1;
    b[i] = a[i] + 0.05;
  }
  return {jnp::array(a), jnp::array(b)};
}

// Seed 000's input: jax.random.normal(PRNGKey(0), (4096, 4096)).
const Array &diff_input() {
  static const Array x = [] {
    Array x = jx::random::normal(jx::random::PRNGKey(0), {aot_test::diff_n, aot_test::diff_n});
    x.data();
    return x;
  }();
  return x;
}

// float32 inputs of float32_math with the special values: zeros, infinities, NaN, negatives
// (log and pow of them are NaN), subnormals, huge and tiny values.
std::vector<Array> float32_math_args() {
  std::vector<float> x(static_cast<size_t>(aot_test::math_n)), y(x.size());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-30.f, 30.f), exponent(-4.f, 4.f);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = i % 3 ? std::abs(dist(rng)) : dist(rng);
    y[i] = exponent(rng);
  }
  const float specials[] = {0.f,
                            -0.f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(),
                            1e-30f,
                            3e38f,
                            88.7f,
                            -103.f,
                            1.f,
                            -1.f};
  for (size_t i = 0; i < std::size(specials); ++i) {
    x[i] = specials[i];
    x[x.size() - 1 - i] = specials[i];
    y[i + 20] = specials[i];
  }
  return {jnp::array(x), jnp::array(y)};
}

// Integer bases and exponents for int_power: small bases to large exponents (wrapping around),
// negative bases, zero and one.
std::vector<Array> int_power_args() {
  std::vector<int32_t> a(static_cast<size_t>(aot_test::math_n)), b(a.size());
  std::vector<int64_t> c(a.size()), d(a.size());
  std::mt19937 rng(7);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int32_t(rng() % 21) - 10;
    b[i] = int32_t(rng() % 40);
    c[i] = int64_t(rng() % 2001) - 1000;
    d[i] = int64_t(rng() % 70);
  }
  return {jnp::array(a), jnp::array(b), jnp::array(c), jnp::array(d)};
}

// ---- the seeds, host library: bit for bit ----

TEST(AotHost, SimpsonStack) {
  EXPECT_EQ(compare_with_jit(aot_test::simpson_stack(), simpson_stack, simpson_args()), "");
}

TEST(AotHost, SimpsonBroadcast) {
  EXPECT_EQ(compare_with_jit(aot_test::simpson_broadcast(), simpson_broadcast, simpson_args()), "");
}

TEST(AotHost, SimpsonThroughTheCppWrapper) {
  const std::vector<Array> args = simpson_args();
  const Array expected = jit_outputs(aot_test::simpson_stack(), args)[0];
  const std::vector<double> a = args[0].to_vector<double>(), b = args[1].to_vector<double>();
  std::vector<double> S(size_t(expected.size()), std::nan(""));
  simpson_stack_aot::call(a, b, S);
  EXPECT_EQ(aot_test::first_mismatch(expected, expected.data(), S.data()), "");
  EXPECT_EQ(simpson_stack_aot::result0_shape, (std::array<int64_t, 2>{200, 100}));
  EXPECT_EQ(simpson_stack_aot::result0_dtype, JX_AOT_FLOAT64);
}

TEST(AotHost, SimpsonCalledFromC) {
  const std::vector<Array> args = simpson_args();
  const Array expected = jit_outputs(aot_test::simpson_stack(), args)[0];
  const std::vector<double> a = args[0].to_vector<double>(), b = args[1].to_vector<double>();
  std::vector<double> S(size_t(expected.size()), std::nan(""));
  char error[256] = "";
  ASSERT_EQ(c_call_simpson_stack(a.data(), b.data(), S.data(), error, sizeof error), JX_AOT_OK)
      << error;
  EXPECT_EQ(aot_test::first_mismatch(expected, expected.data(), S.data()), "");
}

TEST(AotHost, DiffSeedInThreeShardings) {
  const std::vector<std::pair<std::pair<int, int>, Entry>> layouts = {
      {{1, 1}, diff_1x1}, {{8, 1}, diff_8x1}, {{1, 8}, diff_1x8}};
  for (const auto &[mesh, entry] : layouts) {
    SCOPED_TRACE(fmt::format("mesh ({}, {})", mesh.first, mesh.second));
    EXPECT_EQ(compare_with_jit(aot_test::diff(mesh.first, mesh.second), entry, {diff_input()}), "");
  }
}

TEST(AotHost, DiffSeedThroughTheCppWrapperIsExact) {
  const size_t n = size_t(aot_test::diff_n);
  const double *x = static_cast<const double *>(diff_input().data());
  std::vector<double> out(n * n, std::nan(""));
  diff_8x1_aot::call(std::span<const double>(x, n * n), out);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      wrong += out[i * n + j] != (i ? x[i * n + j] - x[(i - 1) * n + j] : x[j]);
  EXPECT_EQ(wrong, 0u);
}

// ---- random numbers, targeted functions: bit for bit ----

TEST(AotHost, RandomNormal) {
  EXPECT_EQ(compare_with_jit(aot_test::random_normal(), random_normal, {}), "");
  // A function of no arguments through the C++ wrapper.
  const std::vector<Array> expected = jit_outputs(aot_test::random_normal(), {});
  std::vector<double> normal64(256 * 256);
  std::vector<float> normal32(static_cast<size_t>(aot_test::math_n));
  random_normal_aot::call(normal64, normal32);
  EXPECT_EQ(aot_test::first_mismatch(expected[0], expected[0].data(), normal64.data()), "");
  EXPECT_EQ(aot_test::first_mismatch(expected[1], expected[1].data(), normal32.data()), "");
}

TEST(AotHost, RandomUniform) {
  EXPECT_EQ(compare_with_jit(aot_test::random_uniform(), random_uniform, {}), "");
}

TEST(AotHost, SeveralOutputs) {
  const std::vector<Array> args = {random_array({64, 33}, jx::float64, 1, -3, 3),
                                   random_array({64, 33}, jx::float64, 2, -3, 3)};
  EXPECT_EQ(compare_with_jit(aot_test::several_outputs(), several_outputs, args), "");
}

TEST(AotHost, ArgumentsReturnedUnchanged) {
  const std::vector<Array> args = {random_array({10, 7}, jx::float64, 3, -1, 1),
                                   random_array({10, 7}, jx::float64, 4, -1, 1),
                                   random_array({5}, jx::int32, 5, -100, 100)};
  const std::vector<Array> expected = jit_outputs(aot_test::passthrough(), args);
  EXPECT_EQ(compare_with_jit(expected, passthrough, args), "");
  // And they are the arguments' bits.
  EXPECT_EQ(aot_test::first_mismatch(args[0], args[0].data(), expected[0].data()), "");
  EXPECT_EQ(aot_test::first_mismatch(args[2], args[2].data(), expected[3].data()), "");
}

TEST(AotHost, ConstantOutputs) {
  const std::vector<Array> args = {random_array({8}, jx::float64, 6, -1, 1)};
  const std::vector<Array> expected = jit_outputs(aot_test::constant_output(), args);
  EXPECT_EQ(compare_with_jit(expected, constant_output, args), "");
  EXPECT_EQ(expected[1].to_vector<double>(), (std::vector<double>{1.5, -2.0, 3.25, 1e300}));
  EXPECT_EQ(expected[4].to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3}));
}

TEST(AotHost, RepeatedOutputs) {
  const std::vector<Array> args = {random_array({100, 3}, jx::float64, 7, -5, 5)};
  EXPECT_EQ(compare_with_jit(aot_test::repeated_output(), repeated_output, args), "");
}

TEST(AotHost, IntegerPower) {
  EXPECT_EQ(compare_with_jit(aot_test::int_power(), int_power, int_power_args()), "");
}

TEST(AotHost, Float32Math) {
  EXPECT_EQ(compare_with_jit(aot_test::float32_math(), float32_math, float32_math_args()), "");
}

TEST(AotHost, BoolOutputs) {
  Array x = random_array({37, 5}, jx::float64, 8, -1, 1);
  x = x.at(3, 2).set(std::nan("")).at(0, 0).set(0.0);
  const std::vector<Array> args = {x, random_array({37, 5}, jx::float64, 9, -1, 1)};
  EXPECT_EQ(compare_with_jit(aot_test::bool_output(), bool_output, args), "");
  // Through the C++ wrapper: spans of bool.
  const std::vector<Array> expected = jit_outputs(aot_test::bool_output(), args);
  const std::vector<double> xs = args[0].to_vector<double>(), ys = args[1].to_vector<double>();
  std::unique_ptr<bool[]> r0(new bool[37 * 5]), r1(new bool[37 * 5]), r2(new bool[37 * 5]);
  bool_output_aot::call(xs, ys, {r0.get(), 37 * 5}, {r1.get(), 37 * 5}, {r2.get(), 37 * 5});
  EXPECT_EQ(aot_test::first_mismatch(expected[0], expected[0].data(), r0.get()), "");
  EXPECT_EQ(aot_test::first_mismatch(expected[1], expected[1].data(), r1.get()), "");
  EXPECT_EQ(aot_test::first_mismatch(expected[2], expected[2].data(), r2.get()), "");
}

TEST(AotHost, ScalarOutputs) {
  const std::vector<Array> args = {random_array({50}, jx::float64, 10, -1, 1),
                                   jnp::array(1.25, jx::float64)};
  EXPECT_EQ(compare_with_jit(aot_test::scalar_output(), scalar_output, args), "");
  // Through the C++ wrapper: 0-d arrays are spans of one element.
  const std::vector<Array> expected = jit_outputs(aot_test::scalar_output(), args);
  const std::vector<double> x = args[0].to_vector<double>();
  const double s = 1.25;
  double sum = 0, twice = 0;
  int64_t argmax = -1;
  scalar_output_aot::call(x, {&s, 1}, {&sum, 1}, {&argmax, 1}, {&twice, 1});
  EXPECT_EQ(sum, expected[0].item<double>());
  EXPECT_EQ(argmax, expected[1].item<int64_t>());
  EXPECT_EQ(twice, 2.5);
  EXPECT_EQ(scalar_output_aot::arg1_shape.size(), 0u);
}

TEST(AotHost, Reductions) {
  const std::vector<Array> args = {random_array({300, 1000}, jx::float64, 11, -1, 1)};
  EXPECT_EQ(compare_with_jit(aot_test::reduction(), reduction, args), "");
}

TEST(AotHost, EmptyArrays) {
  const std::vector<Array> args = {jnp::zeros({0, 3}), random_array({4}, jx::float64, 12, -1, 1)};
  EXPECT_EQ(compare_with_jit(aot_test::empty_arrays(), empty_arrays, args), "");
  // Through the C++ wrapper, with empty spans (null data).
  const std::vector<double> y = args[1].to_vector<double>();
  std::vector<double> sum(3, -1.0), z(4);
  empty_arrays_aot::call({}, y, {}, sum, z);
  EXPECT_EQ(sum, (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(z[3], y[3] + 1.0);
}

// A function jitted with donate_argnums: the AOT call leaves its argument alone and computes the
// JIT's result.
TEST(AotHost, DonatedArgumentIsLeftAlone) {
  const Array x = random_array({1000}, jx::float64, 15, -1, 1);
  const std::vector<double> before = x.to_vector<double>();
  // The JIT takes a copy's memory (the donated array is deleted).
  const Array copy = jnp::array(before);
  const std::vector<Array> expected = jit_outputs(aot_test::donated_argument(), {copy});
  std::vector<double> out(1000);
  donated_argument_aot::call(before, out);
  EXPECT_EQ(aot_test::first_mismatch(expected[0], expected[0].data(), out.data()), "");
  EXPECT_EQ(x.to_vector<double>(), before);
  const std::vector<aot_test::ResultBuffer> results = run_aot(donated_argument, {x}, expected);
  EXPECT_EQ(aot_test::first_mismatch(expected[0], expected[0].data(), results[0].data()), "");
  EXPECT_EQ(x.to_vector<double>(), before);
}

TEST(AotHost, ShardingConstraintInside) {
  const std::vector<Array> args = {random_array({64, 40}, jx::float64, 13, -2, 2)};
  EXPECT_EQ(compare_with_jit(aot_test::sharding_constraint(), sharding_constraint, args), "");
}

// Contractions run as the runtime's gemm steps in both: the same tiles and cblas calls, so the
// same bits, epilogue kernels included.
// jit(value_and_grad(f)) and jit(grad(f)) lowered and compiled ahead of time like any program.
TEST(AotHost, ValueAndGradEqualsTheJit) {
  std::vector<Array> args = {random_array({16, 24}, jx::float64, 41, -1, 1),
                             random_array({40, 16}, jx::float64, 42, -1, 1)};
  for (const Array &a : simpson_args())
    args.push_back(a);
  EXPECT_EQ(compare_with_jit(aot_test::value_and_grad(), value_and_grad, args), "");
}

// Loops and branches: one object function, bit for bit the jit's (the same regions' kernels).
TEST(AotHost, ControlFlowEqualsTheJit) {
  const std::string plan = aot_test::control_flow().compile().as_text();
  for (const char *kind : {"while", "case", "scan"})
    EXPECT_NE(plan.find(fmt::format(" {} reads", kind)), std::string::npos) << kind;
  for (int which : {-1, 0, 1, 7}) {
    const std::vector<Array> args = {random_array({32, 48}, jx::float64, 51, -1, 1),
                                     random_array({7, 5}, jx::float64, 52 + which, -1, 1),
                                     jnp::array(which, jx::int32)};
    EXPECT_EQ(compare_with_jit(aot_test::control_flow(), control_flow, args), "") << which;
  }
}

// Updates in place in an object: the loop's carry (its chain of updates staged each step inside
// one kernel), a scatter, an intermediate returned.
TEST(AotHost, UpdatesEqualTheJit) {
  const std::string plan = aot_test::updates().compile().as_text();
  EXPECT_NE(plan.find("(loop of 12 steps inside the kernel, step by step"), std::string::npos)
      << plan;
  for (int k : {0, 5, -3, 40}) {
    const std::vector<Array> args = {random_array({24, 40}, jx::float64, 71, -1, 1),
                                     jnp::array(k, jx::int32)};
    EXPECT_EQ(compare_with_jit(aot_test::updates(), updates, args), "") << k;
  }
}

// Loops run step by step inside one kernel: the object's kernel is the jit's.
TEST(AotHost, SequentialLoopsEqualTheJit) {
  const std::string plan = aot_test::sequential_loops().compile().as_text();
  EXPECT_NE(plan.find("(loop of 38 steps inside the kernel"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(while loop inside the kernel"), std::string::npos) << plan;
  for (int n : {0, 7, 40}) {
    const std::vector<Array> args = {random_array({24, 40}, jx::float64, 81, -1, 1),
                                     jnp::array(n, jx::int32)};
    EXPECT_EQ(compare_with_jit(aot_test::sequential_loops(), sequential_loops, args), "") << n;
  }
}

TEST(AotHost, SortsAndScansEqualTheJit) {
  const std::string plan = aot_test::sort_and_scan().compile().as_text();
  for (const char *op : {"sort", "argsort", "cumsum", "cumprod", "cummax", "fft"})
    EXPECT_NE(plan.find(fmt::format("library {} ", op)), std::string::npos) << op;
  const std::vector<Array> args = {random_array({9, 40}, jx::float64, 61, -3, 3),
                                   random_array({9, 40}, jx::int32, 62, -4, 4)};
  EXPECT_EQ(compare_with_jit(aot_test::sort_and_scan(), sort_and_scan, args), "");
}

TEST(AotHost, LinearAlgebraEqualsTheJit) {
  const std::string plan = aot_test::linear_algebra().compile().as_text();
  for (const char *op : {"cholesky", "solve", "determinant", "eigh", "svd", "qr"})
    EXPECT_NE(plan.find(fmt::format("library {} ", op)), std::string::npos) << op;
  const std::vector<Array> args = {random_array({3, 6, 6}, jx::float64, 71, -1, 1),
                                   random_array({6, 2}, jx::float64, 72, -1, 1)};
  EXPECT_EQ(compare_with_jit(aot_test::linear_algebra(), linear_algebra, args), "");
}

TEST(AotHost, Contractions) {
  const std::string plan = aot_test::contraction().compile().as_text();
  int gemms = 0;
  for (size_t at = plan.find("= gemm dot_general"); at != std::string::npos;
       at = plan.find("= gemm dot_general", at + 1))
    ++gemms;
  EXPECT_EQ(gemms, 5) << plan.substr(0, plan.find("\n\n"));
  const std::vector<Array> args = {random_array({48, 67}, jx::float64, 31, -1, 1),
                                   random_array({48, 53}, jx::float64, 32, -1, 1),
                                   random_array({53}, jx::float64, 33, -1, 1),
                                   random_array({70, 40}, jx::float32, 34, -1, 1),
                                   random_array({90, 40}, jx::float32, 35, -1, 1),
                                   random_array({5, 53, 31}, jx::float64, 36, -1, 1),
                                   random_array({256, 160}, jx::float32, 37, -1, 1)};
  EXPECT_EQ(compare_with_jit(aot_test::contraction(), contraction, args), "");
}

// Buffers aligned only to their element type, not to the runtime's 64 bytes.
TEST(AotHost, UnalignedBuffers) {
  const std::vector<Array> args = float32_math_args();
  const std::vector<Array> expected = jit_outputs(aot_test::float32_math(), args);
  std::vector<aot_test::ResultBuffer> inputs, results;
  std::vector<jx_aot_array> in, out;
  for (const Array &a : args) {
    inputs.emplace_back(a, 4);
    std::memcpy(inputs.back().data(), a.data(), inputs.back().size());
  }
  for (size_t i = 0; i < args.size(); ++i)
    in.push_back({inputs[i].data(), JX_AOT_FLOAT32, 1, args[i].shape().data()});
  for (size_t i = 0; i < expected.size(); ++i)
    results.emplace_back(expected[i], 4 + 4 * i);
  for (size_t i = 0; i < expected.size(); ++i)
    out.push_back({results[i].data(), JX_AOT_FLOAT32, 1, expected[i].shape().data()});
  char error[256] = "";
  ASSERT_EQ(float32_math(in.data(), 2, out.data(), int32_t(out.size()), error, sizeof error),
            JX_AOT_OK)
      << error;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(results[i].guards_intact()) << "result " << i;
    EXPECT_EQ(aot_test::first_mismatch(expected[i], expected[i].data(), results[i].data()), "")
        << "result " << i;
  }
}

// Each random graph (zero arguments, literal leaves), compiled ahead of time and by the JIT: the
// same bytes, NaN payloads included.
TEST(AotHost, RandomGraphs) {
  struct Graph {
    uint64_t seed;
    Entry entry;
  };
#define JX_AOT_TEST_GRAPH_ENTRY(SEED) Graph{SEED, jx_aot_fn_random_graph_##SEED},
  const std::vector<Graph> graphs = {JX_AOT_TEST_RANDOM_GRAPHS(JX_AOT_TEST_GRAPH_ENTRY)};
#undef JX_AOT_TEST_GRAPH_ENTRY
  int failures = 0;
  int64_t elements = 0;
  for (const Graph &g : graphs) {
    const std::string problems = compare_with_jit(aot_test::random_graph(g.seed), g.entry, {});
    elements += jit_outputs(aot_test::random_graph(g.seed), {})[0].size();
    if (!problems.empty())
      ADD_FAILURE() << "seed " << g.seed << ": " << problems
                    << jx::diff::random_graph(g.seed).description;
    failures += !problems.empty();
  }
  fmt::print("{} random graphs ({} elements), {} differ\n", graphs.size(), elements, failures);
}

// Several threads calling AOT functions at once (overlapping calls share the decoded program
// and the thread pool, each with its own arena) get the results of single calls.
TEST(AotHost, ConcurrentCalls) {
  struct Case {
    Entry entry;
    std::vector<Array> args, expected;
  };
  std::vector<Case> cases;
  cases.push_back({simpson_broadcast, simpson_args(), {}});
  cases.push_back({float32_math, float32_math_args(), {}});
  cases.push_back({reduction, {random_array({300, 1000}, jx::float64, 14, -1, 1)}, {}});
  cases.push_back({random_normal, {}, {}});
  cases[0].expected = jit_outputs(aot_test::simpson_broadcast(), cases[0].args);
  cases[1].expected = jit_outputs(aot_test::float32_math(), cases[1].args);
  cases[2].expected = jit_outputs(aot_test::reduction(), cases[2].args);
  cases[3].expected = jit_outputs(aot_test::random_normal(), {});
  constexpr int threads = 8, calls = 10;
  std::atomic<int> mismatches = 0, errors = 0;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int c = 0; c < calls; ++c) {
        const Case &k = cases[size_t(t + c) % cases.size()];
        std::vector<jx_aot_array> in, out;
        for (const Array &a : k.args)
          in.push_back({const_cast<void *>(a.data()), int32_t(a.dtype()), int32_t(a.ndim()),
                        a.shape().data()});
        std::vector<std::vector<unsigned char>> results;
        for (const Array &e : k.expected)
          results.emplace_back(size_t(e.size()) * jx::itemsize(e.dtype()));
        for (size_t i = 0; i < results.size(); ++i)
          out.push_back({results[i].data(), int32_t(k.expected[i].dtype()),
                         int32_t(k.expected[i].ndim()), k.expected[i].shape().data()});
        char error[256] = "";
        if (k.entry(in.data(), int32_t(in.size()), out.data(), int32_t(out.size()), error,
                    sizeof error) != JX_AOT_OK) {
          ++errors;
          continue;
        }
        for (size_t i = 0; i < results.size(); ++i)
          mismatches +=
              std::memcmp(results[i].data(), k.expected[i].data(), results[i].size()) != 0;
      }
    });
  for (std::thread &t : pool)
    t.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(mismatches, 0);
}

// ---- the x86-64-v3 library: libm results within the tiers' tolerance, the rest exact ----

// Runs entry and the JIT on args; expects each result within its tolerance and prints how many
// elements differ at all.
template <class Out>
void expect_within(const jx::Lowered<Out> &lowered, Entry entry, const std::vector<Array> &args,
                   const std::vector<Tolerance> &tolerances) {
  const std::vector<Array> expected = jit_outputs(lowered, args);
  const std::vector<aot_test::ResultBuffer> actual = run_aot(entry, args, expected);
  ASSERT_EQ(actual.size(), tolerances.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(
        aot_test::first_mismatch(expected[i], expected[i].data(), actual[i].data(), tolerances[i]),
        "")
        << "result " << i;
    const aot_test::Differences d =
        aot_test::differences(expected[i], expected[i].data(), actual[i].data());
    fmt::print("result {}: {} of {} elements differ from the JIT's, by at most {} ulp\n", i,
               d.elements, expected[i].size(), d.max_ulps);
  }
}

TEST_F(AotX86v3, SimpsonWithinTolerance) {
  expect_within(aot_test::simpson_stack(), v3_simpson_stack, simpson_args(), {libm_tier});
  expect_within(aot_test::simpson_broadcast(), v3_simpson_broadcast, simpson_args(), {libm_tier});
}

TEST_F(AotX86v3, ValueAndGradWithinTolerance) {
  std::vector<Array> args = {random_array({16, 24}, jx::float64, 41, -1, 1),
                             random_array({40, 16}, jx::float64, 42, -1, 1)};
  for (const Array &a : simpson_args())
    args.push_back(a);
  // The weights' gradient sums 40 products of tanh's derivative, which can cancel (element
  // (12, 21) is ~1e-4 of its terms' size), so tanh's last-ulp differences between the math
  // tiers grow relative to such sums.
  const Tolerance cancelled{.ulps = 8, .relative = 1e-9};
  expect_within(aot_test::value_and_grad(), v3_value_and_grad, args,
                {libm_tier, cancelled, libm_tier, libm_tier});
}

TEST_F(AotX86v3, DiffSeedIsExact) {
  const std::vector<std::pair<std::pair<int, int>, Entry>> layouts = {
      {{1, 1}, v3_diff_1x1}, {{8, 1}, v3_diff_8x1}, {{1, 8}, v3_diff_1x8}};
  for (const auto &[mesh, entry] : layouts) {
    SCOPED_TRACE(fmt::format("mesh ({}, {})", mesh.first, mesh.second));
    EXPECT_EQ(compare_with_jit(aot_test::diff(mesh.first, mesh.second), entry, {diff_input()}), "");
  }
}

TEST_F(AotX86v3, RandomNormalIsExact) {
  EXPECT_EQ(compare_with_jit(aot_test::random_normal(), v3_random_normal, {}), "");
}

TEST_F(AotX86v3, IntegerPowerIsExact) {
  EXPECT_EQ(compare_with_jit(aot_test::int_power(), v3_int_power, int_power_args()), "");
}

TEST_F(AotX86v3, Float32MathWithinTolerance) {
  // exp, log, pow, tanh: each within 4 ulp of libm's in both tiers, so within 8 of each other;
  // the last result, exp(-x) * pow(x, y) + tanh(y)^2 (terms >= 0), within 2 * (8.5 + 0.5).
  const Tolerance single{.ulps = 8}, combined{.ulps = 24};
  expect_within(aot_test::float32_math(), v3_float32_math, float32_math_args(),
                {single, single, single, single, combined});
}

// A header names the CPU and math tier its object was compiled for.
TEST_F(AotX86v3, HeaderNamesItsCpu) {
  std::ifstream in(JX_AOT_TEST_V3_DIR "/v3_float32_math.h");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("for CPU x86-64-v3 (math tier avx2)"), std::string::npos) << text;
  EXPECT_NE(text.find("v3_float32_math(float32[1003], float32[1003]) -> (float32[1003], "
                      "float32[1003], float32[1003], float32[1003], float32[1003])"),
            std::string::npos)
      << text;
}

// ---- the x86-64 baseline library (scalar tier: libm's functions) ----

TEST(AotX86Baseline, SimpsonWithinTolerance) {
  expect_within(aot_test::simpson_stack(), base_simpson_stack, simpson_args(), {libm_tier});
}

TEST(AotX86Baseline, DiffSeedAndRandomNormalAreExact) {
  EXPECT_EQ(compare_with_jit(aot_test::diff(1, 8), base_diff_1x8, {diff_input()}), "");
  EXPECT_EQ(compare_with_jit(aot_test::random_normal(), base_random_normal, {}), "");
}

TEST(AotX86Baseline, Float32MathWithinTolerance) {
  // As for x86-64-v3 (libm's functions are the reference the vector variants are within 4 ulp of).
  const Tolerance single{.ulps = 8}, combined{.ulps = 24};
  expect_within(aot_test::float32_math(), base_float32_math, float32_math_args(),
                {single, single, single, single, combined});
}

} // namespace
