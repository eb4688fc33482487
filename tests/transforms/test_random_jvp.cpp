// jx::jvp, vjp and vmap of random functions (diff::random_function) of float64 arguments:
// tangents against central finite differences, primals against f(args) bit for bit, jvp under jit
// against eager, vjp against jvp by the dot-product identity, vmap against stacked examples.
// JX_DIFF_GRAPHS (default 150, 40 under sanitizers; `make campaign`: 2000) and JX_DIFF_SEED
// (default 1) choose the functions; JX_DIFF_SEED=<seed> JX_DIFF_GRAPHS=1 reruns one.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <random>
#include <sstream>

#include "api/internal.h"
#include "diff/compare.h"
#include "diff/random_graph.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::diff::GeneratedFunction;
using jx::diff::GraphOptions;
using jx::diff::random_function;

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}
uint64_t base_seed() { return env_or("JX_DIFF_SEED", 1); }
// 500 in release builds, fewer under the sanitizers (tests/CMakeLists.txt).
uint64_t graph_count() { return env_or("JX_DIFF_GRAPHS", JX_DEFAULT_GRAPHS); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every family; every float is float64 and of moderate size, so that finite differences are
// accurate.
GraphOptions options() {
  GraphOptions o;
  o.float_dtype = jx::float64;
  o.differentiable = true;
  o.moderate_values = true;
  return o;
}

// Collects failures; the first 10 are printed in full.
class Failures {
public:
  void add(uint64_t seed, const std::string &what, const std::string &description) {
    if (count_++ < 10) text_ += fmt::format("\n--- seed {}: {}\n{}\n", seed, what, description);
  }
  void report(uint64_t graphs) const {
    if (count_) ADD_FAILURE() << count_ << " of " << graphs << " functions failed" << text_;
  }

private:
  int64_t count_ = 0;
  std::string text_;
};

bool same_bits(const Array &a, const Array &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), size_t(a.size()) * jx::itemsize(a.dtype())) == 0;
}

std::vector<double> values(const Array &a) { return a.astype(jx::float64).to_vector<double>(); }

// A random direction per argument, scaled by the argument's magnitude where that exceeds 1, so
// that a step h * t moves each element by about h relative to it.
std::vector<Array> random_directions(const std::vector<Array> &args, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<Array> out;
  for (const Array &x : args) {
    std::vector<double> t = values(x);
    for (double &v : t)
      v = unit(rng) * (std::isfinite(v) ? std::max(1.0, std::abs(v)) : 1.0);
    out.push_back(jnp::array(t, x.shape()));
  }
  return out;
}

// args + s * directions, eagerly.
std::vector<Array> moved(const std::vector<Array> &args, const std::vector<Array> &directions,
                         double s) {
  std::vector<Array> out;
  for (size_t i = 0; i < args.size(); ++i)
    out.push_back(args[i] + directions[i] * s);
  return out;
}

// The tangent against (f(x + h t) - f(x - h t)) / 2h at h and h/2. Elements where any of these
// values is not finite are not compared; a function is skipped where no element is left, or where
// the two differences disagree (a kink or a jump within h of x, or rounding noise above the step),
// as do the one-sided ones at h (a kink at x itself, as |x| at 0, where the central ones agree),
// or the central ones at h and h/1000 (jumps closer than h, as floor(1 / x) near 0, whose
// differences at h and h/2 agree with the staircase's slope).
TEST(RandomJvp, MatchesCentralDifferences) {
  constexpr double h = 1e-6, rtol = 1e-5, eps = std::numeric_limits<double>::epsilon();
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  int64_t checked = 0, kinks = 0, nothing_finite = 0, compared = 0, elements = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      // Near the example arguments rather than at them, where arguments may tie with constants
      // (max(x, 1) at x = 1, or a remainder's quotient an integer), and where the JVP then
      // follows JAX's conventions rather than the function's slopes.
      std::mt19937_64 rng(seed);
      const std::vector<Array> x = moved(fn.example_args, random_directions(fn.example_args, rng),
                                         1e-3),
                               tangents = random_directions(fn.example_args, rng);
      const auto [primal, tangent] = jx::jvp(fn.f, x, tangents);
      if (!same_bits(primal, fn.f(x))) {
        failures.add(seed, "the primal output is not f(args)", description);
        continue;
      }
      auto f_at = [&](double s) { return values(fn.f(moved(x, tangents, s))); };
      const std::vector<double> y = values(primal), got = values(tangent), up1 = f_at(h),
                                down1 = f_at(-h), up2 = f_at(h / 2), down2 = f_at(-h / 2),
                                up3 = f_at(h / 1000), down3 = f_at(-h / 1000);
      struct Element {
        size_t i;
        double fd1, fd2, noise;
      };
      std::vector<Element> finite;
      bool kink = false;
      for (size_t i = 0; i < y.size(); ++i) {
        if (!std::isfinite(y[i]) || !std::isfinite(got[i]) || !std::isfinite(up1[i]) ||
            !std::isfinite(down1[i]) || !std::isfinite(up2[i]) || !std::isfinite(down2[i]) ||
            !std::isfinite(up3[i]) || !std::isfinite(down3[i]))
          continue;
        const double fd1 = (up1[i] - down1[i]) / (2 * h), fd2 = (up2[i] - down2[i]) / h,
                     fd3 = (up3[i] - down3[i]) / (h / 500);
        // f's values rounded by up to ~1000 ulps of them or of intermediate values of order 1
        // (as the leaves are), divided by the smaller step.
        const double noise =
            2e3 * eps * (1 + std::max({std::abs(y[i]), std::abs(up1[i]), std::abs(down1[i])})) / h;
        // Smooth: the one-sided differences differ by h f''(x) t^2 only.
        const double forward = (up1[i] - y[i]) / h, backward = (y[i] - down1[i]) / h;
        kink = kink || std::abs(fd1 - fd2) > rtol * (std::abs(fd1) + std::abs(fd2)) + noise ||
               std::abs(forward - backward) >
                   1e-3 * (std::abs(forward) + std::abs(backward)) + noise ||
               std::abs(fd3 - fd2) > 1e-3 * (std::abs(fd3) + std::abs(fd2)) + 1e3 * noise;
        finite.push_back({i, fd1, fd2, noise});
      }
      elements += int64_t(y.size());
      if (kink || finite.empty()) {
        ++(kink ? kinks : nothing_finite);
        continue;
      }
      ++checked;
      compared += int64_t(finite.size());
      for (const Element &e : finite) {
        // fd2's own truncation error is about a third of |fd1 - fd2|; and a perturbation lost
        // against a larger intermediate value (arccos(erfc(5 + x)) near pi/2) hides slopes of up
        // to ~1e-5.
        const double allowed = rtol * (std::abs(got[e.i]) + std::abs(e.fd2)) + e.noise +
                               std::abs(e.fd1 - e.fd2) + 1e-4;
        if (std::abs(got[e.i] - e.fd2) > allowed) {
          failures.add(seed,
                       fmt::format("at {}: jvp {} but central differences {} (h) and {} (h/2), "
                                   "f(x) = {}",
                                   jx::diff::multi_index(primal.shape(), int64_t(e.i)), got[e.i],
                                   e.fd1, e.fd2, y[e.i]),
                       description);
          break;
        }
      }
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  fmt::print("{} functions from seed {} in {:.2f} s: {} checked ({} of {} elements compared), {} "
             "skipped for a kink within h, {} for no finite element\n",
             graphs, base, seconds_since(t0), checked, compared, elements, kinks, nothing_finite);
  failures.report(graphs);
  // Not vacuous: most functions are smooth enough near their example arguments.
  EXPECT_GE(2 * checked, int64_t(graphs));
}

// The primal output of jvp is the function's own graph: the same bits as f(args).
TEST(RandomJvp, PrimalIsFOfArgsBitForBit) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      std::mt19937_64 rng(seed);
      const auto [primal, tangent] =
          jx::jvp(fn.f, fn.example_args, random_directions(fn.example_args, rng));
      if (!same_bits(primal, fn.f(fn.example_args)))
        failures.add(seed, "the primal output is not f(args)", description);
      if (tangent.dtype() != primal.dtype() || tangent.shape() != primal.shape())
        failures.add(seed, "the tangent's type is not the primal's", description);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  failures.report(graphs);
}

// jit takes Arrays one by one: a vector is passed as that many arguments.
constexpr size_t max_jit_arguments = 24;
template <size_t N = 0, class J>
std::vector<Array> call_spread(const J &jitted, const std::vector<Array> &args) {
  if constexpr (N == max_jit_arguments) {
    throw std::invalid_argument(fmt::format("{} arguments for jit", args.size()));
  } else {
    if (args.size() != N) return call_spread<N + 1>(jitted, args);
    return [&]<size_t... I>(std::index_sequence<I...>) { return jitted(args[I]...); }
    (std::make_index_sequence<N>{});
  }
}

// jvp traced inside jit (the function's arguments are jit's parameters) computes what it computes
// eagerly, within the rounding that compiling constants ahead of time may change.
TEST(RandomJvp, UnderJitMatchesEager) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      std::mt19937_64 rng(seed);
      const std::vector<Array> tangents = random_directions(fn.example_args, rng);
      const auto [primal, tangent] = jx::jvp(fn.f, fn.example_args, tangents);
      auto jitted = jx::jit([&](const auto &...a) {
        const std::vector<Array> all{a...};
        const auto half = std::ptrdiff_t(all.size() / 2);
        const auto [p, t] =
            jx::jvp(fn.f, {all.begin(), all.begin() + half}, {all.begin() + half, all.end()});
        return std::vector<Array>{p, t};
      });
      std::vector<Array> args = fn.example_args;
      args.insert(args.end(), tangents.begin(), tangents.end());
      const std::vector<Array> out = call_spread(jitted, args);
      for (const auto &[eager, traced, what] :
           {std::tuple{primal, out[0], "primal"}, std::tuple{tangent, out[1], "tangent"}}) {
        const jx::diff::CompareResult r = jx::diff::compare_buffers(
            eager, jx::api::realize(eager.node()), jx::api::realize(traced.node()),
            jx::diff::tolerance_for(eager));
        if (!r.ok) failures.add(seed, fmt::format("{}: {}", what, r.message), description);
      }
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  failures.report(graphs);
}

// The function replays random_graph's program: its example arguments give the graph's values, its
// description names them, and other arguments must have their specs.
TEST(RandomFunction, ReplaysTheGraphOfItsSeed) {
  for (const GraphOptions &o : {GraphOptions{}, options()}) {
    for (uint64_t seed = base_seed(); seed < base_seed() + graph_count(); ++seed) {
      const GeneratedFunction fn = random_function(seed, o);
      const jx::diff::GeneratedGraph g = jx::diff::random_graph(fn.graph_seed, o);
      ASSERT_FALSE(fn.arg_specs.empty()) << "seed " << seed;
      ASSERT_EQ(fn.arg_specs.size(), fn.example_args.size());
      EXPECT_TRUE(jx::is_floating(g.root.dtype())) << "seed " << seed;
      EXPECT_TRUE(same_bits(fn.f(fn.example_args), g.root)) << fn.description;
      // Line by line, the graph's with a parameter in place of each argument's literal data.
      std::istringstream fn_lines(fn.description), g_lines(g.description);
      std::string fn_line, g_line;
      std::getline(fn_lines, fn_line);
      EXPECT_EQ(fn_line.rfind("def f(x0", 0), 0u) << fn.description;
      size_t parameters = 0;
      while (std::getline(g_lines, g_line) && std::getline(fn_lines, fn_line)) {
        if (g_line.rfind("root = ", 0) == 0) {
          EXPECT_EQ(fn_line, "  return " + g_line.substr(7));
        } else if (fn_line.find(" = x") != std::string::npos) {
          ++parameters;
          EXPECT_NE(g_line.find("jnp.array("), std::string::npos) << g_line;
        } else {
          EXPECT_EQ(fn_line, "  " + g_line);
        }
      }
      EXPECT_EQ(parameters, fn.arg_specs.size()) << fn.description;
    }
  }
  const GeneratedFunction fn = random_function(1, options());
  EXPECT_THROW(fn.f({}), std::invalid_argument);
  std::vector<Array> wrong = fn.example_args;
  wrong[0] = wrong[0].astype(jx::float32);
  EXPECT_THROW(fn.f(wrong), std::invalid_argument);
}

// <ybar, J v> = <J^T ybar, v>: the VJP is the transpose of the JVP, exactly up to rounding, at
// any point (kinks included), so every transpose rule is checked on every graph.
TEST(RandomVjp, IsTheTransposeOfTheJvp) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  int64_t checked = 0;
  auto inner = [](const Array &a, const Array &b, double &scale) {
    const std::vector<double> x = values(a), y = values(b);
    double sum = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      sum += x[i] * y[i];
      scale += std::abs(x[i] * y[i]);
    }
    return sum;
  };
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      std::mt19937_64 rng(seed);
      const std::vector<Array> v = random_directions(fn.example_args, rng);
      const auto [y, ydot] = jx::jvp(fn.f, fn.example_args, v);
      const Array ybar = random_directions({y}, rng)[0].astype(y.dtype());
      const auto [y2, pullback] = jx::vjp(fn.f, fn.example_args);
      const std::vector<Array> xbar = pullback(ybar);
      if (!same_bits(y, y2)) failures.add(seed, "vjp's primal is not jvp's", description);
      // Rounding: relative to the terms' magnitudes, and absolute for derivatives that cancel to
      // ~0 inside the graph (x / |x|), bounded by |ybar| |v| with intermediate values of order 1.
      double scale = 0, rhs = 0, magnitude = 0;
      for (double e : values(ybar))
        magnitude += std::abs(e);
      double largest_v = 0;
      for (const Array &d : v)
        for (double e : values(d))
          largest_v = std::max(largest_v, std::abs(e));
      const double lhs = inner(ybar, ydot, scale);
      for (size_t i = 0; i < xbar.size(); ++i) {
        if (xbar[i].shape() != v[i].shape() || xbar[i].dtype() != v[i].dtype())
          failures.add(seed, fmt::format("cotangent {} has the wrong type", i), description);
        rhs += inner(xbar[i], v[i], scale);
      }
      if (!std::isfinite(lhs) || !std::isfinite(rhs) || !std::isfinite(scale)) continue;
      ++checked;
      if (std::abs(lhs - rhs) > 1e-10 * scale + 1e-13 * magnitude * largest_v)
        failures.add(seed, fmt::format("<ybar, J v> = {} but <J^T ybar, v> = {}", lhs, rhs),
                     description);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  failures.report(graphs);
  EXPECT_GE(4 * checked, 3 * int64_t(graphs)) << "most functions are finite at their arguments";
}

// Backward graphs bring codegen shapes forward graphs rarely have (slice_update of zeros, pads
// and broadcasts of cotangents, transposed contractions): each cotangent of a random function's
// VJP, compiled, against the interpreter (the oracle), as Differential.RandomGraphs does.
TEST(RandomVjp, CompiledCotangentsMatchTheInterpreter) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  int64_t compared = 0;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      std::mt19937_64 rng(seed);
      const auto [y, pullback] = jx::vjp(fn.f, fn.example_args);
      const std::vector<Array> xbar = pullback(random_directions({y}, rng)[0].astype(y.dtype()));
      for (size_t i = 0; i < xbar.size(); ++i) {
        using jx::api::Backend;
        const jx::runtime::BufferPtr expected =
            jx::api::evaluate_with(Backend::Interpreter, xbar[i].node());
        const jx::runtime::BufferPtr actual =
            jx::api::evaluate_with(Backend::Compiler, xbar[i].node());
        const jx::diff::CompareResult r =
            jx::diff::compare_buffers(xbar[i], expected, actual, jx::diff::tolerance_for(xbar[i]));
        ++compared;
        if (!r.ok) failures.add(seed, fmt::format("cotangent {}: {}", i, r.message), description);
      }
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  failures.report(graphs);
  EXPECT_GE(compared, int64_t(graphs));
}

// vmap(f) over three examples, each argument mapped along a random axis or shared, equals f on
// each example stacked: bit for bit, except where a contraction or reduction of the batched graph
// takes another summation order (a BLAS call for the batch, a loop for one example), or where an
// element falls in a loop's vector body for one and its scalar remainder for the other (libmvec's
// exp and libm's may differ in the last bit: seed 14's logistic of a product): there within
// rounding, for at most 2% of the functions.
TEST(RandomVmap, EqualsStackedExamplesBitForBit) {
  constexpr int64_t batch = 3;
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  std::string rounded;
  int64_t within_rounding = 0, bit_identical = 0;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      const GeneratedFunction fn = random_function(seed, options());
      description = fn.description;
      std::mt19937_64 rng(seed);
      const size_t n = fn.example_args.size();
      std::vector<std::vector<Array>> examples{fn.example_args};
      for (int64_t b = 1; b < batch; ++b)
        examples.push_back(moved(fn.example_args, random_directions(fn.example_args, rng), 1e-2));
      std::vector<std::optional<int64_t>> in_axes;
      std::vector<Array> args;
      for (size_t i = 0; i < n; ++i) {
        const int64_t rank = fn.example_args[i].ndim();
        const int64_t pick = int64_t(rng() % uint64_t(rank + 2)) - 1;
        if (pick < 0 && i + 1 < n) {
          in_axes.push_back(std::nullopt);
          for (auto &e : examples)
            e[i] = fn.example_args[i];
          args.push_back(fn.example_args[i]);
          continue;
        }
        in_axes.push_back(std::max<int64_t>(pick, 0));
        std::vector<Array> per_example;
        for (auto &e : examples)
          per_example.push_back(e[i]);
        args.push_back(jnp::stack(per_example, *in_axes.back()));
      }
      std::vector<Array> expected;
      for (const auto &e : examples)
        expected.push_back(fn.f(e));
      const Array batched = jx::vmap(fn.f, in_axes)(args), stacked = jnp::stack(expected);
      if (same_bits(batched, stacked)) {
        ++bit_identical;
      } else {
        // Another summation order: a few ulps of the sums' terms (of order 1 to 100 here).
        const std::vector<double> got = values(batched), want = values(stacked);
        std::string message;
        for (size_t i = 0; i < want.size() && message.empty(); ++i)
          if (got[i] != want[i] && !(std::isnan(got[i]) && std::isnan(want[i])) &&
              !(std::abs(got[i] - want[i]) <= 1e-12 * (1 + std::abs(want[i]))))
            message = fmt::format("element {}: {} batched, {} stacked", i, got[i], want[i]);
        if (!message.empty() || batched.shape() != stacked.shape()) {
          failures.add(seed, fmt::format("vmap differs from the stacked examples: {}", message),
                       description);
        } else {
          ++within_rounding;
          rounded += fmt::format(" {}", seed);
        }
      }
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  fmt::print("{} of {} functions bit for bit; within rounding only: seeds{}\n", bit_identical,
             graphs, rounded.empty() ? " none" : rounded);
  failures.report(graphs);
  EXPECT_LE(within_rounding, std::max<int64_t>(1, int64_t(graphs) / 50));
}

} // namespace
