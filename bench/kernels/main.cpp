// kernels_bench: the kernels group (kernels.h), each kernel timed per call once compiled (medians
// of --rounds calls). --out DIR writes each result as DIR/NAME_K.npy for `peers.py --group kernels`
// to check against NumPy; --only NAME runs one kernel.
#include "kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <string>
#include <vector>

using kernels::Kernel;
using kernels::Registry;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5;
  bool json = false;
  std::string out_dir, only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--out" && i + 1 < argc)
      out_dir = argv[++i];
    else if (arg == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (arg == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: %s [--rounds 5] [--json] [--out DIR] [--only NAME]\n", argv[0]);
      return 2;
    }
  }
  Registry all;
  for (Registry (*family)() :
       {&kernels::stencil_kernels, &kernels::linalg_kernels, &kernels::misc_kernels})
    for (auto &make : family())
      all.push_back(std::move(make));
  if (!json) fmt::print("{:<12} | {:<24} | {:>10}\n", "kernel", "size", "jx ms");
  for (const auto &make : all) {
    const Kernel k = make();
    if (!only.empty() && k.name != only) continue;
    jx::lax::Arrays result = k.run(); // compile and warm up
    for (const jx::Array &r : result)
      r.block_until_ready();
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (const jx::Array &x : k.run())
        x.block_until_ready();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (!out_dir.empty())
      for (size_t i = 0; i < result.size(); ++i)
        jx::numpy::save(fmt::format("{}/{}_{}.npy", out_dir, k.name, i), result[i]);
    if (json)
      fmt::print("{{\"name\": \"{}\", \"size\": \"{}\", \"jx_ms\": {:.6g}}}\n", k.name, k.size,
                 median(ms));
    else
      fmt::print("{:<12} | {:<24} | {:>10.3f}\n", k.name, k.size, median(ms));
  }
  return 0;
}
