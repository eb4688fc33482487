// A runtime::Program as ahead-of-time objects carry it: a versioned array of 64-bit words (the
// signature, then every step's fields), with kernels and constants given by position in tables
// the object also holds. Written by jx::aot (src/aot), read by jx_aot_run (include/jx/aot_abi.h).
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

// Encodes program: Value steps are numbered in order (the object's constant table: out_bytes[0]
// must hold each one's size), kernels likewise (steps with a null kernel take no entry).
std::vector<int64_t> encode(const Program &program, const Signature &signature);

struct Decoded {
  Program program;
  Signature signature;
};
// The program of words, its kernels and constants bound from the tables; a jx::Error when the
// words are not an encoded program of this ABI version.
Decoded decode(const int64_t *words, int64_t count, const jx_aot_kernel *kernels,
               const void *const *constants);

// The text of a signature's arrays, as jx writes them: "float64[100,3], int32[]".
std::string spec_text(const std::vector<ArraySpec> &specs);

} // namespace jx::runtime::aot
