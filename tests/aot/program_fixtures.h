// Runtime programs the AOT encoding tests encode and break, and the object tables (kernels,
// kernel info, constants) that go with them, as a generated object would hold them.
#pragma once

#include <jx/aot_abi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/aot.h"
#include "runtime/program.h"

namespace aot_test {

namespace rt = jx::runtime;

inline int kernel_calls = 0;
inline void fake_kernel(const int64_t *, void *const *) { ++kernel_calls; }
inline void other_kernel(const int64_t *, void *const *) {}

// A program with a step of each kind and every field a kind uses set, as the JIT would build it
// (each slot freed by its last reader).
inline rt::Program every_kind_of_step() {
  rt::Program p;
  p.slot_count = 7;
  p.arena_bytes = 128;
  p.arena_offset = {-1, -1, 0, 64, -1, -1, -1};
  p.outputs = {4, 1};
  p.steps.push_back({.kind = rt::Step::Kind::Argument, .outs = {0}, .argument = 0});
  p.steps.push_back({.kind = rt::Step::Kind::Value, .outs = {1}, .out_bytes = {32}});
  p.steps.push_back({.kind = rt::Step::Kind::Fill,
                     .outs = {2},
                     .out_bytes = {48},
                     .key_hi = 0xdeadbeef,
                     .key_lo = 7,
                     .dtype = jx::DType::float32,
                     .extent = {3, 4}});
  p.steps.push_back({.kind = rt::Step::Kind::Kernel,
                     .outs = {3},
                     .out_bytes = {64},
                     .frees = {0, 2},
                     .kernel = fake_kernel,
                     .inputs = {0, 2},
                     .literals = {0x3ff0000000000000u, uint64_t(-5)},
                     .extent = {4, 4},
                     .outer = 4,
                     .grain = 2});
  p.steps.push_back({.kind = rt::Step::Kind::Kernel,
                     .outs = {4},
                     .out_bytes = {1},
                     .kernel = other_kernel,
                     .inputs = {3},
                     .extent = {1},
                     .outer = 1,
                     .boxes = {0, 1},
                     .box_work = 3});
  p.steps.push_back({.kind = rt::Step::Kind::Library,
                     .outs = {6},
                     .out_bytes = {128},
                     .frees = {3},
                     .dtype = jx::DType::float32,
                     .library = {.op = rt::LibraryOp::ArgSort, .axis = 1},
                     .inputs = {3},
                     .extent = {4, 4}});
  p.steps.push_back({.kind = rt::Step::Kind::Kernel,
                     .outs = {5},
                     .out_bytes = {0},
                     .kernel = nullptr,
                     .extent = {0},
                     .outer = 0});
  return p;
}

inline const rt::aot::Signature every_kind_signature{
    {{jx::DType::float64, {2, 2}}}, {{jx::DType::bool_, {}}, {jx::DType::int64, {4}}}};

// A generated object's tables for program: its kernels, what they were compiled for, and its
// constants (64-byte aligned, 1, 2, 3, ... as doubles, shared).
struct ObjectTables {
  std::vector<jx_aot_kernel> kernels;
  std::vector<int64_t> kernel_info;
  std::vector<const void *> constants;
  std::vector<int64_t> constant_bytes;
};

inline ObjectTables tables_of(const rt::Program &program, const rt::aot::Signature &signature) {
  alignas(64) static double pool[512];
  for (int i = 0; i < 512; ++i)
    pool[i] = i + 1;
  ObjectTables t;
  t.kernel_info = rt::aot::kernel_info(program, signature);
  // In the encoder's order: a control step's regions' kernels and constants in its place.
  const std::function<void(const rt::Program &)> take = [&](const rt::Program &p) {
    for (const rt::Step &s : p.steps) {
      if (s.kernel) t.kernels.push_back(s.kernel);
      if (s.kind == rt::Step::Kind::Value) {
        t.constants.push_back(pool);
        t.constant_bytes.push_back(int64_t(s.out_bytes.at(0)));
      }
      for (const auto &region : s.regions)
        take(*region);
    }
  };
  take(program);
  return t;
}

inline jx_aot_object object_of(const std::vector<int64_t> &words, const ObjectTables &t) {
  return {words.data(),
          int64_t(words.size()),
          t.kernels.data(),
          int64_t(t.kernels.size()),
          t.kernel_info.data(),
          int64_t(t.kernel_info.size()),
          t.constants.data(),
          t.constant_bytes.data(),
          int64_t(t.constants.size())};
}

} // namespace aot_test
