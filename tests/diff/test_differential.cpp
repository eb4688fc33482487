// Differential tests: the compiler backend against the interpreter (the oracle) on random jnp
// programs, and checks of the harness itself (determinism, op coverage, families, comparison
// rules, and a tolerance that absorbs legitimately different rounding).
// JX_DIFF_GRAPHS (default 600, 150 under sanitizers; `make campaign`: 2000) and JX_DIFF_SEED
// (default 1) choose the graphs; JX_DIFF_SEED=<seed> JX_DIFF_GRAPHS=1 reruns a failing one.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>

#include "api/internal.h"
#include "compile/executable.h"
#include "diff/compare.h"
#include "diff/random_graph.h"
#include "ir/builder.h"
#include "ir/printer.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;
using jx::Shape;
using jx::api::Backend;
using jx::api::evaluate_with;
using jx::diff::compare_buffers;
using jx::diff::CompareResult;
using jx::diff::GeneratedGraph;
using jx::diff::GraphOptions;
using jx::diff::random_graph;
using jx::diff::Tolerance;
using jx::diff::tolerance_for;
using jx::ir::Node;
using jx::ir::NodePtr;
using jx::ir::Op;
using jx::ir::OpKind;
using jx::runtime::BufferPtr;

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

BufferPtr interpret(const Array &x) { return evaluate_with(Backend::Interpreter, x.node()); }

// Collects failures; the first 10 are printed in full.
class Failures {
public:
  void add(uint64_t seed, const std::string &what, const std::string &description) {
    if (count_++ < 10) text_ += fmt::format("\n--- seed {}: {}\n{}\n", seed, what, description);
  }
  void report(uint64_t graphs) const {
    if (count_) ADD_FAILURE() << count_ << " of " << graphs << " graphs failed" << text_;
  }

private:
  int64_t count_ = 0;
  std::string text_;
};

// Tests over env-chosen seeds: JX_DIFF_SEED=<seed> JX_DIFF_GRAPHS=1 reruns one graph.
uint64_t base_seed() { return env_or("JX_DIFF_SEED", 1); }
uint64_t graph_count() { return env_or("JX_DIFF_GRAPHS", JX_DEFAULT_DIFF_GRAPHS); }

TEST(Differential, RandomGraphs) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  int64_t bounded = 0, differing = 0, unchecked = 0, elements = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      GeneratedGraph g = random_graph(seed, {.small_integers = true});
      description = g.description;
      BufferPtr expected = interpret(g.root), actual;
      try {
        actual = evaluate_with(Backend::Compiler, g.root.node());
      } catch (const jx::Error &e) {
        if (std::string_view(e.what()).find("not built yet") != std::string_view::npos)
          GTEST_SKIP() << e.what();
        throw;
      }
      const Tolerance tolerance = tolerance_for(g.root);
      CompareResult r = compare_buffers(g.root, expected, actual, tolerance);
      bounded += tolerance.bound != nullptr;
      differing += !compare_buffers(g.root, expected, actual, {}).ok;
      unchecked += r.unchecked;
      elements += g.root.size();
      if (!r.ok) failures.add(seed, r.message, description);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  fmt::print("{} graphs from seed {} in {:.2f} s; {} compared within an error bound, {} differ "
             "bitwise; {} of {} elements could not be checked\n",
             graphs, base, seconds_since(t0), bounded, differing, unchecked, elements);
  failures.report(graphs);
}

// A 1-D or 2-D mesh over one or two random axes of shape, each split 1, 2, 3, 4 or 8 ways (at most
// 8 devices), boxes of uneven sizes where the split does not divide the axis.
jx::sharding::Placement random_grid(const Shape &shape, std::mt19937_64 &rng) {
  static constexpr int64_t splits[] = {1, 2, 3, 4, 8};
  std::vector<size_t> axes;
  for (size_t a = 0; a < shape.size(); ++a)
    axes.push_back(a);
  std::shuffle(axes.begin(), axes.end(), rng);
  axes.resize(std::min<size_t>(axes.size(), 1 + rng() % 2));
  std::vector<int64_t> mesh(axes.size(), 1);
  for (size_t m = 0; m < mesh.size(); ++m)
    do
      mesh[m] = splits[rng() % 5];
    while (m == 1 && mesh[0] * mesh[1] > 8);
  int64_t devices = 1;
  for (int64_t m : mesh)
    devices *= m;
  jx::sharding::Placement placement;
  for (int64_t d = 0; d < devices; ++d) {
    jx::sharding::DeviceBox box{int(d), std::vector<int64_t>(shape.size(), 0), shape};
    int64_t rest = d;
    for (size_t m = mesh.size(); m-- > 0;) {
      const int64_t k = rest % mesh[m], a = int64_t(axes[m]);
      rest /= mesh[m];
      box.lo[a] = shape[a] * k / mesh[m];
      box.hi[a] = shape[a] * (k + 1) / mesh[m];
    }
    placement.push_back(box);
  }
  return placement;
}

// The first kernel or gemm step of a plan listed without device boxes, or "".
std::string first_unplaced_step(const std::string &plan) {
  std::istringstream lines(plan);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("%") &&
        (line.find("= kernel ") != std::string::npos ||
         line.find("= gemm ") != std::string::npos) &&
        line.find(" dev") == std::string::npos)
      return line;
  return "";
}

// Every op of the generator under placements of the output across up to 8 devices: the same bits
// as the unplaced program, and every intermediate placed.
TEST(Differential, PlacedGraphsMatchUnplacedBitForBit) {
  const uint64_t graphs = std::max<uint64_t>(1, graph_count() / 4), base = base_seed();
  Failures failures;
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      GeneratedGraph g = random_graph(seed);
      description = g.description;
      std::mt19937_64 rng(seed);
      const NodePtr root = g.root.node();
      jx::sharding::Placement placement = random_grid(root->shape, rng);
      BufferPtr whole = jx::compile::Executable({}, {root}).run({})[0];
      const jx::compile::Executable placed_program({}, {root}, true, {}, {placement});
      BufferPtr placed = placed_program.run({})[0];
      // The sharding stage gives every computed value device boxes.
      if (std::string line = first_unplaced_step(placed_program.as_text()); !line.empty())
        failures.add(seed, fmt::format("a step without device boxes: {}", line), description);
      CompareResult r = compare_buffers(g.root, whole, placed, {});
      if (!r.ok)
        failures.add(seed, fmt::format("{} devices: {}", placement.size(), r.message), description);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  failures.report(graphs);
}

TEST(Differential, GeneratorIsDeterministic) {
  std::set<std::string> distinct;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    GeneratedGraph a = random_graph(seed), b = random_graph(seed);
    ASSERT_EQ(a.description, b.description) << "seed " << seed;
    // The data too, not just the program text.
    CompareResult r = compare_buffers(a.root, interpret(a.root), interpret(b.root), {});
    EXPECT_TRUE(r.ok) << "seed " << seed << ": " << r.message;
    distinct.insert(a.description);
  }
  EXPECT_GE(distinct.size(), 98u);
}

TEST(Differential, InterpreterAgreesWithItself) {
  Failures failures;
  for (uint64_t seed = base_seed(); seed < base_seed() + 200; ++seed) {
    GeneratedGraph g = random_graph(seed);
    CompareResult r = compare_buffers(g.root, interpret(g.root), interpret(g.root), {});
    if (!r.ok) failures.add(seed, r.message, g.description);
  }
  failures.report(200);
}

// Every op of the graph IR appears within 2000 graphs; generating and interpreting them is fast.
TEST(Differential, GeneratorCoversEveryOp) {
  std::map<Op, int64_t> counts;
  Failures failures;
  int64_t nodes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    GeneratedGraph g = random_graph(seed);
    try {
      interpret(g.root);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("the interpreter threw: {}", e.what()), g.description);
    }
    for (const Node *n : jx::ir::topological_order({g.root.node()})) {
      ++counts[n->op];
      ++nodes;
    }
  }
  const double seconds = seconds_since(t0);
  std::string table;
  for (int i = 0; i < jx::ir::op_count; ++i) {
    const Op op = Op(i);
    table += fmt::format("{}={} ", jx::ir::op_name(op), counts[op]);
    // Parameters stand for jit arguments while tracing; stop_gradient and custom_vjp mark
    // values for transformations only (simplify erases them before the compiler sees them), and
    // custom_lin exists only in a custom_vjp's tangent: no jnp call builds them. Control flow
    // takes these graphs as its bodies instead (tests/lax/test_random_loops.cpp).
    if (op != Op::Parameter && op != Op::StopGradient && op != Op::CustomVjp &&
        op != Op::CustomLin && jx::ir::op_kind(op) != jx::ir::OpKind::Control) {
      EXPECT_GT(counts[op], 0) << "no graph uses " << jx::ir::op_name(op);
    }
  }
  fmt::print("2000 graphs ({} nodes) generated and interpreted in {:.2f} s\nnodes per op: {}\n",
             nodes, seconds, table);
  failures.report(2000);
}

// Each family alone (with Elementwise, which combines its results) yields only its kinds of ops.
TEST(Differential, FamiliesRestrictTheGraph) {
  using namespace jx::diff;
  auto kinds_of = [](uint32_t families) {
    std::set<OpKind> kinds;
    std::set<Op> ops;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      GeneratedGraph g = random_graph(seed, {.families = families});
      for (const Node *n : jx::ir::topological_order({g.root.node()})) {
        kinds.insert(jx::ir::op_kind(n->op));
        ops.insert(n->op);
      }
    }
    return std::pair{kinds, ops};
  };
  auto [kinds, ops] = kinds_of(kElementwise);
  // jnp.logaddexp's custom_jvp marker: erased before compilation (simplify).
  kinds.erase(OpKind::Marker);
  EXPECT_EQ(kinds,
            (std::set<OpKind>{OpKind::Leaf, OpKind::Unary, OpKind::Binary, OpKind::Ternary}));
  EXPECT_FALSE(ops.count(Op::Iota) || ops.count(Op::RandomUniform));
  std::tie(kinds, ops) = kinds_of(kElementwise | kBroadcasting);
  EXPECT_FALSE(kinds.count(OpKind::Reduce) || kinds.count(OpKind::Contraction));
  for (Op op : ops)
    EXPECT_TRUE(jx::ir::op_kind(op) != OpKind::Movement || op == Op::Broadcast)
        << jx::ir::op_name(op);
  std::tie(kinds, ops) = kinds_of(kElementwise | kBroadcasting | kMovement | kReduction);
  EXPECT_FALSE(kinds.count(OpKind::Contraction));
  EXPECT_TRUE(kinds.count(OpKind::Reduce) && kinds.count(OpKind::Movement));
}

TEST(Differential, CompareBuffersRules) {
  const double nan = std::nan(""), inf = INFINITY;
  Array e = jnp::array(std::vector<double>{nan, 0.0, inf, 1.0, -2.0, 3.0}, Shape{2, 3});
  auto compare = [&](std::vector<double> got, Tolerance t = {}) {
    return compare_buffers(e, interpret(e), interpret(jnp::array(got, Shape{2, 3})), t);
  };
  EXPECT_TRUE(compare({nan, -0.0, inf, 1.0, -2.0, 3.0}).ok);
  CompareResult r = compare({nan, 0.0, -inf, 1.0, -2.0, 3.0});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.index, 2);
  EXPECT_NE(r.message.find("[0, 2]"), std::string::npos) << r.message;
  const double next = std::nextafter(3.0, 4.0);
  r = compare({nan, 0.0, inf, 1.0, -2.0, next});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("(1 ulp apart)"), std::string::npos) << r.message;
  EXPECT_TRUE(compare({nan, 0.0, inf, 1.0, -2.0, next}, Tolerance{1, nullptr}).ok);
  EXPECT_FALSE(compare({nan, 0.0, 1e308, 1.0, -2.0, 3.0}, Tolerance{1000, nullptr}).ok);
  // A bound: elementwise absolute error, infinite where unchecked.
  Tolerance t{0, interpret(jnp::array(std::vector<double>{0, 0, 0, 0.5, inf, 0}, Shape{2, 3}))};
  r = compare({nan, 0.0, inf, 1.9, 100.0, 3.0}, t);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.unchecked, 1);
  EXPECT_FALSE(compare({nan, 0.0, inf, 2.1, 100.0, 3.0}, t).ok);
  EXPECT_FALSE(compare({0.0, 0.0, inf, 1.0, -2.0, 3.0}, t).ok);
  // Integers are exact; buffers that are too small are reported.
  Array i = jnp::array(std::vector<int32_t>{1, 2, 3});
  r = compare_buffers(i, interpret(i), interpret(jnp::array(std::vector<int32_t>{1, 2, 4})), {});
  EXPECT_EQ(r.index, 2);
  r = compare_buffers(i, interpret(i), interpret(jnp::array(std::vector<int32_t>{1, 2})), {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("holds 8 bytes, not 12"), std::string::npos) << r.message;
}

// A second, legitimately different evaluation of a graph, made of graph ops the interpreter runs:
// float sums, products and contractions pairwise in the node's own precision (the interpreter
// accumulates in order, float32 in double), and libm results a few ulp off.
class Alternate {
public:
  // drop_last_term makes it a buggy implementation instead, for the tolerance's sensitivity.
  explicit Alternate(uint64_t seed, bool drop_last_term = false)
      : rng_(seed), drop_last_term_(drop_last_term) {}

  NodePtr rewrite(const NodePtr &n) {
    auto it = memo_.find(n.get());
    if (it != memo_.end()) return it->second;
    NodePtr out = compute(n);
    memo_.emplace(n.get(), out);
    return out;
  }

private:
  std::mt19937_64 rng_;
  bool drop_last_term_;
  std::unordered_map<const Node *, NodePtr> memo_;

  NodePtr compute(const NodePtr &n) {
    if (n->realized() || jx::ir::op_kind(n->op) == OpKind::Leaf) return n;
    std::vector<NodePtr> inputs;
    for (const NodePtr &in : n->inputs)
      inputs.push_back(rewrite(in));
    const bool fl = jx::is_floating(n->dtype);
    switch (n->op) {
    case Op::ReduceSum:
    case Op::ReduceProd:
      if (fl) return pairwise(n->op, inputs[0], n->attrs);
      break;
    case Op::DotGeneral:
      if (fl) return contract(*n, inputs[0], inputs[1]);
      break;
    default:
      if (fl && jx::ir::op_info(n->op).ulps > 0) return perturb(same_op(*n, inputs));
    }
    return same_op(*n, inputs);
  }

  static NodePtr same_op(const Node &n, std::vector<NodePtr> inputs) {
    jx::ir::NodeSpec s = n;
    s.inputs = std::move(inputs);
    return jx::ir::make_node(std::move(s));
  }

  // x times 1 + k * eps, k in -3..3 per element.
  NodePtr perturb(const NodePtr &x) {
    const int64_t size = x->size();
    BufferPtr factors = jx::runtime::make_buffer(size * jx::itemsize(x->dtype));
    for (int64_t i = 0; i < size; ++i) {
      const double k = double(int64_t(rng_() % 7) - 3);
      if (x->dtype == DType::float32)
        factors->as<float>()[i] = 1.0f + float(k) * 0x1p-23f;
      else
        factors->as<double>()[i] = 1.0 + k * 0x1p-52;
    }
    return jx::ir::binary(Op::Mul, x, jx::ir::constant(factors, x->dtype, x->shape));
  }

  // Reduces x over axes by halving: pairs of neighbours combined until one is left.
  NodePtr pairwise(Op op, NodePtr x, const std::vector<int64_t> &axes) {
    const DType t = x->dtype;
    const double identity = op == Op::ReduceSum ? 0 : 1;
    Shape kept;
    std::vector<int64_t> perm;
    int64_t n = 1;
    for (int64_t a = 0; a < x->ndim(); ++a)
      if (!std::count(axes.begin(), axes.end(), a)) {
        perm.push_back(a);
        kept.push_back(x->shape[a]);
      }
    for (int64_t a : axes) {
      perm.push_back(a);
      n *= x->shape[a];
    }
    if (n == 0) return jx::ir::broadcast(jx::ir::literal(identity, t, false), kept, {});
    Shape s = kept;
    s.push_back(n);
    x = jx::ir::reshape(jx::ir::transpose(x, perm), s);
    const int64_t last = int64_t(kept.size());
    if (drop_last_term_ && op == Op::ReduceSum && n >= 2) {
      Shape limits = s;
      limits[last] = --n;
      x = jx::ir::slice(x, std::vector<int64_t>(last + 1, 0), limits,
                        std::vector<int64_t>(last + 1, 1));
    }
    const Op combine = op == Op::ReduceSum ? Op::Add : Op::Mul;
    while (n > 1) {
      if (n % 2) {
        std::vector<int64_t> lo(last + 1, 0), hi(last + 1, 0);
        hi[last] = 1;
        x = jx::ir::pad(x, jx::ir::literal(identity, t, false), lo, hi);
        ++n;
      }
      std::vector<int64_t> starts(last + 1, 0), steps(last + 1, 1);
      Shape limits = x->shape;
      steps[last] = 2;
      NodePtr even = jx::ir::slice(x, starts, limits, steps);
      starts[last] = 1;
      x = jx::ir::binary(combine, even, jx::ir::slice(x, starts, limits, steps));
      n /= 2;
    }
    return jx::ir::reshape(x, kept);
  }

  // dot_general as a broadcast product summed pairwise over the contracted axes.
  NodePtr contract(const Node &n, const NodePtr &lhs, const NodePtr &rhs) {
    const jx::ir::DotDims d = jx::ir::dot_dims(n);
    auto free_axes = [](const NodePtr &x, const std::vector<int64_t> &b,
                        const std::vector<int64_t> &c) {
      std::vector<int64_t> f;
      for (int64_t a = 0; a < x->ndim(); ++a)
        if (!std::count(b.begin(), b.end(), a) && !std::count(c.begin(), c.end(), a))
          f.push_back(a);
      return f;
    };
    const std::vector<int64_t> lf = free_axes(lhs, d.lhs_batch, d.lhs_contract),
                               rf = free_axes(rhs, d.rhs_batch, d.rhs_contract);
    const int64_t nb = int64_t(d.lhs_batch.size()), nl = int64_t(lf.size()),
                  nr = int64_t(rf.size()), nc = int64_t(d.lhs_contract.size());
    // Full index space: batch, lhs free, rhs free, contracted.
    Shape full;
    for (int64_t a : d.lhs_batch)
      full.push_back(lhs->shape[a]);
    for (int64_t a : lf)
      full.push_back(lhs->shape[a]);
    for (int64_t a : rf)
      full.push_back(rhs->shape[a]);
    for (int64_t a : d.lhs_contract)
      full.push_back(lhs->shape[a]);
    auto spread = [&](const NodePtr &x, std::vector<int64_t> perm, int64_t free_at, int64_t nfree) {
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < nb; ++i)
        dims.push_back(i);
      for (int64_t i = 0; i < nfree; ++i)
        dims.push_back(free_at + i);
      for (int64_t i = 0; i < nc; ++i)
        dims.push_back(nb + nl + nr + i);
      return jx::ir::broadcast(jx::ir::transpose(x, std::move(perm)), full, dims);
    };
    auto concat = [](std::vector<int64_t> a, const std::vector<int64_t> &b,
                     const std::vector<int64_t> &c) {
      a.insert(a.end(), b.begin(), b.end());
      a.insert(a.end(), c.begin(), c.end());
      return a;
    };
    NodePtr l = spread(lhs, concat(d.lhs_batch, lf, d.lhs_contract), nb, nl);
    NodePtr r = spread(rhs, concat(d.rhs_batch, rf, d.rhs_contract), nb + nl, nr);
    std::vector<int64_t> summed;
    for (int64_t i = 0; i < nc; ++i)
      summed.push_back(nb + nl + nr + i);
    return pairwise(Op::ReduceSum, jx::ir::binary(Op::Mul, l, r), summed);
  }
};

// The tolerance admits a legitimately different implementation: on every graph, the alternate
// evaluation matches the interpreter's within tolerance_for's bounds. Campaigns size it as
// RandomGraphs.
TEST(Differential, ToleranceAbsorbsRoundingDifferences) {
  const uint64_t graphs = graph_count(), base = base_seed();
  Failures failures;
  int64_t differing = 0, unchecked = 0, elements = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = base; seed < base + graphs; ++seed) {
    std::string description;
    try {
      GeneratedGraph g = random_graph(seed);
      description = g.description;
      const NodePtr alternate = Alternate(seed).rewrite(g.root.node());
      BufferPtr expected = interpret(g.root);
      BufferPtr actual = evaluate_with(Backend::Interpreter, alternate);
      differing += !compare_buffers(g.root, expected, actual, {}).ok;
      CompareResult r = compare_buffers(g.root, expected, actual, tolerance_for(g.root));
      unchecked += r.unchecked;
      elements += g.root.size();
      if (!r.ok) failures.add(seed, r.message, description);
    } catch (const std::exception &e) {
      failures.add(seed, fmt::format("threw: {}", e.what()), description);
    }
  }
  fmt::print("{} graphs in {:.2f} s: {} differ bitwise from the interpreter; {} of {} elements "
             "could not be checked\n",
             graphs, seconds_since(t0), differing, unchecked, elements);
  // A share, so not for a rerun of a few graphs (JX_DIFF_GRAPHS=1).
  if (graphs >= 100) {
    EXPECT_GT(differing, int64_t(graphs / 20)) << "the alternate evaluation should differ often";
  }
  failures.report(graphs);
}

// The bounds are tight enough to catch a plausible compiler bug: float sums and contractions that
// drop their last term. Over 8000 graphs the share caught moves with the generator's draws: 91%
// before the six ops of December 2026 had rows, 87.5% after (none of the graphs it misses uses
// them: the rows shift every later draw); ill-conditioned ops such as arccosh near 1 absorb
// some drops.
TEST(Differential, ToleranceCatchesDroppedTerms) {
  int64_t affected = 0, caught = 0;
  for (uint64_t seed = 0; seed < 8000; ++seed) {
    GeneratedGraph g = random_graph(seed);
    const NodePtr right = Alternate(seed).rewrite(g.root.node());
    const NodePtr wrong = Alternate(seed, true).rewrite(g.root.node());
    BufferPtr bad = evaluate_with(Backend::Interpreter, wrong);
    if (compare_buffers(g.root, evaluate_with(Backend::Interpreter, right), bad, {}).ok) continue;
    ++affected;
    caught += !compare_buffers(g.root, interpret(g.root), bad, tolerance_for(g.root)).ok;
  }
  fmt::print("dropping a term changes {} of 8000 graphs; the tolerance catches {}\n", affected,
             caught);
  EXPECT_GE(caught, affected * 85 / 100);
}

} // namespace
