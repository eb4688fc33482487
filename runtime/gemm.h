// Contractions as the runtime runs them: batched GEMMs over strided operands, cut into a grid of
// tiles fixed by the shape and the machine (so a result's bits never depend on the pool's size or
// the devices), each tile one single-threaded OpenBLAS call on the pool's thread that runs it.
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

// The tiles of a GEMM: {b, i0, i1, j0, j1} each, from its shape and `parallelism` alone: batches
// one matrix per tile; a single product halved along its longer edge (in multiples of 16) until
// there are `parallelism` tiles or a tile is under 4 Mflop. Every tile is a separate BLAS call
// packing its own panels: more tiles than threads only cost (measured in docs/architecture.md).
std::vector<int64_t> gemm_tiles(const Gemm &g, int64_t parallelism);

// The machine's hardware threads: the tile count contractions aim for. Neither JX_NUM_THREADS nor
// the device mesh enters, so a contraction's bits depend on its shape and the machine only.
int64_t gemm_parallelism();

// Computes one tile of gemm_tiles (float32 or float64).
void gemm_tile(const Gemm &g, DType dtype, const int64_t *tile, const void *lhs, const void *rhs,
               void *out);

} // namespace jx::runtime
