// jax.numpy.linalg (jnp::linalg): factorizations through LAPACK (OpenBLAS's), batched over leading
// axes, and what JAX builds from them. Integer operands compute in float64. Inside jit nothing
// data-dependent raises: a matrix that is not positive definite gives cholesky NaNs, a singular
// one gives solve and inv infinities or NaNs, as in JAX.
#pragma once

#include <jx/array.h>
#include <jx/numpy.h>

#include <optional>
#include <string>
#include <vector>

namespace jx::numpy::linalg {

// JAX's named results (structured bindings work: auto [w, v] = eigh(a)).
struct EighResult {
  Array eigenvalues, eigenvectors;
};
struct EigResult {
  Array eigenvalues, eigenvectors;
};
struct SVDResult {
  Array U, S, Vh;
};
struct QRResult {
  Array Q, R; // mode "r": R only (Q is an empty float array)
};
struct SlogdetResult {
  Array sign, logabsdet;
};
struct LstsqResult {
  Array x, residuals, rank, s;
};

// An `ord=` argument of the norms: None, a number (inf, -inf, 0, 1, -1, 2, -2 or any p) or
// "fro" / "nuc".
class NormOrder {
public:
  NormOrder() = default;
  NormOrder(std::nullopt_t) {}
  NormOrder(double p) : p_(p) {}
  NormOrder(int p) : p_(p) {}
  NormOrder(const char *name) : name_(name) {}
  NormOrder(std::string name) : name_(std::move(name)) {}
  bool is_none() const { return !p_ && !name_; }
  const std::optional<double> &number() const { return p_; }
  const std::optional<std::string> &name() const { return name_; }

private:
  std::optional<double> p_;
  std::optional<std::string> name_;
};

// L with a = L L^T (upper: U = L^T); a symmetrized as (a + a^T) / 2 first unless told not to.
// Keywords only, as JAX's: cholesky(a, {.upper = true}).
struct CholeskyOptions {
  KeywordOnly keyword_only{};
  bool upper = false;
  bool symmetrize_input = true;
};
Array cholesky(const Array &a, const CholeskyOptions &options = {});
Array det(const Array &a);
SlogdetResult slogdet(const Array &a);
Array inv(const Array &a);
// x with a x = b: b is a vector when 1-D, else (..., n, k) matrices; leading axes broadcast.
Array solve(const Array &a, const Array &b);
// Ascending eigenvalues and the eigenvectors as columns, from the UPLO triangle ("L", the
// default, or "U"): eigh(a, UPLO, symmetrize_input), or eigh(a, {.symmetrize_input = false});
// eigvalsh(a, UPLO) takes symmetrize_input by keyword only, as JAX's.
struct EighOptions {
  KeywordOnly keyword_only{};
  std::optional<std::string> UPLO = std::nullopt;
  bool symmetrize_input = true;
};
EighResult eigh(const Array &a, const EighOptions &options);
template <class = void>
EighResult eigh(const Array &a, std::optional<std::string> UPLO = std::nullopt,
                bool symmetrize_input = true) {
  return eigh(a, {.UPLO = std::move(UPLO), .symmetrize_input = symmetrize_input});
}
Array eigvalsh(const Array &a, const EighOptions &options);
template <class = void> Array eigvalsh(const Array &a, const std::string &UPLO = "L") {
  return eigvalsh(a, {.UPLO = UPLO});
}
// A real matrix's eigenvalues and right eigenvectors (columns of unit length, LAPACK's geev),
// complex always, as jnp.linalg.eig's.
EigResult eig(const Array &a);
Array eigvals(const Array &a);
SVDResult svd(const Array &a, bool full_matrices = true);
Array svdvals(const Array &x);
// mode "reduced", "complete" or "r".
QRResult qr(const Array &a, const std::string &mode = "reduced");
// JAX's lstsq by the SVD: singular values under rcond * s[0] (default eps * max(m, n)) dropped;
// residuals always computed.
LstsqResult lstsq(const Array &a, const Array &b, std::optional<double> rcond = std::nullopt);
Array pinv(const Array &a, std::optional<double> rtol = std::nullopt);
Array matrix_power(const Array &a, int64_t n);
Array matrix_rank(const Array &M, std::optional<double> rtol = std::nullopt);
// norm(x, ord, axis, keepdims) in NumPy's order, or norm(x, {.axis = -1, .keepdims = true}).
struct NormOptions {
  KeywordOnly keyword_only{};
  NormOrder ord = {};
  Axes axis = {};
  bool keepdims = false;
};
Array norm(const Array &x, const NormOptions &options);
template <class = void>
Array norm(const Array &x, const NormOrder &ord = {}, const Axes &axis = {},
           bool keepdims = false) {
  return norm(x, {.ord = ord, .axis = axis, .keepdims = keepdims});
}
// The array API's vector_norm(x, /, *, axis, keepdims, ord) and matrix_norm(x, /, *, keepdims,
// ord): keywords only, vector_norm(x, {.axis = 0, .ord = 1}).
struct VectorNormOptions {
  KeywordOnly keyword_only{};
  Axes axis = {};
  bool keepdims = false;
  NormOrder ord = 2;
};
Array vector_norm(const Array &x, const VectorNormOptions &options = {});
struct MatrixNormOptions {
  KeywordOnly keyword_only{};
  bool keepdims = false;
  NormOrder ord = "fro";
};
Array matrix_norm(const Array &x, const MatrixNormOptions &options = {});
Array cond(const Array &x, const NormOrder &p = {});
// The chained product in the order of fewest multiplications (NumPy's); a first or last 1-D
// operand is a row or column vector.
Array multi_dot(const std::vector<Array> &arrays);
Array tensorinv(const Array &a, int64_t ind = 2);
Array tensorsolve(const Array &a, const Array &b,
                  std::optional<std::vector<int64_t>> axes = std::nullopt);

// The array API's spellings, over the last axes; their optional parameters are keyword-only
// (JAX's): cross(a, b, {.axis = 0}), diagonal(x, {.offset = 1}), tensordot(a, b, {.axes = 1}).
struct CrossOptions {
  KeywordOnly keyword_only{};
  int64_t axis = -1;
};
struct OffsetOptions {
  KeywordOnly keyword_only{};
  int64_t offset = 0;
};
struct TensordotOptions {
  KeywordOnly keyword_only{};
  int64_t axes = 2;
};
Array cross(const Array &x1, const Array &x2, const CrossOptions &options = {});
Array diagonal(const Array &x, const OffsetOptions &options = {});
Array matmul(const Array &x1, const Array &x2);
Array matrix_transpose(const Array &x);
Array outer(const Array &x1, const Array &x2);
Array tensordot(const Array &x1, const Array &x2, const TensordotOptions &options = {});
Array trace(const Array &x, const OffsetOptions &options = {});
Array vecdot(const Array &x1, const Array &x2, const VecdotOptions &options = {});

} // namespace jx::numpy::linalg
