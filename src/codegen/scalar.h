// Scalar semantics of the graph's ops in LLVM IR, the compiled mirror of src/interp/scalar_ops.h:
// what one element of an op computes, over an IRBuilder (a value of each dtype in its register
// type, conversions, libm and jx runtime calls). The emitter (emit.cpp) inherits it and calls it
// per element of its loop nests.
#pragma once

#include <jx/dtype.h>

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "ir/op.h"

namespace jx::codegen {

class ScalarCode {
public:
  using Value = llvm::Value;
  using Op = ir::Op;

  explicit ScalarCode(llvm::Module &mod)
      : ctx_(mod.getContext()), mod_(mod), b_(ctx_), i64_(llvm::Type::getInt64Ty(ctx_)) {}

  // A value of t in registers (bool as i1, float16 and bfloat16 as their bits, complex as a pair
  // of parts) and in memory (bool as a byte).
  llvm::Type *reg_type(DType t);
  llvm::Type *mem_type(DType t);

  Value *constant(DType t, double f, int64_t i);
  Value *extreme(DType t, int sign);
  Value *intrinsic(llvm::Intrinsic::ID id, Value *x, Value *y = nullptr);
  Value *call(const std::string &name, llvm::Type *type, std::vector<Value *> args);
  Value *math(const char *name, DType t, std::vector<Value *> args);
  Value *unary(Op op, DType t, Value *x);
  Value *compare(Op op, DType t, Value *a, Value *c);
  Value *hypot(Value *a, Value *c);
  Value *binary(Op op, DType t, Value *a, Value *c);
  Value *shift(bool left, bool is_unsigned, Value *a, Value *c);
  Value *integer_divmod(Op op, bool is_unsigned, Value *a, Value *c);
  Value *integer_pow(DType t, Value *a, Value *c);
  Value *float_divmod(Op op, Value *a, Value *c);
  Value *convert(Value *x, DType from, DType to);
  Value *widen_storage(Value *bits, DType t);
  Value *bfloat16_of(Value *f);
  Value *truncate_to(Value *x, llvm::Type *ty);
  Value *zero_of(Value *x);

protected:
  llvm::LLVMContext &ctx_;
  llvm::Module &mod_;
  llvm::IRBuilder<> b_;
  llvm::Type *i64_;
};

} // namespace jx::codegen
