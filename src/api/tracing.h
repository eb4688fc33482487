// Stage 0 of compiling: a function traced over fresh parameters into a graph. jit, the
// transformations and control flow's regions all trace through it.
#pragma once

#include <jx/jit.h>

#include <cstdint>
#include <vector>

#include "ir/node.h"

namespace jx::api {

struct TracedFunction {
  int64_t trace_id; // the parameters' trace: a value leaked from another cannot bind to them
  std::vector<ir::NodePtr> params, outputs;
};

// f run on parameter i typed as specs[i] (its shape, dtype and weak type), each a parameter of a
// trace of its own, running while f does.
TracedFunction trace_function(const std::vector<ShapeDtypeStruct> &specs, const detail::TraceFn &f);

} // namespace jx::api
