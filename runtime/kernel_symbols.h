// Every function compiled kernels call besides libmvec's own variants: the tier's math wrappers
// (runtime/vector_math.h) and scalar helpers (jax.scipy's erf_inv, NumPy's integer power). The
// JIT binds their names to these addresses; ahead-of-time objects link against the link names.
#pragma once

#include <vector>

#include "runtime/vector_math.h"

namespace jx::runtime {

std::vector<MathSymbol> kernel_symbols(MathTier tier);

} // namespace jx::runtime
