// Scalar semantics of the graph's ops in LLVM IR (scalar.h).
#include "codegen/scalar.h"

#include <jx/error.h>

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "interp/scalar_ops.h"
#include "ir/builder.h"
#include "runtime/vector_math.h"

namespace jx::codegen {

using ir::Op;
using llvm::Value;

llvm::Type *ScalarCode::reg_type(DType t) {
  switch (t) {
  case DType::bool_: return llvm::Type::getInt1Ty(ctx_);
  case DType::float32: return llvm::Type::getFloatTy(ctx_);
  case DType::float64: return llvm::Type::getDoubleTy(ctx_);
  // A complex number is a pair of its parts, as stored (instcombine splits it into scalars).
  case DType::complex64:
  case DType::complex128: {
    llvm::Type *part = reg_type(real_dtype(t));
    return llvm::StructType::get(ctx_, {part, part});
  }
  default: return b_.getIntNTy(unsigned(itemsize(t) * 8));
  }
}
llvm::Type *ScalarCode::mem_type(DType t) {
  return t == DType::bool_ ? llvm::Type::getInt8Ty(ctx_) : reg_type(t);
}

Value *ScalarCode::constant(DType t, double f, int64_t i) {
  if (is_complex(t)) { // f + 0i (a gather's fill of zeros)
    auto *part = llvm::cast<llvm::Constant>(constant(real_dtype(t), f, i));
    return llvm::ConstantStruct::getAnon({part, llvm::Constant::getNullValue(part->getType())});
  }
  if (t == DType::float16) return b_.getInt16(float16_bits(f));
  if (t == DType::bfloat16) return b_.getInt16(bfloat16_bits(f));
  if (is_floating(t)) return llvm::ConstantFP::get(reg_type(t), f);
  return llvm::ConstantInt::get(reg_type(t), uint64_t(i), true);
}

// The lowest (sign -1) or highest (sign 1) value of t: reduction identities.
Value *ScalarCode::extreme(DType t, int sign) {
  switch (t) {
  case DType::bool_: return b_.getInt1(sign > 0);
  case DType::float32:
  case DType::float64: return constant(t, sign * std::numeric_limits<double>::infinity(), 0);
  default: {
    const auto bits = unsigned(itemsize(t) * 8);
    if (is_unsigned(t))
      return b_.getInt(sign > 0 ? llvm::APInt::getMaxValue(bits) : llvm::APInt::getMinValue(bits));
    return b_.getInt(sign > 0 ? llvm::APInt::getSignedMaxValue(bits)
                              : llvm::APInt::getSignedMinValue(bits));
  }
  }
}

Value *ScalarCode::intrinsic(llvm::Intrinsic::ID id, Value *x, Value *y) {
  if (y) return b_.CreateBinaryIntrinsic(id, x, y);
  return b_.CreateUnaryIntrinsic(id, x);
}

// A pure libm (or jx runtime) function: no memory, no errno, so LICM and the vectorizer
// may move and widen it.
Value *ScalarCode::call(const std::string &name, llvm::Type *type, std::vector<Value *> args) {
  std::vector<llvm::Type *> params(args.size(), type);
  llvm::FunctionCallee f =
      mod_.getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
  if (auto *decl = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    decl->setDoesNotAccessMemory();
    decl->setDoesNotThrow();
    decl->setWillReturn();
  }
  llvm::CallInst *c = b_.CreateCall(f, args);
  c->setDoesNotAccessMemory();
  return c;
}

// exp, log, pow, ... (runtime/math_functions.def): one implementation at every vector width.
Value *ScalarCode::math(const char *name, DType t, std::vector<Value *> args) {
  llvm::Type *type = args[0]->getType();
  return call(runtime::math_function(name, t == DType::float32), type, std::move(args));
}

Value *ScalarCode::unary(Op op, DType t, Value *x) {
  if (t == DType::bool_) {
    if (op == Op::Not) return b_.CreateNot(x);
    if (op == Op::Abs || op == Op::Floor || op == Op::Ceil || op == Op::Round || op == Op::Sign ||
        op == Op::StopGradient)
      return x;
  } else if (is_floating(t)) {
    llvm::Type *ty = x->getType();
    switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps)
#define JX_UNARY_MATH(name, str, fn, ulps)                                                         \
  case Op::name:                                                                                   \
    return math(#fn, t, {x});
#define JX_BINARY_MATH(name, str, fn, ulps)
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
    case Op::Neg: return b_.CreateFNeg(x);
    case Op::Abs: return intrinsic(llvm::Intrinsic::fabs, x);
    case Op::Sign: {
      Value *zero = llvm::ConstantFP::get(ty, 0.0);
      Value *s = b_.CreateSelect(b_.CreateFCmpOEQ(x, zero), zero, x); // NaN stays NaN
      s = b_.CreateSelect(b_.CreateFCmpOLT(x, zero), llvm::ConstantFP::get(ty, -1.0), s);
      return b_.CreateSelect(b_.CreateFCmpOGT(x, zero), llvm::ConstantFP::get(ty, 1.0), s);
    }
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, x);
    case Op::Floor: return intrinsic(llvm::Intrinsic::floor, x);
    case Op::Ceil: return intrinsic(llvm::Intrinsic::ceil, x);
    case Op::Round: return intrinsic(llvm::Intrinsic::roundeven, x);
    case Op::ErfInv:
      return call(t == DType::float32 ? "jx_erf_inv_f32" : "jx_erf_inv_f64", ty, {x});
    case Op::StopGradient: return x;
    case Op::IsNan: return b_.CreateFCmpUNO(x, x);
    case Op::IsFinite:
      return b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, x),
                              llvm::ConstantFP::getInfinity(ty));
    case Op::SignBit: {
      Value *bits = b_.CreateBitCast(x, b_.getIntNTy(ty->getPrimitiveSizeInBits()));
      return b_.CreateICmpSLT(bits, zero_of(bits));
    }
    default: break;
    }
  } else if (is_unsigned(t)) {
    switch (op) {
    case Op::Neg: return b_.CreateNeg(x);
    case Op::Abs:
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::StopGradient: return x;
    case Op::Sign: return b_.CreateZExt(b_.CreateICmpNE(x, zero_of(x)), x->getType());
    case Op::Not: return b_.CreateNot(x);
    case Op::SignBit: return b_.getFalse();
    default: break;
    }
  } else {
    switch (op) {
    case Op::Neg: return b_.CreateNeg(x);
    case Op::Abs: return b_.CreateSelect(b_.CreateICmpSLT(x, zero_of(x)), b_.CreateNeg(x), x);
    case Op::Sign:
      return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(x, zero_of(x)), x->getType()),
                          b_.CreateZExt(b_.CreateICmpSLT(x, zero_of(x)), x->getType()));
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
    case Op::StopGradient: return x;
    case Op::Not: return b_.CreateNot(x);
    default: break;
    }
  }
  if (op == Op::IsNan) return b_.getFalse();
  if (op == Op::IsFinite) return b_.getTrue();
  if (op == Op::SignBit) return t == DType::bool_ ? b_.getFalse() : b_.CreateICmpSLT(x, zero_of(x));
  throw Error(fmt::format("internal: {} is not defined on {}", op_name(op), dtype_name(t)));
}

Value *ScalarCode::zero_of(Value *x) { return llvm::Constant::getNullValue(x->getType()); }

Value *ScalarCode::compare(Op op, DType t, Value *a, Value *c) {
  if (is_floating(t)) {
    switch (op) {
    case Op::Eq: return b_.CreateFCmpOEQ(a, c);
    case Op::Ne: return b_.CreateFCmpUNE(a, c);
    case Op::Lt: return b_.CreateFCmpOLT(a, c);
    case Op::Le: return b_.CreateFCmpOLE(a, c);
    case Op::Gt: return b_.CreateFCmpOGT(a, c);
    case Op::Ge: return b_.CreateFCmpOGE(a, c);
    default: break;
    }
  } else {
    // bools compare as unsigned: False < True.
    const bool u = t == DType::bool_ || is_unsigned(t);
    switch (op) {
    case Op::Eq: return b_.CreateICmpEQ(a, c);
    case Op::Ne: return b_.CreateICmpNE(a, c);
    case Op::Lt: return u ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c);
    case Op::Le: return u ? b_.CreateICmpULE(a, c) : b_.CreateICmpSLE(a, c);
    case Op::Gt: return u ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c);
    case Op::Ge: return u ? b_.CreateICmpUGE(a, c) : b_.CreateICmpSGE(a, c);
    default: break;
    }
  }
  throw Error(fmt::format("internal: {} is not a comparison", op_name(op)));
}

// hypot(a, c) as XLA computes a complex number's magnitude: max * sqrt(1 + (min / max)^2),
// within 2 ulp of libm's, in vector instructions (libmvec's AVX2 hypot took 24 cycles an
// element: 70% of an escape-time loop over complex numbers); 0 for two zeros, inf where either
// is infinite (even beside a NaN), NaN for another NaN, as IEEE's hypot.
Value *ScalarCode::hypot(Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  Value *x = intrinsic(llvm::Intrinsic::fabs, a), *y = intrinsic(llvm::Intrinsic::fabs, c);
  Value *big = intrinsic(llvm::Intrinsic::maxnum, x, y),
        *small = intrinsic(llvm::Intrinsic::minnum, x, y);
  Value *ratio = b_.CreateFDiv(small, big);
  Value *h = b_.CreateFMul(
      big, intrinsic(llvm::Intrinsic::sqrt,
                     b_.CreateFAdd(llvm::ConstantFP::get(ty, 1.0), b_.CreateFMul(ratio, ratio))));
  Value *inf = llvm::ConstantFP::getInfinity(ty);
  h = b_.CreateSelect(b_.CreateFCmpOEQ(big, llvm::ConstantFP::get(ty, 0.0)),
                      llvm::ConstantFP::get(ty, 0.0), h);
  h = b_.CreateSelect(b_.CreateFCmpUNO(a, c), llvm::ConstantFP::getNaN(ty), h);
  return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOEQ(x, inf), b_.CreateFCmpOEQ(y, inf)), inf, h);
}

Value *ScalarCode::binary(Op op, DType t, Value *a, Value *c) {
  if (t == DType::bool_) {
    switch (op) {
    case Op::And:
    case Op::Mul:
    case Op::Min: return b_.CreateAnd(a, c);
    case Op::Or:
    case Op::Add:
    case Op::Max: return b_.CreateOr(a, c);
    case Op::Xor: return b_.CreateXor(a, c);
    default: break;
    }
  } else if (is_floating(t)) {
    if (op == Op::Hypot && (t == DType::float64 || t == DType::float32)) return hypot(a, c);
    switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps)
#define JX_UNARY_MATH(name, str, fn, ulps)
#define JX_BINARY_MATH(name, str, fn, ulps)                                                        \
  case Op::name:                                                                                   \
    return math(#fn, t, {a, c});
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
    case Op::Add: return b_.CreateFAdd(a, c);
    case Op::Sub: return b_.CreateFSub(a, c);
    case Op::Mul: return b_.CreateFMul(a, c);
    case Op::Div: return b_.CreateFDiv(a, c);
    case Op::CopySign: return intrinsic(llvm::Intrinsic::copysign, a, c);
    case Op::Fmod: return b_.CreateFRem(a, c); // libm's fmod
    case Op::Max:
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOGE(a, c), b_.CreateFCmpUNO(a, a)), a, c);
    case Op::Min:
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOLE(a, c), b_.CreateFCmpUNO(a, a)), a, c);
    case Op::Rem:
    case Op::FloorDiv: return float_divmod(op, a, c);
    default: break;
    }
  } else {
    // Ops whose bits do not depend on signedness, then the ones that do.
    const bool u = is_unsigned(t);
    switch (op) {
    case Op::Add: return b_.CreateAdd(a, c);
    case Op::Sub: return b_.CreateSub(a, c);
    case Op::Mul: return b_.CreateMul(a, c);
    case Op::Max: return b_.CreateSelect(u ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c), a, c);
    case Op::Min: return b_.CreateSelect(u ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c), a, c);
    case Op::And: return b_.CreateAnd(a, c);
    case Op::Or: return b_.CreateOr(a, c);
    case Op::Xor: return b_.CreateXor(a, c);
    case Op::Pow: return integer_pow(t, a, c);
    default: break;
    }
    if (u) return unsigned_binary(op, t, a, c);
    llvm::Type *ty = a->getType();
    const int bits = int(ty->getIntegerBitWidth());
    Value *zero = zero_of(a), *minus_one = llvm::ConstantInt::get(ty, -1, true);
    switch (op) {
    case Op::ShiftLeft:
    case Op::ShiftRight: {
      Value *out_of_range = b_.CreateOr(b_.CreateICmpSLT(c, zero),
                                        b_.CreateICmpSGE(c, llvm::ConstantInt::get(ty, bits)));
      Value *safe = b_.CreateSelect(out_of_range, zero, c);
      if (op == Op::ShiftLeft) return b_.CreateSelect(out_of_range, zero, b_.CreateShl(a, safe));
      Value *fill = b_.CreateSelect(b_.CreateICmpSLT(a, zero), minus_one, zero);
      return b_.CreateSelect(out_of_range, fill, b_.CreateAShr(a, safe));
    }
    case Op::Fmod: {
      // By 0 or -1 the result is 0 (jnp.fmod); neither reaches the hardware.
      Value *trivial = b_.CreateOr(b_.CreateICmpEQ(c, zero), b_.CreateICmpEQ(c, minus_one));
      Value *safe = b_.CreateSelect(trivial, llvm::ConstantInt::get(ty, 1), c);
      return b_.CreateSelect(trivial, zero, b_.CreateSRem(a, safe));
    }
    case Op::Rem:
    case Op::FloorDiv: {
      // Division by 0 or -1 never reaches the hardware (0 traps, MIN / -1 overflows).
      Value *by_zero = b_.CreateICmpEQ(c, zero), *by_minus_one = b_.CreateICmpEQ(c, minus_one);
      Value *safe =
          b_.CreateSelect(b_.CreateOr(by_zero, by_minus_one), llvm::ConstantInt::get(ty, 1), c);
      Value *q = b_.CreateSDiv(a, safe), *r = b_.CreateSRem(a, safe);
      Value *r_nonzero = b_.CreateICmpNE(r, zero);
      if (op == Op::FloorDiv) {
        Value *signs_differ = b_.CreateICmpNE(b_.CreateICmpSLT(a, zero), b_.CreateICmpSLT(c, zero));
        Value *floor_q = b_.CreateSub(q, b_.CreateZExt(b_.CreateAnd(r_nonzero, signs_differ), ty));
        return b_.CreateSelect(by_zero, zero,
                               b_.CreateSelect(by_minus_one, b_.CreateNeg(a), floor_q));
      }
      Value *signs_differ = b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(c, zero));
      Value *mod = b_.CreateSelect(b_.CreateAnd(r_nonzero, signs_differ), b_.CreateAdd(r, c), r);
      return b_.CreateSelect(b_.CreateOr(by_zero, by_minus_one), zero, mod);
    }
    default: break;
    }
  }
  throw Error(fmt::format("internal: {} is not defined on {}", op_name(op), dtype_name(t)));
}

// Shifts and divisions of unsigned integers.
Value *ScalarCode::unsigned_binary(Op op, DType t, Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  const int bits = int(ty->getIntegerBitWidth());
  Value *zero = zero_of(a);
  switch (op) {
  case Op::ShiftLeft:
  case Op::ShiftRight: {
    Value *out_of_range = b_.CreateICmpUGE(c, llvm::ConstantInt::get(ty, bits));
    Value *safe = b_.CreateSelect(out_of_range, zero, c);
    Value *shifted = op == Op::ShiftLeft ? b_.CreateShl(a, safe) : b_.CreateLShr(a, safe);
    return b_.CreateSelect(out_of_range, zero, shifted);
  }
  case Op::Fmod:
  case Op::Rem:
  case Op::FloorDiv: {
    // By 0 the result is 0; the division never reaches the hardware, where it traps.
    Value *by_zero = b_.CreateICmpEQ(c, zero);
    Value *safe = b_.CreateSelect(by_zero, llvm::ConstantInt::get(ty, 1), c);
    Value *r = op == Op::FloorDiv ? b_.CreateUDiv(a, safe) : b_.CreateURem(a, safe);
    return b_.CreateSelect(by_zero, zero, r);
  }
  default: break;
  }
  throw Error(fmt::format("internal: {} is not defined on {}", op_name(op), dtype_name(t)));
}

// numpy.power on integers by the runtime's helper: narrower types in 64 bits (wrapping
// products agree in their low bits; sign- or zero-extended, the exponent's sign is kept).
Value *ScalarCode::integer_pow(DType t, Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  if (t == DType::int32) return call("jx_ipow_i32", ty, {a, c});
  if (t == DType::uint64) return call("jx_ipow_u64", ty, {a, c});
  if (t == DType::int64) return call("jx_ipow_i64", ty, {a, c});
  const bool u = is_unsigned(t);
  Value *wide_a = u ? b_.CreateZExt(a, i64_) : b_.CreateSExt(a, i64_);
  Value *wide_c = u ? b_.CreateZExt(c, i64_) : b_.CreateSExt(c, i64_);
  return b_.CreateTrunc(call("jx_ipow_i64", i64_, {wide_a, wide_c}), ty);
}

// numpy.floor_divide / numpy.remainder on floats (npy_divmod).
Value *ScalarCode::float_divmod(Op op, Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  Value *zero = llvm::ConstantFP::get(ty, 0.0), *one = llvm::ConstantFP::get(ty, 1.0);
  Value *mod = b_.CreateFRem(a, c);
  Value *div = b_.CreateFDiv(b_.CreateFSub(a, mod), c);
  Value *adjust =
      b_.CreateAnd(b_.CreateFCmpUNE(mod, zero),
                   b_.CreateICmpNE(b_.CreateFCmpOLT(c, zero), b_.CreateFCmpOLT(mod, zero)));
  Value *mod_adj = b_.CreateSelect(adjust, b_.CreateFAdd(mod, c), mod);
  Value *div_adj = b_.CreateSelect(adjust, b_.CreateFSub(div, one), div);
  Value *signed_zero_c = intrinsic(llvm::Intrinsic::copysign, zero, c);
  Value *mod_final = b_.CreateSelect(b_.CreateFCmpUNE(mod, zero), mod_adj, signed_zero_c);
  if (op == Op::Rem) return mod_final;
  Value *fl = intrinsic(llvm::Intrinsic::floor, div_adj);
  Value *round_up = b_.CreateFCmpOGT(b_.CreateFSub(div_adj, fl), llvm::ConstantFP::get(ty, 0.5));
  Value *floordiv = b_.CreateSelect(round_up, b_.CreateFAdd(fl, one), fl);
  Value *quotient = b_.CreateFDiv(a, c);
  floordiv = b_.CreateSelect(b_.CreateFCmpUNE(div_adj, zero), floordiv,
                             intrinsic(llvm::Intrinsic::copysign, zero, quotient));
  return b_.CreateSelect(b_.CreateFCmpOEQ(c, zero), quotient, floordiv);
}

Value *ScalarCode::convert(Value *x, DType from, DType to) {
  if (from == to) return x;
  // float16 and bfloat16 (held as their bits, i16) go through float32, or float64 -> float16
  // directly (one rounding, as NumPy).
  if (is_storage_float(from)) return convert(widen_storage(x, from), DType::float32, to);
  if (to == DType::float16) {
    Value *v = convert(x, from, from == DType::float64 ? DType::float64 : DType::float32);
    return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
  }
  if (to == DType::bfloat16) return bfloat16_of(convert(x, from, DType::float32));
  llvm::Type *ty = reg_type(to);
  if (to == DType::bool_)
    return is_floating(from) ? b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))
                             : b_.CreateICmpNE(x, zero_of(x));
  const bool from_unsigned = from == DType::bool_ || is_unsigned(from);
  if (is_floating(from) && is_floating(to)) return b_.CreateFPCast(x, ty);
  if (is_floating(to)) return from_unsigned ? b_.CreateUIToFP(x, ty) : b_.CreateSIToFP(x, ty);
  if (!is_floating(from))
    return from_unsigned ? b_.CreateZExtOrTrunc(x, ty) : b_.CreateSExtOrTrunc(x, ty);
  // Float -> int as ir::convert_scalar: narrower types through int32, uint32 through int64,
  // uint64 by two ranges.
  if (to == DType::uint64) {
    Value *top = llvm::ConstantFP::get(x->getType(), std::ldexp(1.0, 63));
    Value *high = b_.CreateFCmpOGE(x, top);
    Value *t = truncate_to(b_.CreateSelect(high, b_.CreateFSub(x, top), x), i64_);
    return b_.CreateSelect(high, b_.CreateXor(t, b_.getInt(llvm::APInt::getSignedMinValue(64))), t);
  }
  if (itemsize(to) < 4) return b_.CreateTrunc(truncate_to(x, b_.getInt32Ty()), ty);
  if (to == DType::uint32) return b_.CreateTrunc(truncate_to(x, i64_), ty);
  return truncate_to(x, ty);
}

// A float32 of float16's or bfloat16's bits (exact).
Value *ScalarCode::widen_storage(Value *bits, DType t) {
  if (t == DType::float16)
    return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getHalfTy()), b_.getFloatTy());
  return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16), b_.getFloatTy());
}

// bfloat16's bits of a float32 rounded to nearest even, NaNs quieted (jx::bfloat16_bits): by
// hand, since LLVM lowers fptrunc to bfloat to a libcall where the CPU has no AVX512-BF16.
Value *ScalarCode::bfloat16_of(Value *f) {
  Value *bits = b_.CreateBitCast(f, b_.getInt32Ty());
  Value *high = b_.CreateLShr(bits, 16);
  Value *odd = b_.CreateAnd(high, b_.getInt32(1));
  Value *rounded = b_.CreateLShr(b_.CreateAdd(b_.CreateAdd(bits, b_.getInt32(0x7fff)), odd), 16);
  Value *quiet_nan = b_.CreateOr(high, b_.getInt32(0x40));
  return b_.CreateTrunc(b_.CreateSelect(b_.CreateFCmpUNO(f, f), quiet_nan, rounded),
                        b_.getInt16Ty());
}

// Float -> signed int: NaN and out-of-range values give the minimum (x86 and NumPy), never
// poison.
Value *ScalarCode::truncate_to(Value *x, llvm::Type *ty) {
  const double limit = std::ldexp(1.0, int(ty->getIntegerBitWidth()) - 1);
  Value *lo = llvm::ConstantFP::get(x->getType(), -limit),
        *hi = llvm::ConstantFP::get(x->getType(), limit);
  Value *fits = b_.CreateAnd(b_.CreateFCmpOGE(x, lo), b_.CreateFCmpOLT(x, hi));
  Value *safe = b_.CreateSelect(fits, x, llvm::ConstantFP::get(x->getType(), 0.0));
  Value *minimum =
      llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(ty->getIntegerBitWidth()));
  return b_.CreateSelect(fits, b_.CreateFPToSI(safe, ty), minimum);
}

} // namespace jx::codegen
