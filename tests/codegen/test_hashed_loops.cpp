// Loops that hash their index (threefry over a loop counter or an element index) reach Loop
// Strength Reduction with the induction values hidden behind an empty asm; loops whose index
// arithmetic is affine, wrapped or gathered keep it visible (codegen::optimize).
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <string>

#include "backends_agree.h"

namespace {

namespace jnp = jx::numpy;
namespace jr = jx::random;
namespace lax = jx::lax;
using jx::Array;

bool hides_induction(const std::string &text) {
  return text.find("asm \"\", \"=r,0\"") != std::string::npos;
}

// Each step draws from fold_in(key, i): the counter i is the step loop's induction variable.
Array folded_draws(const Array &key) {
  return lax::fori_loop(
      0, 7,
      [&](const Array &i, const Array &out) {
        return out.at(i).set(jr::uniform(jr::fold_in(key, i), {3}));
      },
      jnp::zeros({7, 3}));
}

TEST(HashedLoops, FoldInOfALoopIndexIsHiddenAndExact) {
  const Array key = jr::PRNGKey(3);
  const auto compiled = jx::jit(folded_draws).lower(key).compile();
  EXPECT_TRUE(hides_induction(compiled.as_text()));
  const Array draws = jx::jit(folded_draws)(key);
  for (int64_t i = 0; i < 7; ++i) {
    const std::vector<float> row = draws(i).to_vector<float>();
    EXPECT_EQ(row, jr::uniform(jr::fold_in(key, i), {3}).to_vector<float>()) << "step " << i;
  }
}

TEST(HashedLoops, RandomBitsOfAScalarElementLoopAgreeWithTheEvaluator) {
  // randint's bounds per element keep its loop scalar: threefry over the element index.
  const Array low = jnp::arange(int64_t(0), int64_t(5)).reshape({5, 1});
  const Array draws = jr::randint(jr::PRNGKey(7), {5, 3}, low, low + 9);
  test_util::expect_backends_agree(draws);
}

TEST(HashedLoops, WrappedAndGatheredIndicesStayVisible) {
  const auto roll = [](const Array &x) { return jnp::roll(x.reshape({-1}), 5).reshape(x.shape()); };
  const auto gather = [](const Array &x, const Array &idx) { return jnp::take(x, idx) * 2.0; };
  const Array x = jnp::arange(343.0).reshape({7, 7, 7});
  const Array idx = jnp::arange(int64_t(0), int64_t(300)) * 7 % 343;
  EXPECT_FALSE(hides_induction(jx::jit(roll).lower(x).compile().as_text()));
  EXPECT_FALSE(hides_induction(jx::jit(gather).lower(x, idx).compile().as_text()));
}

} // namespace
