// Pass order and JX_DUMP. Passes run to a fixed point of the whole list (bounded), since one
// pass's output is often another's input (simplification exposes constants to fold).
#include "passes/pipeline.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <system_error>

#include "ir/printer.h"
#include "passes/passes.h"
#include "runtime/trace.h"

namespace jx::passes {
namespace {

struct NamedPass {
  const char *name;
  std::vector<ir::NodePtr> (*run)(const std::vector<ir::NodePtr> &);
};

constexpr NamedPass pipeline[] = {
    {"fold_constants", fold_constants},         {"simplify", simplify},
    {"stack_to_broadcast", stack_to_broadcast}, {"sink_movement", sink_movement},
    {"merge_reductions", merge_reductions},     {"split_reductions", split_reductions},
};

constexpr int max_rounds = 4;

// JX_DUMP's directory, created on first use; empty when unset or unusable. A dump is a debugging
// aid: a problem with it is one warning on stderr, never an error from the read that compiled.
const std::string &dump_dir() {
  static const std::string dir = [] {
    const char *env = std::getenv("JX_DUMP");
    if (!env || !*env) return std::string();
    std::error_code ec;
    std::filesystem::create_directories(env, ec);
    if (!ec && !std::filesystem::is_directory(env, ec))
      ec = std::make_error_code(std::errc::not_a_directory);
    if (!ec) return std::string(env);
    std::fprintf(stderr, "jx: warning: JX_DUMP=%s is not a usable directory (%s); not dumping\n",
                 env, ec.message().c_str());
    return std::string();
  }();
  return dir;
}

// JX_DUMP_FORMAT: dot (Graphviz) or text (the default); anything else is one warning, then text.
bool dump_dot() {
  static const bool dot = [] {
    const char *env = std::getenv("JX_DUMP_FORMAT");
    if (!env || !*env || std::string(env) == "text") return false;
    if (std::string(env) == "dot") return true;
    std::fprintf(stderr, "jx: warning: JX_DUMP_FORMAT=%s is neither text nor dot; dumping text\n",
                 env);
    return false;
  }();
  return dot;
}

// Writes one dump file, named in order; after a failed write (a full disk, a removed directory)
// warns once and stops dumping.
void write_dump(const std::string &name, const std::string &contents) {
  static std::atomic<int> counter{0};
  static std::atomic<bool> failed{false};
  if (dump_dir().empty() || failed.load(std::memory_order_relaxed)) return;
  const std::filesystem::path path =
      std::filesystem::path(dump_dir()) /
      fmt::format("{:04}_{}.{}", counter++, name, dump_dot() ? "dot" : "txt");
  std::ofstream out(path);
  out << contents;
  out.close();
  if (!out && !failed.exchange(true))
    std::fprintf(stderr, "jx: warning: JX_DUMP: could not write %s; not dumping any more\n",
                 path.c_str());
}

void dump(const char *pass, int round, double ms, const std::vector<ir::NodePtr> &graph) {
  if (dump_dir().empty()) return;
  const std::string title = fmt::format("{} (round {}): {:.3f} ms", pass, round, ms);
  write_dump(pass, dump_dot() ? ir::graph_dot(graph, title)
                              : fmt::format("# {}\n{}", title, ir::print_graph(graph)));
}

// The passes to a fixed point of the whole list, at most max_rounds times; rounds are numbered
// from first_round in dumps.
std::vector<ir::NodePtr> rounds(std::vector<ir::NodePtr> graph, int first_round) {
  for (int round = first_round; round < first_round + max_rounds; ++round) {
    bool any = false;
    for (const NamedPass &pass : pipeline) {
      auto start = std::chrono::steady_clock::now();
      runtime::trace::Span span("pass", pass.name);
      if (span.active()) span.set_args("\"round\": " + std::to_string(round));
      std::vector<ir::NodePtr> next = pass.run(graph);
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (next == graph) continue;
      any = true;
      graph = std::move(next);
      dump(pass.name, round, ms, graph);
    }
    if (!any) break;
  }
  return graph;
}

} // namespace

bool dumping() { return !dump_dir().empty(); }

void dump_plan(const std::string &text, const std::string &dot) {
  write_dump("plan", dump_dot() ? dot : text);
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const NamedPass &pass : pipeline)
    names.emplace_back(pass.name);
  names.emplace_back("split_concatenates");
  return names;
}

std::vector<ir::NodePtr> optimize(const std::vector<ir::NodePtr> &roots) {
  std::vector<ir::NodePtr> graph = rounds(roots, 0);
  // Lowerings for fusion, once: the passes above see the graph as the user wrote it.
  auto start = std::chrono::steady_clock::now();
  std::vector<ir::NodePtr> lowered = [&] {
    runtime::trace::Span span("pass", "split_concatenates");
    return split_concatenates(graph);
  }();
  if (lowered != graph) {
    graph = std::move(lowered);
    dump(
        "split_concatenates", max_rounds,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
        graph);
    // Then they see the levels too (a level of a stack's operands that differ only in literals
    // becomes one expression), as they would in another optimize: its result is a fixed point.
    graph = rounds(graph, max_rounds + 1);
  }
  return graph;
}

} // namespace jx::passes
