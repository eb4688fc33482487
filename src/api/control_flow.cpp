// jx::lax control flow: regions traced over parameters of their own, closure-converted (what a
// region reads from outside becomes an input of the op, computed once before it), checked with
// JAX's errors, and built into while / case nodes.
#include <jx/lax.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "api/internal.h"
#include "api/tracing.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "transforms/substitute.h"

namespace jx::lax::detail {
namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;

struct Traced {
  ir::Region region;
  std::vector<NodePtr> captured; // outside values the region reads, in first-seen order
};

// Built from literals and iotas only: free to compute inside a region (a broadcast scalar is
// index arithmetic in a kernel, where a captured one would be a buffer read every step).
bool self_contained(const Node &n, std::unordered_map<const Node *, bool> &memo) {
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  bool result = n.op == Op::Literal || n.op == Op::Iota;
  if (!result && !n.realized() && !n.inputs.empty() && ir::op_kind(n.op) != ir::OpKind::Leaf)
    result = std::all_of(n.inputs.begin(), n.inputs.end(),
                         [&](const NodePtr &in) { return self_contained(*in, memo); });
  return memo[&n] = result;
}

// Computed from data alone (no parameter of any trace below it).
bool from_data(const Node &n, std::unordered_map<const Node *, bool> &memo) {
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  bool result = n.realized() || n.op != Op::Parameter;
  if (result && !n.realized())
    result = std::all_of(n.inputs.begin(), n.inputs.end(),
                         [&](const NodePtr &in) { return from_data(*in, memo); });
  return memo[&n] = result;
}

// fn traced over params typed as `like` (a trace of their own). What the outputs read that does
// not depend on the params is captured: each outermost such value, but those built from literals
// and iotas alone, and small ones computed from data alone, which the region's compile folds into
// constants as a jit of fn would (capturing them would make the loop's bits differ from a loop
// of jit calls).
Traced trace(const RegionFn &fn, const std::vector<NodePtr> &like) {
  Traced t;
  std::vector<ShapeDtypeStruct> specs;
  for (const NodePtr &p : like)
    specs.push_back({.shape = p->shape, .dtype = p->dtype, .weak_type = p->weak});
  api::TracedFunction traced = api::trace_function(specs, fn);
  t.region.params = std::move(traced.params);
  t.region.outputs = std::move(traced.outputs);
  std::unordered_set<const Node *> varying;
  for (const NodePtr &p : t.region.params)
    varying.insert(p.get());
  std::unordered_map<const Node *, bool> cheap, data;
  std::unordered_set<const Node *> seen;
  auto capture = [&](const NodePtr &n) {
    const bool inside = self_contained(*n, cheap) ||
                        (n->size() <= passes::max_folded_elements && from_data(*n, data));
    if (!varying.count(n.get()) && !inside && seen.insert(n.get()).second) t.captured.push_back(n);
  };
  for (const Node *n : ir::topological_order(t.region.outputs)) {
    if (n->realized()) continue;
    const bool depends = std::any_of(n->inputs.begin(), n->inputs.end(),
                                     [&](const NodePtr &in) { return varying.count(in.get()); });
    if (!depends) continue;
    varying.insert(n);
    for (const NodePtr &in : n->inputs)
      capture(in);
  }
  for (const NodePtr &out : t.region.outputs)
    capture(out);
  return t;
}

// The regions over one list of params: the given ones, then one per value any region captured
// (every region sees them all, in one order); returns the captured values.
std::vector<NodePtr> close_over(std::vector<Traced> &traced, const std::vector<NodePtr> &given) {
  std::vector<NodePtr> captured;
  for (const Traced &t : traced)
    for (const NodePtr &c : t.captured)
      if (std::find(captured.begin(), captured.end(), c) == captured.end()) captured.push_back(c);
  for (Traced &t : traced) {
    const int64_t trace_id =
        t.region.params.empty() ? ir::new_trace_id() : t.region.params[0]->attrs[1];
    transforms::Substitution map;
    for (size_t k = 0; k < captured.size(); ++k) {
      const NodePtr &c = captured[k];
      NodePtr p = ir::parameter(int64_t(given.size() + k), c->dtype, c->shape, trace_id, c->weak);
      map[c.get()] = p;
      t.region.params.push_back(std::move(p));
    }
    t.region.outputs = transforms::substitute(t.region.outputs, map);
  }
  return captured;
}

std::string type_text(const Node &n) {
  return fmt::format("{}[{}]", dtype_name(n.dtype), fmt::join(n.shape, ","));
}

// JAX's aval_mismatch_extra.
std::string mismatch(const Node &a, const Node &b) {
  if (a.shape != b.shape) return ", so the shapes do not match";
  if (a.dtype != b.dtype) return ", so the dtypes do not match";
  return ", so the weak types do not match";
}

std::string list_of(const std::vector<std::string> &diffs, bool capitalize) {
  if (diffs.size() == 1) {
    std::string d = diffs[0];
    if (capitalize) d[0] = char(std::toupper(d[0]));
    return d + ".\n";
  }
  std::string text;
  for (size_t i = 0; i < diffs.size(); ++i)
    text += fmt::format("  * {}{}\n", diffs[i], i + 1 < diffs.size() ? ";\n" : ".");
  return text;
}

// JAX's _check_carry_type for a body's carry output against its input.
void check_carry(const std::vector<NodePtr> &in, const std::vector<NodePtr> &out, bool single,
                 const char *name) {
  if (in.size() != out.size())
    throw TypeError(fmt::format(
        "{} function carry input and carry output must have the same pytree structure, but "
        "they differ:\n\nThe input carry is a list of length {} but the corresponding component "
        "of the carry output is a list of length {}, so the lengths do not match.\n\nRevise "
        "the function so that the carry output has the same pytree structure as the carry "
        "input.",
        name, in.size(), out.size()));
  std::vector<std::string> diffs;
  for (size_t i = 0; i < in.size(); ++i)
    if (!ir::same_type(*in[i], *out[i]))
      diffs.push_back(fmt::format(
          "{} has type {} but the corresponding output carry component has type {}{}",
          single ? std::string("the input carry") : fmt::format("the input carry at path [{}]", i),
          type_text(*in[i]), type_text(*out[i]), mismatch(*in[i], *out[i])));
  if (!diffs.empty())
    throw TypeError(fmt::format(
        "{} function carry input and carry output must have equal types, but they "
        "differ:\n\n{}\nRevise the function so that all output types match the corresponding "
        "input types.",
        name, list_of(diffs, true)));
}

// A weakly typed init value takes the body's type where the body gives another (JAX's
// _promote_weak_typed_input); true if any did.
bool promote_weak_inits(std::vector<NodePtr> &init, const std::vector<NodePtr> &out) {
  bool changed = false;
  for (size_t i = 0; i < init.size() && i < out.size(); ++i)
    if (init[i]->weak && init[i]->shape == out[i]->shape && !ir::same_type(*init[i], *out[i])) {
      init[i] = api::cast_node(init[i], out[i]->dtype, out[i]->weak);
      changed = true;
    }
  return changed;
}

std::vector<NodePtr> nodes_of(const Arrays &xs) {
  std::vector<NodePtr> out;
  for (const Array &x : xs)
    out.push_back(x.node());
  return out;
}

Arrays results(const NodePtr &control) {
  Arrays out;
  for (int64_t i = 0; i < ir::result_count(*control); ++i)
    out.push_back(api::wrap(ir::result(control, i)));
  return out;
}

// JAX's _check_branch_outputs: every branch against the reference one (cond: true_fun).
void check_branches(const char *api, const std::vector<Traced> &traced,
                    const std::vector<std::string> &names, size_t reference) {
  const std::vector<NodePtr> &first = traced[reference].region.outputs;
  const std::string &name = names[reference];
  for (size_t b = 0; b < traced.size(); ++b) {
    if (b == reference) continue;
    const std::vector<NodePtr> &other = traced[b].region.outputs;
    if (other.size() != first.size())
      throw TypeError(fmt::format(
          "{} branch outputs must have the same pytree structure, but they differ:\n\n{} output "
          "is a list of length {} but {} output is a list of length {}, so the lengths do not "
          "match.\n\nRevise {} and/or {} so that they have the same pytree structure.",
          api, name, first.size(), names[b], other.size(), name, names[b]));
    std::vector<std::string> diffs;
    for (size_t i = 0; i < first.size(); ++i)
      if (!ir::same_type(*first[i], *other[i]))
        diffs.push_back(fmt::format(
            "the output of {}{} has type {} but the corresponding output of {} has type {}{}", name,
            first.size() > 1 ? fmt::format(" at path [{}]", i) : "", type_text(*first[i]), names[b],
            type_text(*other[i]), mismatch(*first[i], *other[i])));
    if (!diffs.empty())
      throw TypeError(fmt::format(
          "{} branches must have equal output types but they differ.\n\n{}\nRevise {} and/or {} "
          "so that all output types match.",
          api, list_of(diffs, true), name, names[b]));
  }
}

Arrays switch_impl(const Array &index, const std::vector<RegionFn> &branches,
                   const Arrays &operands, const char *api, const std::vector<std::string> &names,
                   size_t reference) {
  if (branches.empty()) throw ValueError("Empty branch sequence");
  if (branches.size() == 1) return branches[0](operands);
  const std::vector<NodePtr> given = nodes_of(operands);
  std::vector<Traced> traced;
  for (const RegionFn &b : branches)
    traced.push_back(trace(b, given));
  check_branches(api, traced, names, reference);
  std::vector<NodePtr> inputs = given;
  for (const NodePtr &c : close_over(traced, given))
    inputs.push_back(c);
  ir::Regions regions;
  for (Traced &t : traced)
    regions.push_back(std::move(t.region));
  return results(ir::case_(api::cast_node(index.node(), DType::int32, false), std::move(inputs),
                           std::move(regions)));
}

} // namespace

Arrays while_loop(const RegionFn &cond_fun, const RegionFn &body_fun, Arrays init_val,
                  bool single) {
  std::vector<NodePtr> init = nodes_of(init_val);
  std::vector<Traced> traced;
  for (int pass = 0; pass < 2; ++pass) {
    traced = {trace(cond_fun, init), trace(body_fun, init)};
    if (traced[1].region.outputs.size() != init.size() ||
        !promote_weak_inits(init, traced[1].region.outputs))
      break;
  }
  const std::vector<NodePtr> &pred = traced[0].region.outputs;
  if (pred.size() != 1 || pred[0]->dtype != DType::bool_ || !pred[0]->shape.empty()) {
    std::vector<std::string> types;
    for (const NodePtr &p : pred)
      types.push_back(fmt::format("ShapedArray({})", type_text(*p)));
    throw TypeError(
        fmt::format("cond_fun must return a boolean scalar, but got output type(s) [{}].",
                    fmt::join(types, ", ")));
  }
  check_carry(traced[1].region.params, traced[1].region.outputs, single, "while_loop body");
  std::vector<NodePtr> inputs = init;
  for (const NodePtr &c : close_over(traced, init))
    inputs.push_back(c);
  return results(ir::while_loop(std::move(inputs), int64_t(init.size()),
                                std::move(traced[0].region), std::move(traced[1].region)));
}

namespace {
// hi - lo, 0 when hi <= lo, without overflowing (INT64_MIN - (INT64_MAX - 1) wrapped to 2): the
// difference of two bounds of one integer type always fits uint64.
int64_t trip_count(const Array &lo, const Array &hi) {
  uint64_t trips = 0;
  if (is_unsigned(lo.dtype())) {
    const auto l = lo.item<uint64_t>(), h = hi.item<uint64_t>();
    trips = h > l ? h - l : 0;
  } else {
    const auto l = lo.item<int64_t>(), h = hi.item<int64_t>();
    trips = h > l ? uint64_t(h) - uint64_t(l) : 0;
  }
  // More trips than a scan's length holds would not end anyway.
  return int64_t(std::min<uint64_t>(trips, std::numeric_limits<int64_t>::max()));
}
} // namespace

Arrays fori_loop(const Array &lower, const Array &upper,
                 const std::function<Arrays(const Array &, const Arrays &)> &body_fun,
                 const Arrays &init_val, bool single) {
  for (const Array *bound : {&lower, &upper})
    if (bound->ndim() != 0 || !is_integer(bound->dtype()))
      throw TypeError(fmt::format("lax.fori_loop: lower and upper must be integer scalars, got "
                                  "{}",
                                  type_text(*bound->node())));
  const api::ResultType type = api::result_type({lower.node(), upper.node()});
  const Array lo(api::cast_node(lower.node(), type.dtype, type.weak));
  const Array hi(api::cast_node(upper.node(), type.dtype, type.weak));
  const Array one(ir::literal(1, type.dtype, type.weak));
  Arrays init{lo};
  init.insert(init.end(), init_val.begin(), init_val.end());
  auto step = [&](const Arrays &v) {
    Arrays next{v[0] + one};
    for (Array &x : body_fun(v[0], Arrays(v.begin() + 1, v.end())))
      next.push_back(std::move(x));
    return next;
  };
  // Concrete bounds: a scan of the trip count, as JAX's, which reverse mode differentiates.
  std::unordered_map<const Node *, bool> data;
  if (from_data(*lower.node(), data) && from_data(*upper.node(), data)) {
    const int64_t trips = trip_count(lo, hi);
    Arrays out = scan(
                     [&](const Arrays &carry, const Arrays &) {
                       return std::pair<Arrays, Arrays>{step(carry), {}};
                     },
                     init, {}, trips, false, single)
                     .first;
    return Arrays(out.begin() + 1, out.end());
  }
  Arrays out =
      while_loop([&](const Arrays &v) { return Arrays{v[0] < hi}; }, step, std::move(init), single);
  return Arrays(out.begin() + 1, out.end());
}

std::pair<Arrays, Arrays> scan(const ScanFn &f, const Arrays &init_val, const Arrays &xs,
                               std::optional<int64_t> length, bool reverse, bool single) {
  std::vector<int64_t> lengths;
  for (const Array &x : xs) {
    if (x.ndim() == 0)
      throw ValueError(fmt::format("scan got value with no leading axis to scan over: {}.",
                                   type_text(*x.node())));
    lengths.push_back(x.shape()[0]);
  }
  if (length) {
    if (std::any_of(lengths.begin(), lengths.end(), [&](int64_t l) { return l != *length; }))
      throw ValueError(fmt::format(
          "scan got `length` argument of {} which disagrees with leading axis sizes [{}].", *length,
          fmt::join(lengths, ", ")));
    if (*length < 0) throw ValueError(fmt::format("scan got a negative `length`: {}", *length));
  } else if (lengths.empty()) {
    throw ValueError("scan got no values to scan over and `length` not provided.");
  } else if (std::any_of(lengths.begin(), lengths.end(),
                         [&](int64_t l) { return l != lengths[0]; })) {
    throw ValueError(fmt::format("scan got values with different leading axis sizes: {}.",
                                 fmt::join(lengths, ", ")));
  }
  const int64_t steps = length ? *length : lengths[0];
  // Type carriers for the params: the carries, then one row of each xs.
  std::vector<NodePtr> init = nodes_of(init_val), rows;
  for (const Array &x : xs) {
    const Shape row(x.shape().begin() + 1, x.shape().end());
    rows.push_back(ir::parameter(0, x.dtype(), row, 0, x.weak_type()));
  }
  const size_t carries = init.size();
  size_t ys = 0;
  const RegionFn body = [&](const Arrays &v) {
    auto [carry, y] = f(Arrays(v.begin(), v.begin() + std::ptrdiff_t(carries)),
                        Arrays(v.begin() + std::ptrdiff_t(carries), v.end()));
    ys = y.size();
    carry.insert(carry.end(), y.begin(), y.end());
    return carry;
  };
  auto like = [&] {
    std::vector<NodePtr> all = init;
    all.insert(all.end(), rows.begin(), rows.end());
    return all;
  };
  std::vector<Traced> traced;
  for (int pass = 0; pass < 2; ++pass) {
    traced = {trace(body, like())};
    const std::vector<NodePtr> &out = traced[0].region.outputs;
    if (out.size() != carries + ys ||
        !promote_weak_inits(init,
                            std::vector<NodePtr>(out.begin(), out.end() - std::ptrdiff_t(ys))))
      break;
  }
  const std::vector<NodePtr> &out = traced[0].region.outputs;
  check_carry(std::vector<NodePtr>(traced[0].region.params.begin(),
                                   traced[0].region.params.begin() + std::ptrdiff_t(carries)),
              std::vector<NodePtr>(out.begin(), out.end() - std::ptrdiff_t(ys)), single,
              "scan body");
  std::vector<NodePtr> inputs = init;
  for (const Array &x : xs)
    inputs.push_back(x.node());
  for (const NodePtr &c : close_over(traced, like()))
    inputs.push_back(c);
  const NodePtr op = ir::scan(std::move(inputs), int64_t(carries), int64_t(xs.size()), steps,
                              reverse, std::move(traced[0].region));
  const Arrays all = results(op);
  return {Arrays(all.begin(), all.begin() + std::ptrdiff_t(carries)),
          Arrays(all.begin() + std::ptrdiff_t(carries), all.end())};
}

Arrays switch_(const Array &index, const std::vector<RegionFn> &branches, const Arrays &operands,
               const char *api) {
  if (index.ndim() != 0)
    throw TypeError(fmt::format("Branch index must be scalar, got {} of shape ({}{}).",
                                type_text(*index.node()), fmt::join(index.shape(), ", "),
                                index.ndim() == 1 ? "," : ""));
  if (!is_integer(index.dtype()))
    throw TypeError(fmt::format("Index type must be an integer, got {} as {}",
                                type_text(*index.node()), dtype_name(index.dtype())));
  std::vector<std::string> names;
  for (size_t i = 0; i < branches.size(); ++i)
    names.push_back(fmt::format("branch {}", i));
  return switch_impl(index, branches, operands, api, names, 0);
}

void check_same_structure(const char *what, const std::string &first, const std::string &second) {
  if (first != second)
    throw TypeError(fmt::format("{} must have the same pytree structure, but they differ: "
                                "PyTreeDef({}) and PyTreeDef({})",
                                what, first, second));
}

Arrays cond(const Array &pred, const RegionFn &true_fun, const RegionFn &false_fun,
            const Arrays &operands) {
  if (pred.ndim() != 0)
    throw TypeError(fmt::format("Pred must be a scalar, got {} of shape ({}{}).",
                                type_text(*pred.node()), fmt::join(pred.shape(), ", "),
                                pred.ndim() == 1 ? "," : ""));
  Array p = pred;
  if (pred.dtype() != DType::bool_) p = pred != Array(0);
  return switch_impl(p.astype(DType::int32), {false_fun, true_fun}, operands, "cond",
                     {"false_fun", "true_fun"}, 1);
}

} // namespace jx::lax::detail
