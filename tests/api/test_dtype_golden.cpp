// Golden tests of the narrow and unsigned integer, storage float and complex dtypes against NumPy,
// written by tests/golden/make_dtype_golden.py (same case names): the promotion table, wrapping
// arithmetic, divisions by zero, shifts past the width, conversions from floats and between
// integers, reductions' accumulator dtypes, sorting and complex arithmetic. Every input is a .npy
// file of its dtype, so loading each dtype is tested too; SavedFilesAreNumPys writes them back.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "api/golden_util.h"

namespace {

namespace jnp = jx::numpy;
using golden::expect_matches;
using golden::in;
using jx::Array;
using jx::DType;

const std::string kTypes[] = {"int8", "int16", "uint8", "uint16", "uint32", "uint64"};
// make_dtype_golden.py's INTS.
const std::vector<int64_t> kInts = {0,
                                    1,
                                    -1,
                                    2,
                                    -2,
                                    3,
                                    7,
                                    -7,
                                    100,
                                    -100,
                                    127,
                                    -128,
                                    255,
                                    300,
                                    -300,
                                    32767,
                                    -32768,
                                    65535,
                                    INT32_MAX,
                                    INT32_MIN,
                                    UINT32_MAX,
                                    (int64_t(1) << 40) + 3,
                                    -(int64_t(1) << 40) - 5,
                                    INT64_MAX,
                                    INT64_MIN};

TEST(DTypeGolden, PromotionTableIsNumPys) {
  std::vector<int64_t> table;
  for (int a = 0; a < jx::num_dtypes; ++a)
    for (int b = 0; b < jx::num_dtypes; ++b)
      table.push_back(int64_t(jx::promote_types(DType(a), DType(b))));
  expect_matches(jnp::array(table, jx::Shape{jx::num_dtypes, jx::num_dtypes}), "promotion_table");
}

TEST(DTypeGolden, ScalarsAndMixedOperands) {
  expect_matches(in("uint8") + 3, "scalar_add_u8");
  expect_matches(in("int8") * 5, "scalar_mul_i8");
  expect_matches(in("uint16") * 0.5, "scalar_float_u16");
  expect_matches(in("int8") + jnp::array(1.25, jnp::float32), "i8_plus_f32");
  expect_matches(in("uint32") + in("uint32").astype(jnp::int32), "u32_plus_i32");
  expect_matches(in("uint64") + jnp::arange(25), "u64_plus_i64");
  expect_matches(in("int16") + in("uint8"), "i16_plus_u8");
}

TEST(DTypeGolden, ReductionsAccumulateInNumPysDTypes) {
  const Array grid = in("grid");
  expect_matches(jnp::mean(in("int8")), "mean_i8");
  expect_matches(jnp::sum(in("uint8")), "sum_u8_dtype");
  expect_matches(jnp::sum(grid.astype(jnp::int16), 1), "sum_i16_axis");
  expect_matches(jnp::cumsum(in("uint16")), "cumsum_u16");
  expect_matches(jnp::prod(grid.astype(jnp::int8)(0) + 13, 1), "prod_i8");
  expect_matches(jnp::max(in("uint64")), "max_u64");
  expect_matches(jnp::min(in("uint32")), "min_u32");
  expect_matches(jnp::argmax(in("uint64")), "argmax_u64");
  expect_matches(jnp::argmin(in("int8")), "argmin_i8");
  expect_matches(jnp::linspace(0, 255, {.num = 7, .dtype = jnp::uint8}), "linspace_u8");
  expect_matches(jnp::arange(-5, 20, 3, jnp::int16), "arange_i16");
}

// f(args) eager, or under jit: the evaluator and compiled kernels both give NumPy's values.
template <class F> Array eager_or_jitted(F f, const std::vector<Array> &args, bool jitted) {
  if (!jitted) return f(args);
  return jx::jit([&](const std::vector<Array> &a) { return f(a); })(args);
}

void check_arithmetic(const std::string &t, bool jitted) {
  SCOPED_TRACE(t + (jitted ? " under jit" : " eager"));
  auto run = [jitted](auto f, const std::vector<Array> &args) {
    return eager_or_jitted(f, args, jitted);
  };
  using Args = const std::vector<Array> &;
  const std::vector<Array> vw = {in(t), in(t + "b")};
  const std::vector<Array> shift = {in(t), in(t + "_shift")};
  expect_matches(run([](Args a) { return a[0] + a[1]; }, vw), "add_" + t);
  expect_matches(run([](Args a) { return a[0] - a[1]; }, vw), "subtract_" + t);
  expect_matches(run([](Args a) { return a[0] * a[1]; }, vw), "multiply_" + t);
  expect_matches(run([](Args a) { return jnp::floor_divide(a[0], a[1]); }, vw),
                 "floor_divide_" + t);
  expect_matches(run([](Args a) { return jnp::remainder(a[0], a[1]); }, vw), "remainder_" + t);
  expect_matches(run([](Args a) { return jnp::fmod(a[0], a[1]); }, vw), "fmod_" + t);
  expect_matches(run([](Args a) { return a[0] / a[1]; }, vw), "true_divide_" + t);
  expect_matches(run([](Args a) { return jnp::power(a[0], a[1]); }, {in(t), in(t + "_exp")}),
                 "power_" + t);
  expect_matches(run([](Args a) { return jnp::left_shift(a[0], a[1]); }, shift), "left_shift_" + t);
  expect_matches(run([](Args a) { return jnp::right_shift(a[0], a[1]); }, shift),
                 "right_shift_" + t);
  expect_matches(run([](Args a) { return (a[0] & a[1]) ^ (a[0] | ~a[1]); }, vw), "bitwise_" + t);
  expect_matches(run([](Args a) { return -a[0]; }, vw), "negative_" + t);
  expect_matches(run([](Args a) { return jnp::absolute(a[0]); }, vw), "absolute_" + t);
  expect_matches(run([](Args a) { return jnp::sign(a[0]); }, vw), "sign_" + t);
  expect_matches(run([](Args a) { return jnp::maximum(a[0], a[1]); }, vw), "maximum_" + t);
  expect_matches(run([](Args a) { return a[0] < a[1]; }, vw), "less_" + t);
  expect_matches(run([](Args a) { return a[0] == a[1]; }, vw), "equal_" + t);
  expect_matches(run([](Args a) { return jnp::where(a[0] > a[1], a[0], a[1]); }, vw), "where_" + t);
  expect_matches(run([](Args a) { return jnp::sort(a[0]); }, vw), "sort_" + t);
  expect_matches(run([](Args a) { return jnp::argsort(a[0]); }, vw), "argsort_" + t);
  const DType dtype = jx::dtype(t);
  // uint32 from floats below 2^32 only: NumPy's result above depends on the element's position.
  expect_matches(run([&](Args a) { return a[0].astype(dtype); },
                     {in(t == "uint32" ? "floats_u32" : "floats")}),
                 "from_float_" + t);
  for (auto [to, name] : {std::pair{jnp::float64, "to_float64_"},
                          {jnp::float32, "to_float32_"},
                          {jnp::int64, "to_int64_"},
                          {jnp::bool_, "to_bool_"}})
    expect_matches(run([to](Args a) { return a[0].astype(to); }, vw), name + t);
  for (const std::string &b : kTypes)
    if (b != t)
      expect_matches(run([&](Args a) { return a[0].astype(jx::dtype(b)); }, vw),
                     "cast_" + t + "_" + b);
}

TEST(DTypeGolden, EagerArithmeticAndConversions) {
  for (const std::string &t : kTypes)
    check_arithmetic(t, false);
}

TEST(DTypeGolden, CompiledArithmeticAndConversions) {
  for (const std::string &t : kTypes)
    check_arithmetic(t, true);
}

// float16 and bfloat16: conversions, correctly rounded ops computed in float32 and rounded per op,
// eager and under jit (results compared as float32, which holds them exactly).
void check_storage_float(const std::string &t, bool jitted) {
  SCOPED_TRACE(t + (jitted ? " under jit" : " eager"));
  const DType dtype = jx::dtype(t);
  auto run = [jitted](auto f, const std::vector<Array> &args) {
    return eager_or_jitted(f, args, jitted);
  };
  using Args = const std::vector<Array> &;
  const std::vector<Array> wide = {in("wide"), in("wide2")};
  auto as_f32 = [](const Array &x) { return x.astype(jnp::float32); };
  expect_matches(run([&](Args a) { return as_f32(a[0].astype(dtype)); }, wide),
                 "from_float64_" + t);
  expect_matches(run([&](Args a) { return as_f32(as_f32(a[0]).astype(dtype)); }, wide),
                 "from_float32_" + t);
  expect_matches(run([&](Args a) { return as_f32(a[0].astype(dtype)); }, {jnp::array(kInts)}),
                 "from_int_" + t);
  auto storage = [&](Args a) { return std::pair{a[0].astype(dtype), a[1].astype(dtype)}; };
  expect_matches(run(
                     [&](Args a) {
                       auto [x, y] = storage(a);
                       return as_f32(x + y);
                     },
                     wide),
                 "add_" + t);
  expect_matches(run(
                     [&](Args a) {
                       auto [x, y] = storage(a);
                       return as_f32(x * y);
                     },
                     wide),
                 "multiply_" + t);
  expect_matches(run(
                     [&](Args a) {
                       auto [x, y] = storage(a);
                       return as_f32(x / y);
                     },
                     wide),
                 "divide_" + t);
  expect_matches(run(
                     [&](Args a) {
                       auto [x, y] = storage(a);
                       return as_f32(x * y + x);
                     },
                     wide),
                 "chain_" + t);
  expect_matches(run([&](Args a) { return as_f32(jnp::sqrt(jnp::abs(a[0]).astype(dtype))); }, wide),
                 "sqrt_" + t);
  expect_matches(run(
                     [&](Args a) {
                       auto [x, y] = storage(a);
                       return x < y;
                     },
                     wide),
                 "less_" + t);
  expect_matches(run(
                     [&](Args a) {
                       return jnp::clip(jnp::nan_to_num(a[0], {.nan = 0, .posinf = 0, .neginf = 0}),
                                        -1e5, 1e5)
                           .astype(dtype)
                           .astype(jnp::int32);
                     },
                     wide),
                 "to_int32_" + t);
  expect_matches(run([&](Args a) { return as_f32(a[0].astype(dtype) * 3); }, wide), "scalar_" + t);
  expect_matches(run([&](Args a) { return as_f32(jnp::sort(a[0].astype(dtype))); }, wide),
                 "sort_" + t);
}

TEST(DTypeGolden, StorageFloats) {
  for (const std::string t : {"float16", "bfloat16"})
    for (bool jitted : {false, true})
      check_storage_float(t, jitted);
  const Array h = in("wide").astype(jnp::float16);
  expect_matches(h + in("int8"), "float16_plus_int8");
  expect_matches(h + in("int16"), "float16_plus_int16");
  expect_matches(h + in("wide2").astype(jnp::bfloat16), "float16_plus_bfloat16");
  expect_matches(jnp::matmul(h(jx::slice(0, 16)).reshape({4, 4}),
                             in("wide2").astype(jnp::float16)(jx::slice(0, 16)).reshape({4, 4}))
                     .astype(jnp::float32),
                 "float16_matmul");
  expect_matches(jnp::mean(in("ramp").astype(jnp::float16), 1), "mean_float16");
  EXPECT_EQ(jnp::sum(h).dtype(), jnp::float16);
  EXPECT_EQ((h * 2.5).dtype(), jnp::float16);
  EXPECT_EQ(jx::dtype("f2"), jnp::float16);
}

// complex64 and complex128: arithmetic on zeros, infinities and NaNs, functions on finite values,
// reductions, contractions and movement, eager and under jit.
void check_complex(const std::string &t, bool jitted) {
  SCOPED_TRACE(t + (jitted ? " under jit" : " eager"));
  auto run = [jitted](auto f, const std::vector<Array> &args) {
    return eager_or_jitted(f, args, jitted);
  };
  using Args = const std::vector<Array> &;
  using golden::Tol;
  const std::vector<Array> zw = {in(t), in(t + "b")};
  const std::vector<Array> fg = {in(t + "_finite"), in(t + "_finiteb")};
  const std::vector<Array> mm = {in(t + "_matrix"), in(t + "_matrixb")};
  expect_matches(run([](Args a) { return a[0] + a[1]; }, zw), "add_" + t);
  expect_matches(run([](Args a) { return a[0] - a[1]; }, zw), "subtract_" + t);
  expect_matches(run([](Args a) { return a[0] * a[1]; }, zw), "multiply_" + t);
  expect_matches(run([](Args a) { return a[0] / a[1]; }, zw), "true_divide_" + t);
  expect_matches(run([](Args a) { return -a[0]; }, zw), "negative_" + t);
  expect_matches(run([](Args a) { return jnp::conj(a[0]); }, zw), "conj_" + t);
  expect_matches(run([](Args a) { return jnp::real(a[0]); }, zw), "real_" + t);
  expect_matches(run([](Args a) { return jnp::imag(a[0]); }, zw), "imag_" + t);
  expect_matches(run([](Args a) { return a[0] == a[1]; }, zw), "equal_" + t);
  expect_matches(run([](Args a) { return a[0] != a[1]; }, zw), "not_equal_" + t);
  expect_matches(run([](Args a) { return jnp::isnan(a[0]); }, zw), "isnan_" + t);
  expect_matches(run([](Args a) { return jnp::isfinite(a[0]); }, zw), "isfinite_" + t);
  expect_matches(run([](Args a) { return a[0].astype(jnp::bool_); }, zw), "to_bool_" + t);
  expect_matches(run([](Args a) { return a[0].astype(jnp::float64); }, zw), "to_float64_" + t);
  expect_matches(
      run([](Args a) { return jnp::where(jnp::abs(jnp::real(a[0])) > 1, a[0], a[1]); }, zw),
      "where_" + t);
  expect_matches(run([](Args a) { return jnp::abs(a[0]); }, fg), "absolute_" + t,
                 Tol::transcendental);
  expect_matches(run([](Args a) { return jnp::angle(a[0]); }, fg), "angle_" + t,
                 Tol::transcendental);
  // exp, log and sqrt of the parts: within the largest part's rounding (glibc's cexp and clog
  // scale and compensate where the composed formulas round each step).
  expect_matches(run([](Args a) { return jnp::exp(a[0]); }, fg), "exp_" + t, Tol::reduction);
  expect_matches(run([](Args a) { return jnp::log(a[0](jx::slice(0, -1))); }, fg), "log_" + t,
                 Tol::reduction);
  expect_matches(run([](Args a) { return jnp::sqrt(a[0]); }, fg), "sqrt_" + t, Tol::reduction);
  expect_matches(run([](Args a) { return jnp::sign(a[0]); }, fg), "sign_" + t, Tol::transcendental);
  expect_matches(run([](Args a) { return jnp::sin(a[0]); }, fg), "sin_" + t, Tol::reduction);
  expect_matches(run([](Args a) { return jnp::cos(a[0]); }, fg), "cos_" + t, Tol::reduction);
  // Integer powers multiply (npy_cpow): NumPy's products (its square may contract into an FMA).
  expect_matches(run([](Args a) { return jnp::power(a[0], 2); }, fg), "square_" + t,
                 Tol::transcendental);
  expect_matches(run([](Args a) { return jnp::power(a[0], 5); }, fg), "power_int_" + t);
  expect_matches(run([](Args a) { return jnp::power(a[0](jx::slice(0, -1)), -3); }, fg),
                 "power_negative_" + t, Tol::reduction);
  expect_matches(run(
                     [](Args a) {
                       const Array x = a[0](jx::slice(0, -1)), y = a[1](jx::slice(0, -1));
                       return jnp::power(x, y * 0.25);
                     },
                     fg),
                 "power_" + t, Tol::reduction);
  expect_matches(
      run([](Args a) { return (a[0] * a[1] + a[0]) / (a[1] - std::complex<double>(0, 0.5)); }, fg),
      "chain_" + t);
  expect_matches(run([](Args a) { return jnp::sum(a[0], 1); }, mm), "sum_" + t, Tol::reduction);
  expect_matches(run([](Args a) { return jnp::mean(a[0], 0); }, mm), "mean_" + t, Tol::reduction);
  expect_matches(run([](Args a) { return jnp::cumsum(a[0], 1); }, mm), "cumsum_" + t,
                 Tol::reduction);
  expect_matches(run([](Args a) { return jnp::matmul(a[0], a[1]); }, mm), "matmul_" + t,
                 Tol::reduction);
  expect_matches(run([](Args a) { return jnp::transpose(a[0]); }, mm), "transpose_" + t);
  expect_matches(run(
                     [](Args a) {
                       return a[0](jx::slice(), jnp::array({3, 0, 0, 2}));
                     },
                     mm),
                 "take_" + t);
}

TEST(DTypeGolden, Complex) {
  for (const std::string t : {"complex64", "complex128"})
    for (bool jitted : {false, true})
      check_complex(t, jitted);
  const Array f = in("complex64_finite");
  expect_matches(f + jnp::real(in("complex128_finite")), "complex64_plus_float64");
  expect_matches(f + jnp::arange(16, jnp::int32), "complex64_plus_int32");
  expect_matches(f + jnp::arange(16, jnp::int16), "complex64_plus_int16");
  expect_matches(jnp::real(f) * std::complex<double>(0, 1), "float32_times_1j");
  expect_matches(in("wide").astype(jnp::complex64), "float64_to_complex64");
  expect_matches(in("complex128").astype(jnp::complex64), "complex128_to_complex64");
  const Array m = in("complex128_matrix"), g = in("complex128_finite");
  using golden::Tol;
  expect_matches(jnp::var(m, 1), "var_complex", Tol::reduction);
  expect_matches(jnp::std(m), "std_complex", Tol::reduction);
  expect_matches(jnp::linalg::norm(m), "norm_complex", Tol::reduction);
  expect_matches(jnp::linalg::norm(m, std::nullopt, 0), "norm_axis_complex", Tol::reduction);
  expect_matches(jnp::vdot(g, in("complex128_finiteb")), "vdot_complex", Tol::reduction);
  expect_matches(jnp::correlate(g(jx::slice(0, 6)), in("complex128_finiteb")(jx::slice(0, 3))),
                 "correlate_complex", Tol::reduction);
  expect_matches(jnp::cov(m), "cov_complex", Tol::reduction);
  expect_matches(jnp::round(g * 3.37, 1), "round_complex");
  expect_matches(jnp::linspace(Array(0), Array(std::complex<double>(1, 2)), 5), "linspace_complex");
  expect_matches(jnp::isclose(g, g * std::complex<double>(1, 1e-9)), "isclose_complex");
  using C = std::complex<double>;
  expect_matches(jnp::sum(jnp::zeros({0, 3}, jnp::complex64) * C(1, -2), 0), "empty_complex");
  const auto zero_d = [](C v) { return jnp::array(std::vector<C>{v}).reshape({}); };
  expect_matches(zero_d({1.5, -2}) * zero_d({0.25, 4}) / zero_d({0, -1}), "scalar_complex");
  EXPECT_EQ(jx::dtype("c8"), jnp::complex64);
  EXPECT_EQ(jx::dtype("complex"), jnp::complex128);
}

std::string file_bytes(const std::filesystem::path &path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// jnp.save of each dtype writes the bytes np.save wrote for the same array.
TEST(DTypeGolden, SavedFilesAreNumPys) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "jx_dtype_golden";
  std::filesystem::create_directories(dir);
  // float16 as '<f2', bfloat16 as ml_dtypes' '<V2'.
  const Array wide = in("wide");
  for (auto [t, dtype] : {std::pair{"float16", jnp::float16}, {"bfloat16", jnp::bfloat16}}) {
    const std::filesystem::path path = dir / (std::string(t) + ".npy");
    jnp::save(path.string(), wide.astype(dtype));
    const Array back = jnp::load(path.string());
    EXPECT_EQ(back.dtype(), dtype);
    expect_matches(back.astype(jnp::float32), std::string("from_float64_") + t);
  }
  for (const std::string &t : {kTypes[0], kTypes[1], kTypes[2], kTypes[3], kTypes[4], kTypes[5],
                               std::string("complex64"), std::string("complex128")}) {
    const std::filesystem::path path = dir / (t + ".npy");
    jnp::save(path.string(), in(t));
    EXPECT_EQ(file_bytes(path), file_bytes(std::string(JX_GOLDEN_DIR) + "/dtypes/in_" + t + ".npy"))
        << t;
  }
  std::filesystem::remove_all(dir);
}

} // namespace
