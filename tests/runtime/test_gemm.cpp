// runtime/gemm.h: the tile grid of a contraction (every output element once, or once per part of
// k for deep products, from the shape and the parallelism alone) and gemm_tile's cblas calls
// against a plain loop, over strided, transposed and broadcast operands, float32 and float64, the
// gemv paths (n = 1, m = 1), k = 0 and products cut along k into partial sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/gemm.h"

namespace {

using jx::runtime::Gemm;
using jx::runtime::gemm_partials;
using jx::runtime::gemm_tile;
using jx::runtime::gemm_tiles;
constexpr size_t words = jx::runtime::gemm_tile_words;

// Tiles in a grid.
size_t tile_count(const std::vector<int64_t> &tiles) { return tiles.size() / words; }

Gemm shape(int64_t batch, int64_t m, int64_t n, int64_t k) {
  return {.batch = batch, .m = m, .n = n, .k = k};
}

// ---- the tile grid ----

// How many times each output element (row-major (batch, m, n)) is covered, counting a tile that
// sums over part of k as that part of k/k-th of a cover: every element must come out 1.
std::vector<double> coverage(const Gemm &g, const std::vector<int64_t> &tiles) {
  std::vector<double> times(size_t(g.batch * g.m * g.n), 0);
  for (size_t t = 0; t + words <= tiles.size(); t += words) {
    const int64_t b = tiles[t], i0 = tiles[t + 1], i1 = tiles[t + 2], j0 = tiles[t + 3],
                  j1 = tiles[t + 4], p0 = tiles[t + 5], p1 = tiles[t + 6];
    EXPECT_TRUE(b >= 0 && b < g.batch && 0 <= i0 && i0 < i1 && i1 <= g.m && 0 <= j0 && j0 < j1 &&
                j1 <= g.n && 0 <= p0 && p0 <= p1 && p1 <= g.k && tiles[t + 7] >= 0)
        << "tile " << t / words << ": " << b << " [" << i0 << "," << i1 << ") [" << j0 << "," << j1
        << ") k [" << p0 << "," << p1 << ")";
    const double share = g.k == 0 ? 1.0 : double(p1 - p0) / double(g.k);
    for (int64_t i = std::max<int64_t>(i0, 0); i < std::min(i1, g.m); ++i)
      for (int64_t j = std::max<int64_t>(j0, 0); j < std::min(j1, g.n); ++j)
        times[size_t((b * g.m + i) * g.n + j)] += share;
  }
  return times;
}

const Gemm grid_shapes[] = {
    shape(1, 1, 1, 1),       shape(1, 7, 5, 3),        shape(1, 64, 40, 48),
    shape(1, 512, 512, 512), shape(1, 1000, 3, 2000),  shape(1, 3, 1000, 2000),
    shape(1, 1, 4096, 4096), shape(1, 4096, 1, 4096),  shape(1, 33, 1025, 700),
    shape(7, 100, 90, 80),   shape(3, 257, 129, 1000), shape(2, 2048, 2048, 2),
    shape(1, 300, 200, 0),   shape(16, 16, 16, 16),    shape(1, 4097, 31, 4096),
    shape(1, 64, 64, 4096),  shape(1, 33, 17, 100000), shape(1, 2, 2, 1000),
};

TEST(GemmTiles, CoverEveryOutputElementOnce) {
  for (const Gemm &g : grid_shapes) {
    SCOPED_TRACE(testing::Message() << g.batch << "x" << g.m << "x" << g.n << " k=" << g.k);
    const std::vector<int64_t> tiles = gemm_tiles(g, 4);
    ASSERT_EQ(tiles.size() % words, 0u);
    for (double times : coverage(g, tiles))
      ASSERT_DOUBLE_EQ(times, 1.0);
  }
}

TEST(GemmTiles, EmptyOutputsHaveNoTiles) {
  EXPECT_TRUE(gemm_tiles(shape(0, 64, 64, 64), 4).empty());
  EXPECT_TRUE(gemm_tiles(shape(1, 0, 64, 64), 4).empty());
  EXPECT_TRUE(gemm_tiles(shape(1, 64, 0, 64), 4).empty());
  // k = 0: the output exists (zeros), one tile.
  EXPECT_EQ(tile_count(gemm_tiles(shape(1, 64, 64, 0), 4)), 1u);
}

TEST(GemmTiles, DependOnlyOnTheShape) {
  // Strides do not enter the grid: a transposed or broadcast operand gives the same tiles.
  for (const Gemm &g : grid_shapes) {
    Gemm strided = g;
    strided.lhs[0] = 0;
    strided.lhs[1] = 1;
    strided.lhs[2] = g.m;
    strided.rhs[0] = 12345;
    strided.rhs[1] = 1;
    strided.rhs[2] = g.k;
    EXPECT_EQ(gemm_tiles(strided, 4), gemm_tiles(g, 4));
    EXPECT_EQ(gemm_tiles(g, 4), gemm_tiles(g, 4));
  }
}

TEST(GemmTiles, LargeProductsGetAtLeastFourTiles) {
  for (const Gemm &g : {shape(1, 512, 512, 512), shape(1, 1000, 3, 2000), shape(1, 3, 1000, 2000),
                        shape(1, 4096, 1, 4096), shape(1, 1, 4096, 4096), shape(1, 33, 1025, 700),
                        shape(1, 4097, 31, 4096)}) {
    SCOPED_TRACE(testing::Message() << g.m << "x" << g.n << " k=" << g.k);
    EXPECT_GE(tile_count(gemm_tiles(g, 4)), 4u);
  }
  // A batch of large matrices: one tile per matrix is enough.
  EXPECT_EQ(tile_count(gemm_tiles(shape(4, 512, 512, 512), 4)), 4u);
}

TEST(GemmTiles, OneTilePerThreadOfParallelism) {
  // Big enough for any split: the tile count is the parallelism asked for, the grid its function.
  const Gemm g = shape(1, 2048, 2048, 2048);
  for (int64_t p : {1, 2, 3, 4, 8, 16}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(int64_t(tile_count(gemm_tiles(g, p))), p == 3 ? 4 : p);
  }
  EXPECT_GE(jx::runtime::gemm_parallelism(), 1);
}

TEST(GemmTiles, SmallProductsAreOneTile) {
  for (const Gemm &g : {shape(1, 1, 1, 1), shape(1, 7, 5, 3), shape(1, 64, 40, 48),
                        shape(1, 128, 128, 64), shape(1, 300, 200, 0)}) {
    SCOPED_TRACE(testing::Message() << g.m << "x" << g.n << " k=" << g.k);
    EXPECT_EQ(tile_count(gemm_tiles(g, 4)), 1u);
  }
  // Batches of small matrices: one tile per matrix.
  EXPECT_EQ(tile_count(gemm_tiles(shape(7, 100, 90, 80), 4)), 7u);
}

TEST(GemmTiles, EdgesAreMultiplesOfSixteenExceptAtTheEnds) {
  for (const Gemm &g : grid_shapes) {
    SCOPED_TRACE(testing::Message() << g.batch << "x" << g.m << "x" << g.n << " k=" << g.k);
    const std::vector<int64_t> tiles = gemm_tiles(g, 4);
    for (size_t t = 0; t < tiles.size(); t += words) {
      for (int64_t edge : {tiles[t + 1], tiles[t + 2]})
        EXPECT_TRUE(edge == 0 || edge == g.m || edge % 16 == 0) << "row edge " << edge;
      for (int64_t edge : {tiles[t + 3], tiles[t + 4]})
        EXPECT_TRUE(edge == 0 || edge == g.n || edge % 16 == 0) << "column edge " << edge;
    }
  }
  // And they do cut large products.
  const std::vector<int64_t> tiles = gemm_tiles(shape(1, 33, 1025, 700), 4);
  EXPECT_GT(tile_count(tiles), 1u);
}

TEST(GemmTiles, DeepProductsSplitAlongK) {
  // (64 x 4096) . (4096 x 64): the whole output per tile, k in parallelism parts at multiples of
  // 16, the first written to the output, the others to partial buffers 1, 2, ...
  for (int64_t p : {2, 3, 4}) {
    SCOPED_TRACE(p);
    const std::vector<int64_t> tiles = gemm_tiles(shape(1, 64, 64, 4096), p);
    ASSERT_EQ(int64_t(tile_count(tiles)), p);
    EXPECT_EQ(gemm_partials(tiles), p - 1);
    int64_t next = 0;
    for (size_t t = 0; t < tiles.size(); t += words) {
      EXPECT_EQ(std::vector<int64_t>(tiles.begin() + long(t), tiles.begin() + long(t) + 5),
                (std::vector<int64_t>{0, 0, 64, 0, 64}));
      EXPECT_EQ(tiles[t + 5], next);
      EXPECT_TRUE(tiles[t + 6] == 4096 || tiles[t + 6] % 16 == 0);
      EXPECT_EQ(tiles[t + 7], int64_t(t / words));
      next = tiles[t + 6];
    }
    EXPECT_EQ(next, 4096);
  }
  // Not deep enough (k < 4 max(m, n)), a batch, a vector, or too few flops: no partials.
  for (const Gemm &g : {shape(1, 64, 64, 255), shape(2, 64, 64, 4096), shape(1, 1, 64, 4096),
                        shape(1, 64, 1, 4096), shape(1, 2, 2, 1000)})
    EXPECT_EQ(gemm_partials(gemm_tiles(g, 4)), 0);
  EXPECT_EQ(tile_count(gemm_tiles(shape(1, 2, 2, 1000), 4)), 1u);
}

// ---- gemm_tile against a plain loop ----

// A GEMM's operands as flat buffers read through the strides, and its output.
template <class T> struct Problem {
  Gemm g;
  std::vector<T> lhs, rhs, out;
};

// Operand buffers large enough for every element the strides reach, filled with values that
// make any misread show: small integers, so that every sum is exact in any order.
template <class T> Problem<T> problem(const Gemm &g, unsigned seed) {
  auto reach = [](const int64_t *strides, int64_t batch, int64_t rows, int64_t cols) {
    return (batch - 1) * strides[0] + (rows - 1) * strides[1] + (cols - 1) * strides[2] + 1;
  };
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  Problem<T> p{g, {}, {}, {}};
  p.lhs.resize(size_t(std::max<int64_t>(reach(g.lhs, g.batch, g.m, g.k), 1)));
  p.rhs.resize(size_t(std::max<int64_t>(reach(g.rhs, g.batch, g.k, g.n), 1)));
  for (T &x : p.lhs)
    x = T(dist(rng));
  for (T &x : p.rhs)
    x = T(dist(rng));
  p.out.assign(size_t(g.batch * g.m * g.n), std::numeric_limits<T>::quiet_NaN());
  return p;
}

template <class T> std::vector<T> naive(const Problem<T> &p) {
  const Gemm &g = p.g;
  std::vector<T> out(size_t(g.batch * g.m * g.n));
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < g.k; ++q)
          sum += double(p.lhs[size_t(b * g.lhs[0] + i * g.lhs[1] + q * g.lhs[2])]) *
                 double(p.rhs[size_t(b * g.rhs[0] + q * g.rhs[1] + j * g.rhs[2])]);
        out[size_t((b * g.m + i) * g.n + j)] = T(sum);
      }
  return out;
}

// Runs every tile of p's grid into p.out as the runtime does (partial sums into their buffers,
// added after).
template <class T> void run_tiles(Problem<T> &p) {
  const jx::DType dtype = sizeof(T) == 8 ? jx::float64 : jx::float32;
  const std::vector<int64_t> tiles = gemm_tiles(p.g, 4);
  const size_t size = p.out.size();
  std::vector<T> partials(size_t(gemm_partials(tiles)) * size, std::numeric_limits<T>::quiet_NaN());
  for (size_t t = 0; t < tiles.size(); t += words) {
    T *to = tiles[t + 7] == 0 ? p.out.data() : partials.data() + size_t(tiles[t + 7] - 1) * size;
    gemm_tile(p.g, dtype, tiles.data() + t, p.lhs.data(), p.rhs.data(), to);
  }
  jx::runtime::gemm_sum_partials(p.g, dtype, p.out.data(), partials.data(), gemm_partials(tiles));
}

// Runs every tile of p's grid; the output equals the loop's bit for bit.
template <class T> void expect_matches_loop(Problem<T> p) {
  run_tiles(p);
  const std::vector<T> expected = naive(p);
  int64_t wrong = 0;
  for (size_t e = 0; e < expected.size(); ++e)
    if (!(p.out[e] == expected[e]) && wrong++ < 5)
      ADD_FAILURE() << "element " << e << ": " << p.out[e] << ", expected " << expected[e];
  EXPECT_EQ(wrong, 0);
}

// Gemm with strides.
Gemm with(Gemm g, std::initializer_list<int64_t> lhs, std::initializer_list<int64_t> rhs) {
  std::copy(lhs.begin(), lhs.end(), g.lhs);
  std::copy(rhs.begin(), rhs.end(), g.rhs);
  return g;
}

template <class T> class GemmTile : public testing::Test {};
using Floats = testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTile, Floats);

TYPED_TEST(GemmTile, RowMajor) {
  const int64_t m = 37, n = 29, k = 23;
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, k, 1}, {0, n, 1}), 1));
}

TYPED_TEST(GemmTile, TransposedOperands) {
  const int64_t m = 37, n = 29, k = 23;
  // lhs stored (k, m), rhs stored (n, k), and both.
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, 1, m}, {0, n, 1}), 2));
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, k, 1}, {0, 1, k}), 3));
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, 1, m}, {0, 1, k}), 4));
}

TYPED_TEST(GemmTile, LeadingDimensionsWiderThanTheMatrix) {
  // Rows of a larger array: leading dimensions past the extents they span.
  const int64_t m = 20, n = 18, k = 17;
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, 40, 1}, {0, 1, 33}), 5));
}

TYPED_TEST(GemmTile, BatchesAndBroadcastBatches) {
  const int64_t batch = 3, m = 19, n = 21, k = 13;
  expect_matches_loop(
      problem<TypeParam>(with(shape(batch, m, n, k), {m * k, k, 1}, {k * n, n, 1}), 6));
  // The same lhs for every batch (stride 0), a transposed rhs.
  expect_matches_loop(problem<TypeParam>(with(shape(batch, m, n, k), {0, k, 1}, {n * k, 1, k}), 7));
}

TYPED_TEST(GemmTile, SeveralTilesWithRaggedEdges) {
  // Big enough for a grid of several tiles, extents not multiples of 16.
  const int64_t m = 250, n = 147, k = 130;
  const Gemm g = with(shape(1, m, n, k), {0, 1, m}, {0, n, 1});
  ASSERT_GT(tile_count(gemm_tiles(g, 4)), 1u);
  expect_matches_loop(problem<TypeParam>(g, 8));
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, k, 1}, {0, 1, k}), 9));
}

TYPED_TEST(GemmTile, SplitAlongK) {
  // Deep products: k parts summed into partial buffers, plain and transposed operands, k not a
  // multiple of 16.
  const int64_t m = 48, n = 40, k = 4001;
  const Gemm g = with(shape(1, m, n, k), {0, k, 1}, {0, n, 1});
  ASSERT_GT(gemm_partials(gemm_tiles(g, 4)), 0);
  expect_matches_loop(problem<TypeParam>(g, 23));
  expect_matches_loop(problem<TypeParam>(with(shape(1, m, n, k), {0, 1, m}, {0, 1, k}), 24));
}

TYPED_TEST(GemmTile, NoContractedElementsGiveZeros) {
  // k = 0: every output element is an empty sum.
  Problem<TypeParam> p = problem<TypeParam>(with(shape(2, 9, 7, 0), {0, 0, 0}, {0, 0, 0}), 10);
  expect_matches_loop(p);
}

TYPED_TEST(GemmTile, MatrixTimesVector) {
  // n = 1 (gemv): the matrix plain or transposed, the vector with increment 1 or 3.
  const int64_t m = 41, k = 27;
  for (int64_t inc : {1, 3}) {
    SCOPED_TRACE(inc);
    expect_matches_loop(problem<TypeParam>(with(shape(1, m, 1, k), {0, k, 1}, {0, inc, 0}), 11));
    expect_matches_loop(problem<TypeParam>(with(shape(1, m, 1, k), {0, 1, m}, {0, inc, 7}), 12));
    // Batched, the vector shared by every batch.
    expect_matches_loop(
        problem<TypeParam>(with(shape(3, m, 1, k), {m * k, k, 1}, {0, inc, 0}), 13));
  }
  // Tall enough for several tiles of rows.
  const Gemm tall = with(shape(1, 4000, 1, 600), {0, 1, 4000}, {0, 2, 0});
  ASSERT_GT(tile_count(gemm_tiles(tall, 4)), 1u);
  expect_matches_loop(problem<TypeParam>(tall, 14));
}

TYPED_TEST(GemmTile, VectorTimesMatrix) {
  // m = 1 (gemv with the matrix transposed): the vector with increment 1 or 4.
  const int64_t n = 43, k = 31;
  for (int64_t inc : {1, 4}) {
    SCOPED_TRACE(inc);
    expect_matches_loop(problem<TypeParam>(with(shape(1, 1, n, k), {0, 0, inc}, {0, n, 1}), 15));
    expect_matches_loop(problem<TypeParam>(with(shape(1, 1, n, k), {0, 5, inc}, {0, 1, k}), 16));
    expect_matches_loop(
        problem<TypeParam>(with(shape(2, 1, n, k), {k * inc, 0, inc}, {k * n, n, 1}), 17));
  }
  const Gemm wide = with(shape(1, 1, 4000, 600), {0, 0, 3}, {0, 1, 600});
  ASSERT_GT(tile_count(gemm_tiles(wide, 4)), 1u);
  expect_matches_loop(problem<TypeParam>(wide, 18));
}

TYPED_TEST(GemmTile, OneByOne) {
  // m = n = 1: a single dot product (the runtime's n = 1 path), strided both sides.
  expect_matches_loop(problem<TypeParam>(with(shape(1, 1, 1, 50), {0, 0, 2}, {0, 3, 0}), 19));
  expect_matches_loop(problem<TypeParam>(with(shape(4, 1, 1, 50), {50, 0, 1}, {0, 1, 0}), 20));
}

TYPED_TEST(GemmTile, NonIntegerValuesWithinRounding) {
  // Random reals: BLAS sums in its own order, within k * eps * sum |terms| of the loop.
  using T = TypeParam;
  const int64_t m = 70, n = 65, k = 300;
  Problem<T> p = problem<T>(with(shape(1, m, n, k), {0, 1, m}, {0, n, 1}), 21);
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (T &x : p.lhs)
    x = T(dist(rng));
  for (T &x : p.rhs)
    x = T(dist(rng));
  run_tiles(p);
  const double eps = std::numeric_limits<T>::epsilon();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t q = 0; q < k; ++q) {
        const double term = double(p.lhs[size_t(i + q * m)]) * double(p.rhs[size_t(q * n + j)]);
        sum += term;
        magnitude += std::abs(term);
      }
      ASSERT_NEAR(double(p.out[size_t(i * n + j)]), sum, double(k) * eps * magnitude)
          << i << "," << j;
    }
}

} // namespace
