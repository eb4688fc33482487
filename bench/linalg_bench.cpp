// Linear algebra (issue 15): jnp.linalg's factorizations and what builds on them through jx::jit
// on --n x --n float64 matrices (default 1024: normal values, plus n I where a routine wants a
// well-conditioned or, as a a^T / n + I, a positive definite one), and inv of a batch of --batch
// 8 x 8 matrices, medians of --rounds calls after a warm-up. --json prints one object per
// workload and line (bench/peers/peers.py --group linalg adds NumPy's and JAX's times).
#include <jx/jx.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/core.h>
#include <functional>
#include <string>
#include <vector>

#include "runtime/gemm.h"
#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
namespace la = jx::numpy::linalg;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

} // namespace

int main(int argc, char **argv) {
  int64_t n = 1024, batch = 4096;
  int rounds = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--batch" && i + 1 < argc) batch = std::atoll(argv[++i]);
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (arg == "--json") json = true;
  }
  const Array a = jx::random::normal(jx::random::PRNGKey(0), {n, n}).block_until_ready();
  const Array general = (a + jnp::eye(n) * double(n) / 16).block_until_ready();
  const Array pd =
      (jnp::matmul(a, jnp::matrix_transpose(a)) / double(n) + jnp::eye(n)).block_until_ready();
  const Array b = jx::random::normal(jx::random::PRNGKey(1), {n, 1}).block_until_ready();
  const Array small = (jx::random::normal(jx::random::PRNGKey(2), {batch, 8, 8}) + jnp::eye(8) * 4)
                          .block_until_ready();
  using Unary = std::function<Array(const Array &)>;
  auto jit1 = [](Unary f) { return jx::jit([f](const Array &x) { return f(x); }); };
  struct Workload {
    std::string name;
    std::function<Array()> run;
  };
  auto on = [](auto fn, const Array &x) {
    return std::function<Array()>([fn, x]() mutable { return fn(x); });
  };
  const std::string size = fmt::format("{}", n);
  auto solve = jx::jit([](const Array &m, const Array &rhs) { return la::solve(m, rhs); });
  const std::vector<Workload> workloads = {
      {"det_" + size, on(jit1([](const Array &x) { return la::det(x); }), general)},
      {"slogdet_" + size,
       on(jit1([](const Array &x) { return la::slogdet(x).logabsdet; }), general)},
      {"inv_" + size, on(jit1([](const Array &x) { return la::inv(x); }), general)},
      {"solve_" + size, [solve, general, b]() mutable { return solve(general, b); }},
      {"cholesky_" + size, on(jit1([](const Array &x) { return la::cholesky(x); }), pd)},
      {"eigh_" + size, on(jit1([](const Array &x) { return la::eigh(x).eigenvectors; }), pd)},
      {"eigvalsh_" + size, on(jit1([](const Array &x) { return la::eigvalsh(x); }), pd)},
      {"eig_" + size, on(jit1([](const Array &x) { return la::eig(x).eigenvectors; }), general)},
      {"eigvals_" + size, on(jit1([](const Array &x) { return la::eigvals(x); }), general)},
      {"svd_" + size, on(jit1([](const Array &x) { return la::svd(x, false).U; }), a)},
      {"svdvals_" + size, on(jit1([](const Array &x) { return la::svdvals(x); }), a)},
      {"qr_" + size, on(jit1([](const Array &x) { return la::qr(x).R; }), a)},
      {"pinv_" + size, on(jit1([](const Array &x) { return la::pinv(x); }), a)},
      {fmt::format("inv_batch_{}x8x8", batch),
       on(jit1([](const Array &x) { return la::inv(x); }), small)},
  };
  std::vector<std::vector<double>> ms(workloads.size());
  for (const Workload &w : workloads) // compile and warm up
    w.run().block_until_ready();
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < workloads.size(); ++i) {
      const auto t = Clock::now();
      workloads[i].run().block_until_ready();
      ms[i].push_back(ms_since(t));
    }
  for (size_t i = 0; i < workloads.size(); ++i) {
    if (json)
      fmt::print("{{\"name\": \"{}\", \"jx_ms\": {:.3f}}}\n", workloads[i].name, median(ms[i]));
    else
      fmt::print("{}: jx {:.2f} ms\n", workloads[i].name, median(ms[i]));
  }
  fmt::print(stderr, "OpenBLAS kernels: {}\n", jx::runtime::blas_kernels());
}
