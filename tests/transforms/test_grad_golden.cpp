// jx::jvp against JAX's jax.jvp at special points (0, -0.0, ties, infinities, nan, domain edges):
// tests/golden/grad_golden.inc, written by tests/golden/make_grad_golden.py, whose functions have
// twins of the same name below. Primal and tangent must match bit for bit (nan matches nan), or
// within the ulps of ops.def's lines for the math functions that the primal or the rule calls
// (JAX's are XLA's, jx's libm's).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "golden/grad_golden.inc"
#include "ir/builder.h"
#include "test_util.h"

namespace {

using test_util::ulp_distance;

namespace jnp = jx::numpy;
namespace ir = jx::ir;
using ir::Op;
using jx::Array;

using Fn = std::function<Array(const std::vector<Array> &)>;

int ulps(Op op) { return ir::op_info(op).ulps; }

struct Twin {
  Fn fn;
  int primal_ulps = 0;  // of the primal's math function
  int tangent_ulps = 0; // of those the rule calls
  // A rule computing 1 - ans or ans + 1 where ans is near -1 or 1 turns the primal's ulps into an
  // absolute error of the tangent: this many eps * |t|.
  int tangent_eps = 0;
  // jx's primal op returns the other zero than XLA's at some points (said at the twin): zero
  // primals compare as values there.
  bool primal_zero_sign_differs = false;
};

// JAX's rules of asin, acos, asinh, acosh multiply by rsqrt, which XLA rounds once; jx divides by
// sqrt (no rsqrt op), rounding twice.
constexpr int rsqrt_ulps = 1;

Fn unary(Array (*f)(const Array &)) {
  return [f](const std::vector<Array> &a) { return f(a[0]); };
}
Fn binary(Array (*f)(const Array &, const Array &)) {
  return [f](const std::vector<Array> &a) { return f(a[0], a[1]); };
}
Fn power_of(double y) {
  return [y](const std::vector<Array> &a) { return jnp::power(a[0], y); };
}
Fn power_of_int(int y) {
  return [y](const std::vector<Array> &a) { return jnp::power(a[0], y); };
}

// The C++ twin of each function of make_grad_golden.py.
const std::map<std::string, Twin> &twins() {
  static const std::map<std::string, Twin> table = {
      {"negative", {unary(jnp::negative)}},
      {"abs", {unary(jnp::abs)}},
      {"sign", {unary(jnp::sign), 0, 0, 0, true}}, // jx: sign(-0.0) = +0
      {"exp", {unary(jnp::exp), ulps(Op::Exp), ulps(Op::Exp)}},
      {"expm1", {unary(jnp::expm1), ulps(Op::Expm1), ulps(Op::Expm1), ulps(Op::Expm1)}},
      {"log", {unary(jnp::log), ulps(Op::Log)}},
      {"log1p", {unary(jnp::log1p), ulps(Op::Log1p)}},
      {"sqrt", {unary(jnp::sqrt)}},
      {"sin", {unary(jnp::sin), ulps(Op::Sin), ulps(Op::Cos)}},
      {"cos", {unary(jnp::cos), ulps(Op::Cos), ulps(Op::Sin)}},
      {"tan", {unary(jnp::tan), ulps(Op::Tan), 2 * ulps(Op::Tan)}},
      {"tanh", {unary(jnp::tanh), ulps(Op::Tanh), 2 * ulps(Op::Tanh), 2 * ulps(Op::Tanh)}},
      {"floor", {unary(jnp::floor)}},
      {"ceil", {unary(jnp::ceil)}},
      {"erf_inv",
       {[](const std::vector<Array> &a) { return Array(ir::unary(Op::ErfInv, a[0].node())); },
        ulps(Op::ErfInv), 2 * ulps(Op::ErfInv) + ulps(Op::Exp)}},
      {"sinh", {unary(jnp::sinh), ulps(Op::Sinh), ulps(Op::Cosh)}},
      {"cosh", {unary(jnp::cosh), ulps(Op::Cosh), ulps(Op::Sinh)}},
      {"arcsin", {unary(jnp::arcsin), ulps(Op::Asin), rsqrt_ulps}},
      {"arccos", {unary(jnp::arccos), ulps(Op::Acos), rsqrt_ulps}},
      {"arctan", {unary(jnp::arctan), ulps(Op::Atan)}},
      {"arcsinh", {unary(jnp::arcsinh), ulps(Op::Asinh), rsqrt_ulps}},
      {"arccosh", {unary(jnp::arccosh), ulps(Op::Acosh), rsqrt_ulps}},
      {"arctanh", {unary(jnp::arctanh), ulps(Op::Atanh)}},
      {"exp2", {unary(jnp::exp2), ulps(Op::Exp2), ulps(Op::Exp2)}},
      {"log2", {unary(jnp::log2), ulps(Op::Log2)}},
      {"log10", {unary(jnp::log10), ulps(Op::Log10)}},
      {"cbrt", {unary(jnp::cbrt), ulps(Op::Cbrt), 2 * ulps(Op::Cbrt)}},
      {"erf", {unary(jx::scipy::special::erf), ulps(Op::Erf), ulps(Op::Exp)}},
      {"erfc", {unary(jx::scipy::special::erfc), ulps(Op::Erfc), ulps(Op::Exp)}},
      {"round", {[](const std::vector<Array> &a) { return jnp::round(a[0]); }}},
      {"square", {unary(jnp::square)}},
      {"lax_square", {unary(jx::lax::square)}},
      // XLA rounds rsqrt once, jx twice (1 / sqrt): its rule's ans / x adds one rounding more.
      {"rsqrt", {unary(jx::lax::rsqrt), rsqrt_ulps, rsqrt_ulps + 1}},
      {"logistic",
       {unary(jx::lax::logistic), ulps(Op::Logistic), 2 * ulps(Op::Logistic), ulps(Op::Logistic)}},
      {"astype_roundtrip", {[](const std::vector<Array> &a) {
         const jx::DType t = a[0].dtype();
         return a[0].astype(t == jx::float64 ? jx::float32 : jx::float64).astype(t);
       }}},
      {"clip", {[](const std::vector<Array> &a) { return jnp::clip(a[0], -1.0, 1.0); }}},
      {"where_sqrt",
       {[](const std::vector<Array> &a) { return jnp::where(a[0] > 0, jnp::sqrt(a[0]), 0.0); }}},
      {"power_int0", {power_of_int(0), ulps(Op::Pow)}},
      {"power_int1", {power_of_int(1), ulps(Op::Pow)}},
      {"power_int2", {power_of_int(2), ulps(Op::Pow)}},
      {"power_int3", {power_of_int(3), ulps(Op::Pow), ulps(Op::Pow)}},
      {"power_int_neg1", {power_of_int(-1), ulps(Op::Pow), ulps(Op::Pow)}},
      {"power_int_neg2", {power_of_int(-2), ulps(Op::Pow), ulps(Op::Pow)}},
      {"power_int_array",
       {[](const std::vector<Array> &a) {
          return jnp::power(a[0], jnp::array(std::vector<int32_t>{0, 1, 0, 2, -1, 0, 0, 0, 3, -3}));
        },
        ulps(Op::Pow), ulps(Op::Pow)}},
      {"power_float0", {power_of(0.0), ulps(Op::Pow)}},
      {"power_float_half", {power_of(0.5), ulps(Op::Pow), ulps(Op::Pow)}},
      {"power_float2", {power_of(2.0), ulps(Op::Pow)}},
      {"add", {binary(jnp::add)}},
      {"subtract", {binary(jnp::subtract)}},
      {"multiply", {binary(jnp::multiply)}},
      {"divide", {binary(jnp::divide)}},
      // jx's rem gives a zero y's sign (NumPy's); jnp's keeps lax.rem's (x's): remainder(0, -1).
      {"remainder", {binary(jnp::remainder), 0, 0, 0, true}},
      {"fmod", {binary(jnp::fmod)}},
      // jx: floor(x / y); jnp rounds (x - rem(x, y)) / y, so a zero quotient has y's sign.
      {"floor_divide", {binary(jnp::floor_divide), 0, 0, 0, true}},
      {"power", {binary(jnp::power), ulps(Op::Pow), ulps(Op::Pow) + ulps(Op::Log)}},
      // XLA orders -0 below +0; jx's max(-0, +0) is -0, its min(+0, -0) +0.
      {"maximum", {binary(jnp::maximum), 0, 0, 0, true}},
      {"minimum", {binary(jnp::minimum), 0, 0, 0, true}},
      {"arctan2", {binary(jnp::arctan2), ulps(Op::Atan2)}},
      {"hypot", {binary(jnp::hypot), ulps(Op::Hypot)}},
      {"copysign", {binary(jnp::copysign)}},
      {"logaddexp",
       {binary(jnp::logaddexp), ulps(Op::Exp) + ulps(Op::Log1p), ulps(Op::Exp) + ulps(Op::Log1p)}},
      {"logaddexp2",
       {binary(jnp::logaddexp2), ulps(Op::LogAddExp2), ulps(Op::LogAddExp2) + ulps(Op::Exp2)}},
      {"where_greater",
       {[](const std::vector<Array> &a) { return jnp::where(a[0] > a[1], a[0], a[1]); }}},
  };
  return table;
}

template <class T> T from_bits(uint64_t w) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<double>(w);
  else
    return std::bit_cast<float>(uint32_t(w));
}

template <class T> Array array_of(const std::vector<T> &v, const std::vector<int64_t> &shape) {
  return jnp::array(v, jx::Shape(shape.begin(), shape.end()));
}

template <class T> std::string show(T v) {
  return fmt::format("{} ({:#x})", v,
                     std::bit_cast<std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>(v));
}

template <class T> bool same(T a, T b) { return ulp_distance(a, b) == 0; }

// XLA on CPU flushes denormal results to zero; jx keeps them.
template <class T> T flush(T v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(T(0), v) : v;
}

// Where jx's tangent is known to differ from JAX's: jx's value there (nullopt: not checked).
struct Known {
  int wrt;
  std::function<bool(double x, double y)> at;
  std::optional<double> jx;
};
using KnownTable = std::map<std::string, std::vector<Known>>;

// jx::jvp of fn eagerly (small constant graphs fold through the evaluator) or under jx::jit (the
// compiled kernels).
std::pair<Array, Array> jvp_of(const Fn &fn, const std::vector<Array> &primals,
                               const std::vector<Array> &tangents, bool jitted) {
  if (!jitted) return jx::jvp(fn, primals, tangents);
  auto pair = [](const std::tuple<Array, Array> &r) {
    return std::pair<Array, Array>(std::get<0>(r), std::get<1>(r));
  };
  auto tuple = [](const std::pair<Array, Array> &p) { return std::make_tuple(p.first, p.second); };
  if (primals.size() == 1)
    return pair(jx::jit([&](const Array &x, const Array &t) {
      return tuple(jx::jvp(fn, {x}, {t}));
    })(primals[0], tangents[0]));
  return pair(jx::jit([&](const Array &x, const Array &y, const Array &tx, const Array &ty) {
    return tuple(jx::jvp(fn, {x, y}, {tx, ty}));
  })(primals[0], primals[1], tangents[0], tangents[1]));
}

template <class T>
void check_elementwise(const golden::grad::Elementwise &g, const Twin &twin,
                       const std::vector<Known> &known) {
  const size_t stride = 2 * size_t(g.arity) + 2;
  std::vector<std::vector<T>> in(size_t(2 * g.arity));
  std::vector<T> want_out, want_tangent;
  for (int64_t p = 0; p < g.points; ++p) {
    const uint64_t *row = g.data.data() + size_t(p) * stride;
    for (size_t i = 0; i < in.size(); ++i)
      in[i].push_back(from_bits<T>(row[i]));
    want_out.push_back(from_bits<T>(row[stride - 2]));
    want_tangent.push_back(from_bits<T>(row[stride - 1]));
  }
  std::vector<Array> primals, tangents;
  for (int i = 0; i < g.arity; ++i) {
    primals.push_back(array_of(in[size_t(i)], {g.points}));
    tangents.push_back(array_of(in[size_t(g.arity + i)], {g.points}));
  }
  for (bool jitted : {false, true}) {
    SCOPED_TRACE(jitted ? "under jit" : "eager");
    const auto [out, tangent] = jvp_of(twin.fn, primals, tangents, jitted);
    const std::vector<T> got_out = out.to_vector<T>(), got_tangent = tangent.to_vector<T>();
    for (size_t i = 0; i < size_t(g.points); ++i) {
      const T x = in[0][i], y = g.arity > 1 ? in[1][i] : T(0), t = in[size_t(g.arity + g.wrt)][i];
      SCOPED_TRACE(fmt::format("{}({}) with tangent {}", g.fn,
                               g.arity == 1 ? show(x) : show(x) + ", " + show(y), show(t)));
      const T primal = flush(got_out[i]), d = flush(got_tangent[i]);
      const bool either_zero = twin.primal_zero_sign_differs && primal == 0 && want_out[i] == 0;
      if (!either_zero) {
        EXPECT_LE(ulp_distance(primal, want_out[i]), twin.primal_ulps)
            << "primal: jx " << show(primal) << ", jax " << show(want_out[i]);
      }
      std::optional<T> want = want_tangent[i];
      for (const Known &k : known)
        if (k.wrt == g.wrt && k.at(x, y)) want = k.jx ? std::optional<T>(T(*k.jx)) : std::nullopt;
      if (!want) continue;
      const T slack = T(twin.tangent_eps) * std::numeric_limits<T>::epsilon() * std::abs(t);
      if (slack == 0 || !(std::abs(d - *want) <= slack)) {
        EXPECT_LE(ulp_distance(d, *want), twin.tangent_ulps)
            << "tangent: jx " << show(d) << ", jax " << show(want_tangent[i])
            << (same(*want, want_tangent[i]) ? "" : ", jx's known value " + show(*want));
      }
    }
  }
}

// The test of each function: every golden of it, float64 and float32, along each input.
const std::map<std::string, std::vector<std::string>> &families() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"Arithmetic", {"negative", "add", "subtract", "multiply", "divide", "square", "lax_square"}},
      {"PiecewiseConstant", {"sign", "floor", "ceil", "round", "floor_divide"}},
      {"Convert", {"astype_roundtrip"}},
      {"AbsMaxMinClipWhere", {"abs", "maximum", "minimum", "clip", "where_greater", "where_sqrt"}},
      {"ExpAndLog", {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10"}},
      {"Roots", {"sqrt", "cbrt", "rsqrt"}},
      {"Logistic", {"logistic"}},
      {"Trigonometric", {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot"}},
      {"Hyperbolic", {"sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"}},
      {"ErrorFunctions", {"erf", "erfc", "erf_inv"}},
      {"Power",
       {"power", "power_int0", "power_int1", "power_int2", "power_int3", "power_int_neg1",
        "power_int_neg2", "power_int_array", "power_float0", "power_float_half", "power_float2"}},
      {"RemainderCopysign", {"remainder", "fmod", "copysign"}},
      {"Logaddexp", {"logaddexp", "logaddexp2"}},
  };
  return table;
}

void check(const std::string &family, const KnownTable &known = {}) {
  for (const std::string &fn : families().at(family)) {
    const Twin &twin = twins().at(fn);
    int cases = 0;
    for (const golden::grad::Elementwise &g : golden::grad::elementwise) {
      if (g.fn != fn) continue;
      ++cases;
      SCOPED_TRACE(fmt::format("{} float{} along input {}", fn, g.bits, g.wrt));
      const auto it = known.find(fn);
      const std::vector<Known> none, &k = it == known.end() ? none : it->second;
      if (g.bits == 64)
        check_elementwise<double>(g, twin, k);
      else
        check_elementwise<float>(g, twin, k);
    }
    EXPECT_GT(cases, 0) << fn << ": no golden";
  }
}

TEST(GradGolden, Arithmetic) { check("Arithmetic"); }
TEST(GradGolden, PiecewiseConstant) { check("PiecewiseConstant"); }
TEST(GradGolden, Convert) { check("Convert"); }
TEST(GradGolden, AbsMaxMinClipWhere) { check("AbsMaxMinClipWhere"); }
TEST(GradGolden, ExpAndLog) { check("ExpAndLog"); }
TEST(GradGolden, Roots) { check("Roots"); }
TEST(GradGolden, Trigonometric) { check("Trigonometric"); }
TEST(GradGolden, Hyperbolic) { check("Hyperbolic"); }
TEST(GradGolden, ErrorFunctions) { check("ErrorFunctions"); }
TEST(GradGolden, Logistic) { check("Logistic"); }
TEST(GradGolden, Power) {
  // power(x, 0.0) is one node with power(x, 0) (a float literal's origin is lost), so jx takes
  // jnp's integer_pow path: derivative +0 everywhere, where JAX's lax.pow gives 0 * x^-1: nan at
  // 0 and nan, -0 for negative x (docs/design/transforms.md §8).
  const auto everywhere = [](double, double) { return true; };
  check("Power", {{"power_float0", {{0, everywhere, 0.0}}}});
}
TEST(GradGolden, RemainderCopysign) { check("RemainderCopysign"); }
// jnp::logaddexp carries JAX's custom_jvp rule (t1 exp(x1 - ans) + t2 exp(x2 - ans), +inf
// replaced by 0), jnp::logaddexp2's op the same rule in base 2: ties share the tangent,
// infinities and NaNs give JAX's values. XLA's exp2 is exp(x log 2): its 2^-1000 is 308 ulps
// off, jx's exact.
TEST(GradGolden, Logaddexp) {
  const double tiny = std::ldexp(1.0, -1000);
  const auto x_below = [](double x, double y) { return y - x == 1000; };
  const auto y_below = [](double x, double y) { return x - y == 1000; };
  check("Logaddexp", {{"logaddexp2", {{0, x_below, tiny}, {1, y_below, tiny}}}});
}

// The C++ twin of each reduction of make_grad_golden.py.
const std::map<std::string, Fn> &reduction_twins() {
  using A = const std::vector<Array> &;
  static const std::map<std::string, Fn> table = {
      {"sum", [](A a) { return jnp::sum(a[0]); }},
      {"sum_axis0", [](A a) { return jnp::sum(a[0], 0); }},
      {"mean", [](A a) { return jnp::mean(a[0]); }},
      {"mean_axis1", [](A a) { return jnp::mean(a[0], 1); }},
      {"prod", [](A a) { return jnp::prod(a[0]); }},
      {"prod_one_zero", [](A a) { return jnp::prod(a[0]); }},
      {"prod_two_zeros", [](A a) { return jnp::prod(a[0]); }},
      {"prod_axis1_zeros", [](A a) { return jnp::prod(a[0], 1); }},
      {"prod_inf", [](A a) { return jnp::prod(a[0]); }},
      {"max", [](A a) { return jnp::max(a[0]); }},
      {"max_ties", [](A a) { return jnp::max(a[0]); }},
      {"max_axis0_ties", [](A a) { return jnp::max(a[0], 0); }},
      {"max_nan", [](A a) { return jnp::max(a[0]); }},
      {"max_inf_ties", [](A a) { return jnp::max(a[0]); }},
      {"min", [](A a) { return jnp::min(a[0]); }},
      {"min_ties", [](A a) { return jnp::min(a[0]); }},
      {"min_axis1_ties", [](A a) { return jnp::min(a[0], 1); }},
      {"dot", [](A a) { return jnp::dot(a[0], a[1]); }},
      {"matmul", [](A a) { return jnp::matmul(a[0], a[1]); }},
  };
  return table;
}

int64_t elements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

// Inputs, tangents and outputs are small dyadic numbers: every sum and product is exact whatever
// its order, so all must match bit for bit.
template <class T> void check_reduction(const golden::grad::Reduction &r) {
  const size_t arity = r.shapes.size() - 1;
  size_t at = 0;
  auto take = [&](const std::vector<int64_t> &shape) {
    std::vector<T> v;
    for (int64_t i = 0; i < elements(shape); ++i)
      v.push_back(from_bits<T>(r.data.at(at++)));
    return v;
  };
  std::vector<Array> primals, tangents;
  for (size_t i = 0; i < arity; ++i) {
    primals.push_back(array_of(take(r.shapes[i]), r.shapes[i]));
    tangents.push_back(array_of(take(r.shapes[i]), r.shapes[i]));
  }
  const std::vector<T> want_out = take(r.shapes.back()), want_tangent = take(r.shapes.back());
  // XLA's reduce_max orders -0 below +0 (as its max); jx's keeps the first of equal values.
  const std::string_view name = r.fn;
  const bool zero_sign_differs = name.starts_with("max") || name.starts_with("min");
  auto same_primal = [&](T got, T want) {
    return same(flush(got), want) || (zero_sign_differs && got == 0 && want == 0);
  };
  const Fn &fn = reduction_twins().at(r.fn);
  for (bool jitted : {false, true}) {
    SCOPED_TRACE(jitted ? "under jit" : "eager");
    const auto [out, tangent] = jvp_of(fn, primals, tangents, jitted);
    EXPECT_EQ(out.shape(), jx::Shape(r.shapes.back().begin(), r.shapes.back().end()));
    const std::vector<T> got_out = out.to_vector<T>(), got_tangent = tangent.to_vector<T>();
    for (size_t i = 0; i < want_out.size(); ++i) {
      SCOPED_TRACE("output element " + std::to_string(i));
      EXPECT_TRUE(same_primal(got_out[i], want_out[i]))
          << "primal: jx " << show(got_out[i]) << ", jax " << show(want_out[i]);
      EXPECT_TRUE(same(flush(got_tangent[i]), want_tangent[i]))
          << "tangent: jx " << show(got_tangent[i]) << ", jax " << show(want_tangent[i]);
    }
  }
}

TEST(GradGolden, ReductionsAndContractions) {
  for (const golden::grad::Reduction &r : golden::grad::reductions) {
    SCOPED_TRACE(
        fmt::format("{} float{} with tangent {} on input {}", r.fn, r.bits, r.tangent, r.wrt));
    if (r.bits == 64)
      check_reduction<double>(r);
    else
      check_reduction<float>(r);
  }
}

TEST(GradGolden, EveryFunctionHasATwinAndATest) {
  std::set<std::string> tested;
  for (const auto &[family, fns] : families())
    tested.insert(fns.begin(), fns.end());
  for (const golden::grad::Elementwise &g : golden::grad::elementwise)
    EXPECT_TRUE(twins().contains(g.fn)) << g.fn << " has no C++ twin";
  for (const auto &[fn, twin] : twins())
    EXPECT_TRUE(tested.contains(fn)) << fn << " is in no test";
  for (const golden::grad::Reduction &r : golden::grad::reductions)
    EXPECT_TRUE(reduction_twins().contains(r.fn)) << r.fn << " has no C++ twin";
}

} // namespace
