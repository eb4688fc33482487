// simplify: algebraic identities that are exact in IEEE arithmetic, and cheaper forms of power.
//
// Exact rewrites (bit for bit, -0.0, infinities and NaN included):
//   x * 1, 1 * x -> x; x / 1 -> x; x - 0.0 -> x (-0.0 - 0.0 is -0.0); x + (-0.0), (-0.0) + x -> x.
//   Not x + 0.0 (-0.0 + 0.0 is +0.0) nor x - (-0.0) (that is x + 0.0). Integers and bools: x + 0,
//   0 + x, x - 0 -> x. select(constant, a, b) -> a or b. pow(x, ±0) -> 1 (NumPy: 0**0 and
//   nan**0 are 1); pow(x, 1) -> x; integer pow(x, k), 2 <= k <= 16 -> multiplications (wrapping
//   products are exact, as int_pow's). stop_gradient(x) -> x, and markers (custom_jvp,
//   custom_vjp) -> their input 0: they matter to transformations only, which run before the
//   passes; a custom_lin left untransposed is JAX's forward-mode TypeError. A dot_general that
//   contracts nothing -> mul of broadcasts (one product per element either way).
//   x == max(x, y) -> x >= y and x == min(x, y) -> x <= y, either operand order (max and min
//   return a NaN operand, so both sides are false when either is NaN): the tie tests of max's
//   and min's derivatives then read the operands, not the result, which can die earlier.
// Rounding-level rewrites (floats):
//   pow(x, k), 2 <= k <= 16 an integer -> multiplications by repeated squaring, in JAX's
//     lax.integer_pow order: relative error at most (k - 1) * 2^-p (p = 53, or 24 for float32)
//     against the exact power (more only for subnormal results); pow's special values exactly.
//   pow(x, -1) -> 1 / x, and pow(x, 0.5) -> sqrt(x) with pow's results at -0.0 (+0.0, where sqrt
//     gives -0.0: abs) and -inf (+inf, where sqrt gives NaN: a select). Both are correctly
//     rounded, so within 1 ulp of libm's pow.
//   pow(x, e) with a base broadcast from fewer elements and an exponent that varies along that
//     broadcast (not a scalar nor broadcast the same way: sink_movement moves those pows whole),
//     as the Simpson seed's x[:, None, :] ** c[None, :, None] -> exp(e * log|x|) with pow's
//     special cases (signs of negative bases, NaN for negative bases to non-integer powers,
//     zeros, infinities, pow(x, 0) = pow(1, e) = pow(-1, +-inf) = 1) rebuilt from selects of
//     cheap ops, so that log runs once per distinct base element once sink_movement moves it
//     below the broadcast, and no pow call keeps the kernel from vectorizing; the selects sit
//     behind a 0-d flag of the bases and exponents that need them, on which the emitter
//     versions the kernel. The relative error is about (2 |e log x| + 1) * 2^-53 (log's and
//     the product's roundings, amplified by exp): under 1e-13 for x in [0.05, 10.05] and
//     e < 20. float32 computes it in float64, within 1 ulp of float32 pow.
// Left alone: non-integer literal exponents other than 0.5 (nothing to share, and exp(c log x)
// would only lose accuracy), negative integer exponents other than -1, realized nodes,
// any rewrite that would change a node's weak flag, and literals that stack_to_broadcast is about
// to turn into a vector (rewriting them by value would make the stacked operands differ).
#include <jx/dtype.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/kernel_plan.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using NodeSet = std::unordered_set<const Node *>;

constexpr int64_t max_chain_exponent = 16; // at most 7 multiplications

// The literal a node holds at every element (a literal, possibly broadcast, reshaped or
// transposed). A literal that stack_to_broadcast is about to replace by a vector of differing
// values counts as none: rewriting it by value would make the stacked operands differ.
const Node *scalar_of(const NodePtr &n, const NodeSet &varying) {
  return varying.count(n.get()) ? nullptr : ir::splat_literal(*n);
}

bool equals(const Node *lit, double v) {
  return lit && (is_floating(lit->dtype) ? lit->fvalue == v : double(lit->ivalue) == v);
}

bool is_negative_zero(const Node *lit) {
  return lit && is_floating(lit->dtype) && lit->fvalue == 0 && std::signbit(lit->fvalue);
}

NodePtr fill(double v, const Node &like, bool weak) {
  return ir::broadcast(ir::literal(v, like.dtype, weak), like.shape, {});
}

// x**k by repeated squaring, in lax.integer_pow's order; k >= 1.
NodePtr multiply_chain(NodePtr x, int64_t k) {
  NodePtr acc;
  while (k > 0) {
    if (k & 1) acc = acc ? ir::binary(Op::Mul, acc, x) : x;
    k >>= 1;
    if (k > 0) x = ir::binary(Op::Mul, x, x);
  }
  return acc;
}

class Rules {
public:
  explicit Rules(NodeSet varying) : varying_(std::move(varying)) {}

  NodePtr operator()(const NodePtr &n) const {
    if (n->realized()) return n;
    NodePtr r = apply(n);
    // Same type, or no rewrite: users were built for n's dtype and weak flag.
    return r->dtype == n->dtype && r->shape == n->shape && r->weak == n->weak ? r : n;
  }

private:
  const Node *scalar(const NodePtr &n) const { return scalar_of(n, varying_); }

  // A dot_general that contracts nothing (an outer or batched elementwise product, as the
  // transpose of a contraction often is) -> mul of its operands broadcast to the output, which
  // fuses with its consumers instead of materializing (XLA's simplifier does the same). Bool
  // products stay (they are an and).
  static NodePtr uncontracted_product(const NodePtr &n) {
    const ir::DotDims d = ir::dot_dims(*n);
    if (!d.lhs_contract.empty() || n->dtype == DType::bool_) return n;
    const auto nb = int64_t(d.lhs_batch.size());
    auto laid_out = [&](const NodePtr &x, const std::vector<int64_t> &batch, int64_t first_free) {
      std::vector<int64_t> perm = batch, dims;
      for (int64_t a : ir::other_axes(x->ndim(), batch))
        perm.push_back(a);
      for (int64_t k = 0; k < int64_t(perm.size()); ++k)
        dims.push_back(k < nb ? k : first_free + k - nb);
      return ir::broadcast(ir::transpose(x, perm), n->shape, dims);
    };
    const NodePtr &lhs = n->inputs[0], &rhs = n->inputs[1];
    const int64_t lhs_free = int64_t(lhs->shape.size()) - nb;
    return ir::binary(Op::Mul, laid_out(lhs, d.lhs_batch, nb),
                      laid_out(rhs, d.rhs_batch, nb + lhs_free));
  }

  NodePtr apply(const NodePtr &n) const {
    if (n->op == Op::CustomLin) ir::throw_custom_lin_has_no_value();
    if (n->op == Op::StopGradient || ir::op_kind(n->op) == ir::OpKind::Marker) return n->inputs[0];
    if (n->op == Op::DotGeneral) return uncontracted_product(n);
    if (n->op == Op::Result) return passed_on(n);
    if (ir::op_kind(n->op) != ir::OpKind::Binary && n->op != Op::Select) return n;
    const NodePtr &a = n->inputs[0], &b = n->inputs[1];
    const bool floating = is_floating(n->dtype);
    switch (n->op) {
    case Op::Mul:
      if (equals(scalar(b), 1)) return a;
      if (equals(scalar(a), 1)) return b;
      break;
    case Op::Add: {
      // Floats: only -0.0 is an additive identity.
      auto identity = [&](const Node *lit) {
        return floating ? is_negative_zero(lit) : equals(lit, 0);
      };
      if (identity(scalar(b))) return a;
      if (identity(scalar(a))) return b;
      break;
    }
    case Op::Sub: {
      const Node *lit = scalar(b);
      if (n->dtype != DType::bool_ && equals(lit, 0) && !is_negative_zero(lit)) return a;
      break;
    }
    case Op::Div:
      if (floating && equals(scalar(b), 1)) return a;
      break;
    case Op::Pow: return power(n);
    case Op::Select:
      if (const Node *p = scalar(a)) return p->ivalue ? n->inputs[1] : n->inputs[2];
      break;
    case Op::Eq:
      if (NodePtr r = tie_test(a, b)) return r;
      if (NodePtr r = tie_test(b, a)) return r;
      break;
    default: break;
    }
    return n;
  }

  // A loop's result for a carry its body passes on as it is: the carry's initial value (so a
  // loop changing one carry beside others it only reads leaves them out of its results).
  static NodePtr passed_on(const NodePtr &n) {
    const Node &loop = *n->inputs[0];
    const auto k = size_t(n->attrs[0]);
    if ((loop.op != Op::While && loop.op != Op::Scan) || k >= size_t(loop.attrs[0])) return n;
    const ir::Region &body = loop_body(loop);
    return body.outputs[k] == body.params[k] ? loop.inputs[k] : n;
  }

  // x == max(x, y) as x >= y, x == min(x, y) as x <= y; none otherwise.
  static NodePtr tie_test(const NodePtr &x, const NodePtr &extreme) {
    if (extreme->op != Op::Max && extreme->op != Op::Min) return nullptr;
    const Op order = extreme->op == Op::Max ? Op::Ge : Op::Le;
    const NodePtr &p = extreme->inputs[0], &q = extreme->inputs[1];
    if (p == x) return ir::binary(order, x, q);
    if (q == x) return ir::binary(order, x, p);
    return nullptr;
  }

  NodePtr power(const NodePtr &n) const {
    const NodePtr &x = n->inputs[0];
    const Node *c = scalar(n->inputs[1]);
    if (!c || n->dtype == DType::bool_) return n;
    if (!is_floating(n->dtype)) {
      if (c->ivalue == 0) return fill(1, *n, n->weak);
      return c->ivalue > 0 && c->ivalue <= max_chain_exponent ? multiply_chain(x, c->ivalue) : n;
    }
    const double v = c->fvalue;
    if (v == 0) return fill(1, *n, n->weak);
    if (v == -1) return ir::binary(Op::Div, fill(1, *x, x->weak), x);
    // Half-integer powers as a square root and at most two roundings more (within 1.5 ulp, as
    // libmvec's pow is within 4; a gravity kernel's r^-1.5 no longer calls pow). sqrt(-inf) is
    // NaN where pow(-inf, e) is +inf or +0; sqrt(-0.0) is -0.0 where pow(-0.0, 0.5) is +0.0.
    if (v == 0.5 || v == -0.5 || v == 1.5 || v == -1.5) {
      const double inf = std::numeric_limits<double>::infinity();
      auto lit = [&](double c) { return fill(c, *x, x->weak); };
      NodePtr root = ir::unary(Op::Sqrt, x), r;
      if (v == 0.5) r = ir::unary(Op::Abs, root);
      if (v == -0.5) r = ir::binary(Op::Div, lit(1), ir::unary(Op::Abs, root));
      if (v == 1.5) r = ir::binary(Op::Mul, x, root);
      // 1/x first: x * sqrt(x) would lose bits to underflow for x near 1e-206.
      if (v == -1.5) r = ir::binary(Op::Div, ir::binary(Op::Div, lit(1), x), root);
      return ir::select(ir::binary(Op::Eq, x, lit(-inf)), lit(v > 0 ? inf : 0.0), r);
    }
    if (v >= 1 && v <= max_chain_exponent && v == std::floor(v))
      return multiply_chain(x, int64_t(v));
    return n;
  }

  NodeSet varying_;
};

// Whether sink_movement moves the whole pow(x, e) below x's broadcast, where it runs once per
// base element as it is: the exponent is a scalar, or broadcast the same way as x.
bool sinks_whole(const NodePtr &x, const NodePtr &e) {
  if (scalar_of(e, {})) return true;
  if (e->op != Op::Broadcast || e->realized()) return false;
  return e->inputs[0]->shape.empty() ||
         (e->attrs == x->attrs && e->inputs[0]->shape == x->inputs[0]->shape);
}

// pow(x, e) as exp(e * log|x|) with C99/NumPy pow's special cases rebuilt from cheap selects (no
// pow call left, so the kernel vectorizes): where x is a broadcast from fewer elements that the
// exponent varies along.
NodePtr exp_log_power(const NodePtr &n) {
  if (n->op != Op::Pow || n->realized() || !is_floating(n->dtype)) return n;
  const NodePtr &x = n->inputs[0], &e = n->inputs[1];
  if (x->op != Op::Broadcast || x->realized() || x->inputs[0]->size() >= n->size() ||
      sinks_whole(x, e))
    return n;
  auto lit = [&](double v) { return fill(v, *n, n->weak); };
  auto both = [](const NodePtr &a, const NodePtr &b) { return ir::binary(Op::And, a, b); };
  auto either = [](const NodePtr &a, const NodePtr &b) { return ir::binary(Op::Or, a, b); };
  auto eq = [&](const NodePtr &a, double v) { return ir::binary(Op::Eq, a, lit(v)); };
  auto wide = [](const NodePtr &v) { return ir::convert(v, DType::float64, v->weak); };
  // |x|^e, computed in float64 (float32 pow is then within 1 ulp).
  NodePtr magnitude = ir::unary(
      Op::Exp, ir::binary(Op::Mul, wide(e), ir::unary(Op::Log, wide(ir::unary(Op::Abs, x)))));
  const NodePtr plain = ir::convert(magnitude, n->dtype, n->weak);
  NodePtr r = plain;
  NodePtr e_finite = ir::unary(Op::IsFinite, e);
  NodePtr integral = both(ir::binary(Op::Eq, ir::unary(Op::Floor, e), e), e_finite);
  NodePtr odd = both(integral, ir::binary(Op::Ne, ir::binary(Op::Rem, e, lit(2)), lit(0)));
  // pow(-0.0, odd) is -0.0, as for any other negative base.
  r = ir::select(both(ir::unary(Op::SignBit, x), odd), ir::unary(Op::Neg, r), r);
  // A finite negative base to a finite non-integer power has no real value.
  NodePtr no_real = both(both(ir::binary(Op::Lt, x, lit(0)), ir::unary(Op::IsFinite, x)),
                         both(e_finite, ir::unary(Op::Not, integral)));
  r = ir::select(no_real, lit(std::numeric_limits<double>::quiet_NaN()), r);
  // pow(x, 0) = pow(1, e) = pow(-1, +-inf) = 1, even for NaN operands.
  NodePtr one = either(either(eq(e, 0), eq(x, 1)), both(eq(x, -1), ir::unary(Op::Not, e_finite)));
  NodePtr minus_one_nan = both(eq(x, -1), ir::unary(Op::IsNan, e));
  r = ir::select(both(one, ir::unary(Op::Not, minus_one_nan)), lit(1), r);
  // With no base negative (by its sign bit), infinite or NaN and every exponent finite (the usual
  // case; the Simpson seed's first interval starts at x = 0) the selects above leave
  // exp(e log x) as it is, bit for bit, but for pow(0, 0) = 1: exp(0 * -inf) is NaN. A 0-d flag,
  // reduced from the bases and exponents before their broadcasts, says whether any element needs
  // the selects: the emitter versions the kernel on it, so the usual case runs with e == 0's
  // alone (a select on the exponent's broadcast, no mask per element).
  const NodePtr &base = x->inputs[0];
  const NodePtr exponent = e->op == Op::Broadcast && !e->realized() ? e->inputs[0] : e;
  if (base->size() == 0 || exponent->size() == 0) return r;
  // Over the flags laid flat: the same kernel whatever the operands' unit axes (the seed's stack
  // and broadcast variants compile to the same kernels).
  auto any = [](const NodePtr &flags) {
    return ir::reduce(Op::ReduceMax, ir::reshape(flags, {flags->size()}), {0});
  };
  NodePtr ordinary = both(
      ir::unary(Op::Not, ir::unary(Op::SignBit, base)),
      ir::binary(Op::Lt, base, fill(std::numeric_limits<double>::infinity(), *base, base->weak)));
  NodePtr special = either(any(ir::unary(Op::Not, ordinary)),
                           any(ir::unary(Op::Not, ir::unary(Op::IsFinite, exponent))));
  return ir::select(ir::broadcast(special, n->shape, {}), r, ir::select(eq(e, 0), lit(1), plain));
}

} // namespace

std::vector<ir::NodePtr> simplify(const std::vector<ir::NodePtr> &roots) {
  const NodeSet varying = stack_varying_literals(roots);
  std::vector<NodePtr> out = rewrite(roots, Rules(varying));
  return rewrite(out, exp_log_power);
}

} // namespace jx::passes
