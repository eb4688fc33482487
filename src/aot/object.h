// The LLVM half of jx::aot: one relocatable object holding a function's kernels, its encoded
// program and constants, and the C entry point that hands them to jx_aot_run_v7. No LLVM
// types here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/kernel_plan.h"
#include "runtime/aot.h"
#include "runtime/buffer.h"
#include "runtime/program.h"

namespace jx::aot_impl {

struct ObjectContents {
  std::string symbol;     // the entry point's
  std::string target_cpu; // "host" or an LLVM CPU name
  std::vector<const passes::KernelPlan *> kernels;
  runtime::Program program; // Value steps' out_bytes set to their constants' sizes
  runtime::aot::Signature signature;
  std::vector<runtime::BufferPtr> constants;
};

struct Object {
  std::string bytes;
  std::string cpu;  // the CPU the code is for (the host's name for "host")
  std::string tier; // the math tier its kernels link against: avx512, avx2 or scalar
};

Object emit_object(const ObjectContents &contents);

} // namespace jx::aot_impl
