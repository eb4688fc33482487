// Result comparison for differential tests, and the error-bound graph behind tolerance_for
// (the policy is described in compare.h).
#include "diff/compare.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <unordered_map>

#include "api/internal.h"
#include "ir/builder.h"
#include "ir/printer.h"

namespace jx::diff {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::OpKind;
using runtime::BufferPtr;

constexpr DType f64 = DType::float64;
constexpr double kInf = std::numeric_limits<double>::infinity();

double epsilon(DType t) { return t == DType::float32 ? 0x1p-23 : 0x1p-52; }
double largest(DType t) {
  return t == DType::float32 ? std::numeric_limits<float>::max()
                             : std::numeric_limits<double>::max();
}
double smallest_normal(DType t) {
  return t == DType::float32 ? std::numeric_limits<float>::min()
                             : std::numeric_limits<double>::min();
}
double smallest_subnormal(DType t) {
  return t == DType::float32 ? std::numeric_limits<float>::denorm_min()
                             : std::numeric_limits<double>::denorm_min();
}

// Error of a libm-dependent op's own implementation, in eps * |result| (ops.def's ulps).
double libm_error(Op op) { return jx::ir::op_info(op).ulps; }

// Builds, for each node, a float64 node of the same shape bounding how far a correct
// implementation's value may be from the interpreter's; null where it must be exact.
class BoundBuilder {
public:
  NodePtr bound(const NodePtr &n) {
    auto it = memo_.find(n.get());
    if (it != memo_.end()) return it->second;
    NodePtr b = compute(n);
    memo_.emplace(n.get(), b);
    return b;
  }

private:
  std::unordered_map<const Node *, NodePtr> memo_;
  std::unordered_map<const Node *, bool> zero_sign_memo_;

  // Whether n's zeros may have either sign in a correct implementation: downstream of float sums,
  // contractions, maxima and minima (0 + -0 and max(-0, 0) depend on the order). Only dividing by
  // such a zero (or raising it to a negative power) shows the sign; comparisons do not.
  bool zero_sign_unknown(const NodePtr &n) {
    auto it = zero_sign_memo_.find(n.get());
    if (it != zero_sign_memo_.end()) return it->second;
    bool unknown = false;
    if (!n->realized() && is_floating(n->dtype)) {
      const Op op = n->op;
      unknown =
          op == Op::ReduceSum || op == Op::ReduceMax || op == Op::ReduceMin || op == Op::DotGeneral;
      for (const NodePtr &in : n->inputs)
        unknown = unknown || zero_sign_unknown(in);
    }
    zero_sign_memo_.emplace(n.get(), unknown);
    return unknown;
  }

  static NodePtr lit(double v, const Shape &s) {
    return ir::broadcast(ir::literal(v, f64, false), s, {});
  }
  static NodePtr un(Op op, NodePtr x) { return ir::unary(op, std::move(x)); }
  static NodePtr bin(Op op, NodePtr a, NodePtr b) {
    return ir::binary(op, std::move(a), std::move(b));
  }
  static NodePtr add(NodePtr a, NodePtr b) { return bin(Op::Add, std::move(a), std::move(b)); }
  static NodePtr mul(NodePtr a, NodePtr b) { return bin(Op::Mul, std::move(a), std::move(b)); }
  static NodePtr div(NodePtr a, NodePtr b) { return bin(Op::Div, std::move(a), std::move(b)); }
  static NodePtr scale(double k, const NodePtr &x) { return mul(lit(k, x->shape), x); }
  static NodePtr f64_of(const NodePtr &x) { return ir::convert(x, f64); }
  static NodePtr abs_of(const NodePtr &x) { return un(Op::Abs, f64_of(x)); }
  // |x| where x is finite, else 0: infinities and NaNs propagate the same way in any order, so
  // they add no rounding error (and 0 * |x| stays 0).
  static NodePtr mag(const NodePtr &x) {
    return ir::select(un(Op::IsFinite, x), abs_of(x), lit(0, x->shape));
  }
  // The bound of summing (or multiplying) n terms of dtype t in any order, given the sum of their
  // magnitudes (their product): n * eps * sum, plus n subnormal steps. Infinite (unchecked) where
  // that sum exceeds t's range: partial results may overflow in one order and not in another.
  static NodePtr reorder_bound(int64_t n, const NodePtr &sum, DType t) {
    const double k = n >= 2 ? double(n) * epsilon(t) : 0;
    return or_inf(bin(Op::Le, sum, lit(largest(t), sum->shape)),
                  add(scale(k, sum), lit(double(n) * smallest_subnormal(t), sum->shape)));
  }
  // Where bound b is not zero (NaN included): a bool node.
  static NodePtr inexact(const NodePtr &b) { return bin(Op::Ne, b, lit(0, b->shape)); }
  // Where e < y or y is NaN: a value y off by at most e keeps its sign (NaN stays NaN).
  static NodePtr within(const NodePtr &e, const NodePtr &y) {
    return un(Op::Not, bin(Op::Ge, e, y));
  }
  // Where x, off by at most e, keeps its sign and stays nonzero, or is exact.
  static NodePtr steady(const NodePtr &x, const NodePtr &e) {
    return bin(Op::Or, un(Op::Not, inexact(e)), within(e, abs_of(x)));
  }
  // 1 where x (off by at most e) may be 0 or change sign, else 0.
  static NodePtr unstable(const NodePtr &x, const NodePtr &e) {
    return ir::select(steady(x, e), lit(0, x->shape), lit(1, x->shape));
  }
  // 1 where x is an infinity or NaN, else 0.
  static NodePtr nonfinite(const NodePtr &x) {
    return ir::select(un(Op::IsFinite, x), lit(0, x->shape), lit(1, x->shape));
  }
  // f where `ok`, else infinity.
  static NodePtr or_inf(NodePtr ok, NodePtr f) {
    NodePtr inf = lit(kInf, f->shape);
    return ir::select(std::move(ok), std::move(f), std::move(inf));
  }
  // Bounds are finite or infinite (unknown). Where n's value is finite, a NaN from the formulas
  // means unknown; where it is an infinity or NaN, a finite or NaN bound means a value no finite
  // error can change: exact. The formulas make the bound infinite wherever an input's is.
  static NodePtr settle(const NodePtr &n, const NodePtr &b) {
    NodePtr inf = lit(kInf, n->shape);
    return ir::select(un(Op::IsFinite, n), ir::select(un(Op::IsNan, b), inf, b),
                      ir::select(bin(Op::Eq, b, inf), inf, lit(0, n->shape)));
  }
  // n's op applied to other float64 operands (movement ops, dot_general).
  static NodePtr same_op(const Node &n, std::vector<NodePtr> inputs) {
    ir::NodeSpec s = n;
    s.dtype = f64;
    s.weak = false;
    s.inputs = std::move(inputs);
    ir::verify(s);
    return ir::make_node(std::move(s));
  }
  static int64_t reduced_count(const Node &n) {
    int64_t count = 1;
    for (int64_t a : n.attrs)
      count *= n.inputs[0]->shape[a];
    return count;
  }

  NodePtr compute(const NodePtr &np) {
    NodePtr b = raw_bound(np);
    return b && op_kind(np->op) != OpKind::Movement ? settle(np, b) : b;
  }

  NodePtr raw_bound(const NodePtr &np) {
    const Node &n = *np;
    // A realized node is a leaf to every backend.
    if (n.realized() || op_kind(n.op) == OpKind::Leaf) return nullptr;
    std::vector<NodePtr> e;
    bool any = false;
    for (const NodePtr &in : n.inputs) {
      e.push_back(bound(in));
      any = any || e.back();
    }
    auto err = [&](size_t i) { return e[i] ? e[i] : lit(0, n.inputs[i]->shape); };
    const bool fl = is_floating(n.dtype);
    const double eps = fl ? epsilon(n.dtype) : 0;
    switch (op_kind(n.op)) {
    case OpKind::Leaf: return nullptr;
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Ternary: {
      const double libm = fl ? libm_error(n.op) : 0;
      // The op's own error: libm * eps * |result|, and libm subnormal steps near 0. A zero result
      // is exact (sin(0), log(1), ...) unless it may have underflowed.
      NodePtr own = nullptr;
      if (libm > 0) {
        NodePtr steps = lit(libm * smallest_subnormal(n.dtype), n.shape);
        if (n.op != Op::Exp && n.op != Op::Exp2 && n.op != Op::Erfc && n.op != Op::Pow)
          steps = ir::select(bin(Op::Eq, f64_of(np), lit(0, n.shape)), lit(0, n.shape), steps);
        own = add(scale(libm * eps, mag(np)), steps);
      }
      if (n.op == Op::Pow && n.dtype == DType::float64) {
        // jx computes a float64 pow whose base is broadcast along the exponent as
        // exp(e * log|x|) (simplify.cpp's exp_log_power, for speed): rounding e * log|x| scales
        // the result by up to |e * log|x|| * eps on top of exp's own error.
        NodePtr spread = un(Op::Abs, bin(Op::Mul, f64_of(n.inputs[1]),
                                         un(Op::Log, un(Op::Abs, f64_of(n.inputs[0])))));
        spread = ir::select(un(Op::IsFinite, spread), spread, lit(0, n.shape));
        own = add(own, mul(scale(2 * eps, mag(np)), spread));
      }
      NodePtr out = any ? inexact_inputs(np, e, err) : nullptr;
      // Dividing by a zero of unknown sign (or raising it to a negative power): +-inf.
      const Shape &s = n.shape;
      NodePtr sign_shows = nullptr;
      if (n.op == Op::Div && zero_sign_unknown(n.inputs[1]))
        sign_shows = bin(Op::Eq, f64_of(n.inputs[1]), lit(0, s));
      if (n.op == Op::Pow && zero_sign_unknown(n.inputs[0]))
        sign_shows = bin(Op::And, bin(Op::Eq, f64_of(n.inputs[0]), lit(0, s)),
                         bin(Op::Lt, f64_of(n.inputs[1]), lit(0, s)));
      if (sign_shows) out = ir::select(sign_shows, lit(kInf, s), out ? out : lit(0, s));
      return own && out ? add(out, own) : own ? own : out;
    }
    case OpKind::Movement: {
      if (!any) return nullptr;
      // A gather reads x's error where it reads x (its indices are exact integers).
      if (n.op == Op::Take) return ir::take(err(0), n.inputs[1], n.attrs[0], n.attrs[1] != 0);
      // Dynamic slices read errors where they read values (their starts are exact integers).
      if (n.op == Op::DynamicSlice)
        return ir::dynamic_slice(err(0), {n.inputs.begin() + 1, n.inputs.end()}, n.attrs);
      if (n.op == Op::DynamicUpdateSlice)
        return ir::dynamic_update_slice(err(0), err(1), {n.inputs.begin() + 2, n.inputs.end()});
      std::vector<NodePtr> inputs;
      for (size_t i = 0; i < e.size(); ++i)
        inputs.push_back(err(i));
      return same_op(n, std::move(inputs));
    }
    case OpKind::Reduce: return reduction(np, e[0]);
    case OpKind::Marker: return e[0]; // input 0's value
    case OpKind::Control: throw jx::Error("internal: no error bound for control flow");
    case OpKind::Library: return library(np, e, any);
    case OpKind::Contraction: {
      if (!any && !fl) return nullptr;
      const ir::DotDims d = ir::dot_dims(n);
      int64_t k = 1;
      for (int64_t a : d.lhs_contract)
        k *= n.inputs[0]->shape[a];
      const NodePtr &a = n.inputs[0], &b = n.inputs[1];
      NodePtr ma = fl ? mag(a) : lit(0, a->shape), mb = fl ? mag(b) : lit(0, b->shape);
      NodePtr out = fl ? reorder_bound(k + 1, same_op(n, {ma, mb}), n.dtype) : nullptr;
      auto plus = [&](NodePtr t) { out = out ? add(out, t) : t; };
      // (|a| + 1) db + da (|b| + 1) + da db: 1 more than needed, so that an infinite (unknown)
      // bound never meets a zero magnitude (0 * inf), and integer bounds (0 or inf) spread.
      if (e[1]) plus(same_op(n, {add(ma, lit(1, a->shape)), e[1]}));
      if (e[0]) plus(same_op(n, {e[0], add(mb, lit(1, b->shape))}));
      if (e[0] && e[1]) plus(same_op(n, {e[0], e[1]}));
      if (!any) return out;
      // An infinite term times a factor that may be 0 or change sign is unknown (NaN or -inf).
      NodePtr pairs = add(same_op(n, {nonfinite(a), unstable(b, err(1))}),
                          same_op(n, {unstable(a, err(0)), nonfinite(b)}));
      return or_inf(bin(Op::Eq, pairs, lit(0, n.shape)), out);
    }
    }
    return nullptr;
  }

  // The bound of elementwise node n from its operands' bounds e (some not null).
  template <class Err>
  NodePtr inexact_inputs(const NodePtr &np, const std::vector<NodePtr> &e, Err &err) {
    const Node &n = *np;
    NodePtr f = propagate(np, err);
    if (is_floating(n.dtype) && n.op != Op::Select)
      f = add(f, scale(2 * epsilon(n.dtype), mag(np)));
    // Elements with exact inputs stay exact (the formulas can give NaN at 0 or infinity), and
    // unknown inputs give unknown results (where the formulas could give NaN, as 0 * inf).
    NodePtr has = nullptr, unknown = nullptr;
    for (const NodePtr &b : e) {
      if (!b) continue;
      has = has ? bin(Op::Or, has, inexact(b)) : inexact(b);
      NodePtr u = bin(Op::Eq, b, lit(kInf, b->shape));
      unknown = unknown ? bin(Op::Or, unknown, u) : u;
    }
    if (n.op != Op::Select) f = ir::select(unknown, lit(kInf, n.shape), f);
    return ir::select(has, f, lit(0, n.shape));
  }

  // The bound of an elementwise node given its operands' bounds err(i) (zero where exact).
  template <class Err> NodePtr propagate(const NodePtr &np, Err &err) {
    const Node &n = *np;
    const Shape &s = n.shape;
    auto x = [&](size_t i) { return n.inputs[i]; };
    switch (n.op) {
    case Op::Neg:
    case Op::Abs: return err(0);
    case Op::Convert:
      return is_floating(x(0)->dtype) && !is_floating(n.dtype) ? lit(kInf, s) : err(0);
    case Op::Sqrt: {
      // sqrt(x + d) - sqrt(x) = d / (sqrt(x + d) + sqrt(x)), while x keeps its sign.
      NodePtr ax = abs_of(x(0)), e0 = err(0);
      return or_inf(within(e0, ax), div(e0, add(un(Op::Sqrt, add(ax, e0)), un(Op::Sqrt, ax))));
    }
    case Op::Exp: return mul(mag(np), un(Op::Expm1, err(0)));
    case Op::Expm1: return mul(add(mag(np), lit(1, s)), un(Op::Expm1, err(0)));
    case Op::Log:
    case Op::Log1p: {
      // |log(y + d) - log(y)| <= -log1p(-d / |y|) for d < |y|, with y = x or 1 + x.
      NodePtr y = n.op == Op::Log ? abs_of(x(0)) : un(Op::Abs, add(lit(1, s), f64_of(x(0))));
      NodePtr e0 = err(0);
      return or_inf(within(e0, y), un(Op::Neg, un(Op::Log1p, un(Op::Neg, div(e0, y)))));
    }
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh: return bin(Op::Min, err(0), lit(2, s));
    case Op::Atan:
    case Op::Asinh: return err(0); // slopes at most 1
    case Op::Erf:
    case Op::Erfc: return scale(2 / std::sqrt(M_PI), err(0));
    case Op::Sinh:
    case Op::Cosh:
      // Both slopes are at most cosh(|x| + d).
      return mul(un(Op::Cosh, add(abs_of(x(0)), err(0))), err(0));
    case Op::Exp2: return mul(mag(np), un(Op::Expm1, scale(M_LN2, err(0))));
    case Op::Log2:
    case Op::Log10: {
      // log's bound over ln 2 or ln 10.
      NodePtr y = abs_of(x(0)), e0 = err(0);
      return or_inf(within(e0, y), scale(n.op == Op::Log2 ? 1 / M_LN2 : 1 / M_LN10,
                                         un(Op::Neg, un(Op::Log1p, un(Op::Neg, div(e0, y))))));
    }
    // |cbrt(a) - cbrt(b)| <= 2^(2/3) cbrt(|a - b|) everywhere, 0 included.
    case Op::Cbrt: return scale(1.5875, un(Op::Cbrt, err(0)));
    case Op::Hypot: return add(err(0), err(1));
    case Op::Atan2: {
      // Both partial derivatives are at most 1 / hypot(y, x), away from the branch cut: where x <
      // 0 and y's sign is unsure (within its error of 0, or a zero of unknown sign) the value
      // may be pi or -pi.
      NodePtr e = add(err(0), err(1)), r = bin(Op::Hypot, f64_of(x(0)), f64_of(x(1)));
      const Shape &s = n.shape;
      NodePtr y = f64_of(x(0)), zero = lit(0, s);
      NodePtr unsure = bin(Op::And, bin(Op::Gt, err(0), zero), bin(Op::Le, un(Op::Abs, y), err(0)));
      if (zero_sign_unknown(n.inputs[0])) unsure = bin(Op::Or, unsure, bin(Op::Eq, y, zero));
      NodePtr cut = bin(Op::And, unsure, bin(Op::Lt, f64_of(x(1)), zero));
      return or_inf(bin(Op::And, within(e, r), un(Op::Not, cut)), div(e, bin(Op::Sub, r, e)));
    }
    case Op::Tan: {
      // |tan(x + d) - tan(x)| = |sin d| / |cos(x + d) cos(x)| <= d / (c (c - d)), c = |cos x|.
      NodePtr c = un(Op::Abs, un(Op::Cos, f64_of(x(0)))), e0 = err(0);
      return or_inf(within(e0, c), div(e0, mul(c, bin(Op::Sub, c, e0))));
    }
    case Op::Add:
    case Op::Sub: return add(err(0), err(1));
    case Op::Mul: {
      // An infinite factor times one that may change sign (or be 0) is unknown.
      NodePtr e0 = err(0), e1 = err(1);
      auto known = [&](size_t i, const NodePtr &e_other, size_t other) {
        return bin(Op::Or, un(Op::IsFinite, x(i)), steady(x(other), e_other));
      };
      return or_inf(bin(Op::And, known(0, e1, 1), known(1, e0, 0)),
                    add(add(mul(mag(x(0)), e1), mul(mag(x(1)), e0)), mul(e0, e1)));
    }
    case Op::Fma: {
      // a * b's bound (as Mul's) plus c's: the one rounding is added after.
      NodePtr e0 = err(0), e1 = err(1);
      auto known = [&](size_t i, const NodePtr &e_other, size_t other) {
        return bin(Op::Or, un(Op::IsFinite, x(i)), steady(x(other), e_other));
      };
      return or_inf(bin(Op::And, known(0, e1, 1), known(1, e0, 0)),
                    add(add(add(mul(mag(x(0)), e1), mul(mag(x(1)), e0)), mul(e0, e1)), err(2)));
    }
    case Op::Div: {
      // |a'/b' - a/b| <= (da + |a/b| db) / (|b| - db) for db < |b|. An exact zero divisor gives
      // an infinity of a's sign.
      NodePtr ab = abs_of(x(1)), e0 = err(0), e1 = err(1), zero = lit(0, s);
      NodePtr by_zero = bin(Op::And, bin(Op::Eq, ab, zero), bin(Op::Eq, e1, zero));
      return ir::select(
          by_zero, or_inf(within(e0, abs_of(x(0))), zero),
          or_inf(within(e1, ab), div(add(e0, mul(mag(np), e1)), bin(Op::Sub, ab, e1))));
    }
    case Op::Pow: {
      // For an exact exponent, |a|^b is monotonic in |a|: the ends of |a| -+ da bound it.
      NodePtr aa = abs_of(x(0)), e0 = err(0), b = f64_of(x(1)), r = abs_of(np);
      auto gap = [&](NodePtr base) { return un(Op::Abs, bin(Op::Sub, bin(Op::Pow, base, b), r)); };
      NodePtr f = bin(Op::Max, gap(add(aa, e0)), gap(bin(Op::Sub, aa, e0)));
      return ir::select(inexact(err(1)), lit(kInf, s), or_inf(within(e0, aa), f));
    }
    case Op::Max:
    case Op::Min:
    case Op::LogAddExp2: return bin(Op::Max, err(0), err(1)); // its slopes sum to 1
    case Op::Square: {
      NodePtr e0 = err(0);
      return or_inf(un(Op::IsFinite, x(0)), add(scale(2, mul(mag(x(0)), e0)), mul(e0, e0)));
    }
    case Op::Rsqrt: {
      // The slope of x^(-1/2) is largest at |x| - d: (|x| - d)^(-3/2) / 2.
      NodePtr ax = abs_of(x(0)), e0 = err(0);
      return or_inf(within(e0, ax),
                    scale(0.5, mul(e0, bin(Op::Pow, bin(Op::Sub, ax, e0), lit(-1.5, s)))));
    }
    case Op::Logistic: return scale(0.25, err(0)); // slope at most 1/4
    case Op::Select:
      return ir::select(inexact(err(0)), lit(kInf, s), ir::select(x(0), err(1), err(2)));
    default: return lit(kInf, s); // discontinuous: floor, sign, comparisons, bit ops, ...
    }
  }

  // Both backends run the runtime's routine, in the same order: only the inputs' errors differ.
  // The k-th partial sum of a running sum may round apart by up to k eps of the magnitudes summed
  // so far (and k subnormal steps); a running max or min and a sort move each element by at most
  // the largest input error of the line (along the prefix, or over the whole line); the rest need
  // exact inputs.
  NodePtr library(const NodePtr &np, const std::vector<NodePtr> &errors, bool inexact_inputs) {
    const Node &n = *np;
    if (!inexact_inputs) return nullptr;
    const NodePtr &e = errors[0];
    auto err = [&](size_t i) { return errors[i] ? errors[i] : lit(0, n.inputs[i]->shape); };
    if (ir::is_scatter(n.op)) {
      // A set moves values; a min or max picks one of its contributors; a sum of contributors
      // may also round apart by its terms' eps (its place's count of them at most 1 + m).
      const NodePtr &idx = n.inputs[1];
      const int64_t axis = n.attrs[0];
      switch (n.op) {
      case Op::ScatterSet: return ir::scatter(Op::ScatterSet, err(0), idx, err(2), axis);
      case Op::ScatterMin:
      case Op::ScatterMax: return ir::scatter(Op::ScatterMax, err(0), idx, err(2), axis);
      case Op::ScatterAdd: {
        const NodePtr terms =
            ir::scatter(Op::ScatterAdd, mag(n.inputs[0]), idx, mag(n.inputs[2]), axis);
        return add(ir::scatter(Op::ScatterAdd, err(0), idx, err(2), axis),
                   reorder_bound(idx->size() + 1, terms, n.dtype));
      }
      default:
        throw jx::Error(
            fmt::format("internal: no error bound for {} of inexact inputs", ir::op_name(n.op)));
      }
    }
    const int64_t axis = n.attrs[0];
    const bool reverse = n.attrs.size() > 1 && n.attrs[1] != 0;
    switch (n.op) {
    case Op::CumSum: {
      const NodePtr running = ir::cumulative(Op::CumSum, mag(n.inputs[0]), axis, reverse);
      const int64_t length = n.shape[size_t(axis)];
      const NodePtr position = ir::iota(f64, n.shape, axis);
      const NodePtr terms = reverse ? bin(Op::Sub, lit(double(length), n.shape), position)
                                    : add(position, lit(1, n.shape));
      const NodePtr own = or_inf(bin(Op::Le, running, lit(largest(n.dtype), n.shape)),
                                 add(mul(scale(epsilon(n.dtype), terms), running),
                                     scale(smallest_subnormal(n.dtype), terms)));
      return add(own, ir::cumulative(Op::CumSum, e, axis, reverse));
    }
    case Op::CumMax:
    case Op::CumMin: return ir::cumulative(Op::CumMax, e, axis, reverse);
    case Op::Sort: {
      std::vector<int64_t> dims;
      for (int64_t a = 0; a < int64_t(n.shape.size()); ++a)
        if (a != axis) dims.push_back(a);
      return ir::broadcast(ir::reduce(Op::ReduceMax, e, {axis}), n.shape, dims);
    }
    default:
      throw jx::Error(
          fmt::format("internal: no error bound for {} of inexact inputs", ir::op_name(n.op)));
    }
  }

  NodePtr reduction(const NodePtr &np, const NodePtr &e) {
    const Node &n = *np;
    const NodePtr &x = n.inputs[0];
    const DType t = n.dtype;
    const bool reorders = is_floating(t) && (n.op == Op::ReduceSum || n.op == Op::ReduceProd);
    if (!e && !reorders) return nullptr;
    auto reduce = [&](Op op, NodePtr v) { return ir::reduce(op, std::move(v), n.attrs); };
    const int64_t count = reduced_count(n);
    switch (n.op) {
    case Op::ReduceSum: {
      if (!is_floating(t)) return reduce(Op::ReduceSum, e);
      NodePtr out = reorder_bound(count, reduce(Op::ReduceSum, mag(x)), t);
      return e ? add(out, reduce(Op::ReduceSum, e)) : out;
    }
    case Op::ReduceProd: {
      if (!is_floating(t)) return reduce(Op::ReduceSum, e);
      NodePtr m = e ? add(mag(x), e) : mag(x), one = lit(1, x->shape);
      NodePtr wide = reduce(Op::ReduceProd, m);
      NodePtr out = reorder_bound(count, wide, t);
      if (e) out = add(out, bin(Op::Sub, wide, reduce(Op::ReduceProd, mag(x))));
      // Partial products overflow in some orders only when smaller factors (or a zero) could
      // bring them back, and underflow in some only when larger factors could.
      NodePtr above = reduce(Op::ReduceProd, bin(Op::Max, m, one));
      NodePtr below = reduce(Op::ReduceProd, bin(Op::Min, m, one));
      NodePtr below_nonzero = reduce(
          Op::ReduceProd, ir::select(bin(Op::Eq, m, lit(0, x->shape)), one, bin(Op::Min, m, one)));
      const Shape &s = n.shape;
      NodePtr overflows =
          bin(Op::And, bin(Op::Gt, above, lit(largest(t), s)), bin(Op::Lt, below, lit(1, s)));
      NodePtr underflows = bin(Op::And, bin(Op::Lt, below_nonzero, lit(smallest_normal(t), s)),
                               bin(Op::Gt, above, lit(1, s)));
      NodePtr ok = un(Op::Not, bin(Op::Or, overflows, underflows));
      if (e) {
        // An infinite factor times one that may be 0 or change sign is unknown.
        NodePtr has_nonfinite = bin(Op::Gt, reduce(Op::ReduceMax, nonfinite(x)), lit(0, s));
        NodePtr has_unstable = bin(Op::Gt, reduce(Op::ReduceMax, unstable(x, e)), lit(0, s));
        ok = bin(Op::And, ok, un(Op::Not, bin(Op::And, has_nonfinite, has_unstable)));
      }
      return or_inf(ok, out);
    }
    case Op::ReduceMax:
    case Op::ReduceMin: return reduce(Op::ReduceMax, e);
    default: { // argmax, argmin: an inexact candidate may change the winner
      NodePtr worst = reduce(Op::ReduceMax, e);
      return ir::select(inexact(worst), lit(kInf, n.shape), lit(0, n.shape));
    }
    }
  }
};

// Units in the last place between two finite floats of one type.
template <class F> uint64_t ulp_distance(F a, F b) {
  using I = std::conditional_t<sizeof(F) == 8, int64_t, int32_t>;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  // Map the bit patterns to integers that increase with the value (+0 and -0 both to 0).
  auto ordered = [](I i) { return int64_t(i < 0 ? std::numeric_limits<I>::min() - i : i); };
  const int64_t oa = ordered(ia), ob = ordered(ib);
  return oa > ob ? uint64_t(oa) - uint64_t(ob) : uint64_t(ob) - uint64_t(oa);
}

} // namespace

std::string multi_index(const Shape &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

Tolerance tolerance_for(const jx::Array &root, int64_t ulps) {
  Tolerance t{ulps, nullptr};
  if (NodePtr b = BoundBuilder().bound(root.node()))
    t.bound = api::evaluate_with(api::Backend::Interpreter, b);
  return t;
}

CompareResult compare_buffers(const jx::Array &like, BufferPtr expected, BufferPtr actual,
                              const Tolerance &tolerance) {
  CompareResult r;
  const int64_t n = like.size();
  const size_t bytes = size_t(n) * itemsize(like.dtype());
  for (const auto &[name, buffer] : {std::pair{"expected", expected}, {"actual", actual}}) {
    if (buffer && buffer->bytes() >= bytes) continue;
    r.ok = false;
    r.message = fmt::format("the {} buffer holds {} bytes, not {}", name,
                            buffer ? buffer->bytes() : 0, bytes);
    return r;
  }
  const double *bound = tolerance.bound ? tolerance.bound->as<double>() : nullptr;
  auto fail = [&](int64_t i, const std::string &values) {
    r.ok = false;
    r.index = i;
    r.message = fmt::format("element {} (flat {}) of {}: {}", multi_index(like.shape(), i), i,
                            ir::type_str(*like.node()), values);
    if (bound) r.message += fmt::format("; allowed error 2 * {}", bound[i]);
  };
  // parts: scalars per element (a complex number's two parts are compared as two floats).
  auto check = [&](auto tag, int64_t parts = 1) {
    using T = decltype(tag);
    const T *e = expected->as<T>(), *a = actual->as<T>();
    for (int64_t k = 0; k < n * parts; ++k) {
      const int64_t i = k / parts;
      const bool unchecked = bound && !std::isfinite(bound[i]);
      r.unchecked += unchecked;
      if (r.ok && !unchecked && !(e[k] == a[k])) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(e[k]) && std::isnan(a[k])) continue;
          const bool finite = std::isfinite(e[k]) && std::isfinite(a[k]);
          const uint64_t ulps = finite ? ulp_distance(e[k], a[k]) : 0;
          if (finite && ulps <= uint64_t(tolerance.ulps)) continue;
          if (bound && std::fabs(double(a[k]) - double(e[k])) <= 2 * bound[i]) continue;
          fail(i, fmt::format("expected {}, got {}{}", e[k], a[k],
                              finite ? fmt::format(" ({} ulp apart)", ulps) : ""));
        } else {
          fail(i, fmt::format("expected {}, got {}", e[k], a[k]));
        }
      }
    }
  };
  switch (like.dtype()) {
  // Bools are compared as stored bytes: anything but 0 and 1 is itself a bug.
  case DType::bool_: check(uint8_t()); break;
  case DType::int8: check(int8_t()); break;
  case DType::int16: check(int16_t()); break;
  case DType::int32: check(int32_t()); break;
  case DType::int64: check(int64_t()); break;
  case DType::uint8: check(uint8_t()); break;
  case DType::uint16: check(uint16_t()); break;
  case DType::uint32: check(uint32_t()); break;
  case DType::uint64: check(uint64_t()); break;
  // float16 and bfloat16 as their bits: the evaluator and kernels round the same float32 results.
  case DType::float16:
  case DType::bfloat16: check(uint16_t()); break;
  case DType::float32: check(float()); break;
  case DType::float64: check(double()); break;
  case DType::complex64: check(float(), 2); break;
  case DType::complex128: check(double(), 2); break;
  }
  return r;
}

} // namespace jx::diff
