// The vocabulary of ir/ops.def's derivatives: short names over ir/builder.h, so that each rule
// reads as the formula it is (and as JAX's rule it copies).
#pragma once

#include <limits>

#include <cmath>

#include "ir/builder.h"

namespace jx::transforms::dsl {

using ir::NodePtr;
using ir::Op;

// Literal v in like's dtype and shape; weak, so it never changes the result's type.
inline NodePtr lit(double v, const NodePtr &like) {
  return ir::broadcast(ir::literal(v, like->dtype, true), like->shape, {});
}

#define JX_DSL_UNARY(fn, op)                                                                       \
  inline NodePtr fn(const NodePtr &x) { return ir::unary(Op::op, x); }
JX_DSL_UNARY(neg, Neg)
JX_DSL_UNARY(abs, Abs)
JX_DSL_UNARY(sign, Sign)
JX_DSL_UNARY(floor, Floor)
JX_DSL_UNARY(exp, Exp)
JX_DSL_UNARY(exp2, Exp2)
JX_DSL_UNARY(log, Log)
JX_DSL_UNARY(sqrt, Sqrt)
JX_DSL_UNARY(sin, Sin)
JX_DSL_UNARY(cos, Cos)
JX_DSL_UNARY(sinh, Sinh)
JX_DSL_UNARY(cosh, Cosh)
JX_DSL_UNARY(signbit, SignBit)
#undef JX_DSL_UNARY

#define JX_DSL_BINARY(fn, op)                                                                      \
  inline NodePtr fn(const NodePtr &a, const NodePtr &b) { return ir::binary(Op::op, a, b); }
JX_DSL_BINARY(add, Add)
JX_DSL_BINARY(sub, Sub)
JX_DSL_BINARY(mul, Mul)
JX_DSL_BINARY(div, Div)
JX_DSL_BINARY(pow, Pow)
JX_DSL_BINARY(fmod, Fmod)
JX_DSL_BINARY(max, Max)
JX_DSL_BINARY(min, Min)
JX_DSL_BINARY(and_, And)
JX_DSL_BINARY(or_, Or)
JX_DSL_BINARY(eq, Eq)
JX_DSL_BINARY(ne, Ne)
JX_DSL_BINARY(lt, Lt)
JX_DSL_BINARY(ge, Ge)
#undef JX_DSL_BINARY

using ir::complex;
using ir::convert;
using ir::imag;
using ir::real;
using ir::select;

// JAX's _balanced_eq(x, z, y): 1 where x == z, halved where y == z too (ties share the tangent).
inline NodePtr balanced_eq(const NodePtr &x, const NodePtr &z, const NodePtr &y) {
  return div(select(eq(x, z), lit(1, z), lit(0, z)), select(eq(y, z), lit(2, z), lit(1, z)));
}

// JAX's _replace_inf: 0 where x is +inf (logaddexp's derivatives at infinite arguments).
inline NodePtr replace_inf(const NodePtr &x) {
  return select(eq(x, lit(std::numeric_limits<double>::infinity(), x)), lit(0, x), x);
}

// Whether pow's exponent was an integer in jnp.power: a literal of integral value (jnp's
// integer_pow path for a Python int; a float literal is indistinguishable, docs/design/
// transforms.md §8) or an int array converted by the promotion (lax.pow with an int exponent).
inline bool integer_exponent(NodePtr y) {
  while (y->op == Op::Broadcast)
    y = y->inputs[0];
  if (y->op == Op::Literal) return std::trunc(y->fvalue) == y->fvalue;
  return y->op == Op::Convert && is_integer(y->inputs[0]->dtype);
}

// lax.pow's d/dx: y·x^(y-1); an integer exponent has 0 where y = 0 (_pow_jvp_lhs), a float one
// 0·x^-1, nan at x = 0.
inline NodePtr pow_dx(const NodePtr &x, const NodePtr &y) {
  const NodePtr one = lit(1, y), zero = lit(0, y);
  if (!integer_exponent(y)) return mul(y, pow(x, sub(y, one)));
  return select(eq(y, zero), zero, mul(select(eq(y, zero), one, y), pow(x, sub(y, one))));
}

} // namespace jx::transforms::dsl
