// merge_reductions: in a sum of terms, the reductions over the same axes of same-shaped operands
// (each possibly negated or scaled by a factor of the kept axes) become one reduction:
//   g + f * sum(a, axes) - sum(b, axes)  ->  g + sum(a * broadcast(f) - b, axes)
// One pass over the operands' elements instead of one per reduction. A gradient's cotangent
// gathers such terms wherever a broadcast fanned a value out: each path's transpose is its own
// reduction, recomputing the forward values it reads. Merged only when every node on the way
// (the reductions, the scaled and summed partial results) is read by nothing else, so nothing is
// reduced twice. Rounds differently (each term scaled, the terms added before the sum, the sum's
// terms reassociated), within a reduction's bound.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

// Deeper sums are left as they are, so the recursion below stays shallow.
constexpr int max_depth = 32;

class Merger {
public:
  explicit Merger(const std::vector<NodePtr> &roots) {
    for (const NodePtr &r : roots)
      ++uses_[r.get()];
    for (const Node *n : ir::topological_order(roots))
      if (!n->realized())
        for (const NodePtr &in : n->inputs)
          ++uses_[in.get()];
  }

  // At a sum of terms (nested adds and subtractions read only by the next one), the terms that
  // are reductions over the same axes of one shape become one reduction; the others stay.
  NodePtr rule(const NodePtr &n, const Node &original) {
    NodePtr out = n;
    if (!original.realized() && (original.op == Op::Add || original.op == Op::Sub)) {
      std::vector<Term> terms;
      flatten(original, false, 0, terms);
      // The merged sum is of the node's type unless weak types differed among the terms.
      const std::optional<NodePtr> m = merged(terms);
      if (m && (*m)->dtype == n->dtype && (*m)->weak == n->weak && (*m)->shape == n->shape)
        out = *m;
    }
    rewritten_[&original] = out;
    return out;
  }

private:
  struct Term {
    const Node *node;
    bool negated;
  };
  // A node as a sum over `axes` of `inner` (built from rewritten nodes).
  struct Sum {
    NodePtr inner;
    std::vector<int64_t> axes;
  };

  bool read_once(const Node &x) const {
    const auto found = uses_.find(&x);
    return !x.realized() && found != uses_.end() && found->second == 1;
  }

  void flatten(const Node &x, bool negated, int depth, std::vector<Term> &terms) const {
    const bool sum = x.op == Op::Add || x.op == Op::Sub;
    if (depth == 0 || (sum && depth < max_depth && read_once(x))) {
      flatten(*x.inputs[0], negated, depth + 1, terms);
      flatten(*x.inputs[1], negated != (x.op == Op::Sub), depth + 1, terms);
    } else {
      terms.push_back({&x, negated});
    }
  }

  std::optional<NodePtr> merged(const std::vector<Term> &terms) {
    std::vector<std::optional<Sum>> sums;
    for (const Term &t : terms)
      sums.push_back(as_sum(*t.node, 0));
    // Per term: the first term of its group (same axes and operand shape).
    std::vector<size_t> group(terms.size());
    bool any = false;
    for (size_t i = 0; i < terms.size(); ++i) {
      group[i] = i;
      for (size_t j = 0; j < i && sums[i]; ++j)
        if (sums[j] && group[j] == j && sums[j]->axes == sums[i]->axes &&
            sums[j]->inner->shape == sums[i]->inner->shape) {
          group[i] = j;
          any = true;
          break;
        }
    }
    if (!any) return std::nullopt;
    auto combine = [](NodePtr total, const NodePtr &x, bool negated) {
      if (!total) return negated ? ir::unary(Op::Neg, x) : x;
      return ir::binary(negated ? Op::Sub : Op::Add, total, x);
    };
    std::vector<NodePtr> inner(terms.size());
    for (size_t i = 0; i < terms.size(); ++i)
      if (sums[i]) inner[group[i]] = combine(inner[group[i]], sums[i]->inner, terms[i].negated);
    NodePtr total;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (group[i] != i) continue;
      const bool lone = std::count(group.begin(), group.end(), i) == 1;
      if (lone)
        total = combine(total, rewritten_.at(terms[i].node), terms[i].negated);
      else
        total = combine(total, ir::reduce(Op::ReduceSum, inner[i], sums[i]->axes), false);
    }
    return total;
  }

  // x as one reduction, when it is a reduce_sum read only here, or a negation or a scaling of
  // such (read only here).
  std::optional<Sum> as_sum(const Node &x, int depth) {
    if (depth > max_depth || !read_once(x)) return std::nullopt;
    switch (x.op) {
    case Op::ReduceSum:
      if (x.dtype != x.inputs[0]->dtype) return std::nullopt;
      return Sum{rewritten_.at(x.inputs[0].get()), x.attrs};
    case Op::Neg:
      if (auto s = as_sum(*x.inputs[0], depth + 1))
        return Sum{ir::unary(Op::Neg, s->inner), s->axes};
      return std::nullopt;
    case Op::Mul:
      for (int side : {0, 1})
        if (auto s = as_sum(*x.inputs[side], depth + 1)) {
          const NodePtr &factor = rewritten_.at(x.inputs[1 - side].get());
          return Sum{ir::binary(Op::Mul, s->inner, spread(factor, s->inner->shape, s->axes)),
                     s->axes};
        }
      return std::nullopt;
    default: return std::nullopt;
    }
  }

  // A factor of the kept axes, broadcast along the reduced ones.
  static NodePtr spread(const NodePtr &factor, const Shape &shape,
                        const std::vector<int64_t> &axes) {
    return ir::broadcast(factor, shape, ir::other_axes(int64_t(shape.size()), axes));
  }

  std::unordered_map<const Node *, int> uses_;
  std::unordered_map<const Node *, NodePtr> rewritten_;
};

} // namespace

std::vector<NodePtr> merge_reductions(const std::vector<NodePtr> &roots) {
  Merger merger(roots);
  return rewrite_seeing_originals(
      roots, [&](const NodePtr &n, const Node &original) { return merger.rule(n, original); });
}

} // namespace jx::passes
