// jx::jvp on elementwise ops: every op's rule against central finite differences in float64, in
// float32 and float64; symbolic zeros; jax.jvp's errors; jvp under jit, of a jitted function,
// of itself.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "integer_ops.h"
#include "ir/builder.h"
#include "test_util.h"
#include "transforms/jvp.h"

namespace {

namespace jnp = jx::numpy;
namespace ir = jx::ir;
using ir::NodePtr;
using ir::Op;
using jx::Array;
using jx::DType;
using test_util::expect_error;

constexpr int64_t n_points = 16;

// Random points of input `input` of op, away from its kinks, jumps and the edges of its domain.
std::vector<double> points(Op op, int input, std::mt19937_64 &rng) {
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution(lo, hi)(rng); };
  auto signed_u = [&](double lo, double hi) { return (rng() % 2 ? 1 : -1) * u(lo, hi); };
  std::vector<double> xs;
  for (int64_t i = 0; i < n_points; ++i) {
    double x;
    switch (op) {
    case Op::Log:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Log2:
    case Op::Log10:
    case Op::Log1p: x = u(0.2, 3); break;
    case Op::Asin:
    case Op::Acos:
    case Op::Atanh:
    case Op::ErfInv: x = signed_u(0.05, 0.8); break;
    case Op::Acosh: x = u(1.2, 3); break;
    case Op::Tan: x = signed_u(0.05, 1.2); break;
    case Op::Floor:
    case Op::Ceil:
    case Op::Round: x = double(int(rng() % 5) - 2) + u(0.1, 0.4); break;
    case Op::Div: x = input == 0 ? signed_u(0.2, 2) : signed_u(0.5, 2); break;
    case Op::Pow: x = input == 0 ? u(0.5, 2) : signed_u(0.2, 2); break;
    // |x / y| in (0.34, 0.72): no integer quotient nearby.
    case Op::Rem:
    case Op::Fmod:
    case Op::FloorDiv: x = input == 0 ? signed_u(1.2, 1.8) : signed_u(2.5, 3.5); break;
    // Inputs 1 and 2 of max/min are set apart below; select's predicate is not an input here.
    default: x = signed_u(0.1, 2); break;
    }
    xs.push_back(x);
  }
  return xs;
}

Array apply_op(Op op, const std::vector<Array> &args) {
  if (op == Op::Select) // a fixed predicate: the op is linear in both branches
    return Array(ir::select((jnp::arange(double(n_points)) < double(n_points / 2)).node(),
                            args[0].node(), args[1].node()));
  if (op == Op::Fma) return Array(ir::fma(args[0].node(), args[1].node(), args[2].node()));
  if (op == Op::Real || op == Op::Imag || op == Op::Complex) {
    // Through a complex value that is not a complex op (whose parts the builder reads directly):
    // complex(x, x^2) or complex(x, y), transposed as a 4 x 4.
    const ir::NodePtr im = args.size() == 2 ? args[1].node() : (args[0] * args[0]).node();
    const Array z(ir::transpose(ir::reshape(ir::complex(args[0].node(), im), {4, 4}), {1, 0}));
    if (op == Op::Real) return jnp::real(z);
    if (op == Op::Imag) return jnp::imag(z);
    return jnp::real(z) + 3 * jnp::imag(z);
  }
  if (args.size() == 1) return Array(ir::unary(op, args[0].node()));
  return Array(ir::binary(op, args[0].node(), args[1].node()));
}

std::vector<double> values(const Array &a) { return a.astype(jx::float64).to_vector<double>(); }

class JvpOfOp : public ::testing::TestWithParam<int> {};

// jvp along each input in turn vs (f(x + h v) - f(x - h v)) / 2h, f evaluated in float64 at the
// same (rounded) points.
TEST_P(JvpOfOp, MatchesCentralDifferences) {
  const Op op = Op(GetParam());
  const int arity = op == Op::Select ? 2 : ir::op_info(op).arity;
  for (DType dtype : {jx::float32, jx::float64}) {
    SCOPED_TRACE(std::string(jx::dtype_name(dtype)));
    std::mt19937_64 rng(GetParam());
    std::vector<Array> primals, primals64;
    for (int i = 0; i < arity; ++i) {
      primals.push_back(jnp::array(points(op, i, rng)).astype(dtype));
      primals64.push_back(primals.back().astype(jx::float64));
    }
    if (op == Op::Max || op == Op::Min) // no ties: y = x ± [0.2, 1]
      primals[1] = (primals[0] +
                    jnp::where(primals[1] > 0.0, 1.0, -1.0) * (jnp::abs(primals[1]) * 0.4 + 0.2))
                       .astype(dtype),
      primals64[1] = primals[1].astype(jx::float64);
    for (int k = 0; k < arity; ++k) {
      SCOPED_TRACE("tangent of input " + std::to_string(k));
      std::vector<double> direction;
      std::uniform_real_distribution<double> unit(-1, 1);
      for (int64_t i = 0; i < n_points; ++i)
        direction.push_back(unit(rng));
      const Array v = jnp::array(direction);
      std::vector<Array> tangents;
      for (int i = 0; i < arity; ++i)
        tangents.push_back((i == k ? v : jnp::zeros({n_points})).astype(dtype));
      const auto [out, tangent] =
          jx::jvp([&](const std::vector<Array> &a) { return apply_op(op, a); }, primals, tangents);
      EXPECT_EQ(tangent.dtype(), dtype);
      const double h = 1e-5;
      std::vector<Array> up = primals64, down = primals64;
      up[k] = up[k] + v * h;
      down[k] = down[k] - v * h;
      const std::vector<double> got = values(tangent), hi = values(apply_op(op, up)),
                                lo = values(apply_op(op, down));
      const double tolerance = dtype == jx::float64 ? 1e-6 : 1e-3;
      for (int64_t i = 0; i < n_points; ++i) {
        const double fd = (hi[i] - lo[i]) / (2 * h);
        EXPECT_NEAR(got[i], fd, tolerance * (1 + std::abs(fd))) << "at point " << i;
      }
    }
  }
}

std::vector<int> differentiable_elementwise_ops() {
  std::vector<int> ops;
  for (int i = 0; i < ir::op_count; ++i) {
    const Op op = Op(i);
    // stop_gradient's derivative is zero by definition (Grad.StopGradient... tests it).
    if (!ir::is_elementwise(op) || test_util::integer_only(op) || op == Op::Convert ||
        op == Op::NextAfter || op == Op::StopGradient ||
        ir::op_info(op).dtype_rule == ir::DTypeRule::Bool)
      continue;
    ops.push_back(i);
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(Elementwise, JvpOfOp,
                         ::testing::ValuesIn(differentiable_elementwise_ops()),
                         [](const auto &info) { return std::string(ir::op_name(Op(info.param))); });

TEST(Jvp, ConvertBetweenFloatsConvertsTheTangent) {
  const Array x = jnp::array({1.5, -2.0}), v = jnp::array({0.25, 3.0});
  const auto [y, t] = jx::jvp([](const Array &a) { return a.astype(jx::float32); }, {x}, {v});
  EXPECT_EQ(t.dtype(), jx::float32);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0.25f, 3.0f}));
  const auto [z, u] = jx::jvp([](const Array &a) { return a.astype(jx::int32); }, {x}, {v});
  EXPECT_EQ(u.dtype(), jx::bool_); // float0: no tangent
  EXPECT_EQ(u.to_vector<bool>(), (std::vector<bool>{false, false}));
}

TEST(Jvp, NonFloatOutputsHaveBoolZeroTangents) {
  for (Op op : {Op::IsNan, Op::IsFinite, Op::SignBit, Op::Eq, Op::Lt, Op::Ge}) {
    const Array x = jnp::array({1.0, -2.0, 3.0});
    const auto [y, t] = jx::jvp(
        [&](const Array &a) {
          return ir::op_info(op).arity == 1 ? Array(ir::unary(op, a.node()))
                                            : Array(ir::binary(op, a.node(), (a * 0.5).node()));
        },
        {x}, {jnp::ones({3})});
    EXPECT_EQ(t.dtype(), jx::bool_) << ir::op_name(op);
    EXPECT_EQ(t.to_vector<bool>(), std::vector<bool>(3, false)) << ir::op_name(op);
  }
}

TEST(Jvp, JaxValuesAtKinks) {
  // abs'(0) = abs'(-0.0) = +1; max/min ties split the tangent; x ** 0 has derivative 0.
  const Array zeros = jnp::array({0.0, -0.0}), ones = jnp::ones({2});
  EXPECT_EQ(jx::jvp([](const Array &a) { return jnp::abs(a); }, {zeros}, {ones})
                .second.to_vector<double>(),
            (std::vector<double>{1, 1}));
  EXPECT_EQ(jx::jvp([](const Array &a, const Array &b) { return jnp::maximum(a, b); }, {ones, ones},
                    {ones, jnp::zeros({2})})
                .second.to_vector<double>(),
            (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(jx::jvp([](const Array &a) { return jnp::power(a, jnp::zeros({2})); }, {zeros}, {ones})
                .second.to_vector<double>(),
            (std::vector<double>{0, 0}));
}

TEST(Jvp, ConstantSubgraphsBuildNoTangentNodes) {
  const int64_t trace = ir::new_trace_id();
  const NodePtr p = ir::parameter(0, jx::float64, {3}, trace);
  const NodePtr tp = ir::parameter(1, jx::float64, {3}, trace);
  NodePtr k = jnp::arange(3.0).node();
  for (int i = 0; i < 50; ++i)
    k = ir::unary(Op::Sin, ir::binary(Op::Mul, k, k));
  const NodePtr y = ir::binary(Op::Mul, p, k);
  const size_t before = ir::live_node_count();
  const std::vector<NodePtr> ts = jx::transforms::jvp({k, y}, {p}, {tp});
  EXPECT_EQ(ts[0], nullptr);
  // mul's rule for its input 0 only; k's own 100 nodes have no tangent.
  EXPECT_EQ(ts[1], ir::binary(Op::Mul, tp, k));
  EXPECT_EQ(ir::live_node_count(), before + 1);
  // Through the public function: x + c has exactly the given tangent.
  const Array x = jnp::arange(3.0), v = jnp::ones({3});
  const auto [out, t] =
      jx::jvp([](const Array &a) { return a + jnp::exp(jnp::arange(3.0)); }, {x}, {v});
  EXPECT_EQ(t.node(), v.node());
}

TEST(Jvp, IntPrimalsTakeNoTangent) {
  const Array i = jnp::array({1.0, 2.0}).astype(jx::int32), x = jnp::array({3.0, 4.0});
  const auto [y, t] = jx::jvp([](const Array &a, const Array &b) { return a * b; }, {i, x},
                              {jnp::ones({2}).astype(jx::float32), jnp::ones({2})});
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 2}));
}

TEST(Jvp, ErrorsAreJaxs) {
  const Array x = jnp::ones({3});
  auto sin = [](const Array &a) { return jnp::sin(a); };
  expect_error<jx::TypeError>(
      [&] {
        jx::jvp(sin, {x}, {x, x});
      },
      "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
      "tree structure PyTreeDef([*]) whereas tangents have tree structure PyTreeDef([*, *]).");
  expect_error<jx::TypeError>(
      [&] { jx::jvp(sin, {x.astype(jx::float32)}, {x}); },
      "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of "
      "int/bool primal dtype the tangent dtype must be float0.Got primal dtype float32 and so "
      "expected tangent dtype float32, but got tangent dtype float64 instead.");
  expect_error<jx::ValueError>(
      [&] { jx::jvp(sin, {x}, {jnp::ones({4})}); },
      "jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent "
      "shape as (4,)");
  expect_error<jx::TypeError>(
      [&] {
        jx::jvp(sin, {x, x}, {x, x});
      },
      "the function takes 1 array arguments, but 2 primals were given");
  expect_error<jx::NotImplementedError>(
      [&] { jx::jvp([](const Array &a) { return jnp::nextafter(a, a * 2.0); }, {x}, {x}); },
      "Differentiation rule for 'nextafter' not implemented");
  // An op without a rule that no tangent reaches is a constant.
  const auto [y, t] = jx::jvp(
      [](const Array &a) { return a + jnp::sum(jnp::nextafter(jnp::arange(3.0), 9.0)); }, {x}, {x});
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 1, 1}));
}

std::vector<double> expected_derivative(const Array &x, const Array &v) {
  return ((jnp::cos(x) * x + jnp::sin(x)) * v).to_vector<double>();
}

TEST(Jvp, UnderJitOfAJittedFunctionAndOfItself) {
  const Array x = jnp::array({0.5, -1.0, 2.0}), v = jnp::array({1.0, 2.0, -0.5});
  auto f = [](const Array &a) { return jnp::sin(a) * a; };
  auto jitted =
      jx::jit([&](const Array &a, const Array &b) { return jx::jvp(f, {a}, {b}).second; });
  const std::vector<double> want = expected_derivative(x, v);
  auto near = [&](const std::vector<double> &got) {
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-12);
  };
  near(jitted(x, v).to_vector<double>());
  near(jx::jvp(jx::jit(f), {x}, {v}).second.to_vector<double>());
  // A closure over jit's parameter y is a constant: d(a * y)/da = y.
  auto scaled = jx::jit([](const Array &y) {
    return jx::jvp([&](const Array &a) { return a * y; }, {y}, {jnp::ones({3})}).second;
  });
  EXPECT_EQ(scaled(x).to_vector<double>(), x.to_vector<double>());
  // Second derivative of sin: jvp of jvp.
  const Array second =
      jx::jvp(
          [](const Array &a) {
            return jx::jvp([](const Array &b) { return jnp::sin(b); }, {a}, {jnp::ones({3})})
                .second;
          },
          {x}, {jnp::ones({3})})
          .second;
  const std::vector<double> got = second.to_vector<double>(), s = jnp::sin(x).to_vector<double>();
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(got[i], -s[i], 1e-12);
}

TEST(Jvp, SeveralOutputs) {
  const Array x = jnp::array({0.5, 2.0}), v = jnp::array({1.0, 3.0});
  const auto [outs, ts] =
      jx::jvp([](const Array &a) { return std::make_tuple(a * a, jnp::exp(a)); }, {x}, {v});
  const std::vector<double> dsq = std::get<0>(ts).to_vector<double>();
  EXPECT_EQ(dsq, (std::vector<double>{1.0, 12.0}));
  EXPECT_EQ(std::get<1>(ts).to_vector<double>(), (jnp::exp(x) * v).to_vector<double>());
}

} // namespace
