// Transformations under placed jit: gradients of sharded parameters are placed like them and are
// bit-identical to the unsharded program's, on the 8 devices test_sharding.cpp configures.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <vector>

#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::P;
using jx::Sharding;

std::vector<double> values(const Array &x) { return x.to_vector<double>(); }

// The diff seed's stencil in a loss: its gradient reads halos in the backward pass too.
Array stencil_loss(const Array &a) {
  const Array d = seeds::calc_fd_kernel(a);
  return jnp::sum(d * d) + jnp::sum(jnp::sin(a) * a);
}

TEST(GradSharding, GradientsArePlacedLikeTheirParametersAndBitIdentical) {
  const Array x = jx::random::normal(jx::random::PRNGKey(3), {64, 48}, jx::float64);
  const std::vector<double> expected = values(jx::jit(jx::grad(stencil_loss))(x));
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  const jx::Mesh line = jx::make_mesh({8}, {"d"});
  for (const Sharding &s : {Sharding(jx::NamedSharding(line, P("d", nullptr))),
                            Sharding(jx::NamedSharding(line, P(nullptr, "d"))),
                            Sharding(jx::NamedSharding(mesh, P("x", "y")))}) {
    SCOPED_TRACE(s.str());
    // out_shardings given, and left to propagation from the parameter.
    const Array placed = jx::jit(jx::grad(stencil_loss),
                                 {.in_shardings = {s}, .out_shardings = {s}})(jx::device_put(x, s));
    EXPECT_EQ(values(placed), expected);
    EXPECT_TRUE(placed.sharding() == s);
    const Array propagated =
        jx::jit(jx::grad(stencil_loss), {.in_shardings = {s}})(jx::device_put(x, s));
    EXPECT_EQ(values(propagated), expected);
    EXPECT_TRUE(propagated.sharding() == s) << propagated.sharding().str();
  }
}

TEST(GradSharding, ALayerWithShardedWeights) {
  // A dense layer's loss, its weights split by columns over 8 devices: the backward pass has
  // transposed contractions and a reduction over the batch.
  const Array x = jx::random::normal(jx::random::PRNGKey(4), {32, 16}, jx::float64);
  const Array w = jx::random::normal(jx::random::PRNGKey(5), {16, 40}, jx::float64);
  auto loss = [&](const Array &weights) {
    return jnp::sum(jnp::tanh(jnp::matmul(x, weights)) * 0.5);
  };
  const std::vector<double> expected = values(jx::jit(jx::grad(loss))(w));
  const Sharding s = jx::NamedSharding(jx::make_mesh({8}, {"d"}), P(nullptr, "d"));
  const Array placed = jx::jit(jx::grad(loss), {.in_shardings = {s}})(jx::device_put(w, s));
  EXPECT_EQ(values(placed), expected);
  EXPECT_TRUE(placed.sharding() == s);
}

} // namespace

namespace {

TEST(GradSharding, ConstraintsInsideTransformsPlaceTheirValues) {
  // with_sharding_constraint inside grad and vmap under jit: the constrained values are the
  // transform's own (its primal values; each example's, batched), and results do not change.
  const Array x = jx::random::normal(jx::random::PRNGKey(6), {64, 48}, jx::float64);
  const Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"d"}), P("d", nullptr));
  auto loss = [&](const Array &a) {
    const Array h = jx::with_sharding_constraint(jnp::sin(a) * a, rows);
    return jnp::sum(h * h);
  };
  auto plain = [](const Array &a) {
    const Array h = jnp::sin(a) * a;
    return jnp::sum(h * h);
  };
  EXPECT_EQ(values(jx::jit(jx::grad(loss))(x)), values(jx::jit(jx::grad(plain))(x)));
  // The constrained value is computed by rows on 8 devices: device 7 owns rows 56 to 64.
  const std::string text = jx::jit(jx::grad(loss)).lower(x).compile().as_text();
  EXPECT_NE(text.find("dev7[56:64,0:48]"), std::string::npos) << text;
  auto per_row = [&](const Array &a) { return jx::with_sharding_constraint(jnp::exp(a), rows); };
  const Array batch = jx::random::normal(jx::random::PRNGKey(7), {3, 64, 48}, jx::float64);
  EXPECT_EQ(values(jx::jit(jx::vmap(per_row))(batch)), values(jnp::exp(batch)));
  const std::string batched = jx::jit(jx::vmap(per_row)).lower(batch).compile().as_text();
  EXPECT_NE(batched.find("dev7[0:3,56:64,0:48]"), std::string::npos) << batched;
}

} // namespace
