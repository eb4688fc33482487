// Linear algebra through LAPACK (OpenBLAS's, single-threaded per matrix): each matrix of a batch
// is one task on the pool. Operands are row-major, LAPACK is column-major: a row-major A is the
// column-major A^T, so most routines factor A^T and read their results transposed for free (svd's
// U and V^T swap places, eigh's vectors come out as rows); only qr copies A to column-major.
#include "runtime/library.h"

#include <cblas.h>
#include <jx/error.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/gemm.h"
#include "runtime/thread_pool.h"

// LAPACK's Fortran entry points (LP64: int indices), with gfortran's hidden string lengths.
extern "C" {
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void spotrf_(const char *, const int *, float *, const int *, int *, size_t);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void ssyevd_(const char *, const char *, const int *, float *, const int *, float *, float *,
             const int *, int *, const int *, int *, size_t, size_t);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *,
             const int *, int *, const int *, int *, size_t, size_t);
void sgesdd_(const char *, const int *, const int *, float *, const int *, float *, float *,
             const int *, float *, const int *, float *, const int *, int *, int *, size_t);
void dgesdd_(const char *, const int *, const int *, double *, const int *, double *, double *,
             const int *, double *, const int *, double *, const int *, int *, int *, size_t);
void sgeqrf_(const int *, const int *, float *, const int *, float *, float *, const int *, int *);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *,
             int *);
void sorgqr_(const int *, const int *, const int *, float *, const int *, const float *, float *,
             const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *,
             const int *, int *);
void sgeev_(const char *, const char *, const int *, float *, const int *, float *, float *,
            float *, const int *, float *, const int *, float *, const int *, int *, size_t,
            size_t);
void dgeev_(const char *, const char *, const int *, double *, const int *, double *, double *,
            double *, const int *, double *, const int *, double *, const int *, int *, size_t,
            size_t);
}

namespace jx::runtime {
namespace {

// The float32 and float64 routines under one name.
void getrf(int m, int n, float *a, int lda, int *ipiv, int *info) {
  sgetrf_(&m, &n, a, &lda, ipiv, info);
}
void getrf(int m, int n, double *a, int lda, int *ipiv, int *info) {
  dgetrf_(&m, &n, a, &lda, ipiv, info);
}
void potrf(char uplo, int n, float *a, int lda, int *info) { spotrf_(&uplo, &n, a, &lda, info, 1); }
void potrf(char uplo, int n, double *a, int lda, int *info) {
  dpotrf_(&uplo, &n, a, &lda, info, 1);
}
void syevd(char jobz, char uplo, int n, float *a, int lda, float *w, float *work, int lwork,
           int *iwork, int liwork, int *info) {
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, double *a, int lda, double *w, double *work, int lwork,
           int *iwork, int liwork, int *info) {
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void gesdd(char jobz, int m, int n, float *a, int lda, float *s, float *u, int ldu, float *vt,
           int ldvt, float *work, int lwork, int *iwork, int *info) {
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, double *a, int lda, double *s, double *u, int ldu, double *vt,
           int ldvt, double *work, int lwork, int *iwork, int *info) {
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void geqrf(int m, int n, float *a, int lda, float *tau, float *work, int lwork, int *info) {
  sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
void geqrf(int m, int n, double *a, int lda, double *tau, double *work, int lwork, int *info) {
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, float *a, int lda, const float *tau, float *work, int lwork,
           int *info) {
  sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double *a, int lda, const double *tau, double *work, int lwork,
           int *info) {
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const float *a, int lda,
          float *b, int ldb) {
  cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1, a, lda, b, ldb);
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const double *a, int lda,
          double *b, int ldb) {
  cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1, a, lda, b, ldb);
}

// A workspace size LAPACK answered in a float.
template <class T> int work_size(T w) { return std::max(1, int(w)); }

int lapack_int(int64_t d) {
  if (d > INT_MAX)
    throw ValueError("linear algebra on a matrix dimension of " + std::to_string(d) +
                     ": LAPACK's indices are 32-bit");
  return int(d);
}

template <class T> void fill_nan(T *p, int64_t n) {
  std::fill_n(p, n, std::numeric_limits<T>::quiet_NaN());
}

// Row-major L with A = L L^T from A's lower triangle: potrf('U') of the column-major A^T (= A)
// leaves U = L^T in A's upper triangle, which read row-major is L; JAX's NaNs where A is not
// positive definite.
template <class T> void cholesky(const T *a, T *out, int n) {
  std::copy_n(a, int64_t(n) * n, out);
  int info = 0;
  potrf('U', n, out, std::max(n, 1), &info);
  if (info != 0) return fill_nan(out, int64_t(n) * n);
  for (int64_t i = 0; i < n; ++i)
    std::fill(out + i * n + i + 1, out + (i + 1) * n, T(0));
}

// P L U of the column-major reading of an n x n matrix: small ones in the calling thread's
// buffers (a batch of them allocates nothing per matrix), larger ones in their own.
template <class T> class LuFactors {
public:
  LuFactors(const T *a, int n) : f_(n <= 64 ? scratch() : own_) {
    f_.lu.assign(a, a + int64_t(n) * n);
    f_.ipiv.resize(size_t(std::max(n, 1)));
    int info = 0;
    getrf(n, n, f_.lu.data(), std::max(n, 1), f_.ipiv.data(), &info);
  }
  const T *lu() const { return f_.lu.data(); }
  const int *ipiv() const { return f_.ipiv.data(); }

private:
  struct Buffers {
    std::vector<T> lu;
    std::vector<int> ipiv;
  };
  static Buffers &scratch() {
    thread_local Buffers b;
    return b;
  }
  Buffers own_;
  Buffers &f_;
};

// Rows of X (n x k) per triangular-solve task: fixed, so the bits do not depend on the pool.
constexpr int64_t solve_rows = 64;

// X = A^-1 B without a transpose: the column-major reading of X is Y = X^T (k x n), and
// Y A^T = B^T. getrf factors the column-major reading of A, A^T = P L U, so Y = B^T U^-1 L^-1 P^T:
// two right-side triangular solves (each row of Y on its own, so run in blocks on the pool) and
// the pivots' column swaps in reverse.
template <class T> void solve(const T *a, const T *b, T *out, int n, int k, bool parallel) {
  const LuFactors<T> f(a, n);
  const T *lu = f.lu();
  const int *ipiv = f.ipiv();
  std::copy_n(b, int64_t(n) * k, out);
  auto rows = [&](int64_t block) {
    const int64_t r0 = block * solve_rows;
    const int count = int(std::min<int64_t>(solve_rows, k - r0));
    T *y = out + r0;
    trsm(CblasRight, CblasUpper, CblasNonUnit, count, n, lu, std::max(n, 1), y, k);
    trsm(CblasRight, CblasLower, CblasUnit, count, n, lu, std::max(n, 1), y, k);
    for (int i = n - 1; i >= 0; --i)
      if (ipiv[i] - 1 != i)
        std::swap_ranges(y + int64_t(i) * k, y + int64_t(i) * k + count,
                         y + int64_t(ipiv[i] - 1) * k);
  };
  const int64_t blocks = (k + solve_rows - 1) / solve_rows;
  if (parallel && blocks > 1)
    default_pool().run_batch(blocks, rows);
  else
    for (int64_t block = 0; block < blocks; ++block)
      rows(block);
}

// det(A) = det(A^T): the product of the LU factors' diagonal of the column-major reading, negated
// per row swap (NumPy's det); slogdet as NumPy's: sign 0 and log|det| -inf when a pivot is zero.
template <class T> void determinant(const T *a, T *out, int n, bool logarithm) {
  const LuFactors<T> f(a, n);
  const T *lu = f.lu();
  const int *ipiv = f.ipiv();
  bool negative = false;
  for (int i = 0; i < n; ++i)
    negative ^= ipiv[i] - 1 != i;
  if (!logarithm) {
    T det = negative ? T(-1) : T(1);
    for (int64_t i = 0; i < n; ++i)
      det *= lu[i * n + i];
    out[0] = det;
    return;
  }
  T sign = negative ? T(-1) : T(1), log_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T d = lu[i * n + i];
    sign *= d < 0 ? T(-1) : d > 0 ? T(1) : d; // 0 and NaN stay
    log_abs += std::log(std::abs(d));
  }
  if (sign == 0) log_abs = -std::numeric_limits<T>::infinity();
  out[0] = sign;
  out[1] = log_abs;
}

// Eigenvalues ascending, then (vectors) the eigenvectors as rows: syevd of the column-major
// reading (A^T = A) leaves them as its columns, which read row-major are rows.
template <class T> void eigh(const T *a, T *out, int n, bool vectors) {
  std::vector<T> z(a, a + int64_t(n) * n);
  T *w = out;
  const char jobz = vectors ? 'V' : 'N';
  T work_query = 0;
  int iwork_query = 0, info = 0;
  syevd(jobz, 'U', n, z.data(), std::max(n, 1), w, &work_query, -1, &iwork_query, -1, &info);
  std::vector<T> work(size_t(work_size(work_query)));
  std::vector<int> iwork(size_t(std::max(1, iwork_query)));
  syevd(jobz, 'U', n, z.data(), std::max(n, 1), w, work.data(), int(work.size()), iwork.data(),
        int(iwork.size()), &info);
  const int64_t size = vectors ? int64_t(n + 1) * n : n;
  if (info != 0) return fill_nan(out, size);
  if (vectors) std::copy(z.begin(), z.end(), out + n);
}

// The packed output of svd (Library::mode): values only (k), reduced (U m x k, s, V^T k x n) or
// full (U m x m, s, V^T n x n). gesdd of the column-major reading A^T = U' S V'^T gives A =
// V' S U'^T: its V'^T read row-major is U, its U' read row-major is V^T, written in place.
template <class T> void svd(const T *a, T *out, int m, int n, int64_t mode) {
  const int k = std::min(m, n);
  const int u_cols = mode == 2 ? m : k, vt_rows = mode == 2 ? n : k;
  const int64_t size = mode == 0 ? k : int64_t(m) * u_cols + k + int64_t(vt_rows) * n;
  T *u = mode == 0 ? nullptr : out, *s = mode == 0 ? out : out + int64_t(m) * u_cols;
  T *vt = mode == 0 ? nullptr : s + k;
  if (k == 0) { // gesdd wants a non-empty matrix: an empty U or V^T, or an identity when full
    std::fill_n(out, size, T(0));
    if (mode == 2) {
      for (int64_t i = 0; i < m; ++i)
        u[i * m + i] = 1;
      for (int64_t i = 0; i < n; ++i)
        vt[i * n + i] = 1;
    }
    return;
  }
  std::vector<T> at(a, a + int64_t(m) * n);
  const char jobz = mode == 0 ? 'N' : mode == 1 ? 'S' : 'A';
  std::vector<int> iwork(size_t(8) * size_t(k));
  T work_query = 0, dummy = 0;
  int info = 0;
  // The column-major A^T is n x m: its U' (n x vt_rows) lands in V^T's place (ld n), its V'^T
  // (u_cols x m) in U's place (ld u_cols).
  T *u_prime = mode == 0 ? &dummy : vt, *vt_prime = mode == 0 ? &dummy : u;
  const int ldu = mode == 0 ? 1 : n, ldvt = mode == 0 ? 1 : u_cols;
  gesdd(jobz, n, m, at.data(), n, s, u_prime, ldu, vt_prime, ldvt, &work_query, -1, iwork.data(),
        &info);
  std::vector<T> work(size_t(work_size(work_query)));
  gesdd(jobz, n, m, at.data(), n, s, u_prime, ldu, vt_prime, ldvt, work.data(), int(work.size()),
        iwork.data(), &info);
  if (info != 0) fill_nan(out, size);
}

// The packed output of qr (Library::mode): reduced (Q m x k, R k x n) or complete (Q m x m,
// R m x n), as NumPy's geqrf then orgqr on A copied to column-major.
template <class T> void qr(const T *a, T *out, int m, int n, int64_t mode) {
  const int k = std::min(m, n), q_cols = mode == 1 ? m : k, r_rows = q_cols;
  T *q = out, *r = out + int64_t(m) * q_cols;
  std::fill_n(out, int64_t(m) * q_cols + int64_t(r_rows) * n, T(0));
  const int width = std::max(n, q_cols);
  std::vector<T> work_a(size_t(m) * size_t(std::max(width, 1)), T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      work_a[size_t(i + j * m)] = a[i * n + j];
  std::vector<T> tau(size_t(std::max(k, 1)));
  int info = 0;
  if (k > 0) {
    T query = 0;
    geqrf(m, n, work_a.data(), std::max(m, 1), tau.data(), &query, -1, &info);
    std::vector<T> work(size_t(work_size(query)));
    geqrf(m, n, work_a.data(), m, tau.data(), work.data(), int(work.size()), &info);
  }
  for (int64_t i = 0; i < std::min(r_rows, m); ++i)
    for (int64_t j = i; j < n; ++j)
      r[i * n + j] = work_a[size_t(i + j * m)];
  if (m == 0 || q_cols == 0) return;
  T query = 0;
  orgqr(m, q_cols, k, work_a.data(), m, tau.data(), &query, -1, &info);
  std::vector<T> work(size_t(work_size(query)));
  orgqr(m, q_cols, k, work_a.data(), m, tau.data(), work.data(), int(work.size()), &info);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < q_cols; ++j)
      q[i * q_cols + j] = work_a[size_t(i + j * m)];
}

void geev(char jobvr, int n, float *a, float *wr, float *wi, float *vr, int ldvr, float *work,
          int lwork, int *info) {
  const char jobvl = 'N';
  const int one = 1;
  sgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, info, 1, 1);
}
void geev(char jobvr, int n, double *a, double *wr, double *wi, double *vr, int ldvr, double *work,
          int lwork, int *info) {
  const char jobvl = 'N';
  const int one = 1;
  dgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, info, 1, 1);
}

// The eigenvalues, then (vectors) the right eigenvectors as columns, as NumPy's geev on A copied
// to column-major: a complex pair's vectors are stored as the real and imaginary columns of the
// first one. A matrix with an infinity or NaN gives NaNs without LAPACK (NumPy refuses it: geev's
// balancing would permute by NaN scale factors, out of bounds).
template <class T> void eig(const T *a, std::complex<T> *out, int n, bool vectors) {
  const int64_t size = vectors ? int64_t(n + 1) * n : n;
  if (n == 0) return;
  const std::complex<T> nan(std::numeric_limits<T>::quiet_NaN(),
                            std::numeric_limits<T>::quiet_NaN());
  if (!std::all_of(a, a + int64_t(n) * n, [](T x) { return std::isfinite(x); })) {
    std::fill_n(out, size, nan);
    return;
  }
  const auto order = size_t(n);
  std::vector<T> col(order * order), wr(order), wi(order);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      col[size_t(i + j * n)] = a[i * n + j];
  std::vector<T> vr(vectors ? order * order : 1);
  const char jobvr = vectors ? 'V' : 'N';
  T query = 0;
  int info = 0;
  geev(jobvr, n, col.data(), wr.data(), wi.data(), vr.data(), vectors ? n : 1, &query, -1, &info);
  std::vector<T> work(size_t(work_size(query)));
  geev(jobvr, n, col.data(), wr.data(), wi.data(), vr.data(), vectors ? n : 1, work.data(),
       int(work.size()), &info);
  if (info != 0) {
    std::fill_n(out, size, nan);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    out[j] = std::complex<T>(wr[size_t(j)], wi[size_t(j)]);
  if (!vectors) return;
  std::complex<T> *v = out + n;
  for (int64_t j = 0; j < n; ++j) {
    const bool pair = wi[size_t(j)] != 0 && j + 1 < n;
    for (int64_t i = 0; i < n; ++i) {
      const T re = vr[size_t(i + j * n)], im = pair ? vr[size_t(i + (j + 1) * n)] : T(0);
      v[i * n + j] = std::complex<T>(re, im);
      if (pair) v[i * n + j + 1] = std::complex<T>(re, -im);
    }
    if (pair) ++j;
  }
}

// Matrices from this size on run on OpenBLAS's threads when alone.
constexpr int64_t threaded_elements = 256 * 256;

template <class T>
void run_typed(const Library &lib, const std::vector<int64_t> &extent,
               const std::vector<const void *> &inputs, void *out) {
  const size_t r = extent.size();
  const int m = lapack_int(extent[r - 2]), n = lapack_int(extent[r - 1]);
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < r; ++i)
    batch *= extent[i];
  const std::vector<int64_t> out_shape = linalg_output_shape(lib, extent);
  int64_t out_size = 1;
  for (size_t i = r - 2; i < out_shape.size(); ++i)
    out_size *= out_shape[i];
  if (batch == 0 || out_size == 0) return;
  const T *x = static_cast<const T *>(inputs[0]);
  T *y = static_cast<T *>(out);
  auto *complex_out = static_cast<std::complex<T> *>(out);
  const int64_t in_size = lib.op == LibraryOp::Solve ? int64_t(m) * m : int64_t(m) * n;
  auto one = [&](int64_t b, bool alone) {
    const T *a = x + b * in_size;
    T *o = y + b * out_size;
    switch (lib.op) {
    case LibraryOp::Cholesky: return cholesky(a, o, n);
    case LibraryOp::Solve:
      return solve(a, static_cast<const T *>(inputs[1]) + b * int64_t(m) * n, o, m, n, alone);
    case LibraryOp::Determinant: return determinant(a, o, n, lib.mode == 1);
    case LibraryOp::Eigh: return eigh(a, o, n, lib.mode == 0);
    case LibraryOp::Svd: return svd(a, o, m, n, lib.mode);
    case LibraryOp::Eig: return eig(a, complex_out + b * out_size, n, lib.mode == 0);
    default: return qr(a, o, m, n, lib.mode);
    }
  };
  // One large matrix: OpenBLAS's threads, as many as the pool's (NumPy's and JAX's way; the bits
  // then depend on that count). A batch: one matrix per pool task on one thread each.
  if (batch == 1 && int64_t(m) * n >= threaded_elements && default_pool().size() > 1) {
    const ThreadedBlas threads(default_pool().size());
    return one(0, false);
  }
  if (batch == 1) {
    const SingleThreadedBlas one_thread;
    return one(0, true);
  }
  default_pool().run_batch(batch, [&](int64_t b) {
    const SingleThreadedBlas one_thread;
    one(b, false);
  });
}

} // namespace

int64_t linalg_mode_count(LibraryOp op) {
  switch (op) {
  case LibraryOp::Determinant: return 2;
  case LibraryOp::Eigh: return 2;
  case LibraryOp::Svd: return 3;
  case LibraryOp::Qr: return 2;
  case LibraryOp::Eig: return 2;
  default: return 1;
  }
}

std::vector<int64_t> linalg_output_shape(const Library &lib, const std::vector<int64_t> &extent) {
  const size_t r = extent.size();
  std::vector<int64_t> out(extent.begin(), extent.end() - 2);
  const int64_t m = extent[r - 2], n = extent[r - 1], k = std::min(m, n);
  auto matrix = [&](int64_t rows, int64_t cols) {
    out.push_back(rows);
    out.push_back(cols);
    return out;
  };
  switch (lib.op) {
  case LibraryOp::Cholesky:
  case LibraryOp::Solve: return extent;
  case LibraryOp::Determinant:
    if (lib.mode == 1) out.push_back(2);
    return out;
  case LibraryOp::Eigh:
  case LibraryOp::Eig: return lib.mode == 0 ? matrix(n + 1, n) : (out.push_back(n), out);
  case LibraryOp::Svd:
    out.push_back(lib.mode == 0 ? k : lib.mode == 1 ? m * k + k + k * n : m * m + k + n * n);
    return out;
  default: out.push_back(lib.mode == 1 ? m * m + m * n : m * k + k * n); return out;
  }
}

void run_linalg(const Library &lib, DType dtype, const std::vector<int64_t> &extent,
                const std::vector<const void *> &inputs, void *out) {
  if (dtype == DType::float32) return run_typed<float>(lib, extent, inputs, out);
  return run_typed<double>(lib, extent, inputs, out);
}

} // namespace jx::runtime
