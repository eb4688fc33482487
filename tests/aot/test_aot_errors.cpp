// What can go wrong around ahead-of-time compiled functions: bad calls of a generated entry
// point (a status and a message naming the problem, results untouched), the C++ wrapper's
// CallError, the ABI version, the program encoding against corrupt words, and jx::aot::compile's
// and the generator's errors and files.
#include <jx/aot.h>
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>

#include "aot/aot_test_util.h"
#include "aot/functions.h"
#include "aot/program_fixtures.h"
#include "api/traced_program.h"
#include "runtime/aot.h"
#include "several_outputs.h"
#include "simpson_stack.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using aot_test::ResultBuffer;
using jx::Array;
using test_util::expect_error;

// ---- bad calls of an entry point ----

// A call of simpson_stack (float64[100], float64[100]) -> (float64[200,100]) that tests break
// one piece at a time.
class SimpsonCall : public testing::Test {
protected:
  SimpsonCall()
      : a(100, 0.5), b(100, 1.5), like(jx::numpy::zeros({200, 100})),
        result(like), args{{{a.data(), JX_AOT_FLOAT64, 1, interval_shape},
                            {b.data(), JX_AOT_FLOAT64, 1, interval_shape}}},
        results{{{result.data(), JX_AOT_FLOAT64, 2, result_shape}}} {}

  // Calls it; error gets the message.
  int32_t call(int32_t num_args = 2, int32_t num_results = 1) {
    return call_with(args.data(), num_args, results.data(), num_results);
  }
  int32_t call_with(const jx_aot_array *in, int32_t num_args, const jx_aot_array *out,
                    int32_t num_results) {
    std::memset(error, 'x', sizeof error);
    error[sizeof error - 1] = 0;
    return simpson_stack(in, num_args, out, num_results, error, sizeof error);
  }
  // Expects JX_AOT_ERROR_ARGUMENTS, a message containing each of parts, and no result written.
  void expect_rejected(int32_t status, std::initializer_list<std::string> parts) {
    EXPECT_EQ(status, JX_AOT_ERROR_ARGUMENTS);
    for (const std::string &part : parts)
      EXPECT_NE(std::string(error).find(part), std::string::npos)
          << "message: " << error << "\nexpected it to contain: " << part;
    EXPECT_TRUE(result.untouched()) << "a failed call wrote its result";
  }

  std::vector<double> a, b;
  Array like;
  ResultBuffer result;
  int64_t interval_shape[1] = {100}, result_shape[2] = {200, 100};
  std::array<jx_aot_array, 2> args;
  std::array<jx_aot_array, 1> results;
  char error[512];
};

TEST_F(SimpsonCall, Succeeds) {
  EXPECT_EQ(call(), JX_AOT_OK) << error;
  EXPECT_FALSE(result.untouched());
  EXPECT_TRUE(result.guards_intact());
}

TEST_F(SimpsonCall, WrongArgumentCount) {
  expect_rejected(call(1, 1), {"called with 1 arguments and 1 results",
                               "takes 2 arguments (float64[100], float64[100])",
                               "returns 1 results (float64[200,100])"});
  expect_rejected(call(3, 1), {"called with 3 arguments"});
  expect_rejected(call(-1, 1), {"called with -1 arguments"});
}

TEST_F(SimpsonCall, WrongResultCount) {
  expect_rejected(call(2, 0), {"called with 2 arguments and 0 results",
                               "returns 1 results (float64[200,100])"});
  expect_rejected(call(2, 2), {"called with 2 arguments and 2 results"});
}

TEST_F(SimpsonCall, WrongDtype) {
  args[1].dtype = JX_AOT_FLOAT32;
  expect_rejected(call(), {"argument 1 is float32[100], expected float64[100]"});
  args[1].dtype = JX_AOT_FLOAT64;
  results[0].dtype = JX_AOT_INT64;
  expect_rejected(call(), {"result 0 is int64[200,100], expected float64[200,100]"});
}

TEST_F(SimpsonCall, UnknownDtypeCode) {
  args[0].dtype = 7; // uint8: a known dtype, not the one compiled for
  expect_rejected(call(), {"argument 0 is uint8[100], expected float64[100]"});
  args[0].dtype = jx::num_dtypes;
  expect_rejected(call(), {"argument 0 is dtype code " + std::to_string(jx::num_dtypes) +
                           ", rank 1, expected float64[100]"});
  args[0].dtype = -1;
  expect_rejected(call(), {"argument 0 is dtype code -1"});
}

TEST_F(SimpsonCall, WrongRank) {
  const int64_t column[2] = {100, 1};
  args[1].rank = 2;
  args[1].shape = column;
  expect_rejected(call(), {"argument 1 is float64[100,1], expected float64[100]"});
  args[1].rank = 0;
  expect_rejected(call(), {"argument 1 is float64[], expected float64[100]"});
  args[1].rank = -3;
  expect_rejected(call(), {"argument 1 is dtype code 4, rank -3, expected float64[100]"});
  args[1] = args[0];
  results[0].rank = 1;
  expect_rejected(call(), {"result 0 is float64[200], expected float64[200,100]"});
}

TEST_F(SimpsonCall, WrongShape) {
  const int64_t shorter[1] = {99};
  args[0].shape = shorter;
  expect_rejected(call(), {"argument 0 is float64[99], expected float64[100]"});
  args[0].shape = interval_shape;
  const int64_t transposed[2] = {100, 200};
  results[0].shape = transposed;
  expect_rejected(call(), {"result 0 is float64[100,200], expected float64[200,100]"});
  // A shape pointer that is null where the rank needs one.
  results[0].shape = nullptr;
  expect_rejected(call(), {"result 0 is", "expected float64[200,100]"});
}

TEST_F(SimpsonCall, NullData) {
  args[1].data = nullptr;
  expect_rejected(call(), {"argument 1 has no data"});
  args[1].data = b.data();
  results[0].data = nullptr;
  expect_rejected(call(), {"result 0 has no data"});
}

TEST_F(SimpsonCall, NullArgumentArray) {
  // The count is right; the array is missing. The message should say so.
  expect_rejected(call_with(nullptr, 2, results.data(), 1), {"null"});
}

TEST_F(SimpsonCall, NullResultArray) {
  expect_rejected(call_with(args.data(), 2, nullptr, 1), {"null"});
}

TEST_F(SimpsonCall, ResultOverlappingAnArgument) {
  // The result's last elements are argument 1's first ones.
  std::vector<double> shared(20000 + 50, 0.25);
  args[1].data = shared.data() + 19950;
  results[0].data = shared.data();
  const std::vector<double> before = shared;
  EXPECT_EQ(call(), JX_AOT_ERROR_ARGUMENTS);
  EXPECT_NE(std::string(error).find("result 0 overlaps argument 1"), std::string::npos) << error;
  EXPECT_TRUE(shared == before) << "a failed call wrote its result";
  // Right after it, not overlapping: accepted.
  std::vector<double> adjacent(20000 + 100, 0.25);
  results[0].data = adjacent.data();
  args[1].data = adjacent.data() + 20000;
  EXPECT_EQ(call(), JX_AOT_OK) << error;
}

TEST(AotCall, OverlappingResults) {
  // several_outputs: (float64[64,33], float32[64,33], float64[33,64], float64[64,33]).
  std::vector<double> x(64 * 33, 1.0), y(64 * 33, 2.0);
  const int64_t shape[2] = {64, 33}, transposed[2] = {33, 64};
  const jx_aot_array args[2] = {{x.data(), JX_AOT_FLOAT64, 2, shape},
                                {y.data(), JX_AOT_FLOAT64, 2, shape}};
  std::vector<double> r0(64 * 33), r2(64 * 33), r3(64 * 33);
  std::vector<float> r1(64 * 33);
  jx_aot_array results[4] = {{r0.data(), JX_AOT_FLOAT64, 2, shape},
                             {r1.data(), JX_AOT_FLOAT32, 2, shape},
                             {r2.data(), JX_AOT_FLOAT64, 2, transposed},
                             {r3.data(), JX_AOT_FLOAT64, 2, shape}};
  char error[256] = "";
  ASSERT_EQ(several_outputs(args, 2, results, 4, error, sizeof error), JX_AOT_OK) << error;
  // Result 3 starting in the middle of result 0.
  std::fill(r0.begin(), r0.end(), -7.0);
  results[3].data = r0.data() + 100;
  EXPECT_EQ(several_outputs(args, 2, results, 4, error, sizeof error), JX_AOT_ERROR_ARGUMENTS);
  EXPECT_NE(std::string(error).find("result 3 overlaps result 0"), std::string::npos) << error;
  EXPECT_TRUE(std::all_of(r0.begin(), r0.end(), [](double v) { return v == -7.0; }));
  // Two results in one buffer.
  results[3].data = r2.data();
  EXPECT_EQ(several_outputs(args, 2, results, 4, error, sizeof error), JX_AOT_ERROR_ARGUMENTS);
  EXPECT_NE(std::string(error).find("result 3 overlaps result 2"), std::string::npos) << error;
}

TEST_F(SimpsonCall, ErrorBufferSizes) {
  args[0].dtype = JX_AOT_INT32;
  // A short buffer gets the start of the message, terminated.
  char small[12];
  std::memset(small, 'x', sizeof small);
  EXPECT_EQ(simpson_stack(args.data(), 2, results.data(), 1, small, sizeof small),
            JX_AOT_ERROR_ARGUMENTS);
  EXPECT_EQ(std::strlen(small), sizeof small - 1);
  // No buffer at all: the status alone.
  EXPECT_EQ(simpson_stack(args.data(), 2, results.data(), 1, nullptr, 0), JX_AOT_ERROR_ARGUMENTS);
  EXPECT_EQ(simpson_stack(args.data(), 2, results.data(), 1, small, 0), JX_AOT_ERROR_ARGUMENTS);
  EXPECT_TRUE(result.untouched());
}

// ---- the C++ wrapper ----

TEST(AotWrapper, WrongSpanSizeThrowsCallError) {
  std::vector<double> a(100), b(99), S(200 * 100);
  try {
    simpson_stack_aot::call(a, b, S);
    FAIL() << "no CallError";
  } catch (const jx::aot::CallError &e) {
    EXPECT_EQ(e.status(), JX_AOT_ERROR_ARGUMENTS);
    EXPECT_STREQ(e.what(), "simpson_stack: arg1 has 99 elements, expected 100 (float64[100])");
  }
  b.resize(100);
  S.resize(10);
  try {
    simpson_stack_aot::call(a, b, S);
    FAIL() << "no CallError";
  } catch (const jx::aot::CallError &e) {
    EXPECT_EQ(e.status(), JX_AOT_ERROR_ARGUMENTS);
    EXPECT_STREQ(e.what(),
                 "simpson_stack: result0 has 10 elements, expected 20000 (float64[200,100])");
  }
  // A CallError is a std::runtime_error.
  EXPECT_THROW(simpson_stack_aot::call(a, b, S), std::runtime_error);
}

// ---- the ABI version and the program encoding ----

TEST(AotAbi, RuntimeVersionIsTheHeaders) { EXPECT_EQ(jx_aot_abi_version(), JX_AOT_ABI_VERSION); }

namespace rt = jx::runtime;
using aot_test::fake_kernel;
using aot_test::kernel_calls;
using aot_test::object_of;
using aot_test::other_kernel;
using aot_test::tables_of;

rt::Program every_kind_of_step() { return aot_test::every_kind_of_step(); }
const rt::aot::Signature &signature = aot_test::every_kind_signature;
constexpr uint64_t some_features = 0b1011;
constexpr int64_t threads = 3;

// Decodes words with the tables of `program` (every_kind_of_step's by default).
rt::aot::Decoded decode(const std::vector<int64_t> &words,
                        const rt::Program &program = every_kind_of_step(),
                        const rt::aot::Signature &sig = signature) {
  const aot_test::ObjectTables tables = tables_of(program, sig);
  return rt::aot::decode(object_of(words, tables), threads);
}

// Sets words' table sizes (words 4 and 5) to those of program's tables and seals them again:
// words edited on purpose, that only the validator can refuse.
std::vector<int64_t> resealed(std::vector<int64_t> words, const rt::Program &program) {
  const aot_test::ObjectTables tables = tables_of(program, signature);
  words[4] = int64_t(tables.kernels.size());
  words[5] = int64_t(tables.constants.size());
  rt::aot::seal(words);
  return words;
}

TEST(AotEncoding, RoundTrip) {
  const rt::Program p = every_kind_of_step();
  const std::vector<int64_t> words = rt::aot::encode(p, signature, some_features);
  const rt::aot::Decoded d = decode(words);
  EXPECT_EQ(d.required_features, some_features);
  EXPECT_EQ(rt::aot::spec_text(d.signature.args), "float64[2,2]");
  EXPECT_EQ(rt::aot::spec_text(d.signature.results), "bool[], int64[4]");
  const rt::Program &q = d.program;
  EXPECT_EQ(q.slot_count, p.slot_count);
  EXPECT_EQ(q.arena_bytes, p.arena_bytes);
  EXPECT_EQ(q.arena_offset, p.arena_offset);
  EXPECT_EQ(q.outputs, p.outputs);
  ASSERT_EQ(q.steps.size(), p.steps.size());
  for (size_t i = 0; i < p.steps.size(); ++i) {
    SCOPED_TRACE(i);
    const rt::Step &s = p.steps[i], &t = q.steps[i];
    EXPECT_EQ(t.kind, s.kind);
    EXPECT_EQ(t.outs, s.outs);
    EXPECT_EQ(t.out_bytes, s.out_bytes);
    EXPECT_EQ(t.frees, s.frees);
    EXPECT_EQ(t.argument, s.argument);
    EXPECT_EQ(t.key_hi, s.key_hi);
    EXPECT_EQ(t.key_lo, s.key_lo);
    EXPECT_EQ(t.dtype, s.dtype);
    EXPECT_EQ(t.kernel, s.kernel);
    EXPECT_EQ(t.inputs, s.inputs);
    EXPECT_EQ(t.literals, s.literals);
    EXPECT_EQ(t.extent, s.extent);
    EXPECT_EQ(t.outer, s.outer);
    EXPECT_EQ(t.grain, s.grain);
    EXPECT_EQ(t.boxes, s.boxes);
    EXPECT_EQ(t.box_work, s.box_work);
    // Tasks are split again for the pool that runs the program.
    EXPECT_EQ(t.tasks, rt::split_boxes(s.boxes, s.extent.size(), s.box_work, threads));
  }
  // The constant is bound from the table, not copied.
  ASSERT_TRUE(q.steps[1].value);
  EXPECT_EQ(q.steps[1].value()->bytes(), 32u);
  EXPECT_EQ(q.steps[1].value()->as<double>()[3], 4.0);
  // Encoding the decoded program gives the same words.
  EXPECT_EQ(rt::aot::encode(q, d.signature, d.required_features), words);
}

// A program the JIT compiled, encoded and decoded, runs to the JIT's results.
TEST(AotEncoding, DecodedJitProgramRunsLikeTheJit) {
  const auto compiled = aot_test::float32_math().compile();
  const jx::detail::Program &program = *compiled.program();
  rt::Program run = program.executable->program();
  rt::aot::Signature sig;
  for (const jx::ShapeDtypeStruct &s : program.specs)
    sig.args.push_back({s.dtype, s.shape});
  for (const auto &o : program.outputs)
    sig.results.push_back({o->dtype, o->shape});
  std::vector<jx_aot_kernel> kernels;
  std::vector<rt::BufferPtr> values;
  std::vector<const void *> constants;
  for (rt::Step &s : run.steps) {
    if (s.kernel) kernels.push_back(s.kernel);
    if (s.kind == rt::Step::Kind::Value) {
      values.push_back(s.value());
      constants.push_back(values.back()->data());
      s.out_bytes = {values.back()->bytes()};
    }
  }
  const std::vector<int64_t> words = rt::aot::encode(run, sig, 0);
  const std::vector<int64_t> info = rt::aot::kernel_info(run, sig);
  std::vector<int64_t> constant_bytes;
  for (const rt::BufferPtr &v : values)
    constant_bytes.push_back(int64_t(v->bytes()));
  const rt::aot::Decoded d = rt::aot::decode(
      {words.data(), int64_t(words.size()), kernels.data(), int64_t(kernels.size()), info.data(),
       int64_t(info.size()), constants.data(), constant_bytes.data(), int64_t(constants.size())},
      threads);
  const std::vector<Array> args = {
      aot_test::random_array({aot_test::math_n}, jx::float32, 21, 0, 5),
      aot_test::random_array({aot_test::math_n}, jx::float32, 22, -2, 2)};
  const auto outputs = compiled.call(args);
  const std::vector<Array> expected =
      jx::detail::Outputs<std::decay_t<decltype(outputs)>>::flatten(outputs);
  std::vector<rt::BufferPtr> in;
  for (const Array &a : args)
    in.push_back(rt::Buffer::borrow(const_cast<void *>(a.data()),
                                    size_t(a.size()) * jx::itemsize(a.dtype())));
  const std::vector<rt::BufferPtr> out = rt::run(d.program, in);
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(aot_test::first_mismatch(expected[i], expected[i].data(), out[i]->data()), "")
        << "result " << i;
}

TEST(AotEncoding, CorruptWordsAreErrors) {
  const std::vector<int64_t> words = rt::aot::encode(every_kind_of_step(), signature, 0);
  std::vector<int64_t> bad = words;
  bad[0] ^= 1;
  expect_error<jx::Error>([&] { decode(bad); }, "not a jx program");
  bad = words;
  bad[1] = JX_AOT_ABI_VERSION + 1;
  expect_error<jx::Error>([&] { decode(bad); }, "generated for ABI version " +
                                                    std::to_string(JX_AOT_ABI_VERSION + 1) +
                                                    ", but this runtime is ABI version " +
                                                    std::to_string(JX_AOT_ABI_VERSION));
  // Every truncation (an empty program too): too short, or no longer its checksum.
  for (size_t n = 0; n < words.size(); ++n)
    expect_error<jx::Error>(
        [&] { decode(std::vector<int64_t>(words.begin(), words.begin() + int64_t(n))); },
        "jx AOT program");
  bad = words;
  bad.push_back(0);
  expect_error<jx::Error>([&] { decode(bad); }, "checksum mismatch");
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { decode(bad); }, "trailing words");
  // The kernel count (word 4) disagreeing with the object's table.
  bad = words;
  bad[4] = 5;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { decode(bad); }, "table sizes");
  // The argument count (word 6) absurdly large, and negative.
  bad = words;
  bad[6] = int64_t(1) << 60;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { decode(bad); }, "corrupt length");
  bad[6] = -1;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { decode(bad); }, "corrupt length");
  // The first argument's dtype (word 7).
  bad = words;
  bad[7] = jx::num_dtypes;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { decode(bad); }, "corrupt dtype");
}

// Well-framed programs whose contents run() could not survive: each is an error naming it.
TEST(AotEncoding, InconsistentProgramsAreErrors) {
  auto expect_invalid = [](const std::function<void(rt::Program &)> &spoil, const char *what) {
    rt::Program p = every_kind_of_step();
    spoil(p);
    const std::vector<int64_t> words =
        resealed(rt::aot::encode(p, signature, 0), every_kind_of_step());
    expect_error<jx::Error>([&] { decode(words); }, what);
  };
  expect_invalid([](rt::Program &p) { p.steps[3].inputs = {0, 9}; }, "slot out of range");
  expect_invalid(
      [](rt::Program &p) {
        p.steps[3].inputs = {0, 4};
      },
      "slot read before it is written");
  expect_invalid([](rt::Program &p) { p.steps[5].outs = {4}; }, "slot written twice");
  expect_invalid([](rt::Program &p) { p.outputs = {4, 5}; }, "result size");
  expect_invalid([](rt::Program &p) { p.outputs = {4}; }, "result count");
  expect_invalid([](rt::Program &p) { p.arena_offset[3] = 200; }, "arena offset");
  expect_invalid([](rt::Program &p) { p.arena_offset[1] = 0; }, "arena offset");
  expect_invalid([](rt::Program &p) { p.arena_offset.pop_back(); }, "slot table");
  expect_invalid([](rt::Program &p) { p.steps[2].out_bytes = {40}; }, "random fill");
  expect_invalid([](rt::Program &p) { p.steps[4].boxes = {0, 2}; }, "device boxes");
  expect_invalid([](rt::Program &p) { p.steps[4].boxes = {0, 1, 0}; }, "device boxes");
  expect_invalid([](rt::Program &p) { p.steps[0].argument = 1; }, "argument out of range");
  expect_invalid([](rt::Program &p) { p.steps[4].outs = {}; }, "step outputs");
  expect_invalid([](rt::Program &p) { p.steps[1].out_bytes = {}; }, "step output sizes");
  expect_invalid([](rt::Program &p) { p.steps[5].inputs = {0}; }, "slot read after it is freed");
  expect_invalid([](rt::Program &p) { p.outputs = {3, 1}; }, "slot read after it is freed");
  expect_invalid([](rt::Program &p) { p.steps[3].outer = 40000; }, "kernel bounds");
  expect_invalid([](rt::Program &p) { p.steps[4].out_bytes = {40}; }, "kernel output sizes");
  expect_invalid([](rt::Program &p) { p.steps[3].kernel = nullptr; }, "kernel missing");
  expect_invalid(
      [](rt::Program &p) {
        p.steps[3].extent = {4, int64_t(1) << 41};
      },
      "corrupt shape");
  // A placed reduction over an empty axis visits no elements per output element: valid.
  rt::Program p = every_kind_of_step();
  p.steps[4].box_work = 0;
  EXPECT_EQ(decode(rt::aot::encode(p, signature, 0)).program.steps[4].box_work, 0);
}

// A program of one contraction: out (4, 5) = lhs (4, 3) . rhs (3, 5), float64, from arguments 0
// and 1; results: the product and argument 0.
rt::Program contraction_program() {
  rt::Program p;
  p.slot_count = 3;
  p.arena_offset = {-1, -1, -1};
  p.outputs = {2, 0};
  p.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
  p.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {1}, .argument = 1});
  p.steps.push_back(
      {.kind = rt::Step::Kind::Contraction,
       .outs = {2},
       .out_bytes = {4 * 5 * sizeof(double)},
       .frees = {1},
       .dtype = jx::DType::float64,
       .gemm = {.batch = 1, .m = 4, .n = 5, .k = 3, .lhs = {0, 3, 1}, .rhs = {0, 5, 1}},
       .inputs = {0, 1},
       .extent = {4, 5}});
  return p;
}
const rt::aot::Signature contraction_signature{
    {{jx::DType::float64, {4, 3}}, {jx::DType::float64, {3, 5}}},
    {{jx::DType::float64, {4, 5}}, {jx::DType::float64, {4, 3}}}};

std::vector<int64_t>
encode_contraction(const std::function<void(rt::Program &)> &spoil,
                   const rt::aot::Signature &signature = contraction_signature) {
  rt::Program p = contraction_program();
  spoil(p);
  return rt::aot::encode(p, signature, 0);
}

TEST(AotEncoding, ContractionRoundTripsAndRuns) {
  const std::vector<int64_t> words = encode_contraction([](rt::Program &) {});
  const rt::aot::Decoded d = decode(words, contraction_program(), contraction_signature);
  const rt::Step &s = d.program.steps[2];
  EXPECT_EQ(s.kind, rt::Step::Kind::Contraction);
  EXPECT_EQ(s.gemm.m, 4);
  EXPECT_EQ(s.gemm.n, 5);
  EXPECT_EQ(s.gemm.k, 3);
  EXPECT_EQ(std::vector<int64_t>(s.gemm.lhs, s.gemm.lhs + 3), (std::vector<int64_t>{0, 3, 1}));
  EXPECT_EQ(std::vector<int64_t>(s.gemm.rhs, s.gemm.rhs + 3), (std::vector<int64_t>{0, 5, 1}));
  // Its tasks are the shape's tiles, whatever the thread count.
  EXPECT_EQ(s.tasks, rt::gemm_tiles(s.gemm, rt::gemm_parallelism()));
  EXPECT_EQ(rt::aot::encode(d.program, d.signature, d.required_features), words);
  // Through jx_aot_run_v7: the product of the arguments.
  double lhs[12], rhs[15], out[20], copy[12];
  for (int i = 0; i < 12; ++i)
    lhs[i] = i - 5;
  for (int i = 0; i < 15; ++i)
    rhs[i] = 2 * i - 7;
  const int64_t lhs_shape[] = {4, 3}, rhs_shape[] = {3, 5}, out_shape[] = {4, 5};
  const jx_aot_array args[] = {{lhs, JX_AOT_FLOAT64, 2, lhs_shape},
                               {rhs, JX_AOT_FLOAT64, 2, rhs_shape}};
  const jx_aot_array results[] = {{out, JX_AOT_FLOAT64, 2, out_shape},
                                  {copy, JX_AOT_FLOAT64, 2, lhs_shape}};
  char error[256] = "";
  static void *state = nullptr; // holds the decoded program for the rest of the process
  jx_aot_object object{};
  object.program = words.data();
  object.program_words = int64_t(words.size());
  ASSERT_EQ(jx_aot_run_v7(&state, &object, args, 2, results, 2, error, sizeof error), JX_AOT_OK)
      << error;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      double expected = 0;
      for (int p = 0; p < 3; ++p)
        expected += lhs[i * 3 + p] * rhs[p * 5 + j];
      EXPECT_EQ(out[i * 5 + j], expected) << i << "," << j;
    }
}

// Contraction steps that would read outside their operands or write outside their output, or
// that BLAS could not be called with: refused when decoded, and by jx_aot_run_v7 as
// JX_AOT_ERROR_ABI before anything runs.
TEST(AotEncoding, CorruptContractionsAreRefused) {
  using Gemm = rt::Gemm;
  struct Case {
    std::function<void(rt::Program &)> spoil;
    const char *what;
  };
  auto gemm = [](const std::function<void(Gemm &)> &f) {
    return [f](rt::Program &p) { f(p.steps[2].gemm); };
  };
  const Case cases[] = {
      // Strides that reach past an operand's 12 or 15 elements.
      {gemm([](Gemm &g) { g.lhs[1] = 4; }), "contraction operand"},
      {gemm([](Gemm &g) { g.lhs[2] = 2; }), "contraction operand"},
      {gemm([](Gemm &g) { g.rhs[1] = 6; }), "contraction operand"},
      {gemm([](Gemm &g) { g.rhs[2] = 3; }), "contraction operand"},
      // A second batch that would read a second matrix neither operand has.
      {[](rt::Program &p) {
         p.steps[2].gemm.batch = 2;
         p.steps[2].gemm.lhs[0] = 12;
         p.steps[2].out_bytes = {2 * 20 * sizeof(double)};
       },
       "contraction operand"},
      // Output sizes that disagree with (batch, m, n).
      {[](rt::Program &p) { p.steps[2].out_bytes = {19 * sizeof(double)}; }, "contraction output"},
      {[](rt::Program &p) { p.steps[2].out_bytes = {21 * sizeof(double)}; }, "contraction output"},
      {gemm([](Gemm &g) { g.n = 6; }), "contraction output"},
      // Negative or absurd extents and strides.
      {gemm([](Gemm &g) { g.k = -1; }), "contraction shape"},
      {gemm([](Gemm &g) { g.m = int64_t(1) << 40; }), "contraction shape"},
      {gemm([](Gemm &g) { g.rhs[0] = -1; }), "contraction strides"},
      {gemm([](Gemm &g) { g.lhs[1] = int64_t(1) << 41; }), "contraction strides"},
      // Strides inside the operand that no BLAS layout describes (neither is 1, or rows overlap).
      {gemm([](Gemm &g) {
         g.lhs[1] = 1;
         g.lhs[2] = 1;
       }),
       "contraction layout"},
      {gemm([](Gemm &g) {
         g.rhs[1] = 2;
         g.rhs[2] = 2;
       }),
       "contraction layout"},
      // Not a contraction BLAS runs: integers, a kernel attached, one operand.
      {[](rt::Program &p) { p.steps[2].dtype = jx::DType::int64; }, "contraction"},
      {[](rt::Program &p) { p.steps[2].kernel = fake_kernel; }, "contraction"},
      {[](rt::Program &p) {
         p.steps[2].inputs = {0};
         p.steps[2].frees = {};
       },
       "contraction"},
      {[](rt::Program &p) {
         p.steps[2].inputs = {0, 1, 0};
       },
       "contraction"},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE(testing::Message() << "case " << i << ": " << cases[i].what);
    // The table sizes kept and the words sealed again, as a forged checksum would.
    std::vector<int64_t> words = encode_contraction(cases[i].spoil);
    words[4] = words[5] = 0;
    rt::aot::seal(words);
    expect_error<jx::Error>([&] { decode(words, contraction_program(), contraction_signature); },
                            cases[i].what);
    char error[256] = "";
    void *state = nullptr;
    jx_aot_object object{};
    object.program = words.data();
    object.program_words = int64_t(words.size());
    EXPECT_EQ(jx_aot_run_v7(&state, &object, nullptr, 0, nullptr, 0, error, sizeof error),
              JX_AOT_ERROR_ABI);
    EXPECT_NE(std::string(error).find(cases[i].what), std::string::npos) << error;
    EXPECT_EQ(state, nullptr);
  }
}

// Strides whose reach overflows 64 bits: 2^31 batches 2^40 elements apart wrap around to a
// small (negative) last offset, which must not pass for one inside the operand. The rest of the
// program is valid: the product is no result (result 0 is argument 0 too).
TEST(AotEncoding, ContractionReachThatOverflowsIsRefused) {
  const rt::aot::Signature signature{{{jx::DType::float64, {4, 3}}, {jx::DType::float64, {3, 5}}},
                                     {{jx::DType::float64, {4, 3}}, {jx::DType::float64, {4, 3}}}};
  const std::vector<int64_t> words = encode_contraction(
      [](rt::Program &p) {
        rt::Gemm &g = p.steps[2].gemm;
        g.batch = int64_t(1) << 31;
        g.lhs[0] = int64_t(1) << 40;
        p.steps[2].out_bytes = {size_t(g.batch * g.m * g.n) * sizeof(double)};
        p.outputs = {0, 0};
      },
      signature);
  expect_error<jx::Error>([&] { decode(words, contraction_program(), signature); },
                          "contraction operand");
}

TEST(AotEncoding, RunReportsAnotherAbiVersion) {
  std::vector<int64_t> words = rt::aot::encode(every_kind_of_step(), signature, 0);
  words[1] = JX_AOT_ABI_VERSION + 1;
  const aot_test::ObjectTables tables = tables_of(every_kind_of_step(), signature);
  jx_aot_object object = object_of(words, tables);
  char error[256] = "";
  void *state = nullptr;
  EXPECT_EQ(jx_aot_run_v7(&state, &object, nullptr, 0, nullptr, 0, error, sizeof error),
            JX_AOT_ERROR_ABI);
  EXPECT_NE(std::string(error).find("generated for ABI version " +
                                    std::to_string(JX_AOT_ABI_VERSION + 1)),
            std::string::npos)
      << error;
  EXPECT_EQ(state, nullptr);
  // Not a jx program at all: the same status.
  static const int64_t garbage[4] = {1, 2, 3, 4};
  object.program = garbage;
  object.program_words = 4;
  EXPECT_EQ(jx_aot_run_v7(&state, &object, nullptr, 0, nullptr, 0, error, sizeof error),
            JX_AOT_ERROR_ABI);
  EXPECT_NE(std::string(error).find("not a jx program"), std::string::npos) << error;
}

TEST(AotEncoding, MissingCpuFeaturesByName) {
  const uint64_t avx2 = uint64_t(1) << 3, fma = uint64_t(1) << 4, avx512f = uint64_t(1) << 7;
  ASSERT_STREQ(rt::aot::cpu_features[3], "avx2");
  EXPECT_EQ(rt::aot::missing_cpu_features(avx2 | fma | avx512f, avx2 | fma), "avx512f");
  EXPECT_EQ(rt::aot::missing_cpu_features(avx2 | avx512f, 0), "avx2, avx512f");
  EXPECT_EQ(rt::aot::missing_cpu_features(avx2, avx2 | avx512f), "");
  // A bit this runtime does not know (from a newer jx) counts as missing.
  EXPECT_EQ(rt::aot::missing_cpu_features(uint64_t(1) << 60, ~uint64_t(0) >> 4), "feature bit 60");
}

// An object compiled for features this CPU lacks answers JX_AOT_ERROR_CPU, naming them, and
// runs nothing (no illegal instruction).
TEST(AotEncoding, MissingCpuFeaturesAreAnError) {
  const uint64_t missing =
      ~rt::aot::host_cpu_features() & ((uint64_t(1) << rt::aot::cpu_feature_count) - 1);
  if (!missing) GTEST_SKIP() << "this CPU has every feature jx checks";
  const int bit = std::countr_zero(missing);
  static const std::vector<int64_t> words =
      rt::aot::encode(every_kind_of_step(), signature, uint64_t(1) << bit);
  static const aot_test::ObjectTables tables = tables_of(every_kind_of_step(), signature);
  static const jx_aot_object object = object_of(words, tables);
  char error[256] = "";
  static void *state = nullptr; // holds the decoded program for the rest of the process
  kernel_calls = 0;
  EXPECT_EQ(jx_aot_run_v7(&state, &object, nullptr, 0, nullptr, 0, error, sizeof error),
            JX_AOT_ERROR_CPU);
  EXPECT_NE(std::string(error).find(rt::aot::cpu_features[bit]), std::string::npos) << error;
  EXPECT_EQ(kernel_calls, 0);
}

// ---- jx::aot::compile and the generator ----

// A fresh directory, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "jx_aot_test_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string str() const { return path_.string(); }
  size_t entries() const {
    return size_t(std::distance(fs::directory_iterator(path_), fs::directory_iterator{}));
  }

private:
  fs::path path_;
};

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

auto scale_by_two() {
  return jx::jit([](const Array &x) { return x * 2.0f; })
      .lower(jx::ShapeDtypeStruct{{3, 4}, jx::float32});
}

TEST(AotCompile, WritesObjectAndHeader) {
  TempDir dir;
  const jx::aot::Files files = jx::aot::compile(scale_by_two(), "scale_by_two", dir.str());
  EXPECT_EQ(files.object, dir.str() + "/scale_by_two.o");
  EXPECT_EQ(files.header, dir.str() + "/scale_by_two.h");
  EXPECT_EQ(files.kernels, 1u);
  const std::string object = read_file(files.object), header = read_file(files.header);
  ASSERT_GT(object.size(), 4u);
  EXPECT_EQ(object.substr(0, 4), "\x7f"
                                 "ELF");
  EXPECT_NE(object.find("jx_aot_fn_scale_by_two"), std::string::npos);
  EXPECT_NE(header.find(" *   scale_by_two(float32[3,4]) -> (float32[3,4])"), std::string::npos)
      << header;
  EXPECT_NE(header.find("int32_t jx_aot_fn_scale_by_two(const jx_aot_array *args, int32_t "
                        "num_args"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("static inline int32_t scale_by_two(const jx_aot_array *args, int32_t "
                        "num_args"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("namespace scale_by_two_aot"), std::string::npos) << header;
  EXPECT_NE(header.find("inline void call(std::span<const float> arg0, std::span<float> result0)"),
            std::string::npos)
      << header;
  // From a Compiled too, and for a named CPU.
  const jx::aot::Files v3 = jx::aot::compile(scale_by_two().compile(), "scale_v3", dir.str(),
                                             {.target_cpu = "x86-64-v3"});
  EXPECT_NE(read_file(v3.header).find("for CPU x86-64-v3 (math tier avx2)"), std::string::npos);
  EXPECT_EQ(dir.entries(), 4u);
}

TEST(AotCompile, NameMustBeACIdentifier) {
  TempDir dir;
  for (const std::string name : {"", "9lives", "has space", "a-b", "x.y", "ünïcode", "a/b"})
    expect_error<jx::ValueError>([&] { jx::aot::compile(scale_by_two(), name, dir.str()); },
                                 "'" + name + "' is not a C identifier");
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(AotCompile, NameOfARuntimeSymbol) {
  TempDir dir;
  expect_error<jx::ValueError>([&] { jx::aot::compile(scale_by_two(), "jx_aot_run", dir.str()); },
                               "'jx_aot_run'");
  EXPECT_EQ(dir.entries(), 0u);
}

// A C or C++ keyword is spelled like an identifier but is none: NAME.h would not compile
// (`int32_t class(...)`, `namespace class_aot` is fine but the declaration is not).
TEST(AotCompile, NameMustNotBeAKeyword) {
  TempDir dir;
  for (const std::string name : {"class", "int", "for", "delete", "register", "typeof", "linux",
                                 "NULL", "INT64_MAX", "f_aot", "a__b", "_x"})
    expect_error<jx::ValueError>([&] { jx::aot::compile(scale_by_two(), name, dir.str()); },
                                 "'" + name + "'");
}

// Names that are C identifiers but clash with what NAME.h includes or the runtime defines: the
// header does not compile (`int32_t std(...)` redeclares namespace std; `jx_aot_abi_version`
// conflicts with aot_abi.h's declaration), or the object's symbol duplicates libjx_runtime's.
TEST(AotCompile, NameMustNotClashWithTheAbi) {
  TempDir dir;
  for (const std::string name : {"std", "jx", "jx_aot_abi_version", "jx_aot_array", "int32_t"})
    expect_error<jx::ValueError>([&] { jx::aot::compile(scale_by_two(), name, dir.str()); },
                                 "'" + name + "'");
}

// The include guard of NAME.h is JX_AOT_<NAME in upper case>_H: for "abi" that is aot_abi.h's own
// guard (abi.h then stops at its #error, aot_abi.h never included), and names differing only in
// case ("scale", "SCALE") share one guard, so the second header included is silently empty.
TEST(AotCompile, HeaderGuardsAreDistinct) {
  TempDir dir;
  auto guard = [&](const std::string &name) {
    const std::string header = read_file(jx::aot::compile(scale_by_two(), name, dir.str()).header);
    const size_t at = header.find("#ifndef ");
    return header.substr(at + 8, header.find('\n', at) - at - 8);
  };
  EXPECT_NE(guard("abi"), "JX_AOT_ABI_H");
  EXPECT_NE(guard("scale"), guard("Scale"));
}

TEST(AotCompile, UnknownTargetCpu) {
  TempDir dir;
  expect_error<jx::ValueError>(
      [&] { jx::aot::compile(scale_by_two(), "scale", dir.str(), {.target_cpu = "pentium-9000"}); },
      "unknown target CPU 'pentium-9000'");
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(AotCompile, UnwritableDirectory) {
  expect_error<jx::Error>(
      [&] { jx::aot::compile(scale_by_two(), "scale", "/nonexistent/jx/aot/dir"); },
      "cannot write /nonexistent/jx/aot/dir/scale.");
}

} // namespace

// Registered in this test program's own generator registry (generator_main below).
JX_AOT_FUNCTION(test_registered_scale) { return scale_by_two(); }

namespace {

int generator(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "generator");
  std::vector<char *> argv;
  for (std::string &a : arguments)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  return jx::aot::generator_main(int(arguments.size()), argv.data());
}

TEST(AotGenerator, WritesAndTimesEachFunction) {
  TempDir dir;
  testing::internal::CaptureStdout();
  const int status = generator({"--output-dir", dir.str(), "test_registered_scale"});
  std::fflush(stdout);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  // The line the build log shows: name, files, kernels, milliseconds (not asserted on).
  EXPECT_TRUE(std::regex_match(
      out, std::regex("jx\\.aot: test_registered_scale -> .*/test_registered_scale\\.o \\+ "
                      ".*/test_registered_scale\\.h \\(1 kernels\\) in [0-9]+ ms\n")))
      << out;
  EXPECT_TRUE(fs::exists(dir.str() + "/test_registered_scale.o"));
  EXPECT_TRUE(fs::exists(dir.str() + "/test_registered_scale.h"));
}

TEST(AotGenerator, ListsItsFunctions) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(generator({"--list"}), 0);
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "test_registered_scale\n");
}

TEST(AotGenerator, BadCommandLines) {
  TempDir dir;
  testing::internal::CaptureStderr();
  EXPECT_EQ(generator({"--output-dir", dir.str(), "no_such_function"}), 1);
  EXPECT_EQ(generator({"--output-dir", dir.str()}), 2);
  EXPECT_EQ(generator({"--bogus", "test_registered_scale"}), 2);
  EXPECT_EQ(generator({"--output-dir", dir.str(), "--target-cpu", "pentium-9000",
                       "test_registered_scale"}),
            1);
  std::fflush(stderr);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("no function 'no_such_function' is registered (registered: "
                     "test_registered_scale)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("usage:"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown target CPU 'pentium-9000'"), std::string::npos) << err;
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(AotGenerator, RegistrationErrors) {
  auto maker = [] { return scale_by_two().compile().program(); };
  expect_error<jx::ValueError>([&] { jx::aot::register_function("test_registered_scale", maker); },
                               "the function 'test_registered_scale' is registered twice");
  expect_error<jx::ValueError>([&] { jx::aot::register_function("not-a-name", maker); },
                               "'not-a-name' is not a C identifier");
}

} // namespace
