// A 784-512-512-10 ReLU MLP (float32) trained by plain SGD on synthetic data, entirely in C++:
// one jitted step computes the softmax cross-entropy and its gradient (jx::value_and_grad) and
// returns the updated parameters. Labels are the argmax of a fixed random linear "teacher", so
// the loss can fall. Prints the loss every 20 steps and the median time per step; exits 1 unless
// the final loss is clearly below the initial one.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/core.h>
#include <string>
#include <vector>

namespace jnp = jx::numpy;
using jx::Array;

constexpr int64_t kIn = 784, kHidden = 512, kClasses = 10;
// Distinct batches the steps cycle through, so that consecutive steps see other examples.
constexpr int kBatches = 16;

Array log_softmax(const Array &z) {
  auto m = jnp::max(z, {.axis = 1, .keepdims = true});
  return z - m - jnp::log(jnp::sum(jnp::exp(z - m), {.axis = 1, .keepdims = true}));
}

Array loss(const Array &w1, const Array &b1, const Array &w2, const Array &b2, const Array &w3,
           const Array &b3, const Array &x, const Array &onehot) {
  auto h1 = jnp::maximum(jnp::matmul(x, w1) + b1, 0);
  auto h2 = jnp::maximum(jnp::matmul(h1, w2) + b2, 0);
  auto logits = jnp::matmul(h2, w3) + b3;
  return -jnp::mean(jnp::sum(onehot * log_softmax(logits), 1));
}

int main(int argc, char **argv) {
  int steps = 200, batch = 256;
  double lr = 0.1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc)
      batch = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--lr") && i + 1 < argc)
      lr = std::atof(argv[++i]);
  }

  auto keys = jx::random::split(jx::random::PRNGKey(0), 5);
  // He initialization keeps the ReLU activations' scale from layer to layer.
  auto dense = [](const jx::random::Key &key, int64_t in, int64_t out) {
    return jx::random::normal(key, {in, out}, jx::float32) * std::sqrt(2.0 / double(in));
  };
  std::vector<Array> params{dense(keys[0], kIn, kHidden),      jnp::zeros({kHidden}, jx::float32),
                            dense(keys[1], kHidden, kHidden),  jnp::zeros({kHidden}, jx::float32),
                            dense(keys[2], kHidden, kClasses), jnp::zeros({kClasses}, jx::float32)};
  auto teacher = jx::random::normal(keys[3], {kIn, kClasses}, jx::float32);
  auto inputs = jx::random::normal(keys[4], {kBatches * int64_t(batch), kIn}, jx::float32);
  auto labels = jnp::argmax(jnp::matmul(inputs, teacher), 1);
  auto onehot = (labels(jx::slice(), jx::newaxis) == jnp::arange(kClasses)).astype(jx::float32);
  std::vector<Array> xs, ys;
  for (int k = 0; k < kBatches; ++k) {
    auto rows = jx::slice(k * int64_t(batch), (k + 1) * int64_t(batch));
    xs.push_back(inputs(rows));
    ys.push_back(onehot(rows));
    xs.back().block_until_ready();
    ys.back().block_until_ready();
  }

  auto step = jx::jit([lr](const Array &w1, const Array &b1, const Array &w2, const Array &b2,
                           const Array &w3, const Array &b3, const Array &x, const Array &y) {
    auto [value, grads] =
        jx::value_and_grad(loss, std::vector<int>{0, 1, 2, 3, 4, 5})(w1, b1, w2, b2, w3, b3, x, y);
    std::vector<Array> out{value};
    const Array *ps[] = {&w1, &b1, &w2, &b2, &w3, &b3};
    for (size_t i = 0; i < grads.size(); ++i)
      out.push_back(*ps[i] - lr * grads[i]);
    return out;
  });

  fmt::print("mlp: {}-{}-{}-{} ReLU, float32, batch {}, {} steps of SGD (lr {})\n", kIn, kHidden,
             kHidden, kClasses, batch, steps, lr);
  using clock = std::chrono::steady_clock;
  auto run_start = clock::now();
  std::vector<double> times;
  double first = 0, last = 0;
  for (int s = 0; s < steps; ++s) {
    auto t0 = clock::now();
    auto out = step(params[0], params[1], params[2], params[3], params[4], params[5],
                    xs[s % kBatches], ys[s % kBatches]);
    for (const Array &a : out)
      a.block_until_ready();
    times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    last = out[0].item<double>();
    if (s == 0) first = last;
    if (s % 20 == 0 || s == steps - 1) fmt::print("step {:4d}  loss {:.4f}\n", s, last);
    params.assign(out.begin() + 1, out.end());
  }
  double total_s = std::chrono::duration<double>(clock::now() - run_start).count();
  double first_ms = times[0];
  times.erase(times.begin());
  std::sort(times.begin(), times.end());
  double median = times.empty() ? first_ms : times[times.size() / 2];
  fmt::print("first step {:.0f} ms (trace, compile), then median {:.1f} ms per step; {:.1f} s in "
             "all\n",
             first_ms, median, total_s);
  // A model that learned nothing stays near ln(10) = 2.30; a falling loss loses a good share.
  bool ok = last < 0.8 * first;
  fmt::print("loss {:.4f} -> {:.4f}: {}\n", first, last, ok ? "ok" : "NOT DECREASED ENOUGH");
  // The update's scalars are weakly typed, so the parameters must still be float32.
  bool f32 = std::all_of(params.begin(), params.end(),
                         [](const Array &p) { return p.dtype() == jx::float32; });
  if (!f32) fmt::print("parameters are no longer float32\n");
  return ok && f32 ? 0 : 1;
}
