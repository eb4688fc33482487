// jx::jit: tracing per signature, lower/compile staging, signature checks, concretization errors.
#include <jx/jx.h>

#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <thread>

#include "backend/orc_jit.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::ShapeDtypeStruct;

namespace {
std::vector<double> values(const Array &x) { return x.to_vector<double>(); }

// Compiled math (libmvec, constant folding) may differ from another kernel by a few ulp.
void expect_close(const Array &a, const Array &b) {
  std::vector<double> x = values(a), y = values(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], 4e-16 * std::abs(y[i])) << i;
}
} // namespace

TEST(Jit, MatchesEagerAndTracesOncePerSignature) {
  int traces = 0;
  auto f = jx::jit([&](const Array &x, const Array &y) {
    ++traces;
    return jnp::sin(x) * y + 1;
  });
  Array x = jnp::arange(6.0).reshape({2, 3}), y = jnp::full({3}, 2.0);
  expect_close(f(x, y), jnp::sin(x) * y + 1);
  f(x * 2, y);
  EXPECT_EQ(traces, 1);
  f(jnp::arange(3.0), y); // new shape: retrace
  EXPECT_EQ(traces, 2);
  f(x.astype(jnp::float32), y); // new dtype: retrace
  EXPECT_EQ(traces, 3);
  EXPECT_EQ(f.cache_size(), 3u);
}

TEST(Jit, StaticArgumentsArePartOfTheKey) {
  int traces = 0;
  auto f = jx::jit([&](const Array &x, int n) {
    ++traces;
    return jnp::diff(x, n);
  });
  Array x = jnp::arange(10.0) * jnp::arange(10.0);
  EXPECT_EQ(values(f(x, 1)), values(jnp::diff(x, 1)));
  EXPECT_EQ(values(f(x, 2)), values(jnp::diff(x, 2)));
  f(x, 2);
  EXPECT_EQ(traces, 2);
}

TEST(Jit, LowerCompileStages) {
  auto lowered = jx::jit([](const Array &x) {
                   return jnp::exp(-x) * 2;
                 }).lower(ShapeDtypeStruct{{4, 5}, jnp::float64});
  EXPECT_NE(lowered.as_text().find("parameter(0) : f64[4,5]"), std::string::npos)
      << lowered.as_text();
  auto compiled = lowered.compile();
  Array x = jnp::ones({4, 5});
  expect_close(compiled(x), jnp::exp(-x) * 2);
  std::string text = compiled.as_text();
  EXPECT_NE(text.find("kernel"), std::string::npos);
  EXPECT_NE(text.find("define void @jx_kernel"), std::string::npos) << text;
}

TEST(Jit, WrongSignatureIsATypeError) {
  auto compiled = jx::jit([](const Array &x) { return x + 1; })
                      .lower(ShapeDtypeStruct{{4}, jnp::float64})
                      .compile();
  try {
    compiled(jnp::zeros({5}));
    FAIL() << "no error";
  } catch (const jx::TypeError &e) {
    EXPECT_NE(std::string(e.what()).find("expected (float64[4]), got (float64[5])"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(compiled(jnp::zeros({4}, jnp::float32)), jx::TypeError);
  EXPECT_THROW(compiled.call({jnp::zeros({4}), jnp::zeros({4})}), jx::TypeError);
}

TEST(Jit, ReadingATracedValueIsAConcretizationError) {
  auto f = jx::jit([](const Array &x) {
    if (jnp::sum(x).item<double>() > 0) return x;
    return -x;
  });
  EXPECT_THROW(f(jnp::ones({3})), jx::ConcretizationTypeError);
  try {
    f(jnp::ones({3}));
  } catch (const jx::ConcretizationTypeError &e) {
    EXPECT_NE(std::string(e.what()).find("Abstract tracer value"), std::string::npos);
  }
}

TEST(Jit, TracingErrorsLeaveNoCacheEntry) {
  auto f = jx::jit([](const Array &x) { return jnp::reshape(x, {7}); });
  EXPECT_THROW(f(jnp::ones({3})), jx::ShapeError);
  EXPECT_EQ(f.cache_size(), 0u);
  EXPECT_EQ(f(jnp::ones({7})).shape(), (jx::Shape{7}));
  EXPECT_EQ(f.cache_size(), 1u);
}

TEST(Jit, TupleAndVectorOutputs) {
  auto f = jx::jit([](const Array &x) { return std::make_tuple(x + 1, jnp::sum(x)); });
  auto [a, s] = f(jnp::arange(4.0));
  EXPECT_EQ(values(a), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(s.item<double>(), 6);
  auto g = jx::jit([](const Array &x) { return std::vector<Array>{x, x * x}; });
  std::vector<Array> out = g(jnp::arange(3.0));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 4}));
}

TEST(Jit, OutputsOfOneShapeShareOneKernel) {
  auto f = [](const Array &x) {
    Array y = x * 3;
    return std::make_tuple(jnp::sin(y), y > 1.5, jnp::exp(-y));
  };
  jx::Compiled compiled = jx::jit(f).lower(ShapeDtypeStruct{{7, 33}, jnp::float64}).compile();
  const std::string plan = compiled.as_text();
  EXPECT_NE(plan.find("kernel sin, gt, exp"), std::string::npos) << plan;
  Array x = jnp::linspace(-1.0, 1.0, 7 * 33).reshape({7, 33});
  auto [s, g, e] = compiled(x);
  auto [s0, g0, e0] = f(x);
  expect_close(s, s0);
  expect_close(e, e0);
  EXPECT_EQ(g.to_vector<bool>(), g0.to_vector<bool>());
}

TEST(Jit, ClosuresCaptureConstants) {
  Array c = jnp::array({10.0, 20.0, 30.0});
  auto f = jx::jit([&](const Array &x) { return x + c; });
  EXPECT_EQ(values(f(jnp::ones({3}))), (std::vector<double>{11, 21, 31}));
}

TEST(Jit, IdentityAndConstantOutputs) {
  auto f = jx::jit([](const Array &x) { return std::make_tuple(x, jnp::zeros({2}) + 5); });
  auto [x, five] = f(jnp::arange(3.0));
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(five), (std::vector<double>{5, 5}));
}

TEST(Jit, CompiledIsCallableFromManyThreads) {
  auto compiled = jx::jit([](const Array &x) { return jnp::sum(jnp::exp(x) * 2, 1); })
                      .lower(ShapeDtypeStruct{{64, 300}, jnp::float64})
                      .compile();
  Array x = jnp::arange(64 * 300.0).reshape({64, 300}) / 1e4;
  // Every concurrent call gives the single-threaded answer bit for bit.
  const std::vector<double> expected = values(compiled(x));
  expect_close(compiled(x), jnp::sum(jnp::exp(x) * 2, 1));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (values(compiled(x)) != expected) ++mismatches;
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Jit, ContractionsAreCallableFromManyThreads) {
  // BLAS tiles from four callers at once, each call's tiles on the shared pool (TSan runs this).
  auto compiled = jx::jit([](const Array &a, const Array &b) {
                    return jnp::maximum(jnp::matmul(jnp::transpose(a), b) + 1.0, 0.0);
                  })
                      .lower(ShapeDtypeStruct{{96, 80}, jnp::float64},
                             ShapeDtypeStruct{{96, 112}, jnp::float64})
                      .compile();
  ASSERT_NE(compiled.as_text().find("gemm dot_general"), std::string::npos);
  Array a = jnp::sin(jnp::arange(96 * 80.0)).reshape({96, 80});
  Array b = jnp::cos(jnp::arange(96 * 112.0)).reshape({96, 112});
  const std::vector<double> expected = values(compiled(a, b));
  expect_close(compiled(a, b), jnp::maximum(jnp::matmul(jnp::transpose(a), b) + 1.0, 0.0));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i)
        if (values(compiled(a, b)) != expected) ++mismatches;
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Jit, BoolContractionIsAny) {
  // Bool contractions accumulate any-of-and in an i32 (an i1 accumulator over these strided loads
  // took LLVM seconds to compile).
  auto f = [](const Array &a, const Array &b) {
    return jnp::tensordot(a, b,
                          std::pair<std::vector<int64_t>, std::vector<int64_t>>{{0, 3}, {1, 0}});
  };
  auto compiled = jx::jit(f)
                      .lower(ShapeDtypeStruct{{64, 8, 17, 1}, jnp::bool_},
                             ShapeDtypeStruct{{1, 64}, jnp::bool_})
                      .compile();
  Array a = (jnp::arange(64 * 8 * 17.0).reshape({64, 8, 17, 1}) % 7.0) == 0.0;
  Array b = (jnp::arange(64.0).reshape({1, 64}) % 5.0) == 0.0;
  const Array got = compiled(a, b);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 17; ++j) {
      bool any = false;
      for (int64_t k = 0; k < 64; ++k)
        any = any || ((k * 136 + i * 17 + j) % 7 == 0 && k % 5 == 0);
      EXPECT_EQ(got(i, j).item<bool>(), any) << i << "," << j;
    }
}

TEST(KernelCache, ChangedConstantsReuseTheKernel) {
  Array x = jnp::arange(5000.0).block_until_ready(); // past what is folded
  (x * 2.0 + 1.0)(10).item<double>();
  const size_t before = jx::backend::compiled_kernel_count();
  for (double c : {3.0, 4.5, -7.0}) {
    Array y = x * c + 1.0;
    EXPECT_EQ(y(10).item<double>(), 10 * c + 1);
  }
  EXPECT_EQ(jx::backend::compiled_kernel_count(), before);
  (x * 2.0 - 1.0)(10).item<double>(); // another op: a new kernel
  EXPECT_EQ(jx::backend::compiled_kernel_count(), before + 1);
}

TEST(Jit, CostAnalysisCountsOpsAndBytes) {
  jx::ShapeDtypeStruct spec{{1000}, jnp::float64};
  auto compiled = jx::jit([](const Array &x) { return jnp::exp(x) * 2 + x; }).lower(spec).compile();
  jx::CostAnalysis cost = compiled.cost_analysis();
  EXPECT_EQ(cost.transcendentals, 1000);
  EXPECT_EQ(cost.flops, 2000);           // a multiply and an add per element
  EXPECT_EQ(cost.bytes_accessed, 16000); // reads x, writes the result
  auto dot = jx::jit([](const Array &a, const Array &b) { return jnp::matmul(a, b); })
                 .lower(jx::ShapeDtypeStruct{{8, 16}, jnp::float64},
                        jx::ShapeDtypeStruct{{16, 4}, jnp::float64})
                 .compile();
  EXPECT_EQ(dot.cost_analysis().flops, 2 * 8 * 4 * 16);
}

// A loop's body counts times its trip count when that is static (fori_loop with concrete bounds
// is a scan), a while's body once, a cond's costliest branch; as_text shows the body's plan.
TEST(Jit, CostAnalysisCountsLoopBodies) {
  jx::ShapeDtypeStruct spec{{1000}, jnp::float64};
  auto loop = jx::jit([](const Array &x) {
                return jx::lax::fori_loop(
                    0, 10, [](const Array &, const Array &v) { return jnp::exp(v) * 2 + v; }, x);
              })
                  .lower(spec)
                  .compile();
  const jx::CostAnalysis cost = loop.cost_analysis();
  EXPECT_EQ(cost.transcendentals, 10 * 1000);
  EXPECT_GE(cost.flops, 10 * 2000);
  // Elementwise in its carry, the loop runs per element inside one kernel: its memory is read
  // and written once.
  EXPECT_EQ(cost.bytes_accessed, 16000 + 8);
  EXPECT_NE(loop.as_text().find("(scan of 10 steps inside the kernel"), std::string::npos)
      << loop.as_text();
  // A body reading its carry at other elements (a shift) runs as a program per step: its
  // kernel (the shifted exp(v) * 2 + v, fused into one add) under the scan, its bytes each step.
  auto shifted =
      jx::jit([](const Array &x) {
        return jx::lax::fori_loop(
            0, 10, [](const Array &, const Array &v) { return jnp::exp(jnp::roll(v, 1)) * 2 + v; },
            x);
      })
          .lower(spec)
          .compile();
  EXPECT_EQ(shifted.cost_analysis().transcendentals, 10 * 1000);
  EXPECT_GE(shifted.cost_analysis().bytes_accessed, 10 * 16000);
  EXPECT_NE(shifted.as_text().find("region 0:\n"), std::string::npos) << shifted.as_text();
  EXPECT_NE(shifted.as_text().find("kernel add : f64[1000]"), std::string::npos)
      << shifted.as_text();
  EXPECT_NE(shifted.as_text().find("(its body runs as a program per step: its body reads a carry "
                                   "at other elements"),
            std::string::npos)
      << shifted.as_text();
  auto branches = jx::jit([](const Array &p, const Array &x) {
                    return jx::lax::cond(
                        p, [](const Array &v) { return jnp::exp(v); },
                        [](const Array &v) { return jnp::sin(v) + jnp::cos(v); }, x);
                  })
                      .lower(jx::ShapeDtypeStruct{{}, jnp::bool_}, spec)
                      .compile();
  EXPECT_EQ(branches.cost_analysis().transcendentals, 2000);
}

TEST(Jit, MemoryAnalysisCountsArgumentsOutputsAliasesAndTheArena) {
  const jx::ShapeDtypeStruct square{{128, 128}, jnp::float64};
  const int64_t bytes = 128 * 128 * 8;
  // x @ w is an intermediate; exp(x @ w) * 2 writes over it in place: the arena holds one.
  auto two_products =
      jx::jit([](const Array &x, const Array &w) {
        return std::vector<Array>{jnp::matmul(jnp::exp(jnp::matmul(x, w)) * 2.0, w), jnp::sum(x)};
      })
          .lower(square, square)
          .compile();
  jx::MemoryAnalysis m = two_products.memory_analysis();
  EXPECT_EQ(m.argument_size_in_bytes, 2 * bytes);
  EXPECT_EQ(m.output_size_in_bytes, bytes + 8);
  EXPECT_EQ(m.alias_size_in_bytes, 0);
  EXPECT_EQ(m.temp_size_in_bytes, bytes);
  EXPECT_NE(two_products.as_text().find(fmt::format("arena {} bytes", bytes)), std::string::npos);
  // A donated argument's memory taken by the output; a value returned twice is one buffer.
  auto donated = jx::jit(
                     [](const Array &x) {
                       return std::vector<Array>{jnp::sqrt(x) + 1.0, x};
                     },
                     {.donate_argnums = {0}})
                     .lower(square)
                     .compile();
  m = donated.memory_analysis();
  EXPECT_EQ(m.alias_size_in_bytes, 0); // x is returned as well: its memory is not free to take
  auto twice = jx::jit(
                   [](const Array &x) {
                     Array y = jnp::sqrt(x) + 1.0;
                     return std::vector<Array>{y, y};
                   },
                   {.donate_argnums = {0}})
                   .lower(square)
                   .compile();
  m = twice.memory_analysis();
  EXPECT_EQ(m.output_size_in_bytes, bytes);
  EXPECT_EQ(m.alias_size_in_bytes, bytes);
  EXPECT_EQ(m.temp_size_in_bytes, 0);
}

// A weakly typed argument stays weak in the trace, as in JAX: jit(x - y)(f32, Array(2)) is
// float32 as eagerly (it was float64; found by the API fuzzer).
TEST(Jit, WeakArgumentKeepsWeakType) {
  auto f = jx::jit([](const Array &x, const Array &y) { return x - y; });
  Array x = jnp::ones({2}, jnp::float32);
  Array out = f(x, Array(2));
  EXPECT_EQ(out.dtype(), (x - Array(2)).dtype());
  EXPECT_EQ(out.dtype(), jnp::float32);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{-1, -1}));
  EXPECT_EQ(f(x, jnp::array(2.0, jnp::int64)).dtype(), jnp::float64);
  EXPECT_EQ(f.cache_size(), 2u);
  auto add_ones = [](const Array &y) { return y + jnp::ones({2}, jnp::float32); };
  auto weak = jx::jit(add_ones).lower(ShapeDtypeStruct{{}, jnp::int64, std::nullopt, true});
  EXPECT_EQ(weak.compile()(Array(3)).dtype(), jnp::float32);
  auto strong = jx::jit(add_ones).lower(ShapeDtypeStruct{{}, jnp::int64});
  EXPECT_EQ(strong.compile()(Array(3)).dtype(), jnp::float64);
}

namespace {

// Outputs are trees as arguments are (JAX's pytrees): value_and_grad's (value, gradients) pair,
// and pairs, tuples, std::arrays, vectors and maps nested, each rebuilt as the trace returned it.
TEST(Jit, OutputTrees) {
  auto loss = [](const Array &w, const Array &b) { // logistic regression
    const Array x = jnp::array({0.5, -1.0, 2.0, 1.5, -0.5, 0.25}, jx::Shape{3, 2});
    const Array y = jnp::array({1.0, 0.0, 1.0});
    const Array p = 1.0 / (1.0 + jnp::exp(-(jnp::matmul(x, w) + b)));
    return -jnp::mean(y * jnp::log(p) + (1.0 - y) * jnp::log(1.0 - p));
  };
  const Array w = jnp::array({0.3, -0.2}), b = jnp::array(0.1, jnp::float64);
  const auto [value, grads] = jx::value_and_grad(loss, {0, 1})(w, b);
  const std::pair<Array, std::vector<Array>> jitted =
      jx::jit(jx::value_and_grad(loss, {0, 1}))(w, b);
  auto near = [](const Array &a, const Array &e) {
    const std::vector<double> x = values(a), y = values(e);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(x[i], y[i], 1e-14 * std::abs(y[i])) << i;
  };
  near(jitted.first, value);
  ASSERT_EQ(jitted.second.size(), 2u);
  near(jitted.second[0], grads[0]);
  near(jitted.second[1], grads[1]);

  auto stats = jx::jit([](const Array &x) {
    return std::pair{jnp::sum(x), std::tuple{jnp::min(x), jnp::max(x)}};
  });
  const Array x = jnp::arange(6.0).reshape({2, 3});
  const auto [total, range] = stats(x);
  EXPECT_EQ(total.item<double>(), 15);
  EXPECT_EQ(std::get<0>(range).item<double>(), 0);
  EXPECT_EQ(std::get<1>(range).item<double>(), 5);

  // A structure that depends on a static argument: each signature keeps its own.
  auto rows = jx::jit([](const Array &m, int n) {
    std::map<std::string, std::vector<Array>> parts{{"t", {m.T()}}};
    for (int i = 0; i < n; ++i)
      parts["rows"].push_back(m(i));
    return std::pair{std::array<Array, 2>{m * 2, m + 1}, parts};
  });
  const auto [scaled, two] = rows(x, 2);
  EXPECT_EQ(values(scaled[1]), values(x + 1));
  ASSERT_EQ(two.at("rows").size(), 2u);
  EXPECT_EQ(values(two.at("rows")[1]), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(two.at("t")[0].shape(), (jx::Shape{3, 2}));
  EXPECT_EQ(rows(x, 1).second.at("rows").size(), 1u);
  EXPECT_EQ(rows(x, 2).second.at("rows").size(), 2u);
  EXPECT_EQ(rows.cache_size(), 2u);
  const auto compiled = rows.lower(ShapeDtypeStruct{{2, 3}, jnp::float64}, 2).compile();
  EXPECT_EQ(values(compiled(x).second.at("rows")[0]), (std::vector<double>{0, 1, 2}));
}

TEST(Jit, SiblingReductionsShareAKernelAndKeepTheirBits) {
  // Three reductions over axis 1 of (64, 300, 40): one kernel (multi-output fusion), each result
  // bit for bit what it is compiled alone.
  const Array a = jx::random::uniform(jx::random::PRNGKey(1), {64, 300, 40});
  const Array b = jx::random::uniform(jx::random::PRNGKey(2), {64, 300, 40});
  auto sum = [](const Array &x, const Array &y) { return jnp::sum(jnp::exp(x) * y, 1); };
  auto max = [](const Array &x, const Array &) { return jnp::max(jnp::exp(x), 1); };
  auto prod = [](const Array &, const Array &y) { return jnp::prod(y * 0.01 + 1.0, 1); };
  auto all = [&](const Array &x, const Array &y) {
    return std::vector<Array>{sum(x, y), max(x, y), prod(x, y)};
  };
  const std::string text = jx::jit(all).lower(a, b).compile().as_text();
  EXPECT_NE(text.find("kernel reduce_sum, reduce_max, reduce_prod"), std::string::npos) << text;
  const std::vector<Array> together = jx::jit(all)(a, b);
  EXPECT_EQ(together[0].to_vector<double>(), jx::jit(sum)(a, b).to_vector<double>());
  EXPECT_EQ(together[1].to_vector<double>(), jx::jit(max)(a, b).to_vector<double>());
  EXPECT_EQ(together[2].to_vector<double>(), jx::jit(prod)(a, b).to_vector<double>());
}

} // namespace
