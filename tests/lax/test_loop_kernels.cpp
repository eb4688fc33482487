// Loops compiled into one kernel: a scan (a fori_loop with static bounds) whose body is
// elementwise in its carries runs per element inside one kernel, over tiles of the carries (any
// shape, tiles cut short at the edges), its 0-d carries (the counter) in registers, reading what it
// captures anywhere (a table at the counter); 0-d loops (a CRC over bytes) in one kernel call.
// Compiled against the reference evaluator, and as_text says which loops run where and why.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends_agree.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using lax::Arrays;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Compiled and evaluated: equal for integers, within rounding for floats (the compiler may
// reassociate nothing here, but contracts a * b + c into one fma).
void expect_agree(const Array &x, double rtol = 1e-12) {
  ASSERT_TRUE(x.dtype() == jx::float64 || x.dtype() == jx::int32 || x.dtype() == jx::int64);
  const std::vector<double> a = test_util::as_doubles(
                                jx::api::evaluate_with(jx::api::Backend::Interpreter, x.node()),
                                x.dtype(), x.size()),
                            b = test_util::as_doubles(
                                jx::api::evaluate_with(jx::api::Backend::Compiler, x.node()),
                                x.dtype(), x.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], rtol * (1 + std::abs(a[i]))) << "element " << i;
}

TEST(LoopKernels, ElementwiseLoopsOfEveryShapeMatchTheEvaluator) {
  for (const jx::Shape &shape : std::vector<jx::Shape>{{}, {7}, {300}, {3, 517}, {2, 3, 260}}) {
    SCOPED_TRACE(jx::shape_str(shape));
    const int64_t n = jx::shape_size(shape);
    const Array x = (jnp::arange(double(n)) * 0.01 - 0.3).reshape(shape);
    const Array table = jnp::arange(40.0) * 0.125;
    // Two float carries and an int carry, the counter, a table read at the counter, a value
    // captured whole and read elementwise.
    auto body = [&](const Array &i, const Arrays &c) {
      const Array z = c[0] * c[0] - c[1] * c[1] + x;
      const Array w = 2.0 * c[0] * c[1] + table(i % 40);
      const Array escaped = z * z + w * w > 4.0;
      return Arrays{jnp::where(escaped, c[0], z), jnp::where(escaped, c[1], w),
                    c[2] + jnp::where(escaped, 0, 1).astype(jx::int32)};
    };
    const Arrays out = lax::fori_loop(
        0, 30, body, Arrays{jnp::zeros(shape), jnp::zeros(shape), jnp::zeros(shape, jx::int32)});
    for (const Array &o : out)
      expect_agree(o);
    const std::string plan =
        jx::jit([&](const Array &a) {
          return lax::fori_loop(0, 30, body, Arrays{a, a, jnp::zeros(shape, jx::int32)});
        })
            .lower(jx::ShapeDtypeStruct{shape, jx::float64})
            .compile()
            .as_text();
    EXPECT_TRUE(contains(plan, "(scan of 30 steps inside the kernel, per element)")) << plan;
    EXPECT_FALSE(contains(plan, "region 0:")) << plan;
  }
}

TEST(LoopKernels, ComplexCarriesEscapeTime) {
  // Mandelbrot's iteration (NPBench's, with where): a complex carry (its tile holds the parts
  // apart) and a count, over a grid whose rows end inside a tile.
  const Array x = jnp::linspace(-2.0, 0.5, 300), y = jnp::linspace(-1.0, 1.0, 5);
  const Array c = x + y(jx::slice(), jx::newaxis) * std::complex<double>(0, 1);
  auto escape = [&](const Array &z0) {
    return lax::fori_loop(
        0, 6,
        [&](const Array &n, const Arrays &v) {
          const Array inside = jnp::abs(v[0]) < 2.0;
          return Arrays{jnp::where(inside, v[0] * v[0] + c, v[0]),
                        jnp::where(inside, n.astype(jx::int64), v[1])};
        },
        Arrays{z0, jnp::zeros(c.shape(), jx::int64)});
  };
  const Arrays out = escape(jnp::zeros(c.shape(), jx::complex128));
  expect_agree(jnp::real(out[0]), 1e-9);
  expect_agree(jnp::imag(out[0]), 1e-9);
  expect_agree(out[1]);
  const std::string plan =
      jx::jit(escape).lower(jx::ShapeDtypeStruct{{5, 300}, jx::complex128}).compile().as_text();
  EXPECT_TRUE(contains(plan, "(scan of 6 steps inside the kernel")) << plan;
}

TEST(LoopKernels, ByteLoopsRunAsOneKernelCall) {
  // CRC-16 (CCITT) over bytes as NPBench writes it: a 0-d carry, the data read at the counter.
  std::vector<int32_t> bytes(200);
  std::mt19937 rng(5);
  for (int32_t &b : bytes)
    b = int32_t(rng() % 256);
  const Array data = jnp::array(bytes);
  auto crc = [&](const Array &init) {
    return lax::fori_loop(
        0, int64_t(bytes.size()),
        [&](const Array &i, const Array &c) {
          Array v = c ^ (data(i) << 8);
          for (int bit = 0; bit < 8; ++bit)
            v = jnp::where((v & 0x8000) != 0, (v << 1) ^ 0x1021, v << 1) & 0xffff;
          return v;
        },
        init);
  };
  const Array got = crc(jnp::array(int32_t(0xffff)));
  expect_agree(got);
  uint32_t expected = 0xffff;
  for (int32_t b : bytes) {
    expected ^= uint32_t(b) << 8;
    for (int bit = 0; bit < 8; ++bit)
      expected = ((expected & 0x8000) ? (expected << 1) ^ 0x1021 : expected << 1) & 0xffff;
  }
  EXPECT_EQ(got.item<int32_t>(), int32_t(expected));
  const std::string plan =
      jx::jit(crc).lower(jx::ShapeDtypeStruct{{}, jx::int32}).compile().as_text();
  EXPECT_TRUE(contains(plan, "(scan of 200 steps inside the kernel")) << plan;
}

TEST(LoopKernels, NestedLoopsRunInsideTheOuterLoopsKernel) {
  // NPBench's JAX crc16: a fori_loop over the 8 bits inside the one over bytes.
  std::vector<int32_t> bytes(300);
  for (size_t k = 0; k < bytes.size(); ++k)
    bytes[k] = int32_t((k * 37 + 11) % 256);
  const Array data = jnp::array(bytes);
  auto crc = [&](const Array &init) {
    return lax::fori_loop(
        0, int64_t(bytes.size()),
        [&](const Array &i, const Array &c) {
          const Arrays bits = lax::fori_loop(
              0, 8,
              [](const Array &, const Arrays &v) {
                const Array flip = ((v[0] & 1) ^ (v[1] & 1)) != 0;
                return Arrays{jnp::where(flip, (v[0] >> 1) ^ 0x8408, v[0] >> 1), v[1] >> 1};
              },
              Arrays{c, data(i) & 0xff});
          return bits[0];
        },
        init);
  };
  uint32_t expected = 0xffff;
  for (int32_t b : bytes) {
    uint32_t cur = uint32_t(b) & 0xff;
    for (int bit = 0; bit < 8; ++bit) {
      expected = ((expected & 1) ^ (cur & 1)) ? (expected >> 1) ^ 0x8408 : expected >> 1;
      cur >>= 1;
    }
  }
  const Array got = crc(jnp::array(int32_t(0xffff)));
  expect_agree(got);
  EXPECT_EQ(got.item<int64_t>(), int64_t(expected));
  const std::string plan =
      jx::jit(crc).lower(jx::ShapeDtypeStruct{{}, jx::int32}).compile().as_text();
  EXPECT_TRUE(contains(plan, "(scan of 300 steps inside the kernel")) << plan;
  EXPECT_FALSE(contains(plan, "region 0:")) << plan;
  // Elementwise loops in an elementwise loop, over a vector: the same inside one kernel.
  const Array x = jnp::arange(50.0) * 0.02;
  auto nested = [](const Array &a) {
    return lax::fori_loop(
        0, 6,
        [](const Array &, const Array &c) {
          return lax::fori_loop(
              0, 3, [&](const Array &, const Array &d) { return d * 0.5 + c * 0.25 + 1.0; }, c);
        },
        a);
  };
  expect_agree(nested(x));
  const std::string nested_plan = jx::jit(nested).lower(x).compile().as_text();
  EXPECT_TRUE(contains(nested_plan, "(scan of 6 steps inside")) << nested_plan;
}

// Loops that update one array carry a little per step run step by step inside one kernel, the
// carry in the output's memory: Gauss-Seidel's element sweep (reads of the element it just wrote),
// a factorization's while loop over traced bounds with a dot product per step, a row rewritten
// in place beside a carry left as it is.
TEST(LoopKernels, SequentialLoopsUpdateTheirCarryInPlace) {
  const Array grid = (jnp::arange(12.0 * 9.0).reshape({12, 9}) * 0.37) % 5.0 + 1.0;
  auto seidel = [](const Array &a) {
    return lax::fori_loop(
        1, 11,
        [](const Array &i, const Array &g) {
          return lax::fori_loop(
              1, 8,
              [&](const Array &j, const Array &h) {
                return h.at(i, j).set((h(i, j) + h(i, j - 1) + h(i - 1, j)) / 3.0);
              },
              g);
        },
        a);
  };
  expect_agree(seidel(grid));
  const std::string plan = jx::jit(seidel).lower(grid).compile().as_text();
  EXPECT_TRUE(contains(plan, "(loop of 7 steps inside the kernel, step by step, its carry in "
                             "place)"))
      << plan;
  // The carry's final values against a loop written element by element in C++.
  std::vector<double> g(12 * 9);
  const Array host = grid;
  for (size_t e = 0; e < g.size(); ++e)
    g[e] = host.reshape({-1})(int64_t(e)).item<double>();
  for (size_t i = 1; i < 11; ++i)
    for (size_t j = 1; j < 8; ++j)
      g[i * 9 + j] = (g[i * 9 + j] + g[i * 9 + j - 1] + g[(i - 1) * 9 + j]) / 3.0;
  const Array got = jx::jit(seidel)(grid).reshape({-1});
  for (size_t e = 0; e < g.size(); ++e)
    ASSERT_NEAR(got(int64_t(e)).item<double>(), g[e], 1e-12 * std::abs(g[e])) << e;

  // A while over traced bounds: a[k, k] from a dot product of rows of the carry.
  auto factor = [](const Array &a, const Array &n) {
    return lax::fori_loop(
        1, n,
        [](const Array &k, const Array &c) {
          return c.at(k, k).set((c(k, k) - jnp::dot(c(k - 1), c(k - 1)) * 0.01) / c(k - 1, k - 1));
        },
        a);
  };
  expect_agree(factor(grid, jnp::array(int32_t(9))), 1e-11);
  const std::string while_plan =
      jx::jit(factor).lower(grid, jnp::array(int32_t(9))).compile().as_text();
  EXPECT_TRUE(contains(while_plan, "(while loop inside the kernel, step by step")) << while_plan;

  // A row rewritten in place (read where it is written), a carry left as it is, a captured table.
  const Array table = jnp::arange(9.0) * 0.5;
  auto rows = [&](const Array &a, const Array &b) {
    return lax::fori_loop(
        0, 24,
        [&](const Array &k, const Arrays &c) {
          const Array r = k % 12;
          return Arrays{c[0].at(r).set(c[0](r) * 0.5 + c[1](r) + table), c[1]};
        },
        Arrays{a, b})[0];
  };
  expect_agree(rows(grid, grid * 2.0));
  const std::string row_plan = jx::jit(rows).lower(grid, grid).compile().as_text();
  EXPECT_TRUE(contains(row_plan, "(loop of 24 steps inside the kernel")) << row_plan;
  // A row read by indexing and written by lax's dynamic_update_slice at the outer loop's counter:
  // its read and write starts are traced apart (one clamped, one not; each captured by the inner
  // loop on its own) but are the same place, so the row updates in place.
  auto masked_rows = [](const Array &a) {
    return lax::fori_loop(
        0, 12,
        [](const Array &i, const Array &c) {
          return lax::fori_loop(
              0, 5,
              [&](const Array &k, const Array &d) {
                const Array row = jnp::where(jnp::arange(9) < i + 1, d(i, jx::slice()) * 0.5 + k,
                                             d(i, jx::slice()));
                return lax::dynamic_update_slice(d, row(jx::newaxis), {i, 0});
              },
              c);
        },
        a);
  };
  expect_agree(masked_rows(grid));
  const std::string masked_plan = jx::jit(masked_rows).lower(grid).compile().as_text();
  EXPECT_TRUE(contains(masked_plan, "(loop of 5 steps inside the kernel")) << masked_plan;
  // Donated, the argument's memory is the loop's.
  const std::string donated =
      jx::jit(rows, {.donate_argnums = {0}}).lower(grid, grid).compile().as_text();
  EXPECT_TRUE(contains(donated, "(update in place: argument 0 is donated")) << donated;
}

// A step's updates computed into temporaries before they are stored, so each reads the carries
// as they were: a row from the row before it, two carries each reading the other (as symm's
// column and its dot products).
TEST(LoopKernels, SequentialLoopsStageUpdatesThatReadWhatTheyWrite) {
  const Array grid = jnp::arange(8.0 * 6.0).reshape({8, 6}) * 0.25;
  auto shift = [](const Array &a) {
    return lax::fori_loop(
        0, 7, [](const Array &k, const Array &c) { return c.at(k + 1).set(c(k) + c(k + 1)); }, a);
  };
  expect_agree(shift(grid));
  const std::string shifted = jx::jit(shift).lower(grid).compile().as_text();
  EXPECT_TRUE(contains(shifted, "(loop of 7 steps inside the kernel")) << shifted;
  EXPECT_TRUE(contains(shifted, "updates computed into the stack")) << shifted;
  auto pair = [](const Array &a, const Array &b) {
    const Arrays out = lax::fori_loop(
        0, 6,
        [](const Array &j, const Arrays &c) {
          const Array column = c[0](jx::slice(), j) + c[1](j) * 0.5;
          return Arrays{
              c[0].at(jx::slice(), j).set(column),
              c[1].at(j).set(jnp::dot(c[0](jx::slice(), j), c[0](jx::slice(), 0)) * 0.01)};
        },
        Arrays{a, b});
    return out[0] + out[1];
  };
  // Jacobi 1-D: B from A, then A from the new B: stored carry by carry, A reading B's buffer.
  auto jacobi = [](const Array &a0, const Array &b0) {
    const Arrays out = lax::fori_loop(
        0, 9,
        [](const Array &, const Arrays &c) {
          const auto in = jx::slice(1, -1), left = jx::slice(0, -2), right = jx::slice(2, jx::none);
          const Array B = c[1].at(in).set(0.33333 * (c[0](left) + c[0](in) + c[0](right)));
          return Arrays{c[0].at(in).set(0.33333 * (B(left) + B(in) + B(right))), B};
        },
        Arrays{a0, b0});
    return out[0] * 2.0 + out[1];
  };
  const Array line = jnp::sin(jnp::arange(40.0)), other = jnp::cos(jnp::arange(40.0));
  expect_agree(jacobi(line, other));
  const std::string jacobi_plan = jx::jit(jacobi).lower(line, other).compile().as_text();
  EXPECT_TRUE(contains(jacobi_plan, "(loop of 9 steps inside the kernel")) << jacobi_plan;
  EXPECT_FALSE(contains(jacobi_plan, "updates computed into the stack")) << jacobi_plan;
  const Array b = jnp::arange(6.0) + 1.0;
  expect_agree(pair(grid, b));
  const std::string paired = jx::jit(pair).lower(grid, b).compile().as_text();
  EXPECT_TRUE(contains(paired, "(loop of 6 steps inside the kernel")) << paired;
  EXPECT_TRUE(contains(paired, "updates computed into the stack")) << paired;
  // Against the loop written in C++ on host copies.
  std::vector<double> g(48), v(6);
  for (size_t e = 0; e < 48; ++e)
    g[e] = double(e) * 0.25;
  for (size_t e = 0; e < 6; ++e)
    v[e] = double(e) + 1.0;
  for (size_t j = 0; j < 6; ++j) {
    double d = 0;
    for (size_t r = 0; r < 8; ++r)
      d += g[r * 6 + j] * g[r * 6];
    const double vj = v[j];
    for (size_t r = 0; r < 8; ++r)
      g[r * 6 + j] += vj * 0.5;
    v[j] = d * 0.01;
  }
  const Array got = jx::jit(pair)(grid, b).reshape({-1});
  for (size_t e = 0; e < 48; ++e)
    ASSERT_NEAR(got(int64_t(e)).item<double>(), g[e] + v[e % 6], 1e-12 * (1 + std::abs(g[e]))) << e;
}

// Loops whose steps update or replace every row of their carries and compute each row from
// itself alone (a tridiagonal sweep along the last axis and its back substitution, as vadv's
// Thomas algorithm; a column rewritten from a sum over its row) run row by row, the rows split
// over threads, the counter read after the loop stored once; a long recursion over rows splits
// by columns, each part running every step (a short one, or a column a step, runs as one task).
// Loops whose rows mix (a flipped column, a 0-d carry summing a carry) do not.
TEST(LoopKernels, SequentialLoopsRunRowByRow) {
  const jx::Slice all = jx::slice();
  const Array w = jnp::sin(jnp::arange(64.0 * 7.0 * 12.0)).reshape({64, 7, 12}) + 2.0;
  auto sweep = [&](const Array &x, bool traced_bounds) {
    auto body = [&](const Array &k, const Arrays &c) {
      const Array divided = 1.0 / (x(all, all, k) - c[0](all, all, k - 1) * 0.25);
      return Arrays{
          c[0].at(all, all, k).set(x(all, all, k + 1) * divided),
          c[1].at(all, all, k).set((x(all, all, k) - c[1](all, all, k - 1) * 0.5) * divided),
          c[2] + 1};
    };
    const Arrays init{jnp::zeros_like(x), jnp::ones_like(x), jnp::array(int64_t(3))};
    const Arrays out = traced_bounds ? lax::fori_loop(1, jnp::array(int32_t(11)), body, init)
                                     : lax::fori_loop(1, 11, body, init);
    return out[0] + out[1] * 2.0 + out[2].astype(jx::float64);
  };
  for (const bool traced : {false, true}) {
    SCOPED_TRACE(traced);
    auto f = [&](const Array &x) { return sweep(x, traced); };
    expect_agree(f(w));
    const std::string plan = jx::jit(f).lower(w).compile().as_text();
    EXPECT_TRUE(contains(plan, "step by step, row by row over its carries' 64 rows")) << plan;
    // The counter, 3 + 10 steps, beside the last plane the loop leaves as it began.
    EXPECT_EQ(jx::jit(f)(w)(5, 2, 11).item<double>(), 2.0 + 13.0);
  }
  // A column from a sum over its row, and against C++ loops on host copies.
  const Array grid = jnp::cos(jnp::arange(40.0 * 6.0)).reshape({40, 6});
  auto columns = [&](const Array &a) {
    return lax::fori_loop(
        1, 6,
        [&](const Array &j, const Array &c) {
          return c.at(all, j).set(jnp::sum(c, {1}) * 0.125 - c(all, j - 1));
        },
        a);
  };
  expect_agree(columns(grid));
  const std::string column_plan = jx::jit(columns).lower(grid).compile().as_text();
  // One element a row a step: not row by row (each row would be a chain of dependent scalar
  // steps), and too little work to split step by step over parts: one task.
  EXPECT_TRUE(contains(column_plan, "inside the kernel, step by step, its carry")) << column_plan;
  std::vector<double> g(40 * 6);
  for (size_t e = 0; e < g.size(); ++e)
    g[e] = std::cos(double(e));
  for (size_t j = 1; j < 6; ++j)
    for (size_t r = 0; r < 40; ++r) {
      double sum = 0;
      for (size_t i = 0; i < 6; ++i)
        sum += g[r * 6 + i];
      g[r * 6 + j] = sum * 0.125 - g[r * 6 + j - 1];
    }
  const Array got = jx::jit(columns)(grid).reshape({-1});
  for (size_t e = 0; e < g.size(); ++e)
    ASSERT_NEAR(got(int64_t(e)).item<double>(), g[e], 1e-12 * (1 + std::abs(g[e]))) << e;
  // Back substitution as vadv's: a row vector replaced each step (x.at[:].set(v) is v) beside a
  // 3-D carry updated at k, only the 3-D one read after the loop (the other an output of its own
  // that nothing reads); and two carries each replaced from the other's first column.
  auto back = [&](const Array &x) {
    return lax::fori_loop(
        0, 11,
        [&](const Array &k0, const Arrays &c) {
          const Array k = 10 - k0, column = x(all, all, k) - c[0] * 0.25;
          return Arrays{c[0].at(all).set(column),
                        c[1].at(all, all, k).set(column * 0.5 - x(all, all, k + 1))};
        },
        Arrays{jnp::zeros({64, 7}), x * 0.5})[1];
  };
  expect_agree(back(w));
  const std::string back_plan = jx::jit(back).lower(w).compile().as_text();
  EXPECT_TRUE(contains(back_plan, "(loop of 11 steps inside the kernel, step by step, row by row"))
      << back_plan;
  auto swapped = [&](const Array &a, const Array &b) {
    const Arrays out = lax::fori_loop(
        0, 5,
        [&](const Array &, const Arrays &c) {
          return Arrays{c[1] + c[0](all, jx::slice(0, 1)) * 0.5, c[0] - c[1](all, jx::slice(0, 1))};
        },
        Arrays{a, b});
    return out[0] * 3.0 + out[1];
  };
  expect_agree(swapped(grid, grid * 0.5 + 1.0));
  const std::string swapped_plan = jx::jit(swapped).lower(grid, grid).compile().as_text();
  EXPECT_TRUE(contains(swapped_plan, "row by row over its carries' 40 rows")) << swapped_plan;
  // Deriche's row recursion: row i from rows i - 1 and i - 2 (a row read by integer index is a
  // vector, its axis 0 the carry's axis 1): split along axis 1, each part running every step;
  // against C++ loops.
  const Array image = jnp::sin(jnp::arange(300.0 * 1024.0)).reshape({300, 1024});
  auto recursion = [&](const Array &x) {
    return lax::fori_loop(
        2, 300,
        [&](const Array &i, const Array &y) {
          return y.at(i, all).set(x(i, all) * 0.5 + y(i - 1, all) * 0.25 - y(i - 2, all) * 0.125);
        },
        x);
  };
  const std::string recursion_plan = jx::jit(recursion).lower(image).compile().as_text();
  EXPECT_TRUE(contains(recursion_plan, "its carries' axis 1 (1024 long) split over threads"))
      << recursion_plan;
  std::vector<double> y(300 * 1024);
  for (size_t e = 0; e < y.size(); ++e)
    y[e] = std::sin(double(e));
  for (size_t i = 2; i < 300; ++i)
    for (size_t j = 0; j < 1024; ++j)
      y[i * 1024 + j] = std::sin(double(i * 1024 + j)) * 0.5 + y[(i - 1) * 1024 + j] * 0.25 -
                        y[(i - 2) * 1024 + j] * 0.125;
  const Array recursed = jx::jit(recursion)(image);
  const std::vector<double> got_y = test_util::as_doubles(
      jx::api::evaluate_with(jx::api::Backend::Compiler, recursed.node()), jx::float64, y.size());
  for (size_t e = 0; e < y.size(); ++e)
    ASSERT_NEAR(got_y[e], y[e], 1e-12 * (1 + std::abs(y[e]))) << e;
  // A short loop splits only where it runs row by row: 150 steps of a 64-element row run as one
  // task.
  auto short_recursion = [&](const Array &x) {
    return lax::fori_loop(
        2, 150,
        [&](const Array &i, const Array &v) { return v.at(i, all).set(v(i - 1, all) * 0.5); }, x);
  };
  const Array small = image(jx::slice(0, 150), jx::slice(0, 64));
  expect_agree(short_recursion(small));
  const std::string short_plan = jx::jit(short_recursion).lower(small).compile().as_text();
  EXPECT_TRUE(contains(short_plan, "inside the kernel, step by step, its carry")) << short_plan;
  // Rows that mix: step by step, not split.
  auto flipped = [&](const Array &a) {
    return lax::fori_loop(
        1, 6,
        [&](const Array &j, const Array &c) {
          return c.at(all, j).set(jnp::flip(c(all, j - 1)) * 0.5 + c(all, j));
        },
        a);
  };
  auto summed = [&](const Array &a) {
    const Arrays out = lax::fori_loop(
        1, 6,
        [&](const Array &j, const Arrays &c) {
          return Arrays{c[0].at(all, j).set(c[0](all, j - 1) * 0.5), c[1] + c[0](3, j)};
        },
        Arrays{a, jnp::array(0.0)});
    return out[0] + out[1];
  };
  for (const auto &plan : {jx::jit(flipped).lower(grid).compile().as_text(),
                           jx::jit(summed).lower(grid).compile().as_text()}) {
    EXPECT_TRUE(contains(plan, "inside the kernel, step by step")) << plan;
    EXPECT_FALSE(contains(plan, "row by row")) << plan;
    EXPECT_FALSE(contains(plan, "split over threads")) << plan;
  }
  expect_agree(flipped(grid));
  expect_agree(summed(grid));
}

// A carry the body passes on as it is comes out as its initial value: no loop runs for it, and a
// loop changing another carry beside it leaves it out of its kernel.
TEST(LoopKernels, CarriesPassedOnAreTheirInitialValues) {
  const Array grid = jnp::arange(8.0 * 6.0).reshape({8, 6}) * 0.25;
  auto loop = [](const Array &a, const Array &b) {
    return lax::fori_loop(
        0, 5,
        [](const Array &k, const Arrays &c) {
          return Arrays{c[0].at(k).set(c[1](k) + 1.0), c[1]};
        },
        Arrays{a, b});
  };
  const std::string kept =
      jx::jit([&](const Array &a, const Array &b) { return loop(a, b)[1] * 2.0; })
          .lower(grid, grid)
          .compile()
          .as_text();
  EXPECT_FALSE(contains(kept, "scan")) << kept;
  const std::string both = jx::jit([&](const Array &a, const Array &b) {
                             const Arrays out = loop(a, b);
                             return out[0] + out[1];
                           })
                               .lower(grid, grid)
                               .compile()
                               .as_text();
  EXPECT_TRUE(contains(both, "(loop of 5 steps inside the kernel")) << both;
  const Arrays out = loop(grid, grid + 1.0);
  expect_agree(out[0] + out[1]);
}

// A loop whose carry starts as an array something captured also reads (the zeros a captured
// table is offset from, one node): the steps may not write over that array, or later steps read
// the table with the carry's new values in it. The kernel copies it into its output instead.
TEST(LoopKernels, ACarrysInitialValueReadElsewhereIsNotWrittenOver) {
  const int64_t m = 40;
  // The table is computed from constants alone, so the body reads it as it is built (inline in
  // the loop's kernel), from the same zeros node the carry starts as.
  auto f = jx::jit([&](const Array &scale) {
    const Array zeros = jnp::zeros({m});
    const Array table = zeros + jnp::arange(double(m)) * 0.25;
    return lax::fori_loop(
        0, m,
        [&](const Array &i, const Array &y) {
          return y.at(i).set(table((i * 7) % m) + y((i + m - 1) % m) * scale);
        },
        zeros);
  });
  const Array scale = jnp::array(0.5);
  const std::string text = f.lower(scale).compile().as_text();
  EXPECT_TRUE(contains(text, "(loop of 40 steps inside the kernel")) << text;
  EXPECT_FALSE(contains(text, "update in place")) << text;
  const Array y = f(scale);
  double previous = 0;
  for (int64_t i = 0; i < m; ++i) {
    const double expected = double(i * 7 % m) * 0.25 + previous * 0.5;
    ASSERT_DOUBLE_EQ(y(i).item<double>(), expected) << i;
    previous = expected;
  }
}

// Random loops of updates at traced places (negative or past the end too, clamped as JAX does):
// elements, rows and columns read from anywhere in the carries, windows moved, dot products into
// a second carry, a 0-d carry summing elements, one to three updates a step. Compiled (step by
// step in a kernel where the loop allows, else a program per step) against the evaluator.
TEST(LoopKernels, RandomUpdateLoopsMatchTheEvaluator) {
  int sequential = 0;
  constexpr int loops = 40;
  for (int seed = 0; seed < loops; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng{uint32_t(seed)};
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    const int64_t m = 3 + pick(6), n = 2 + pick(7), steps = 1 + pick(9);
    std::vector<int> kinds;
    for (int u = 0, count = 1 + pick(3); u < count; ++u)
      kinds.push_back(pick(7));
    const std::vector<int64_t> a{pick(5) - 2, pick(5) - 2, pick(5) - 2, pick(5) - 2};
    const bool while_loop = pick(2) == 1;
    auto f = [&](const Array &A0, const Array &B0) {
      auto body = [&](const Array &k, const Arrays &c) {
        Array A = c[0], B = c[1], s = c[2];
        const Array i = k * a[0] + a[1], j = k * a[2] - a[3], i2 = i + 1 + a[3];
        for (int kind : kinds)
          switch (kind) {
          case 0: A = A.at(i, j).set((A(i, j) + A(i2, j) * 0.5 + B(j)) * 0.75); break;
          case 1: A = A.at(i).set(A(i) * 0.5 + B); break;
          case 2: A = A.at(i).set(A(i2) + A(i) * 0.25); break;
          case 3: B = B.at(j).set(jnp::dot(A(i), B) * 0.125 + s); break;
          case 4: A = A.at(jx::slice(), j).set(A(jx::slice(), j) - B(j) * 0.25); break;
          case 5:
            A = lax::dynamic_update_slice(A, lax::dynamic_slice(A, {i2, j}, {2, 2}) * 0.5 + 1.0,
                                          {i, j + 1});
            break;
          default: s = s * 0.5 + A(i, j); break;
          }
        return Arrays{A, B, s};
      };
      const Arrays init{A0, B0, jnp::array(0.25)};
      const Arrays out = while_loop ? lax::fori_loop(0, jnp::array(int32_t(steps)), body, init)
                                    : lax::fori_loop(0, steps, body, init);
      return out[0] + out[1] + out[2];
    };
    const Array A = jnp::sin(jnp::arange(double(m * n))).reshape({m, n}),
                B = jnp::cos(jnp::arange(double(n)));
    const std::vector<double> expected = test_util::as_doubles(
        jx::api::evaluate_with(jx::api::Backend::Interpreter, f(A, B).node()), jx::float64, m * n);
    const Array got = jx::jit(f)(A, B).reshape({-1});
    for (int64_t e = 0; e < m * n; ++e)
      ASSERT_NEAR(got(e).item<double>(), expected[size_t(e)],
                  1e-11 * (1 + std::abs(expected[size_t(e)])))
          << "element " << e;
    sequential +=
        contains(jx::jit(f).lower(A, B).compile().as_text(), "inside the kernel, step by step");
  }
  // Most run step by step in one kernel (the rest change only the 0-d carry).
  EXPECT_GE(sequential, loops * 3 / 4) << sequential << " of " << loops;
}

// Where stepping inside a kernel would read what a step already overwrote, the loop stays a
// program per step, says why, and agrees with the evaluator; where it once stayed one (an initial
// value read elsewhere too, a changed carry nothing reads), it steps inside the kernel.
TEST(LoopKernels, SequentialLoopsThatCannotSayWhy) {
  const Array grid = jnp::arange(8.0 * 6.0).reshape({8, 6}) * 0.25;
  auto plan_of = [&](auto f) { return jx::jit(f).lower(grid).compile().as_text(); };
  // A row written from another row, longer than a step's temporaries hold: stored as computed,
  // it would read what it already wrote.
  const Array wide = jnp::arange(3.0 * 9000.0).reshape({3, 9000}) * 0.25;
  auto shift = [](const Array &a) {
    return lax::fori_loop(
        0, 2, [](const Array &k, const Array &c) { return c.at(k + 1).set(c(k) + c(k + 1)); }, a);
  };
  expect_agree(shift(wide));
  const std::string shifted = jx::jit(shift).lower(wide).compile().as_text();
  EXPECT_TRUE(contains(shifted, "its update reads the carry where it does not write")) << shifted;
  // The carry's initial value also captured, or two carries starting as one array: the kernel
  // copies it rather than write over what the steps still read.
  auto captured = [](const Array &a) {
    return lax::fori_loop(
        0, 6, [&](const Array &k, const Array &c) { return c.at(1, k).set(a(2, k) + c(1, k)); }, a);
  };
  auto shared = [](const Array &a) {
    const Arrays out = lax::fori_loop(
        0, 6,
        [&](const Array &k, const Arrays &c) {
          return Arrays{c[0].at(1, k).set(c[1](2, k) + 1.0), c[1].at(2, k).set(c[0](1, k) * 2.0)};
        },
        Arrays{a, a});
    return out[0] * 3.0 + out[1];
  };
  for (const auto &f : {std::function<Array(const Array &)>(captured),
                        std::function<Array(const Array &)>(shared)}) {
    expect_agree(f(grid));
    EXPECT_TRUE(contains(plan_of(f), "(loop of 6 steps inside the kernel")) << plan_of(f);
    const Array before = grid + 0.0, after = jx::jit(f)(before);
    EXPECT_TRUE(jnp::array_equal(before, grid).item<bool>());
    EXPECT_TRUE(jnp::array_equal(after, f(grid)).item<bool>());
  }
  // The counter read after the loop, the carry it changes not: that carry lives in an output of
  // its own, which nothing reads.
  auto count = [](const Array &a, bool with_carry) {
    const Arrays out = lax::fori_loop(
        0, 5,
        [](const Array &, const Arrays &c) {
          return Arrays{c[0] + 1, c[1].at(c[0] % 8, 0).set(1.0)};
        },
        Arrays{jnp::array(int64_t(0)), a});
    return with_carry ? out[1] + out[0].astype(jx::float64) : out[0].astype(jx::float64);
  };
  auto counter = [&](const Array &a) { return count(a, false); };
  expect_agree(counter(grid));
  EXPECT_TRUE(contains(plan_of(counter), "(loop of 5 steps inside the kernel")) << plan_of(counter);
  // Read with the carry: one kernel writes both.
  auto both = [&](const Array &a) { return count(a, true); };
  expect_agree(both(grid));
  EXPECT_TRUE(contains(plan_of(both), "(loop of 5 steps inside the kernel")) << plan_of(both);
}

TEST(LoopKernels, LoopsThatCannotSayWhy) {
  const jx::ShapeDtypeStruct spec{{16}, jx::float64};
  auto plan_of = [&](auto f) { return jx::jit(f).lower(spec).compile().as_text(); };
  // A carry read at other elements, a reduction in the body, a stacked output, a 0-d result read.
  EXPECT_TRUE(contains(plan_of([](const Array &a) {
                         return lax::fori_loop(
                             0, 5, [](const Array &, const Array &c) { return jnp::roll(c, 1); },
                             a);
                       }),
                       "(its body runs as a program per step: its body reads a carry at other "
                       "elements"));
  EXPECT_TRUE(
      contains(plan_of([](const Array &a) {
                 return lax::fori_loop(
                     0, 5, [](const Array &, const Array &c) { return c - jnp::sum(c); }, a);
               }),
               "(its body runs as a program per step: its body computes reduce_sum (f64[])"));
  EXPECT_TRUE(contains(plan_of([](const Array &a) {
                         return lax::scan(
                                    [](const Array &c, const Array &x) {
                                      return std::pair{c + x, c};
                                    },
                                    a, jnp::ones({4, 16}))
                             .second;
                       }),
                       "(its body runs as a program per step: it scans arrays; not step by "
                       "step in a kernel: it scans arrays)"));
}

} // namespace
