// split_reductions: a large reduction to a few values (a full sum, a column of a tall array) runs
// in two stages: 16 partial results over equal slices of its outermost reduced axis, then their
// combination. The partials are rows a kernel spreads over the thread pool and the devices (an
// all-reduce's two halves); the one-stage form would run on one thread. So does a large
// reduction over leading axes (sum(x, 0)): its one-stage kernel would split the kept columns
// across threads, each walking every row in short strided pieces; 16 partials each read a block
// of whole rows in order. The split depends only on the shapes, never on the thread or device
// count, so every placement gives the same bits. float32 sums keep float64 partials.
#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

constexpr int64_t partials = 16;
constexpr int64_t min_elements = int64_t(1) << 16;
constexpr int64_t min_rows_per_partial = 64;

NodePtr split_reduction(const NodePtr &n) {
  if (n->op != Op::ReduceSum && n->op != Op::ReduceProd && n->op != Op::ReduceMax &&
      n->op != Op::ReduceMin)
    return n;
  if (n->realized() || n->attrs.empty() || n->inputs[0]->size() < min_elements) return n;
  // Few values, or leading axes reduced over enough rows that each partial sums a block of at
  // least 64 (fewer rows are cheaper summed in one pass: the partials cost a buffer 16x the
  // output).
  if (n->size() >= partials &&
      (n->attrs.front() != 0 || n->inputs[0]->shape[0] < min_rows_per_partial * partials))
    return n;
  const NodePtr &x = n->inputs[0];
  const std::vector<int64_t> &axes = n->attrs;
  const int64_t axis = axes.front(); // the outermost reduced axis
  if (x->shape[axis] % partials != 0 || x->shape[axis] < 2 * partials) return n;
  if (x->shape.size() >= max_rank) return n; // the split adds an axis

  // x with `axis` split into (partials, rest): the partial index p becomes a kept axis.
  Shape split_shape = x->shape;
  split_shape[axis] = x->shape[axis] / partials;
  split_shape.insert(split_shape.begin() + axis, partials);
  std::vector<int64_t> partial_axes;
  for (int64_t a : axes)
    partial_axes.push_back(a + 1);
  NodePtr terms = ir::reshape(x, split_shape);
  // float32 partial sums stay in float64 (the kernels accumulate in it), so the sum is rounded
  // once, at the end.
  const bool widen = n->op == Op::ReduceSum && n->dtype == DType::float32;
  if (widen) terms = ir::convert(terms, DType::float64);
  NodePtr partial = ir::reduce(n->op, terms, partial_axes);
  // Every axis before the outermost reduced one is kept: p sits at `axis` in the partials.
  NodePtr combined = ir::reduce(n->op, partial, {axis});
  return widen ? ir::convert(combined, n->dtype, n->weak) : combined;
}

} // namespace

std::vector<ir::NodePtr> split_reductions(const std::vector<ir::NodePtr> &roots) {
  return rewrite(roots, split_reduction);
}

} // namespace jx::passes
