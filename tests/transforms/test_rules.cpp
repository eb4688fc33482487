// Every op of the op table, on a small example: its JVP builds, its tangent graph transposes
// (so JVP rules apply only linear ops to tangents), <ct, J t> = <J^T ct, t> holds for that
// transpose, and its batched form equals the op applied to each example. A new op without an
// example here fails to build (the switch has no default).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <random>

#include "integer_ops.h"
#include "ir/builder.h"
#include "transforms/batch.h"
#include "transforms/custom.h"
#include "transforms/jvp.h"
#include "transforms/substitute.h"
#include "transforms/transpose.h"

namespace {

namespace ir = jx::ir;
namespace jnp = jx::numpy;
using ir::NodePtr;
using ir::Op;
using jx::Array;

const jx::Shape kShape{2, 3};

// A dynamic slice's start: a 0-d int64 literal.
NodePtr start(int64_t v) { return ir::literal_int(v, jx::int64, false); }

// Integer literals as a graph node (take's and the scatters' indices).
NodePtr int_literals(const std::vector<int64_t> &values) { return jnp::array(values).node(); }

// op applied to float64 values of shape (2, 3): x in (0.3, 0.7), y in (1.2, 1.6) (domains of
// every op: acosh takes y). nullptr for leaves and ops with no float example.
NodePtr example(Op op, const NodePtr &x, const NodePtr &y) {
  switch (ir::op_kind(op)) {
  case ir::OpKind::Leaf: return nullptr;
  case ir::OpKind::Unary:
    if (test_util::integer_only(op)) return nullptr;
    if (op == Op::Convert) return ir::convert(x, jx::float32);
    // A complex value that is not a complex op (whose parts the builder reads off directly).
    if (op == Op::Real || op == Op::Imag)
      return ir::unary(op, ir::reshape(ir::complex(x, y), {3, 2}));
    return ir::unary(op, op == Op::Acosh ? y : x);
  case ir::OpKind::Binary:
    if (test_util::integer_only(op)) return nullptr;
    if (op == Op::Complex) return ir::imag(ir::reshape(ir::complex(y, x), {3, 2}));
    return ir::binary(op, x, y);
  case ir::OpKind::Ternary:
    if (op == Op::Fma) return ir::fma(x, y, ir::unary(Op::Sin, x));
    return ir::select(ir::binary(Op::Lt, x, ir::unary(Op::Sin, y)), x, y);
  case ir::OpKind::Movement:
  case ir::OpKind::Reduce:
  case ir::OpKind::Contraction:
  case ir::OpKind::Marker: break;
  case ir::OpKind::Control: return nullptr; // no derivative rules yet; vmap: tests/lax
  case ir::OpKind::Library:
    if (ir::is_scatter(op))
      return ir::scatter(op, x, int_literals({1, -3, 1, 7}),
                         ir::take(y, int_literals({0, 2, 1, 0}), 1, false), 1);
    if (op == Op::Sort) return ir::sort(x, 0);
    if (op == Op::ArgSort) return ir::argsort({x, y}, 1);
    if (op == Op::Fft) { // both parts of the complex result in a real array
      const NodePtr f = ir::fft(x, y, 1, false);
      return ir::binary(Op::Sub, ir::real(f), ir::imag(f));
    }
    if (ir::is_linalg(op)) {
      // A positive definite 2 x 2 from x (diagonally dominant); x itself as svd's and qr's matrix
      // and solve's b.
      const NodePtr sq = ir::slice(x, {0, 0}, {2, 2}, {1, 1});
      const NodePtr pd = ir::binary(Op::Add, ir::binary(Op::Add, sq, ir::transpose(sq, {1, 0})),
                                    (jnp::eye(2) * 4).node());
      if (op == Op::Solve) return ir::linalg(op, {pd, x});
      if (op == Op::Svd) return ir::linalg(op, {x}, 1);
      if (op == Op::Qr) return ir::linalg(op, {ir::transpose(x, {1, 0})}, 0); // 3 x 2: m >= n
      // A rotation-like matrix (complex eigenvalues), seen through its vectors' imaginary parts.
      if (op == Op::Eig)
        return ir::imag(
            ir::linalg(op,
                       {ir::binary(Op::Add, ir::binary(Op::Sub, sq, ir::transpose(sq, {1, 0})),
                                   jnp::eye(2).node())},
                       0));
      return ir::linalg(op, {pd}, op == Op::Determinant ? 1 : 0);
    }
    return ir::cumulative(op, x, 1, op == Op::CumMax);
  }
  switch (op) {
  case Op::Broadcast: return ir::broadcast(x, {4, 2, 3}, {1, 2});
  case Op::Reshape: return ir::reshape(x, {3, 2});
  case Op::Transpose: return ir::transpose(x, {1, 0});
  case Op::Slice: return ir::slice(x, {1, 2}, {2, -1}, {1, -2});
  case Op::Pad: return ir::pad(x, ir::reduce(Op::ReduceSum, y, {0, 1}), {1, 0}, {0, 2});
  case Op::Concatenate: return ir::concatenate({x, y, x}, 1);
  case Op::SliceUpdate:
    return ir::slice_update(x, ir::slice(y, {0, 0}, {2, 2}, {1, 1}), {0, 1}, {2, 3}, {1, 1});
  case Op::Diagonal: return ir::diagonal(ir::slice(x, {0, 0}, {2, 2}, {1, 1}), 1, 0);
  case Op::Take: return ir::take(x, int_literals({2, -1, 0, 2, 5}), 1, false);
  case Op::DynamicSlice: // starts (1, 7): the second clamps to 1
    return ir::dynamic_slice(x, {start(1), start(7)}, {1, 2});
  case Op::DynamicUpdateSlice:
    return ir::dynamic_update_slice(x, ir::slice(y, {0, 0}, {1, 2}, {1, 1}), {start(0), start(7)});
  case Op::ReduceSum:
  case Op::ReduceProd:
  case Op::ReduceMax:
  case Op::ReduceMin: return ir::reduce(op, x, {1});
  case Op::ArgMax:
  case Op::ArgMin: return ir::arg_reduce(op, x, 0);
  case Op::DotGeneral: return ir::dot_general(x, y, {}, {}, {1}, {1});
  case Op::CustomJvp: {
    // x * y with its rule given: t_x y + x t_y.
    static const int64_t rule = jx::transforms::register_jvp_rule(
        [](const std::vector<NodePtr> &p, const std::vector<NodePtr> &t) {
          return ir::binary(Op::Add, ir::binary(Op::Mul, t[0], p[1]),
                            ir::binary(Op::Mul, p[0], t[1]));
        });
    return jx::transforms::custom_jvp_node(rule, ir::binary(Op::Mul, x, y), {x, y});
  }
  case Op::CustomVjp: {
    // x * y with its bwd given: (ct y, ct x), from residuals x and y.
    static const int64_t rule =
        jx::transforms::register_vjp_rule([](const std::vector<NodePtr> &res, const NodePtr &ct) {
          return std::vector{ir::binary(Op::Mul, ct, res[1]), ir::binary(Op::Mul, ct, res[0])};
        });
    return jx::transforms::custom_vjp_node(rule, ir::binary(Op::Mul, x, y), {x, y}, {x, y});
  }
  case Op::CustomLin: return nullptr; // custom_vjp's tangent: its example transposes one
  default: ADD_FAILURE() << "no example for " << ir::op_name(op); return nullptr;
  }
}

Array random_values(double lo, double hi, std::mt19937_64 &rng, const jx::Shape &shape = kShape) {
  std::vector<double> v;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(std::uniform_real_distribution(lo, hi)(rng));
  return jnp::array(v, shape);
}

double inner(const Array &a, const Array &b) { return jnp::sum(a * b).item<double>(); }

// Batched and unbatched contractions and reductions may round differently.
void expect_close(const Array &actual, const Array &expected) {
  const std::vector<double> a = actual.to_vector<double>(), e = expected.to_vector<double>();
  ASSERT_EQ(a.size(), e.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], e[i], 1e-14 * (1 + std::abs(e[i])));
}

TEST(Rules, EveryOpDifferentiatesTransposesAndBatches) {
  std::mt19937_64 rng(11);
  const NodePtr px = ir::parameter(0, jx::float64, kShape, 0),
                py = ir::parameter(1, jx::float64, kShape, 0);
  const NodePtr tx = ir::parameter(2, jx::float64, kShape, 0),
                ty = ir::parameter(3, jx::float64, kShape, 0);
  const Array x = random_values(0.3, 0.7, rng), y = random_values(1.2, 1.6, rng);
  const Array vx = random_values(-1, 1, rng), vy = random_values(-1, 1, rng);
  int transposed = 0, batched = 0;
  for (int i = 0; i < ir::op_count; ++i) {
    const Op op = Op(i);
    SCOPED_TRACE(std::string(ir::op_name(op)));
    const NodePtr n = example(op, px, py);
    if (!n) continue;
    const jx::transforms::Substitution values{
        {px.get(), x.node()}, {py.get(), y.node()}, {tx.get(), vx.node()}, {ty.get(), vy.node()}};
    auto eval = [&](const NodePtr &node) {
      return Array(jx::transforms::substitute({node}, values)[0]);
    };
    // No derivative rules yet: JAX derives these through gathers, and the factorizations by their
    // own rules.
    if (op == Op::NextAfter || op == Op::ScatterMul ||
        op == Op::Eig) { // scatter_mul: in its updates (not unique)
      EXPECT_THROW(jx::transforms::jvp({n}, {px, py}, {tx, ty}), jx::NotImplementedError);
    } else {
      const NodePtr t = jx::transforms::jvp({n}, {px, py}, {tx, ty})[0];
      if (t) {
        const NodePtr ct = ir::parameter(4, n->dtype, n->shape, 0);
        const std::vector<NodePtr> cts = jx::transforms::transpose({t}, {tx, ty}, {ct});
        const Array ct_value = random_values(-1, 1, rng, n->shape).astype(n->dtype);
        jx::transforms::Substitution with_ct = values;
        with_ct.emplace(ct.get(), ct_value.node());
        double rhs = 0;
        for (size_t k = 0; k < 2; ++k)
          if (cts[k])
            rhs += inner(Array(jx::transforms::substitute({cts[k]}, with_ct)[0]), k ? vy : vx);
        // A custom_vjp's tangent has no value (forward mode): its function's, t_x y + x t_y.
        const NodePtr forward =
            op == Op::CustomVjp
                ? ir::binary(Op::Add, ir::binary(Op::Mul, tx, py), ir::binary(Op::Mul, px, ty))
                : t;
        const double lhs = inner(ct_value.astype(jx::float64), eval(forward).astype(jx::float64));
        EXPECT_NEAR(lhs, rhs, (n->dtype == jx::float32 ? 1e-5 : 1e-12) * (1 + std::abs(lhs)));
        ++transposed;
      }
    }
    // Batched over x: two examples, the second x * 0.5 + 0.1.
    const Array second = x * 0.5 + 0.1;
    const NodePtr bx = ir::parameter(5, jx::float64, {2, 2, 3}, 0);
    const jx::transforms::BatchedOutput b = jx::transforms::batch({n}, {px}, {bx}, 2)[0];
    if (!b.batched) continue; // acosh reads y only
    jx::transforms::Substitution stacked = values;
    stacked.emplace(bx.get(), jnp::stack({x, second}).node());
    const Array rows = Array(jx::transforms::substitute({b.node}, stacked)[0]);
    jx::transforms::Substitution at_second = values;
    at_second[px.get()] = second.node();
    const Array one = Array(jx::transforms::substitute({n}, at_second)[0]);
    expect_close(rows(0), eval(n));
    expect_close(rows(1), one);
    ++batched;
  }
  EXPECT_GE(transposed, 50);
  EXPECT_GE(batched, 60);
}

} // namespace
