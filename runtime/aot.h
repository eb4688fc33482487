// A runtime::Program as ahead-of-time objects carry it: a versioned, checksummed array of 64-bit
// words (the CPU features the kernels need, the table sizes, the signature, then every step's
// fields, in the order of runtime/aot_format.h's one list of them), with kernels and constants
// given by position in tables the object also holds. Written by jx::aot (src/aot), read by
// jx_aot_run_v7 (include/jx/aot_abi.h, runtime/aot_abi.cpp).
#pragma once

#include <jx/aot_abi.h>
#include <jx/dtype.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace jx::runtime::aot {

struct ArraySpec {
  DType dtype;
  std::vector<int64_t> shape;
};

struct Signature {
  std::vector<ArraySpec> args, results;
};

// x86 features compiled kernels may use, bit i for cpu_features[i], by the names LLVM's
// "+feature" strings and GCC's __builtin_cpu_supports share. An object records those of its
// target; a host lacking one gets an error instead of an illegal instruction.
// clang-format off
#define JX_AOT_CPU_FEATURES(X)                                                                     \
  X("popcnt") X("sse4.2") X("avx") X("avx2") X("fma") X("bmi") X("bmi2") X("avx512f")             \
  X("avx512dq") X("avx512bw") X("avx512vl") X("avx512cd") X("avx512vbmi") X("avx512ifma")          \
  X("avx512vnni") X("avx512bitalg") X("avx512vpopcntdq") X("avx512bf16") X("avx512fp16")          \
  X("avx512vbmi2") X("gfni") X("vaes") X("vpclmulqdq") X("avxvnni") X("f16c") X("lzcnt")          \
  X("movbe") X("avx512vp2intersect")
// clang-format on
#define JX_AOT_FEATURE_NAME(NAME) NAME,
inline constexpr const char *cpu_features[] = {JX_AOT_CPU_FEATURES(JX_AOT_FEATURE_NAME)};
#undef JX_AOT_FEATURE_NAME
inline constexpr size_t cpu_feature_count = sizeof(cpu_features) / sizeof(cpu_features[0]);
// The features of cpu_features this host has.
uint64_t host_cpu_features();
// The names of the features in required that host lacks, comma separated ("" when none).
std::string missing_cpu_features(uint64_t required, uint64_t host);

// Encodes program for an object whose kernels need `required_features`: Value steps are numbered
// in order (the object's constant table: out_bytes[0] must hold each one's size), kernels
// likewise (steps with a null kernel take no entry; a control step's regions' in its place,
// depth first, each region carrying its argument_bytes), placed kernels keep their device boxes
// (the tasks are split again for the pool that runs them), Argument steps come first, by position.
// Word 2 is the checksum of the others.
std::vector<int64_t> encode(const Program &program, const Signature &signature,
                            uint64_t required_features);

// FNV-1a 64 over the bytes of every word but word 2 (the checksum's own).
uint64_t checksum(const int64_t *words, int64_t count);
// Sets word 2 of words to their checksum (for tests that edit encoded words on purpose).
void seal(std::vector<int64_t> &words);

// jx_aot_object's kernel_info for program's kernels, derived from its steps (the generator
// derives it from the kernels' plans instead; tests use this).
std::vector<int64_t> kernel_info(const Program &program, const Signature &signature);

struct Decoded {
  Program program;
  Signature signature;
  uint64_t required_features = 0;
};
// The object's program, checked (checksum, version) and validated (every field of every step,
// every slot, size, index and bound consistent with each other and with the object's tables, so
// that a corrupt program is an error, not a wild write), its kernels and constants bound from
// the tables, its device boxes split into tasks for `threads`. A jx::Error otherwise, naming the
// problem.
Decoded decode(const jx_aot_object &object, int64_t threads);

// The bytes of an array of the spec (its shape checked as the decoder checks it).
size_t byte_size(const ArraySpec &spec);

// The text of a signature's arrays, as jx writes them: "float64[100,3], int32[]".
std::string spec_text(const std::vector<ArraySpec> &specs);

} // namespace jx::runtime::aot

// The entry points of ABI versions 6, 5, 4, 3 and 2, kept so that an object of those versions links
// and gets JX_AOT_ERROR_ABI naming both versions (their arguments are not read).
extern "C" int32_t jx_aot_run_v6(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size);
extern "C" int32_t jx_aot_run_v5(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size);
extern "C" int32_t jx_aot_run_v4(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size);
extern "C" int32_t jx_aot_run_v3(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size);
extern "C" int32_t jx_aot_run_v2(void **state, const int64_t *program, int64_t program_words,
                                 const jx_aot_kernel *kernels, const void *const *constants,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size);
