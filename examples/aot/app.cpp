// Both seeds run from ahead-of-time compiled objects (examples/aot/generator.cpp): this program
// links libjx_runtime and the generated library only, no LLVM and no jx compiler. Prints what
// examples/simpson and examples/diff_seed print and checks the same references.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "diff_1x1.h"
#include "diff_1x8.h"
#include "diff_8x1.h"
#include "diff_input.h"
#include "simpson.h"

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// The float64 data of a .npy file written by numpy.save (C order, little-endian).
std::vector<double> load_npy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  uint16_t header_length = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char *>(&header_length), 2);
  std::string header(header_length, ' ');
  in.read(header.data(), header_length);
  if (!in || std::memcmp(magic, "\x93NUMPY\x01", 7) || header.find("'<f8'") == std::string::npos)
    throw std::runtime_error(path + ": not a version 1 float64 .npy file");
  std::vector<double> data;
  double v;
  while (in.read(reinterpret_cast<char *>(&v), sizeof v))
    data.push_back(v);
  return data;
}

// Median of reps timed calls of f.
template <class F> double median_ms(int reps, F f) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    f();
    times.push_back(ms_since(t0));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main() {
  bool ok = true;
  const int reps = 5;

  // Seed 001: a = arange(0, 10, 0.1), b = a + 0.05 (NumPy computes arange as i * step).
  std::vector<double> a(100), b(100), S(200 * 100);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = double(i) * 0.1;
    b[i] = a[i] + 0.05;
  }
  simpson_aot::call(a, b, S);
  const double simpson_ms = median_ms(reps, [&] { simpson_aot::call(a, b, S); });
  std::printf("simpson (AOT): result shape (200, 100), run median %.2f ms (%d reps)\n", simpson_ms,
              reps);
  std::printf("S[:3, :3] =\n");
  for (int i = 0; i < 3; ++i)
    std::printf("  [%.17g, %.17g, %.17g]\n", S[i * 100], S[i * 100 + 1], S[i * 100 + 2]);
  const std::vector<double> expected = load_npy(JX_EXAMPLES_DATA "/simpson_numpy.npy");
  double rel = 0;
  for (size_t i = 0; i < S.size(); ++i)
    rel = std::max(rel, std::abs(S[i] - expected.at(i)) / std::abs(expected[i]));
  std::printf("max relative error vs NumPy: %.3g (%s)\n", rel, rel <= 1e-13 ? "ok" : "TOO LARGE");
  ok = ok && rel <= 1e-13;

  // Seed 000: x = jax.random.normal(PRNGKey(0), (4096, 4096)), then diff along axis 0 with a zero
  // row prepended, in the three layouts the objects were compiled for.
  // Large arrays in the runtime's memory (huge pages, as the JIT's arrays have).
  const size_t n = 4096;
  jx::aot::Buffer<double> x(n * n), out(n * n);
  auto t0 = clock_type::now();
  diff_input_aot::call(x);
  std::printf("diff seed (AOT): x %zux%zu float64 normal in %.1f ms\n", n, n, ms_since(t0));
  const std::vector<double> corner = load_npy(JX_EXAMPLES_DATA "/diff_seed_jax_corner.npy");
  double corner_err = 0;
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      corner_err = std::max(corner_err, std::abs(x[i * n + j] - corner.at(i * 4 + j)));
  std::printf("x[:4, :4] vs JAX: max abs difference %.3g\n", corner_err);
  ok = ok && corner_err <= 1e-15;
  struct Layout {
    const char *name;
    void (*call)(std::span<const double>, std::span<double>);
  };
  for (const Layout &layout :
       {Layout{"(1, 1)", diff_1x1_aot::call}, Layout{"(8, 1)", diff_8x1_aot::call},
        Layout{"(1, 8)", diff_1x8_aot::call}}) {
    std::fill(out.begin(), out.end(), std::nan(""));
    layout.call(std::as_const(x), out);
    bool exact = true;
    for (size_t i = 0; i < n && exact; ++i)
      for (size_t j = 0; j < n; ++j)
        exact = exact && out[i * n + j] == (i ? x[i * n + j] - x[(i - 1) * n + j] : x[j]);
    const double run_ms = median_ms(reps, [&] { layout.call(std::as_const(x), out); });
    std::printf("sharding %s: run median %.2f ms (%d reps), %s\n", layout.name, run_ms, reps,
                exact ? "exact" : "MISMATCH");
    ok = ok && exact;
  }
  std::printf("result[:3, :4] =\n");
  for (size_t i = 0; i < 3; ++i)
    std::printf("  [%.17g, %.17g, %.17g, %.17g]\n", out[i * n], out[i * n + 1], out[i * n + 2],
                out[i * n + 3]);

  // A call with the wrong arguments is an error with a message, not a crash.
  char error[256] = "";
  const int64_t wrong_shape[] = {99};
  const jx_aot_array wrong{a.data(), JX_AOT_FLOAT64, 1, wrong_shape};
  const jx_aot_array args[] = {wrong, wrong};
  const jx_aot_array result{S.data(), JX_AOT_FLOAT64, 2, simpson_aot::result0_shape.data()};
  const int32_t status = simpson(args, 2, &result, 1, error, sizeof error);
  std::printf("simpson with a float64[99] argument: status %d, \"%s\"\n", status, error);
  ok = ok && status == JX_AOT_ERROR_ARGUMENTS;
  return ok ? 0 : 1;
}
