// Every elementwise op of ops.def on every dtype: compiled kernels against the reference evaluator
// (exactly, or within the op's ulps where ops.def gives some), on special values and wide grids;
// an op the evaluator does not define on a dtype must not compile either. Math ops with libmvec
// variants call them.
#include <jx/jx.h>

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

#include "backend/orc_jit.h"
#include "interp/dispatch.h"
#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/convert.h"
#include "passes/kernel_plan.h"
#include "runtime/vector_math.h"
#include "test_util.h"

namespace {

using test_util::ulp_distance;

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;
using jx::ir::Op;
using jx::ir::OpKind;

constexpr DType kDTypes[] = {DType::bool_,   DType::int8,      DType::int16,     DType::int32,
                             DType::int64,   DType::uint8,     DType::uint16,    DType::uint32,
                             DType::uint64,  DType::float16,   DType::bfloat16,  DType::float32,
                             DType::float64, DType::complex64, DType::complex128};

std::vector<double> float_values() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {std::nan(""), inf,   -inf, 0.0,    -0.0,    1.0,   -1.0,   0.5,
                           -0.5,         2.5,   -2.5, 1e-310, -1e-310, 1e300, -1e300, 3.0,
                           0.75,         -0.75, 1.5,  10.0,   -10.0,   1e-20, -1e-20, 100.0};
  for (int i = 0; i <= 400; ++i)
    v.push_back(-10 + i * 0.05);
  for (int i = 0; i <= 300; ++i) {
    const double m = std::pow(10.0, -30 + i * 0.2);
    v.push_back(m);
    v.push_back(-m);
  }
  return v;
}

std::vector<double> int_values() {
  std::vector<double> v;
  for (int i = -9; i <= 9; ++i)
    v.push_back(i);
  // Past the narrow types' ranges and at their edges: converted, they wrap.
  for (double x : {100.0, -100.0, 46341.0, -46341.0, 65536.0, 127.0, -128.0, 255.0, 32767.0,
                   -32768.0, 65535.0, 2147483647.0, 4294967295.0, -2147483648.0})
    v.push_back(x);
  return v;
}

// The values of dtype t that an op is tried on, as an array (float64 values converted).
// Complex numbers: the values as real parts, a rotation of them as imaginary parts.
Array values_of(DType t, const std::vector<double> &v) {
  const Array re = jx::numpy::array(v);
  if (!jx::is_complex(t)) return re.astype(t);
  std::vector<double> rotated(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    rotated[i] = v[(i * 5 + 1) % v.size()];
  const Array im = jx::numpy::array(rotated);
  return Array(jx::ir::complex(re.node(), im.node())).astype(t);
}

std::vector<double> inputs_for(DType t) {
  if (t == DType::bool_) return {0, 1};
  return jx::is_inexact(t) ? float_values() : int_values();
}

// Elementwise ops built by ir::unary / ir::binary (convert takes a dtype; select three operands).
std::vector<Op> table_ops() {
  std::vector<Op> ops;
  for (int i = 0; i < jx::ir::op_count; ++i) {
    const Op op = Op(i);
    const OpKind k = jx::ir::op_kind(op);
    if ((k == OpKind::Unary || k == OpKind::Binary) && op != Op::Convert) ops.push_back(op);
  }
  return ops;
}

std::string mismatch(Op op, DType t, const std::string &what) {
  return std::string(jx::ir::op_name(op)) + " on " + std::string(jx::dtype_name(t)) + ": " + what;
}

// Equal bits, or both NaN.
template <class T> bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    return (std::isnan(a) && std::isnan(b)) || std::bit_cast<Bits>(a) == std::bit_cast<Bits>(b);
  } else {
    return a == b;
  }
}

template <class T>
void expect_matches(Op op, DType t, const T *got, const T *want, size_t n, const Array &a,
                    const Array *b) {
  int ulps = jx::ir::op_info(op).ulps;
  // Complex functions are composed of libm's (ir::finish): hypot, exp, cos... each within their
  // ulps, a product or quotient of two within twice that (sin a cosh b: libmvec's cosh and sinh
  // within 4 more); log(|z|) near |z| = 1 magnifies hypot's ulp by 1 / |log |z||.
  if (jx::is_complex(t) && (op == Op::Abs || op == Op::Sign || op == Op::Exp || op == Op::Sqrt))
    ulps = 8;
  if (jx::is_complex(t) && (op == Op::Sin || op == Op::Cos)) ulps = 16;
  if (jx::is_complex(t) && op == Op::Log) ulps = 64;
  const std::vector<double> xa = a.astype(DType::float64).to_vector<double>();
  const std::vector<double> xb = b ? b->astype(DType::float64).to_vector<double>() : xa;
  int failures = 0;
  for (size_t i = 0; i < n && failures < 5; ++i) {
    bool ok = same(got[i], want[i]);
    if constexpr (std::is_floating_point_v<T>)
      if (ulps > 0) ok = ulp_distance(got[i], want[i]) <= ulps;
    if (!ok) {
      const size_t at = i * xa.size() / n; // the operands' element (complex: two parts each)
      ++failures;
      ADD_FAILURE() << mismatch(
          op, t,
          "at (" + std::to_string(xa[at]) + (b ? ", " + std::to_string(xb[at]) : "") + ") kernel " +
              std::to_string(double(got[i])) + ", evaluator " + std::to_string(double(want[i])));
    }
  }
}

// float16 or bfloat16 results: equal bits (or both NaN); ops with ulps in ops.def may round to the
// neighbouring storage value, their float32 results differing by those ulps across a rounding
// boundary of the narrower type.
template <class T>
void expect_storage_matches(Op op, DType t, const Array &got, const T *want, size_t n) {
  const std::vector<float> g = got.to_vector<float>();
  int failures = 0;
  for (size_t i = 0; i < n && failures < 5; ++i) {
    const float w = float(want[i]);
    if (same(g[i], w)) continue;
    const bool neighbour = std::abs(int(T(g[i]).bits) - int(want[i].bits)) == 1;
    if (jx::ir::op_info(op).ulps > 0 && neighbour) continue;
    ++failures;
    ADD_FAILURE() << mismatch(op, t,
                              "element " + std::to_string(i) + ": kernel " + std::to_string(g[i]) +
                                  ", evaluator " + std::to_string(w));
  }
}

// The op on a (and b): compiled through jit (parameters: nothing folds) against the evaluator.
// False where the evaluator does not define it.
bool check(Op op, DType t, const Array &a, const Array *b) {
  jx::runtime::BufferPtr want;
  try {
    jx::ir::NodePtr n = b ? jx::ir::binary(op, a.node(), b->node()) : jx::ir::unary(op, a.node());
    want = jx::interp::evaluate({n})[0];
  } catch (const std::exception &e) {
    // Not defined on t (the evaluator's logic_error, or the op has no form for the dtype): the
    // compiled path refuses it too.
    if (!dynamic_cast<const std::logic_error *>(&e) && !dynamic_cast<const jx::TypeError *>(&e))
      throw;
    if (b) {
      auto f = jx::jit([op](const Array &x, const Array &y) {
        return Array(jx::ir::binary(op, x.node(), y.node()));
      });
      EXPECT_ANY_THROW(f(a, *b)) << mismatch(op, t, "compiles but the evaluator refuses it");
    } else {
      auto f = jx::jit([op](const Array &x) { return Array(jx::ir::unary(op, x.node())); });
      EXPECT_ANY_THROW(f(a)) << mismatch(op, t, "compiles but the evaluator refuses it");
    }
    return false;
  }
  Array got = b ? jx::jit([op](const Array &x, const Array &y) {
    return Array(jx::ir::binary(op, x.node(), y.node()));
  })(a, *b)
                : jx::jit([op](const Array &x) { return Array(jx::ir::unary(op, x.node())); })(a);
  size_t n = size_t(a.size());
  if (jx::is_complex(got.dtype())) { // the parts, interleaved, as floats (both computed so)
    n *= 2;
    got = jx::numpy::stack({jx::numpy::real(got), jx::numpy::imag(got)}, -1).reshape({-1});
  }
  switch (got.dtype()) {
  case DType::bool_: {
    std::vector<bool> g = got.to_vector<bool>();
    const bool *w = want->as<bool>();
    for (size_t i = 0; i < n; ++i)
      if (g[i] != w[i]) {
        ADD_FAILURE() << mismatch(op, t, "differs at element " + std::to_string(i));
        break;
      }
    break;
  }
  default:
    jx::dispatch_dtype(got.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (jx::ir::is_storage_v<T>) {
        expect_storage_matches(op, t, got, want->as<T>(), n);
      } else if constexpr (!std::is_same_v<T, bool>) {
        expect_matches(op, t, got.to_vector<T>().data(), want->as<T>(), n, a, b);
      }
    });
  }
  return true;
}

} // namespace

TEST(OpTable, EveryElementwiseOpOnEveryDTypeMatchesTheEvaluator) {
  int compared = 0, refused = 0;
  for (Op op : table_ops())
    for (DType t : kDTypes) {
      // A complex power is exp(y log x): where |y log x| is large (this table's values reach
      // 1e300), an ulp of log moves its sine and cosine anywhere. The goldens test it.
      if (op == Op::Pow && jx::is_complex(t)) continue;
      SCOPED_TRACE(mismatch(op, t, ""));
      const std::vector<double> v = inputs_for(t);
      if (jx::ir::op_kind(op) == OpKind::Unary) {
        ++(check(op, t, values_of(t, v), nullptr) ? compared : refused);
        continue;
      }
      // Every pair of the first values (the special ones), then the grid against a rotation of
      // itself.
      const size_t k = std::min<size_t>(v.size(), 24);
      std::vector<double> x, y;
      for (size_t i = 0; i < k; ++i)
        for (size_t j = 0; j < k; ++j) {
          x.push_back(v[i]);
          y.push_back(v[j]);
        }
      for (size_t i = 0; i < v.size(); ++i) {
        x.push_back(v[i]);
        y.push_back(v[(i * 7 + 3) % v.size()]);
      }
      const Array b = values_of(t, y);
      ++(check(op, t, values_of(t, x), &b) ? compared : refused);
    }
  std::printf("%d (op, dtype) pairs compared, %d refused by both\n", compared, refused);
  EXPECT_GT(compared, refused);
}

// A math op whose function has libmvec variants calls them in a long float64 loop.
TEST(OpTable, MathOpsCallLibmvec) {
  const auto variants = jx::runtime::math_vector_variants(jx::runtime::MathTier::avx2);
  for (Op op : table_ops()) {
    const std::string fn(jx::ir::op_info(op).math_fn);
    if (fn.empty()) continue;
    bool vectorized = false;
    for (const auto &v : variants)
      vectorized = vectorized || v.scalar == "jx_" + fn;
    if (!vectorized) continue;
    Array x = Array(jx::ir::parameter(0, jx::float64, {4096}));
    Array y = Array(jx::ir::parameter(1, jx::float64, {4096}));
    jx::ir::NodePtr n = jx::ir::op_info(op).arity == 1 ? jx::ir::unary(op, x.node())
                                                       : jx::ir::binary(op, x.node(), y.node());
    jx::passes::KernelPlan plan{{n}, {x.node().get(), y.node().get()}};
    if (jx::ir::op_info(op).arity == 1) plan = {{n}, {x.node().get()}};
    const std::string assembly = jx::backend::assembly(plan);
    // float hypot is computed inline (as XLA's complex abs): packed square roots, no call.
    if (op == Op::Hypot) {
      EXPECT_NE(assembly.find("vsqrtpd"), std::string::npos) << assembly;
      EXPECT_EQ(assembly.find("call"), std::string::npos) << assembly;
      continue;
    }
    EXPECT_NE(assembly.find("v_" + fn), std::string::npos) << fn << " is not vectorized";
  }
}

// Inline hypot: IEEE's special values, no overflow or underflow in between, within 2 ulp of
// libm's over many magnitudes (in the vectorized loop and its remainder alike).
TEST(OpTable, InlineHypotAgreesWithLibm) {
  constexpr double inf = std::numeric_limits<double>::infinity(),
                   nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a = {0.0, -0.0, inf, nan, -inf, 1.0, 1e300, 1e-310, 3.0, nan, 0.0},
                      b = {0.0, 5.0, nan, 1.0, 2.0, -inf, 1e300, 1e-310, -4.0, nan, 1e-320};
  for (int k = 0; k < 4000; ++k) {
    const double s = std::ldexp(1.0, (k % 400) - 200);
    a.push_back(s * std::sin(k + 1.0));
    b.push_back(s * std::cos(3.0 * k) * std::ldexp(1.0, k % 13 - 6));
  }
  for (DType t : {DType::float64, DType::float32}) {
    const Array x = jnp::array(a).astype(t), y = jnp::array(b).astype(t);
    const std::vector<double> got = jnp::hypot(x, y).astype(jx::float64).to_vector<double>();
    const std::vector<double> xs = x.astype(jx::float64).to_vector<double>(),
                              ys = y.astype(jx::float64).to_vector<double>();
    for (size_t i = 0; i < a.size(); ++i) {
      const double want = t == DType::float64 ? std::hypot(xs[i], ys[i])
                                              : double(std::hypot(float(xs[i]), float(ys[i])));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << xs[i] << ", " << ys[i];
      } else if (t == DType::float64) {
        EXPECT_LE(ulp_distance(got[i], want), 2) << xs[i] << ", " << ys[i];
      } else {
        EXPECT_LE(ulp_distance(float(got[i]), float(want)), 2) << xs[i] << ", " << ys[i];
      }
    }
  }
}

// float16 converts with F16C's instructions (or computes with AVX512-FP16's, where LLVM proves the
// float32 round trip exact), bfloat16 by integer arithmetic: no libcalls in a loop over either.
// A complex product's parts are loaded and stored as interleaved scalars, which the loop
// vectorizer groups: packed multiplies on the parts split out of the pairs by permutes (scalar
// ones remain only in the loop's remainder).
TEST(OpTable, ComplexProductsVectorize) {
  for (DType t : {DType::complex64, DType::complex128}) {
    Array x = Array(jx::ir::parameter(0, t, {4096})), y = Array(jx::ir::parameter(1, t, {4096}));
    jx::ir::NodePtr n = jx::ir::binary(Op::Mul, x.node(), y.node());
    const std::string assembly = jx::backend::assembly({{n}, {x.node().get(), y.node().get()}});
    const char *packed = t == DType::complex64 ? "vmulps" : "vmulpd";
    EXPECT_NE(assembly.find(packed), std::string::npos) << jx::dtype_name(t) << "\n" << assembly;
    EXPECT_TRUE(assembly.find("vperm") != std::string::npos ||
                assembly.find("vshuf") != std::string::npos ||
                assembly.find("vunpck") != std::string::npos)
        << jx::dtype_name(t) << "\n"
        << assembly;
  }
}

TEST(OpTable, StorageFloatsConvertWithoutCalls) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C";
  for (DType t : {DType::float16, DType::bfloat16}) {
    Array x = Array(jx::ir::parameter(0, t, {4096}));
    jx::ir::NodePtr n = jx::ir::binary(Op::Mul, x.node(), x.node()); // in float32, rounded back
    const std::string assembly = jx::backend::assembly({{n}, {x.node().get()}});
    EXPECT_EQ(assembly.find("call"), std::string::npos) << jx::dtype_name(t) << "\n" << assembly;
  }
}
