// Updates of part of an array in place: which updates the plan runs in place and why it keeps a
// copy (as_text), and random loops of updates at traced positions (rows, columns, elements,
// windows clamped at the edges, interiors, updates reading other parts of the carry, several
// updates of one carry per iteration, a carry's old value read after its update, carries
// swapped) compiled against the reference evaluator bit for bit, eagerly and under jit with the
// initial carries donated.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "api/internal.h"
#include "backends_agree.h"

namespace {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using jx::slice;
using lax::Arrays;
using test_util::expect_backends_agree;

template <class F> std::string plan_of(const F &f, const Array &x, const Array &i) {
  return f.lower(x, i).compile().as_text();
}

const void *address(const Array &a) { return jx::api::realize(a.node())->data(); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(InPlaceUpdates, PlansSayWhichUpdatesRunInPlaceAndWhy) {
  const Array x = jnp::zeros({64, 32}), i = jnp::array(int32_t(3));
  // A loop updating one carry: one kernel running the loop, each step writing a row into the
  // output (a copy of the undonated argument, made once).
  const jx::Jitted loop = jx::jit([](const Array &a, const Array &n) {
    return lax::fori_loop(
        0, n, [](const Array &k, const Array &c) { return c.at(k).set(k.astype(c.dtype())); }, a);
  });
  const std::string looped = plan_of(loop, x, i);
  EXPECT_TRUE(contains(looped, "(update copy: argument 0 is not donated) (while loop inside the "
                               "kernel, step by step, its carries' axis 1 (32 long) split over "
                               "threads, its carry in place)"))
      << looped;
  EXPECT_FALSE(contains(looped, "region 0:")) << looped;
  // A carry updated beside one rewritten whole, reversed (no axis splits): a program per step,
  // the updated carry donated to the body, so each iteration writes one row into it.
  const jx::Jitted pair = jx::jit([](const Array &a, const Array &n) {
    return lax::fori_loop(
        0, n,
        [](const Array &k, const Arrays &c) {
          return Arrays{c[0].at(k).set(k.astype(c[0].dtype())), jnp::flip(c[1]) * 0.5};
        },
        Arrays{a, a + 1.0});
  });
  const std::string paired = plan_of(pair, x, i);
  EXPECT_TRUE(contains(paired, "rows=1 (update in place: argument 1 is donated")) << paired;
  EXPECT_TRUE(contains(paired, "not step by step in a kernel: an array carry changes other than "
                               "by updates"))
      << paired;
  // An argument: in place when donated, else on a copy.
  auto set_row = [](const Array &a, const Array &k) { return a.at(k).set(1.0); };
  EXPECT_TRUE(contains(plan_of(jx::jit(set_row, {.donate_argnums = {0}}), x, i),
                       "(update in place: argument 0 is donated"));
  EXPECT_TRUE(
      contains(plan_of(jx::jit(set_row), x, i), "(update copy: argument 0 is not donated)"));
  // An elementwise intermediate updated: one kernel computing it with the row replaced.
  const std::string inline_update = plan_of(
      jx::jit([](const Array &a, const Array &k) { return jnp::exp(a).at(k).set(0.0); }), x, i);
  EXPECT_FALSE(contains(inline_update, "(update")) << inline_update;
  EXPECT_TRUE(contains(inline_update, "kernel dynamic_update_slice : f64[64,32] reads 1,0 rows=64"))
      << inline_update;
  // An intermediate with a buffer of its own that dies at its update (a library routine's): in
  // place (its buffer becomes the output); one returned as well: a copy.
  const std::string dies = plan_of(
      jx::jit([](const Array &a, const Array &k) { return jnp::cumsum(a, 1).at(k).set(0.0); }), x,
      i);
  EXPECT_TRUE(contains(dies, "dies here (its buffer becomes the output's")) << dies;
  const std::string kept = plan_of(jx::jit([](const Array &a, const Array &k) {
                                     const Array e = jnp::exp(a);
                                     return std::make_tuple(e.at(k).set(0.0), e);
                                   }),
                                   x, i);
  EXPECT_TRUE(contains(kept, "is an output)")) << kept;
  // The whole array written (out.at[:, :].set(v), hdiff's last line): v itself, nothing copied.
  const std::string whole = plan_of(jx::jit([](const Array &a, const Array &k) {
                                      return a.at(slice(), slice()).set(jnp::exp(a) + k);
                                    }),
                                    x, i);
  EXPECT_FALSE(contains(whole, "(update")) << whole;
  EXPECT_FALSE(contains(whole, "slice_update")) << whole;
  // An update inside a reduction's kernel is no step at all: nothing is copied.
  const std::string fused = plan_of(
      jx::jit([](const Array &a, const Array &k) { return jnp::sum(jnp::exp(a).at(k).set(0.0)); }),
      x, i);
  EXPECT_FALSE(contains(fused, "(update")) << fused;
  // One element read from elsewhere in the carry (a factorization's inner step): one kernel,
  // reading before its only store, in place; the values as the evaluator's.
  const jx::Jitted element = jx::jit([](const Array &a, const Array &n) {
    return lax::fori_loop(
        1, n,
        [](const Array &k, const Array &c) {
          return c.at(k, k).set((c(k, k) - jnp::dot(c(k - 1), c(k - 1))) / c(k - 1, k - 1));
        },
        a);
  });
  // An update an inner loop takes, its value read from another row: computed first, then
  // written in place (not a kernel rewriting the whole array).
  const jx::Jitted nested = jx::jit([](const Array &a, const Array &n) {
    return lax::fori_loop(
        0, n,
        [](const Array &k, const Array &c) {
          const Array d = c.at(k).set(c((k + 1) % 64) + 1.0);
          return lax::fori_loop(
              0, 2, [&](const Array &j, const Array &e) { return e.at(k, j).add(1.0); }, d);
        },
        a);
  });
  const std::string inner = plan_of(nested, x, i);
  size_t in_place = 0;
  for (size_t at = inner.find("rows=1 (update in place"); at != std::string::npos;
       at = inner.find("rows=1 (update in place", at + 1))
    ++in_place;
  EXPECT_EQ(in_place, 2u) << inner; // the outer update and the inner loop's
  EXPECT_FALSE(contains(inner, "rows=64")) << inner;
  const std::string one = plan_of(element, x, i);
  EXPECT_TRUE(contains(one, "(while loop inside the kernel, step by step")) << one;
  EXPECT_FALSE(contains(one, "kernel select")) << one;
  const Array grid = jnp::arange(64.0 * 32.0).reshape({64, 32}) * 0.001 + 1.0;
  const Array got = element(grid, jnp::array(int32_t(20)));
  Array expected = grid;
  for (int k = 1; k < 20; ++k)
    expected = expected.at(k, k).set((expected(k, k) - jnp::dot(expected(k - 1), expected(k - 1))) /
                                     expected(k - 1, k - 1));
  EXPECT_TRUE(jnp::allclose(got, expected, 1e-12, 0.0).item<bool>());
}

TEST(InPlaceUpdates, ResultsOfDonatedAndCopiedUpdatesAgree) {
  const Array x = jnp::arange(48.0).reshape({6, 8});
  auto f = [](const Array &a, const Array &k) {
    return a.at(k).add(10.0).at(slice(), k).multiply(-1.0);
  };
  const Array expected = jx::jit(f)(x, jnp::array(int32_t(2)));
  const Array donated = jnp::array(x.to_vector<double>()).reshape({6, 8});
  const void *memory = address(donated);
  const Array got = jx::jit(f, {.donate_argnums = {0}})(donated, jnp::array(int32_t(2)));
  EXPECT_EQ(address(got), memory); // both updates in the argument's memory
  EXPECT_TRUE(jnp::array_equal(got, expected).item<bool>());
  expect_backends_agree(f(x, jnp::array(int32_t(2))));
  expect_backends_agree(f(x, jnp::array(int32_t(-9)))); // clamped
}

// An inner loop updates in place what the outer loop hands it from a dying slot (its carry),
// never a row of the outer loop's xs nor a captured value, which later iterations read again.
TEST(InPlaceUpdates, InnerLoopsTakeOuterCarriesNotRowsOrCapturedValues) {
  const Array xs = jnp::arange(12.0).reshape({4, 3}), w = jnp::arange(3.0) * 10.0;
  auto f = jx::jit([](const Array &rows, const Array &captured) {
    return lax::scan(
               [&](const Array &carry, const Array &row) {
                 auto add_w = [&](const Array &j, const Array &v) {
                   return v.at(j).add(captured(j));
                 };
                 const Array from_row = lax::fori_loop(0, 2, add_w, row);
                 const Array from_w = lax::fori_loop(0, 3, add_w, captured);
                 const Array next = lax::fori_loop(
                     0, 3, [](const Array &j, const Array &v) { return v.at(j).multiply(2.0); },
                     carry + from_row + from_w);
                 return std::pair{next, from_row};
               },
               jnp::zeros({3}), rows)
        .first;
  });
  std::vector<double> carry(3, 0.0);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 3; ++j)
      carry[size_t(j)] = 2 * (carry[size_t(j)] + (3 * r + j + (j < 2 ? 10 * j : 0)) + 2 * (10 * j));
  EXPECT_EQ(f(xs, w).to_vector<double>(), carry);
  EXPECT_EQ(f(xs, w).to_vector<double>(), carry); // xs and w as they were
  EXPECT_EQ(xs.to_vector<double>(), jnp::arange(12.0).to_vector<double>());
  EXPECT_EQ(w.to_vector<double>(), (std::vector<double>{0, 10, 20}));
}

// One random update of carry a (which may read b, and a itself elsewhere) at positions that
// move with the counter, some past the edges (clamped as JAX clamps).
Array random_update(std::mt19937_64 &rng, const Array &k, const Array &a, const Array &b) {
  const int64_t rows = a.shape()[0], cols = a.shape()[1];
  auto pick = [&](int64_t n) { return int64_t(rng() % uint64_t(n)); };
  // A traced position: k * p + q, past the end or negative now and then.
  auto position = [&](int64_t extent) {
    const int64_t p = pick(3), q = pick(extent + 4) - 2;
    return k * p + q;
  };
  const Array r = position(rows), c = position(cols);
  switch (pick(12)) {
  case 0: return a.at(r).set(b(c % cols) * 0.5);                   // a row, from b's row
  case 1: return a.at(slice(), c).set(b(slice(), 0) * 0.75 + 1.0); // a column
  case 2: return a.at(r, c).add(1.25);                             // an element, reading it
  case 3: return a.at(r).multiply(a(r) + 1.0);         // a row reading itself where it writes
  case 4: return a.at(r).set(a((r + 1) % rows) - 1.0); // a row from another row
  case 5: return lax::dynamic_update_slice(a, b(slice(0, 2), slice(0, 3)) + 7.0, {r, c});
  case 6: // the interior from its neighbours (the old values: a stencil)
    return a.at(slice(1, -1), slice(1, -1))
        .set(0.25 * (a(slice(0, -2), slice(1, -1)) + a(slice(2, jx::none), slice(1, -1)) +
                     a(slice(1, -1), slice(0, -2)) + a(slice(1, -1), slice(2, jx::none))));
  case 7: return a.at(slice(1, jx::none, 2)).set(b(slice(0, -1, 2)) * -1.0); // every other row
  case 8: return lax::dynamic_update_slice(a, a(slice(0, 1)) * 2.0, {r, 0}); // row 0 moved
  case 9: // a row's interior from the row above it (a window beside static slices)
    return a.at(r, slice(1, -1)).set(a((r + rows - 1) % rows, slice(0, -2)) * 0.5);
  case 10: return a.at(slice(1, 3), c).add(b(0, slice(0, 2))); // part of a column
  default: // an inner loop handed the carry: each step one element along the row
    return lax::fori_loop(
        0, 3, [&](const Array &j, const Array &v) { return v.at(r, (c + j) % cols).add(j + 0.5); },
        a);
  }
}

struct RandomLoop {
  int64_t rows, cols, steps;
  std::vector<uint64_t> seeds; // per update of the body
  std::vector<int> kinds;      // per update: which carry it updates, or 2: the carries swapped

  Arrays body(const Array &k, const Arrays &c) const {
    Array a = c[0], b = c[1];
    for (size_t u = 0; u < seeds.size(); ++u) {
      std::mt19937_64 rng(seeds[u]);
      if (kinds[u] == 0) {
        a = random_update(rng, k, a, b);
      } else if (kinds[u] == 1) {
        // b's update, then b's old value still read: a copy where the old value lives on.
        const Array old = b;
        b = random_update(rng, k, b, a);
        a = a + old(slice(), slice(0, 1)) * 0.125;
      } else {
        std::swap(a, b);
      }
    }
    return {a, b};
  }
};

TEST(InPlaceUpdates, RandomUpdateLoopsMatchTheEvaluatorBitForBit) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    RandomLoop loop{int64_t(3 + rng() % 9), int64_t(4 + rng() % 9), int64_t(1 + rng() % 5), {}, {}};
    const size_t updates = 1 + rng() % 4;
    for (size_t u = 0; u < updates; ++u) {
      loop.seeds.push_back(rng());
      loop.kinds.push_back(int(rng() % 5 == 0 ? 2 : rng() % 3 == 0 ? 1 : 0));
    }
    SCOPED_TRACE(fmt::format("seed {}", seed));
    const Array a = jnp::arange(double(loop.rows * loop.cols)).reshape({loop.rows, loop.cols});
    const Array b = a * 0.5 - 3.0;
    auto run = [&](const Array &x, const Array &y) {
      return lax::fori_loop(
          0, loop.steps, [&](const Array &k, const Arrays &c) { return loop.body(k, c); },
          Arrays{x, y});
    };
    const Arrays eager = run(a, b);
    expect_backends_agree(eager[0]);
    expect_backends_agree(eager[1]);
    // Under jit, the initial carries donated: the first iteration may not write them, later
    // ones write the loop's own.
    Array da = a + 0.0, db = b + 0.0;
    const auto jitted = jx::jit(
        [&](const Array &x, const Array &y) {
          const Arrays out = run(x, y);
          return std::make_tuple(out[0], out[1]);
        },
        {.donate_argnums = {0, 1}});
    const auto [ja, jb] = jitted(da, db);
    EXPECT_TRUE(jnp::array_equal(ja, eager[0]).item<bool>());
    EXPECT_TRUE(jnp::array_equal(jb, eager[1]).item<bool>());
  }
}

} // namespace
