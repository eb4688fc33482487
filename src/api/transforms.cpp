// The transformations' non-template half: tracing for a transform and its leak rule.
#include <jx/transforms.h>

#include <fmt/format.h>

#include "api/internal.h"
#include "interp/interp.h"
#include "ir/printer.h"
#include "transforms/substitute.h"

namespace jx::detail {

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

} // namespace jx::detail
