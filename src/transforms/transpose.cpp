// Transposition: a walk from the outputs' cotangents back to the linear inputs, in reverse
// topological order over the nodes that depend on them; each linear op's rule of
// ir/ops.def sends its cotangent to its linear inputs.
#include "transforms/transpose.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <functional>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"
#include "transforms/control.h"
#include "transforms/custom.h"
#include "transforms/dsl.h"
#include "transforms/linalg_rules.h"

namespace jx::transforms {

namespace {

using namespace dsl;

NodePtr zeros(const NodePtr &like) { return lit(0, like); }

// A cotangent for an input that a tangent graph never uses linearly: reaching it is a bug in a
// JVP rule (it applied a nonlinear op to a tangent).
[[noreturn]] void not_linear_in(const ir::Node &ans, size_t i) {
  throw Error(fmt::format("internal: {} is not linear in its input {}", ir::op_name(ans.op), i));
}

NodePtr not_linear(const ir::Node &ans, const NodePtr &, size_t i) { not_linear_in(ans, i); }

NodePtr convert_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  const NodePtr &x = ans.inputs[0];
  return convert(ct, x->dtype, x->weak);
}

// select(p, a, b): a gets ct where p holds, b elsewhere.
NodePtr select_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i == 0) not_linear_in(ans, i);
  const NodePtr &p = ans.inputs[0];
  return i == 1 ? select(p, ct, zeros(ct)) : select(p, zeros(ct), ct);
}

// Summed over the new axes and the stretched ones (size 1 in x), then x's shape again. New axes
// of size 1 are reshaped away, not summed (as XLA simplifies a reduction over unit axes).
NodePtr broadcast_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  const NodePtr &x = ans.inputs[0];
  std::vector<bool> kept(ans.shape.size(), false);
  for (size_t i = 0; i < ans.attrs.size(); ++i)
    kept[ans.attrs[i]] = x->shape[i] == ans.shape[ans.attrs[i]];
  std::vector<int64_t> summed;
  for (size_t a = 0; a < kept.size(); ++a)
    if (!kept[a] && ans.shape[a] != 1) summed.push_back(int64_t(a));
  return ir::reshape(summed.empty() ? ct : ir::reduce(Op::ReduceSum, ct, summed), x->shape);
}

NodePtr reshape_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  return ir::reshape(ct, ans.inputs[0]->shape);
}

NodePtr transpose_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  std::vector<int64_t> inverse(ans.attrs.size());
  for (size_t i = 0; i < ans.attrs.size(); ++i)
    inverse[ans.attrs[i]] = int64_t(i);
  return ir::transpose(ct, inverse);
}

// Slice attributes split into starts, limits, steps.
struct SliceBounds {
  std::vector<int64_t> starts, limits, steps;
};
SliceBounds slice_bounds(const ir::Node &n) {
  const auto r = std::ptrdiff_t(n.inputs[0]->shape.size());
  auto at = [&](std::ptrdiff_t k) {
    return std::vector<int64_t>(n.attrs.begin() + k * r, n.attrs.begin() + (k + 1) * r);
  };
  return {at(0), at(1), at(2)};
}

NodePtr slice_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  SliceBounds b = slice_bounds(ans);
  return ir::slice_update(zeros(ans.inputs[0]), ct, b.starts, b.limits, b.steps);
}

// pad(x, v): x gets the interior of ct, v the sum of the rest (JAX's _pad_transpose).
NodePtr pad_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const NodePtr &x = ans.inputs[0];
  const size_t r = x->shape.size();
  std::vector<int64_t> starts(ans.attrs.begin(), ans.attrs.begin() + std::ptrdiff_t(r)), limits,
      steps(r, 1);
  for (size_t a = 0; a < r; ++a)
    limits.push_back(starts[a] + x->shape[a]);
  NodePtr interior = ir::slice(ct, starts, limits, steps);
  if (i == 0) return interior;
  std::vector<int64_t> all_ct(r), all_x(r);
  std::iota(all_ct.begin(), all_ct.end(), 0);
  std::iota(all_x.begin(), all_x.end(), 0);
  return sub(ir::reduce(Op::ReduceSum, ct, all_ct), ir::reduce(Op::ReduceSum, interior, all_x));
}

NodePtr concatenate_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const int64_t axis = ans.attrs[0];
  int64_t start = 0;
  for (size_t k = 0; k < i; ++k)
    start += ans.inputs[k]->shape[axis];
  return ir::slice_in_dim(ct, axis, start, start + ans.inputs[i]->shape[axis]);
}

// slice_update(x, u): x gets ct with the updated region zeroed, u that region.
NodePtr slice_update_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  SliceBounds b = slice_bounds(ans);
  if (i == 0) return ir::slice_update(ct, zeros(ans.inputs[1]), b.starts, b.limits, b.steps);
  return ir::slice(ct, b.starts, b.limits, b.steps);
}

// ct written at the (clamped) starts of zeros, as XLA transposes dynamic-slice.
NodePtr dynamic_slice_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i != 0) not_linear_in(ans, i);
  return ir::dynamic_update_slice(zeros(ans.inputs[0]), ct,
                                  {ans.inputs.begin() + 1, ans.inputs.end()});
}

// dynamic_update_slice(x, u): x gets ct with the updated window zeroed, u that window.
NodePtr dynamic_update_slice_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const std::vector<NodePtr> starts(ans.inputs.begin() + 2, ans.inputs.end());
  if (i == 0) return ir::dynamic_update_slice(ct, zeros(ans.inputs[1]), starts);
  if (i == 1) return ir::dynamic_slice(ct, starts, ans.inputs[1]->shape);
  not_linear_in(ans, i);
}

// ct (x's other axes, then the diagonal) spread on the diagonal of the two axes, zeros elsewhere.
NodePtr diagonal_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  const NodePtr &x = ans.inputs[0];
  const int64_t a1 = ans.attrs[0], a2 = ans.attrs[1];
  const auto m = int64_t(ct->shape.size()) - 1; // the diagonal's axis in ct
  Shape square = ct->shape;
  square.push_back(ct->shape[m]);
  std::vector<int64_t> dims(ct->shape.size());
  std::iota(dims.begin(), dims.end(), 0);
  NodePtr spread = ir::broadcast(ct, square, dims);
  NodePtr on_diagonal =
      eq(ir::iota(DType::int64, square, m), ir::iota(DType::int64, square, m + 1));
  NodePtr masked = select(on_diagonal, spread, zeros(spread));
  std::vector<int64_t> perm;
  for (int64_t i = 0, other = 0; i < int64_t(x->shape.size()); ++i)
    perm.push_back(i == a1 ? m : i == a2 ? m + 1 : other++);
  return ir::transpose(masked, perm);
}

// The indices a take read at: counted from the end when negative, then clamped (take's default)
// or, for a filling take, left as they are (a scatter drops those out of range).
NodePtr read_indices(const ir::Node &ans) {
  const NodePtr &indices = ans.inputs[1];
  if (ans.attrs[1]) return indices;
  return ir::index_bounds(indices, ans.inputs[0]->shape[size_t(ans.attrs[0])]).clamped;
}

// ct added back at the places take read (repeated places accumulate: JAX's scatter-add).
NodePtr take_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i != 0) not_linear_in(ans, i);
  return ir::scatter(Op::ScatterAdd, zeros(ans.inputs[0]), read_indices(ans), ct, ans.attrs[0]);
}

// x's cotangent is ct; each update's, ct at its place (0 for a dropped one).
NodePtr scatter_add_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i == 1) not_linear_in(ans, i);
  if (i == 0) return ct;
  return ir::take(ct, ans.inputs[1], ans.attrs[0], true);
}

// x's cotangent is ct where no update landed; an update's, ct at its place if it is the one that
// stayed there (the last of its index), found by scattering the updates' own positions (JAX's
// scatter rule for repeated indices).
NodePtr scatter_set_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const NodePtr &x = ans.inputs[0], &indices = ans.inputs[1], &updates = ans.inputs[2];
  const int64_t axis = ans.attrs[0];
  if (i == 1) not_linear_in(ans, i);
  if (i == 0) return ir::scatter(Op::ScatterSet, ct, indices, zeros(updates), axis);
  // Each update's index position (over all of the indices' axes), along the updates' lanes.
  const int64_t k = indices->ndim();
  std::vector<int64_t> dims(static_cast<size_t>(k));
  std::iota(dims.begin(), dims.end(), axis);
  const NodePtr position =
      ir::broadcast(ir::reshape(ir::iota(DType::int64, {indices->size()}, 0), indices->shape),
                    updates->shape, dims);
  const NodePtr none = ir::broadcast(ir::literal_int(-1, DType::int64, false), x->shape, {});
  const NodePtr winner = ir::scatter(Op::ScatterSet, none, indices, position, axis);
  const NodePtr stayed = ir::binary(Op::Eq, ir::take(winner, indices, axis, true), position);
  return ir::select(stayed, ir::take(ct, indices, axis, true), zeros(updates));
}

// x's place times its updates' product: a diagonal map, its own transpose.
NodePtr scatter_mul_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  if (i != 0) not_linear_in(ans, i);
  return ir::scatter(Op::ScatterMul, ct, ans.inputs[1], ans.inputs[2], ans.attrs[0]);
}

NodePtr cumsum_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  return ir::cumulative(Op::CumSum, ct, ans.attrs[0], ans.attrs[1] == 0);
}

// fft(re + i im) with a complex cotangent: g = fft(ct) (the matrix is symmetric), then complex's
// transpose (JAX's: real(g) for re, -imag(g) for im).
NodePtr fft_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const NodePtr g = ir::fft(ir::real(ct), ir::imag(ct), ans.attrs[0], ans.attrs[1] != 0);
  return i == 0 ? ir::real(g) : ir::unary(Op::Neg, ir::imag(g));
}

NodePtr reduce_sum_transpose(const ir::Node &ans, const NodePtr &ct, size_t) {
  const NodePtr &x = ans.inputs[0];
  return ir::broadcast(ct, x->shape, ir::other_axes(x->ndim(), ans.attrs));
}

// JAX's _dot_general_transpose_lhs: ct contracted with the other operand over its free axes,
// batched over the batch axes, then permuted into the operand's axis order. `swap`: the operand
// is the rhs, whose free axes come last in ct.
NodePtr dot_operand_transpose(const NodePtr &ct, const NodePtr &x, const NodePtr &y,
                              const std::vector<int64_t> &x_batch,
                              const std::vector<int64_t> &y_batch,
                              const std::vector<int64_t> &x_contract,
                              const std::vector<int64_t> &y_contract, bool swap) {
  const std::vector<int64_t> x_kept = ir::other_axes(x->ndim(), x_batch, x_contract);
  const std::vector<int64_t> y_kept = ir::other_axes(y->ndim(), y_batch, y_contract);
  const auto nb = int64_t(x_batch.size());
  std::vector<int64_t> ct_batch(x_batch.size()), ct_y(y_kept.size());
  std::iota(ct_batch.begin(), ct_batch.end(), 0);
  std::iota(ct_y.begin(), ct_y.end(), swap ? nb : nb + int64_t(x_kept.size()));
  // x's contracting axes in the order of y's, as the product lists y's free axes.
  std::vector<int64_t> order(y_contract.size()), contract_by_y;
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return y_contract[a] < y_contract[b]; });
  for (int64_t k : order)
    contract_by_y.push_back(x_contract[k]);
  // ct · y has axes batch, x_kept, contract_by_y; y · ct has batch, contract_by_y, x_kept. Take
  // the one already in x's axis order when there is one (a matmul's weight gradient: y · ct), so
  // that no transpose copies the result.
  std::vector<int64_t> source = x_batch, swapped = x_batch;
  source.insert(source.end(), x_kept.begin(), x_kept.end());
  source.insert(source.end(), contract_by_y.begin(), contract_by_y.end());
  swapped.insert(swapped.end(), contract_by_y.begin(), contract_by_y.end());
  swapped.insert(swapped.end(), x_kept.begin(), x_kept.end());
  NodePtr product;
  if (!std::is_sorted(source.begin(), source.end()) &&
      std::is_sorted(swapped.begin(), swapped.end())) {
    product = ir::dot_general(y, ct, y_batch, ct_batch, y_kept, ct_y);
    source = swapped;
  } else {
    product = ir::dot_general(ct, y, ct_batch, y_batch, ct_y, y_kept);
  }
  std::vector<int64_t> perm(source.size());
  for (size_t i = 0; i < source.size(); ++i)
    perm[source[i]] = int64_t(i);
  return ir::transpose(product, perm);
}

NodePtr dot_general_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const ir::DotDims d = ir::dot_dims(ans);
  const NodePtr &l = ans.inputs[0], &r = ans.inputs[1];
  if (i == 0)
    return dot_operand_transpose(ct, l, r, d.lhs_batch, d.rhs_batch, d.lhs_contract, d.rhs_contract,
                                 false);
  return dot_operand_transpose(ct, r, l, d.rhs_batch, d.lhs_batch, d.rhs_contract, d.lhs_contract,
                               true);
}

// "float64[3]": JAX's str_short of an aval, for the user-facing errors below.
std::string jax_type(const ir::Node &n) {
  return fmt::format("{}[{}]", dtype_name(n.dtype), fmt::join(n.shape, ","));
}

// The user's bwd on fwd's residuals and ct: the cotangent of the argument whose tangent is input
// i (hash-consing makes the other inputs' calls build the same nodes). JAX's checks of its
// result; a float cotangent of another float dtype is converted, as JAX accepts it.
NodePtr custom_lin_transpose(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const CustomVjpInputs parts = custom_vjp_inputs(ans);
  const std::vector<NodePtr> cts = vjp_rule(ans.attrs.at(0))(parts.residuals, ct);
  if (cts.size() != parts.args.size())
    throw TypeError(fmt::format(
        "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
        "as the args tuple of the primal function, and in particular must produce a tuple of "
        "length equal to the number of arguments to the primal function, but got bwd output "
        "structure of {} elements for primal input structure of {} elements.",
        cts.size(), parts.args.size()));
  for (size_t k = 0; k < cts.size(); ++k) {
    const ir::Node &want = *parts.args[k], &got = *cts[k];
    if (is_inexact(want.dtype) && (got.shape != want.shape || !is_inexact(got.dtype)))
      throw ValueError(fmt::format(
          "Custom VJP bwd rule must produce an output with the same type as the args tuple of "
          "the primal function, but at output[{}] the bwd rule produced an output of type {} "
          "corresponding to an input of type {}{}",
          k, jax_type(got), jax_type(want),
          got.shape != want.shape ? ", so the shapes do not match" : ""));
  }
  const NodePtr &x = cts[i - 1];
  return convert(x, ans.inputs[i]->dtype, ans.inputs[i]->weak);
}

// The cotangent that ans sends to its input i, which is linear.
NodePtr transpose_rule(const ir::Node &ans, const NodePtr &ct, size_t i) {
  const NodePtr x = ans.inputs.empty() ? nullptr : ans.inputs[0];
  const NodePtr y = ans.inputs.size() < 2 ? nullptr : ans.inputs[1];
  using Term = std::function<NodePtr()>;
  auto pick = [&](std::initializer_list<Term> terms) { return std::data(terms)[i](); };
  auto nonlinear = [&]() -> NodePtr { not_linear_in(ans, i); };
#define JX_CT(e) [&]() -> NodePtr { return e; }
#define JX_CTS_1(a) JX_CT(a)
#define JX_CTS_2(a, b) JX_CT(a), JX_CT(b)
#define JX_PICK(_1, _2, n, ...) n
#define T(...) JX_PICK(__VA_ARGS__, JX_CTS_2, JX_CTS_1)(__VA_ARGS__)
  // clang-format off
#define JX_RULE(terms) break;
#define JX_LINEAR(terms, transposes) return pick({transposes});
#define JX_STRUCTURAL(transpose) return transpose(ans, ct, i);
#define JX_ZERO break;
#define JX_EXPAND(fn) break;
#define JX_FN(jvp, transpose) return transpose(ans, ct, i);
#define JX_NO_RULE break;
#define JX_CONTROL break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative) case Op::name: derivative
  // clang-format on
  switch (ans.op) { // the ops that are not linear break: below
#include "ir/ops.def"
  }
#undef JX_OP
#undef JX_CT
#undef JX_CTS_1
#undef JX_CTS_2
#undef JX_PICK
#undef T
#undef JX_RULE
#undef JX_LINEAR
#undef JX_STRUCTURAL
#undef JX_ZERO
#undef JX_EXPAND
#undef JX_FN
#undef JX_NO_RULE
#undef JX_CONTROL
  not_linear_in(ans, i);
}

} // namespace

std::vector<NodePtr> transpose(const std::vector<NodePtr> &linear_outputs,
                               const std::vector<NodePtr> &linear_inputs,
                               const std::vector<NodePtr> &cotangents) {
  std::vector<NodePtr> present;
  for (const NodePtr &out : linear_outputs)
    if (out) present.push_back(out);
  const std::vector<const ir::Node *> order = ir::topological_order(present);
  std::unordered_set<const ir::Node *> linear;
  for (const NodePtr &in : linear_inputs)
    linear.insert(in.get());
  for (const ir::Node *n : order)
    for (const NodePtr &in : n->inputs)
      if (linear.contains(in.get())) {
        linear.insert(n);
        break;
      }
  std::unordered_map<const ir::Node *, NodePtr> ct;
  auto add_into = [](NodePtr &slot, NodePtr c) { slot = slot ? add(slot, c) : std::move(c); };
  auto accumulate = [&](const ir::Node *n, NodePtr c) { add_into(ct[n], std::move(c)); };
  for (size_t i = 0; i < linear_outputs.size(); ++i)
    if (linear_outputs[i] && linear.contains(linear_outputs[i].get()))
      accumulate(linear_outputs[i].get(), cotangents[i]);
  std::unordered_set<const ir::Node *> seeds;
  for (const NodePtr &in : linear_inputs)
    seeds.insert(in.get());
  // A control op's results' cotangents, gathered until the op (which precedes them) is reached.
  std::unordered_map<const ir::Node *, std::vector<NodePtr>> result_cts;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const ir::Node *n = *it;
    if (seeds.contains(n) || !linear.contains(n)) continue;
    if (ir::op_kind(n->op) == ir::OpKind::Control && n->op != Op::Result) {
      auto gathered = result_cts.find(n);
      if (gathered == result_cts.end()) continue;
      std::vector<bool> linear_inputs_of;
      for (const NodePtr &in : n->inputs)
        linear_inputs_of.push_back(linear.contains(in.get()));
      const std::vector<NodePtr> in_cts = control_transpose(*n, gathered->second, linear_inputs_of);
      result_cts.erase(gathered);
      for (size_t i = 0; i < n->inputs.size(); ++i)
        if (in_cts[i]) accumulate(n->inputs[i].get(), in_cts[i]);
      continue;
    }
    auto found = ct.find(n);
    if (found == ct.end()) continue;
    const NodePtr c = std::move(found->second);
    ct.erase(found);
    if (n->op == Op::Result) {
      std::vector<NodePtr> &slots = result_cts[n->inputs[0].get()];
      slots.resize(size_t(ir::result_count(*n->inputs[0])));
      add_into(slots[size_t(n->attrs[0])], c);
      continue;
    }
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (linear.contains(n->inputs[i].get()))
        accumulate(n->inputs[i].get(), transpose_rule(*n, c, i));
  }
  std::vector<NodePtr> out;
  for (const NodePtr &in : linear_inputs) {
    auto found = ct.find(in.get());
    out.push_back(found == ct.end() ? nullptr : convert(found->second, in->dtype, in->weak));
  }
  return out;
}

} // namespace jx::transforms
