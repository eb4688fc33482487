// Element-by-element comparison of a backend's result with the interpreter's, within the tolerance
// that legitimate rounding differences need.
//
// Tolerance policy. Integers and bools must be equal. Floats must be equal (NaN matches NaN, +0
// matches -0, an infinity only itself) or within `ulps`, except downstream of ops that a correct
// implementation may round differently: float sums, products, maxima, minima and contractions (the
// order of the terms, the accumulator's precision, the sign of a zero result) and libm functions
// (ops.def's ulps column: exp, pow, atan2, ..., erf_inv). For graphs with such ops,
// tolerance_for evaluates with the interpreter a graph of float64 bounds on |actual - expected|,
// one per element, to first order:
//   * a reduction or contraction of n terms: n * eps * sum(|terms|), the worst case of any order in
//     the result's precision (the interpreter accumulates float32 in double), plus n subnormal
//     steps;
//   * a libm function: ulps * eps * |result| and ulps subnormal steps (ops.def: 4, 16 for erf_inv,
//     a polynomial approximation); a zero result is exact unless it may have underflowed (exp,
//     exp2, erfc, pow);
//   * every later op propagates bounds by its condition: sums add them, products scale them, exp(x)
//     widens them by exp(x) * expm1(bound), movement ops move them, max and min take the larger.
// A bound is infinite, and the element unchecked, where no finite bound holds: an inexact value
// reaching a discontinuity (comparisons, floor, casts to int, argmax, a division by a zero of
// unknown sign, log or sqrt near 0, tan near a pole, an infinity times a factor that may be 0), or
// sums and products whose partial results may overflow in one order only. Infinities and NaNs that
// no finite error can change are compared exactly. The generator keeps inexact values away from
// discontinuous ops, so few elements go unchecked (the tests print how many).
// A float element with a finite bound matches when |actual - expected| <= 2 * bound; the factor
// covers the bound's own rounding and the second-order terms it drops.
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

// The index of element `flat` of a row-major array of shape, as "[i, j, k]".
std::string multi_index(const Shape &shape, int64_t flat);

} // namespace jx::diff
