// jnp.linalg beyond NumPy's values (those are in test_linalg_golden.cpp): the factorizations'
// defining identities on larger and batched inputs, float32, empty and degenerate matrices, JAX's
// NaNs where NumPy raises, the same bits under jit, vmap and eagerly, and bad input's errors.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <tuple>

#include "test_util.h"

namespace {

namespace jnp = jx::numpy;
namespace la = jx::numpy::linalg;
using jx::Array;
using jx::Shape;
using test_util::expect_error;

Array random_matrix(const Shape &shape, uint64_t seed, double diagonal = 0,
                    jx::DType dtype = jx::float64) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(size_t(jx::shape_size(shape)));
  for (double &x : v)
    x = normal(rng);
  const Array a = jnp::array(v, shape);
  const int64_t n = shape.back();
  return (diagonal == 0 || shape[shape.size() - 2] != n ? a : a + jnp::eye(n) * diagonal)
      .astype(dtype);
}

// a a^T + n I: symmetric positive definite.
Array positive_definite(const Shape &shape, uint64_t seed) {
  const Array a = random_matrix(shape, seed);
  return jnp::matmul(a, jnp::matrix_transpose(a)) + jnp::eye(shape.back()) * double(shape.back());
}

// max |got - want| over max |want|.
double relative_error(const Array &got, const Array &want) {
  const std::vector<double> g = got.astype(jx::float64).to_vector<double>(),
                            w = want.astype(jx::float64).to_vector<double>();
  EXPECT_EQ(g.size(), w.size());
  double err = 0, scale = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    err = std::max(err, std::abs(g[i] - w[i]));
    scale = std::max(scale, std::abs(w[i]));
  }
  return err / std::max(scale, 1e-300);
}

void expect_same_bits(const Array &a, const Array &b) {
  ASSERT_EQ(a.shape(), b.shape());
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_TRUE(std::memcmp(&x[i], &y[i], sizeof(double)) == 0 ||
                (std::isnan(x[i]) && std::isnan(y[i])))
        << i << ": " << x[i] << " vs " << y[i];
}

TEST(Linalg, FactorizationsReconstructTheirMatrix) {
  const Array a = random_matrix({200, 200}, 1, 20), pd = positive_definite({150, 150}, 2);
  const Array tall = random_matrix({130, 70}, 3), wide = random_matrix({40, 90}, 4);
  const Array l = la::cholesky(pd);
  EXPECT_LT(relative_error(jnp::matmul(l, jnp::matrix_transpose(l)), pd), 1e-14);
  EXPECT_EQ(jnp::count_nonzero(jnp::triu(l, 1)).item<int64_t>(), 0);
  EXPECT_LT(relative_error(jnp::matmul(a, la::inv(a)), jnp::eye(200)), 1e-13);
  const Array b = random_matrix({200, 7}, 5);
  EXPECT_LT(relative_error(jnp::matmul(a, la::solve(a, b)), b), 1e-13);
  const auto [w, v] = la::eigh(pd);
  EXPECT_LT(relative_error(jnp::matmul(pd, v), v * w), 1e-13);
  EXPECT_LT(relative_error(jnp::matmul(jnp::matrix_transpose(v), v), jnp::eye(150)), 1e-13);
  EXPECT_TRUE(jnp::all(jnp::diff(w) >= 0).item<bool>());
  for (const Array &m : {tall, wide}) {
    const auto [u, s, vh] = la::svd(m, false);
    EXPECT_LT(relative_error(jnp::matmul(u * s, vh), m), 1e-13);
    EXPECT_TRUE(jnp::all(jnp::diff(s) <= 0).item<bool>());
    const auto [uf, sf, vhf] = la::svd(m, true);
    const int64_t rows = m.shape()[0], cols = m.shape()[1];
    EXPECT_EQ(uf.shape(), (Shape{rows, rows}));
    EXPECT_EQ(vhf.shape(), (Shape{cols, cols}));
    EXPECT_LT(relative_error(jnp::matmul(jnp::matrix_transpose(uf), uf), jnp::eye(rows)), 1e-13);
    EXPECT_LT(relative_error(jnp::matmul(vhf, jnp::matrix_transpose(vhf)), jnp::eye(cols)), 1e-13);
    EXPECT_LT(relative_error(la::svdvals(m), s), 1e-14);
    for (const char *mode : {"reduced", "complete"}) {
      const auto [q, r] = la::qr(m, mode);
      EXPECT_LT(relative_error(jnp::matmul(q, r), m), 1e-13) << mode;
      EXPECT_EQ(jnp::count_nonzero(jnp::tril(r, -1)).item<int64_t>(), 0) << mode;
    }
  }
  // det and slogdet agree; det is the eigenvalues' product for a symmetric matrix.
  const Array small = pd(jx::slice(0, 20), jx::slice(0, 20)) / 10;
  const auto [sign, logdet] = la::slogdet(small);
  EXPECT_LT(relative_error(sign * jnp::exp(logdet), la::det(small)), 1e-12);
  EXPECT_LT(relative_error(la::det(small), jnp::prod(la::eigvalsh(small))), 1e-12);
}

// A v = v diag(w) for a general matrix (complex pairs among its eigenvalues), unit columns; a
// matrix with an infinity or NaN gives NaNs (LAPACK's balancing would index by them), batched
// beside finite ones.
TEST(Linalg, EigDecomposesGeneralMatrices) {
  const Array a = random_matrix({120, 120}, 6);
  const auto [w, v] = la::eig(a);
  EXPECT_EQ(w.dtype(), jnp::complex128);
  EXPECT_GT(jnp::sum(jnp::imag(w) != 0).item<int64_t>(), 0);
  const Array residual = jnp::matmul(a.astype(jnp::complex128), v) - v * w;
  EXPECT_LT(jnp::max(jnp::abs(residual)).item<double>(),
            1e-12 * jnp::max(jnp::abs(w)).item<double>());
  EXPECT_LT(jnp::max(jnp::abs(jnp::linalg::norm(v, std::nullopt, 0) - 1)).item<double>(), 1e-13);
  EXPECT_LT(jnp::max(jnp::abs(la::eigvals(a) - w)).item<double>(), 1e-12);
  const Array bad = jnp::stack({a(jx::slice(0, 3), jx::slice(0, 3)),
                                a(jx::slice(0, 3), jx::slice(0, 3)).at(1, 2).set(jnp::nan)});
  const Array values = la::eigvals(bad);
  EXPECT_TRUE(jnp::all(jnp::isfinite(values(0))).item<bool>());
  EXPECT_TRUE(jnp::all(jnp::isnan(values(1))).item<bool>());
  EXPECT_TRUE(jnp::all(jnp::isnan(la::eig(bad.astype(jnp::float32)).eigenvectors(1))).item<bool>());
}

TEST(Linalg, BatchesAreTheirMatricesOneByOne) {
  const Array a = random_matrix({3, 2, 9, 9}, 6, 5), pd = positive_definite({4, 8, 8}, 7);
  const Array rect = random_matrix({2, 7, 5}, 8);
  const Array inv_all = la::inv(a), det_all = la::det(a), chol_all = la::cholesky(pd);
  const Array eig_all = la::eigvalsh(pd), s_all = la::svdvals(rect), r_all = la::qr(rect).R;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      expect_same_bits(inv_all(i, j), la::inv(a(i, j)));
      expect_same_bits(det_all(i, j), la::det(a(i, j)));
    }
  for (int64_t i = 0; i < 4; ++i) {
    expect_same_bits(chol_all(i), la::cholesky(pd(i)));
    expect_same_bits(eig_all(i), la::eigvalsh(pd(i)));
  }
  for (int64_t i = 0; i < 2; ++i) {
    expect_same_bits(s_all(i), la::svdvals(rect(i)));
    expect_same_bits(r_all(i), la::qr(rect(i)).R);
  }
}

TEST(Linalg, JitVmapAndEagerAgreeBitForBit) {
  const Array a = random_matrix({5, 12, 12}, 9, 6), b = random_matrix({5, 12, 3}, 10);
  auto f = [](const Array &m, const Array &rhs) {
    const auto [u, s, vh] = la::svd(m, false);
    return std::tuple{la::solve(m, rhs),
                      la::det(m),
                      s,
                      la::eigvalsh(m + jnp::matrix_transpose(m)),
                      la::qr(m).R,
                      la::cholesky(jnp::matmul(m, jnp::matrix_transpose(m)))};
  };
  const auto eager = f(a, b);
  const auto jitted = jx::jit(f)(a, b);
  const auto mapped = jx::vmap(f)(a, b);
  expect_same_bits(std::get<0>(jitted), std::get<0>(eager));
  expect_same_bits(std::get<1>(jitted), std::get<1>(eager));
  expect_same_bits(std::get<2>(jitted), std::get<2>(eager));
  expect_same_bits(std::get<3>(jitted), std::get<3>(eager));
  expect_same_bits(std::get<4>(jitted), std::get<4>(eager));
  expect_same_bits(std::get<5>(jitted), std::get<5>(eager));
  expect_same_bits(std::get<0>(mapped), std::get<0>(eager));
  expect_same_bits(std::get<2>(mapped), std::get<2>(eager));
  expect_same_bits(std::get<5>(mapped), std::get<5>(eager));
  const std::string plan = jx::jit(f).lower(a, b).compile().as_text();
  for (const char *op : {"solve", "determinant", "svd", "eigh", "qr", "cholesky"})
    EXPECT_NE(plan.find(std::string("library ") + op + " "), std::string::npos) << op;
}

TEST(Linalg, Float32StaysFloat32) {
  const Array a = random_matrix({30, 30}, 11, 10, jx::float32);
  const Array x = la::inv(a);
  EXPECT_EQ(x.dtype(), jx::float32);
  EXPECT_LT(relative_error(jnp::matmul(a, x), jnp::eye(30)), 1e-5);
  const auto [u, s, vh] = la::svd(a, false);
  EXPECT_EQ(s.dtype(), jx::float32);
  EXPECT_LT(relative_error(jnp::matmul(u * s, vh), a), 1e-5);
  EXPECT_EQ(la::det(jnp::array({1, 2, 3, 5}, Shape{2, 2})).dtype(), jx::float64);
  EXPECT_DOUBLE_EQ(la::det(jnp::array({1, 2, 3, 5}, Shape{2, 2})).item<double>(), -1.0);
}

TEST(Linalg, EmptyAndDegenerateMatrices) {
  EXPECT_EQ(la::det(jnp::zeros({3, 0, 0})).to_vector<double>(), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(la::inv(jnp::zeros({0, 0})).shape(), (Shape{0, 0}));
  EXPECT_EQ(la::inv(jnp::zeros({0, 4, 4})).shape(), (Shape{0, 4, 4}));
  const auto [u, s, vh] = la::svd(jnp::zeros({3, 0}));
  EXPECT_EQ(u.shape(), (Shape{3, 3}));
  EXPECT_EQ(s.shape(), (Shape{0}));
  EXPECT_EQ(vh.shape(), (Shape{0, 0}));
  expect_same_bits(u, jnp::eye(3));
  const auto [q, r] = la::qr(jnp::zeros({2, 0}), "complete");
  expect_same_bits(q, jnp::eye(2));
  EXPECT_EQ(r.shape(), (Shape{2, 0}));
  EXPECT_EQ(la::eigvalsh(jnp::zeros({0, 0})).shape(), (Shape{0}));
  // JAX's answers where NumPy raises LinAlgError: NaNs for a matrix that is not positive definite,
  // infinities or NaNs solving with a singular one.
  const Array not_pd = jnp::array({1.0, 2.0, 2.0, 1.0}, Shape{2, 2});
  EXPECT_TRUE(jnp::all(jnp::isnan(la::cholesky(not_pd))).item<bool>());
  const Array singular = jnp::array({1.0, 2.0, 2.0, 4.0}, Shape{2, 2});
  EXPECT_FALSE(jnp::all(jnp::isfinite(la::inv(singular))).item<bool>());
  EXPECT_EQ(la::slogdet(singular).sign.item<double>(), 0.0);
  EXPECT_EQ(la::slogdet(singular).logabsdet.item<double>(), -jnp::inf);
  EXPECT_EQ(la::matrix_rank(singular).item<int64_t>(), 1);
  EXPECT_TRUE(la::matrix_rank(jnp::array({0.0, 0.0})).item<bool>() == false);
}

TEST(Linalg, CompositionsFollowJax) {
  const Array a = random_matrix({6, 6}, 12, 4);
  expect_same_bits(la::matrix_power(a, 1), a);
  EXPECT_LT(relative_error(
                la::matrix_power(a, 6),
                jnp::matmul(jnp::matmul(jnp::matmul(a, a), jnp::matmul(a, a)), jnp::matmul(a, a))),
            1e-14);
  EXPECT_LT(relative_error(jnp::matmul(la::matrix_power(a, -2), jnp::matmul(a, a)), jnp::eye(6)),
            1e-13);
  const Array tall = random_matrix({9, 4}, 13);
  EXPECT_LT(relative_error(jnp::matmul(jnp::matmul(tall, la::pinv(tall)), tall), tall), 1e-13);
  const Array y = random_matrix({9, 2}, 14);
  const la::LstsqResult fit = la::lstsq(tall, y);
  const Array normal = la::solve(jnp::matmul(jnp::matrix_transpose(tall), tall),
                                 jnp::matmul(jnp::matrix_transpose(tall), y));
  EXPECT_LT(relative_error(fit.x, normal), 1e-12);
  EXPECT_EQ(fit.rank.item<int64_t>(), 4);
  EXPECT_EQ(fit.rank.dtype(), jx::int64);
  // A matrix's 2-norm is its largest singular value; cond its ratio of extremes.
  EXPECT_DOUBLE_EQ(la::norm(a, 2).item<double>(), la::svdvals(a)(0).item<double>());
  EXPECT_DOUBLE_EQ(la::cond(a).item<double>(),
                   (la::svdvals(a)(0) / la::svdvals(a)(-1)).item<double>());
  EXPECT_EQ(la::norm(random_matrix({2, 3, 4}, 15), {}, {}, true).shape(), (Shape{1, 1, 1}));
}

// Central differences of f along direction d at a (f's values summed with weights w).
double directional(const std::function<Array(const Array &)> &f, const Array &a, const Array &d,
                   const Array &w) {
  const double h = 1e-6;
  return (jnp::sum(f(a + d * h) * w).item<double>() - jnp::sum(f(a - d * h) * w).item<double>()) /
         (2 * h);
}

// JAX's derivative rules: forward mode against central differences, reverse mode against the
// forward mode (<grad, d> = the directional derivative), for every output of the rule's op.
TEST(Linalg, DerivativesMatchDifferences) {
  const Array pd = positive_definite({2, 5, 5}, 20), a = random_matrix({2, 5, 5}, 21, 3);
  const Array b = random_matrix({2, 5, 3}, 22);
  const Array d = random_matrix({2, 5, 5}, 23), db = random_matrix({2, 5, 3}, 24);
  const Array sym = (d + jnp::matrix_transpose(d)) / 2;
  const Array tall = random_matrix({2, 6, 4}, 26), dt = random_matrix({2, 6, 4}, 27);
  const Array wide = jnp::matrix_transpose(tall), dw = jnp::matrix_transpose(dt);
  using F = std::function<Array(const Array &)>;
  const std::vector<std::tuple<const char *, F, Array, Array>> cases = {
      {"cholesky", [](const Array &m) { return la::cholesky(m); }, pd, sym},
      {"det", [](const Array &m) { return la::det(m); }, a, d},
      {"slogdet", [](const Array &m) { return la::slogdet(m).logabsdet; }, a, d},
      {"inv", [](const Array &m) { return la::inv(m); }, a, d},
      {"solve_a", [&b](const Array &m) { return la::solve(m, b); }, a, d},
      {"solve_b", [&a](const Array &rhs) { return la::solve(a, rhs); }, b, db},
      {"eigvalsh", [](const Array &m) { return la::eigvalsh(m); }, pd, sym},
      {"eigh_vectors", [](const Array &m) { return jnp::abs(la::eigh(m).eigenvectors); }, pd, sym},
      {"svdvals", [](const Array &m) { return la::svdvals(m); }, tall, dt},
      {"svd_u_tall", [](const Array &m) { return jnp::abs(la::svd(m, false).U); }, tall, dt},
      {"svd_vh_tall", [](const Array &m) { return jnp::abs(la::svd(m, false).Vh); }, tall, dt},
      {"svd_u_wide", [](const Array &m) { return jnp::abs(la::svd(m, false).U); }, wide, dw},
      {"svd_vh_wide", [](const Array &m) { return jnp::abs(la::svd(m, false).Vh); }, wide, dw},
      {"qr_q", [](const Array &m) { return la::qr(m).Q; }, tall, dt},
      {"qr_r", [](const Array &m) { return la::qr(m).R; }, tall, dt},
  };
  for (const auto &[name, f, x, dx] : cases) {
    SCOPED_TRACE(name);
    const Array out = f(x);
    const Array w = random_matrix({out.size(), 1}, 25).reshape(out.shape());
    const double numeric = directional(f, x, dx, w);
    const auto [primal, tangent] = jx::jvp([&f](const Array &m) { return f(m); }, {x}, {dx});
    const double forward = jnp::sum(tangent * w).item<double>();
    EXPECT_NEAR(forward, numeric, 1e-6 * (1 + std::abs(numeric)));
    const Array g = jx::grad([&](const Array &m) { return jnp::sum(f(m) * w); })(x);
    EXPECT_NEAR(jnp::sum(g * dx).item<double>(), forward, 1e-10 * (1 + std::abs(forward)));
  }
  // The closed form: d log|det a| / da = a^-T.
  const Array g = jx::grad([](const Array &m) { return jnp::sum(la::slogdet(m).logabsdet); })(a);
  EXPECT_LT(relative_error(g, jnp::matrix_transpose(la::inv(a))), 1e-12);
}

TEST(Linalg, BadInputRaisesJaxsErrors) {
  const Array rect = jnp::ones({2, 3}), vec = jnp::ones({3});
  expect_error<jx::ValueError>([&] { la::inv(rect); },
                               "Argument to inv must have shape [..., n, n], got (2, 3).");
  expect_error<jx::ValueError>([&] { la::det(rect); },
                               "Argument to _det() must have shape [..., n, n], got (2, 3)");
  expect_error<jx::ValueError>([&] { la::slogdet(vec); },
                               "Argument to slogdet() must have shape [..., n, n], got (3,)");
  expect_error<jx::ValueError>([&] { la::cholesky(rect); },
                               "The input to cholesky must be a square matrix. Got shape (2, 3).");
  expect_error<jx::ValueError>(
      [&] { la::eigh(rect); },
      "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (2, 3)");
  expect_error<jx::ValueError>([&] { la::eigh(jnp::eye(2), "X"); },
                               "UPLO must be one of None, 'L', or 'U', got X");
  expect_error<jx::ValueError>([&] { la::svd(vec); },
                               "1-dimensional array given. Array must be at least two-dimensional");
  expect_error<jx::ValueError>([&] { la::qr(jnp::eye(2), "raw2"); },
                               "Unsupported QR decomposition mode 'raw2'");
  expect_error<jx::ValueError>(
      [&] { la::solve(vec, vec); },
      "left hand array must be at least two dimensional; got a.shape=(3,)");
  expect_error<jx::ValueError>(
      [&] {
        la::solve(jnp::ones({2, 3, 3}), jnp::ones({2, 3}));
      },
      "Invalid shapes for solve: (2, 3, 3), (2, 3). Prior to JAX v0.5.0");
  expect_error<jx::ValueError>([&] { la::solve(jnp::eye(3), jnp::ones({4})); },
                               "solve: shapes (3, 3) and (4,) do not match");
  expect_error<jx::TypeError>([&] { la::matrix_power(vec, 2); },
                              "1-dimensional array given. Array must be at least two-dimensional");
  expect_error<jx::TypeError>([&] { la::matrix_power(rect, 2); },
                              "Last 2 dimensions of the array must be square");
  expect_error<jx::ValueError>([&] { la::norm(rect, "nuc", 0); },
                               "Invalid order 'nuc' for vector norm.");
  expect_error<jx::ValueError>(
      [&] {
        la::norm(rect, 3, {0, 1});
      },
      "Invalid order '3' for matrix norm.");
  expect_error<jx::ValueError>(
      [&] {
        la::norm(jnp::ones({2, 2, 2}), {}, {0, 1, 2});
      },
      "Improper number of axes for norm: axis=(0, 1, 2).");
  expect_error<jx::ValueError>(
      [&] {
        la::norm(jnp::ones({2, 2, 2}), 2);
      },
      "Improper number of dimensions to norm.");
  expect_error<jx::ValueError>([&] { la::lstsq(rect, jnp::ones({3})); },
                               "Leading dimensions of input arrays must match");
  expect_error<jx::ValueError>([&] { la::multi_dot({rect}); },
                               "multi_dot requires at least two arrays; got len(arrays)=1");
  expect_error<jx::ValueError>(
      [&] {
        la::multi_dot({rect, rect});
      },
      "multi_dot: last dimension of each array must match first");
  expect_error<jx::ValueError>(
      [&] {
        la::tensorinv(jnp::ones({2, 3, 4}), 1);
      },
      "tensorinv is only possible when the product of the first `ind`");
  expect_error<jx::ValueError>([&] { la::cond(vec); },
                               "jnp.linalg.cond: input array must be at least 2D; got "
                               "arr.shape=(3,)");
  expect_error<jx::ValueError>([&] { la::outer(rect, vec); },
                               "Input arrays must be one-dimensional, but they are x1.ndim=2 "
                               "x2.ndim=1");
  expect_error<jx::NotImplementedError>(
      [&] { jx::grad([](const Array &m) { return jnp::sum(la::svd(m).U); })(jnp::eye(2)); },
      "Singular value decomposition JVP not implemented for full matrices");
  expect_error<jx::NotImplementedError>(
      [&] {
        jx::grad([](const Array &m) { return jnp::sum(la::qr(m).R); })(jnp::ones({2, 3}));
      },
      "Unimplemented case of QR decomposition derivative");
}

} // namespace
