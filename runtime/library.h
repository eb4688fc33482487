// Library routines: the ops that run on whole buffers rather than as generated kernels (ops.def's
// Library kind: cumulative sums, products, maxima and minima; sort; argsort), called by compiled
// programs' Library steps and by the reference evaluator, so the two agree bit for bit.
#pragma once

#include <jx/dtype.h>

#include <cstdint>
#include <vector>

namespace jx::runtime {

enum class LibraryOp : int32_t {
  CumSum,
  CumProd,
  CumMax,
  CumMin,
  Sort,
  ArgSort,
  ScatterSet,
  ScatterAdd,
  ScatterMul,
  ScatterMin,
  ScatterMax
};
inline constexpr int32_t library_op_count = 11;

constexpr bool is_scatter(LibraryOp op) { return op >= LibraryOp::ScatterSet; }

struct Library {
  LibraryOp op = LibraryOp::CumSum;
  int64_t axis = 0;
  bool reverse = false; // cumulative ops: from the end of the axis
  int64_t count = 0;    // scatters: the number of indices
  bool operator==(const Library &) const = default;
};

// Whether the routine exists for inputs of dtype: cumulative ops and sort take int32, int64,
// float32 and float64 (sort bool too), argsort and scatters every dtype.
bool library_supports(LibraryOp op, DType dtype);

// out (shape's elements: of dtype, or int64 for argsort) from inputs (shape's elements of dtype
// each; argsort: one or more keys, the first the primary one; scatters: x, lib.count int64
// indices, and the updates, shape's elements with the axis's extent replaced by lib.count). Lines
// along axis are independent and run on the pool; each line is computed in order (cumulative ops:
// as NumPy's accumulate), so the result does not depend on the pool's size. Sorts order NaNs last;
// argsort is stable.
void run_library(const Library &lib, DType dtype, const std::vector<int64_t> &shape,
                 const std::vector<const void *> &inputs, void *out);

} // namespace jx::runtime
