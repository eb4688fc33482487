// Contractions through OpenBLAS: the tile grid (shape, hardware threads), one call per tile.
#include "runtime/gemm.h"

#include <algorithm>
#include <cblas.h>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

extern "C" {
void openblas_set_num_threads(int);
char *openblas_get_corename(void);
void gotoblas_dynamic_init(void);
void gotoblas_dynamic_quit(void);
int blas_thread_shutdown_(void);
}

namespace jx::runtime {
namespace {

// An operand as BLAS reads it: its matrix or its transpose stored row-major with leading
// dimension ld.
struct Layout {
  bool transposed;
  int ld;
};

// The matrix row-major (unit column stride, rows at least a row apart), else its transpose so
// stored; nullopt when neither reads it.
std::optional<Layout> layout_of(int64_t rows, int64_t cols, int64_t row_stride,
                                int64_t col_stride) {
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= std::max<int64_t>(cols, 1)))
    return Layout{false, int(rows == 1 ? std::max<int64_t>(cols, 1) : row_stride)};
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1)))
    return Layout{true, int(cols == 1 ? std::max<int64_t>(rows, 1) : col_stride)};
  return std::nullopt;
}

// Planned contractions passed blas_layout for the whole operand, so every tile of it has one.
Layout layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  return *layout_of(rows, cols, row_stride, col_stride);
}

CBLAS_TRANSPOSE trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// OpenBLAS's kernels for this CPU's features, where its choice by model name fell back to
// Prescott (a VM reporting "Intel(R) Xeon(R) Processor": SSE3 kernels, 4-5x slower) and the user
// chose none (OPENBLAS_CORETYPE). Debian's OpenBLAS is built for every core (DYNAMIC_ARCH): its
// dynamic init reads OPENBLAS_CORETYPE again.
void choose_blas_kernels() {
  if (std::getenv("OPENBLAS_CORETYPE") || std::strcmp(openblas_get_corename(), "Prescott") != 0)
    return;
  const char *core = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    core = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    core = "Haswell";
  if (!core) return;
  setenv("OPENBLAS_CORETYPE", core, 0);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
}

} // namespace

const char *blas_kernels() {
  prepare_blas();
  return openblas_get_corename();
}

void prepare_blas() {
  static std::once_flag once;
  std::call_once(once, [] {
    choose_blas_kernels();
    openblas_set_num_threads(1);
  });
}

namespace {
// Held shared by one-thread calls, exclusively while OpenBLAS runs on more threads: the thread
// count is OpenBLAS's global, and it must not be raised under another thread's call. (glibc's
// rwlock prefers readers: a threaded scope waiting never blocks the pool's one-thread calls that
// the scopes it waits for may be waiting on.)
std::shared_mutex &blas_threads_mutex() {
  static std::shared_mutex m;
  return m;
}
} // namespace

SingleThreadedBlas::SingleThreadedBlas() : lock_(blas_threads_mutex()) { prepare_blas(); }

ThreadedBlas::ThreadedBlas(int threads) : lock_(blas_threads_mutex()) {
  prepare_blas();
  openblas_set_num_threads(threads);
}

ThreadedBlas::~ThreadedBlas() {
  openblas_set_num_threads(1);
  // OpenBLAS's idle threads spin for a while before they sleep, which would take the cores from
  // the pool's next kernels: stop them (the next threaded call starts them again).
  blas_thread_shutdown_();
}

namespace {

template <class T>
void tile_of(const Gemm &g, const int64_t *tile, const T *lhs, const T *rhs, T *out) {
  const int64_t b = tile[0], i0 = tile[1], j0 = tile[3], p0 = tile[5];
  const int rows = int(tile[2] - i0), cols = int(tile[4] - j0), k = int(tile[6] - p0);
  const T *a = lhs + b * g.lhs[0] + i0 * g.lhs[1] + p0 * g.lhs[2];
  const T *x = rhs + b * g.rhs[0] + j0 * g.rhs[2] + p0 * g.rhs[1];
  T *c = out + (b * g.m + i0) * g.n + j0;
  constexpr bool f64 = sizeof(T) == 8;
  if (k == 0) {
    for (int i = 0; i < rows; ++i)
      std::fill_n(c + int64_t(i) * g.n, cols, T(0));
    return;
  }
  const SingleThreadedBlas one_thread;
  // gemv with beta = 0 must not read y, but some OpenBLAS releases propagate a NaN found there
  // (the arena may hold one): start from zeros.
  if (g.n == 1 || g.m == 1) std::fill_n(c, g.n == 1 ? rows : cols, T(0));
  if (g.n == 1) { // matrix times vector
    const Layout la = layout(rows, k, g.lhs[1], g.lhs[2]);
    const int m = la.transposed ? k : rows, n = la.transposed ? rows : k;
    const int incx = k == 1 ? 1 : int(g.rhs[1]);
    if constexpr (f64)
      cblas_dgemv(CblasRowMajor, trans(la.transposed), m, n, 1, a, la.ld, x, incx, 0, c, 1);
    else
      cblas_sgemv(CblasRowMajor, trans(la.transposed), m, n, 1, a, la.ld, x, incx, 0, c, 1);
    return;
  }
  if (g.m == 1) { // vector times matrix: the matrix's transpose times the vector
    const Layout lb = layout(k, cols, g.rhs[1], g.rhs[2]);
    const int m = lb.transposed ? cols : k, n = lb.transposed ? k : cols;
    const int incx = k == 1 ? 1 : int(g.lhs[2]);
    if constexpr (f64)
      cblas_dgemv(CblasRowMajor, trans(!lb.transposed), m, n, 1, x, lb.ld, a, incx, 0, c, 1);
    else
      cblas_sgemv(CblasRowMajor, trans(!lb.transposed), m, n, 1, x, lb.ld, a, incx, 0, c, 1);
    return;
  }
  const Layout la = layout(rows, k, g.lhs[1], g.lhs[2]), lb = layout(k, cols, g.rhs[1], g.rhs[2]);
  if constexpr (f64)
    cblas_dgemm(CblasRowMajor, trans(la.transposed), trans(lb.transposed), rows, cols, k, 1, a,
                la.ld, x, lb.ld, 0, c, int(g.n));
  else
    cblas_sgemm(CblasRowMajor, trans(la.transposed), trans(lb.transposed), rows, cols, k, 1, a,
                la.ld, x, lb.ld, 0, c, int(g.n));
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

} // namespace

bool blas_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  constexpr int64_t int_max = 0x7fffffff;
  if (rows > int_max || cols > int_max || row_stride > int_max || col_stride > int_max ||
      row_stride < 0 || col_stride < 0)
    return false;
  return layout_of(rows, cols, row_stride, col_stride).has_value();
}

int64_t gemm_parallelism() {
  static const int64_t threads = std::max<int64_t>(1, std::thread::hardware_concurrency());
  return threads;
}

std::vector<int64_t> gemm_tiles(const Gemm &g, int64_t parallelism) {
  std::vector<int64_t> tiles;
  if (g.batch == 0 || g.m == 0 || g.n == 0) return tiles;
  constexpr double min_tile_flops = 1 << 22;
  const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k);
  if (g.batch == 1 && g.m > 1 && g.n > 1 && g.k >= 4 * std::max(g.m, g.n)) {
    int64_t parts = 1;
    while (parts < parallelism && flops / double(parts + 1) >= min_tile_flops &&
           g.k / (parts + 1) >= 16)
      ++parts;
    const int64_t step = round_up((g.k + parts - 1) / parts, 16);
    int64_t partial = 0;
    for (int64_t p = 0; p < g.k; p += step)
      tiles.insert(tiles.end(), {0, 0, g.m, 0, g.n, p, std::min(g.k, p + step), partial++});
    return tiles;
  }
  int64_t tm = g.m, tn = g.n;
  auto count = [&] { return g.batch * ((g.m + tm - 1) / tm) * ((g.n + tn - 1) / tn); };
  while (count() < parallelism && 2.0 * double(tm) * double(tn) * double(g.k) >= min_tile_flops) {
    if (tm >= tn && tm >= 32)
      tm = round_up((tm + 1) / 2, 16);
    else if (tn >= 32)
      tn = round_up((tn + 1) / 2, 16);
    else
      break;
  }
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.m; i += tm)
      for (int64_t j = 0; j < g.n; j += tn)
        tiles.insert(tiles.end(),
                     {b, i, std::min(g.m, i + tm), j, std::min(g.n, j + tn), 0, g.k, 0});
  return tiles;
}

int64_t gemm_partials(const std::vector<int64_t> &tiles) {
  int64_t count = 0;
  for (size_t t = 0; t + gemm_tile_words <= tiles.size(); t += gemm_tile_words)
    count = std::max(count, tiles[t + 7]);
  return count;
}

void gemm_sum_partials(const Gemm &g, DType dtype, void *out, const void *partials, int64_t count) {
  const int64_t size = g.batch * g.m * g.n;
  auto sum = [&](auto *o, const auto *p) {
    for (int64_t q = 0; q < count; ++q)
      for (int64_t e = 0; e < size; ++e)
        o[e] += p[q * size + e];
  };
  if (dtype == DType::float64)
    sum(static_cast<double *>(out), static_cast<const double *>(partials));
  else
    sum(static_cast<float *>(out), static_cast<const float *>(partials));
}

void gemm_tile(const Gemm &g, DType dtype, const int64_t *tile, const void *lhs, const void *rhs,
               void *out) {
  if (dtype == DType::float64)
    tile_of(g, tile, static_cast<const double *>(lhs), static_cast<const double *>(rhs),
            static_cast<double *>(out));
  else
    tile_of(g, tile, static_cast<const float *>(lhs), static_cast<const float *>(rhs),
            static_cast<float *>(out));
}

} // namespace jx::runtime
