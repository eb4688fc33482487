// KernelPlan helpers: the loop extent, the literal buffer, and the structural key used by the
// kernel cache.
#include "passes/kernel_plan.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"

namespace jx::passes {

const Shape &KernelPlan::loop_shape() const {
  if (sequential_loop) return loop_split;
  return updates_operand ? roots[0]->inputs[1]->shape : roots[0]->shape;
}

int64_t KernelPlan::outer_extent() const {
  const Shape &shape = loop_shape();
  return shape.empty() ? 1 : shape[0];
}

namespace {

// Whether a and b compute the same value: the same node, or the same op on equal attributes over
// inputs that are (to a small depth), with literals compared by value and conversions that only
// change weakness skipped (a window's index and lax's start are traced apart).
// `outer` maps a loop body's params to the loop's operands they stand for.
bool same_value(const ir::Node *a, const ir::Node *b, const NodeMap &outer, int depth = 8) {
  auto skip = [&](const ir::Node *n) {
    for (;;) {
      if (auto it = outer.find(n); it != outer.end())
        n = it->second;
      else if (n->op == ir::Op::Convert && n->dtype == n->inputs[0]->dtype && !n->realized())
        n = n->inputs[0].get();
      else
        return n;
    }
  };
  a = skip(a);
  b = skip(b);
  if (a == b) return true;
  if (a->op != b->op || a->dtype != b->dtype || a->shape != b->shape || depth == 0) return false;
  if (a->op == ir::Op::Literal) return a->fvalue == b->fvalue && a->ivalue == b->ivalue;
  if (a->realized() || b->realized() || a->regions || b->regions || a->attrs != b->attrs ||
      a->inputs.size() != b->inputs.size() || a->inputs.empty() || a->op == ir::Op::Parameter)
    return false;
  for (size_t i = 0; i < a->inputs.size(); ++i)
    if (!same_value(a->inputs[i].get(), b->inputs[i].get(), outer, depth - 1)) return false;
  return true;
}

// A dynamic start without the clamp into [0, hi] that the op applies anyway.
const ir::Node *unclamped(const ir::Node *start, int64_t hi, const NodeMap &outer) {
  if (auto it = outer.find(start); it != outer.end()) start = it->second;
  auto literal = [](const ir::Node &n, int64_t v) {
    return n.op == ir::Op::Literal && n.ivalue == v;
  };
  if (start->op == ir::Op::Min && literal(*start->inputs[1], hi) &&
      start->inputs[0]->op == ir::Op::Max && literal(*start->inputs[0]->inputs[1], 0))
    return start->inputs[0]->inputs[0].get();
  return start;
}

} // namespace

bool update_in_place(const KernelPlan &plan, const NodeMap &outer) {
  if (plan.roots.size() != 1) return false;
  const ir::Node &root = *plan.roots[0];
  const bool dynamic = root.op == ir::Op::DynamicUpdateSlice;
  if (!dynamic && root.op != ir::Op::SliceUpdate) return false;
  const ir::Node *x = root.inputs[0].get();
  if (std::find(plan.inputs.begin(), plan.inputs.end(), x) == plan.inputs.end()) return false;
  const ir::Node &update = *root.inputs[1];
  // A read of x at the element the update overwrites: the same window of it.
  auto same_window = [&](const ir::Node &n) {
    if (n.inputs.empty() || n.inputs[0].get() != x || n.shape != update.shape) return false;
    if (!dynamic) return n.op == ir::Op::Slice && n.attrs == root.attrs;
    if (n.op != ir::Op::DynamicSlice) return false;
    for (size_t a = 0; a < x->shape.size(); ++a) {
      const int64_t hi = x->shape[a] - update.shape[a];
      if (!same_value(unclamped(n.inputs[1 + a].get(), hi, outer),
                      unclamped(root.inputs[2 + a].get(), hi, outer), outer))
        return false;
    }
    return true;
  };
  // Whether n, computed inline, reads x anywhere but through same_window reached by elementwise
  // ops and reshapes (which keep each element's row-major position, so the window's element p
  // is still read for the update's element p), and whether it reads x at all.
  auto keeps_positions = [](const ir::Node &n) {
    return ir::is_elementwise(n.op) || n.op == ir::Op::Reshape ||
           (n.op == ir::Op::Broadcast && n.size() == n.inputs[0]->size() &&
            std::is_sorted(n.attrs.begin(), n.attrs.end()));
  };
  std::unordered_map<const ir::Node *, std::pair<bool, bool>> memo; // reads x, only in place
  std::function<std::pair<bool, bool>(const ir::Node *)> reads = [&](const ir::Node *n) {
    if (n == x) return std::pair{true, false};
    if (n->realized() || n->op == ir::Op::Parameter || n->op == ir::Op::Constant ||
        std::find(plan.inputs.begin(), plan.inputs.end(), n) != plan.inputs.end())
      return std::pair{false, true};
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    std::pair<bool, bool> r{false, true};
    if (same_window(*n)) {
      r = {true, true};
      for (size_t i = 1; i < n->inputs.size(); ++i)
        if (reads(n->inputs[i].get()).first) r.second = false;
    } else {
      for (const ir::NodePtr &in : n->inputs) {
        const auto [any, in_place] = reads(in.get());
        r.first = r.first || any;
        r.second = r.second && in_place && (!any || keeps_positions(*n));
      }
    }
    return memo[n] = r;
  };
  for (size_t i = 2; i < root.inputs.size(); ++i)
    if (reads(root.inputs[i].get()).first) return false;
  // One element: the kernel reads all it needs, x anywhere included, before its only store
  // (a[i, j] = (a[i, j] - a[i, :j] . a[j, :j]) / a[j, j] in a factorization's inner loop).
  if (shape_size(update.shape) == 1) return true;
  return reads(&update).second;
}

bool accumulates_rows(const ir::Node &root) {
  if (root.shape.empty()) return false;
  // Reducing an input's contiguous last axis is better done innermost, into one register.
  if (root.op == ir::Op::DotGeneral) {
    const ir::DotDims d = ir::dot_dims(root);
    auto contracts_last = [](const std::vector<int64_t> &axes, int64_t rank) {
      return std::find(axes.begin(), axes.end(), rank - 1) != axes.end();
    };
    return !contracts_last(d.lhs_contract, root.inputs[0]->ndim()) &&
           !contracts_last(d.rhs_contract, root.inputs[1]->ndim());
  }
  if (op_kind(root.op) != ir::OpKind::Reduce || root.op == ir::Op::ArgMax ||
      root.op == ir::Op::ArgMin)
    return false;
  return root.attrs.back() != root.inputs[0]->ndim() - 1;
}

bool is_update(const ir::Node &n) {
  return (n.op == ir::Op::DynamicUpdateSlice || n.op == ir::Op::SliceUpdate) && !n.realized();
}

const ir::Node *updated_operand(const KernelPlan &plan) {
  const ir::Node &root = *plan.roots[0];
  if (plan.sequential_loop) return root.inputs[0]->inputs[size_t(root.attrs[0])].get();
  return root.inputs[0].get();
}

const ir::Region &loop_body(const ir::Node &loop) {
  return (*loop.regions)[loop.op == ir::Op::While ? 1 : 0];
}

namespace {
// Elements of updates a sequential loop's step computes into stack temporaries before it stores
// them, at most.
constexpr int64_t max_staged_elements = 1 << 13;
// Elements of a row a step writes, at least, for a loop split along axis 0 to run row by row: a
// vector's worth (fewer, each row would be a chain of dependent scalar steps).
constexpr int64_t min_row_part = 8;
// Elements a loop split step by step over its parts writes in all, at least: below, its parts'
// short vector loops and the pool's wake-up cost more than a second thread gains (syrk's inner
// loop, 150 steps of a 200-element row, called 200 times: 3.9 -> 7-9.9 ms split by columns).
constexpr int64_t min_split_work = int64_t(1) << 18;
} // namespace

std::vector<size_t> sequential_loop_carries(const ir::Node &loop) {
  const ir::Region &body = loop_body(loop);
  std::vector<size_t> changed;
  for (size_t k = 0; k < size_t(loop.attrs[0]); ++k)
    if (!body.params[k]->shape.empty() && body.outputs[k] != body.params[k]) changed.push_back(k);
  return changed;
}

std::vector<const ir::Node *> sequential_loop_updates(const ir::Node &loop, size_t k) {
  const ir::Region &body = loop_body(loop);
  std::vector<const ir::Node *> chain;
  for (const ir::Node *u = body.outputs[k].get(); u != body.params[k].get();
       u = u->inputs[0].get()) {
    if (!is_update(*u)) return {};
    chain.push_back(u);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

bool replaces_carry(const ir::Node &loop, size_t k) {
  const ir::Region &body = loop_body(loop);
  return body.outputs[k] != body.params[k] && sequential_loop_updates(loop, k).empty();
}

std::vector<const ir::Node *> sequential_loop_writes(const ir::Node &loop, size_t k) {
  if (replaces_carry(loop, k)) return {loop_body(loop).outputs[k].get()};
  std::vector<const ir::Node *> values;
  for (const ir::Node *u : sequential_loop_updates(loop, k))
    values.push_back(u->inputs[1].get());
  return values;
}

bool sequential_loop_staged(const ir::Node &loop) {
  const std::vector<size_t> changed = sequential_loop_carries(loop);
  if (sequential_loop_order(loop).empty()) return true;
  return std::any_of(changed.begin(), changed.end(),
                     [&](size_t k) { return !sequential_update_in_place(loop, k); });
}

bool sequential_update_in_place(const ir::Node &loop, size_t k) {
  const ir::Region &body = loop_body(loop);
  if (sequential_loop_updates(loop, k).size() != 1) return false;
  NodeMap captured;
  for (size_t i = size_t(loop.attrs[0]); i < loop.inputs.size(); ++i)
    captured[body.params[i].get()] = loop.inputs[i].get();
  // The carries stored before k are read from their buffers, not recomputed from k's old value
  // (jacobi_1d's A update reads the B its step wrote from A).
  KernelPlan plan{{body.outputs[k]}, {body.params[k].get()}};
  for (size_t j : sequential_loop_order(loop)) {
    if (j == k) break;
    plan.inputs.push_back(body.outputs[j].get());
  }
  return update_in_place(plan, captured);
}

std::vector<size_t> sequential_loop_order(const ir::Node &loop) {
  const ir::Region &body = loop_body(loop);
  const std::vector<size_t> changed = sequential_loop_carries(loop);
  const auto carries = size_t(loop.attrs[0]);
  // before[a][b]: carry changed[a] must be stored before changed[b].
  std::vector<std::vector<bool>> before(changed.size(), std::vector<bool>(changed.size()));
  for (size_t a = 0; a < changed.size(); ++a) {
    std::unordered_set<const ir::Node *> seen;
    std::vector<const ir::Node *> stack{body.outputs[changed[a]].get()};
    while (!stack.empty()) {
      const ir::Node *n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || is_region_buffer(*n)) continue;
      bool leaf = false;
      for (size_t b = 0; b < changed.size(); ++b) {
        if (b == a) continue;
        if (n == body.params[changed[b]].get()) before[a][b] = true; // reads b as it began
        if (n == body.outputs[changed[b]].get()) {                   // as it ends: b's buffer
          before[b][a] = true;
          leaf = true;
        }
      }
      // The 0-d carries' next values are computed before any store.
      for (size_t k = 0; k < carries; ++k)
        leaf = leaf || (body.params[k]->shape.empty() && n == body.outputs[k].get() &&
                        n != body.params[k].get());
      if (leaf || n->op == ir::Op::Parameter) continue;
      for (const ir::NodePtr &in : n->inputs)
        stack.push_back(in.get());
    }
  }
  // Kahn's order; none if the constraints form a cycle.
  std::vector<size_t> order, waiting(changed.size(), 0);
  for (size_t a = 0; a < changed.size(); ++a)
    for (size_t b = 0; b < changed.size(); ++b)
      waiting[b] += before[a][b];
  std::vector<bool> done(changed.size(), false);
  while (order.size() < changed.size()) {
    size_t next = changed.size();
    for (size_t b = 0; b < changed.size() && next == changed.size(); ++b)
      if (!done[b] && waiting[b] == 0) next = b;
    if (next == changed.size()) return {};
    done[next] = true;
    order.push_back(changed[next]);
    for (size_t b = 0; b < changed.size(); ++b)
      waiting[b] -= before[next][b];
  }
  return order;
}

namespace {
// The extent of the changed carries' axis `axis` if a loop's steps split along it, else 0
// (sequential_loop_split).
int64_t split_extent(const ir::Node &loop, size_t axis) {
  const ir::Region &body = loop_body(loop);
  const std::vector<size_t> changed = sequential_loop_carries(loop);
  if (changed.empty() || size_t(body.params[changed[0]]->ndim()) <= axis) return 0;
  const int64_t extent = body.params[changed[0]]->shape[axis];
  if (extent < 2) return 0;
  for (size_t k : changed) {
    const Shape &shape = body.params[k]->shape;
    if (shape.size() <= axis || shape[axis] != extent) return 0;
    for (const ir::Node *v : sequential_loop_writes(loop, k))
      if (v->shape[axis] != extent) return 0;
  }
  // Per node, the axis the split axis is at (-1: it reads no changed carry); a node that mixes
  // positions along it breaks the split.
  std::unordered_map<const ir::Node *, int64_t> at;
  bool split = true;
  for (const ir::Region &r : *loop.regions)
    for (size_t k : changed)
      at[r.params[k].get()] = int64_t(axis);
  // Where n keeps each position along the split axis, given its inputs' axes: its axis, or -1.
  auto keeps = [&](const ir::Node &n) -> int64_t {
    const auto full = [&](int64_t q) {
      return q >= 0 && q < n.ndim() && n.shape[size_t(q)] == extent;
    };
    const int64_t rank = n.ndim();
    int64_t p = -1; // the axis along which the inputs that read the carries hold it
    for (const ir::NodePtr &in : n.inputs)
      if (const int64_t q = at[in.get()]; q >= 0) {
        if (p >= 0 && q != p) return -1;
        p = q;
      }
    switch (op_kind(n.op)) {
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
      for (const ir::NodePtr &in : n.inputs)
        if (at[in.get()] >= 0 && in->shape != n.shape) return -1;
      return full(p) ? p : -1;
    case ir::OpKind::Reduce: {
      if (std::find(n.attrs.begin(), n.attrs.end(), p) != n.attrs.end()) return -1;
      const int64_t q =
          p - std::count_if(n.attrs.begin(), n.attrs.end(), [&](int64_t a) { return a < p; });
      return full(q) ? q : -1;
    }
    default: break;
    }
    const ir::Node &x = *n.inputs[0];
    switch (n.op) {
    case ir::Op::Broadcast: return full(n.attrs[size_t(p)]) ? n.attrs[size_t(p)] : -1;
    case ir::Op::Transpose: {
      const int64_t q = std::find(n.attrs.begin(), n.attrs.end(), p) - n.attrs.begin();
      return full(q) ? q : -1;
    }
    case ir::Op::Reshape: {
      // The output axis of the same extent and the same elements after it (row-major).
      int64_t after = 1;
      for (int64_t a = p + 1; a < x.ndim(); ++a)
        after *= x.shape[size_t(a)];
      int64_t out_after = 1;
      for (int64_t q = rank - 1; q >= 0; out_after *= n.shape[size_t(q)], --q)
        if (out_after == after && full(q)) return q;
      return -1;
    }
    case ir::Op::DynamicSlice:
    case ir::Op::DynamicUpdateSlice: return full(p) ? p : -1; // whole along it: at start 0
    case ir::Op::Slice:
    case ir::Op::SliceUpdate:
      return full(p) && n.attrs[size_t(p)] == 0 && n.attrs[size_t(2 * rank + p)] == 1 ? p : -1;
    default: return -1;
    }
  };
  std::function<int64_t(const ir::Node *)> visit = [&](const ir::Node *n) -> int64_t {
    if (auto it = at.find(n); it != at.end()) return it->second;
    bool reads = false;
    for (const ir::NodePtr &in : n->inputs)
      reads = visit(in.get()) >= 0 || reads;
    // Once a node breaks the split, the answer is no: what reads it is not looked at.
    const int64_t q = reads && split ? keeps(*n) : -1;
    if (reads && q < 0) split = false;
    // An update's update that reads the carries is written whole along the split axis.
    if (q >= 0 && is_update(*n) && at[n->inputs[1].get()] >= 0 &&
        n->inputs[1]->shape[size_t(q)] != extent)
      split = false;
    return at[n] = q;
  };
  for (const ir::Region &r : *loop.regions)
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      const int64_t q = visit(r.outputs[i].get());
      // Every part's steps count alike: 0-d carries and the condition read no array carry.
      if (q >= 0 && (r.outputs[i]->shape.empty() || &r != &body)) split = false;
    }
  return split ? extent : 0;
}
} // namespace

std::optional<LoopSplit> sequential_loop_split(const ir::Node &loop) {
  const std::vector<size_t> changed = sequential_loop_carries(loop);
  if (changed.empty()) return std::nullopt;
  for (size_t axis = 0; axis < size_t(loop_body(loop).params[changed[0]]->ndim()); ++axis)
    if (const int64_t extent = split_extent(loop, axis)) return LoopSplit{axis, extent};
  return std::nullopt;
}

int64_t sequential_loop_written(const ir::Node &loop) {
  int64_t written = 0;
  for (size_t k : sequential_loop_carries(loop))
    for (const ir::Node *v : sequential_loop_writes(loop, k))
      written += v->size();
  return written;
}

bool runs_row_by_row(const ir::Node &loop, const LoopSplit &split) {
  if (split.axis != 0) return false;
  const int64_t written = sequential_loop_written(loop);
  return written / split.extent >= min_row_part ||
         (sequential_loop_staged(loop) && written > max_staged_elements);
}

bool worth_splitting(const ir::Node &loop, const LoopSplit &split) {
  if (runs_row_by_row(loop, split) || loop.op == ir::Op::While) return true;
  return loop.attrs[2] * sequential_loop_written(loop) >= min_split_work;
}

namespace {
// Whether n computes a reduction or contraction short of the region's params.
bool reads_reduction(const ir::Node &n, const std::vector<ir::NodePtr> &params) {
  std::unordered_set<const ir::Node *> seen;
  std::vector<const ir::Node *> stack{&n};
  while (!stack.empty()) {
    const ir::Node *m = stack.back();
    stack.pop_back();
    if (!seen.insert(m).second || is_region_buffer(*m) ||
        std::any_of(params.begin(), params.end(),
                    [&](const ir::NodePtr &p) { return p.get() == m; }))
      continue;
    const ir::OpKind kind = op_kind(m->op);
    if (kind == ir::OpKind::Reduce || kind == ir::OpKind::Contraction) return true;
    for (const ir::NodePtr &in : m->inputs)
      stack.push_back(in.get());
  }
  return false;
}
} // namespace

std::string sequential_loop_veto(const ir::Node &loop) {
  if (loop.op == ir::Op::Scan && loop.attrs[1] != 0) return "it scans arrays";
  if (loop.op != ir::Op::Scan && loop.op != ir::Op::While) return "not a loop";
  const ir::Region &body = loop_body(loop);
  const auto carries = size_t(loop.attrs[0]);
  if (body.outputs.size() != carries) return "it stacks outputs";
  const std::vector<size_t> changed = sequential_loop_carries(loop);
  if (changed.empty()) return "no array carry changes";
  const std::optional<LoopSplit> split = sequential_loop_split(loop);
  const int64_t rows = split ? split->extent : 0;
  // A carry replaced whole, where the loop splits and the new value holds no reduction (computed
  // element by element, a reduction would run once per element).
  for (size_t k : changed)
    if (replaces_carry(loop, k) && (rows == 0 || reads_reduction(*body.outputs[k], body.params)))
      return "an array carry changes other than by updates";
  const int64_t written = sequential_loop_written(loop);
  if (rows == 0 && written > runtime::min_chunk_elements)
    return "its updates are large enough for threads and split along no axis";
  // Row by row, a step's temporaries hold one row's part; otherwise all of it.
  const int64_t staged = split && runs_row_by_row(loop, *split) ? written / rows : written;
  if (sequential_loop_staged(loop) && staged > max_staged_elements)
    return changed.size() > 1 ? "it updates several carries by more than a stack holds"
                              : "its update reads the carry where it does not write";
  // What the steps compute, short of the params and the buffers of its own: inline code.
  std::unordered_set<const ir::Node *> seen;
  std::vector<const ir::Node *> stack;
  for (const ir::Region &r : *loop.regions)
    for (const ir::NodePtr &out : r.outputs)
      stack.push_back(out.get());
  while (!stack.empty()) {
    const ir::Node *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || is_region_buffer(*n)) continue;
    if (std::any_of(body.params.begin(), body.params.end(),
                    [&](const ir::NodePtr &p) { return p.get() == n; }) ||
        (loop.op == ir::Op::While &&
         std::any_of((*loop.regions)[0].params.begin(), (*loop.regions)[0].params.end(),
                     [&](const ir::NodePtr &p) { return p.get() == n; })))
      continue;
    const ir::OpKind kind = op_kind(n->op);
    int64_t work = 0;
    if (kind == ir::OpKind::Reduce) work = n->inputs[0]->size();
    if (kind == ir::OpKind::Contraction) {
      work = n->size();
      for (int64_t axis : ir::dot_dims(*n).lhs_contract)
        work *= n->inputs[0]->shape[size_t(axis)];
    }
    // A reduction a kernel of its own would accumulate by rows: inline, one element at a time,
    // it would sum in another order than the loop run as a program does.
    if (n->op == ir::Op::Parameter || n->op == ir::Op::RandomUniform ||
        kind == ir::OpKind::Control || kind == ir::OpKind::Library || kind == ir::OpKind::Marker ||
        work > runtime::min_chunk_elements || (work > 0 && accumulates_rows(*n)))
      return fmt::format("its body computes {} ({}{})", ir::op_name(n->op),
                         n->realized() ? "realized " : "", ir::type_str(*n));
    for (const ir::NodePtr &in : n->inputs)
      stack.push_back(in.get());
  }
  return "";
}

namespace {
// What a node computed inline reads: its inputs, then the outputs of the regions of a scan that
// runs inside the kernel (whose params are leaves).
std::vector<const ir::Node *> inline_operands(const ir::Node &n) {
  std::vector<const ir::Node *> operands;
  for (const ir::NodePtr &in : n.inputs)
    operands.push_back(in.get());
  if (n.regions)
    for (const ir::Region &r : *n.regions)
      for (const ir::NodePtr &out : r.outputs)
        operands.push_back(out.get());
  return operands;
}

// Calls f once on each node the plan computes inline: its roots and what they read short of its
// inputs, depth first from the roots (and into the regions of scans it runs, unless not).
template <class F> void each_inline_node(const KernelPlan &plan, F &&f, bool regions = true) {
  std::unordered_set<const ir::Node *> seen(plan.inputs.begin(), plan.inputs.end());
  std::vector<const ir::Node *> stack;
  for (const ir::NodePtr &root : plan.roots)
    if (seen.insert(root.get()).second) stack.push_back(root.get());
  while (!stack.empty()) {
    const ir::Node *n = stack.back();
    stack.pop_back();
    f(n);
    for (const ir::Node *in : inline_operands(*n))
      if ((regions || std::any_of(n->inputs.begin(), n->inputs.end(),
                                  [&](const ir::NodePtr &x) { return x.get() == in; })) &&
          seen.insert(in).second)
        stack.push_back(in);
  }
}
} // namespace

bool sequential_loop_writes_over_init(const KernelPlan &plan) {
  const ir::Node *init = updated_operand(plan);
  size_t reads = 0;
  each_inline_node(plan, [&](const ir::Node *n) {
    reads += size_t(std::count_if(n->inputs.begin(), n->inputs.end(),
                                  [&](const ir::NodePtr &in) { return in.get() == init; }));
  });
  return reads == 1;
}

size_t KernelPlan::inline_node_count() const {
  size_t count = 0;
  each_inline_node(*this, [&](const ir::Node *) { ++count; });
  return count;
}

std::vector<const ir::Node *> KernelPlan::inline_nodes() const {
  std::vector<const ir::Node *> nodes;
  each_inline_node(*this, [&](const ir::Node *n) { nodes.push_back(n); });
  return nodes;
}

namespace {
// A literal whose value chooses the instruction: an integer divisor (a division by 2 is a shift,
// by 1000 a multiply, by a value from memory a 40-cycle idiv), a shift amount, an exponent.
const ir::Node *shaping_literal(const ir::Node &n) {
  const bool integer_division =
      (n.op == ir::Op::FloorDiv || n.op == ir::Op::Rem) && !is_inexact(n.dtype);
  const bool shaped = integer_division || n.op == ir::Op::ShiftLeft || n.op == ir::Op::ShiftRight ||
                      n.op == ir::Op::Pow;
  return shaped ? ir::splat_literal(*n.inputs[1]) : nullptr;
}
} // namespace

// Literals are compiled in as constants (the key holds their values) where the value chooses
// the instruction, and everywhere in a scan's body: a shift by 1 or a mask in a loop's chain of
// steps folds into its instruction. The others are read from the literal buffer, so a changed
// constant reuses the code.
void KernelPlan::collect_literals() {
  std::unordered_set<const ir::Node *> compiled_in;
  each_inline_node(*this, [&](const ir::Node *n) {
    if (const ir::Node *lit = shaping_literal(*n)) compiled_in.insert(lit);
  });
  literals.clear();
  each_inline_node(
      *this,
      [&](const ir::Node *n) {
        if (n->op == ir::Op::Literal && !compiled_in.count(n)) literals.push_back(n);
      },
      false);
}

std::vector<uint64_t> KernelPlan::literal_values() const {
  std::vector<uint64_t> values;
  for (const ir::Node *n : literals)
    values.push_back(is_floating(n->dtype) ? std::bit_cast<uint64_t>(n->fvalue)
                                           : uint64_t(n->ivalue));
  return values;
}

std::string KernelPlan::structural_key() const {
  std::unordered_map<const ir::Node *, size_t> param, literal, id;
  // A region's params by the region's number (in the order the walk enters them) and position.
  std::unordered_map<const ir::Node *, std::pair<size_t, size_t>> region_param;
  size_t regions_entered = 0;
  for (size_t i = 0; i < inputs.size(); ++i)
    param[inputs[i]] = i;
  for (size_t i = 0; i < literals.size(); ++i)
    literal[literals[i]] = i;
  // Post-order walk from the roots that stops at parameters (a region's too).
  std::vector<const ir::Node *> order;
  std::unordered_set<const ir::Node *> visited;
  std::vector<std::pair<const ir::Node *, std::vector<const ir::Node *>>> stack;
  auto enter = [&](const ir::Node *n) {
    if (n->regions)
      for (const ir::Region &r : *n->regions) {
        for (size_t k = 0; k < r.params.size(); ++k)
          region_param[r.params[k].get()] = {regions_entered, k};
        ++regions_entered;
      }
    std::vector<const ir::Node *> operands = inline_operands(*n);
    std::reverse(operands.begin(), operands.end());
    stack.push_back({n, std::move(operands)});
  };
  for (auto root = roots.rbegin(); root != roots.rend(); ++root)
    if (visited.insert(root->get()).second) enter(root->get());
  while (!stack.empty()) {
    auto &[n, operands] = stack.back();
    if (!operands.empty()) {
      const ir::Node *in = operands.back();
      operands.pop_back();
      if (!param.count(in) && !region_param.count(in) && visited.insert(in).second) enter(in);
      continue;
    }
    id[n] = order.size();
    order.push_back(n);
    stack.pop_back();
  }
  std::string key = fmt::format("box:{};", boxed_axes);
  if (stream_outputs) key += "stream;";
  if (updates_operand) key += "update;";
  if (!loop_split.empty())
    key += fmt::format("split:{}@{}{};", loop_split[0], loop_split_axis,
                       loop_row_by_row ? ",rows" : "");
  if (sequential_loop) key += "sequential;";
  for (const ir::Node *in : inputs)
    key += fmt::format("p:{};", ir::type_str(*in));
  for (const ir::Node *n : order) {
    // Literal values live in the literal buffer: only their position and type shape the code;
    // those compiled in (a scan's body's) by their values.
    if (auto it = literal.find(n); it != literal.end()) {
      key += fmt::format("lit{}:{}|", it->second, ir::type_str(*n));
      continue;
    }
    if (n->op == ir::Op::Literal) {
      key += fmt::format("const{:x},{}:{}|", std::bit_cast<uint64_t>(n->fvalue), n->ivalue,
                         ir::type_str(*n));
      continue;
    }
    std::vector<std::string> args;
    for (const ir::Node *in : inline_operands(*n))
      args.push_back(param.count(in)          ? fmt::format("p{}", param.at(in))
                     : region_param.count(in) ? fmt::format("r{}.{}", region_param.at(in).first,
                                                            region_param.at(in).second)
                                              : fmt::format("%{}", id.at(in)));
    key += fmt::format("{}({})[{}]{}|", ir::op_name(n->op), fmt::join(args, ","),
                       fmt::join(n->attrs, ","), ir::type_str(*n));
  }
  for (const ir::NodePtr &root : roots)
    key += fmt::format("out:%{};", id.at(root.get()));
  for (size_t k = 0; k < input_windows.size(); ++k)
    if (input_windows[k]) key += fmt::format("win{}:{};", k, fmt::join(*input_windows[k], ","));
  if (output_window) key += fmt::format("win:{};", fmt::join(*output_window, ","));
  return key;
}

Shape scan_carry_shape(const ir::Node &scan) {
  for (int64_t k = 0; k < scan.attrs[0]; ++k)
    if (!scan.inputs[size_t(k)]->shape.empty()) return scan.inputs[size_t(k)]->shape;
  return {};
}

bool is_region_buffer(const ir::Node &n) {
  return (n.realized() && n.op != ir::Op::Literal) || n.op == ir::Op::Constant;
}

std::vector<ir::NodePtr> region_buffers(const ir::Region &region) {
  std::vector<ir::NodePtr> found;
  std::unordered_set<const ir::Node *> seen;
  std::vector<ir::NodePtr> stack(region.outputs.begin(), region.outputs.end());
  while (!stack.empty()) {
    ir::NodePtr n = stack.back();
    stack.pop_back();
    if (!seen.insert(n.get()).second) continue;
    if (is_region_buffer(*n)) {
      found.push_back(n);
      continue;
    }
    stack.insert(stack.end(), n->inputs.begin(), n->inputs.end());
    if (n->regions) // a loop of the region's own, run inside the same kernel
      for (const ir::Region &r : *n->regions)
        stack.insert(stack.end(), r.outputs.begin(), r.outputs.end());
  }
  return found;
}

namespace {

// scan_kernel_veto, with the captured values that stand for carries of an enclosing loop (read
// at their element only, as carries).
std::string scan_veto(const ir::Node &scan, const std::vector<bool> &captured_carries) {
  if (scan.op != ir::Op::Scan) return "not a scan";
  if (scan.attrs[1] != 0) return "it scans arrays";
  const ir::Region &body = (*scan.regions)[0];
  const auto carries = size_t(scan.attrs[0]);
  if (body.outputs.size() != carries) return "it stacks outputs";
  const Shape shape = scan_carry_shape(scan);
  for (size_t k = 0; k < carries; ++k)
    if (const Shape &s = scan.inputs[k]->shape; !s.empty() && s != shape)
      return "its carries have several shapes";
  std::unordered_map<const ir::Node *, size_t> param;
  for (size_t k = 0; k < body.params.size(); ++k)
    param[body.params[k].get()] = k;
  // Per node: whether it reads a carry of the carries' shape, and why it cannot be inline.
  std::unordered_map<const ir::Node *, std::pair<bool, std::string>> memo;
  std::function<std::pair<bool, std::string>(const ir::Node *)> visit =
      [&](const ir::Node *n) -> std::pair<bool, std::string> {
    if (auto it = param.find(n); it != param.end()) {
      const size_t k = it->second;
      if (k >= carries && k - carries < captured_carries.size() && captured_carries[k - carries])
        return {true,
                n->shape == shape || shape.empty() ? "" : "a loop in its body captures a carry"};
      return {k < carries && !n->shape.empty(), ""};
    }
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    std::pair<bool, std::string> r{false, ""};
    const ir::OpKind kind = op_kind(n->op);
    // Values with memory of their own (a table the body indexes) are the kernel's inputs.
    if (is_region_buffer(*n)) return memo[n] = r;
    // A loop of the body's own runs inside the kernel too where it can: a function of its
    // operands at the element.
    if (n->op == ir::Op::Result && n->inputs[0]->op == ir::Op::Scan) {
      const ir::Node &inner = *n->inputs[0];
      // What it captures of this loop's carries it must read at their element too.
      std::vector<bool> captured;
      for (size_t k = 0; k < inner.inputs.size(); ++k) {
        const auto [carried, why] = visit(inner.inputs[k].get());
        if (!why.empty() && r.second.empty()) r.second = why;
        if (k >= size_t(inner.attrs[0]) + size_t(inner.attrs[1])) captured.push_back(carried);
        r.first = r.first || carried;
      }
      if (const std::string why = scan_veto(inner, captured); !why.empty() && r.second.empty())
        r.second = "its body runs a loop that cannot (" + why + ")";
      if (r.second.empty() && r.first && n->shape.empty())
        r.second = "a loop in its body reduces a carry";
      return memo[n] = r;
    }
    if (n->op == ir::Op::Parameter || n->op == ir::Op::RandomUniform ||
        kind == ir::OpKind::Reduce || kind == ir::OpKind::Contraction ||
        kind == ir::OpKind::Control || kind == ir::OpKind::Library || kind == ir::OpKind::Marker) {
      r.second = fmt::format("its body computes {} ({}{})", ir::op_name(n->op),
                             n->realized() ? "realized " : "", ir::type_str(*n));
    } else {
      for (const ir::NodePtr &in : n->inputs) {
        const auto [carried, why] = visit(in.get());
        if (!why.empty()) r.second = why;
        r.first = r.first || carried;
      }
      if (r.second.empty() && r.first && !ir::is_elementwise(n->op))
        r.second = fmt::format("its body reads a carry at other elements ({})", ir::op_name(n->op));
    }
    return memo[n] = r;
  };
  for (size_t k = 0; k < carries; ++k) {
    const auto [carried, why] = visit(body.outputs[k].get());
    if (!why.empty()) return why;
    if (carried && body.outputs[k]->shape.empty()) return "a 0-d carry depends on the others";
  }
  return "";
}

} // namespace

std::string scan_kernel_veto(const ir::Node &scan) { return scan_veto(scan, {}); }

} // namespace jx::passes
