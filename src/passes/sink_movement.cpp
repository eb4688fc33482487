// sink_movement: an elementwise op applied to moved data is applied before the movement, so it
// runs once per element of the movement's input instead of once per element of its output:
//   u(broadcast(x)) -> broadcast(u(x))          (any unary op, convert and predicates included)
//   b(broadcast(x), broadcast(y)) -> broadcast(b(x, y))   (same dims, same input shapes)
//   b(broadcast(x), fill) -> broadcast(b(x, fill'))       (fill: a 0-d value broadcast)
// and likewise for reshape and transpose (same sizes, but it lets later ops sink further), for
// the ternary ops (select, fma), and through chains of such movements. Every operand must carry the
// same movement (same op, attributes and input shape) or be a fill, which is re-broadcast to the
// smaller shape. Exact: the same scalar operations on the same values. Never moves an op below a
// slice, pad, concatenate, slice_update or diagonal (the op could then compute elements nobody
// reads), or below a realized node (its inputs may no longer be cheap to compute).
#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

bool is_sinkable_movement(const Node &n) {
  return (n.op == Op::Broadcast || n.op == Op::Reshape || n.op == Op::Transpose) && !n.realized();
}

// A 0-d value broadcast: it fits any shape.
bool is_fill(const Node &n) {
  return n.op == Op::Broadcast && !n.realized() && n.inputs[0]->shape.empty();
}

bool same_movement(const Node &a, const Node &b) {
  return a.op == b.op && a.attrs == b.attrs && a.inputs[0]->shape == b.inputs[0]->shape &&
         a.shape == b.shape;
}

// n's op over new operands; the builders recompute the weak flag as they did for n.
NodePtr elementwise_like(const Node &n, const std::vector<NodePtr> &in) {
  switch (ir::op_kind(n.op)) {
  case ir::OpKind::Unary:
    return n.op == Op::Convert ? ir::convert(in[0], n.dtype, n.weak) : ir::unary(n.op, in[0]);
  case ir::OpKind::Binary: return ir::binary(n.op, in[0], in[1]);
  default: return n.op == Op::Fma ? ir::fma(in[0], in[1], in[2]) : ir::select(in[0], in[1], in[2]);
  }
}

// The same movement as m, applied to x.
NodePtr move_like(const Node &m, NodePtr x) {
  switch (m.op) {
  case Op::Broadcast: return ir::broadcast(std::move(x), m.shape, m.attrs);
  case Op::Reshape: return ir::reshape(std::move(x), m.shape);
  default: return ir::transpose(std::move(x), m.attrs);
  }
}

// The movement every operand not yet peeled to a scalar carries (fills aside, if asked), or null.
const Node *shared_movement(const std::vector<NodePtr> &ops, const std::vector<bool> &scalar,
                            bool skip_fills) {
  const Node *common = nullptr;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (scalar[i] || (skip_fills && is_fill(*ops[i]))) continue;
    if (!is_sinkable_movement(*ops[i]) || (common && !same_movement(*ops[i], *common)))
      return nullptr;
    if (!common) common = ops[i].get();
  }
  return common;
}

NodePtr sink_rule(const NodePtr &n) {
  if (n->realized() || !ir::is_elementwise(n->op)) return n;
  // Operands as they are peeled level by level; a fill becomes its 0-d value.
  std::vector<NodePtr> ops = n->inputs;
  std::vector<bool> scalar(ops.size(), false);
  std::vector<const Node *> moves; // outermost first
  while (true) {
    const Node *common = shared_movement(ops, scalar, false);
    if (!common) {
      common = shared_movement(ops, scalar, true);
      if (!common) break;
      for (size_t i = 0; i < ops.size(); ++i)
        if (!scalar[i] && is_fill(*ops[i])) {
          ops[i] = ops[i]->inputs[0];
          scalar[i] = true;
        }
    }
    for (size_t i = 0; i < ops.size(); ++i)
      if (!scalar[i]) ops[i] = ops[i]->inputs[0];
    moves.push_back(common);
  }
  if (moves.empty()) return n;
  const Shape &inner = moves.back()->inputs[0]->shape;
  for (size_t i = 0; i < ops.size(); ++i)
    if (scalar[i]) ops[i] = ir::broadcast(ops[i], inner, {});
  NodePtr out = elementwise_like(*n, ops);
  for (auto it = moves.rbegin(); it != moves.rend(); ++it)
    out = move_like(**it, out);
  return out;
}

} // namespace

std::vector<ir::NodePtr> sink_movement(const std::vector<ir::NodePtr> &roots) {
  return rewrite(roots, sink_rule);
}

} // namespace jx::passes
