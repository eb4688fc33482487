// Element-by-element comparison of a backend's result with the interpreter's, within the tolerance
// that legitimate rounding differences need.
//
// Tolerance policy. Integers and bools must be equal. Floats must be equal (NaN matches NaN, +0
// matches -0, an infinity only itself) or `ulps` apart, except where the graph contains ops whose
// result depends on the implementation: float sums, products and contractions (summation order,
// accumulator precision) and libm functions (exp, expm1, log, log1p, sin, cos, tan, tanh, pow,
// erf_inv). For those graphs tolerance_for computes, with the interpreter, a first-order bound on
// the difference any correct implementation may show at each element:
//   * at a reduction or contraction of n terms: n * eps * sum(|terms|), the worst case of any
//     summation order in the result's precision (the interpreter's float32 accumulates in double);
//   * at a libm function: 4 * eps * |result| (16 for erf_inv, a polynomial approximation);
//   * propagated through every later op by its condition: sums add bounds, products scale them,
//     exp(x) widens by exp(x) * expm1(bound), movement ops move them, max/min take the larger;
//     an op that may leave its domain (log, sqrt and division near 0, tan near a pole) and any
//     discontinuous op (comparisons, floor, casts to int, argmax, ...) fed an inexact value make
//     the bound infinite: the element cannot be checked (the generator avoids building these).
// A float element then matches when |actual - expected| <= 2 * bound (the factor covers the
// bound's own rounding and the second-order terms it drops).
#pragma once

#include <jx/array.h>

#include <cstdint>
#include <string>

#include "runtime/buffer.h"

namespace jx::diff {

struct Tolerance {
  // Floats match when at most this many units in the last place apart (both finite).
  int64_t ulps = 0;
  // Per-element float64 bound on |actual - expected|; an infinite or NaN entry marks an element
  // that cannot be checked. Null: every element must match exactly (up to ulps).
  runtime::BufferPtr bound;
};

struct CompareResult {
  bool ok = true;
  int64_t index = -1;    // first mismatching element, flat in C order
  std::string message;   // its multi-index, both values, their ulp distance and the bound
  int64_t unchecked = 0; // elements whose bound is not finite
};

// The tolerance a correct implementation of root's graph needs (see above).
Tolerance tolerance_for(const jx::Array &root, int64_t ulps = 0);

// Compares buffers holding like.dtype() elements of like.shape() in C order.
CompareResult compare_buffers(const jx::Array &like, runtime::BufferPtr expected,
                              runtime::BufferPtr actual, const Tolerance &tolerance);

} // namespace jx::diff
