// plan_gemm (passes/contraction.h): which dot_generals run as BLAS calls, the (batch, m, n, k)
// they group into and the strides they read their operands through (transposes and broadcasts
// folded in); the reasons the others stay loops, and their values; and what fusion makes of them
// in a compiled program's plan (Compiled::as_text).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "api/internal.h"
#include "ir/builder.h"
#include "passes/contraction.h"

namespace {

namespace ir = jx::ir;
namespace jnp = jx::numpy;
using ir::NodePtr;
using jx::Array;
using jx::passes::GemmPlan;
using jx::passes::plan_gemm;

NodePtr param(int64_t position, jx::Shape shape, jx::DType dtype = jx::float64) {
  return ir::parameter(position, dtype, std::move(shape));
}

// A matmul (m, k) x (k, n) of two nodes.
NodePtr matmul(const NodePtr &a, const NodePtr &b) {
  return ir::dot_general(a, b, {}, {}, {1}, {0});
}

// The plan for dot, which must exist.
GemmPlan planned(const NodePtr &dot) {
  std::string why;
  std::optional<GemmPlan> plan = plan_gemm(*dot, &why);
  EXPECT_TRUE(plan.has_value()) << "kept as a loop: " << why;
  return plan.value_or(GemmPlan{});
}

// Why dot stays a loop ("" when it is planned as a GEMM).
std::string rejection(const NodePtr &dot) {
  std::string why;
  return plan_gemm(*dot, &why) ? "" : why;
}

std::vector<int64_t> strides(const int64_t (&s)[3]) { return {s[0], s[1], s[2]}; }
std::vector<int64_t> dims(const jx::runtime::Gemm &g) { return {g.batch, g.m, g.n, g.k}; }

// ---- what plan_gemm plans ----

TEST(Contraction, MatmulReadsItsOperandsRowMajor) {
  const int64_t m = 64, k = 48, n = 40;
  NodePtr a = param(0, {m, k}), b = param(1, {k, n});
  const GemmPlan p = planned(matmul(a, b));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{1, m, n, k}));
  EXPECT_EQ(p.lhs, a.get());
  EXPECT_EQ(p.rhs, b.get());
  EXPECT_EQ(strides(p.gemm.lhs)[1], k);
  EXPECT_EQ(strides(p.gemm.lhs)[2], 1);
  EXPECT_EQ(strides(p.gemm.rhs)[1], n);
  EXPECT_EQ(strides(p.gemm.rhs)[2], 1);
}

TEST(Contraction, TransposedOperandsAreReadThroughStrides) {
  const int64_t m = 64, k = 48, n = 40;
  // transpose(at) @ b: the GEMM reads at itself, column by column.
  NodePtr at = param(0, {k, m}), b = param(1, {k, n});
  GemmPlan p = planned(matmul(ir::transpose(at, {1, 0}), b));
  EXPECT_EQ(p.lhs, at.get());
  EXPECT_EQ(strides(p.gemm.lhs)[1], 1);
  EXPECT_EQ(strides(p.gemm.lhs)[2], m);
  EXPECT_EQ(p.rhs, b.get());
  // a @ transpose(bt): the same for the right operand.
  NodePtr a = param(0, {m, k}), bt = param(1, {n, k});
  p = planned(matmul(a, ir::transpose(bt, {1, 0})));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{1, m, n, k}));
  EXPECT_EQ(p.rhs, bt.get());
  EXPECT_EQ(strides(p.gemm.rhs)[1], 1);
  EXPECT_EQ(strides(p.gemm.rhs)[2], k);
  // Both transposed.
  p = planned(matmul(ir::transpose(at, {1, 0}), ir::transpose(bt, {1, 0})));
  EXPECT_EQ(p.lhs, at.get());
  EXPECT_EQ(p.rhs, bt.get());
}

TEST(Contraction, BatchedMatmul) {
  // bij,bjk->bik
  const int64_t batch = 5, i = 32, j = 24, k = 40;
  NodePtr a = param(0, {batch, i, j}), b = param(1, {batch, j, k});
  const GemmPlan p = planned(ir::dot_general(a, b, {0}, {0}, {2}, {1}));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{batch, i, k, j}));
  EXPECT_EQ(strides(p.gemm.lhs), (std::vector<int64_t>{i * j, j, 1}));
  EXPECT_EQ(strides(p.gemm.rhs), (std::vector<int64_t>{j * k, k, 1}));
  EXPECT_EQ(p.lhs, a.get());
  EXPECT_EQ(p.rhs, b.get());
}

TEST(Contraction, BroadcastBatchOperandHasBatchStrideZero) {
  // The same (i, j) matrix for every batch: the GEMM reads it once per batch, not a copy.
  const int64_t batch = 5, i = 32, j = 24, k = 40;
  NodePtr a = param(0, {i, j}), b = param(1, {batch, j, k});
  NodePtr spread = ir::broadcast(a, {batch, i, j}, {1, 2});
  GemmPlan p = planned(ir::dot_general(spread, b, {0}, {0}, {2}, {1}));
  EXPECT_EQ(p.lhs, a.get());
  EXPECT_EQ(strides(p.gemm.lhs), (std::vector<int64_t>{0, j, 1}));
  EXPECT_EQ(strides(p.gemm.rhs), (std::vector<int64_t>{j * k, k, 1}));
  // On the right, and transposed as well: a broadcast of a transpose.
  NodePtr bt = param(1, {k, j});
  NodePtr c = param(0, {batch, i, j});
  NodePtr rhs = ir::broadcast(ir::transpose(bt, {1, 0}), {batch, j, k}, {1, 2});
  p = planned(ir::dot_general(c, rhs, {0}, {0}, {2}, {1}));
  EXPECT_EQ(p.rhs, bt.get());
  EXPECT_EQ(strides(p.gemm.rhs), (std::vector<int64_t>{0, 1, j}));
}

TEST(Contraction, NestedAxesGroupIntoOne) {
  // (m1, m2, k1, k2) x (k1, k2, n): m = m1 * m2 with stride k1 * k2, k = k1 * k2 with stride 1.
  const int64_t m1 = 4, m2 = 10, k1 = 6, k2 = 8, n = 50;
  NodePtr a = param(0, {m1, m2, k1, k2}), b = param(1, {k1, k2, n});
  GemmPlan p = planned(ir::dot_general(a, b, {}, {}, {2, 3}, {0, 1}));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{1, m1 * m2, n, k1 * k2}));
  EXPECT_EQ(strides(p.gemm.lhs)[1], k1 * k2);
  EXPECT_EQ(strides(p.gemm.lhs)[2], 1);
  EXPECT_EQ(strides(p.gemm.rhs)[1], n);
  EXPECT_EQ(strides(p.gemm.rhs)[2], 1);
  // Two batch axes nest too; unit axes do not count.
  NodePtr c = param(0, {2, 3, 1, 20, 30}), d = param(1, {2, 3, 30, 40});
  p = planned(ir::dot_general(c, d, {0, 1}, {0, 1}, {4}, {2}));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{6, 20, 40, 30}));
  EXPECT_EQ(strides(p.gemm.lhs), (std::vector<int64_t>{600, 30, 1}));
  EXPECT_EQ(strides(p.gemm.rhs), (std::vector<int64_t>{1200, 40, 1}));
}

TEST(Contraction, MatrixTimesVector) {
  // n = 1: a gemv whose vector is read with its own increment.
  NodePtr a = param(0, {300, 200}), v = param(1, {200});
  GemmPlan p = planned(ir::dot_general(a, v, {}, {}, {1}, {0}));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{1, 300, 1, 200}));
  EXPECT_EQ(strides(p.gemm.rhs)[1], 1);
  // A vector broadcast from a scalar would have increment 0: it is read from a buffer of its own.
  NodePtr s = ir::broadcast(param(1, {}), {200}, {});
  p = planned(ir::dot_general(a, s, {}, {}, {1}, {0}));
  EXPECT_EQ(p.rhs, s.get());
  EXPECT_EQ(strides(p.gemm.rhs)[1], 1);
  // m = 1: vector times matrix, the vector on the left.
  NodePtr w = param(0, {200}), b = param(1, {200, 300});
  p = planned(ir::dot_general(w, b, {}, {}, {0}, {0}));
  EXPECT_EQ(dims(p.gemm), (std::vector<int64_t>{1, 1, 300, 200}));
  EXPECT_EQ(strides(p.gemm.lhs)[2], 1);
}

TEST(Contraction, TransposeBlasCannotStrideThroughGetsItsOwnBuffer) {
  // transpose(x, {1, 0, 2}) contracted over its axes 1 and 2, which are x's axes 0 and 2: they
  // do not nest in x, but they do in the transpose's own row-major buffer.
  const int64_t k1 = 6, m = 40, k2 = 8, n = 50;
  NodePtr x = param(0, {k1, m, k2}), b = param(1, {k1, k2, n});
  NodePtr xt = ir::transpose(x, {1, 0, 2});
  const GemmPlan p = planned(ir::dot_general(xt, b, {}, {}, {1, 2}, {0, 1}));
  EXPECT_EQ(p.lhs, xt.get());
  EXPECT_EQ(strides(p.gemm.lhs)[1], k1 * k2);
  EXPECT_EQ(strides(p.gemm.lhs)[2], 1);
  EXPECT_EQ(p.rhs, b.get());
}

TEST(Contraction, LiteralsAndIotasAreNotPeeled) {
  // A broadcast literal has no buffer to stride through: the broadcast is the operand.
  const int64_t m = 64, k = 48, n = 40;
  NodePtr ones = ir::broadcast(ir::literal(1.0, jx::float64, false), {m, k}, {});
  NodePtr b = param(0, {k, n});
  GemmPlan p = planned(matmul(ones, b));
  EXPECT_EQ(p.lhs, ones.get());
  EXPECT_EQ(strides(p.gemm.lhs)[1], k);
  NodePtr ramp = ir::transpose(ir::iota(jx::float64, {k, m}, 0), {1, 0});
  p = planned(matmul(ramp, b));
  EXPECT_EQ(p.lhs, ramp.get());
  EXPECT_EQ(strides(p.gemm.lhs)[1], k);
  EXPECT_EQ(strides(p.gemm.lhs)[2], 1);
}

TEST(Contraction, Float32IsPlannedToo) {
  NodePtr a = param(0, {64, 48}, jx::float32), b = param(1, {48, 40}, jx::float32);
  EXPECT_EQ(rejection(matmul(a, b)), "");
}

// ---- what stays a loop, and why ----

TEST(Contraction, IntegerDotsAreLoops) {
  for (jx::DType t : {jx::int32, jx::int64}) {
    NodePtr a = param(0, {64, 48}, t), b = param(1, {48, 40}, t);
    EXPECT_EQ(rejection(matmul(a, b)), "integer or bool: a plain loop");
  }
}

TEST(Contraction, OneDotProductPerElementIsALoop) {
  // The Simpson seed's einsum('i...,i...'): every output element is its own dot product.
  NodePtr a = param(0, {64, 20, 30}), b = param(1, {64, 20, 30});
  EXPECT_EQ(rejection(ir::dot_general(a, b, {1, 2}, {1, 2}, {0}, {0})),
            "loop: one dot product per output element");
}

TEST(Contraction, OuterProductsAreLoops) {
  NodePtr a = param(0, {100, 1}), b = param(1, {1, 120});
  EXPECT_EQ(rejection(matmul(a, b)), "loop: an outer product (k < 2)");
  // No contracted axis at all.
  NodePtr u = param(0, {100}), v = param(1, {120});
  EXPECT_EQ(rejection(ir::dot_general(u, v, {}, {}, {}, {})), "loop: an outer product (k < 2)");
}

TEST(Contraction, TinyProductsAreLoops) {
  NodePtr a = param(0, {8, 8}), b = param(1, {8, 8});
  const std::string why = rejection(matmul(a, b));
  EXPECT_NE(why.find("1024 flops per product, below the GEMM threshold"), std::string::npos) << why;
  // 2 * 32 * 32 * 16 = 32768 flops: the threshold itself is a GEMM.
  EXPECT_EQ(rejection(matmul(param(0, {32, 16}), param(1, {16, 32}))), "");
  EXPECT_NE(rejection(matmul(param(0, {32, 15}), param(1, {15, 32}))), "");
  // A batch of small products is one BLAS call per matrix: the loop is faster, however many.
  NodePtr batched =
      ir::dot_general(param(0, {10000, 4, 4}), param(1, {10000, 4, 4}), {0}, {0}, {2}, {1});
  EXPECT_NE(rejection(batched).find("flops per product"), std::string::npos);
  EXPECT_EQ(rejection(ir::dot_general(param(0, {64, 32, 16}), param(1, {64, 16, 32}), {0}, {0}, {2},
                                      {1})),
            "");
}

TEST(Contraction, AxesThatDoNotNestAreLoops) {
  // Contracted over (k2, k1) of x (m, k1, k2): in that order the axes do not nest in memory.
  NodePtr x = param(0, {40, 6, 8}), b = param(1, {8, 6, 50});
  EXPECT_EQ(rejection(ir::dot_general(x, b, {}, {}, {2, 1}, {0, 1})),
            "loop: operand axes that BLAS cannot stride through");
  // The same on the right: (k1, k2) of x pair with b's axes (1, 0).
  NodePtr y = param(0, {40, 6, 8});
  EXPECT_EQ(rejection(ir::dot_general(y, b, {}, {}, {1, 2}, {1, 0})),
            "loop: operand axes that BLAS cannot stride through");
  // Batch axes out of order on one side.
  NodePtr c = param(0, {3, 4, 20, 30}), d = param(1, {4, 3, 30, 40});
  EXPECT_EQ(rejection(ir::dot_general(c, d, {0, 1}, {1, 0}, {3}, {2})),
            "loop: operand axes that BLAS cannot stride through");
  // A free axis between contracted ones splits k.
  NodePtr e = param(0, {6, 40, 8}), f = param(1, {6, 8, 50});
  EXPECT_EQ(rejection(ir::dot_general(e, f, {}, {}, {0, 2}, {0, 1})),
            "loop: operand axes that BLAS cannot stride through");
}

TEST(Contraction, NotADotGeneral) {
  NodePtr a = param(0, {64, 48});
  EXPECT_EQ(rejection(ir::unary(ir::Op::Neg, a)), "not a dot_general");
}

// ---- values: GEMMs and the loops kept, through jx::jit, against the evaluator ----

// Small integers as `dtype`, so that every sum is exact in any order and the two backends must
// agree bit for bit.
Array small_ints(const jx::Shape &shape, jx::DType dtype, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> v(size_t(jx::shape_size(shape)));
  for (double &x : v)
    x = dist(rng);
  return jnp::array(v).reshape(shape).astype(dtype);
}

// f(a, b) through jx::jit equals the reference evaluator's f(a, b) bit for bit; returns the
// compiled program's text.
template <class F> std::string expect_jit_matches_evaluator(F f, const Array &a, const Array &b) {
  auto compiled = jx::jit(f)
                      .lower(jx::ShapeDtypeStruct{a.shape(), a.dtype()},
                             jx::ShapeDtypeStruct{b.shape(), b.dtype()})
                      .compile();
  const Array out = compiled(a, b);
  const Array lazy = f(a, b);
  const jx::runtime::BufferPtr expected =
      jx::api::evaluate_with(jx::api::Backend::Interpreter, lazy.node());
  EXPECT_EQ(out.shape(), lazy.shape());
  EXPECT_EQ(out.dtype(), lazy.dtype());
  const size_t bytes = size_t(out.size()) * jx::itemsize(out.dtype());
  const std::string text = compiled.as_text();
  EXPECT_EQ(std::memcmp(out.data(), expected->data(), bytes), 0)
      << text.substr(0, text.find("\n\n"));
  return text;
}

// A dot_general of the arrays' nodes, as a traceable function.
auto dot(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
         std::vector<int64_t> rc) {
  return [=](const Array &a, const Array &b) {
    return Array(ir::dot_general(a.node(), b.node(), lb, rb, lc, rc));
  };
}

// The plan's step list (the LLVM IR of its kernels, if any, follows a blank line).
std::string plan_of(const std::string &text) {
  const size_t end = text.find("\n\n");
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

int count(const std::string &text, const std::string &part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

TEST(ContractionValues, LoopsKeptComputeTheEvaluatorsValues) {
  // The reason the plan gives, the dtype, the operands' shapes and the dot's axes.
  struct Case {
    const char *reason;
    jx::DType dtype;
    jx::Shape lhs, rhs;
    std::vector<int64_t> lb, rb, lc, rc;
  };
  const Case cases[] = {
      {"integer or bool", jx::int64, {64, 48}, {48, 40}, {}, {}, {1}, {0}},
      {"integer or bool", jx::int32, {33, 17}, {17, 29}, {}, {}, {1}, {0}},
      {"one dot product", jx::float64, {64, 20, 30}, {64, 20, 30}, {1, 2}, {1, 2}, {0}, {0}},
      {"outer product", jx::float64, {100, 1}, {1, 120}, {}, {}, {1}, {0}},
      {"below the GEMM threshold", jx::float32, {8, 8}, {8, 8}, {}, {}, {1}, {0}},
      // Contracted axes that do not nest; batch axes out of order on one side; the batch axis
      // innermost, so that neither stride of the (m, k) matrix is 1.
      {"cannot stride", jx::float64, {40, 6, 8}, {8, 6, 50}, {}, {}, {2, 1}, {0, 1}},
      {"cannot stride", jx::float32, {3, 4, 20, 30}, {4, 3, 30, 40}, {0, 1}, {1, 0}, {3}, {2}},
      {"cannot stride", jx::float64, {33, 24, 5}, {24, 41, 5}, {2}, {2}, {1}, {0}},
  };
  unsigned seed = 1;
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << c.reason << ", " << jx::dtype_name(c.dtype));
    const std::string text =
        expect_jit_matches_evaluator(dot(c.lb, c.rb, c.lc, c.rc), small_ints(c.lhs, c.dtype, seed),
                                     small_ints(c.rhs, c.dtype, seed + 1));
    seed += 2;
    const std::string plan = plan_of(text);
    EXPECT_EQ(count(plan, "gemm "), 0) << plan;
    EXPECT_NE(plan.find("kernel dot_general"), std::string::npos) << plan;
    EXPECT_NE(plan.find(c.reason), std::string::npos) << plan;
  }
}

TEST(ContractionValues, GemmsComputeTheEvaluatorsValues) {
  struct Case {
    const char *what;
    jx::Shape lhs, rhs;
    std::vector<int64_t> lb, rb, lc, rc;
    jx::DType dtype;
  };
  const Case cases[] = {
      {"matmul", {67, 45}, {45, 53}, {}, {}, {1}, {0}, jx::float64},
      {"matmul f32", {67, 45}, {45, 53}, {}, {}, {1}, {0}, jx::float32},
      {"lhs contracted first (a.T @ b)", {45, 67}, {45, 53}, {}, {}, {0}, {0}, jx::float64},
      {"rhs contracted last (a @ b.T)", {67, 45}, {53, 45}, {}, {}, {1}, {1}, jx::float32},
      {"batched", {5, 33, 24}, {5, 24, 41}, {0}, {0}, {2}, {1}, jx::float64},
      {"nested contraction", {4, 10, 6, 8}, {6, 8, 50}, {}, {}, {2, 3}, {0, 1}, jx::float64},
      {"matrix times vector", {300, 200}, {200}, {}, {}, {1}, {0}, jx::float64},
      {"vector times matrix", {200}, {200, 300}, {}, {}, {0}, {0}, jx::float32},
      {"vector times transposed matrix", {200}, {300, 200}, {}, {}, {0}, {1}, jx::float64},
      {"large (tiles)", {256, 128}, {128, 200}, {}, {}, {1}, {0}, jx::float64},
  };
  unsigned seed = 100;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    const std::string text =
        expect_jit_matches_evaluator(dot(c.lb, c.rb, c.lc, c.rc), small_ints(c.lhs, c.dtype, seed),
                                     small_ints(c.rhs, c.dtype, seed + 1));
    seed += 2;
    EXPECT_EQ(count(plan_of(text), "gemm dot_general"), 1) << plan_of(text);
  }
}

// ---- fusion: what the gemm step reads, and the kernels around it ----

// "%3 = gemm dot_general : f64[64,40] reads 0,1 batch=1 ..." -> its fields.
struct GemmLine {
  std::string reads;
  int64_t batch = -1, m = -1, n = -1, k = -1;
  std::string lhs_strides, rhs_strides;
  int64_t tiles = -1;
};
std::vector<GemmLine> gemm_lines(const std::string &plan) {
  std::vector<GemmLine> lines;
  const std::regex line(R"(= gemm dot_general : \S+ reads (\S+) batch=(\d+) m=(\d+) n=(\d+) )"
                        R"(k=(\d+) lhs_strides=(\S+) rhs_strides=(\S+) tiles=(\d+))");
  for (std::sregex_iterator it(plan.begin(), plan.end(), line), end; it != end; ++it)
    lines.push_back({(*it)[1], std::stoll((*it)[2]), std::stoll((*it)[3]), std::stoll((*it)[4]),
                     std::stoll((*it)[5]), (*it)[6], (*it)[7], std::stoll((*it)[8])});
  return lines;
}

// The slot numbers of the plan's parameter steps, in order ("%0 = parameter ...").
std::vector<std::string> parameter_slots(const std::string &plan) {
  std::vector<std::string> slots;
  const std::regex line(R"(%(\d+) = parameter)");
  for (std::sregex_iterator it(plan.begin(), plan.end(), line), end; it != end; ++it)
    slots.push_back((*it)[1]);
  return slots;
}

jx::ShapeDtypeStruct f64(jx::Shape shape) { return {std::move(shape), jx::float64}; }

TEST(ContractionFusion, TransposedOperandIsReadInPlace) {
  // matmul(transpose(a), b): no transpose kernel, the gemm reads both parameters.
  const std::string text =
      jx::jit([](const Array &a, const Array &b) { return jnp::matmul(jnp::transpose(a), b); })
          .lower(f64({48, 64}), f64({48, 40}))
          .compile()
          .as_text();
  const std::string plan = plan_of(text);
  EXPECT_EQ(count(plan, "kernel"), 0) << plan;
  const std::vector<GemmLine> gemms = gemm_lines(plan);
  ASSERT_EQ(gemms.size(), 1u) << plan;
  const std::vector<std::string> params = parameter_slots(plan);
  ASSERT_EQ(params.size(), 2u) << plan;
  EXPECT_EQ(gemms[0].reads, params[0] + "," + params[1]) << plan;
  EXPECT_EQ(gemms[0].m, 64);
  EXPECT_EQ(gemms[0].n, 40);
  EXPECT_EQ(gemms[0].k, 48);
  EXPECT_EQ(gemms[0].lhs_strides, "0,1,64") << plan;
  EXPECT_EQ(gemms[0].rhs_strides, "0,40,1") << plan;
}

TEST(ContractionFusion, ElementwiseProducerIsMaterializedOnce) {
  // matmul(a * 2, b): one kernel writes a * 2, the gemm reads its buffer.
  const std::string plan =
      plan_of(jx::jit([](const Array &a, const Array &b) { return jnp::matmul(a * 2.0, b); })
                  .lower(f64({64, 48}), f64({48, 40}))
                  .compile()
                  .as_text());
  EXPECT_EQ(count(plan, "= kernel"), 1) << plan;
  const std::regex kernel(R"(%(\d+) = kernel mul : f64\[64,48\] reads)");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(plan, match, kernel)) << plan;
  const std::vector<GemmLine> gemms = gemm_lines(plan);
  ASSERT_EQ(gemms.size(), 1u) << plan;
  EXPECT_EQ(gemms[0].reads, match[1].str() + "," + parameter_slots(plan)[1]) << plan;
  // The kernel comes before the gemm.
  EXPECT_LT(plan.find("= kernel"), plan.find("= gemm")) << plan;
}

TEST(ContractionFusion, EpilogueIsOneKernelAfterTheGemm) {
  // relu(x @ w + b): one gemm, then one kernel for the bias and the maximum.
  auto layer = [](const Array &x, const Array &w, const Array &b) {
    return jnp::maximum(jnp::matmul(x, w) + b, jnp::zeros({}));
  };
  auto lowered = jx::jit(layer).lower(f64({64, 48}), f64({48, 40}), f64({40}));
  const std::string plan = plan_of(lowered.compile().as_text());
  const std::vector<std::string> lines = [&] {
    std::vector<std::string> out;
    for (size_t at = 0, next; at < plan.size(); at = next + 1) {
      next = plan.find('\n', at);
      const std::string l = plan.substr(at, next - at);
      if (l.find("= gemm") != std::string::npos || l.find("= kernel") != std::string::npos)
        out.push_back(l);
    }
    return out;
  }();
  ASSERT_EQ(lines.size(), 2u) << plan;
  EXPECT_NE(lines[0].find("= gemm dot_general"), std::string::npos) << plan;
  EXPECT_NE(lines[1].find("= kernel max"), std::string::npos) << plan;
  // And the values: the evaluator's (small integers: exact).
  const Array x = small_ints({64, 48}, jx::float64, 7), w = small_ints({48, 40}, jx::float64, 8),
              b = small_ints({40}, jx::float64, 9);
  const Array out = lowered.compile()(x, w, b);
  const jx::runtime::BufferPtr expected =
      jx::api::evaluate_with(jx::api::Backend::Interpreter, layer(x, w, b).node());
  EXPECT_EQ(std::memcmp(out.data(), expected->data(), 64 * 40 * sizeof(double)), 0);
}

TEST(ContractionFusion, BroadcastOperandIsNotCopied) {
  // A (32, 24) matrix against a batch of five: its broadcast is a batch stride of 0.
  const std::string plan =
      plan_of(jx::jit([](const Array &a, const Array &b) { return jnp::matmul(a, b); })
                  .lower(f64({32, 24}), f64({5, 24, 40}))
                  .compile()
                  .as_text());
  EXPECT_EQ(count(plan, "= kernel"), 0) << plan;
  const std::vector<GemmLine> gemms = gemm_lines(plan);
  ASSERT_EQ(gemms.size(), 1u) << plan;
  EXPECT_EQ(gemms[0].batch, 5);
  EXPECT_EQ(gemms[0].lhs_strides, "0,24,1") << plan;
  EXPECT_EQ(gemms[0].rhs_strides, "960,40,1") << plan;
}

TEST(ContractionFusion, TilesOfALargeProduct) {
  const std::string plan =
      plan_of(jx::jit([](const Array &a, const Array &b) { return jnp::matmul(a, b); })
                  .lower(f64({512, 512}), f64({512, 512}))
                  .compile()
                  .as_text());
  const std::vector<GemmLine> gemms = gemm_lines(plan);
  ASSERT_EQ(gemms.size(), 1u) << plan;
  // One tile per hardware thread (up to the work's limit).
  EXPECT_EQ(gemms[0].tiles,
            int64_t(jx::runtime::gemm_tiles({.batch = 1, .m = 512, .n = 512, .k = 512},
                                            jx::runtime::gemm_parallelism())
                        .size() /
                    jx::runtime::gemm_tile_words))
      << plan;
  EXPECT_GE(gemms[0].tiles, std::min<int64_t>(4, jx::runtime::gemm_parallelism())) << plan;
}

} // namespace
