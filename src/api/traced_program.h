// jx::jit's traced program (detail::Program): shared by jit's calls and by jx::aot, which writes
// its compiled form out.
#pragma once

#include <jx/jit.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "compile/executable.h"
#include "ir/node.h"

namespace jx::detail {

class Program {
public:
  std::vector<ShapeDtypeStruct> specs;
  JitOptions options;
  std::vector<ir::NodePtr> params, outputs;
  // Resolved at trace time: options' shardings, else the arguments' own (propagated to outputs
  // of an argument's shape).
  std::vector<std::optional<Sharding>> in_shardings, out_shardings;
  // with_sharding_constraint inside the traced function: values materialized with a placement.
  std::vector<std::pair<ir::NodePtr, Sharding>> constraints;
  std::once_flag compiled;
  std::unique_ptr<compile::Executable> executable;
};

// with_sharding_constraint's records on the jit trace running on this thread (none outside
// one). A transform takes those made while its own trace ran (their nodes read its parameters)
// and adds them back mapped onto its result's nodes.
size_t constraint_count();
std::vector<std::pair<ir::NodePtr, Sharding>> take_constraints(size_t from);
void add_constraint(ir::NodePtr node, Sharding sharding);

} // namespace jx::detail
