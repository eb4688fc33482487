// Contractions as the runtime runs them: batched GEMMs over strided operands, cut into a grid of
// tiles fixed by the shape (so a result's bits never depend on threads or devices), each tile one
// single-threaded OpenBLAS call on the pool's thread that runs it.
#pragma once

#include <jx/dtype.h>

#include <cstdint>
#include <vector>

namespace jx::runtime {

// out[b, i, j] = sum_p lhs[b, i, p] * rhs[b, p, j] for a row-major out of (batch, m, n). Operands
// are read at element offsets from strides (their transposes and broadcasts folded in): lhs at
// b * lhs[0] + i * lhs[1] + p * lhs[2], rhs at b * rhs[0] + p * rhs[1] + j * rhs[2].
struct Gemm {
  int64_t batch = 0, m = 0, n = 0, k = 0;
  int64_t lhs[3] = {}, rhs[3] = {};
};

// Whether BLAS can read an operand of rows x cols with these strides (one of them 1, the other a
// leading dimension of at least the extent it spans), as the runtime calls it.
bool blas_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

// The tiles of a GEMM: {b, i0, i1, j0, j1} each, from its shape alone. Large products are cut
// into about four tiles (two threads each get two; more tiles cost packing, measured in
// docs/architecture.md), batches into one tile per matrix.
std::vector<int64_t> gemm_tiles(const Gemm &g);

// Computes tile t of gemm_tiles(g) (float32 or float64).
void gemm_tile(const Gemm &g, DType dtype, const int64_t *tile, const void *lhs, const void *rhs,
               void *out);

} // namespace jx::runtime
