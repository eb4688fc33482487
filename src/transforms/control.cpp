// Control-flow derivatives: JVPs as ops over primals and tangents together (JAX's _while_loop_jvp,
// _cond_jvp, _scan_jvp), transposes of the linear part (JAX's _cond_transpose, _scan_transpose
// after _scan_partial_eval; a scan's residuals are its known carries, saved per step, and the
// backward scan recomputes the rest of the body from them).
#include "transforms/control.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"
#include "transforms/jvp.h"
#include "transforms/substitute.h"
#include "transforms/transpose.h"

namespace jx::transforms {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::Region;

NodePtr zeros(DType dtype, bool weak, const Shape &shape) {
  return ir::broadcast(ir::literal(0, dtype, weak), shape, {});
}
NodePtr zeros_like(const Node &x) { return zeros(x.dtype, x.weak, x.shape); }

// x in like's dtype and weak type: a region's outputs must match their carries and branches.
NodePtr typed_as(const NodePtr &x, const Node &like) {
  return ir::convert(x, like.dtype, like.weak);
}

// Params of a new trace typed as `like`, at positions 0, 1, ...
std::vector<NodePtr> params_like(const std::vector<NodePtr> &like) {
  const int64_t trace = ir::new_trace_id();
  std::vector<NodePtr> out;
  for (const NodePtr &x : like)
    out.push_back(ir::parameter(int64_t(out.size()), x->dtype, x->shape, trace, x->weak));
  return out;
}

std::vector<NodePtr> slice(const std::vector<NodePtr> &v, size_t from, size_t to) {
  return {v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(to)};
}

std::vector<NodePtr> pick(const std::vector<NodePtr> &v, const std::vector<size_t> &at) {
  std::vector<NodePtr> out;
  for (size_t i : at)
    out.push_back(v[i]);
  return out;
}

void append(std::vector<NodePtr> &to, const std::vector<NodePtr> &more) {
  to.insert(to.end(), more.begin(), more.end());
}

// r's outputs, then their tangents (zeros where none), over `primals` standing for r's params,
// when param seeded[i] has tangent tangents[i].
std::vector<NodePtr> region_jvp(const Region &r, const std::vector<NodePtr> &primals,
                                const std::vector<size_t> &seeded,
                                const std::vector<NodePtr> &tangents) {
  std::vector<NodePtr> seeds;
  for (size_t i : seeded)
    seeds.push_back(r.params[i]);
  const std::vector<NodePtr> ts = jvp(r.outputs, seeds, tangents);
  std::vector<NodePtr> all = r.outputs;
  for (size_t i = 0; i < ts.size(); ++i)
    all.push_back(ts[i] ? typed_as(ts[i], *r.outputs[i]) : zeros_like(*r.outputs[i]));
  Substitution map;
  for (size_t i = 0; i < r.params.size(); ++i)
    map.emplace(r.params[i].get(), primals[i]);
  return substitute(all, map);
}

// The op's inputs and region params laid out as JAX's JVPs lay them: each group of inputs (a
// range of params), then the tangents of those of its params that have one.
struct JvpLayout {
  std::vector<NodePtr> inputs, like; // the new op's inputs; its region's param types
  std::vector<size_t> primal_at, tangent_at, seeded; // new param positions; seeded old params

  // Params [from, to) of `params` (inputs `in`, of the same count), then tangents: for every
  // param with `all_tangents` (zeros where ts has none), else for the float ones ts reaches.
  void group(const Node &op, const std::vector<NodePtr> &params, size_t first_input, size_t from,
             size_t to, const std::vector<NodePtr> &ts, bool all_tangents) {
    for (size_t i = from; i < to; ++i) {
      primal_at.push_back(like.size());
      inputs.push_back(op.inputs[first_input + i]);
      like.push_back(params[i]);
    }
    for (size_t i = from; i < to; ++i) {
      const NodePtr &in = op.inputs[first_input + i], &t = ts[first_input + i];
      const bool has = t && is_inexact(in->dtype);
      if (!has && !all_tangents) continue;
      if (is_inexact(in->dtype)) {
        seeded.push_back(i);
        tangent_at.push_back(like.size());
      }
      inputs.push_back(has ? typed_as(t, *in) : zeros_like(*in));
      like.push_back(params[i]);
    }
  }

  // `r` (over the old params) as a region over the new ones: its outputs, then their tangents.
  Region jvp_of(const Region &r) const {
    Region out{params_like(like), {}};
    out.outputs = region_jvp(r, pick(out.params, primal_at), seeded, pick(out.params, tangent_at));
    return out;
  }
};

// lax.cond / switch: the case over the operands and their tangents; each branch gives its
// results, then their tangents.
NodePtr case_jvp(const Node &op, const std::vector<NodePtr> &ts) {
  const ir::Regions &branches = *op.regions;
  JvpLayout layout;
  layout.group(op, branches[0].params, 1, 0, branches[0].params.size(), ts, false);
  ir::Regions jvps;
  for (const Region &b : branches)
    jvps.push_back(layout.jvp_of(b));
  return ir::case_(op.inputs[0], std::move(layout.inputs), std::move(jvps));
}

// A while loop carrying tangents beside its carries (all of them: a zero tangent can become
// nonzero in the body); the predicate reads the primal carries only.
NodePtr while_jvp(const Node &op, const std::vector<NodePtr> &ts) {
  const Region &cond = (*op.regions)[0], &body = (*op.regions)[1];
  const auto carries = size_t(op.attrs[0]);
  JvpLayout layout;
  layout.group(op, body.params, 0, 0, carries, ts, true);
  layout.group(op, body.params, 0, carries, body.params.size(), ts, false);
  Region jvp_cond{params_like(layout.like), {}};
  jvp_cond.outputs = inlined(cond, pick(jvp_cond.params, layout.primal_at));
  Region jvp_body = layout.jvp_of(body);
  // Carries, then their tangents: the body's outputs are in that order already.
  return ir::while_loop(std::move(layout.inputs), int64_t(2 * carries), std::move(jvp_cond),
                        std::move(jvp_body));
}

// A scan with tangent carries (all), tangent xs and tangent consts (where they have one); its
// outputs: carries, their tangents, ys, their tangents.
NodePtr scan_jvp(const Node &op, const std::vector<NodePtr> &ts) {
  const Region &body = (*op.regions)[0];
  const auto carries = size_t(op.attrs[0]), xs = size_t(op.attrs[1]);
  JvpLayout layout;
  layout.group(op, body.params, 0, 0, carries, ts, true);
  const size_t xs_first = layout.inputs.size();
  layout.group(op, body.params, 0, carries, carries + xs, ts, false);
  const size_t new_xs = layout.inputs.size() - xs_first;
  layout.group(op, body.params, 0, carries + xs, body.params.size(), ts, false);
  Region r = layout.jvp_of(body);
  const size_t n = body.outputs.size();
  // region_jvp gives [carries, ys, their tangents]; a scan's carries come first.
  std::vector<NodePtr> outputs = slice(r.outputs, 0, carries);
  append(outputs, slice(r.outputs, n, n + carries));
  append(outputs, slice(r.outputs, carries, n));
  append(outputs, slice(r.outputs, n + carries, 2 * n));
  r.outputs = std::move(outputs);
  return ir::scan(std::move(layout.inputs), int64_t(2 * carries), int64_t(new_xs), op.attrs[2],
                  op.attrs[3] != 0, std::move(r));
}

// Where the tangent of result i of `op` is among the results of its JVP.
int64_t tangent_result(const Node &op, int64_t i) {
  const int64_t n = ir::result_count(op);
  return op.op == Op::Scan && i < op.attrs[0] ? op.attrs[0] + i : n + i;
}

// Which of r's outputs depend on a param marked in `marked`.
std::vector<bool> depends_on(const Region &r, const std::vector<bool> &marked) {
  std::unordered_set<const Node *> reached;
  for (size_t i = 0; i < r.params.size(); ++i)
    if (marked[i]) reached.insert(r.params[i].get());
  for (const Node *n : ir::topological_order(r.outputs))
    for (const NodePtr &in : n->inputs)
      if (reached.contains(in.get())) {
        reached.insert(n);
        break;
      }
  std::vector<bool> out;
  for (const NodePtr &o : r.outputs)
    out.push_back(reached.contains(o.get()));
  return out;
}

// The transpose of r, linear in the params marked `linear`, for cotangents of the outputs listed
// in `cotangent_of`: a region over r's other params (in order), then one cotangent per such
// output, giving the cotangent of each linear param in order (zeros where none reaches it).
Region transpose_region(const Region &r, const std::vector<bool> &linear,
                        const std::vector<size_t> &cotangent_of) {
  std::vector<NodePtr> like, linear_params, outputs;
  for (size_t i = 0; i < r.params.size(); ++i)
    (linear[i] ? linear_params : like).push_back(r.params[i]);
  const size_t constants = like.size();
  for (size_t j : cotangent_of) {
    like.push_back(r.outputs[j]);
    outputs.push_back(r.outputs[j]);
  }
  Region t{params_like(like), {}};
  Substitution map;
  for (size_t i = 0, k = 0; i < r.params.size(); ++i)
    if (!linear[i]) map.emplace(r.params[i].get(), t.params[k++]);
  std::vector<NodePtr> cts =
      transpose(outputs, linear_params, slice(t.params, constants, like.size()));
  for (size_t i = 0; i < cts.size(); ++i)
    if (!cts[i]) cts[i] = zeros_like(*linear_params[i]);
  t.outputs = substitute(cts, map);
  return t;
}

// The branch the primal took, transposed: a case over the index, the operands that are not
// linear and the results' cotangents.
std::vector<NodePtr> case_transpose(const Node &op, const std::vector<NodePtr> &cts,
                                    const std::vector<bool> &linear) {
  const ir::Regions &branches = *op.regions;
  const std::vector<bool> linear_operands(linear.begin() + 1, linear.end());
  std::vector<size_t> reached;
  for (size_t r = 0; r < cts.size(); ++r)
    if (cts[r]) reached.push_back(r);
  std::vector<NodePtr> inputs, out(op.inputs.size());
  for (size_t i = 0; i < linear_operands.size(); ++i)
    if (!linear_operands[i]) inputs.push_back(op.inputs[1 + i]);
  for (size_t r : reached)
    inputs.push_back(typed_as(cts[r], *branches[0].outputs[r]));
  ir::Regions transposed;
  for (const Region &b : branches)
    transposed.push_back(transpose_region(b, linear_operands, reached));
  const NodePtr t = ir::case_(op.inputs[0], std::move(inputs), std::move(transposed));
  for (size_t i = 0, k = 0; i < linear_operands.size(); ++i)
    if (linear_operands[i]) out[1 + i] = ir::result(t, int64_t(k++));
  return out;
}

bool is_zero(const Node &n) {
  if (n.op == Op::Broadcast) return is_zero(*n.inputs[0]);
  return n.op == Op::Literal && n.fvalue == 0 && n.ivalue == 0;
}

// Indices i in [from, to) where want == marked[i].
std::vector<size_t> where(const std::vector<bool> &marked, size_t from, size_t to, bool want) {
  std::vector<size_t> out;
  for (size_t i = from; i < to; ++i)
    if (marked[i] == want) out.push_back(i);
  return out;
}

// A scan split as JAX's partial evaluation splits it: carries that a linear input reaches
// (through the body, to a fixed point) are unknown, the others known. A residual scan runs the
// known carries forward and stacks each step's; the transposed scan runs the other way over
// them, the unknown carries' cotangents carried, the linear consts' summed in extra carries, the
// linear xs' stacked.
std::vector<NodePtr> scan_transpose(const Node &op, const std::vector<NodePtr> &cts,
                                    const std::vector<bool> &linear) {
  const Region &body = (*op.regions)[0];
  const auto nc = size_t(op.attrs[0]), nx = size_t(op.attrs[1]), n = op.inputs.size(),
             ny = body.outputs.size() - nc;
  const int64_t length = op.attrs[2];
  const bool reverse = op.attrs[3] != 0;
  std::vector<bool> unknown = linear;
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<bool> reached = depends_on(body, unknown);
    for (size_t i = 0; i < nc; ++i)
      if (reached[i] && !unknown[i]) unknown[i] = changed = true;
  }
  const std::vector<bool> reached = depends_on(body, unknown);
  const std::vector<size_t> uc = where(unknown, 0, nc, true), kc = where(unknown, 0, nc, false),
                            ux = where(unknown, nc, nc + nx, true),
                            kx = where(unknown, nc, nc + nx, false),
                            uk = where(unknown, nc + nx, n, true),
                            kk = where(unknown, nc + nx, n, false),
                            uy = where(reached, nc, nc + ny, true);
  std::vector<NodePtr> out(n);
  if (uc.empty() && ux.empty() && uk.empty()) return out;
  for (size_t i : uc)
    if (!linear[i] && !is_zero(*op.inputs[i]))
      throw Error("internal: a scan carry that a linear value reaches starts from a nonzero "
                  "constant");
  // The residual scan: known carries, xs and consts; it stacks each step's known carries.
  std::vector<NodePtr> residuals;
  if (!kc.empty()) {
    std::vector<size_t> known = kc;
    known.insert(known.end(), kx.begin(), kx.end());
    known.insert(known.end(), kk.begin(), kk.end());
    Region r{params_like(pick(body.params, known)), {}};
    Substitution map;
    for (size_t i = 0; i < known.size(); ++i)
      map.emplace(body.params[known[i]].get(), r.params[i]);
    std::vector<NodePtr> outputs = pick(body.outputs, kc);
    append(outputs, pick(body.params, kc));
    r.outputs = substitute(outputs, map);
    const NodePtr forward = ir::scan(pick(op.inputs, known), int64_t(kc.size()), int64_t(kx.size()),
                                     length, reverse, std::move(r));
    for (size_t i = 0; i < kc.size(); ++i)
      residuals.push_back(ir::result(forward, int64_t(kc.size() + i)));
  }
  // The transposed scan: carries [ct of unknown carries, sums for unknown consts], xs [known
  // carries, known xs, ct of unknown ys], consts [known consts].
  std::vector<NodePtr> inputs, like;
  for (size_t i : uc) {
    inputs.push_back(cts[i] ? typed_as(cts[i], *op.inputs[i]) : zeros_like(*op.inputs[i]));
    like.push_back(body.params[i]);
  }
  for (size_t k : uk) {
    inputs.push_back(zeros_like(*op.inputs[k]));
    like.push_back(body.params[k]);
  }
  append(inputs, residuals);
  append(like, pick(body.params, kc));
  append(inputs, pick(op.inputs, kx));
  append(like, pick(body.params, kx));
  for (size_t y : uy) {
    const Node &row = *body.outputs[y];
    Shape stacked = row.shape;
    stacked.insert(stacked.begin(), length);
    inputs.push_back(cts[y] ? typed_as(cts[y], row) : zeros(row.dtype, row.weak, stacked));
    like.push_back(body.outputs[y]);
  }
  append(inputs, pick(op.inputs, kk));
  append(like, pick(body.params, kk));
  Region t{params_like(like), {}};
  const size_t carried = uc.size() + uk.size();
  auto params = [&](size_t from, size_t count) { return slice(t.params, from, from + count); };
  const std::vector<NodePtr> ct_carries = params(0, uc.size()), sums = params(uc.size(), uk.size()),
                             known_carries = params(carried, kc.size()),
                             known_xs = params(carried + kc.size(), kx.size()),
                             ct_ys = params(carried + kc.size() + kx.size(), uy.size()),
                             known_consts = params(t.params.size() - kk.size(), kk.size());
  std::vector<size_t> cotangent_of = uc;
  cotangent_of.insert(cotangent_of.end(), uy.begin(), uy.end());
  std::vector<NodePtr> inner = known_carries;
  append(inner, known_xs);
  append(inner, known_consts);
  append(inner, ct_carries);
  append(inner, ct_ys);
  const std::vector<NodePtr> body_cts =
      inlined(transpose_region(body, unknown, cotangent_of), inner);
  // body_cts: unknown carries', xs' and consts' cotangents, in param order.
  t.outputs = slice(body_cts, 0, uc.size());
  for (size_t k = 0; k < uk.size(); ++k)
    t.outputs.push_back(ir::binary(Op::Add, sums[k], body_cts[uc.size() + ux.size() + k]));
  append(t.outputs, slice(body_cts, uc.size(), uc.size() + ux.size()));
  const NodePtr backward =
      ir::scan(std::move(inputs), int64_t(carried), int64_t(kc.size() + kx.size() + uy.size()),
               length, !reverse, std::move(t));
  for (size_t k = 0; k < uc.size(); ++k)
    if (linear[uc[k]]) out[uc[k]] = ir::result(backward, int64_t(k));
  for (size_t k = 0; k < uk.size(); ++k)
    out[uk[k]] = ir::result(backward, int64_t(uc.size() + k));
  for (size_t k = 0; k < ux.size(); ++k)
    out[ux[k]] = ir::result(backward, int64_t(carried + k));
  return out;
}

} // namespace

NodePtr control_jvp(const NodePtr &ans, const std::vector<NodePtr> &ts) {
  switch (ans->op) {
  case Op::Result:
    if (!ts[0] || !is_inexact(ans->dtype)) return nullptr;
    return ir::result(ts[0], tangent_result(*ans->inputs[0], ans->attrs[0]));
  case Op::While: return while_jvp(*ans, ts);
  case Op::Case: return case_jvp(*ans, ts);
  case Op::Scan: return scan_jvp(*ans, ts);
  default: throw Error(fmt::format("internal: {} is not a control op", ir::op_name(ans->op)));
  }
}

std::vector<NodePtr> control_transpose(const Node &op, const std::vector<NodePtr> &cts,
                                       const std::vector<bool> &linear) {
  switch (op.op) {
  case Op::While:
    throw ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.");
  case Op::Case: return case_transpose(op, cts, linear);
  case Op::Scan: return scan_transpose(op, cts, linear);
  default: throw Error(fmt::format("internal: {} is not a control op", ir::op_name(op.op)));
  }
}

} // namespace jx::transforms
