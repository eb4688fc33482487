// Function transformations: each traces the C++ function on fresh parameters, transforms the
// graph and substitutes the caller's arrays, so its result is an ordinary lazy array (eager,
// inside jx::jit, around a jitted function). Design: docs/design/transforms.md.
#pragma once

#include <jx/jit.h>

namespace jx {

namespace detail {

// f traced on fresh parameters of these specs under a new trace id. A parameter of a finished
// trace reaching the outputs is a leaked tracer (UnexpectedTracerError); one of a running trace
// (an outer jit's or transform's argument captured by a closure) is a constant.
struct TransformTrace {
  int64_t trace_id;
  std::vector<std::shared_ptr<const ir::Node>> params, outputs;
};
TransformTrace trace_for_transform(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f);

} // namespace detail

} // namespace jx
