// Which contractions run as BLAS GEMMs (the cost model), and how they read their operands:
// transposes and broadcasts of an operand become strides, never a copy.
#pragma once

#include <optional>
#include <string>

#include "ir/node.h"
#include "runtime/gemm.h"

namespace jx::passes {

struct GemmPlan {
  // The nodes the GEMM reads from memory: the dot's operands, or what their transposes and
  // broadcasts read (fusion materializes them).
  const ir::Node *lhs = nullptr, *rhs = nullptr;
  runtime::Gemm gemm;
};

// A dot_general runs as a GEMM when it is floating point, its batch, free and contracted axes
// group into (batch, m, k) x (batch, k, n) with strides BLAS accepts, and it is a matrix product
// worth a library call (not one dot product per element, as the Simpson seed's
// einsum('i...,i...'), nor an outer product, nor products of a few thousand flops each: the fused
// loop does those in one pass). Otherwise nullopt, and `why` says what kept it a loop.
std::optional<GemmPlan> plan_gemm(const ir::Node &dot, std::string *why = nullptr);

} // namespace jx::passes
