// Library routines: the ops that run on whole buffers rather than as generated kernels (ops.def's
// Library kind: cumulative sums, products, maxima and minima; sort; argsort; scatters; linear
// algebra through LAPACK), called by compiled programs' Library steps and by the reference
// evaluator, so the two agree bit for bit.
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
  ScatterMax,
  Cholesky,
  Solve,
  Determinant,
  Eigh,
  Svd,
  Qr,
  Eig,
  Fft
};
inline constexpr int32_t library_op_count = 19;

constexpr bool is_scatter(LibraryOp op) {
  return op >= LibraryOp::ScatterSet && op <= LibraryOp::ScatterMax;
}
constexpr bool is_linalg(LibraryOp op) {
  return op >= LibraryOp::Cholesky && op <= LibraryOp::Eig;
}

struct Library {
  LibraryOp op = LibraryOp::CumSum;
  int64_t axis = 0;
  bool reverse = false; // cumulative ops: from the end of the axis; fft: the inverse transform
  int64_t count = 0;    // scatters: the number of indices
  int64_t mode = 0;     // linear algebra: which outputs (see linalg_output_shape)
  bool operator==(const Library &) const = default;
};

// Whether the routine exists for inputs of dtype: cumulative ops and sort take int32, int64,
// float32 and float64 (sort bool too), argsort and scatters every dtype, linear algebra and fft
// floats.
bool library_supports(LibraryOp op, DType dtype);

// out (shape's elements: of dtype, or int64 for argsort) from inputs (shape's elements of dtype
// each; argsort: one or more keys, the first the primary one; scatters: x, lib.count int64
// indices, and the updates, shape's elements with the axis's extent replaced by lib.count). Lines
// along axis are independent and run on the pool; each line is computed in order (cumulative ops:
// as NumPy's accumulate), so the result does not depend on the pool's size. Sorts order NaNs last;
// argsort is stable. fft: inputs the real and the imaginary parts (float32 or float64), out the
// complex transform along axis (exp(-2 pi i jk / n); lib.reverse: exp(+2 pi i jk / n), no 1 / n)
// of the matching precision, runtime/fft.h's.
void run_library(const Library &lib, DType dtype, const std::vector<int64_t> &shape,
                 const std::vector<const void *> &inputs, void *out);

// Linear algebra's routines take matrices (..., m, n), one per leading index, and their shape is
// the extent run_library is given: the operand's, or for solve b's (..., n, k) (a is (..., n, n);
// x has b's shape). The output, row-major, by op and mode:
//   cholesky: L (..., n, n), lower, zeros above; NaNs where a is not positive definite.
//   determinant: mode 0 det (...); mode 1 (..., 2) [sign, log|det|] (NumPy's slogdet).
//   eigh (of the lower triangle): mode 0 (..., n + 1, n), the ascending eigenvalues, then the
//     eigenvectors as rows; mode 1 the eigenvalues (..., n).
//   svd: mode 0 the descending singular values (..., k), k = min(m, n); mode 1 (..., m k + k + k n)
//     U (m x k), s, V^T (k x n); mode 2 (..., m m + k + n n) U (m x m), s, V^T (n x n). NaNs
//     where LAPACK does not converge.
//   qr: mode 0 (..., m k + k n) Q (m x k), R (k x n); mode 1 (..., m m + m n) Q (m x m),
//     R (m x n).
//   eig (of a real matrix; the output is complex, of the matching precision): mode 0
//     (..., n + 1, n), the eigenvalues in LAPACK's order, then the unit right eigenvectors as
//     columns (NumPy's v); mode 1 the eigenvalues (..., n). NaNs where LAPACK does not converge.
std::vector<int64_t> linalg_output_shape(const Library &lib, const std::vector<int64_t> &extent);

// The number of modes an op has (1 where it has none).
int64_t linalg_mode_count(LibraryOp op);

void run_linalg(const Library &lib, DType dtype, const std::vector<int64_t> &extent,
                const std::vector<const void *> &inputs, void *out);

} // namespace jx::runtime
