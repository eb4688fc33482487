// Stage 0: tracing (tracing.h).
#include "api/tracing.h"

#include "api/internal.h"
#include "ir/builder.h"

namespace jx::api {

TracedFunction trace_function(const std::vector<ShapeDtypeStruct> &specs,
                              const detail::TraceFn &f) {
  TracedFunction traced{ir::new_trace_id(), {}, {}};
  std::vector<Array> args;
  for (size_t i = 0; i < specs.size(); ++i) {
    traced.params.push_back(ir::parameter(int64_t(i), specs[i].dtype, specs[i].shape,
                                          traced.trace_id, specs[i].weak_type));
    args.push_back(wrap(traced.params.back()));
  }
  const ir::TraceScope running(traced.trace_id);
  for (const Array &out : f(args))
    traced.outputs.push_back(out.node());
  return traced;
}

} // namespace jx::api
