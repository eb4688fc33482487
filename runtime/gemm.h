// Contractions as the runtime runs them: batched GEMMs over strided operands, cut into a grid of
// tiles fixed by the shape and the machine (so a result's bits never depend on the pool's size or
// the devices), each tile one single-threaded OpenBLAS call on the pool's thread that runs it.
#pragma once

#include <jx/dtype.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace jx::runtime {

// out[b, i, j] = sum_p lhs[b, i, p] * rhs[b, p, j] for a row-major out of (batch, m, n). Operands
// are read at element offsets from strides (their transposes and broadcasts folded in): lhs at
// b * lhs[0] + i * lhs[1] + p * lhs[2], rhs at b * rhs[0] + p * rhs[1] + j * rhs[2].
struct Gemm {
  int64_t batch = 0, m = 0, n = 0, k = 0;
  int64_t lhs[3] = {}, rhs[3] = {};
  bool operator==(const Gemm &) const = default;
};

// Whether BLAS can read an operand of rows x cols with these strides (one of them 1, the other a
// leading dimension of at least the extent it spans), as the runtime calls it.
bool blas_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

// Before the first BLAS or LAPACK call: OpenBLAS on one thread per call (the pool's threads make
// the parallelism, and the bits do not depend on its size) and on kernels for this CPU's
// features where its own choice by model name fell back to SSE3 ones.
void prepare_blas();

// A scope of BLAS and LAPACK calls on their caller's thread alone (the pool's threads make the
// parallelism): OpenBLAS's thread count stays 1 while one lives.
class SingleThreadedBlas {
public:
  SingleThreadedBlas();

private:
  std::shared_lock<std::shared_mutex> lock_;
};

// A scope in which OpenBLAS runs its calls on `threads` threads of its own (one large
// factorization): single-threaded scopes wait until it ends. Its results' bits depend on the
// thread count (OpenBLAS's threaded LAPACK splits its work by it).
class ThreadedBlas {
public:
  explicit ThreadedBlas(int threads);
  ~ThreadedBlas();
  ThreadedBlas(const ThreadedBlas &) = delete;
  ThreadedBlas &operator=(const ThreadedBlas &) = delete;

private:
  std::unique_lock<std::shared_mutex> lock_;
};

// The OpenBLAS kernels calls run on (its core name: "SkylakeX", "Haswell", ...), once prepared.
const char *blas_kernels();

// Words per tile of gemm_tiles: {b, i0, i1, j0, j1, p0, p1, partial}, the output block
// [i0, i1) x [j0, j1) of matrix b summed over p in [p0, p1), written to the output (partial 0)
// or to partial buffer `partial` (1, 2, ...), which gemm_sum_partials adds to it after.
inline constexpr size_t gemm_tile_words = 8;

// The tiles of a GEMM, from its shape and `parallelism` alone: batches one matrix per tile; a
// single product whose output is small beside its depth (k >= 4 max(m, n), m and n > 1) cut
// along k into `parallelism` parts (multiples of 16, none under 4 Mflop), else halved along its
// longer output edge (in multiples of 16) until there are `parallelism` tiles or a tile is under
// 4 Mflop. Every tile is a separate BLAS call packing its own panels: more tiles than threads only
// cost; the k parts pack half of both operands each instead of all of one (measured in
// docs/architecture.md).
std::vector<int64_t> gemm_tiles(const Gemm &g, int64_t parallelism);

// The partial buffers (each batch x m x n) that tiles write besides the output.
int64_t gemm_partials(const std::vector<int64_t> &tiles);

// The machine's hardware threads: the tile count contractions aim for. Neither JX_NUM_THREADS nor
// the device mesh enters, so a contraction's bits depend on its shape and the machine only.
int64_t gemm_parallelism();

// Computes one tile of gemm_tiles (float32 or float64) into out, a (batch, m, n) row-major
// buffer: the output or the tile's partial buffer.
void gemm_tile(const Gemm &g, DType dtype, const int64_t *tile, const void *lhs, const void *rhs,
               void *out);

// out += partials[0] + partials[1] + ..., in that order (count buffers of batch x m x n).
void gemm_sum_partials(const Gemm &g, DType dtype, void *out, const void *partials, int64_t count);

} // namespace jx::runtime
