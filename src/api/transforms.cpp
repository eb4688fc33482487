// The transformations' non-template half: tracing for a transform, its leak rule, and each
// transformation's checks and substitutions.
#include <jx/transforms.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "api/internal.h"
#include "api/traced_program.h"
#include "api/tracing.h"
#include "interp/interp.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "transforms/batch.h"
#include "transforms/custom.h"
#include "transforms/jvp.h"
#include "transforms/substitute.h"
#include "transforms/transpose.h"

namespace jx::detail {

namespace {
// "PyTreeDef([*, *])": how JAX names a list of n arrays.
std::string tree_text(size_t n) {
  std::string stars;
  for (size_t i = 0; i < n; ++i)
    stars += i ? ", *" : "*";
  return fmt::format("PyTreeDef([{}])", stars);
}

// A symbolic zero tangent made concrete: zeros of a float output's type, bool zeros (JAX's float0)
// for an int or bool output.
ir::NodePtr zero_tangent(const ir::Node &out) {
  const bool has_tangent = is_inexact(out.dtype);
  return ir::broadcast(ir::literal(0, has_tangent ? out.dtype : bool_, has_tangent && out.weak),
                       out.shape, {});
}

ShapeDtypeStruct spec_of(const Array &a) {
  return {.shape = a.shape(), .dtype = a.dtype(), .weak_type = a.weak_type()};
}

// "float64[3,4]": JAX's str_short of an aval.
std::string type_text(const Shape &shape, DType dtype) {
  return fmt::format("{}[{}]", dtype_name(dtype), fmt::join(shape, ","));
}

// f traced, and its JVP with tangent parameters (positions n..2n of the trace) seeded at the
// float primals among `differentiated` (all if empty).
struct Linearized {
  TransformTrace traced;
  std::vector<ir::NodePtr> tangent_params; // one per primal; those of ints stay unused
  std::vector<ir::NodePtr> tangents;       // per output; nullptr: a symbolic zero
  transforms::Substitution primal_map;
};
Linearized linearize_traced(const TraceFn &f, const std::vector<Array> &primals,
                            const std::vector<bool> &differentiated) {
  std::vector<ShapeDtypeStruct> specs;
  for (const Array &p : primals)
    specs.push_back(spec_of(p));
  Linearized lin{trace_for_transform(specs, f), {}, {}, {}};
  // jnp.stack of expressions that differ in literals (the Simpson seed's 200 terms) as one
  // expression over a vector: exact, and its derivative is then one expression too, where the
  // stack's would be a slice and a reduction per term.
  lin.traced.outputs = passes::stack_to_broadcast(lin.traced.outputs);
  const size_t n = primals.size();
  std::vector<ir::NodePtr> seeds, seed_tangents;
  for (size_t i = 0; i < n; ++i) {
    lin.primal_map.emplace(lin.traced.params[i].get(), primals[i].node());
    lin.tangent_params.push_back(ir::parameter(int64_t(n + i), specs[i].dtype, specs[i].shape,
                                               lin.traced.trace_id, specs[i].weak_type));
    if (!is_inexact(specs[i].dtype) || (!differentiated.empty() && !differentiated[i])) continue;
    seeds.push_back(lin.traced.params[i]);
    seed_tangents.push_back(lin.tangent_params[i]);
  }
  lin.tangents = transforms::jvp(lin.traced.outputs, seeds, seed_tangents);
  for (const auto &[node, sharding] : lin.traced.constraints)
    add_constraint(transforms::substitute({node}, lin.primal_map)[0], sharding);
  return lin;
}

// Cotangents of the primals from cotangent parameters (positions 2n.. of the trace) of the first
// `differentiated` outputs; zeros where none reaches, bool zeros for int primals.
std::pair<std::vector<ir::NodePtr>, std::vector<ir::NodePtr>>
transpose_traced(const Linearized &lin, size_t differentiated) {
  const size_t n = lin.tangent_params.size();
  std::vector<ir::NodePtr> ct_params,
      outputs(lin.tangents.begin(), lin.tangents.begin() + std::ptrdiff_t(differentiated));
  for (size_t k = 0; k < differentiated; ++k) {
    const ir::Node &out = *lin.traced.outputs[k];
    ct_params.push_back(
        ir::parameter(int64_t(2 * n + k), out.dtype, out.shape, lin.traced.trace_id, out.weak));
  }
  std::vector<ir::NodePtr> cts = transforms::transpose(outputs, lin.tangent_params, ct_params);
  for (size_t i = 0; i < n; ++i)
    if (!cts[i]) cts[i] = zero_tangent(*lin.tangent_params[i]);
  return {std::move(ct_params), std::move(cts)};
}

// argnums checked against args (count, range, float dtypes unless allow_int) and normalized.
std::vector<int> argument_positions(const std::vector<int> &argnums,
                                    const std::string &argnums_text, const std::vector<Array> &args,
                                    const char *name, bool allow_int) {
  std::vector<int> positions;
  for (size_t k : detail::argument_positions(argnums, args.size(), argnums_text, name)) {
    const DType dtype = args[k].dtype();
    if (!is_inexact(dtype) && !allow_int)
      throw TypeError(fmt::format("{} requires real- or complex-valued inputs (input dtype "
                                  "that is a sub-dtype of np.inexact), but got {}. If you want "
                                  "to use Boolean- or integer-valued inputs, use vjp or set "
                                  "allow_int to True.",
                                  name, dtype_name(dtype)));
    positions.push_back(int(k));
  }
  return positions;
}

// The identity of n elements in dtype, as n rows of this shape: the standard basis.
ir::NodePtr basis(int64_t n, const Shape &shape, DType dtype) {
  const Shape square{n, n};
  ir::NodePtr eye = ir::select(
      ir::binary(ir::Op::Eq, ir::iota(DType::int64, square, 0), ir::iota(DType::int64, square, 1)),
      ir::broadcast(ir::literal(1, dtype, false), square, {}),
      ir::broadcast(ir::literal(0, dtype, false), square, {}));
  Shape rows = shape;
  rows.insert(rows.begin(), n);
  return ir::reshape(eye, rows);
}

std::vector<ir::NodePtr> nodes_of(const std::vector<Array> &arrays) {
  std::vector<ir::NodePtr> nodes;
  for (const Array &a : arrays)
    nodes.push_back(a.node());
  return nodes;
}

// A sharding of an example's array for the batch of them (vmap): the new leading axis whole.
Sharding with_unsplit_leading_axis(const Sharding &sharding) {
  if (const auto *named = std::get_if<NamedSharding>(&sharding.value())) {
    std::vector<PartitionSpec::Entry> entries{nullptr};
    entries.insert(entries.end(), named->spec().entries().begin(), named->spec().entries().end());
    return NamedSharding(named->mesh(), PartitionSpec(std::move(entries)));
  }
  if (const auto *positional = std::get_if<PositionalSharding>(&sharding.value())) {
    Shape shape = positional->shape();
    shape.insert(shape.begin(), 1);
    return positional->reshape(shape);
  }
  return sharding; // one device holds all of it
}

std::vector<Array> wrap_all(const std::vector<ir::NodePtr> &nodes) {
  std::vector<Array> out;
  for (const ir::NodePtr &n : nodes)
    out.push_back(api::wrap(n));
  return out;
}
} // namespace

TransformTrace trace_for_transform(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f) {
  const size_t constraints_before = constraint_count();
  api::TracedFunction run = api::trace_function(specs, f);
  TransformTrace traced{run.trace_id,
                        {run.params.begin(), run.params.end()},
                        {run.outputs.begin(), run.outputs.end()},
                        {}};
  traced.constraints = take_constraints(constraints_before);
  // Unlike jit's rule, an outer trace's parameter is legal here: the transform runs inside it.
  for (const ir::Node *n : ir::topological_order(traced.outputs))
    if (n->op == ir::Op::Parameter && n->attrs.size() > 1 && n->attrs[1] != traced.trace_id &&
        !ir::trace_running(n->attrs[1]))
      interp::throw_concretization_error(*n);
  return traced;
}

} // namespace jx::detail

namespace jx {
namespace detail {
int64_t register_custom_jvp(TangentRule rule) {
  return transforms::register_jvp_rule(
      [rule = std::move(rule)](const std::vector<ir::NodePtr> &primals,
                               const std::vector<ir::NodePtr> &tangents) {
        return rule(wrap_all(primals), wrap_all(tangents)).node();
      });
}

Array mark_custom_jvp(int64_t id, const Array &out, const std::vector<Array> &args) {
  if (!is_inexact(out.dtype())) return out; // nothing to differentiate
  return api::wrap(transforms::custom_jvp_node(id, out.node(), nodes_of(args)));
}

int64_t register_custom_vjp(CotangentRule bwd) {
  return transforms::register_vjp_rule(
      [bwd = std::move(bwd)](const std::vector<ir::NodePtr> &residuals, const ir::NodePtr &ct) {
        return nodes_of(bwd(wrap_all(residuals), api::wrap(ct)));
      });
}

Array mark_custom_vjp(int64_t id, const Array &out, const Array &fwd_out,
                      const std::vector<Array> &args, const std::vector<Array> &residuals) {
  if (fwd_out.shape() != out.shape() || fwd_out.dtype() != out.dtype())
    throw TypeError(fmt::format(
        "Custom VJP fwd rule must produce a pair (list or tuple of length two) where the first "
        "element represents the primal output (equal to the output of the custom_vjp-decorated "
        "function), but instead the fwd rule output's first element had shapes/dtypes of: {} "
        "while the custom_vjp-decorated function had output shapes/dtypes of: {}",
        type_text(fwd_out.shape(), fwd_out.dtype()), type_text(out.shape(), out.dtype())));
  if (!is_inexact(out.dtype())) return out; // nothing to differentiate
  return api::wrap(
      transforms::custom_vjp_node(id, out.node(), nodes_of(args), nodes_of(residuals)));
}
} // namespace detail

Array stop_gradient(const Array &x) {
  if (!is_inexact(x.dtype())) return x;
  return api::wrap(ir::unary(ir::Op::StopGradient, x.node()));
}
} // namespace jx

namespace jx::detail {

void throw_tangent_structure(const char *what, const std::string &primals,
                             const std::string &tangents) {
  throw TypeError(fmt::format("primal and tangent arguments to jax.{} must have the same tree "
                              "structure; primals have tree structure PyTreeDef({}) whereas "
                              "tangents have tree structure PyTreeDef({}).",
                              what, primals, tangents));
}

void throw_vmap_in_axes(size_t given, size_t arguments) {
  throw ValueError(fmt::format("vmap in_axes must be an int, None, or a tuple of entries "
                               "corresponding to the positional arguments passed to the function, "
                               "but got len(in_axes)={}, len(args)={}",
                               given, arguments));
}

std::vector<size_t> argument_positions(const std::vector<int> &argnums, size_t count,
                                       const std::string &argnums_text, const char *name) {
  const auto n = int(count);
  // JAX's max(argnums) raises for an empty tuple: nothing would be differentiated.
  if (argnums.empty())
    throw ValueError(fmt::format("{} with argnums=(): max() arg is an empty sequence (name at "
                                 "least one argument to differentiate with respect to)",
                                 name));
  const int max_argnum = *std::max_element(argnums.begin(), argnums.end());
  if (max_argnum >= n)
    throw TypeError(fmt::format("differentiating with respect to argnums={} requires at least {} "
                                "positional arguments to be passed by the caller, but got only "
                                "{} positional arguments.",
                                argnums_text, max_argnum + 1, n));
  std::vector<size_t> positions;
  for (int i : argnums) {
    if (i < -n)
      throw ValueError(fmt::format("Positional argument indices, e.g. for `static_argnums`, must "
                                   "have value greater than or equal to -len(args) and less "
                                   "than len(args), but got value {} for len(args) == {}.",
                                   i, n));
    positions.push_back(size_t((i + n) % n));
  }
  return positions;
}

std::vector<Array> jvp(const TraceFn &f, const std::vector<Array> &primals,
                       const std::vector<Array> &tangents, int arity) {
  if (primals.size() != tangents.size())
    throw TypeError(fmt::format("primal and tangent arguments to jax.jvp must have the same tree "
                                "structure; primals have tree structure {} whereas tangents have "
                                "tree structure {}.",
                                tree_text(primals.size()), tree_text(tangents.size())));
  if (arity >= 0 && size_t(arity) != primals.size())
    throw TypeError(fmt::format("jvp: the function takes {} array arguments, but {} primals were "
                                "given",
                                arity, primals.size()));
  for (size_t i = 0; i < primals.size(); ++i) {
    const Array &p = primals[i], &t = tangents[i];
    if (is_inexact(p.dtype()) && t.dtype() != p.dtype())
      throw TypeError(fmt::format(
          "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
          "case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype {} and "
          "so expected tangent dtype {}, but got tangent dtype {} instead.",
          dtype_name(p.dtype()), dtype_name(p.dtype()), dtype_name(t.dtype())));
    if (p.shape() != t.shape())
      throw ValueError(fmt::format("jvp called with different primal and tangent shapes;Got "
                                   "primal shape {} and tangent shape as {}",
                                   shape_str(p.shape()), shape_str(t.shape())));
  }
  const Linearized lin = linearize_traced(f, primals, {});
  transforms::Substitution map = lin.primal_map;
  for (size_t i = 0; i < primals.size(); ++i)
    if (is_inexact(primals[i].dtype()))
      map.emplace(lin.tangent_params[i].get(), tangents[i].node());
  std::vector<ir::NodePtr> roots = lin.traced.outputs;
  for (size_t i = 0; i < lin.tangents.size(); ++i)
    roots.push_back(lin.tangents[i] ? lin.tangents[i] : zero_tangent(*lin.traced.outputs[i]));
  return wrap_all(transforms::substitute(roots, map));
}

std::pair<std::vector<Array>, std::shared_ptr<const LinearMap>>
linearize(const TraceFn &f, const std::vector<Array> &primals, int arity) {
  if (arity >= 0 && size_t(arity) != primals.size())
    throw TypeError(fmt::format("linearize: the function takes {} array arguments, but {} primals "
                                "were given",
                                arity, primals.size()));
  const Linearized lin = linearize_traced(f, primals, {});
  std::vector<ir::NodePtr> tangents = lin.tangents;
  auto map = std::make_shared<LinearMap>();
  for (size_t i = 0; i < tangents.size(); ++i)
    if (!tangents[i]) tangents[i] = zero_tangent(*lin.traced.outputs[i]);
  map->inputs = lin.tangent_params;
  map->outputs = transforms::substitute(tangents, lin.primal_map);
  return {wrap_all(transforms::substitute(lin.traced.outputs, lin.primal_map)), std::move(map)};
}

std::pair<std::vector<Array>, std::shared_ptr<const LinearMap>>
vjp(const TraceFn &f, const std::vector<Array> &primals, int arity,
    const std::function<size_t()> &differentiated) {
  if (arity >= 0 && size_t(arity) != primals.size())
    throw TypeError(fmt::format("vjp: the function takes {} array arguments, but {} primals were "
                                "given",
                                arity, primals.size()));
  const Linearized lin = linearize_traced(f, primals, {});
  const size_t d = differentiated ? differentiated() : lin.traced.outputs.size();
  auto [ct_params, cts] = transpose_traced(lin, d);
  auto map = std::make_shared<LinearMap>();
  map->inputs = std::move(ct_params);
  map->outputs = transforms::substitute(cts, lin.primal_map);
  return {wrap_all(transforms::substitute(lin.traced.outputs, lin.primal_map)), std::move(map)};
}

std::vector<Array> apply(const LinearMap &map, LinearKind kind, const std::vector<Array> &args) {
  const bool vjp = kind == LinearKind::kVjp;
  if (args.size() != map.inputs.size())
    throw TypeError(fmt::format("{} function called with {} arrays, but it takes {}",
                                vjp ? "VJP" : "linearized", args.size(), map.inputs.size()));
  transforms::Substitution substitution;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Node &expected = *map.inputs[i];
    const Array &a = args[i];
    const bool dtype_matters = is_inexact(expected.dtype);
    if (a.shape() != expected.shape || (dtype_matters && a.dtype() != expected.dtype)) {
      if (vjp)
        throw ValueError(fmt::format(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got {}, but "
            "expected {} because the corresponding output of the differentiated function had "
            "JAX type {}",
            type_text(a.shape(), a.dtype()), type_text(expected.shape, expected.dtype),
            type_text(expected.shape, expected.dtype)));
      throw ValueError(fmt::format("linearized function called on tangent values inconsistent "
                                   "with the original primal values: got tangent {} for primal "
                                   "aval {}",
                                   type_text(a.shape(), a.dtype()),
                                   type_text(expected.shape, expected.dtype)));
    }
    ir::NodePtr node = a.node();
    if (dtype_matters && node->weak != expected.weak)
      node = ir::convert(node, expected.dtype, expected.weak);
    if (dtype_matters) substitution.emplace(&expected, std::move(node));
  }
  return wrap_all(transforms::substitute(map.outputs, substitution));
}

std::string argnums_text(const std::vector<int> &argnums, bool many) {
  if (!many) return fmt::format("{}", argnums.at(0));
  return argnums.size() == 1 ? fmt::format("({},)", argnums[0])
                             : fmt::format("({})", fmt::join(argnums, ", "));
}

void throw_wrong_aux(bool returned_pair) {
  if (returned_pair)
    throw TypeError("Gradient only defined for scalar-output functions. Output was a (value, aux) "
                    "pair: pass GradOptions{.has_aux = true} to return aux beside the gradient.");
  throw TypeError("has_aux=True requires the function to return a (value, aux) pair "
                  "(std::pair or std::tuple), but it returned an Array.");
}

std::pair<std::vector<Array>, std::vector<Array>>
value_and_grad(const TraceFn &f, const std::vector<Array> &args, const std::vector<int> &argnums,
               const std::string &argnums_text, bool allow_int, int arity) {
  const auto n = int(args.size());
  if (arity >= 0 && arity != n)
    throw TypeError(
        fmt::format("grad: the function takes {} array arguments, but {} were given", arity, n));
  const std::vector<int> positions =
      argument_positions(argnums, argnums_text, args, "grad", allow_int);
  std::vector<bool> differentiated(args.size(), false);
  for (int k : positions)
    differentiated[size_t(k)] = true;
  const Linearized lin = linearize_traced(f, args, differentiated);
  const ir::Node &value = *lin.traced.outputs.at(0);
  if (!value.shape.empty())
    throw TypeError(fmt::format("Gradient only defined for scalar-output functions. Output had "
                                "shape: {}.",
                                shape_str(value.shape)));
  if (!is_floating(value.dtype))
    throw TypeError(fmt::format("grad requires real-valued outputs (output dtype that is a "
                                "sub-dtype of np.floating), but got {}. For differentiation of "
                                "functions with integer outputs, use jax.vjp directly.",
                                dtype_name(value.dtype)));
  auto [ct_params, cts] = transpose_traced(lin, 1);
  transforms::Substitution map = lin.primal_map;
  map.emplace(ct_params[0].get(), ir::literal(1, value.dtype, value.weak));
  std::vector<ir::NodePtr> roots = lin.traced.outputs;
  for (int k : positions)
    roots.push_back(cts[size_t(k)]);
  std::vector<Array> all = wrap_all(transforms::substitute(roots, map));
  const auto split = std::ptrdiff_t(lin.traced.outputs.size());
  return {{all.begin(), all.begin() + split}, {all.begin() + split, all.end()}};
}

std::vector<Array> vmap(const TraceFn &f, const std::vector<Array> &args,
                        const std::vector<std::optional<int64_t>> &in_axes,
                        const std::vector<std::optional<int64_t>> &out_axes, bool one_out_axis,
                        std::optional<int64_t> axis_size, int arity) {
  const size_t n = args.size();
  if (arity >= 0 && size_t(arity) != n)
    throw TypeError(
        fmt::format("vmap: the function takes {} array arguments, but {} were given", arity, n));
  if (in_axes.size() != n)
    throw ValueError(fmt::format("vmap in_axes must be an int, None, or a tuple of entries "
                                 "corresponding to the positional arguments passed to the "
                                 "function, but got len(in_axes)={}, len(args)={}",
                                 in_axes.size(), n));
  // Each mapped argument's axis, normalized, and its size.
  std::vector<std::optional<int64_t>> axes(n);
  std::vector<int64_t> sizes;
  std::vector<size_t> mapped;
  for (size_t i = 0; i < n; ++i) {
    if (!in_axes[i]) continue;
    const int64_t axis = *in_axes[i], rank = args[i].ndim();
    if (axis >= rank || axis < -rank)
      throw ValueError(fmt::format("vmap was requested to map its argument along axis {}, which "
                                   "implies that its rank should be at least {}, but is only {} "
                                   "(its shape is {})",
                                   axis, axis >= 0 ? axis + 1 : -axis, rank,
                                   shape_str(args[i].shape())));
    axes[i] = axis < 0 ? axis + rank : axis;
    sizes.push_back(args[i].shape()[size_t(*axes[i])]);
    mapped.push_back(i);
  }
  std::vector<int64_t> all_sizes = sizes;
  if (axis_size) all_sizes.push_back(*axis_size);
  if (all_sizes.empty())
    throw ValueError("vmap must have at least one non-None value in in_axes or axis_size must be "
                     "specified");
  const int64_t size = all_sizes[0];
  if (std::any_of(all_sizes.begin(), all_sizes.end(), [&](int64_t s) { return s != size; })) {
    // JAX's report: each distinct size, the most common first, with its first argument.
    std::vector<std::pair<int64_t, int64_t>> counts; // (size, count) in order of appearance
    for (int64_t s : sizes) {
      auto it = std::find_if(counts.begin(), counts.end(), [&](auto &c) { return c.first == s; });
      if (it == counts.end())
        counts.emplace_back(s, 1);
      else
        ++it->second;
    }
    std::stable_sort(counts.begin(), counts.end(),
                     [](auto &a, auto &b) { return a.second > b.second; });
    std::string msg = "vmap got inconsistent sizes for array axes to be mapped:\n";
    if (axis_size) msg += fmt::format("  * the `axis_size` argument was {};\n", *axis_size);
    for (size_t c = 0; c < counts.size(); ++c) {
      const auto [s, count] = counts[c];
      const size_t k = mapped[size_t(std::find(sizes.begin(), sizes.end(), s) - sizes.begin())];
      const std::string where = fmt::format("axis {} of args[{}] of type {}", *in_axes[k], k,
                                            type_text(args[k].shape(), args[k].dtype()));
      if (count == 1)
        msg += fmt::format("  * one axis had size {}: {};\n", s, where);
      else
        msg += fmt::format("  * {} axes ({} of them) had size {}, e.g. {};\n",
                           c == 0 ? "most" : "some", count, s, where);
    }
    msg.resize(msg.size() - 2);
    throw ValueError(msg);
  }
  // Trace one example: mapped arguments without their axis.
  std::vector<ShapeDtypeStruct> specs;
  for (size_t i = 0; i < n; ++i) {
    ShapeDtypeStruct spec = spec_of(args[i]);
    if (axes[i]) spec.shape.erase(spec.shape.begin() + *axes[i]);
    specs.push_back(std::move(spec));
  }
  const TransformTrace traced = trace_for_transform(specs, f);
  std::vector<ir::NodePtr> params, batched;
  transforms::Substitution map;
  for (size_t i = 0; i < n; ++i) {
    const ir::NodePtr &arg = args[i].node();
    if (!axes[i]) {
      map.emplace(traced.params[i].get(), arg);
      continue;
    }
    Shape shape = specs[i].shape;
    shape.insert(shape.begin(), size);
    params.push_back(traced.params[i]);
    batched.push_back(
        ir::parameter(int64_t(n + i), specs[i].dtype, shape, traced.trace_id, specs[i].weak_type));
    map.emplace(batched.back().get(), transforms::move_axis(arg, *axes[i], 0));
  }
  // Constrained values are batched too: an example's sharding with the batch axis unsplit.
  std::vector<ir::NodePtr> batch_roots = traced.outputs;
  for (const auto &[node, sharding] : traced.constraints)
    batch_roots.push_back(node);
  std::vector<transforms::BatchedOutput> outs =
      transforms::batch(batch_roots, params, batched, size);
  for (size_t k = 0; k < traced.constraints.size(); ++k) {
    const transforms::BatchedOutput &c = outs[traced.outputs.size() + k];
    const Sharding &sharding = traced.constraints[k].second;
    add_constraint(transforms::substitute({c.node}, map)[0],
                   c.batched ? with_unsplit_leading_axis(sharding) : sharding);
  }
  outs.resize(traced.outputs.size());
  if (!one_out_axis && out_axes.size() != outs.size())
    throw ValueError(fmt::format("vmap out_axes specification must be a tree prefix of the "
                                 "corresponding value: got {} out_axes for {} outputs",
                                 out_axes.size(), outs.size()));
  std::vector<ir::NodePtr> roots;
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::optional<int64_t> out_axis = out_axes.at(one_out_axis ? 0 : k);
    const auto &[node, is_batched] = outs[k];
    if (!out_axis) {
      if (is_batched)
        throw ValueError("vmap has mapped output (axis_name=None) but out_axes is None");
      roots.push_back(node);
      continue;
    }
    const auto rank = int64_t(node->shape.size()) + (is_batched ? 0 : 1);
    if (*out_axis >= rank || *out_axis < -rank)
      throw ValueError(
          fmt::format("axis {} is out of bounds for array of dimension {}", *out_axis, rank));
    const int64_t to = *out_axis < 0 ? *out_axis + rank : *out_axis;
    if (is_batched) {
      roots.push_back(transforms::move_axis(node, 0, to));
    } else {
      // An output that does not depend on a mapped argument: the same for every example.
      Shape shape = node->shape;
      shape.insert(shape.begin() + to, size);
      std::vector<int64_t> dims;
      for (int64_t a = 0; a < rank; ++a)
        if (a != to) dims.push_back(a);
      roots.push_back(ir::broadcast(node, shape, dims));
    }
  }
  return wrap_all(transforms::substitute(roots, map));
}

std::vector<Array> jacobian(const TraceFn &f, const std::vector<Array> &args,
                            const std::vector<int> &argnums, const std::string &argnums_text,
                            bool forward, int arity) {
  const char *name = forward ? "jacfwd" : "jacrev";
  if (arity >= 0 && size_t(arity) != args.size())
    throw TypeError(fmt::format("{}: the function takes {} array arguments, but {} were given",
                                name, arity, args.size()));
  std::vector<ir::NodePtr> jacobians;
  for (int k : argument_positions(argnums, argnums_text, args, name, false)) {
    std::vector<bool> differentiated(args.size(), false);
    differentiated[size_t(k)] = true;
    const Linearized lin = linearize_traced(f, args, differentiated);
    const ir::NodePtr &out = lin.traced.outputs.at(0);
    if (!is_floating(out->dtype))
      throw TypeError(fmt::format("{} requires real-valued outputs (output dtype that is a "
                                  "sub-dtype of np.floating), but got {}. For differentiation "
                                  "of functions with integer outputs, use jax.vjp directly.",
                                  name, dtype_name(out->dtype)));
    const ir::NodePtr &x = lin.traced.params[size_t(k)];
    Shape shape = out->shape;
    shape.insert(shape.end(), x->shape.begin(), x->shape.end());
    int64_t n = 1;
    for (int64_t d : forward ? x->shape : out->shape)
      n *= d;
    // The linear map (x's tangent to the output's, or its transpose) mapped over a basis.
    ir::NodePtr linear, input;
    if (forward) {
      linear = lin.tangents[0];
      input = lin.tangent_params[size_t(k)];
    } else {
      auto [ct_params, cts] = transpose_traced(lin, 1);
      linear = cts[size_t(k)];
      input = ct_params[0];
    }
    ir::NodePtr jac;
    if (linear) {
      const transforms::BatchedOutput b =
          transforms::batch({linear}, {input}, {basis(n, input->shape, input->dtype)}, n)[0];
      // Forward: [n] + out, the basis index last. Reverse: [m] + x, already in order.
      if (b.batched)
        jac = ir::reshape(
            forward ? transforms::move_axis(b.node, 0, int64_t(out->shape.size())) : b.node, shape);
    }
    if (!jac) jac = ir::broadcast(ir::literal(0, x->dtype, false), shape, {});
    jacobians.push_back(transforms::substitute({jac}, lin.primal_map)[0]);
  }
  return wrap_all(jacobians);
}

} // namespace jx::detail
