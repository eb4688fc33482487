// simplify: exact identities bit for bit, power rewrites within their documented error, special
// values (NaN, infinities, signed zeros, negative bases) exactly, and what is left alone.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "interp/dispatch.h"
#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/passes.h"

using namespace jx;
using namespace jx::ir;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// Bases covering every branch of pow: infinities, NaN, signed zeros, negatives, subnormals, huge.
const std::vector<double> special = {-inf, -1e300, -2.5, -1, -0.5,  -0.0, 0.0, 1e-310,
                                     0.5,  1,      2.5,  3,  1e300, inf,  qnan};

template <class T> NodePtr vec(std::vector<T> v) {
  auto buf = runtime::make_buffer(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i)
    buf->template as<T>()[i] = v[i];
  return constant(buf, dtype_of_v<T>, {int64_t(v.size())});
}

NodePtr lit(double v, DType dtype = DType::float64, bool weak = false) {
  return literal(v, dtype, weak);
}
NodePtr fill_like(double v, const NodePtr &x, bool weak = false) {
  return broadcast(literal(v, x->dtype, weak), x->shape, {});
}

NodePtr simp(const NodePtr &root) { return passes::simplify({root})[0]; }

int count(const NodePtr &root, Op op) {
  int n = 0;
  for (const Node *x : topological_order({root}))
    n += x->op == op;
  return n;
}

template <class T> std::vector<T> eval(const NodePtr &n) {
  EXPECT_EQ(n->dtype, dtype_of_v<T>);
  runtime::BufferPtr b = interp::evaluate({n})[0];
  return std::vector<T>(b->as<T>(), b->as<T>() + n->size());
}

template <class T> bool same_bits(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

using pass_test::expect_identical;

// Rewritten vs original power: zeros, infinities and NaNs bit for bit; finite nonzero values
// within rel (relative), with an absolute slack of a few subnormal steps.
template <class T> void expect_close(const NodePtr &out, const NodePtr &orig, double rel) {
  ASSERT_EQ(out->dtype, orig->dtype);
  ASSERT_EQ(out->shape, orig->shape);
  EXPECT_EQ(out->weak, orig->weak);
  std::vector<T> a = eval<T>(out), b = eval<T>(orig);
  for (size_t i = 0; i < a.size(); ++i) {
    if (b[i] == 0 || !std::isfinite(b[i])) {
      EXPECT_TRUE(same_bits(a[i], b[i])) << "element " << i << ": " << a[i] << " vs " << b[i];
    } else {
      double tol = rel * std::fabs(double(b[i])) + 4 * double(std::numeric_limits<T>::denorm_min());
      EXPECT_NEAR(double(a[i]), double(b[i]), tol) << "element " << i;
    }
  }
}

int multiplications(int64_t k) {
  return std::popcount(uint64_t(k)) - 1 + std::bit_width(uint64_t(k)) - 1;
}

} // namespace

TEST(Simplify, ExactIdentities) {
  NodePtr x = vec(special);
  const NodePtr rewritten[] = {
      binary(Op::Mul, x, fill_like(1, x)),    binary(Op::Mul, fill_like(1, x), x),
      binary(Op::Div, x, fill_like(1, x)),    binary(Op::Sub, x, fill_like(0.0, x)),
      binary(Op::Add, x, fill_like(-0.0, x)), binary(Op::Add, fill_like(-0.0, x), x),
  };
  for (const NodePtr &r : rewritten) {
    EXPECT_EQ(simp(r), x) << print_graph(r);
    expect_identical(r, x); // the rewrite is exact: the original computes x bit for bit
  }
}

TEST(Simplify, InexactIdentitiesLeftAlone) {
  NodePtr x = vec(special);
  // x + 0.0 is +0.0 for x = -0.0; x - (-0.0) is x + 0.0; 0.0 - x is +0.0 for x = +0.0.
  NodePtr plus_zero = binary(Op::Add, x, fill_like(0.0, x));
  const NodePtr kept[] = {
      plus_zero,
      binary(Op::Add, fill_like(0.0, x), x),
      binary(Op::Sub, x, fill_like(-0.0, x)),
      binary(Op::Sub, fill_like(0.0, x), x),
      binary(Op::Div, fill_like(1, x), x),
      binary(Op::Mul, x, fill_like(-1, x)),
      binary(Op::Mul, x, fill_like(2, x)),
      binary(Op::Max, x, x),
  };
  for (const NodePtr &r : kept)
    EXPECT_EQ(simp(r), r) << print_graph(r);
  // Why x + 0.0 must stay: it turns -0.0 into +0.0.
  std::vector<double> v = eval<double>(plus_zero);
  ASSERT_EQ(special[5], 0.0);
  ASSERT_TRUE(std::signbit(special[5]));
  EXPECT_FALSE(std::signbit(v[5]));
}

TEST(Simplify, IntegerAndBoolIdentities) {
  for (NodePtr x : {vec<int64_t>({INT64_MIN, -3, 0, 7, INT64_MAX}),
                    vec<int32_t>({INT32_MIN, -3, 0, 7, INT32_MAX})}) {
    for (const NodePtr &r :
         {binary(Op::Add, x, fill_like(0, x)), binary(Op::Add, fill_like(0, x), x),
          binary(Op::Sub, x, fill_like(0, x)), binary(Op::Mul, x, fill_like(1, x)),
          binary(Op::Mul, fill_like(1, x), x)}) {
      EXPECT_EQ(simp(r), x) << print_graph(r);
      expect_identical(r, x);
    }
    NodePtr kept = binary(Op::Sub, fill_like(0, x), x);
    EXPECT_EQ(simp(kept), kept);
  }
  NodePtr b = vec<bool>({true, false, true});
  // bool add is or, bool mul is and.
  for (const NodePtr &r :
       {binary(Op::Add, b, fill_like(0, b)), binary(Op::Mul, fill_like(1, b), b)}) {
    EXPECT_EQ(simp(r), b) << print_graph(r);
    expect_identical(r, b);
  }
  NodePtr or_true = binary(Op::Add, b, fill_like(1, b));
  EXPECT_EQ(simp(or_true), or_true);
}

TEST(Simplify, ScalarLiteralsAndMovedLiterals) {
  // 0-d operands, and a literal under reshape/transpose, count as the literal.
  NodePtr s = unary(Op::Exp, lit(0.25));
  EXPECT_EQ(simp(binary(Op::Mul, s, lit(1))), s);
  NodePtr x = broadcast(vec<double>({1, 2, 3}), {2, 3}, {1});
  NodePtr one = transpose(reshape(broadcast(lit(1), {6}, {}), {3, 2}), {1, 0});
  EXPECT_EQ(simp(binary(Op::Mul, x, one)), x);
}

TEST(Simplify, WeakFlagNeverChanges) {
  NodePtr weak_x = convert(vec<float>({1, 2}), DType::float64, true);
  ASSERT_TRUE(weak_x->weak);
  // weak * strong is strong: returning weak x would change the type.
  NodePtr strong = binary(Op::Mul, weak_x, fill_like(1, weak_x, false));
  EXPECT_FALSE(strong->weak);
  EXPECT_EQ(simp(strong), strong);
  NodePtr weak = binary(Op::Mul, weak_x, fill_like(1, weak_x, true));
  EXPECT_EQ(simp(weak), weak_x);
  NodePtr pow_strong = binary(Op::Pow, weak_x, fill_like(1, weak_x, false));
  EXPECT_EQ(simp(pow_strong), pow_strong);
  NodePtr pow_weak = binary(Op::Pow, weak_x, fill_like(2, weak_x, true));
  NodePtr out = simp(pow_weak);
  EXPECT_EQ(out->op, Op::Mul);
  EXPECT_TRUE(out->weak);
}

TEST(Simplify, Select) {
  NodePtr a = vec<double>({1, 2}), b = vec<double>({3, 4});
  NodePtr p = vec<bool>({true, false});
  EXPECT_EQ(simp(select(fill_like(1, p), a, b)), a);
  EXPECT_EQ(simp(select(fill_like(0, p), a, b)), b);
  for (const NodePtr &kept : {select(p, a, b), select(p, a, a)})
    EXPECT_EQ(simp(kept), kept);
}

TEST(Simplify, TieTestsOfMaxAndMinReadTheOperands) {
  // Every pair of special values: NaN on either side, signed zeros, infinities.
  std::vector<double> xs, ys;
  for (double p : special)
    for (double q : special) {
      xs.push_back(p);
      ys.push_back(q);
    }
  NodePtr x = vec(xs), y = vec(ys);
  const std::pair<Op, Op> cases[] = {{Op::Max, Op::Ge}, {Op::Min, Op::Le}};
  for (const auto &[extreme, order] : cases) {
    NodePtr e = binary(extreme, x, y), swapped = binary(extreme, y, x);
    for (const NodePtr &r : {binary(Op::Eq, x, e), binary(Op::Eq, e, x), binary(Op::Eq, x, swapped),
                             binary(Op::Eq, swapped, x)}) {
      NodePtr out = simp(r);
      EXPECT_EQ(out->op, order) << print_graph(r);
      EXPECT_EQ(count(out, extreme), 0);
      expect_identical(out, r);
    }
    for (NodePtr i : {vec<int64_t>({INT64_MIN, -3, 0, 7}), vec<bool>({true, false, true, false})}) {
      NodePtr j = vec<int64_t>({0, -3, 1, INT64_MAX});
      if (i->dtype == DType::bool_) j = vec<bool>({true, true, false, false});
      NodePtr r = binary(Op::Eq, binary(extreme, i, j), i);
      EXPECT_EQ(simp(r)->op, order);
      expect_identical(simp(r), r);
    }
  }
  // Another value against the extreme stays.
  NodePtr kept = binary(Op::Eq, y, binary(Op::Max, x, vec(xs)));
  EXPECT_EQ(simp(kept), kept);
}

TEST(Simplify, PowerZeroAndOne) {
  NodePtr x = vec(special);
  for (double zero : {0.0, -0.0}) {
    NodePtr root = binary(Op::Pow, x, fill_like(zero, x));
    NodePtr out = simp(root);
    EXPECT_EQ(print_graph(out), "%0 = literal(1) : f64[]\n"
                                "%1 = broadcast(%0, dims=[]) : f64[15]\n");
    expect_identical(out, root); // qnan**0 == 0**0 == inf**0 == 1
  }
  NodePtr one = binary(Op::Pow, x, fill_like(1, x));
  EXPECT_EQ(simp(one), x);
  expect_identical(one, x);
}

TEST(Simplify, PowerSmallIntegersBecomeMultiplications) {
  NodePtr x = vec(special);
  for (int64_t k = 2; k <= 16; ++k) {
    SCOPED_TRACE(k);
    NodePtr root = binary(Op::Pow, x, fill_like(double(k), x));
    NodePtr out = simp(root);
    EXPECT_EQ(count(out, Op::Pow), 0);
    EXPECT_EQ(count(out, Op::Mul), multiplications(k)) << print_graph(out);
    // (k - 1) roundings of the chain plus libm pow's own (< 1 ulp).
    expect_close<double>(out, root, double(k) * 0x1p-53);
  }
  // Signs of zeros and infinities through the chain: (-0)^3 = -0, (-0)^2 = +0, (-inf)^3 = -inf.
  std::vector<double> cube = eval<double>(simp(binary(Op::Pow, x, fill_like(3, x))));
  EXPECT_TRUE(std::signbit(cube[5]) && cube[5] == 0);
  EXPECT_EQ(cube[0], -inf);
  EXPECT_EQ(print_graph(simp(binary(Op::Pow, x, fill_like(2, x)))),
            "%0 = constant(<120 bytes>) : f64[15]\n"
            "%1 = mul(%0, %0) : f64[15]\n");
}

TEST(Simplify, PowerMinusOneAndHalf) {
  NodePtr x = vec(special);
  NodePtr inv_root = binary(Op::Pow, x, fill_like(-1, x));
  NodePtr inv = simp(inv_root);
  EXPECT_EQ(inv->op, Op::Div);
  expect_close<double>(inv, inv_root, 0x1p-52); // ±0 -> ±inf and ±inf -> ±0 exactly

  NodePtr sqrt_root = binary(Op::Pow, x, fill_like(0.5, x));
  NodePtr sq = simp(sqrt_root);
  EXPECT_EQ(count(sq, Op::Pow), 0);
  EXPECT_EQ(count(sq, Op::Sqrt), 1);
  expect_close<double>(sq, sqrt_root, 0x1p-52);
  std::vector<double> v = eval<double>(sq);
  EXPECT_EQ(v[0], inf);             // pow(-inf, 0.5) = +inf, sqrt gives NaN
  EXPECT_FALSE(std::signbit(v[5])); // pow(-0.0, 0.5) = +0.0, sqrt gives -0.0
  EXPECT_TRUE(std::isnan(v[2]));    // negative base
}

TEST(Simplify, HalfIntegerPowersAreSquareRoots) {
  NodePtr x = vec(special);
  for (double c : {-0.5, 1.5, -1.5}) {
    SCOPED_TRACE(c);
    NodePtr root = binary(Op::Pow, x, fill_like(c, x));
    NodePtr out = simp(root);
    EXPECT_EQ(count(out, Op::Pow), 0);
    EXPECT_EQ(count(out, Op::Sqrt), 1);
    // Zeros and infinities bit for bit: pow(-0.0, -0.5) = +inf, pow(-inf, 1.5) = +inf,
    // pow(-inf, -1.5) = +0; pow(1e-310, -1.5) overflows as it should.
    expect_close<double>(out, root, 0x1p-51);
  }
}

TEST(Simplify, PowerFloat32) {
  NodePtr x =
      vec<float>({-INFINITY, -2.5f, -0.0f, 0.0f, 1e-40f, 0.3f, 1.5f, 7.0f, 1e30f, INFINITY, NAN});
  for (double c : {0.0, 1.0, 2.0, 3.0, 16.0, -1.0, 0.5, -0.5, 1.5, -1.5}) {
    SCOPED_TRACE(c);
    NodePtr root = binary(Op::Pow, x, fill_like(c, x));
    NodePtr out = simp(root);
    EXPECT_EQ(count(out, Op::Pow), 0);
    EXPECT_EQ(out->dtype, DType::float32);
    expect_close<float>(out, root, (std::fabs(c) + 1) * 0x1p-23);
  }
}

TEST(Simplify, IntegerPowers) {
  std::vector<int64_t> base = {-3, -2, -1, 0, 1, 2, 3, 7, 1 << 20, INT64_MAX, INT64_MIN};
  std::vector<int32_t> base32 = {-3, -2, -1, 0, 1, 2, 3, 7, 1 << 20, INT32_MAX, INT32_MIN};
  for (NodePtr x : {vec(base), vec(base32)}) {
    for (int64_t k = 0; k <= 16; ++k) {
      SCOPED_TRACE(k);
      NodePtr root = binary(Op::Pow, x, fill_like(double(k), x));
      NodePtr out = simp(root);
      EXPECT_EQ(count(out, Op::Pow), 0) << print_graph(out);
      expect_identical(out, root); // wrapping products are exact
    }
    for (double k : {17.0, -1.0, -2.0}) {
      NodePtr kept = binary(Op::Pow, x, fill_like(k, x));
      EXPECT_EQ(simp(kept), kept);
    }
  }
  NodePtr b = vec<bool>({true, false});
  NodePtr bool_pow = binary(Op::Pow, b, fill_like(1, b));
  EXPECT_EQ(simp(bool_pow), bool_pow);
}

TEST(Simplify, OtherLiteralExponentsLeftAlone) {
  NodePtr x = vec(special);
  for (double c : {0.3, -2.5, 2.5, -2.0, 17.0, 1e10, inf, -inf, qnan}) {
    NodePtr root = binary(Op::Pow, x, fill_like(c, x));
    EXPECT_EQ(simp(root), root) << c;
  }
  // A broadcast base with a literal exponent: nothing to share, left as pow.
  NodePtr bx = broadcast(x, {3, 15}, {1});
  NodePtr root = binary(Op::Pow, bx, fill_like(0.3, bx));
  EXPECT_EQ(simp(root), root);
}

namespace {

// pow(x[None, :], c[:, None]): the Simpson seed's shape of power.
NodePtr broadcast_power(const NodePtr &x, const NodePtr &c) {
  Shape s = {c->shape[0], x->shape[0]};
  return binary(Op::Pow, broadcast(x, s, {1}), broadcast(c, s, {0}));
}

} // namespace

// Ops of each kind in the graph of root.
std::map<Op, int> op_counts(const NodePtr &root) {
  std::map<Op, int> counts;
  for (const jx::ir::Node *n : jx::ir::topological_order({root}))
    ++counts[n->op];
  return counts;
}

TEST(Simplify, BroadcastPowerBecomesExpLog) {
  NodePtr root = broadcast_power(vec<double>({0.5, 2}), vec<double>({0.1, 0.2, 0.3}));
  NodePtr out = simp(root);
  std::map<Op, int> counts = op_counts(out);
  EXPECT_EQ(counts[Op::Pow], 0) << print_graph(out); // no pow call left to block vectorization
  EXPECT_EQ(counts[Op::Log], 1);
  EXPECT_EQ(counts[Op::Exp], 1);
  EXPECT_EQ(out->op, Op::Select);
  // Idempotent, before and after sink_movement, which moves log below the broadcast.
  EXPECT_EQ(simp(out), out);
  NodePtr sunk = passes::sink_movement({out})[0];
  EXPECT_NE(sunk, out);
  EXPECT_EQ(simp(sunk), sunk);
  bool log_of_base = false;
  for (const jx::ir::Node *n : jx::ir::topological_order({sunk}))
    log_of_base = log_of_base || (n->op == Op::Log && n->shape == Shape{2});
  EXPECT_TRUE(log_of_base) << print_graph(sunk);
}

TEST(Simplify, ExpLogAccuracyOnSimpsonDomain) {
  // x in [0.05, 10.05], c = i / 10 for i < 200: within 1e-13 of std::pow, and within the
  // documented (2 |c log x| + 1) * 2^-53 (with one ulp of slack for pow's own rounding).
  std::vector<double> xs, cs;
  for (int i = 0; i <= 1000; ++i)
    xs.push_back(0.05 + 10.0 * i / 1000);
  for (int i = 0; i < 200; ++i)
    cs.push_back(i / 10.);
  NodePtr out = simp(broadcast_power(vec(xs), vec(cs)));
  ASSERT_EQ(out->op, Op::Select);
  std::vector<double> v = eval<double>(out);
  double worst = 0;
  for (size_t i = 0; i < cs.size(); ++i)
    for (size_t j = 0; j < xs.size(); ++j) {
      double want = std::pow(xs[j], cs[i]), got = v[i * xs.size() + j];
      double rel = std::fabs(got - want) / want;
      worst = std::max(worst, rel);
      double bound = (2 * std::fabs(cs[i] * std::log(xs[j])) + 2) * 0x1p-53;
      ASSERT_LE(rel, bound) << xs[j] << " ** " << cs[i];
    }
  EXPECT_LT(worst, 1e-13);
}

TEST(Simplify, ExpLogSpecialCasesMatchPow) {
  std::vector<double> cs = {-inf, -3, -2.5, -1, -0.0, 0.0, 0.5, 1, 2, 2.5, 3, inf, qnan};
  NodePtr x = vec(special), c = vec(cs);
  NodePtr root = broadcast_power(x, c);
  NodePtr out = simp(root);
  ASSERT_EQ(out->op, Op::Select);
  std::vector<double> got = eval<double>(out), want = eval<double>(root);
  for (size_t i = 0; i < cs.size(); ++i)
    for (size_t j = 0; j < special.size(); ++j) {
      double xv = special[j], cv = cs[i], g = got[i * special.size() + j],
             w = want[i * special.size() + j];
      EXPECT_TRUE(same_bits(w, std::pow(xv, cv)));
      // Zeros (with their signs), infinities, NaN and +-1 exactly; the rest within the bound.
      if (w == 0 || std::isinf(w) || std::isnan(w) || std::fabs(w) == 1) {
        EXPECT_TRUE(same_bits(g, w)) << xv << " ** " << cv << ": " << g << " vs " << w;
      } else {
        double bound = (2 * std::fabs(cv * std::log(std::fabs(xv))) + 2) * 0x1p-53 * std::fabs(w);
        EXPECT_NEAR(g, w, bound + 4 * std::numeric_limits<double>::denorm_min())
            << xv << " ** " << cv;
      }
    }
}

TEST(Simplify, ExpLogFloat32ComputesInFloat64) {
  NodePtr x = vec<float>({0.05f, 0.5f, 1.0f, 3.0f, 10.05f, -2.0f, 0.0f, -0.0f, INFINITY, NAN});
  NodePtr c = vec<float>({0.1f, 1.7f, 19.9f, -3.0f, 2.0f});
  NodePtr root = broadcast_power(x, c);
  NodePtr out = simp(root);
  ASSERT_EQ(out->op, Op::Select);
  EXPECT_EQ(out->dtype, DType::float32);
  bool exp_in_f64 = false;
  for (const jx::ir::Node *n : jx::ir::topological_order({out}))
    exp_in_f64 = exp_in_f64 || (n->op == Op::Exp && n->dtype == DType::float64);
  EXPECT_TRUE(exp_in_f64);
  expect_close<float>(out, root, 0x1p-23);
}

TEST(Simplify, NonBroadcastPowersLeftAlone) {
  NodePtr x = vec<double>({0.5, 2, 3}), c = vec<double>({1.5, 2.5, 0.1});
  NodePtr plain = binary(Op::Pow, x, c);
  EXPECT_EQ(simp(plain), plain);
}

TEST(Simplify, StackedLiteralsWaitForStackToBroadcast) {
  // stack([x**c * exp(x) for c in cs]): the powers differ only in c, so simplify leaves them for
  // stack_to_broadcast instead of rewriting each by its value.
  NodePtr x = vec<double>({0.5, 1.5, 2.5});
  std::vector<NodePtr> terms;
  for (double c : {0.0, 1.0, 2.0, 0.5, 3.0})
    terms.push_back(
        reshape(binary(Op::Mul, binary(Op::Pow, x, fill_like(c, x)), unary(Op::Exp, x)), {1, 3}));
  NodePtr stack = concatenate(terms, 0);
  NodePtr out = simp(stack);
  EXPECT_EQ(out, stack);
  NodePtr merged = passes::stack_to_broadcast({out})[0];
  EXPECT_EQ(count(merged, Op::Concatenate), 0);
  EXPECT_EQ(count(merged, Op::Pow), 1);
  expect_identical(merged, stack);

  // One differing operand: no stack to wait for, so the powers are rewritten.
  terms.back() = reshape(unary(Op::Log, x), {1, 3});
  NodePtr mixed = concatenate(terms, 0);
  NodePtr mixed_out = simp(mixed);
  EXPECT_EQ(count(mixed_out, Op::Pow), 0) << print_graph(mixed_out);
  expect_close<double>(mixed_out, mixed, 4 * 0x1p-53);
}

TEST(Simplify, StackedBroadcastPowers) {
  // pow(broadcast x, c) is left for stack_to_broadcast (and would sink whole anyway); once merged,
  // the exponent is a vector along the stack axis and the power takes the exp/log form.
  NodePtr x = vec<double>({0.05, 0.5, 2.5, 10.05, 0.0, -1.0});
  NodePtr bx = broadcast(x, {2, 6}, {1});
  std::vector<NodePtr> terms;
  for (double c : {0.0, 1.0, 2.0, 0.5, 1.7})
    terms.push_back(reshape(binary(Op::Pow, bx, fill_like(c, bx)), {2, 1, 6}));
  NodePtr stack = concatenate(terms, 1);
  EXPECT_EQ(simp(stack), stack);
  NodePtr merged = passes::stack_to_broadcast({stack})[0];
  EXPECT_EQ(count(merged, Op::Concatenate), 0) << print_graph(merged);
  NodePtr out = simp(merged);
  EXPECT_EQ(count(out, Op::Exp), 1) << print_graph(out);
  expect_close<double>(out, stack, 4e-15);
}

TEST(Simplify, PowersThatSinkWholeLeftAlone) {
  NodePtr x = vec<double>({0.5, 2}), e = vec<double>({1.5, 0.1});
  Shape s = {3, 2};
  NodePtr same_dims = binary(Op::Pow, broadcast(x, s, {1}), broadcast(e, s, {1}));
  EXPECT_EQ(simp(same_dims), same_dims);
  NodePtr scalar = reduce(Op::ReduceSum, e, {0});
  NodePtr scalar_exponent = binary(Op::Pow, broadcast(x, s, {1}), broadcast(scalar, s, {}));
  EXPECT_EQ(simp(scalar_exponent), scalar_exponent);
}

TEST(Simplify, RealizedNodesLeftAlone) {
  NodePtr x = vec<double>({1, 2});
  NodePtr root = binary(Op::Pow, x, fill_like(2, x));
  root->set_realized(interp::evaluate({root})[0]);
  EXPECT_EQ(simp(root), root);
  root->set_realized(nullptr);
}
