// ir/complex_forms.h's forms: each complex op written on the parts.
#include "ir/complex_forms.h"
#include "ir/builder.h"

#include <jx/error.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace jx::ir {
namespace {

// spec's op on other inputs (its attributes kept), computing in dtype.
NodePtr with_inputs(const NodeSpec &spec, std::vector<NodePtr> inputs, DType dtype) {
  NodeSpec s = spec;
  s.inputs = std::move(inputs);
  s.dtype = dtype;
  s.weak = false;
  return finish(std::move(s));
}

// The dtype of s's first complex operand.
DType complex_operand_dtype(const NodeSpec &s) {
  return (*std::find_if(s.inputs.begin(), s.inputs.end(),
                        [](const NodePtr &x) { return is_complex(x->dtype); }))
      ->dtype;
}

// x's operand under any broadcasts (a splatted literal's literal).
NodePtr through_broadcasts(NodePtr x) {
  while (x->op == Op::Broadcast && !x->realized())
    x = x->inputs[0];
  return x;
}

// The value of a literal seen through broadcasts, if x is one.
std::optional<double> literal_value(const NodePtr &node) {
  const NodePtr x = through_broadcasts(node);
  if (x->op != Op::Literal) return std::nullopt;
  return is_inexact(x->dtype) ? x->fvalue : double(x->ivalue);
}

// An integral exponent of a complex power below 100 in magnitude (npy_cpow multiplies for those).
std::optional<int64_t> small_integer_exponent(const NodePtr &y) {
  const NodePtr x = through_broadcasts(y);
  if (x->op != Op::Complex || x->realized()) return std::nullopt;
  const std::optional<double> re = literal_value(x->inputs[0]), im = literal_value(x->inputs[1]);
  if (!re || !im || *im != 0 || std::trunc(*re) != *re || std::abs(*re) >= 100) return std::nullopt;
  return int64_t(*re);
}

} // namespace

void refuse_dtype(Op op, DType dtype, std::string_view accepted) {
  throw TypeError(fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of {}.",
                              op_name(op), dtype_name(dtype), accepted));
}

// Each op as XLA's elemental emitter writes it on the parts (division as NumPy's: Smith's
// algorithm, so that results agree to the bit).
NodePtr complex_form(const NodeSpec &s) {
  const DType part = real_dtype(complex_operand_dtype(s));
  auto re = [&](size_t i) { return real(s.inputs[i]); };
  auto im = [&](size_t i) { return imag(s.inputs[i]); };
  auto lit = [&](double v, const NodePtr &like) {
    return broadcast(literal(v, like->dtype, true), like->shape, {});
  };
  auto bin = [](Op op, const NodePtr &a, const NodePtr &b) { return binary(op, a, b); };
  // The same op on the real parts and on the imaginary parts (linear ops: sums, scatters).
  auto componentwise = [&] {
    std::vector<NodePtr> res, ims;
    for (const NodePtr &x : s.inputs) {
      res.push_back(is_complex(x->dtype) ? real(x) : x);
      ims.push_back(is_complex(x->dtype) ? imag(x) : x);
    }
    return complex(with_inputs(s, std::move(res), part), with_inputs(s, std::move(ims), part));
  };
  switch (s.op) {
  case Op::Neg:
  case Op::Add:
  case Op::Sub:
  case Op::ReduceSum:
  case Op::CumSum:
  case Op::ScatterSet:
  case Op::ScatterAdd: return componentwise();
  case Op::Mul: {
    const NodePtr a = re(0), b = im(0), c = re(1), d = im(1);
    return complex(bin(Op::Sub, bin(Op::Mul, a, c), bin(Op::Mul, b, d)),
                   bin(Op::Add, bin(Op::Mul, a, d), bin(Op::Mul, b, c)));
  }
  case Op::Div: { // npy_math's complex division
    const NodePtr a = re(0), b = im(0), c = re(1), d = im(1);
    const NodePtr abs_c = unary(Op::Abs, c), abs_d = unary(Op::Abs, d), one = lit(1, c);
    const NodePtr by_c = bin(Op::Div, d, c),
                  scale_c = bin(Op::Div, one, bin(Op::Add, c, bin(Op::Mul, d, by_c)));
    const NodePtr by_d = bin(Op::Div, c, d),
                  scale_d = bin(Op::Div, one, bin(Op::Add, d, bin(Op::Mul, c, by_d)));
    const NodePtr c_wins = bin(Op::Ge, abs_c, abs_d);
    const NodePtr zero = bin(Op::And, bin(Op::Eq, abs_c, lit(0, c)), bin(Op::Eq, abs_d, lit(0, d)));
    const NodePtr re_c = bin(Op::Mul, bin(Op::Add, a, bin(Op::Mul, b, by_c)), scale_c);
    const NodePtr im_c = bin(Op::Mul, bin(Op::Sub, b, bin(Op::Mul, a, by_c)), scale_c);
    const NodePtr re_d = bin(Op::Mul, bin(Op::Add, bin(Op::Mul, a, by_d), b), scale_d);
    const NodePtr im_d = bin(Op::Mul, bin(Op::Sub, bin(Op::Mul, b, by_d), a), scale_d);
    return complex(select(zero, bin(Op::Div, a, abs_c), select(c_wins, re_c, re_d)),
                   select(zero, bin(Op::Div, b, abs_c), select(c_wins, im_c, im_d)));
  }
  case Op::Eq: return bin(Op::And, bin(Op::Eq, re(0), re(1)), bin(Op::Eq, im(0), im(1)));
  case Op::Ne: return bin(Op::Or, bin(Op::Ne, re(0), re(1)), bin(Op::Ne, im(0), im(1)));
  case Op::IsNan: return bin(Op::Or, unary(Op::IsNan, re(0)), unary(Op::IsNan, im(0)));
  case Op::IsFinite: return bin(Op::And, unary(Op::IsFinite, re(0)), unary(Op::IsFinite, im(0)));
  case Op::Abs: return bin(Op::Hypot, re(0), im(0));
  case Op::Sign: { // z / |z|, 0 at 0 (jnp.sign)
    const NodePtr a = bin(Op::Hypot, re(0), im(0)), zero = lit(0, a);
    const NodePtr at_zero = bin(Op::Eq, a, zero);
    return complex(select(at_zero, zero, bin(Op::Div, re(0), a)),
                   select(at_zero, zero, bin(Op::Div, im(0), a)));
  }
  case Op::Exp: { // e^a (cos b + i sin b); a real argument stays real (cexp)
    const NodePtr a = re(0), b = im(0), e = unary(Op::Exp, a);
    const NodePtr real_arg = bin(Op::Eq, b, lit(0, b));
    return complex(select(real_arg, e, bin(Op::Mul, e, unary(Op::Cos, b))),
                   select(real_arg, b, bin(Op::Mul, e, unary(Op::Sin, b))));
  }
  case Op::Log:
    return complex(unary(Op::Log, bin(Op::Hypot, re(0), im(0))), bin(Op::Atan2, im(0), re(0)));
  case Op::Sin: // sin a cosh b + i cos a sinh b
    return complex(bin(Op::Mul, unary(Op::Sin, re(0)), unary(Op::Cosh, im(0))),
                   bin(Op::Mul, unary(Op::Cos, re(0)), unary(Op::Sinh, im(0))));
  case Op::Cos: // cos a cosh b - i sin a sinh b
    return complex(bin(Op::Mul, unary(Op::Cos, re(0)), unary(Op::Cosh, im(0))),
                   unary(Op::Neg, bin(Op::Mul, unary(Op::Sin, re(0)), unary(Op::Sinh, im(0)))));
  case Op::Pow: {
    auto mul = [&](const NodePtr &a, const NodePtr &b) { return binary(Op::Mul, a, b); };
    const NodePtr x = s.inputs[0], y = s.inputs[1], one = lit(1, x);
    if (const std::optional<int64_t> n = small_integer_exponent(y)) {
      // npy_cpow: x, x·x, x·x·x, else binary exponentiation, inverted for n < 0.
      if (*n == 0) return one;
      if (*n == 1) return x;
      if (*n == 2) return mul(x, x);
      if (*n == 3) return mul(x, mul(x, x));
      NodePtr power = one, square = x;
      for (int64_t k = std::abs(*n); k > 0; k >>= 1) {
        if (k & 1) power = power == one ? square : mul(power, square);
        if (k > 1) square = mul(square, square);
      }
      return *n < 0 ? binary(Op::Div, one, power) : power;
    }
    // exp(y log x); x = 0 gives 0 for a positive real y, y = 0 gives 1 (npy_cpow).
    const NodePtr zero = lit(0, re(0));
    const NodePtr x_zero = bin(Op::And, bin(Op::Eq, re(0), zero), bin(Op::Eq, im(0), zero));
    const NodePtr y_zero = bin(Op::And, bin(Op::Eq, re(1), zero), bin(Op::Eq, im(1), zero));
    const NodePtr y_positive = bin(Op::And, bin(Op::Gt, re(1), zero), bin(Op::Eq, im(1), zero));
    const NodePtr nan = lit(std::numeric_limits<double>::quiet_NaN(), x);
    return select(y_zero, one,
                  select(x_zero, select(y_positive, lit(0, x), nan),
                         unary(Op::Exp, mul(y, unary(Op::Log, x)))));
  }
  case Op::Sqrt: { // csqrt: t = sqrt((|a| + |z|) / 2), the root in the right half-plane
    const NodePtr a = re(0), b = im(0), zero = lit(0, a);
    const NodePtr t = unary(
        Op::Sqrt, bin(Op::Mul, bin(Op::Add, unary(Op::Abs, a), bin(Op::Hypot, a, b)), lit(0.5, a)));
    const NodePtr other = bin(Op::Div, unary(Op::Abs, b), bin(Op::Mul, t, lit(2, a)));
    const NodePtr right = bin(Op::Ge, a, zero),
                  at_zero = bin(Op::And, bin(Op::Eq, a, zero), bin(Op::Eq, b, zero));
    return complex(
        select(at_zero, zero, select(right, t, other)),
        select(at_zero, b, select(right, bin(Op::CopySign, other, b), bin(Op::CopySign, t, b))));
  }
  case Op::DotGeneral: {
    auto dot = [&](const NodePtr &l, const NodePtr &r) { return with_inputs(s, {l, r}, part); };
    const NodePtr a = re(0), b = im(0), c = re(1), d = im(1);
    return complex(bin(Op::Sub, dot(a, c), dot(b, d)), bin(Op::Add, dot(a, d), dot(b, c)));
  }
  default: refuse_dtype(s.op, complex_operand_dtype(s), "floating, integer or bool");
  }
}

} // namespace jx::ir
