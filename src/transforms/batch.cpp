// Batching rules by op kind: elementwise ops broadcast their unbatched operands, movement and
// reductions shift their axes by one, dot_general adds a batch dimension (or a free one when one
// side is unbatched). One post-order walk; nodes that no batched parameter reaches are kept.
#include "transforms/batch.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "ir/builder.h"
#include "ir/printer.h"
#include "transforms/custom.h"
#include "transforms/substitute.h"

namespace jx::transforms {

namespace {

using ir::NodePtr;
using ir::Op;

std::vector<int64_t> shifted(const std::vector<int64_t> &axes) {
  std::vector<int64_t> out;
  for (int64_t a : axes)
    out.push_back(a + 1);
  return out;
}

template <class T> std::vector<T> prepend(T first, const std::vector<T> &rest) {
  std::vector<T> out{first};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

class Batcher {
public:
  explicit Batcher(int64_t size) : size_(size) {}

  // x of an unbatched node as a batched one: broadcast along a new leading axis.
  NodePtr spread(const NodePtr &x) const {
    std::vector<int64_t> dims(x->shape.size());
    std::iota(dims.begin(), dims.end(), 1);
    return ir::broadcast(x, prepend(size_, x->shape), dims);
  }

  // n with its inputs replaced (`batched[i]`: input i has a leading batch axis).
  NodePtr rule(const ir::Node &n, std::vector<NodePtr> in, const std::vector<bool> &batched) {
    auto all_batched = [&] {
      for (size_t i = 0; i < in.size(); ++i)
        if (!batched[i]) in[i] = spread(in[i]);
    };
    const std::vector<int64_t> &a = n.attrs;
    const auto r = int64_t(n.inputs.empty() ? 0 : n.inputs[0]->shape.size());
    auto part = [&](int64_t k) {
      return std::vector<int64_t>(a.begin() + k * r, a.begin() + (k + 1) * r);
    };
    switch (ir::op_kind(n.op)) {
    case ir::OpKind::Leaf: break; // leaves have no inputs: never batched
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary: {
      all_batched();
      return ir::rebuild(n, std::move(in));
    }
    case ir::OpKind::Movement:
      switch (n.op) {
      case Op::Broadcast:
        return ir::broadcast(in[0], prepend(size_, n.shape), prepend<int64_t>(0, shifted(a)));
      case Op::Reshape: return ir::reshape(in[0], prepend(size_, n.shape));
      case Op::Transpose: return ir::transpose(in[0], prepend<int64_t>(0, shifted(a)));
      case Op::Slice:
        return ir::slice(in[0], prepend<int64_t>(0, part(0)), prepend(size_, part(1)),
                         prepend<int64_t>(1, part(2)));
      case Op::SliceUpdate:
        all_batched();
        return ir::slice_update(in[0], in[1], prepend<int64_t>(0, part(0)), prepend(size_, part(1)),
                                prepend<int64_t>(1, part(2)));
      case Op::Pad: {
        const std::vector<int64_t> lo = prepend<int64_t>(0, part(0)),
                                   hi = prepend<int64_t>(0, part(1));
        if (!batched[0]) in[0] = spread(in[0]);
        if (!batched[1]) return ir::pad(in[0], in[1], lo, hi);
        // A batched pad value: pad with zeros, then the value where the padding is (JAX's rule).
        const NodePtr &x = in[0];
        NodePtr zero = ir::literal(0, x->dtype, x->weak);
        NodePtr inside = ir::pad(ir::broadcast(ir::literal(1, DType::bool_, false), x->shape, {}),
                                 ir::literal(0, DType::bool_, false), lo, hi);
        NodePtr padded = ir::pad(x, zero, lo, hi);
        return ir::select(inside, padded, ir::broadcast(in[1], padded->shape, {0}));
      }
      case Op::Concatenate: all_batched(); return ir::concatenate(in, a[0] + 1);
      case Op::Take: return take_rule(n, std::move(in), batched);
      case Op::DynamicSlice: return dynamic_slice_rule(n, std::move(in), batched);
      case Op::DynamicUpdateSlice: return dynamic_update_slice_rule(n, std::move(in), batched);
      case Op::Diagonal: return ir::diagonal(in[0], a[0] + 1, a[1] + 1);
      default: break;
      }
      break;
    case ir::OpKind::Reduce:
      if (n.op == Op::ArgMax || n.op == Op::ArgMin) return ir::arg_reduce(n.op, in[0], a[0] + 1);
      return ir::reduce(n.op, in[0], shifted(a));
    case ir::OpKind::Contraction: return dot_general(n, in, batched);
    case ir::OpKind::Library:
      if (ir::is_scatter(n.op)) return scatter_rule(n, std::move(in), batched);
      all_batched();
      if (ir::is_linalg(n.op)) return ir::linalg(n.op, std::move(in), a[0]);
      if (n.op == Op::Sort) return ir::sort(in[0], a[0] + 1);
      if (n.op == Op::ArgSort) return ir::argsort(std::move(in), a[0] + 1);
      if (n.op == Op::Fft) return ir::fft(in[0], in[1], a[0] + 1, a[1] != 0);
      return ir::cumulative(n.op, in[0], a[0] + 1, a[1] != 0);
    case ir::OpKind::Marker: all_batched(); return custom_rule(n, std::move(in));
    case ir::OpKind::Control:
      if (n.op == Op::Result) {
        // A batched scan stacks its outputs along the scanned axis, then the batch axis.
        const ir::Node &control = *n.inputs[0];
        NodePtr r = ir::result(in[0], a[0]);
        return control.op == Op::Scan && a[0] >= control.attrs[0] ? move_axis(r, 1, 0) : r;
      }
      if (n.op == Op::Scan) return scan_rule(n, std::move(in), batched);
      if (n.op == Op::While) {
        all_batched();
        return while_rule(n, std::move(in));
      }
      return case_rule(n, std::move(in), batched);
    }
    throw Error(fmt::format("internal: no batching rule for {}", ir::op_name(n.op)));
  }

private:
  // Batched indices (b, i...) into lines of `extent` laid end to end: b extent + j, j counted
  // from the end when negative, then clamped; or, with `drop`, past every line when out of range.
  NodePtr flat_indices(const NodePtr &idx, int64_t extent, bool drop) const {
    auto c = [&](int64_t v) {
      return ir::broadcast(ir::literal_int(v, DType::int64, false), idx->shape, {});
    };
    const ir::IndexBounds j = ir::index_bounds(idx, extent);
    const NodePtr flat = ir::binary(
        Op::Add, ir::binary(Op::Mul, ir::iota(DType::int64, idx->shape, 0), c(extent)), j.clamped);
    return drop ? ir::select(j.inside, flat, c(size_ * extent)) : flat;
  }

  // x (b, n, rest...) with its batch and taken axis moved first and merged: (b n, rest...).
  NodePtr merged_lines(const NodePtr &x, int64_t axis) const {
    NodePtr lines = move_axis(x, axis, 1);
    Shape shape(lines->shape.begin() + 1, lines->shape.end());
    shape[0] *= size_;
    return ir::reshape(lines, shape);
  }

  // Batched indices read each example's own x: one take of the examples' lines end to end.
  NodePtr take_rule(const ir::Node &n, std::vector<NodePtr> in, const std::vector<bool> &batched) {
    const int64_t axis = n.attrs[0] + 1;
    const bool fill = n.attrs[1] != 0;
    if (!batched[1]) return ir::take(in[0], in[1], axis, fill);
    if (!batched[0]) in[0] = spread(in[0]);
    return batched_take(in[0], in[1], axis, fill);
  }

  // take of batched x (b, ...) at batched indices idx (b, i...) along `axis` of x.
  NodePtr batched_take(const NodePtr &x, const NodePtr &idx, int64_t axis, bool fill) const {
    const NodePtr out =
        ir::take(merged_lines(x, axis), flat_indices(idx, x->shape[size_t(axis)], fill), 0, fill);
    // (b, i..., pre..., post...) back to (b, pre..., i..., post...).
    const int64_t k = idx->ndim() - 1, pre = axis - 1;
    std::vector<int64_t> perm{0};
    for (int64_t d = 0; d < pre; ++d)
      perm.push_back(1 + k + d);
    for (int64_t d = 0; d < k; ++d)
      perm.push_back(1 + d);
    for (int64_t d = 1 + k + pre; d < out->ndim(); ++d)
      perm.push_back(d);
    return ir::transpose(out, perm);
  }

  // Unbatched starts slice every example alike (the batch axis whole); batched ones read each
  // example's window with a take per axis at its clamped start + iota (JAX's gather).
  NodePtr dynamic_slice_rule(const ir::Node &n, std::vector<NodePtr> in,
                             const std::vector<bool> &batched) {
    if (!batched[0]) in[0] = spread(in[0]);
    std::vector<NodePtr> starts(in.begin() + 1, in.end());
    if (std::find(batched.begin() + 1, batched.end(), true) == batched.end()) {
      starts.insert(starts.begin(), ir::literal_int(0, DType::int64, false));
      return ir::dynamic_slice(in[0], std::move(starts), prepend(size_, n.attrs));
    }
    NodePtr x = in[0];
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t size = n.attrs[k], extent = n.inputs[0]->shape[k];
      if (size == extent) continue; // the start clamps to 0
      const NodePtr idx = window(starts[k], batched[k + 1], extent - size, size);
      x = batched[k + 1] ? batched_take(x, idx, int64_t(k) + 1, false)
                         : ir::take(x, idx, int64_t(k) + 1, false);
    }
    return x;
  }

  // Unbatched starts update every example alike; batched ones select, at each position of x, the
  // update where it is inside its example's window (a take per axis reads it there).
  NodePtr dynamic_update_slice_rule(const ir::Node &, std::vector<NodePtr> in,
                                    const std::vector<bool> &batched) {
    for (size_t i : {size_t(0), size_t(1)})
      if (!batched[i]) in[i] = spread(in[i]);
    std::vector<NodePtr> starts(in.begin() + 2, in.end());
    if (std::find(batched.begin() + 2, batched.end(), true) == batched.end()) {
      starts.insert(starts.begin(), ir::literal_int(0, DType::int64, false));
      return ir::dynamic_update_slice(in[0], in[1], std::move(starts));
    }
    const NodePtr &x = in[0];
    NodePtr u = in[1], inside;
    if (u->size() == 0) return x;
    for (size_t k = 0; k < starts.size(); ++k) {
      const auto axis = int64_t(k) + 1;
      const int64_t len = u->shape[size_t(axis)], extent = x->shape[size_t(axis)];
      // d = j - clamped start along axis k, over (b, j) or (j).
      const NodePtr start = clamped(starts[k], extent - len);
      const Shape line = batched[k + 2] ? Shape{size_, extent} : Shape{extent};
      const NodePtr d = ir::binary(Op::Sub, ir::iota(DType::int64, line, int64_t(line.size()) - 1),
                                   batched[k + 2] ? ir::broadcast(start, line, {0})
                                                  : ir::broadcast(start, line, {}));
      auto c = [&](int64_t v) {
        return ir::broadcast(ir::literal_int(v, DType::int64, false), line, {});
      };
      NodePtr in_window =
          ir::binary(Op::And, ir::binary(Op::Ge, d, c(0)), ir::binary(Op::Lt, d, c(len)));
      in_window = batched[k + 2] ? ir::broadcast(in_window, x->shape, {0, axis})
                                 : ir::broadcast(in_window, x->shape, {axis});
      inside = inside ? ir::binary(Op::And, inside, in_window) : in_window;
      const NodePtr at = ir::select(ir::binary(Op::Lt, d, c(0)), c(0),
                                    ir::select(ir::binary(Op::Ge, d, c(len)), c(len - 1), d));
      u = batched[k + 2] ? batched_take(u, at, axis, false) : ir::take(u, at, axis, false);
    }
    return ir::select(inside, u, x);
  }

  // start clamped into [0, last], int64.
  static NodePtr clamped(const NodePtr &start, int64_t last) {
    auto c = [&](int64_t v) {
      return ir::broadcast(ir::literal_int(v, DType::int64, false), start->shape, {});
    };
    return ir::binary(Op::Min, ir::binary(Op::Max, start, c(0)), c(last));
  }

  // The positions a window of `size` reads from its start clamped into [0, last]: (size) or, for a
  // batched start (b), (b, size).
  NodePtr window(const NodePtr &start, bool batched, int64_t last, int64_t size) const {
    const Shape shape = batched ? Shape{size_, size} : Shape{size};
    const NodePtr offsets = ir::iota(DType::int64, shape, int64_t(shape.size()) - 1);
    return ir::binary(Op::Add,
                      ir::broadcast(clamped(start, last), shape,
                                    batched ? std::vector<int64_t>{0} : std::vector<int64_t>{}),
                      offsets);
  }

  // Batched indices scatter each example's updates into its own x: one scatter into the
  // examples' lines end to end (an index out of range stays dropped).
  NodePtr scatter_rule(const ir::Node &n, std::vector<NodePtr> in,
                       const std::vector<bool> &batched) {
    const int64_t axis = n.attrs[0] + 1;
    for (size_t i : {size_t(0), size_t(2)})
      if (!batched[i]) in[i] = spread(in[i]);
    if (!batched[1]) return ir::scatter(n.op, in[0], in[1], in[2], axis);
    const NodePtr &x = in[0], &idx = in[1], &updates = in[2];
    const int64_t k = idx->ndim() - 1, m = idx->size() / size_;
    // updates (b, pre..., i..., post...) as (b m, pre..., post...).
    std::vector<int64_t> perm{0};
    for (int64_t d = 0; d < k; ++d)
      perm.push_back(axis + d);
    for (int64_t d = 1; d < updates->ndim(); ++d)
      if (d < axis || d >= axis + k) perm.push_back(d);
    NodePtr rows = ir::transpose(updates, perm);
    Shape row_shape(rows->shape.begin() + k, rows->shape.end());
    row_shape[0] = size_ * m;
    rows = ir::reshape(rows, row_shape);
    const int64_t extent = x->shape[size_t(axis)];
    const NodePtr flat = ir::reshape(flat_indices(idx, extent, true), {size_ * m});
    const NodePtr out = ir::scatter(n.op, merged_lines(x, axis), flat, rows, 0);
    Shape lines = x->shape;
    lines.erase(lines.begin() + axis);
    lines.insert(lines.begin() + 1, extent);
    return move_axis(ir::reshape(out, lines), 1, axis);
  }

  // A region over batched params (those marked in `batched`, every one when it is empty; the
  // others keep their types), every output batched.
  ir::Region batch_region(const ir::Region &r, const std::vector<bool> &batched = {}) const {
    const int64_t trace = ir::new_trace_id();
    ir::Region out;
    Substitution unbatched;
    std::vector<NodePtr> old_batched, new_batched;
    for (size_t i = 0; i < r.params.size(); ++i) {
      const NodePtr &p = r.params[i];
      const bool is_batched = batched.empty() || batched[i];
      out.params.push_back(ir::parameter(
          p->attrs[0], p->dtype, is_batched ? prepend(size_, p->shape) : p->shape, trace, p->weak));
      if (is_batched) {
        old_batched.push_back(p);
        new_batched.push_back(out.params.back());
      } else {
        unbatched.emplace(p.get(), out.params.back());
      }
    }
    const std::vector<NodePtr> outputs =
        unbatched.empty() ? r.outputs : substitute(r.outputs, unbatched);
    for (const BatchedOutput &o : batch(outputs, old_batched, new_batched, size_))
      out.outputs.push_back(o.batched ? o.node : spread(o.node));
    return out;
  }

  // JAX's batched scan: every carry batched (a body may batch an unbatched one), batched xs with
  // the batch axis second (the scanned axis stays first), unbatched xs and consts as they are;
  // every output batched.
  NodePtr scan_rule(const ir::Node &n, std::vector<NodePtr> in, std::vector<bool> batched) const {
    const ir::Region &body = (*n.regions)[0];
    const auto carries = size_t(n.attrs[0]), xs = size_t(n.attrs[1]);
    for (size_t i = 0; i < carries; ++i)
      if (!batched[i]) {
        in[i] = spread(in[i]);
        batched[i] = true;
      }
    for (size_t i = carries; i < carries + xs; ++i)
      if (batched[i]) in[i] = move_axis(in[i], 0, 1);
    return ir::scan(std::move(in), n.attrs[0], n.attrs[1], n.attrs[2], n.attrs[3] != 0,
                    batch_region(body, batched));
  }

  // x with a per-example bool broadcast along x's other axes.
  static NodePtr per_row(const NodePtr &pred, const NodePtr &x) {
    return ir::broadcast(pred, x->shape, {0});
  }

  // JAX's batched while: every carry batched; the loop runs while any example's cond holds, and
  // the body keeps the carries of examples whose cond is false (select).
  NodePtr while_rule(const ir::Node &n, std::vector<NodePtr> in) const {
    const ir::Region cond = batch_region((*n.regions)[0]), body = batch_region((*n.regions)[1]);
    const NodePtr &pred = cond.outputs[0]; // bool[B]
    auto any = [](const NodePtr &p) {      // false over an empty batch
      return ir::reduce(Op::ReduceMax,
                        ir::pad(p, ir::literal_int(0, DType::bool_, false), {0}, {1}), {0});
    };
    ir::Region any_cond{cond.params, {any(pred)}};
    const NodePtr running = inlined(cond, body.params)[0];
    ir::Region masked{body.params, {}};
    for (size_t i = 0; i < body.outputs.size(); ++i)
      masked.outputs.push_back(
          ir::select(per_row(running, body.outputs[i]), body.outputs[i], body.params[i]));
    return ir::while_loop(std::move(in), n.attrs[0], std::move(any_cond), std::move(masked));
  }

  // An unbatched index: the same case over batched branches. A batched one (JAX's select_n):
  // every branch computed, each example's result selected by its clamped index, in a one-branch
  // case of the index and the operands.
  NodePtr case_rule(const ir::Node &n, std::vector<NodePtr> in,
                    const std::vector<bool> &batched) const {
    const ir::Regions &branches = *n.regions;
    NodePtr index = in[0];
    std::vector<NodePtr> operands;
    for (size_t i = 1; i < in.size(); ++i)
      operands.push_back(batched[i] ? in[i] : spread(in[i]));
    if (!batched[0]) {
      ir::Regions batched_branches;
      for (const ir::Region &b : branches)
        batched_branches.push_back(batch_region(b));
      return ir::case_(std::move(index), std::move(operands), std::move(batched_branches));
    }
    const int64_t trace = ir::new_trace_id();
    ir::Region all{{ir::parameter(0, DType::int32, index->shape, trace, false)}, {}};
    for (size_t i = 0; i < operands.size(); ++i)
      all.params.push_back(ir::parameter(int64_t(i + 1), operands[i]->dtype, operands[i]->shape,
                                         trace, operands[i]->weak));
    const std::vector<NodePtr> operand_params(all.params.begin() + 1, all.params.end());
    std::vector<std::vector<NodePtr>> results;
    for (const ir::Region &b : branches)
      results.push_back(inlined(batch_region(b), operand_params));
    auto scalar = [&](int64_t v) {
      return ir::broadcast(ir::literal_int(v, DType::int32, false), index->shape, {});
    };
    const NodePtr clamped = ir::binary(Op::Min, ir::binary(Op::Max, all.params[0], scalar(0)),
                                       scalar(int64_t(branches.size()) - 1));
    for (size_t k = 0; k < results[0].size(); ++k) {
      NodePtr chosen = results.back()[k];
      for (size_t b = branches.size() - 1; b-- > 0;)
        chosen = ir::select(per_row(ir::binary(Op::Eq, clamped, scalar(int64_t(b))), chosen),
                            results[b][k], chosen);
      all.outputs.push_back(chosen);
    }
    operands.insert(operands.begin(), index);
    return ir::case_(ir::literal_int(0, DType::int32, false), std::move(operands),
                     {std::move(all)});
  }

  // The marker over batched inputs, with the user's per-example rule batched (JAX vmaps
  // custom_jvp's rule and custom_vjp's bwd).
  NodePtr custom_rule(const ir::Node &n, std::vector<NodePtr> in) const {
    const int64_t size = size_;
    std::vector<int64_t> attrs = n.attrs;
    if (n.op == Op::CustomJvp) {
      const JvpRule &rule = jvp_rule(n.attrs.at(0));
      attrs[0] = register_jvp_rule(
          [&rule, size](const std::vector<NodePtr> &primals, const std::vector<NodePtr> &tangents) {
            std::vector<NodePtr> inputs = primals;
            inputs.insert(inputs.end(), tangents.begin(), tangents.end());
            return per_example(
                [&](const std::vector<NodePtr> &p) {
                  const auto half = p.begin() + std::ptrdiff_t(primals.size());
                  return std::vector{rule({p.begin(), half}, {half, p.end()})};
                },
                inputs, size)[0];
          });
    } else {
      const VjpRule &bwd = vjp_rule(n.attrs.at(0));
      attrs[0] =
          register_vjp_rule([&bwd, size](const std::vector<NodePtr> &residuals, const NodePtr &ct) {
            std::vector<NodePtr> inputs = residuals;
            inputs.push_back(ct);
            return per_example(
                [&](const std::vector<NodePtr> &p) {
                  return bwd({p.begin(), p.end() - 1}, p.back());
                },
                inputs, size);
          });
    }
    return ir::marker(n.op, std::move(in), std::move(attrs));
  }

  // f (a user's rule, written for one example) applied to batched nodes: traced on one
  // example's parameters, then batch() over them; every output batched.
  static std::vector<NodePtr>
  per_example(const std::function<std::vector<NodePtr>(const std::vector<NodePtr> &)> &f,
              const std::vector<NodePtr> &batched, int64_t size) {
    const int64_t trace = ir::new_trace_id();
    std::vector<NodePtr> params;
    for (const NodePtr &b : batched) {
      const Shape example(b->shape.begin() + 1, b->shape.end());
      params.push_back(ir::parameter(int64_t(params.size()), b->dtype, example, trace, b->weak));
    }
    std::vector<NodePtr> out;
    for (const BatchedOutput &o : batch(f(params), params, batched, size))
      out.push_back(o.batched ? o.node : Batcher(size).spread(o.node));
    return out;
  }

  // Both batched: a new leading batch dimension. One side batched: its batch axis is a free axis
  // of the product, moved to the front.
  NodePtr dot_general(const ir::Node &n, const std::vector<NodePtr> &in,
                      const std::vector<bool> &batched) const {
    ir::DotDims d = ir::dot_dims(n);
    const auto nb = int64_t(d.lhs_batch.size());
    auto side = [&](bool b, const std::vector<int64_t> &axes) { return b ? shifted(axes) : axes; };
    std::vector<int64_t> lb = side(batched[0], d.lhs_batch), rb = side(batched[1], d.rhs_batch),
                         lc = side(batched[0], d.lhs_contract),
                         rc = side(batched[1], d.rhs_contract);
    if (batched[0] && batched[1])
      return ir::dot_general(in[0], in[1], prepend<int64_t>(0, lb), prepend<int64_t>(0, rb), lc,
                             rc);
    NodePtr product = ir::dot_general(in[0], in[1], lb, rb, lc, rc);
    const auto lhs_free = int64_t(in[0]->shape.size()) - nb - int64_t(lc.size());
    // The batch axis is the first free axis of its side.
    return move_axis(product, batched[0] ? nb : nb + lhs_free, 0);
  }

  int64_t size_;
};

} // namespace

ir::NodePtr move_axis(const ir::NodePtr &x, int64_t from, int64_t to) {
  if (from == to) return x;
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < int64_t(x->shape.size()); ++i)
    if (i != from) perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return ir::transpose(x, perm);
}

std::vector<BatchedOutput> batch(const std::vector<ir::NodePtr> &outputs,
                                 const std::vector<ir::NodePtr> &params,
                                 const std::vector<ir::NodePtr> &batched, int64_t size) {
  // The batched form of each node that depends on a parameter; the others stay as they are.
  std::unordered_map<const ir::Node *, NodePtr> batched_of;
  for (size_t i = 0; i < params.size(); ++i)
    batched_of.emplace(params[i].get(), batched[i]);
  Batcher batcher(size);
  for (const ir::Node *n : ir::topological_order(outputs)) {
    if (n->realized() || batched_of.contains(n)) continue;
    std::vector<NodePtr> inputs;
    std::vector<bool> is_batched;
    for (const NodePtr &in : n->inputs) {
      const auto found = batched_of.find(in.get());
      is_batched.push_back(found != batched_of.end());
      inputs.push_back(is_batched.back() ? found->second : in);
    }
    if (std::find(is_batched.begin(), is_batched.end(), true) != is_batched.end())
      batched_of.emplace(n, batcher.rule(*n, std::move(inputs), is_batched));
  }
  std::vector<BatchedOutput> out;
  for (const NodePtr &root : outputs) {
    const auto found = batched_of.find(root.get());
    out.push_back(found == batched_of.end() ? BatchedOutput{root, false}
                                            : BatchedOutput{found->second, true});
  }
  return out;
}

} // namespace jx::transforms
