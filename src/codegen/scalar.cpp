// Scalar semantics of the graph's ops in LLVM IR (scalar.h).
#include "codegen/scalar.h"

#include <jx/error.h>

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>

#include "interp/scalar_ops.h"
#include "ir/builder.h"
#include "ir/op_cases.h"
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

// One case per unary op, each deciding every dtype (no default: a new op fails the build here
// until it has one).
Value *ScalarCode::unary(Op op, DType t, Value *x) {
  const bool boolean = t == DType::bool_, real = is_floating(t), integer = !boolean && !real;
  const bool is_signed = integer && !is_unsigned(t);
  llvm::Type *ty = x->getType();
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Unary)
#include "ir/ops.def"
#undef JX_OP
  case Op::Convert: // Emitter::compute's own
  case Op::Real:
  case Op::Imag: break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)
#define JX_UNARY_MATH(name, str, fn, ulps, derivative)                                             \
  case Op::name:                                                                                   \
    if (real) return math(#fn, t, {x});                                                            \
    break;
#define JX_BINARY_MATH(name, str, fn, ulps, derivative)
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
  case Op::StopGradient: return x;
  case Op::Neg:
    if (real) return b_.CreateFNeg(x);
    if (integer) return b_.CreateNeg(x);
    break;
  case Op::Abs:
    if (real) return intrinsic(llvm::Intrinsic::fabs, x);
    if (is_signed) return b_.CreateSelect(b_.CreateICmpSLT(x, zero_of(x)), b_.CreateNeg(x), x);
    return x;
  case Op::Sign:
    if (real) {
      Value *zero = llvm::ConstantFP::get(ty, 0.0);
      Value *s = b_.CreateSelect(b_.CreateFCmpOEQ(x, zero), zero, x); // NaN stays NaN
      s = b_.CreateSelect(b_.CreateFCmpOLT(x, zero), llvm::ConstantFP::get(ty, -1.0), s);
      return b_.CreateSelect(b_.CreateFCmpOGT(x, zero), llvm::ConstantFP::get(ty, 1.0), s);
    }
    if (is_signed)
      return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(x, zero_of(x)), ty),
                          b_.CreateZExt(b_.CreateICmpSLT(x, zero_of(x)), ty));
    return b_.CreateZExt(b_.CreateICmpNE(x, zero_of(x)), ty);
  case Op::Sqrt:
    if (real) return intrinsic(llvm::Intrinsic::sqrt, x);
    break;
  case Op::Floor: return real ? intrinsic(llvm::Intrinsic::floor, x) : x;
  case Op::Ceil: return real ? intrinsic(llvm::Intrinsic::ceil, x) : x;
  case Op::Round: return real ? intrinsic(llvm::Intrinsic::roundeven, x) : x;
  case Op::ErfInv:
    if (real) return call(t == DType::float32 ? "jx_erf_inv_f32" : "jx_erf_inv_f64", ty, {x});
    break;
  case Op::IsNan: return real ? b_.CreateFCmpUNO(x, x) : b_.getFalse();
  case Op::IsFinite:
    return real ? b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, x),
                                   llvm::ConstantFP::getInfinity(ty))
                : b_.getTrue();
  case Op::SignBit:
    if (real) {
      Value *bits = b_.CreateBitCast(x, b_.getIntNTy(ty->getPrimitiveSizeInBits()));
      return b_.CreateICmpSLT(bits, zero_of(bits));
    }
    return is_signed ? b_.CreateICmpSLT(x, zero_of(x)) : b_.getFalse();
  case Op::Not:
    if (!real) return b_.CreateNot(x);
    break;
  case Op::PopulationCount:
    if (integer) return intrinsic(llvm::Intrinsic::ctpop, x);
    break;
  case Op::Clz:
    if (integer) return b_.CreateIntrinsic(llvm::Intrinsic::ctlz, {ty}, {x, b_.getFalse()});
    break;
  case Op::Square:
    if (real) return b_.CreateFMul(x, x);
    if (integer) return b_.CreateMul(x, x);
    break;
  case Op::Rsqrt:
    if (real)
      return b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), intrinsic(llvm::Intrinsic::sqrt, x));
    break;
  case Op::Logistic:
    if (real) {
      Value *one = llvm::ConstantFP::get(ty, 1.0);
      return b_.CreateFDiv(one, b_.CreateFAdd(one, math("exp", t, {b_.CreateFNeg(x)})));
    }
    break;
  }
  throw Error(fmt::format("internal: {} is not defined on {}", op_name(op), dtype_name(t)));
}

Value *ScalarCode::zero_of(Value *x) { return llvm::Constant::getNullValue(x->getType()); }

// Comparisons: the binary ops with a bool result. bools compare as unsigned: False < True.
Value *ScalarCode::compare(Op op, DType t, Value *a, Value *c) {
  const bool real = is_floating(t), u = t == DType::bool_ || is_unsigned(t);
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind##rule, BinaryBool)
#include "ir/ops.def"
#undef JX_OP
    break;
  case Op::Eq: return real ? b_.CreateFCmpOEQ(a, c) : b_.CreateICmpEQ(a, c);
  case Op::Ne: return real ? b_.CreateFCmpUNE(a, c) : b_.CreateICmpNE(a, c);
  case Op::Lt:
    return real ? b_.CreateFCmpOLT(a, c) : u ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c);
  case Op::Le:
    return real ? b_.CreateFCmpOLE(a, c) : u ? b_.CreateICmpULE(a, c) : b_.CreateICmpSLE(a, c);
  case Op::Gt:
    return real ? b_.CreateFCmpOGT(a, c) : u ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c);
  case Op::Ge:
    return real ? b_.CreateFCmpOGE(a, c) : u ? b_.CreateICmpUGE(a, c) : b_.CreateICmpSGE(a, c);
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

// One case per binary op, each deciding every dtype (no default: a new op fails the build here
// until it has one).
Value *ScalarCode::binary(Op op, DType t, Value *a, Value *c) {
  const bool boolean = t == DType::bool_, real = is_floating(t), integer = !boolean && !real;
  const bool u = integer && is_unsigned(t);
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Binary)
#include "ir/ops.def"
#undef JX_OP
  case Op::Eq: // compare()
  case Op::Ne:
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Complex: break; // Emitter::compute's own
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)
#define JX_UNARY_MATH(name, str, fn, ulps, derivative)
#define JX_BINARY_MATH(name, str, fn, ulps, derivative)                                            \
  case Op::name:                                                                                   \
    if (op == Op::Hypot && (t == DType::float64 || t == DType::float32)) return hypot(a, c);       \
    if (real) return math(#fn, t, {a, c});                                                         \
    if (integer && op == Op::Pow) return integer_pow(t, a, c); /* the one on integers */           \
    break;
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
  case Op::Add:
    if (boolean) return b_.CreateOr(a, c);
    return real ? b_.CreateFAdd(a, c) : b_.CreateAdd(a, c);
  case Op::Sub:
    if (real) return b_.CreateFSub(a, c);
    if (integer) return b_.CreateSub(a, c);
    break;
  case Op::Mul:
    if (boolean) return b_.CreateAnd(a, c);
    return real ? b_.CreateFMul(a, c) : b_.CreateMul(a, c);
  case Op::Div:
    if (real) return b_.CreateFDiv(a, c);
    break;
  case Op::Max:
    if (boolean) return b_.CreateOr(a, c);
    if (real)
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOGE(a, c), b_.CreateFCmpUNO(a, a)), a, c);
    return b_.CreateSelect(u ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c), a, c);
  case Op::Min:
    if (boolean) return b_.CreateAnd(a, c);
    if (real)
      return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOLE(a, c), b_.CreateFCmpUNO(a, a)), a, c);
    return b_.CreateSelect(u ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c), a, c);
  case Op::And:
    if (!real) return b_.CreateAnd(a, c);
    break;
  case Op::Or:
    if (!real) return b_.CreateOr(a, c);
    break;
  case Op::Xor:
    if (!real) return b_.CreateXor(a, c);
    break;
  case Op::CopySign:
    if (real) return intrinsic(llvm::Intrinsic::copysign, a, c);
    break;
  case Op::LogAddExp2:
    if (real) {
      Value *delta = b_.CreateFSub(a, c);
      Value *tail = b_.CreateFMul(
          llvm::ConstantFP::get(a->getType(), 1 / std::numbers::ln2),
          math("log1p", t,
               {math("exp2", t, {b_.CreateFNeg(intrinsic(llvm::Intrinsic::fabs, delta))})}));
      Value *larger = b_.CreateSelect(b_.CreateFCmpOGT(a, c), a, c);
      return b_.CreateSelect(b_.CreateFCmpUNO(delta, delta), b_.CreateFAdd(a, c),
                             b_.CreateFAdd(larger, tail));
    }
    break;
  case Op::ShiftLeft:
  case Op::ShiftRight:
    if (integer) return shift(op == Op::ShiftLeft, u, a, c);
    break;
  case Op::Fmod:
    if (real) return b_.CreateFRem(a, c); // libm's fmod
    if (integer) return integer_divmod(op, u, a, c);
    break;
  case Op::Rem:
  case Op::FloorDiv:
    if (real) return float_divmod(op, a, c);
    if (integer) return integer_divmod(op, u, a, c);
    break;
  }
  throw Error(fmt::format("internal: {} is not defined on {}", op_name(op), dtype_name(t)));
}

// NumPy's shifts: by a count outside [0, bits) the result is 0, or -1 shifting a negative number
// right.
Value *ScalarCode::shift(bool left, bool is_unsigned, Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  Value *zero = zero_of(a), *bits = llvm::ConstantInt::get(ty, ty->getIntegerBitWidth());
  Value *out_of_range = is_unsigned
                            ? b_.CreateICmpUGE(c, bits)
                            : b_.CreateOr(b_.CreateICmpSLT(c, zero), b_.CreateICmpSGE(c, bits));
  Value *safe = b_.CreateSelect(out_of_range, zero, c);
  if (left) return b_.CreateSelect(out_of_range, zero, b_.CreateShl(a, safe));
  if (is_unsigned) return b_.CreateSelect(out_of_range, zero, b_.CreateLShr(a, safe));
  Value *fill =
      b_.CreateSelect(b_.CreateICmpSLT(a, zero), llvm::ConstantInt::get(ty, -1, true), zero);
  return b_.CreateSelect(out_of_range, fill, b_.CreateAShr(a, safe));
}

// fmod, remainder and floor_divide on integers; divisions by 0 (and by -1, where MIN / -1
// overflows) never reach the hardware, which traps on them.
Value *ScalarCode::integer_divmod(Op op, bool is_unsigned, Value *a, Value *c) {
  llvm::Type *ty = a->getType();
  Value *zero = zero_of(a), *one = llvm::ConstantInt::get(ty, 1);
  Value *by_zero = b_.CreateICmpEQ(c, zero);
  if (is_unsigned) {
    Value *safe = b_.CreateSelect(by_zero, one, c);
    Value *r = op == Op::FloorDiv ? b_.CreateUDiv(a, safe) : b_.CreateURem(a, safe);
    return b_.CreateSelect(by_zero, zero, r);
  }
  Value *by_minus_one = b_.CreateICmpEQ(c, llvm::ConstantInt::get(ty, -1, true));
  Value *trivial = b_.CreateOr(by_zero, by_minus_one);
  Value *safe = b_.CreateSelect(trivial, one, c);
  Value *r = b_.CreateSRem(a, safe);
  if (op == Op::Fmod) return b_.CreateSelect(trivial, zero, r); // by 0 or -1: 0 (jnp.fmod)
  Value *r_nonzero = b_.CreateICmpNE(r, zero);
  if (op == Op::FloorDiv) {
    Value *q = b_.CreateSDiv(a, safe);
    Value *signs_differ = b_.CreateICmpNE(b_.CreateICmpSLT(a, zero), b_.CreateICmpSLT(c, zero));
    Value *floor_q = b_.CreateSub(q, b_.CreateZExt(b_.CreateAnd(r_nonzero, signs_differ), ty));
    return b_.CreateSelect(by_zero, zero, b_.CreateSelect(by_minus_one, b_.CreateNeg(a), floor_q));
  }
  Value *signs_differ = b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(c, zero));
  Value *mod = b_.CreateSelect(b_.CreateAnd(r_nonzero, signs_differ), b_.CreateAdd(r, c), r);
  return b_.CreateSelect(trivial, zero, mod);
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
