// The LLVM side shared by the JIT (src/backend) and the ahead-of-time compiler (src/aot): a target
// machine for the host or a named CPU, jx's O3 pipeline with the runtime's vector math library,
// and object emission. LLVM types: include only from translation units that see LLVM already.
#pragma once

#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include "runtime/vector_math.h"

namespace llvm {
class Module;
} // namespace llvm

namespace jx::codegen {

struct Target {
  // For the JIT's LLJIT; also what made `machine`.
  llvm::orc::JITTargetMachineBuilder builder;
  std::unique_ptr<llvm::TargetMachine> machine;
  runtime::MathTier math_tier;
  bool avx512;
};

// "host": this machine's CPU and features; otherwise an LLVM CPU name such as "x86-64-v3" or
// "skylake-avx512" for this machine's triple (a jx::Error names an unknown one). PIC, small code
// model, O3 code generation.
Target make_target(const std::string &cpu);

// jx's LLVM options, set once per process; returns them as text (part of the disk cache's key).
// An option in JX_LLVM_FLAGS that LLVM rejects is a jx::ValueError here, at every call.
const std::string &llvm_options();

// The module for target at O3, math calls vectorized through the tier's variants.
void optimize(llvm::Module &module, const Target &target);

// Machine code for an optimized module, as a relocatable object file.
std::string emit_object(llvm::Module &module, const Target &target);

// Assembly text for an optimized module.
std::string emit_assembly(llvm::Module &module, const Target &target);

// Text naming the tier's vector-library table (part of the disk cache's key).
std::string math_library_text(runtime::MathTier tier);

} // namespace jx::codegen
