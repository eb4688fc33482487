// Forward mode: a walk from the outputs down to the seeds, one rule of ir/ops.def per node
// that a tangent reaches.
#include "transforms/jvp.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_map>

#include "ir/printer.h"
#include "transforms/batch.h"
#include "transforms/control.h"
#include "transforms/custom.h"
#include "transforms/dsl.h"
#include "transforms/linalg_rules.h"
#include "transforms/substitute.h"

namespace jx::transforms {

namespace {

using namespace dsl;

// jnp.remainder: lax.rem, then + y where the signs of the remainder and y differ.
NodePtr jnp_remainder(const NodePtr &x, const NodePtr &y) {
  NodePtr trunc = fmod(x, y);
  NodePtr zero = lit(0, x);
  NodePtr plus = and_(ne(lt(trunc, zero), lt(y, zero)), ne(trunc, zero));
  return select(plus, add(trunc, y), trunc);
}

// jnp.copysign.
NodePtr jnp_copysign(const NodePtr &x, const NodePtr &y) {
  return select(signbit(y), neg(abs(x)), abs(x));
}

// jnp.hypot: scaled by the larger magnitude, +inf if either is.
NodePtr jnp_hypot(const NodePtr &x1, const NodePtr &x2) {
  NodePtr a = abs(x1), b = abs(x2);
  NodePtr inf = lit(std::numeric_limits<double>::infinity(), x1);
  NodePtr any_inf = or_(eq(a, inf), eq(b, inf));
  NodePtr hi = max(a, b), lo = min(a, b);
  NodePtr zero = eq(hi, lit(0, hi));
  NodePtr q = div(lo, select(zero, lit(1, hi), hi));
  NodePtr r = select(zero, hi, mul(hi, sqrt(add(lit(1, hi), mul(q, q)))));
  return select(any_inf, inf, r);
}

// The axes of x that a reduction keeps.
std::vector<int64_t> kept_axes(const ir::Node &reduction) {
  return ir::other_axes(reduction.inputs[0]->ndim(), reduction.attrs);
}

// The tangent of a composition of the inputs of a node, given their tangents. The composition is
// built over fresh parameters, then the inputs are put back: built over the inputs themselves,
// the builders could fold its first ops into theirs (a reshape of a reshape is one reshape) and
// lose the inputs the JVP is taken with respect to.
NodePtr composition_jvp(const std::function<NodePtr(const std::vector<NodePtr> &)> &compose,
                        const std::vector<NodePtr> &inputs, const std::vector<NodePtr> &ts) {
  const int64_t trace = ir::new_trace_id();
  std::vector<NodePtr> params, seeds, seed_tangents;
  Substitution back;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NodePtr &x = inputs[i];
    params.push_back(ir::parameter(int64_t(i), x->dtype, x->shape, trace, x->weak));
    back.emplace(params.back().get(), x);
    if (ts[i]) {
      seeds.push_back(params.back());
      seed_tangents.push_back(ts[i]);
    }
  }
  const NodePtr t = jvp({compose(params)}, seeds, seed_tangents)[0];
  return t ? substitute({t}, back)[0] : nullptr;
}

// A linear op's tangent: the op itself over its inputs' tangents, zeros for absent float ones
// (a select's predicate stays the primal's).
NodePtr structural_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  std::vector<NodePtr> inputs;
  for (size_t i = 0; i < ans->inputs.size(); ++i) {
    const NodePtr &x = ans->inputs[i];
    inputs.push_back(ts[i] ? ts[i] : is_inexact(x->dtype) ? lit(0, x) : x);
  }
  return ir::rebuild(*ans, std::move(inputs));
}

// A bilinear op's tangent: the op with one operand's tangent at a time, summed.
// take is linear in x; the indices carry no tangent.
NodePtr take_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  return ts[0] ? ir::take(ts[0], ans->inputs[1], ans->attrs[0], ans->attrs[1] != 0) : nullptr;
}

// x reversed along axis.
NodePtr flip(const NodePtr &x, int64_t axis) {
  return ir::slice_in_dim(x, axis, x->shape[size_t(axis)] - 1, -1, -1);
}

// The running combine of x along axis as a composition (JAX differentiates lax.cumprod, cummax
// and cummin through associative_scan): log2(n) steps of x combined with itself shifted by 1, 2,
// 4, ... places, the identity shifted in.
NodePtr combining_scan(Op combine, NodePtr x, int64_t axis, bool reverse) {
  const double identity = combine == Op::Mul   ? 1
                          : combine == Op::Max ? -std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::infinity();
  if (reverse) x = flip(x, axis);
  const size_t a = size_t(axis), r = x->shape.size();
  const int64_t n = x->shape[a];
  for (int64_t d = 1; d < n; d *= 2) {
    std::vector<int64_t> lo(r, 0), hi(r, 0);
    lo[a] = d;
    const NodePtr shifted = ir::pad(ir::slice_in_dim(x, axis, 0, n - d),
                                    ir::literal(identity, x->dtype, x->weak), lo, hi);
    x = ir::binary(combine, x, shifted);
  }
  return reverse ? flip(x, axis) : x;
}

NodePtr cumulative_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const Op combine = ans->op == Op::CumProd ? Op::Mul : ans->op == Op::CumMax ? Op::Max : Op::Min;
  const int64_t axis = ans->attrs[0];
  const bool reverse = ans->attrs[1] != 0;
  return composition_jvp(
      [&](const std::vector<NodePtr> &in) { return combining_scan(combine, in[0], axis, reverse); },
      ans->inputs, ts);
}

// JAX's sort rule: the tangents gathered in the sorted order (a stable argsort's permutation).
NodePtr sort_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0]) return nullptr;
  const NodePtr &x = ans->inputs[0];
  const int64_t axis = ans->attrs[0], last = x->ndim() - 1, n = x->shape[size_t(axis)];
  const int64_t size = x->size(), lines = n ? size / n : 0;
  // The lines along axis moved last and laid end to end: element j of line l reads element
  // l n + order[l, j] of the tangents, one take.
  const NodePtr order = move_axis(ir::argsort({x}, axis), axis, last);
  const Shape grid{lines, n};
  const NodePtr line_start =
      ir::binary(Op::Mul, ir::iota(DType::int64, grid, 0),
                 ir::broadcast(ir::literal_int(n, DType::int64, false), grid, {}));
  const NodePtr index =
      ir::reshape(ir::binary(Op::Add, line_start, ir::reshape(order, grid)), {size});
  const NodePtr gathered =
      ir::take(ir::reshape(move_axis(ts[0], axis, last), {size}), index, 0, false);
  return move_axis(ir::reshape(gathered, order->shape), last, axis);
}

// JAX's scatter_mul rule: linear in x (the updates' products scale it); the updates' tangents only
// with unique indices, which jx's .at[].multiply does not promise.
NodePtr scatter_mul_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (ts[2])
    throw NotImplementedError(
        "scatter_mul gradients are only implemented if `unique_indices=True`");
  if (!ts[0]) return nullptr;
  return ir::scatter(Op::ScatterMul, ts[0], ans->inputs[1], ans->inputs[2], ans->attrs[0]);
}

// JAX's _scatter_extremal_jvp: at each place, the tangents of the values that tie for the result
// (x's own and the updates equal to it) averaged.
NodePtr scatter_extremal_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0] && !ts[2]) return nullptr;
  const NodePtr &x = ans->inputs[0], &idx = ans->inputs[1], &updates = ans->inputs[2];
  const int64_t axis = ans->attrs[0];
  const NodePtr tx = ts[0] ? ts[0] : lit(0, x), tu = ts[2] ? ts[2] : lit(0, updates);
  auto at_place = [&](const NodePtr &v) { return ir::take(v, idx, axis, true); };
  auto count = [&](const NodePtr &terms) {
    return at_place(ir::scatter(Op::ScatterAdd, lit(0, x), idx, terms, axis));
  };
  const NodePtr target = at_place(ans);
  const NodePtr won = eq(updates, target), retained = eq(at_place(x), target);
  const NodePtr num_updates = count(select(won, lit(1, updates), lit(0, updates)));
  const NodePtr num_refs = count(lit(1, updates));
  const NodePtr one = lit(1, updates), zero = lit(0, updates);
  const NodePtr shared = div(one, add(num_updates, one));
  const NodePtr updates_coef = select(won, select(retained, shared, div(one, num_updates)), zero);
  const NodePtr operand_coef = div(add(lit(-1, updates), select(retained, shared, zero)), num_refs);
  const NodePtr tangent_updates = add(mul(at_place(tx), operand_coef), mul(tu, updates_coef));
  return ir::scatter(Op::ScatterAdd, tx, idx, tangent_updates, axis);
}

// A scatter set or add is linear in (x, updates) together.
NodePtr scatter_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  if (!ts[0] && !ts[2]) return nullptr;
  const NodePtr tx = ts[0] ? ts[0] : lit(0, ans->inputs[0]);
  const NodePtr tu = ts[2] ? ts[2] : lit(0, ans->inputs[2]);
  return ir::scatter(ans->op, tx, ans->inputs[1], tu, ans->attrs[0]);
}

NodePtr dot_general_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  NodePtr l = ts[0] ? ir::rebuild(*ans, {ts[0], ans->inputs[1]}) : nullptr;
  NodePtr r = ts[1] ? ir::rebuild(*ans, {ans->inputs[0], ts[1]}) : nullptr;
  return l && r ? add(l, r) : l ? l : r;
}

// JAX's _reduce_chooser_jvp_rule: the mean of the tangents at the places that attain ans (NaN
// where none does, as for a NaN in x).
NodePtr reduce_chooser_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const NodePtr &x = ans->inputs[0];
  NodePtr location =
      convert(eq(x, ir::broadcast(ans, x->shape, kept_axes(*ans))), ans->dtype, ans->weak);
  NodePtr counts = ir::reduce(Op::ReduceSum, location, ans->attrs);
  return div(ir::reduce(Op::ReduceSum, mul(ts[0], location), ans->attrs), counts);
}

// The product of x over ans's axes as JAX's _reduce_prod_jvp_rule computes it: the reduced axes
// moved first and flattened into n rows, then the first half of the rows times the second (padded
// with a row of ones when odd) until one row is left.
NodePtr product_tree(const NodePtr &x, const ir::Node &ans, int64_t n) {
  std::vector<int64_t> perm = ans.attrs;
  Shape rows{n};
  for (int64_t i : kept_axes(ans)) {
    perm.push_back(i);
    rows.push_back(x->shape[i]);
  }
  const size_t r = rows.size();
  NodePtr tree = ir::reshape(ir::transpose(x, perm), rows);
  while (tree->shape[0] > 1) {
    const int64_t m = tree->shape[0], half = (m + 1) / 2;
    NodePtr first = ir::slice_in_dim(tree, 0, 0, half);
    NodePtr second = ir::slice_in_dim(tree, 0, half, m);
    if (m - half != half) {
      std::vector<int64_t> lo(r, 0), hi(r, 0);
      hi[0] = 1;
      second = ir::pad(second, ir::literal(1, x->dtype, x->weak), lo, hi);
    }
    tree = mul(first, second);
  }
  return ir::reshape(tree, ans.shape);
}

// JAX's _reduce_prod_jvp_rule: the JVP of the product tree, exact where x has zeros (unlike
// ans / x).
NodePtr reduce_prod_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const NodePtr &x = ans->inputs[0];
  int64_t n = 1;
  for (int64_t a : ans->attrs)
    n *= x->shape[a];
  if (n == 0) return nullptr;
  return composition_jvp(
      [&](const std::vector<NodePtr> &in) { return product_tree(in[0], *ans, n); }, {x}, ts);
}

// The tangent input i of a custom rule receives: zeros where a float argument has none, bool
// zeros (JAX's float0) for int and bool arguments.
NodePtr tangent_or_zeros(const NodePtr &x, const NodePtr &t) {
  if (t) return t;
  return is_inexact(x->dtype) ? lit(0, x)
                              : ir::broadcast(ir::literal(0, DType::bool_, false), x->shape, {});
}

// The user's rule on the function's arguments (input 0, the function's own output, is not
// differentiated).
NodePtr custom_jvp_rule(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  std::vector<NodePtr> primals, tangents;
  for (size_t i = 1; i < ans->inputs.size(); ++i) {
    primals.push_back(ans->inputs[i]);
    tangents.push_back(tangent_or_zeros(ans->inputs[i], ts[i]));
  }
  NodePtr t = jvp_rule(ans->attrs.at(0))(primals, tangents);
  if (t->shape != ans->shape || t->dtype != ans->dtype)
    throw TypeError(fmt::format("Custom JVP rule must produce primal and tangent outputs with "
                                "corresponding shapes and dtypes, but got {} for the primal "
                                "output and {} for the tangent output.",
                                ir::type_str(*ans), ir::type_str(*t)));
  return t;
}

// A custom_vjp's tangent: custom_lin of its arguments' tangents, which transposition turns into
// the user's bwd on fwd's residuals.
NodePtr custom_vjp_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const CustomVjpInputs parts = custom_vjp_inputs(*ans);
  std::vector<NodePtr> inputs{ans->inputs[0]};
  for (size_t i = 0; i < parts.args.size(); ++i)
    inputs.push_back(tangent_or_zeros(parts.args[i], ts[1 + i]));
  inputs.insert(inputs.end(), parts.residuals.begin(), parts.residuals.end());
  return ir::marker(Op::CustomLin, std::move(inputs), ans->attrs);
}

NodePtr custom_lin_jvp(const NodePtr &, const std::vector<NodePtr> &) {
  ir::throw_custom_lin_has_no_value();
}

NodePtr expand(NodePtr (*fn)(const NodePtr &, const NodePtr &), const ir::Node &ans,
               const std::vector<NodePtr> &ts) {
  return composition_jvp([&](const std::vector<NodePtr> &in) { return fn(in[0], in[1]); },
                         ans.inputs, ts);
}

// The tangent of ans given its inputs' (nullptr: zero), at least one not zero.
NodePtr apply_rule(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  const NodePtr x = ans->inputs.empty() ? nullptr : ans->inputs[0];
  const NodePtr y = ans->inputs.size() < 2 ? nullptr : ans->inputs[1];
  auto c = [&](double v) { return lit(v, ans); };
  using Term = std::function<NodePtr(const NodePtr &t)>;
  // The sum of the terms of the inputs whose tangent is not zero.
  auto sum = [&](std::initializer_list<Term> terms) {
    NodePtr total;
    size_t i = 0;
    for (const Term &term : terms) {
      if (const NodePtr &t = ts.at(i++)) {
        NodePtr d = term(t);
        total = total ? add(total, d) : d;
      }
    }
    return total;
  };
#define JX_TERM(e) [&](const NodePtr &t) -> NodePtr { return e; }
#define JX_TERMS_1(a) JX_TERM(a)
#define JX_TERMS_2(a, b) JX_TERM(a), JX_TERM(b)
#define JX_TERMS_3(a, b, c) JX_TERM(a), JX_TERM(b), JX_TERM(c)
#define JX_PICK(_1, _2, _3, n, ...) n
#define JVP(...) JX_PICK(__VA_ARGS__, JX_TERMS_3, JX_TERMS_2, JX_TERMS_1)(__VA_ARGS__)
  // clang-format off
#define JX_RULE(terms) return sum({terms});
#define JX_LINEAR(terms, transposes) return sum({terms});
#define JX_STRUCTURAL(transpose) return structural_jvp(ans, ts);
#define JX_ZERO return nullptr;
#define JX_EXPAND(fn) return expand(fn, *ans, ts);
#define JX_FN(jvp, transpose) return jvp(ans, ts);
#define JX_NO_RULE throw NotImplementedError(fmt::format( \
    "Differentiation rule for '{}' not implemented", ir::op_name(ans->op)));
#define JX_CONTROL return control_jvp(ans, ts);
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative) case Op::name: derivative
  // clang-format on
  switch (ans->op) {
#include "ir/ops.def"
  }
#undef JX_OP
#undef JX_TERM
#undef JX_TERMS_1
#undef JX_TERMS_2
#undef JX_TERMS_3
#undef JX_PICK
#undef JVP
#undef JX_RULE
#undef JX_LINEAR
#undef JX_STRUCTURAL
#undef JX_ZERO
#undef JX_EXPAND
#undef JX_FN
#undef JX_NO_RULE
#undef JX_CONTROL
  throw Error("internal: jvp of an op outside the op table");
}

} // namespace

std::vector<NodePtr> jvp(const std::vector<NodePtr> &outputs, const std::vector<NodePtr> &seeds,
                         const std::vector<NodePtr> &tangents) {
  // Tangent per visited node; nullptr is a symbolic zero.
  std::unordered_map<const ir::Node *, NodePtr> tangent;
  for (size_t i = 0; i < seeds.size(); ++i)
    tangent[seeds[i].get()] = tangents[i];
  // The inputs whose tangents a node's rule reads: not a custom rule's own output (input 0),
  // which the rule replaces, nor a custom_vjp's residuals.
  auto differentiated = [](const ir::Node &n) -> std::pair<size_t, size_t> {
    if (n.op == Op::CustomJvp) return {1, n.inputs.size()};
    if (n.op == Op::CustomVjp) return {1, 1 + size_t(n.attrs.at(1))};
    return {0, n.inputs.size()};
  };
  struct Frame {
    const NodePtr *node;
    std::pair<size_t, size_t> inputs;
    size_t next;
  };
  auto frame = [&](const NodePtr &n) {
    const auto inputs = differentiated(*n);
    return Frame{&n, inputs, inputs.first};
  };
  for (const NodePtr &root : outputs) {
    std::vector<Frame> stack{frame(root)};
    while (!stack.empty()) {
      Frame &top = stack.back();
      const NodePtr &n = *top.node;
      if (tangent.contains(n.get())) {
        stack.pop_back();
        continue;
      }
      // A realized value is a constant: nothing below it is a seed of this transform.
      const bool realized = n->realized() != nullptr;
      if (!realized && top.next < top.inputs.second) {
        stack.push_back(frame(n->inputs[top.next++]));
        continue;
      }
      NodePtr t;
      // Control ops are typed bool but carry their results' tangents.
      if (!realized && (is_inexact(n->dtype) || ir::op_kind(n->op) == ir::OpKind::Control)) {
        std::vector<NodePtr> ts(n->inputs.size());
        bool any = false;
        for (size_t i = top.inputs.first; i < top.inputs.second; ++i) {
          ts[i] = tangent.at(n->inputs[i].get());
          any = any || ts[i];
        }
        if (any) t = apply_rule(n, ts);
      }
      tangent.emplace(n.get(), std::move(t));
      stack.pop_back();
    }
  }
  std::vector<NodePtr> out;
  for (const NodePtr &root : outputs)
    out.push_back(tangent.at(root.get()));
  return out;
}

} // namespace jx::transforms
