// Ahead-of-time functions from an installed jx, through their generated C++ wrappers: this
// program links the generated objects and libjx_runtime only (static or shared), no LLVM.
#include <cmath>
#include <cstdio>
#include <vector>

#include "column_norms.h"
#include "exp_dot.h"

int main() {
  bool ok = jx_aot_abi_version() == JX_AOT_ABI_VERSION;

  const int n = 1000;
  std::vector<double> xs(n), ys(n), twice_sin(n);
  for (int i = 0; i < n; ++i) {
    xs[size_t(i)] = 0.001 * i;
    ys[size_t(i)] = 1.0 - 0.002 * i;
  }
  double total = 0;
  exp_dot_aot::call(xs, ys, std::span<double>(&total, 1), twice_sin);
  double expected = 0, err = 0;
  for (int i = 0; i < n; ++i) {
    expected += std::exp(xs[size_t(i)]) * ys[size_t(i)] + 1.0;
    err = std::max(err, std::abs(twice_sin[size_t(i)] - 2.0 * std::sin(xs[size_t(i)])));
  }
  const double rel = std::abs(total - expected) / std::abs(expected);
  std::printf("aot: sum(exp(x) * y + 1) = %.17g, loop %.17g, relative error %.3g\n", total,
              expected, rel);
  std::printf("aot: 2 sin(x) max abs error %.3g\n", err);
  ok = ok && rel <= 1e-12 && err <= 1e-15;

  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<float> norms(3);
  column_norms_aot::call(x, norms);
  std::printf("aot: column_norms = [%g, %g, %g]\n", norms[0], norms[1], norms[2]);
  ok = ok && norms == std::vector<float>{1 + 16 + 49 + 100, 4 + 25 + 64 + 121, 9 + 36 + 81 + 144};

  // A wrong size is a jx::aot::CallError, not a crash.
  try {
    column_norms_aot::call(std::span<const float>(x).first(11), norms);
    ok = false;
  } catch (const jx::aot::CallError &e) {
    std::printf("aot: expected error: %s\n", e.what());
    ok = ok && e.status() == JX_AOT_ERROR_ARGUMENTS;
  }
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
