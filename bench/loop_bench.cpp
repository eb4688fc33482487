// Loops compiled into one program (issue 14): per-step time of a jx::lax::fori_loop against the
// same step as its own jit call (the kernel time of one step, dispatch included) and against a
// C++ loop around that jitted step, in one process, alternating rounds.
//   heat_N: a 2-D heat equation, explicit Euler, the diff seed's stencil along both axes with
//     zero padding (u + 0.1 * laplacian(u)), N x N float64, --steps steps.
//   tiny_16: a carry of 16 float64 (x * 0.999 + 0.001), --tiny-steps steps: the loop's own
//     overhead per iteration.
//   update_row/column/element_N, scale_N: a fori_loop of --update-steps steps writing a row, a
//     column or an element of an N x N float64 carry at the loop index, or scaling all of it.
// --json prints one object per workload and line; --text the heat loop's plan and the single
// step's (Compiled::as_text without the kernels' IR); --compile the loop's lower + compile time
// and traced graph size per trip count (10, 1000, 100000: independent of it); --cold-compile one
// first lower + compile of a loop of --steps trips (run it in fresh processes, without
// JX_CACHE_DIR).
#include <jx/jx.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <string>
#include <vector>

#include "heat/heat_step.h"
#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

Array tiny_step(const Array &x) { return x * 0.999 + 0.001; }

struct Figures {
  double loop_step_ms, single_step_ms, cpp_loop_step_ms;
};

// Per-step medians over `rounds`: the loop (one call of `steps` steps), one step as a jit call
// (median of `steps` calls), and `steps` jit calls in a C++ loop.
template <class Step> Figures measure(Step step, const Array &init, int64_t steps, int rounds) {
  auto looped = jx::jit([&](const Array &u) {
    return lax::fori_loop(
        0, steps, [&](const Array &, const Array &v) { return step(v); }, u);
  });
  auto single = jx::jit(step);
  std::vector<double> loop_ms, single_ms, cpp_ms;
  looped(init).block_until_ready(); // compile and warm up
  single(init).block_until_ready();
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    looped(init).block_until_ready();
    loop_ms.push_back(ms_since(t0) / double(steps));
    std::vector<double> calls;
    for (int64_t i = 0; i < std::min<int64_t>(steps, 200); ++i) {
      auto t1 = Clock::now();
      single(init).block_until_ready();
      calls.push_back(ms_since(t1));
    }
    single_ms.push_back(median(calls));
    Array u = init;
    auto t2 = Clock::now();
    for (int64_t i = 0; i < steps; ++i)
      u = single(u);
    u.block_until_ready();
    cpp_ms.push_back(ms_since(t2) / double(steps));
  }
  return {median(loop_ms), median(single_ms), median(cpp_ms)};
}

// Per-step medians over `rounds` of a fori_loop whose body updates part of an n x n float64
// carry at the loop index i (mod n), written as a NumPy loop ports: a.at(i).set(2.0) (a row),
// a.at(slice(), i) (a column), a.at(i, i) (an element); and the whole array scaled
// (a * 1.0001), the baseline of issue 33's figures. Two figures: a call of `steps` steps over
// steps (the loop's first iteration copies the caller's carry, which the caller still holds,
// once), and the cost of each further step, (T(11 steps) - T(steps)) / (10 steps).
enum class Update { Row, Column, Element, Scale };
struct UpdateFigures {
  double call_step_ms, next_step_ms;
};
double call_ms(Update kind, const Array &init, int64_t steps, int rounds);
UpdateFigures measure_update(Update kind, const Array &init, int64_t steps, int rounds) {
  const double once = call_ms(kind, init, steps, rounds),
               more = call_ms(kind, init, 11 * steps, rounds);
  return {once / double(steps), (more - once) / double(10 * steps)};
}
double call_ms(Update kind, const Array &init, int64_t steps, int rounds) {
  auto looped = jx::jit([&](const Array &a) {
    return lax::fori_loop(
        0, steps,
        [&](const Array &step, const Array &v) {
          const Array i = step % v.shape()[0];
          switch (kind) {
          case Update::Row: return v.at(i).set(2.0);
          case Update::Column: return v.at(jx::slice(), i).set(2.0);
          case Update::Element: return v.at(i, i).set(2.0);
          case Update::Scale: break;
          }
          return v * 1.0001;
        },
        a);
  });
  looped(init).block_until_ready(); // compile and warm up
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    looped(init).block_until_ready();
    ms.push_back(ms_since(t0));
  }
  return median(ms);
}

// Trace and compile of the heat loop per trip count: medians over `rounds` of a fresh jit's
// lower + compile (the kernel cache warm after the first: what the trip count could add is
// tracing and the plan), and the traced graph's lines (its size).
struct CompileFigures {
  int64_t trips;
  double compile_ms;
  int64_t graph_lines;
};
std::vector<CompileFigures> measure_compile(int64_t n, int rounds) {
  const jx::ShapeDtypeStruct spec{{n, n}, jx::float64};
  const int64_t trip_counts[] = {10, 1000, 100000};
  std::vector<std::vector<double>> ms(std::size(trip_counts));
  std::vector<CompileFigures> out;
  for (int r = 0; r < rounds + 1; ++r)
    for (size_t k = 0; k < std::size(trip_counts); ++k) {
      const int64_t trips = trip_counts[k];
      auto looped = jx::jit([trips](const Array &u) {
        return lax::fori_loop(
            0, trips, [](const Array &, const Array &v) { return heat::step(v); }, u);
      });
      const auto t0 = Clock::now();
      const auto lowered = looped.lower(spec);
      lowered.compile();
      if (r > 0) ms[k].push_back(ms_since(t0));
      if (r == 0) {
        const std::string text = lowered.as_text();
        out.push_back({trips, 0, int64_t(std::count(text.begin(), text.end(), '\n'))});
      }
    }
  for (size_t k = 0; k < out.size(); ++k)
    out[k].compile_ms = median(ms[k]);
  return out;
}

std::string plan_of(const std::string &text) { return text.substr(0, text.find("\n;")); }

int print_plans(int64_t n, int64_t steps) {
  const jx::ShapeDtypeStruct spec{{n, n}, jx::float64};
  auto looped = jx::jit([&](const Array &u) {
    return lax::fori_loop(
        0, steps, [](const Array &, const Array &v) { return heat::step(v); }, u);
  });
  fmt::print("loop:\n{}\n\none step:\n{}\n", plan_of(looped.lower(spec).compile().as_text()),
             plan_of(jx::jit(heat::step).lower(spec).compile().as_text()));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = 1024, steps = 1000, tiny_steps = 100000, update_steps = 200;
  int rounds = 5;
  bool json = false, text = false, compile = false, cold = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--n" && has_value)
      n = std::atoll(argv[++i]);
    else if (arg == "--steps" && has_value)
      steps = std::atoll(argv[++i]);
    else if (arg == "--tiny-steps" && has_value)
      tiny_steps = std::atoll(argv[++i]);
    else if (arg == "--update-steps" && has_value)
      update_steps = std::atoll(argv[++i]);
    else if (arg == "--rounds" && has_value)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--json")
      json = true;
    else if (arg == "--text")
      text = true;
    else if (arg == "--compile")
      compile = true;
    else if (arg == "--cold-compile")
      cold = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--n 1024] [--steps 1000] [--tiny-steps 100000] [--update-steps 200] "
                   "[--rounds 5] "
                   "[--json | --text | --compile | --cold-compile]\n",
                   argv[0]);
      return 2;
    }
  }
  if (text) return print_plans(n, steps);
  if (cold) {
    // One lower + compile in this fresh process: tracing, passes and LLVM for every kernel.
    const jx::ShapeDtypeStruct spec{{n, n}, jx::float64};
    auto looped = jx::jit([steps](const Array &u) {
      return lax::fori_loop(
          0, steps, [](const Array &, const Array &v) { return heat::step(v); }, u);
    });
    const auto t0 = Clock::now();
    looped.lower(spec).compile();
    fmt::print("heat_{} fori_loop of {} trips: cold lower + compile {:.1f} ms\n", n, steps,
               ms_since(t0));
    return 0;
  }
  if (compile) {
    fmt::print("heat_{} fori_loop: lower + compile, median of {} rounds (kernels cached)\n"
               "{:>8} | {:>10} | {:>11}\n",
               n, rounds, "trips", "compile ms", "graph lines");
    for (const CompileFigures &c : measure_compile(n, rounds))
      fmt::print("{:>8} | {:>10.2f} | {:>11}\n", c.trips, c.compile_ms, c.graph_lines);
    return 0;
  }
  const Array u0 = jx::random::normal(jx::random::PRNGKey(0), {n, n}).block_until_ready();
  const Array x0 = jnp::linspace(0.0, 1.0, 16).block_until_ready();
  const Figures heat = measure(heat::step, u0, steps, rounds);
  const Figures tiny = measure(tiny_step, x0, tiny_steps, rounds);
  const std::pair<std::string, Figures> rows[] = {{fmt::format("heat_{}", n), heat},
                                                  {"tiny_16", tiny}};
  if (!json)
    fmt::print("jx loops: per-step medians of {} rounds; heat: {} steps, tiny: {} steps\n"
               "{:<10} | {:>14} | {:>15} | {:>17} | {:>14} | {:>16}\n",
               rounds, steps, tiny_steps, "workload", "loop ms/step", "1 jit call ms",
               "C++ loop ms/step", "loop / 1 call", "loop / C++ loop");
  const std::pair<const char *, Update> updates[] = {{"update_row", Update::Row},
                                                     {"update_column", Update::Column},
                                                     {"update_element", Update::Element},
                                                     {"scale", Update::Scale}};
  std::vector<std::pair<std::string, UpdateFigures>> update_rows;
  for (const auto &[name, kind] : updates)
    update_rows.emplace_back(fmt::format("{}_{}", name, n),
                             measure_update(kind, u0, update_steps, rounds));
  for (const auto &[name, f] : rows) {
    if (json)
      fmt::print("{{\"name\": \"{}\", \"loop_step_ms\": {:.6g}, \"single_step_ms\": {:.6g}, "
                 "\"cpp_loop_step_ms\": {:.6g}}}\n",
                 name, f.loop_step_ms, f.single_step_ms, f.cpp_loop_step_ms);
    else
      fmt::print("{:<10} | {:>14.5f} | {:>15.5f} | {:>17.5f} | {:>14.3f} | {:>16.3f}\n", name,
                 f.loop_step_ms, f.single_step_ms, f.cpp_loop_step_ms,
                 f.loop_step_ms / f.single_step_ms, f.loop_step_ms / f.cpp_loop_step_ms);
  }
  if (!json)
    fmt::print("\nupdates of part of a {0} x {0} float64 carry at the loop index, {1} steps "
               "(per step of one call; each step past them)\n"
               "{2:<20} | {3:>12} | {4:>15}\n",
               n, update_steps, "workload", "us/step", "next us/step");
  for (const auto &[name, f] : update_rows) {
    if (json)
      fmt::print("{{\"name\": \"{}\", \"loop_step_ms\": {:.6g}, \"next_step_ms\": {:.6g}}}\n", name,
                 f.call_step_ms, f.next_step_ms);
    else
      fmt::print("{:<20} | {:>12.2f} | {:>15.2f}\n", name, f.call_step_ms * 1e3,
                 f.next_step_ms * 1e3);
  }
  return 0;
}
