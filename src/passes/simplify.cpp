// simplify: algebraic identities that are exact in IEEE arithmetic, and cheaper forms of power.
//
// Exact rewrites (bit for bit, -0.0, infinities and NaN included):
//   x * 1, 1 * x -> x; x + (-0.0), (-0.0) + x -> x (floats; x + 0.0 is NOT x: -0.0 + 0.0 is
//   +0.0); x + 0, 0 + x -> x (ints, bools); x - 0.0 -> x (-0.0 - 0.0 is -0.0; x - (-0.0) is
//   x + 0.0, not rewritten); x / 1 -> x; select(constant, a, b) -> a or b; select(p, a, a) -> a;
//   pow(x, ±0) -> 1 (NumPy: 0**0 and nan**0 are 1); pow(x, 1) -> x; integer pow(x, k) for
//   0 <= k <= 16 -> multiplications (integer products wrap exactly as int_pow's do).
// Rounding-level rewrites (floats):
//   pow(x, k), 2 <= k <= 16 an integer -> multiplications by repeated squaring, the order of JAX's
//     lax.integer_pow: relative error at most (k - 1) * 2^-p (p = 53 or 24) against the exact
//     power (more only where the result is subnormal); the same special values as pow.
//   pow(x, -1) -> 1 / x, and pow(x, 0.5) -> sqrt(x) with pow's results at -0.0 (+0.0, where sqrt
//     gives -0.0) and -inf (+inf, where sqrt gives NaN) restored by abs and a select: both are
//     correctly rounded, so they differ from libm's pow by at most 1 ulp.
//   pow(x, e) with a non-literal exponent and a base broadcast from fewer elements (the Simpson
//     seed's x[:, None, :] ** c[None, :, None]) -> where(x > 0 & isfinite(x) & isfinite(e),
//     exp(e * log(x)), pow(x, e)): log then runs once per distinct base element once
//     sink_movement moves it below the broadcast. The fast branch has a relative error of about
//     (2 |e log x| + 1) * 2^-53 (log's and the product's roundings, amplified by exp): under
//     1e-13 for x in [0.05, 10.05] and e < 20. float32 computes it in float64, so its result is
//     within 1 ulp of float32 pow. Every other case (x <= 0, inf or NaN, e inf or NaN) takes the
//     original pow.
// Left alone: non-integer literal exponents other than 0.5 (no work to share, and exp(c log x)
// would only lose accuracy), negative integer exponents other than -1, a pow that already is the
// fallback branch of a select (rewriting it again would nest the guard every round), realized
// nodes, and any rewrite that would change the node's weak flag.
#include <jx/dtype.h>

#include <cmath>
#include <limits>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {

// Defined in stack_to_broadcast.cpp: the literals it will turn into vectors.
std::unordered_set<const ir::Node *> stack_varying_literals(const std::vector<ir::NodePtr> &roots);

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
  if (varying.count(n.get())) return nullptr;
  const Node *x = n.get();
  while (x->op == Op::Broadcast || x->op == Op::Reshape || x->op == Op::Transpose)
    x = x->inputs[0].get();
  return x->op == Op::Literal ? x : nullptr;
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

  NodePtr apply(const NodePtr &n) const {
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
      if (n->inputs[1] == n->inputs[2]) return n->inputs[1];
      break;
    default: break;
    }
    return n;
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
    if (v == 0.5) {
      const double inf = std::numeric_limits<double>::infinity();
      NodePtr root = ir::unary(Op::Abs, ir::unary(Op::Sqrt, x));
      return ir::select(ir::binary(Op::Eq, x, fill(-inf, *x, x->weak)), fill(inf, *x, x->weak),
                        root);
    }
    if (v >= 1 && v <= max_chain_exponent && v == std::floor(v))
      return multiply_chain(x, int64_t(v));
    return n;
  }

  NodeSet varying_;
};

// Pows that are the fallback branch of a select: guarded already (by this pass or the user).
NodeSet select_fallback_pows(const std::vector<NodePtr> &roots) {
  NodeSet out;
  for (const Node *n : ir::topological_order(roots))
    if (n->op == Op::Select && n->inputs[2]->op == Op::Pow) out.insert(n->inputs[2].get());
  return out;
}

// pow(x, e) -> where(x > 0 & isfinite(x) & isfinite(e), exp(e * log x), pow(x, e)) where x is a
// broadcast from fewer elements and e is not a literal.
NodePtr exp_log_power(const NodePtr &n, const NodeSet &guarded, const NodeSet &varying) {
  if (n->op != Op::Pow || n->realized() || !is_floating(n->dtype) || guarded.count(n.get()))
    return n;
  const NodePtr &x = n->inputs[0], &e = n->inputs[1];
  if (scalar_of(e, varying) || x->op != Op::Broadcast || x->realized() ||
      x->inputs[0]->size() >= n->size())
    return n;
  auto wide = [](const NodePtr &v) { return ir::convert(v, DType::float64, v->weak); };
  NodePtr fast = ir::unary(Op::Exp, ir::binary(Op::Mul, wide(e), ir::unary(Op::Log, wide(x))));
  fast = ir::convert(fast, n->dtype, n->weak);
  NodePtr positive = ir::binary(Op::Gt, x, fill(0, *x, x->weak));
  NodePtr ok = ir::binary(Op::And, ir::binary(Op::And, positive, ir::unary(Op::IsFinite, x)),
                          ir::unary(Op::IsFinite, e));
  return ir::select(ok, fast, n);
}

} // namespace

std::vector<ir::NodePtr> simplify(const std::vector<ir::NodePtr> &roots) {
  const NodeSet varying = stack_varying_literals(roots);
  std::vector<NodePtr> out = rewrite(roots, Rules(varying));
  // A second walk, after the first settled: a pow rebuilt by the first would not be recognized
  // as a select's fallback.
  const NodeSet guarded = select_fallback_pows(out);
  return rewrite(out, [&](const NodePtr &n) { return exp_log_power(n, guarded, varying); });
}

} // namespace jx::passes
