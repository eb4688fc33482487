// Pass order and JX_DUMP. Passes run to a fixed point of the whole list (bounded), since one
// pass's output is often another's input (simplification exposes constants to fold).
#include "passes/pipeline.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "ir/printer.h"
#include "passes/passes.h"

namespace jx::passes {
namespace {

struct NamedPass {
  const char *name;
  std::vector<ir::NodePtr> (*run)(const std::vector<ir::NodePtr> &);
};

constexpr NamedPass pipeline[] = {
    {"fold_constants", fold_constants},
    {"simplify", simplify},
    {"stack_to_broadcast", stack_to_broadcast},
    {"sink_movement", sink_movement},
    {"split_reductions", split_reductions},
};

constexpr int max_rounds = 4;

} // namespace

std::vector<ir::NodePtr> optimize(const std::vector<ir::NodePtr> &roots) {
  const char *dump_dir = std::getenv("JX_DUMP");
  static int dump_counter = 0;
  std::vector<ir::NodePtr> graph = roots;
  for (int round = 0; round < max_rounds; ++round) {
    bool any = false;
    for (const NamedPass &pass : pipeline) {
      auto start = std::chrono::steady_clock::now();
      std::vector<ir::NodePtr> next = pass.run(graph);
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (next == graph) continue;
      any = true;
      graph = std::move(next);
      if (dump_dir) {
        std::filesystem::create_directories(dump_dir);
        std::ofstream(std::filesystem::path(dump_dir) /
                      fmt::format("{:04}_{}.txt", dump_counter++, pass.name))
            << fmt::format("# {} (round {}): {:.3f} ms\n", pass.name, round, ms)
            << ir::print_graph(graph);
      }
    }
    if (!any) break;
  }
  return graph;
}

} // namespace jx::passes
