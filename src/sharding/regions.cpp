// Region propagation through one kernel's inlined graph, roots first.
#include "sharding/regions.h"

#include <algorithm>

#include "ir/builder.h"

namespace jx::sharding {
namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;

Region whole(const Node &n) { return {std::vector<int64_t>(n.shape.size(), 0), n.shape}; }

// Grows into to the smallest box holding into and r (into starts without axes: nothing yet).
void merge(Region &into, const Region &r) {
  if (r.empty()) return;
  if (into.lo.size() != r.lo.size() || into.empty()) {
    into = r;
    return;
  }
  for (size_t a = 0; a < r.lo.size(); ++a) {
    into.lo[a] = std::min(into.lo[a], r.lo[a]);
    into.hi[a] = std::max(into.hi[a], r.hi[a]);
  }
}

// The region of input k of n that n's region r reads.
Region operand_region(const Node &n, size_t k, const Region &r) {
  const Node &x = *n.inputs[k];
  const size_t rank = x.shape.size();
  switch (op_kind(n.op)) {
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Ternary: return x.shape == n.shape ? r : whole(x);
  case OpKind::Marker: return k == 0 ? r : whole(x);
  case OpKind::Control:
  case OpKind::Library: return whole(x);
  case OpKind::Reduce: {
    Region out = whole(x);
    if (n.op == Op::ArgMax || n.op == Op::ArgMin) {
      for (size_t a = 0, o = 0; a < rank; ++a)
        if (int64_t(a) != n.attrs[0]) out.lo[a] = r.lo[o], out.hi[a] = r.hi[o++];
      return out;
    }
    for (size_t a = 0, o = 0; a < rank; ++a)
      if (std::find(n.attrs.begin(), n.attrs.end(), int64_t(a)) == n.attrs.end())
        out.lo[a] = r.lo[o], out.hi[a] = r.hi[o++];
    return out;
  }
  case OpKind::Contraction: {
    // Output axes: batch, lhs free, rhs free; contracted axes are read whole.
    const ir::DotDims d = ir::dot_dims(n);
    const auto &batch = k == 0 ? d.lhs_batch : d.rhs_batch;
    const auto &contract = k == 0 ? d.lhs_contract : d.rhs_contract;
    Region out = whole(x);
    size_t o = 0;
    for (int64_t a : batch)
      out.lo[a] = r.lo[o], out.hi[a] = r.hi[o++];
    auto is_free = [&](const Node &side, const std::vector<int64_t> &b,
                       const std::vector<int64_t> &c, int64_t a) {
      return a < side.ndim() && std::find(b.begin(), b.end(), a) == b.end() &&
             std::find(c.begin(), c.end(), a) == c.end();
    };
    if (k == 1)
      for (int64_t a = 0; a < n.inputs[0]->ndim(); ++a)
        o += is_free(*n.inputs[0], d.lhs_batch, d.lhs_contract, a);
    for (int64_t a = 0; a < x.ndim(); ++a)
      if (is_free(x, batch, contract, a)) out.lo[a] = r.lo[o], out.hi[a] = r.hi[o++];
    return out;
  }
  case OpKind::Movement: break;
  case OpKind::Leaf: return {};
  }
  switch (n.op) {
  case Op::Broadcast: {
    Region out = whole(x);
    for (size_t a = 0; a < rank; ++a)
      if (x.shape[a] != 1) out.lo[a] = r.lo[n.attrs[a]], out.hi[a] = r.hi[n.attrs[a]];
    return out;
  }
  case Op::Transpose: {
    Region out = whole(x);
    for (size_t j = 0; j < rank; ++j)
      out.lo[n.attrs[j]] = r.lo[j], out.hi[n.attrs[j]] = r.hi[j];
    return out;
  }
  case Op::Slice: {
    Region out = whole(x);
    for (size_t a = 0; a < rank; ++a) {
      const int64_t start = n.attrs[a], step = n.attrs[2 * rank + a]; // starts, limits, steps
      if (r.hi[a] <= r.lo[a]) return {};
      const int64_t first = start + r.lo[a] * step, last = start + (r.hi[a] - 1) * step;
      out.lo[a] = std::min(first, last);
      out.hi[a] = std::max(first, last) + 1;
    }
    return out;
  }
  case Op::Pad: {
    if (k == 1) return whole(x);
    Region out = whole(x);
    for (size_t a = 0; a < rank; ++a) {
      out.lo[a] = std::clamp<int64_t>(r.lo[a] - n.attrs[a], 0, x.shape[a]);
      out.hi[a] = std::clamp<int64_t>(r.hi[a] - n.attrs[a], 0, x.shape[a]);
    }
    return out;
  }
  case Op::Concatenate: {
    const size_t axis = size_t(n.attrs[0]);
    int64_t offset = 0;
    for (size_t i = 0; i < k; ++i)
      offset += n.inputs[i]->shape[axis];
    Region out = r;
    out.lo[axis] = std::clamp<int64_t>(r.lo[axis] - offset, 0, x.shape[axis]);
    out.hi[axis] = std::clamp<int64_t>(r.hi[axis] - offset, 0, x.shape[axis]);
    return out;
  }
  case Op::SliceUpdate:
  case Op::DynamicUpdateSlice: return k == 0 ? r : whole(x);
  case Op::Reshape: {
    // Whole rows of the output (all but axis 0 whole) are a contiguous run of elements: the
    // input's rows that hold it (split_reductions' partials read their block of rows).
    Region out = whole(x);
    int64_t inner_out = 1, inner_in = 1;
    for (size_t a = 1; a < n.shape.size(); ++a) {
      if (r.lo[a] != 0 || r.hi[a] != n.shape[a]) return out;
      inner_out *= n.shape[a];
    }
    for (size_t a = 1; a < rank; ++a)
      inner_in *= x.shape[a];
    if (n.shape.empty() || rank == 0 || inner_in == 0) return out;
    out.lo[0] = r.lo[0] * inner_out / inner_in;
    out.hi[0] = (r.hi[0] * inner_out + inner_in - 1) / inner_in;
    return out;
  }
  default: return whole(x); // diagonal: the whole operand (a bounding box at worst)
  }
}

} // namespace

bool Region::empty() const {
  if (lo.size() != hi.size()) return true;
  for (size_t a = 0; a < lo.size(); ++a)
    if (hi[a] <= lo[a]) return true;
  return false;
}

int64_t Region::size() const {
  if (empty()) return 0;
  int64_t n = 1;
  for (size_t a = 0; a < lo.size(); ++a)
    n *= hi[a] - lo[a];
  return n;
}

Region intersect(const Region &a, const Region &b) {
  Region out = a;
  for (size_t i = 0; i < a.lo.size(); ++i) {
    out.lo[i] = std::max(a.lo[i], b.lo[i]);
    out.hi[i] = std::max(out.lo[i], std::min(a.hi[i], b.hi[i]));
  }
  return out;
}

std::unordered_map<const ir::Node *, Region> input_regions(const passes::KernelPlan &plan,
                                                           const Region &box) {
  std::unordered_map<const Node *, bool> inputs;
  for (const Node *in : plan.inputs)
    inputs[in] = true;
  // The kernel's own nodes in post order (operands first): a walk from the roots that stops at
  // the inputs, not the whole graph upstream of them.
  std::vector<const Node *> order;
  std::unordered_map<const Node *, bool> visited;
  std::vector<std::pair<const Node *, size_t>> stack;
  for (const ir::NodePtr &root : plan.roots)
    if (!visited[root.get()]) {
      visited[root.get()] = true;
      stack.push_back({root.get(), 0});
    }
  while (!stack.empty()) {
    auto &[n, next] = stack.back();
    if (!inputs.count(n) && next < n->inputs.size()) {
      const Node *in = n->inputs[next++].get();
      if (!visited[in]) {
        visited[in] = true;
        stack.push_back({in, 0});
      }
      continue;
    }
    order.push_back(n);
    stack.pop_back();
  }
  std::unordered_map<const Node *, Region> need;
  for (const ir::NodePtr &root : plan.roots)
    need[root.get()] = box;
  // Consumers before their operands: reverse topological order; stop at the kernel's inputs.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node *n = *it;
    if (inputs.count(n) || !need.count(n)) continue;
    const Region r = need.at(n);
    if (r.lo.size() != n->shape.size() || r.empty()) continue; // nothing of n is read
    for (size_t k = 0; k < n->inputs.size(); ++k) {
      Region operand = operand_region(*n, k, r);
      if (operand.lo.size() == n->inputs[k]->shape.size() && !operand.empty())
        merge(need[n->inputs[k].get()], operand);
    }
  }
  std::unordered_map<const Node *, Region> out;
  for (const Node *in : plan.inputs)
    if (auto it = need.find(in); it != need.end() && it->second.lo.size() == in->shape.size())
      out[in] = it->second;
  return out;
}

} // namespace jx::sharding
