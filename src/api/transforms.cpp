// The transformations' non-template half: tracing for a transform, its leak rule, and jvp's
// checks and substitution.
#include <jx/transforms.h>

#include <fmt/format.h>

#include "api/internal.h"
#include "interp/interp.h"
#include "ir/printer.h"
#include "transforms/jvp.h"
#include "transforms/substitute.h"

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
  const bool has_tangent = is_floating(out.dtype);
  return ir::broadcast(ir::literal(0, has_tangent ? out.dtype : bool_, has_tangent && out.weak),
                       out.shape, {});
}
} // namespace

TransformTrace trace_for_transform(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f) {
  TransformTrace traced{ir::new_trace_id(), {}, {}};
  std::vector<Array> args;
  for (size_t i = 0; i < specs.size(); ++i) {
    traced.params.push_back(ir::parameter(int64_t(i), specs[i].dtype, specs[i].shape,
                                          traced.trace_id, specs[i].weak_type));
    args.push_back(api::wrap(traced.params.back()));
  }
  {
    const ir::TraceScope running(traced.trace_id);
    for (const Array &out : f(args))
      traced.outputs.push_back(out.node());
  }
  // Unlike jit's rule, an outer trace's parameter is legal here: the transform runs inside it.
  for (const ir::Node *n : ir::topological_order(traced.outputs))
    if (n->op == ir::Op::Parameter && n->attrs.size() > 1 && n->attrs[1] != traced.trace_id &&
        !ir::trace_running(n->attrs[1]))
      interp::throw_concretization_error(*n);
  return traced;
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
  std::vector<ShapeDtypeStruct> specs;
  for (size_t i = 0; i < primals.size(); ++i) {
    const Array &p = primals[i], &t = tangents[i];
    if (is_floating(p.dtype()) && t.dtype() != p.dtype())
      throw TypeError(fmt::format(
          "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
          "case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype {} and "
          "so expected tangent dtype {}, but got tangent dtype {} instead.",
          dtype_name(p.dtype()), dtype_name(p.dtype()), dtype_name(t.dtype())));
    if (p.shape() != t.shape())
      throw ValueError(fmt::format("jvp called with different primal and tangent shapes;Got "
                                   "primal shape {} and tangent shape as {}",
                                   shape_str(p.shape()), shape_str(t.shape())));
    specs.push_back({.shape = p.shape(), .dtype = p.dtype(), .weak_type = p.weak_type()});
  }
  const TransformTrace traced = trace_for_transform(specs, f);
  // Tangent parameters at positions [n, 2n) of the same trace; only float primals have one.
  const size_t n = primals.size();
  std::vector<ir::NodePtr> seeds, tangent_params;
  transforms::Substitution map;
  for (size_t i = 0; i < n; ++i) {
    map.emplace(traced.params[i].get(), primals[i].node());
    if (!is_floating(specs[i].dtype)) continue;
    seeds.push_back(traced.params[i]);
    tangent_params.push_back(ir::parameter(int64_t(n + i), specs[i].dtype, specs[i].shape,
                                           traced.trace_id, specs[i].weak_type));
    map.emplace(tangent_params.back().get(), tangents[i].node());
  }
  std::vector<ir::NodePtr> roots = traced.outputs;
  for (const ir::NodePtr &t : transforms::jvp(traced.outputs, seeds, tangent_params))
    roots.push_back(t);
  for (size_t i = 0; i < traced.outputs.size(); ++i) {
    ir::NodePtr &t = roots[traced.outputs.size() + i];
    if (!t) t = zero_tangent(*traced.outputs[i]);
  }
  std::vector<Array> result;
  for (const ir::NodePtr &node : transforms::substitute(roots, map))
    result.push_back(api::wrap(node));
  return result;
}

} // namespace jx::detail
