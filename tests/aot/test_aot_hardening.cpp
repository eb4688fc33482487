// The AOT runtime against misuse and corruption: jx_aot_free with a wrong size, twice or with a
// foreign pointer; program words corrupted one at a time (refused by the checksum, and when
// sealed again by the validator, or harmless); targeted corruptions the checksum alone would
// catch (a kernel flag on another kind of step, any field a kind does not use, swapped or
// repeated argument positions, a wrong literal count, regions nested too deep); objects of ABI
// versions 3 and 2.
#include <jx/aot_abi.h>
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <functional>

#include "aot/aot_test_util.h"
#include "aot/functions.h"
#include "aot/program_fixtures.h"
#include "api/traced_program.h"
#include "runtime/aot.h"
#include "test_util.h"

namespace {

using jx::Array;
using test_util::expect_error;
namespace rt = jx::runtime;

// What jx_aot_free wrote on stderr.
std::string free_messages(void *data, size_t bytes) {
  testing::internal::CaptureStderr();
  jx_aot_free(data, bytes);
  return testing::internal::GetCapturedStderr();
}

// ---- jx_aot_free ----

TEST(AotFree, AlignedBlocksFreedWithTheirSizeSayNothing) {
  void *small = jx_aot_allocate(100), *large = jx_aot_allocate(size_t(5) << 20);
  ASSERT_TRUE(small && large);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % (size_t(2) << 20), 0u);
  EXPECT_EQ(free_messages(small, 100), "");
  EXPECT_EQ(free_messages(large, size_t(5) << 20), "");
  EXPECT_EQ(free_messages(nullptr, 12), "");
  // The C++ wrapper frees with its size.
  testing::internal::CaptureStderr();
  { jx::aot::Buffer<double> b(1000); }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Freed with a larger size, a 64-byte block would join the 1 MiB class and the next 1 MiB
// allocation would overflow it: reported, and the block kept out of the class.
TEST(AotFree, WrongSizeIsReportedAndNotTrusted) {
  void *p = jx_aot_allocate(64);
  ASSERT_TRUE(p);
  const std::string message = free_messages(p, size_t(1) << 20);
  EXPECT_NE(message.find("allocated with 64 bytes but freed with 1048576"), std::string::npos)
      << message;
  void *q = jx_aot_allocate(size_t(1) << 20);
  ASSERT_NE(q, p) << "a 64-byte block was handed out for 1 MiB";
  std::memset(q, 1, size_t(1) << 20);
  EXPECT_EQ(free_messages(q, size_t(1) << 20), "");
  // Still allocated: freed with its size, it goes quietly.
  EXPECT_EQ(free_messages(p, 64), "");
}

// A block freed twice would be handed out twice.
TEST(AotFree, DoubleFreeIsReported) {
  void *p = jx_aot_allocate(320);
  ASSERT_TRUE(p);
  EXPECT_EQ(free_messages(p, 320), "");
  const std::string message = free_messages(p, 320);
  EXPECT_NE(message.find("freed already"), std::string::npos) << message;
  void *a = jx_aot_allocate(320), *b = jx_aot_allocate(320);
  EXPECT_NE(a, b) << "one block handed out twice";
  jx_aot_free(a, 320);
  jx_aot_free(b, 320);
}

// Memory jx_aot_allocate did not return: reported, never cached (nor read in front of).
TEST(AotFree, ForeignPointerIsReported) {
  alignas(64) static char foreign[192];
  std::string message = free_messages(foreign, sizeof foreign);
  EXPECT_NE(message.find("was not returned by jx_aot_allocate"), std::string::npos) << message;
  void *q = jx_aot_allocate(sizeof foreign);
  EXPECT_NE(q, static_cast<void *>(foreign)) << "a static array was handed out";
  jx_aot_free(q, sizeof foreign);
  // The inside of a block is not a block.
  char *block = static_cast<char *>(jx_aot_allocate(4096));
  message = free_messages(block + 64, 1024);
  EXPECT_NE(message.find("was not returned by jx_aot_allocate"), std::string::npos) << message;
  EXPECT_EQ(free_messages(block, 4096), "");
}

// ---- programs ----

// A function the JIT compiled, as a generated object would hold it: the encoded program, its
// kernels (the JIT's), what they take, and its constants.
struct JitObject {
  template <class Lowered> explicit JitObject(const Lowered &lowered) {
    const auto compiled = lowered.compile();
    keep = compiled.program();
    const jx::detail::Program &p = *keep;
    program = p.executable->program();
    for (const jx::ShapeDtypeStruct &s : p.specs)
      signature.args.push_back({s.dtype, s.shape});
    for (const auto &o : p.outputs)
      signature.results.push_back({o->dtype, o->shape});
    program.outputs.resize(p.outputs.size());
    take_tables(program);
    tables.kernel_info = rt::aot::kernel_info(program, signature);
    words = rt::aot::encode(program, signature, 0);
  }
  // Kernels and constants in the encoder's order: a control step's regions' in its place.
  void take_tables(rt::Program &p) {
    for (rt::Step &s : p.steps) {
      if (s.kernel) tables.kernels.push_back(s.kernel);
      if (s.kind == rt::Step::Kind::Value) {
        values.push_back(s.value());
        tables.constants.push_back(values.back()->data());
        tables.constant_bytes.push_back(int64_t(values.back()->bytes()));
        s.out_bytes = {values.back()->bytes()};
      }
      for (std::shared_ptr<const rt::Program> &region : s.regions) {
        auto copy = std::make_shared<rt::Program>(*region);
        take_tables(*copy);
        region = std::move(copy);
      }
    }
  }
  rt::aot::Decoded decode(const std::vector<int64_t> &w) const {
    return rt::aot::decode(aot_test::object_of(w, tables), 2);
  }
  // Runs a decoded program on arguments of the signature's shapes (zeros and ones).
  void run(const rt::aot::Decoded &d) const {
    std::vector<std::vector<char>> data;
    std::vector<rt::BufferPtr> in;
    for (const rt::aot::ArraySpec &a : signature.args) {
      const size_t bytes = size_t(jx::shape_size(a.shape)) * jx::itemsize(a.dtype);
      data.emplace_back(bytes, char(1));
      in.push_back(rt::Buffer::borrow(data.back().data(), bytes));
    }
    rt::run(d.program, in);
  }

  std::shared_ptr<const jx::detail::Program> keep;
  rt::Program program;
  rt::aot::Signature signature;
  std::vector<rt::BufferPtr> values;
  aot_test::ObjectTables tables;
  std::vector<int64_t> words;
};

// Every word of a real program changed in turn, several ways: refused (bad magic, another
// version, or a checksum mismatch) by the decoder and by jx_aot_run_v7, never run. Sealed again
// (as if the checksum had been forged), the change is refused by the validator or runs without
// crashing; with loops, only validated (a valid program may loop for as long as its words say:
// a scan's length, a while loop's tolerance).
void corrupt_every_word(const JitObject &object, bool run_changed = true) {
  ASSERT_NO_THROW(object.run(object.decode(object.words)));
  const std::vector<std::function<int64_t(int64_t)>> changes = {
      [](int64_t w) { return w ^ 1; },
      [](int64_t w) { return w + 1; },
      [](int64_t w) { return w - 1; },
      [](int64_t w) { return w ^ (int64_t(1) << 33); },
      [](int64_t w) { return w ^ (int64_t(1) << 62); },
      [](int64_t w) { return -w - 1; },
      [](int64_t) { return int64_t(0); },
      [](int64_t) { return INT64_MIN; },
  };
  int refused = 0, ran = 0;
  for (size_t i = 0; i < object.words.size(); ++i)
    for (size_t c = 0; c < changes.size(); ++c) {
      std::vector<int64_t> bad = object.words;
      bad[i] = changes[c](bad[i]);
      if (bad[i] == object.words[i]) continue;
      SCOPED_TRACE(testing::Message()
                   << "word " << i << " of " << object.words.size() << ", change " << c);
      expect_error<jx::Error>([&] { object.decode(bad); }, i == 0   ? "not a jx program"
                                                           : i == 1 ? "generated for ABI version"
                                                                    : "checksum mismatch");
      if (i < 3) continue;
      rt::aot::seal(bad);
      try {
        const rt::aot::Decoded d = object.decode(bad);
        // Valid, so memory-safe: it runs (perhaps to other values, or to a typed error).
        try {
          if (run_changed) object.run(d);
        } catch (const std::exception &) {
        }
        ++ran;
      } catch (const jx::Error &) {
        ++refused;
      }
    }
  // Most changes break the program; those that do not change values only (a literal, a random
  // key, the CPU features, a row chunk size).
  EXPECT_GT(refused, 4 * ran) << refused << " refused, " << ran << " ran";
  // Once, through the entry point: JX_AOT_ERROR_ABI, nothing decoded.
  std::vector<int64_t> bad = object.words;
  bad.back() ^= 4;
  const jx_aot_object o = aot_test::object_of(bad, object.tables);
  void *state = nullptr;
  char error[256] = "";
  EXPECT_EQ(jx_aot_run_v7(&state, &o, nullptr, 0, nullptr, 0, error, sizeof error),
            JX_AOT_ERROR_ABI);
  EXPECT_NE(std::string(error).find("checksum mismatch"), std::string::npos) << error;
  EXPECT_EQ(state, nullptr);
}

TEST(AotProgramCorruption, EveryWordOfIntegerPowers) {
  corrupt_every_word(JitObject(aot_test::int_power()));
}

TEST(AotProgramCorruption, EveryWordOfConstantOutputs) {
  corrupt_every_word(JitObject(aot_test::constant_output()));
}

TEST(AotProgramCorruption, EveryWordOfAContraction) {
  corrupt_every_word(JitObject(aot_test::contraction()));
}

TEST(AotProgramCorruption, EveryWordOfLoopsAndBranches) {
  corrupt_every_word(JitObject(aot_test::control_flow()), false);
}

// Regions nest programs; a program nested deeper than the decoder allows is refused before it
// is validated (no recursion as deep as a corrupt program asks).
TEST(AotProgramCorruption, RegionsNestedTooDeep) {
  rt::Program inner{.outputs = {0}, .arena_offset = {-1}, .slot_count = 1, .argument_bytes = {8}};
  inner.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
  for (int depth = 0; depth < 70; ++depth) {
    rt::Program outer{
        .outputs = {1}, .arena_offset = {-1, -1}, .slot_count = 2, .argument_bytes = {8}};
    outer.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
    rt::Step loop{.kind = rt::Step::Kind::Scan, .outs = {1}, .out_bytes = {8}, .inputs = {0}};
    loop.regions = {std::make_shared<const rt::Program>(inner)};
    loop.carries = 1;
    loop.length = 1;
    outer.steps.push_back(loop);
    inner = outer;
  }
  const rt::aot::Signature signature{{{jx::DType::float64, {}}}, {{jx::DType::float64, {}}}};
  const std::vector<int64_t> words = rt::aot::encode(inner, signature, 0);
  expect_error<jx::Error>(
      [&] {
        rt::aot::decode(aot_test::object_of(words, aot_test::tables_of(inner, signature)), 2);
      },
      "regions nested too deep");
}

// The program of two same-shaped arguments added: its Argument steps' positions are the words
// before each step's random key (found by a marker there).
struct TwoArguments {
  TwoArguments() {
    program.slot_count = 3;
    program.arena_offset = {-1, -1, -1};
    program.outputs = {2};
    program.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
    program.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {1}, .argument = 1});
    program.steps.push_back({.kind = rt::Step::Kind::Kernel,
                             .outs = {2},
                             .out_bytes = {32},
                             .frees = {0, 1},
                             .kernel = aot_test::fake_kernel,
                             .inputs = {0, 1},
                             .literals = {7},
                             .extent = {4},
                             .outer = 4,
                             .grain = 1});
    tables = aot_test::tables_of(program, signature);
    words = rt::aot::encode(program, signature, 0);
    for (int a = 0; a < 2; ++a) {
      rt::Program marked = program;
      marked.steps[size_t(a)].key_lo = 0x5a5a5a5a;
      const std::vector<int64_t> w = rt::aot::encode(marked, signature, 0);
      for (size_t i = 0; i < w.size(); ++i)
        if (w[i] == 0x5a5a5a5a) argument_word[a] = i - 2;
    }
  }
  rt::aot::Decoded decode(const std::vector<int64_t> &w) const {
    return rt::aot::decode(aot_test::object_of(w, tables), 2);
  }
  rt::Program program;
  const rt::aot::Signature signature{{{jx::DType::float64, {4}}, {jx::DType::float64, {4}}},
                                     {{jx::DType::float64, {4}}}};
  aot_test::ObjectTables tables;
  std::vector<int64_t> words;
  size_t argument_word[2] = {0, 0};
};

TEST(AotProgramCorruption, SwappedOrRepeatedArgumentPositions) {
  const TwoArguments two;
  ASSERT_EQ(two.words[two.argument_word[0]], 0);
  ASSERT_EQ(two.words[two.argument_word[1]], 1);
  EXPECT_NO_THROW(two.decode(two.words));
  std::vector<int64_t> bad = two.words;
  std::swap(bad[two.argument_word[0]], bad[two.argument_word[1]]);
  expect_error<jx::Error>([&] { two.decode(bad); }, "checksum mismatch");
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { two.decode(bad); }, "argument order");
  bad = two.words;
  bad[two.argument_word[1]] = 0;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { two.decode(bad); }, "argument order");
  // A position past 32 bits is not cut short into argument 0.
  bad = two.words;
  bad[two.argument_word[0]] = int64_t(1) << 32;
  rt::aot::seal(bad);
  expect_error<jx::Error>([&] { two.decode(bad); }, "argument out of range");
}

// Edits of every_kind_of_step, encoded and sealed (as a forged checksum), with the tables of the
// unedited program: each is refused naming what is wrong.
void expect_refused(const std::function<void(rt::Program &)> &spoil, const std::string &what) {
  const rt::Program good = aot_test::every_kind_of_step();
  rt::Program p = good;
  spoil(p);
  std::vector<int64_t> words = rt::aot::encode(p, aot_test::every_kind_signature, 0);
  const aot_test::ObjectTables tables = aot_test::tables_of(good, aot_test::every_kind_signature);
  words[4] = int64_t(tables.kernels.size());
  words[5] = int64_t(tables.constants.size());
  rt::aot::seal(words);
  SCOPED_TRACE(what);
  expect_error<jx::Error>([&] { rt::aot::decode(aot_test::object_of(words, tables), 2); }, what);
}

// A kernel flag on a value step would bind the value step to kernel 0 and shift every later
// kernel by one.
TEST(AotProgramCorruption, KernelFlagOnlyOnKernelSteps) {
  expect_refused([](rt::Program &p) { p.steps[1].kernel = aot_test::fake_kernel; },
                 "kernel flag on a value step");
  expect_refused([](rt::Program &p) { p.steps[0].kernel = aot_test::fake_kernel; },
                 "kernel flag on an argument step");
  expect_refused([](rt::Program &p) { p.steps[2].kernel = aot_test::fake_kernel; },
                 "kernel flag on a fill step");
  // And a kernel step without its flag.
  expect_refused([](rt::Program &p) { p.steps[4].kernel = nullptr; }, "kernel missing");
}

TEST(AotProgramCorruption, LiteralAndBufferCountsMatchTheKernels) {
  expect_refused([](rt::Program &p) { p.steps[3].literals.pop_back(); },
                 "kernel literals: the kernel reads 2, the step gives 1");
  expect_refused([](rt::Program &p) { p.steps[3].literals.push_back(1); },
                 "kernel literals: the kernel reads 2, the step gives 3");
  expect_refused([](rt::Program &p) { p.steps[4].literals = {1}; }, "kernel literals");
  expect_refused([](rt::Program &p) { p.steps[1].literals = {1}; }, "literals on a value step");
  // Inputs swapped (32 and 48 bytes), or one read twice.
  expect_refused([](rt::Program &p) { p.steps[3].inputs = {2, 0}; }, "kernel input sizes");
  expect_refused(
      [](rt::Program &p) {
        p.steps[3].inputs = {0, 0};
        p.steps[3].frees = {0};
      },
      "kernel inputs repeated");
  expect_refused([](rt::Program &p) { p.steps[4].inputs = {3, 1}; }, "kernel buffers");
}

// Fields a kind of step does not use must hold their defaults.
TEST(AotProgramCorruption, UnusedFieldsAreChecked) {
  expect_refused([](rt::Program &p) { p.steps[1].argument = 3; }, "argument index on a value step");
  expect_refused([](rt::Program &p) { p.steps[3].key_lo = 1; }, "random key on a kernel step");
  expect_refused([](rt::Program &p) { p.steps[3].dtype = jx::DType::int32; },
                 "dtype on a kernel step");
  expect_refused([](rt::Program &p) { p.steps[2].inputs = {0}; }, "inputs on a fill step");
  expect_refused([](rt::Program &p) { p.steps[0].extent = {2}; }, "extent on an argument step");
  expect_refused([](rt::Program &p) { p.steps[1].grain = 4; }, "kernel rows on a value step");
  expect_refused([](rt::Program &p) { p.steps[3].gemm.m = 1; },
                 "contraction shape on a kernel step");
  expect_refused([](rt::Program &p) { p.steps[0].out_bytes = {32}; },
                 "output sizes on an argument step");
  // Frees: each once, and only of slots the step reads.
  expect_refused([](rt::Program &p) { p.steps[3].frees = {0, 2, 0}; }, "step frees");
  expect_refused([](rt::Program &p) { p.steps[4].frees = {3, 1}; }, "step frees");
  // The arena: exactly as large as its slots, cache-line offsets, no two live slots overlapping.
  expect_refused([](rt::Program &p) { p.arena_bytes = 256; }, "arena size");
  expect_refused([](rt::Program &p) { p.arena_offset[3] = 32; }, "arena offset");
  expect_refused(
      [](rt::Program &p) {
        p.arena_offset[3] = 0;
        p.arena_bytes = 64;
        p.steps[3].frees = {0};
      },
      "arena slots overlap");
  // A one-output kernel may write over the same lines of an input it frees (in place).
  rt::Program in_place = aot_test::every_kind_of_step();
  in_place.arena_offset[3] = 0;
  in_place.arena_bytes = 64;
  std::vector<int64_t> words = rt::aot::encode(in_place, aot_test::every_kind_signature, 0);
  const aot_test::ObjectTables tables =
      aot_test::tables_of(in_place, aot_test::every_kind_signature);
  words[4] = int64_t(tables.kernels.size());
  words[5] = int64_t(tables.constants.size());
  rt::aot::seal(words);
  EXPECT_EQ(rt::aot::decode(aot_test::object_of(words, tables), 2).program.arena_offset[3], 0);
}

// Every field set on every kind of step that does not use it, one at a time: refused, named.
TEST(AotProgramCorruption, EveryUnusedFieldOfEveryKind) {
  using K = rt::Step::Kind;
  struct Field {
    const char *name;
    std::vector<K> used_by;
    std::function<void(rt::Step &)> set;
  };
  const std::vector<K> all_but_argument = {K::Value, K::Fill, K::Kernel, K::Contraction};
  const std::vector<K> read = {K::Kernel, K::Contraction};
  std::vector<Field> fields = {
      {"output sizes", all_but_argument, [](rt::Step &s) { s.out_bytes.push_back(8); }},
      {"inputs", read, [](rt::Step &s) { s.frees = {0}; }},
      {"inputs", read, [](rt::Step &s) { s.inputs = {0}; }},
      {"argument index", {K::Argument}, [](rt::Step &s) { s.argument = 1; }},
      {"random key", {K::Fill}, [](rt::Step &s) { s.key_hi = 1; }},
      {"random key", {K::Fill}, [](rt::Step &s) { s.key_lo = 1; }},
      {"dtype", {K::Fill, K::Contraction}, [](rt::Step &s) { s.dtype = jx::DType::int32; }},
      {"kernel flag", {K::Kernel}, [](rt::Step &s) { s.kernel = aot_test::fake_kernel; }},
      {"literals", {K::Kernel}, [](rt::Step &s) { s.literals = {1}; }},
      {"extent", {K::Fill, K::Kernel, K::Contraction}, [](rt::Step &s) { s.extent = {1}; }},
      {"kernel rows", {K::Kernel}, [](rt::Step &s) { s.outer = 1; }},
      {"kernel rows", {K::Kernel}, [](rt::Step &s) { s.grain = 2; }},
      {"device boxes", {K::Kernel}, [](rt::Step &s) { s.boxes.push_back(1); }},
      {"device boxes", {K::Kernel}, [](rt::Step &s) { s.box_work = 2; }},
      {"regions",
       {K::While, K::Case, K::Scan},
       [](rt::Step &s) { s.regions = {std::make_shared<const rt::Program>()}; }},
      {"loop carries", {K::While, K::Scan}, [](rt::Step &s) { s.carries = 1; }},
      {"scanned inputs", {K::Scan}, [](rt::Step &s) { s.xs = 1; }},
      {"scan length", {K::Scan}, [](rt::Step &s) { s.length = 1; }},
      {"scan direction", {K::Scan}, [](rt::Step &s) { s.reverse = true; }},
  };
  // Each of a contraction's ten words.
  for (int w = 0; w < 10; ++w)
    fields.push_back({"contraction shape", {K::Contraction}, [w](rt::Step &s) {
                        int64_t *words[] = {&s.gemm.batch,  &s.gemm.m,      &s.gemm.n,
                                            &s.gemm.k,      &s.gemm.lhs[0], &s.gemm.lhs[1],
                                            &s.gemm.lhs[2], &s.gemm.rhs[0], &s.gemm.rhs[1],
                                            &s.gemm.rhs[2]};
                        *words[w] = 1;
                      }});
  // Steps 0 to 3 of every_kind_of_step: an argument, a value, a fill and a kernel.
  const char *kinds[] = {"an argument", "a value", "a fill", "a kernel"};
  int refused = 0;
  for (const Field &f : fields)
    for (size_t step = 0; step < 4; ++step) {
      const K kind = aot_test::every_kind_of_step().steps[step].kind;
      if (std::find(f.used_by.begin(), f.used_by.end(), kind) != f.used_by.end()) continue;
      expect_refused([&](rt::Program &p) { f.set(p.steps[step]); },
                     std::string(f.name) + " on " + kinds[step] + " step");
      ++refused;
    }
  EXPECT_EQ(refused, 99);
}

// The words of ABI version 7, word by word: encode and decode expand one field list, so a change
// to it would change the format without failing any round trip. Such a change bumps
// JX_AOT_ABI_VERSION and this test.
TEST(AotFormat, TheWordsOfVersionSeven) {
  rt::Program p = aot_test::every_kind_of_step();
  // Encoded only (a contraction reading that program's slots would not validate, nor a scan
  // whose body does nothing).
  rt::Step c{.kind = rt::Step::Kind::Contraction,
             .outs = {7},
             .out_bytes = {8},
             .frees = {5},
             .dtype = jx::DType::float32,
             .inputs = {5, 1},
             .extent = {1}};
  c.gemm = {2, 3, 5, 7, {11, 13, 17}, {19, 23, 29}};
  p.steps.push_back(c);
  rt::Program body{.outputs = {0}, .arena_offset = {-1}, .slot_count = 1, .argument_bytes = {8}};
  body.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
  rt::Step scan{.kind = rt::Step::Kind::Scan, .outs = {8}, .out_bytes = {8}, .inputs = {7}};
  scan.regions = {std::make_shared<const rt::Program>(body)};
  scan.carries = 1;
  scan.length = 3;
  scan.reverse = true;
  p.steps.push_back(scan);
  // clang-format off
  const std::vector<int64_t> expected = {
      // "JXAOT", the version, the checksum, CPU features, kernels, constants
      0x0054'4f41'584a, 7, -3022683612731166494, 5, 2, 1,
      // arguments (float64[2,2]), results (bool[], int64[4])
      1, 4, 2, 2, 2,  2, 0, 0,  2, 1, 4,
      // slots, arena bytes, arena offsets, outputs, argument sizes, steps
      7, 128, 7, -1, -1, 0, 64, -1, -1, -1, 2, 4, 1, 1, 32, 9,
      // per step: kind, outs, out_bytes, frees, argument, key_hi, key_lo, dtype, kernel flag,
      // inputs, literals, extent, outer, grain, boxes, box_work, batch, m, n, k, lhs[3], rhs[3],
      // library op, axis, reverse, count, mode, regions (each a program: its fields, argument sizes
      // and steps), carries, xs, length, reverse, update input, donors, donor slots
      1, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1, 0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      0, 1, 1, 1, 32, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1, 0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      2, 1, 2, 1, 48, 0, 0, 0xdeadbeef, 7, 3, 0, 0, 0, 2, 3, 4, 0, 1, 0, 1,
          0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      3, 1, 3, 1, 64, 2, 0, 2, 0, 0, 0, 4, 1, 2, 0, 2, 2, 0x3ff0000000000000, -5, 2, 4, 4, 4, 2,
          0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      3, 1, 4, 1, 1, 0, 0, 0, 0, 4, 1, 1, 3, 0, 1, 1, 1, 1, 2, 0, 1, 3,
          0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      8, 1, 6, 1, 128, 1, 3, 0, 0, 0, 3, 0, 1, 3, 0, 2, 4, 4, 0, 1, 0, 1,
          0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  5, 1, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      3, 1, 5, 1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 1, 0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      4, 1, 7, 1, 8, 1, 5, 0, 0, 0, 3, 0, 2, 5, 1, 0, 1, 1, 0, 1, 0, 1,
          2, 3, 5, 7, 11, 13, 17, 19, 23, 29,  0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
      7, 1, 8, 1, 8, 0, 0, 0, 0, 4, 0, 1, 7, 0, 0, 0, 1, 0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          0, 0, 0, 0, 0,
          1,  1, 0, 1, -1, 1, 0, 1, 8, 1,
              1, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1, 0, 1,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  -1, 0, 0,
          1, 0, 3, 1,  -1, 0, 0};
  // clang-format on
  EXPECT_EQ(rt::aot::encode(p, aot_test::every_kind_signature, 5), expected);
}

// What an old version's entry point answers: JX_AOT_ERROR_ABI naming both versions, nothing
// decoded.
void expect_version_error(int32_t status, const char *error, int version, const void *state) {
  EXPECT_EQ(status, JX_AOT_ERROR_ABI);
  EXPECT_NE(std::string(error).find(
                fmt::format("generated for ABI version {}, but this runtime is ABI version {}",
                            version, JX_AOT_ABI_VERSION)),
            std::string::npos)
      << error;
  EXPECT_EQ(state, nullptr);
}

// An object of an older version whose entry point takes an object (versions 3 and 4) calls it,
// and the runtime, which keeps it only to say so, answers with both versions; its words given to
// this runtime's decoder name the version too, not a checksum error.
using ObjectEntryPoint = int32_t (*)(void **, const jx_aot_object *, const jx_aot_array *, int32_t,
                                     const jx_aot_array *, int32_t, char *, size_t);
void expect_old_object_refused(int version, ObjectEntryPoint entry) {
  const rt::Program p = aot_test::every_kind_of_step();
  std::vector<int64_t> words = rt::aot::encode(p, aot_test::every_kind_signature, 0);
  const aot_test::ObjectTables tables = aot_test::tables_of(p, aot_test::every_kind_signature);
  const jx_aot_object o = aot_test::object_of(words, tables);
  void *state = nullptr;
  char error[256] = "";
  expect_version_error(entry(&state, &o, nullptr, 0, nullptr, 0, error, sizeof error), error,
                       version, state);
  words[1] = version;
  expect_error<jx::Error>([&] { rt::aot::decode(aot_test::object_of(words, tables), 2); },
                          fmt::format("generated for ABI version {}, but this runtime is ABI "
                                      "version {}",
                                      version, JX_AOT_ABI_VERSION));
}

// Version 6 had kernels without updates or donations, version 5 library steps without a mode
// word, version 4 control steps but no library steps, version 3 neither.
TEST(AotAbi, VersionSixObjectsGetAVersionError) { expect_old_object_refused(6, jx_aot_run_v6); }
TEST(AotAbi, VersionFiveObjectsGetAVersionError) { expect_old_object_refused(5, jx_aot_run_v5); }
TEST(AotAbi, VersionFourObjectsGetAVersionError) { expect_old_object_refused(4, jx_aot_run_v4); }
TEST(AotAbi, VersionThreeObjectsGetAVersionError) { expect_old_object_refused(3, jx_aot_run_v3); }

// An object of ABI version 2 calls jx_aot_run_v2, which the runtime keeps only to say so.
TEST(AotAbi, VersionTwoObjectsGetAVersionError) {
  const rt::Program p = aot_test::every_kind_of_step();
  const std::vector<int64_t> words = rt::aot::encode(p, aot_test::every_kind_signature, 0);
  const aot_test::ObjectTables tables = aot_test::tables_of(p, aot_test::every_kind_signature);
  void *state = nullptr;
  char error[256] = "";
  expect_version_error(jx_aot_run_v2(&state, words.data(), int64_t(words.size()),
                                     tables.kernels.data(), tables.constants.data(), nullptr, 0,
                                     nullptr, 0, error, sizeof error),
                       error, 2, state);
  // Version 2's words (no checksum) given to this runtime: the version, not a checksum error.
  std::vector<int64_t> old = words;
  old[1] = 2;
  old.erase(old.begin() + 2);
  expect_error<jx::Error>([&] { rt::aot::decode(aot_test::object_of(old, tables), 2); },
                          "generated for ABI version 2, but this runtime is ABI version " +
                              std::to_string(JX_AOT_ABI_VERSION));
  // A null object.
  EXPECT_EQ(jx_aot_run_v7(&state, nullptr, nullptr, 0, nullptr, 0, error, sizeof error),
            JX_AOT_ERROR_ABI);
}

} // namespace
