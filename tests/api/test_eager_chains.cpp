// Issue 11, long eager chains: a result whose chain of pending nodes reaches
// api::max_pending_depth is computed as it is made (outside traces), so graph walks stay bounded
// and a million-step `x = x + 1` from a realized array runs in linear time (it took 17.5 s; now
// 5.7 s, bench driver outside the repo). Inside jit the chain stays one traced graph.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include "api/internal.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;

TEST(EagerChains, PendingDepthStaysBounded) {
  Array x = jnp::arange(100.0);
  x.block_until_ready();
  const int64_t steps = 3 * jx::api::max_pending_depth + 17;
  int64_t deepest = 0;
  for (int64_t i = 0; i < steps; ++i) {
    x = x + 1.0;
    deepest = std::max(deepest, x.node()->pending_depth());
  }
  EXPECT_LT(deepest, jx::api::max_pending_depth);
  EXPECT_EQ(x.to_vector<double>()[0], double(steps));
  EXPECT_EQ(x.to_vector<double>()[99], double(steps + 99));
}

TEST(EagerChains, TracesKeepTheirWholeGraph) {
  const int64_t steps = jx::api::max_pending_depth + 5;
  auto f = jx::jit([&](const Array &a) {
    Array y = a;
    for (int64_t i = 0; i < steps; ++i)
      y = y + 1.0;
    EXPECT_GE(y.node()->pending_depth(), steps); // nothing was realized mid-trace
    return y;
  });
  EXPECT_EQ(f(jnp::zeros({3})).to_vector<double>(), std::vector<double>(3, double(steps)));
}

} // namespace
