// The seeds' compiled plans as Graphviz files (Compiled::as_dot) in the directory given:
// simpson_stack, simpson_broadcast, and seed 000's diff in (1,1), (8,1) and (1,8) over 8 devices.
// scripts/render_dumps.sh turns them into the SVGs docs/architecture.md shows.
#include <jx/jx.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "seeds.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  jx::config::set_num_cpu_devices(8);
  const std::string dir = argv[1];
  auto save = [&](const std::string &name, const std::string &dot) {
    std::ofstream(dir + "/" + name + ".dot") << dot;
  };
  const jx::ShapeDtypeStruct intervals{{100}, jx::float64};
  for (const bool broadcast : {false, true}) {
    auto f = jx::jit([broadcast](const jx::Array &a, const jx::Array &b) {
      return seeds::simps(
          [broadcast](const jx::Array &x) {
            return broadcast ? seeds::funcN_broadcast(x) : seeds::funcN(x);
          },
          a, b, 512);
    });
    save(broadcast ? "simpson_broadcast" : "simpson_stack",
         f.lower(intervals, intervals).compile().as_dot());
  }
  for (const auto &[rows, cols] : {std::pair{1, 1}, {8, 1}, {1, 8}}) {
    const jx::Sharding s = seeds::diff_layout(rows, cols);
    auto f = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}});
    save("diff_" + std::to_string(rows) + "x" + std::to_string(cols),
         f.lower(jx::ShapeDtypeStruct{{4096, 4096}, jx::float64}).compile().as_dot());
  }
  return 0;
}
