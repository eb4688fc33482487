// Pytrees at the speed of flat arguments (issue 32): examples/grad/mlp.cpp's training step,
// jit(value_and_grad(loss)) of a 784-512-512-10 ReLU MLP on 256 examples, written with its six
// parameters as arrays (grad_bench's "mlp": argnums 0..5) and as one JX_PYTREE aggregate, compiled
// once each and called in alternating rounds in one process. --json prints one object.
#include <jx/jx.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/core.h>
#include <string>
#include <vector>

#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

struct MlpParams {
  Array w1, b1, w2, b2, w3, b3;
};

} // namespace

JX_PYTREE(MlpParams, w1, b1, w2, b2, w3, b3);

namespace {

Array mlp_loss(const Array &w1, const Array &b1, const Array &w2, const Array &b2, const Array &w3,
               const Array &b3, const Array &x, const Array &y) {
  auto h1 = jnp::maximum(jnp::matmul(x, w1) + b1, 0);
  auto h2 = jnp::maximum(jnp::matmul(h1, w2) + b2, 0);
  auto logits = jnp::matmul(h2, w3) + b3;
  return -jnp::mean(jnp::sum(y * jx::nn::log_softmax(logits), 1));
}

Array tree_loss(const MlpParams &p, const Array &x, const Array &y) {
  return mlp_loss(p.w1, p.b1, p.w2, p.b2, p.w3, p.b3, x, y);
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 10, reps = 10;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (arg == "--json") json = true;
  }
  const Array k = jx::random::split(jx::random::PRNGKey(1), 5);
  auto dense = [](const Array &key, int64_t in, int64_t out) {
    return jx::random::normal(key, {in, out}, jx::float32) * std::sqrt(2.0 / double(in));
  };
  const MlpParams p{dense(k(0), 784, 512), jnp::zeros({512}, jx::float32),
                    dense(k(1), 512, 512), jnp::zeros({512}, jx::float32),
                    dense(k(2), 512, 10),  jnp::zeros({10}, jx::float32)};
  const Array x = jx::random::normal(k(3), {256, 784}, jx::float32);
  const Array labels = jnp::argmax(jx::random::normal(k(4), {256, 10}), 1);
  const Array y = (labels(jx::slice(), jx::newaxis) == jnp::arange(10)).astype(jx::float32);

  auto flat = jx::jit(jx::value_and_grad(mlp_loss, std::vector<int>{0, 1, 2, 3, 4, 5}));
  auto tree = jx::jit(jx::value_and_grad(tree_loss));
  auto flat_call = [&] {
    auto [value, grads] = flat(p.w1, p.b1, p.w2, p.b2, p.w3, p.b3, x, y);
    value.block_until_ready();
    for (const Array &g : grads)
      g.block_until_ready();
    return value;
  };
  auto tree_call = [&] {
    auto [value, grads] = tree(p, x, y);
    for (const Array &g : jx::tree_leaves(grads))
      g.block_until_ready();
    return value.block_until_ready();
  };
  // The same numbers both ways.
  const float flat_value = flat_call().item<float>(), tree_value = tree_call().item<float>();
  if (flat_value != tree_value) {
    fmt::print(stderr, "the two steps differ: {} and {}\n", flat_value, tree_value);
    return 1;
  }
  std::vector<double> flat_ms, tree_ms;
  for (int r = 0; r < rounds; ++r)
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < reps; ++i) {
        auto start = Clock::now();
        side == 0 ? flat_call() : tree_call();
        (side == 0 ? flat_ms : tree_ms).push_back(ms_since(start));
      }
  const double f = median(flat_ms), t = median(tree_ms);
  if (json)
    fmt::print("{{\"name\": \"mlp_step\", \"flat_ms\": {:.3f}, \"pytree_ms\": {:.3f}}}\n", f, t);
  else
    fmt::print("mlp step (jit(value_and_grad(loss)), float32, batch 256): six arrays {:.2f} ms, "
               "JX_PYTREE(MlpParams, ...) {:.2f} ms, pytree / flat {:.3f} (medians of {} calls "
               "each)\n",
               f, t, t / f, rounds * reps);
}
