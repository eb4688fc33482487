// Graph printer and the topological walk every consumer of a graph shares.
#include "ir/printer.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"

namespace jx::ir {

std::vector<const Node *> topological_order(const std::vector<NodePtr> &roots) {
  GraphReadLock graph_lock; // a node realized halfway would be a leaf and not one at once
  std::vector<const Node *> order;
  std::unordered_set<const Node *> done;
  // Iterative DFS: graphs can be deep (long chains of updates).
  std::vector<std::pair<const Node *, size_t>> stack;
  for (const NodePtr &root : roots) {
    if (done.count(root.get())) continue;
    stack.push_back({root.get(), 0});
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      // A realized node is a leaf: its inputs need not be visited.
      bool leaf = node->realized() != nullptr;
      if (!leaf && next < node->inputs.size()) {
        const Node *in = node->inputs[next++].get();
        if (!done.count(in)) stack.push_back({in, 0});
        continue;
      }
      if (done.insert(node).second) order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

std::string type_str(const Node &node) {
  static constexpr const char *short_names[] = {"bool", "i32", "i64",  "f32", "f64",
                                                "i8",   "i16", "u8",   "u16", "u32",
                                                "u64",  "f16", "bf16", "c64", "c128"};
  static_assert(std::size(short_names) == num_dtypes);
  return fmt::format("{}[{}]{}", short_names[static_cast<int>(node.dtype)],
                     fmt::join(node.shape, ","), node.weak ? "~" : "");
}

std::string attr_str(const Node &n) {
  const int64_t r = n.inputs.empty() ? 0 : n.inputs[0]->ndim();
  auto range = [&](int64_t from, int64_t count) {
    return fmt::format("[{}]",
                       fmt::join(n.attrs.begin() + from, n.attrs.begin() + from + count, ","));
  };
  switch (n.op) {
  case Op::Literal:
    return is_floating(n.dtype) ? fmt::format("{}", n.fvalue) : fmt::format("{}", n.ivalue);
  case Op::Constant: return fmt::format("<{} bytes>", n.data->bytes());
  case Op::Iota: return fmt::format("axis={}", n.attrs[0]);
  case Op::Parameter: return fmt::format("{}", n.attrs[0]);
  case Op::RandomUniform: return fmt::format("key=[{},{}]", n.attrs[0], n.attrs[1]);
  case Op::Broadcast: return fmt::format("dims={}", range(0, r));
  case Op::Transpose: return fmt::format("perm={}", range(0, r));
  case Op::Slice:
  case Op::SliceUpdate:
    return fmt::format("start={} limit={} step={}", range(0, r), range(r, r), range(2 * r, r));
  case Op::Pad: return fmt::format("lo={} hi={}", range(0, r), range(r, r));
  case Op::DynamicSlice: return fmt::format("sizes={}", range(0, r));
  case Op::Concatenate:
  case Op::ArgMax:
  case Op::ArgMin: return fmt::format("axis={}", n.attrs[0]);
  case Op::Diagonal: return fmt::format("axes={},{}", n.attrs[0], n.attrs[1]);
  case Op::CumSum:
  case Op::CumProd:
  case Op::CumMax:
  case Op::CumMin: return fmt::format("axis={}{}", n.attrs[0], n.attrs[1] ? " reverse" : "");
  case Op::Fft: return fmt::format("axis={}{}", n.attrs[0], n.attrs[1] ? " inverse" : "");
  case Op::Sort:
  case Op::ArgSort:
  case Op::ScatterSet:
  case Op::ScatterAdd:
  case Op::ScatterMul:
  case Op::ScatterMin:
  case Op::ScatterMax: return fmt::format("axis={}", n.attrs[0]);
  case Op::Take: return fmt::format("axis={}{}", n.attrs[0], n.attrs[1] ? " fill" : "");
  case Op::Determinant:
  case Op::Eigh:
  case Op::Svd:
  case Op::Qr: return fmt::format("mode={}", n.attrs[0]);
  case Op::DotGeneral: {
    DotDims d = dot_dims(n);
    return fmt::format("batch={}x{} contract={}x{}", d.lhs_batch, d.rhs_batch, d.lhs_contract,
                       d.rhs_contract);
  }
  default:
    if (op_kind(n.op) == OpKind::Reduce) return fmt::format("axes=[{}]", fmt::join(n.attrs, ","));
    return "";
  }
}

std::string print_graph(const std::vector<NodePtr> &roots) {
  std::unordered_map<const Node *, int> ids;
  std::string out;
  for (const Node *n : topological_order(roots)) {
    int id = static_cast<int>(ids.size());
    ids[n] = id;
    std::string args;
    if (n->realized()) {
      args = "<realized>";
    } else {
      for (const NodePtr &in : n->inputs)
        args += fmt::format("{}%{}", args.empty() ? "" : ", ", ids.at(in.get()));
    }
    std::string attrs = attr_str(*n);
    if (!attrs.empty()) args += (args.empty() ? "" : ", ") + attrs;
    out += fmt::format("%{} = {}({}) : {}\n", id, op_name(n->op), args, type_str(*n));
  }
  return out;
}

std::string dot_quoted(const std::string &text) {
  std::string out(1, '"');
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  out += '"';
  return out;
}

std::string graph_dot(const std::vector<NodePtr> &roots, const std::string &title) {
  std::unordered_map<const Node *, int> ids;
  std::string out = fmt::format("digraph {{\n  label={};\n  node [shape=box, fontname=monospace, "
                                "fontsize=10];\n  edge [fontname=monospace, fontsize=9];\n",
                                dot_quoted(title));
  for (const Node *n : topological_order(roots)) {
    const int id = int(ids.size());
    ids[n] = id;
    const bool root =
        std::any_of(roots.begin(), roots.end(), [&](const NodePtr &r) { return r.get() == n; });
    std::string attrs = attr_str(*n);
    out += fmt::format("  n{} [label={}{}];\n", id,
                       dot_quoted(fmt::format("%{} {}{}{}\n{}", id, op_name(n->op),
                                              attrs.empty() ? "" : " ", attrs, type_str(*n))),
                       root ? ", style=bold" : "");
    if (n->realized()) continue;
    for (const NodePtr &in : n->inputs)
      out += fmt::format("  n{} -> n{} [label={}];\n", ids.at(in.get()), id,
                         dot_quoted(type_str(*in)));
  }
  return out + "}\n";
}

} // namespace jx::ir
