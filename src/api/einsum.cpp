// jnp contractions: einsum (parsed into diagonals, sums and pairwise dot_generals), matmul, dot,
// tensordot, vdot, outer.
#include <jx/numpy.h>

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "api/internal.h"

namespace jx::numpy {

using api::node_of;
using api::NodePtr;
using api::wrap;

namespace {

// Labels are letters (their char code) or ellipsis dims (256 + position from the right).
using Label = int;
constexpr Label ellipsis_label(int from_right) { return 256 + from_right; }

std::string label_name(Label l) { return l < 256 ? std::string(1, char(l)) : "..."; }

struct Term {
  std::vector<Label> labels; // letters, with a -1 placeholder where '...' stands
  bool has_ellipsis = false;
};

Term parse_term(std::string_view s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (s.substr(i, 3) != "...")
        throw ValueError("einstein sum subscripts string contains a '.' that is not part of an "
                         "ellipsis ('...')");
      if (t.has_ellipsis)
        throw ValueError(
            "einstein sum subscripts string contains multiple ellipses ('...') in one operand");
      t.has_ellipsis = true;
      t.labels.push_back(-1);
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      t.labels.push_back(c);
    } else if (c != ' ') {
      throw ValueError(fmt::format(
          "invalid subscript '{}' in einstein sum subscripts string, subscripts must be letters",
          c));
    }
  }
  return t;
}

// Replaces the '...' placeholder by ellipsis labels for an operand of rank ndim.
std::vector<Label> expand_term(const Term &t, int64_t ndim, size_t operand) {
  const int64_t letters = int64_t(t.labels.size()) - (t.has_ellipsis ? 1 : 0);
  if (letters > ndim)
    throw ValueError(fmt::format(
        "einstein sum subscripts string contains too many subscripts for operand {}", operand));
  if (!t.has_ellipsis && letters != ndim)
    throw ValueError(
        fmt::format("operand {} has more dimensions than subscripts given in einstein sum, but no "
                    "'...' ellipsis provided to broadcast the extra dimensions.",
                    operand));
  std::vector<Label> out;
  for (Label l : t.labels) {
    if (l != -1) {
      out.push_back(l);
      continue;
    }
    const int64_t n = ndim - letters;
    for (int64_t k = n - 1; k >= 0; --k)
      out.push_back(ellipsis_label(int(k)));
  }
  return out;
}

struct Operand {
  NodePtr node;
  std::vector<Label> labels;
};

// Takes diagonals until each label appears once.
void take_diagonals(Operand &op) {
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < op.labels.size() && !again; ++i)
      for (size_t j = i + 1; j < op.labels.size() && !again; ++j)
        if (op.labels[i] == op.labels[j]) {
          op.node = ir::diagonal(op.node, int64_t(i), int64_t(j));
          Label l = op.labels[i];
          op.labels.erase(op.labels.begin() + j);
          op.labels.erase(op.labels.begin() + i);
          op.labels.push_back(l);
          again = true;
        }
  }
}

// Sums out axes whose labels are not in keep.
void sum_unneeded(Operand &op, const std::set<Label> &keep) {
  std::vector<int64_t> axes;
  std::vector<Label> kept;
  for (size_t i = 0; i < op.labels.size(); ++i) {
    if (keep.count(op.labels[i]))
      kept.push_back(op.labels[i]);
    else
      axes.push_back(int64_t(i));
  }
  op.node = ir::reduce(ir::Op::ReduceSum, op.node, axes);
  op.labels = kept;
}

Operand contract(const Operand &l, const Operand &r, const std::set<Label> &needed) {
  std::vector<int64_t> lb, rb, lc, rc;
  std::vector<Label> batch, lfree, rfree;
  for (size_t i = 0; i < l.labels.size(); ++i) {
    auto it = std::find(r.labels.begin(), r.labels.end(), l.labels[i]);
    if (it == r.labels.end()) {
      lfree.push_back(l.labels[i]);
      continue;
    }
    int64_t j = it - r.labels.begin();
    if (needed.count(l.labels[i])) {
      lb.push_back(int64_t(i));
      rb.push_back(j);
      batch.push_back(l.labels[i]);
    } else {
      lc.push_back(int64_t(i));
      rc.push_back(j);
    }
  }
  for (Label lab : r.labels)
    if (std::find(l.labels.begin(), l.labels.end(), lab) == l.labels.end()) rfree.push_back(lab);
  Operand out{ir::dot_general(l.node, r.node, lb, rb, lc, rc), batch};
  out.labels.insert(out.labels.end(), lfree.begin(), lfree.end());
  out.labels.insert(out.labels.end(), rfree.begin(), rfree.end());
  return out;
}

} // namespace

Array einsum(std::string_view subscripts, const std::vector<Array> &operands) {
  std::string_view lhs = subscripts, rhs;
  const size_t arrow = subscripts.find("->");
  const bool explicit_output = arrow != std::string_view::npos;
  if (explicit_output) {
    lhs = subscripts.substr(0, arrow);
    rhs = subscripts.substr(arrow + 2);
    if (rhs.find("->") != std::string_view::npos)
      throw ValueError("einstein sum subscript string has more than one '->'");
  }
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(
        parse_term(lhs.substr(start, comma == std::string_view::npos ? lhs.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (terms.size() > operands.size())
    throw ValueError(
        "fewer operands provided to einstein sum function than specified in the subscripts string");
  if (terms.size() < operands.size())
    throw ValueError(
        "more operands provided to einstein sum function than specified in the subscripts string");

  std::vector<NodePtr> nodes;
  for (const Array &x : operands)
    nodes.push_back(node_of(x));
  api::ResultType type = api::result_type(nodes);

  // Label sizes: across operands a size of 1 broadcasts against any size (0 included), letters and
  // ellipsis dims alike; within one operand a repeated letter's sizes must agree (a diagonal).
  std::map<Label, int64_t> sizes;
  std::vector<Operand> ops;
  for (size_t k = 0; k < operands.size(); ++k) {
    Operand op{api::cast_node(nodes[k], type.dtype, type.weak),
               expand_term(terms[k], operands[k].ndim(), k)};
    std::map<Label, int64_t> own;
    for (size_t i = 0; i < op.labels.size(); ++i) {
      Label l = op.labels[i];
      int64_t d = op.node->shape[i];
      auto [o, first] = own.emplace(l, d);
      if (!first && o->second != d)
        throw ShapeError(fmt::format(
            "dimensions in single operand for collapsing index '{}' don't match ({} != {})",
            label_name(l), o->second, d));
      auto [it, fresh] = sizes.emplace(l, d);
      if (fresh || it->second == d) continue;
      if (d == 1 || it->second == 1) {
        it->second = d == 1 ? it->second : d;
        continue;
      }
      throw ShapeError(
          fmt::format("size of label '{}' for operand {} ({}) does not match previous terms ({}).",
                      label_name(l), k, d, it->second));
    }
    ops.push_back(std::move(op));
  }

  // Output labels.
  std::vector<Label> out_labels;
  if (explicit_output) {
    Term t = parse_term(rhs);
    int64_t ell = 0;
    for (auto &[l, d] : sizes)
      ell += l >= 256;
    for (Label l : t.labels) {
      if (l == -1) {
        for (int64_t k = ell - 1; k >= 0; --k)
          out_labels.push_back(ellipsis_label(int(k)));
        continue;
      }
      if (!sizes.count(l))
        throw ValueError(fmt::format("einstein sum subscripts string included output subscript "
                                     "'{}' which never appeared in an input",
                                     char(l)));
      if (std::count(out_labels.begin(), out_labels.end(), l))
        throw ValueError(fmt::format(
            "einstein sum subscripts string includes output subscript '{}' multiple times",
            char(l)));
      out_labels.push_back(l);
    }
    if (!t.has_ellipsis)
      for (auto &[l, d] : sizes)
        if (l >= 256 && d != 1)
          throw ValueError(
              "output has more dimensions than subscripts given in einstein sum, but no '...' "
              "ellipsis provided to broadcast the extra dimensions.");
  } else {
    std::map<Label, int> counts;
    for (const Operand &op : ops)
      for (Label l : std::set<Label>(op.labels.begin(), op.labels.end()))
        ++counts[l];
    for (const Term &t : terms)
      for (Label l : t.labels) {
        int repeats = int(std::count(t.labels.begin(), t.labels.end(), l));
        if (repeats > 1 && l != -1) counts[l] += repeats - 1;
      }
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it)
      if (it->first >= 256) out_labels.push_back(it->first);
    for (auto &[l, c] : counts)
      if (l < 256 && c == 1) out_labels.push_back(l);
  }

  for (Operand &op : ops)
    take_diagonals(op);
  // An operand with size 1 for a label that others give another size is constant along it, so it
  // drops that axis instead of being broadcast: a contracted label is then summed by the operands
  // that have it (sum_j a[i,0] * b[j,k] = a[i,0] * sum_j b[j,k]), a kept one becomes their free or
  // batch dim. No broadcast node, and the contraction does no repeated multiply-adds.
  for (Operand &op : ops) {
    Shape shape;
    std::vector<Label> labels;
    for (size_t i = 0; i < op.labels.size(); ++i)
      if (op.node->shape[i] == sizes[op.labels[i]]) {
        shape.push_back(op.node->shape[i]);
        labels.push_back(op.labels[i]);
      }
    op.node = ir::reshape(op.node, shape);
    op.labels = std::move(labels);
  }

  // Labels still needed after operand k: the output and operands after k.
  auto needed_after = [&](size_t k) {
    std::set<Label> s(out_labels.begin(), out_labels.end());
    for (size_t j = k + 1; j < ops.size(); ++j)
      s.insert(ops[j].labels.begin(), ops[j].labels.end());
    return s;
  };
  Operand acc = ops[0];
  {
    std::set<Label> keep = needed_after(0);
    sum_unneeded(acc, keep);
  }
  for (size_t k = 1; k < ops.size(); ++k) {
    std::set<Label> keep = needed_after(k);
    std::set<Label> keep_r = keep;
    keep_r.insert(acc.labels.begin(), acc.labels.end());
    sum_unneeded(ops[k], keep_r);
    acc = contract(acc, ops[k], keep);
    sum_unneeded(acc, keep);
  }
  std::vector<int64_t> perm;
  for (Label l : out_labels)
    perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin());
  return wrap(ir::transpose(acc.node, perm));
}

Array matmul(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0)
    throw ValueError(fmt::format(
        "matmul: Input operand {} does not have enough dimensions (has 0, gufunc core with "
        "signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        a.ndim() == 0 ? 0 : 1));
  Array l = a.ndim() == 1 ? reshape(a, {1, a.shape()[0]}) : a;
  Array r = b.ndim() == 1 ? reshape(b, {b.shape()[0], 1}) : b;
  const int64_t k = l.shape().back(), kr = r.shape()[r.ndim() - 2];
  if (k != kr)
    throw ShapeError(
        fmt::format("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                    "signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
                    kr, k));
  Shape lb(l.shape().begin(), l.shape().end() - 2), rb(r.shape().begin(), r.shape().end() - 2);
  Shape batch = api::broadcast_shapes({lb, rb});
  const int64_t nb = int64_t(batch.size());
  auto full = [&](const Array &x) {
    Shape s = batch;
    s.push_back(x.shape()[x.ndim() - 2]);
    s.push_back(x.shape().back());
    return broadcast_to(x, s);
  };
  std::vector<NodePtr> p =
      api::promote_and_broadcast({node_of(full(l))}, api::result_type({node_of(a), node_of(b)}));
  std::vector<NodePtr> q =
      api::promote_and_broadcast({node_of(full(r))}, api::result_type({node_of(a), node_of(b)}));
  std::vector<int64_t> bdims = api::iota_vector(nb);
  Array out = wrap(ir::dot_general(p[0], q[0], bdims, bdims, {nb + 1}, {nb}));
  Shape s = batch;
  if (a.ndim() > 1) s.push_back(l.shape()[l.ndim() - 2]);
  if (b.ndim() > 1) s.push_back(r.shape().back());
  return reshape(out, s);
}

Array dot(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b);
  if (a.ndim() <= 2 && b.ndim() <= 2) {
    const int64_t ka = a.shape().back(), kb = b.shape()[b.ndim() == 1 ? 0 : b.ndim() - 2];
    if (ka != kb)
      throw ShapeError(fmt::format("shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                                   shape_str(a.shape()), shape_str(b.shape()), ka, a.ndim() - 1, kb,
                                   b.ndim() == 1 ? 0 : b.ndim() - 2));
    return matmul(a, b);
  }
  const int64_t bk = b.ndim() == 1 ? 0 : b.ndim() - 2;
  return tensordot(a, b, {{a.ndim() - 1}, {bk}});
}

Array tensordot(const Array &a, const Array &b,
                const std::pair<std::vector<int64_t>, std::vector<int64_t>> &axes) {
  if (axes.first.size() != axes.second.size()) throw ValueError("shape-mismatch for sum");
  std::vector<int64_t> la, rb;
  for (size_t i = 0; i < axes.first.size(); ++i) {
    la.push_back(api::normalize_axis(axes.first[i], a.ndim()));
    rb.push_back(api::normalize_axis(axes.second[i], b.ndim()));
    if (a.shape()[la.back()] != b.shape()[rb.back()]) throw ShapeError("shape-mismatch for sum");
  }
  // NumPy's transpose of each operand rejects a repeated axis (the backends disagreed on one).
  for (std::vector<int64_t> sorted : {la, rb}) {
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw ValueError("repeated axis in transpose");
  }
  api::ResultType type = api::result_type({node_of(a), node_of(b)});
  return wrap(ir::dot_general(api::cast_node(node_of(a), type.dtype, type.weak),
                              api::cast_node(node_of(b), type.dtype, type.weak), {}, {}, la, rb));
}

Array tensordot(const Array &a, const Array &b, int64_t axes) {
  if (axes < 0 || axes > a.ndim() || axes > b.ndim())
    throw ValueError(fmt::format("tensordot: axes={} out of range for shapes {} and {}", axes,
                                 shape_str(a.shape()), shape_str(b.shape())));
  std::vector<int64_t> la, rb;
  for (int64_t i = 0; i < axes; ++i) {
    la.push_back(a.ndim() - axes + i);
    rb.push_back(i);
  }
  return tensordot(a, b, {la, rb});
}

// The first operand conjugated (np.vdot).
Array vdot(const Array &a, const Array &b) { return dot(conj(ravel(a)), ravel(b)); }

Array outer(const Array &a, const Array &b) {
  return multiply(reshape(a, {a.size(), 1}), reshape(b, {1, b.size()}));
}

} // namespace jx::numpy
