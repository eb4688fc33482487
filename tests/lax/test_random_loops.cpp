// Random programs of the differential generator as loop bodies: a fori_loop over them, compiled
// as one program, equals a C++ loop around the same body compiled as its own jit program, bit for
// bit (the body's region and the jitted body are the same graph through the same compiler).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "diff/random_graph.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using lax::Arrays;

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// Runs f over arrays of these specs as one jit program (jx::jit takes a fixed arity).
Arrays jit_call(const jx::detail::TraceFn &f, const Arrays &args) {
  std::vector<jx::ShapeDtypeStruct> specs;
  for (const Array &a : args)
    specs.push_back({a.shape(), a.dtype(), std::nullopt, a.weak_type()});
  auto program = jx::detail::trace(specs, f, {});
  jx::detail::compile(*program);
  return jx::detail::call(*program, args);
}

bool same_bits(const Array &a, const Array &b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const std::vector<double> x = a.astype(jx::float64).to_vector<double>(),
                            y = b.astype(jx::float64).to_vector<double>();
  return x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

TEST(RandomLoops, BodiesInAForiLoopEqualACppLoopAroundJitBitForBit) {
  const uint64_t graphs = env_or("JX_DIFF_GRAPHS", JX_DEFAULT_LOOP_GRAPHS),
                 base = env_or("JX_DIFF_SEED", 1);
  constexpr int64_t steps = 3;
  jx::diff::GraphOptions options;
  options.moderate_values = true;
  int failures = 0;
  std::string report;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    const jx::diff::GeneratedFunction fn = jx::diff::random_function(seed, options);
    // Carries: an accumulator of f's result, and f's arguments, moved a little each step.
    const jx::detail::TraceFn body = [&](const Arrays &c) {
      const Arrays args(c.begin() + 1, c.end());
      Arrays next{c[0] * 0.5 + fn.f(args)};
      for (const Array &a : args)
        next.push_back(a * 0.75 + 0.125);
      return next;
    };
    Arrays init{jnp::zeros_like(fn.f(fn.example_args))};
    init.insert(init.end(), fn.example_args.begin(), fn.example_args.end());
    try {
      Arrays by_hand = init;
      for (int64_t i = 0; i < steps; ++i)
        by_hand = jit_call(body, by_hand);
      const Arrays looped = jit_call(
          [&](const Arrays &c) {
            return lax::fori_loop(
                0, steps, [&](const Array &, const Arrays &v) { return body(v); }, c);
          },
          init);
      for (size_t k = 0; k < init.size(); ++k)
        if (!same_bits(looped[k], by_hand[k])) {
          if (failures++ < 5)
            report += fmt::format("\n--- seed {}: carry {} differs\n{}\n", seed, k, fn.description);
          break;
        }
    } catch (const std::exception &e) {
      if (failures++ < 5)
        report += fmt::format("\n--- seed {}: threw {}\n{}\n", seed, e.what(), fn.description);
    }
  }
  EXPECT_EQ(failures, 0) << failures << " of " << graphs << " bodies differ" << report;
}

} // namespace
