// Differential tests of contractions: random dot_generals (jnp::einsum, matmul, tensordot, dot and
// the IR's dot_general; float32, float64, int32, int64, bool) over jit parameters, their
// transposes and slices, with elementwise producers and consumers, compiled with jx::jit and
// checked against the interpreter (the oracle) within a stated error bound (check_floats), exactly
// for integers and bools; a third of the float cases GEMM-sized so that the BLAS path is reached;
// bit-identical results over meshes of 1 to 8 devices; bool semantics; shape errors; and checks
// that the case generator covers what it claims.
// JX_DIFF_DOTS (default 300, 100 under the sanitizers) and JX_DIFF_DOT_SEED (default 1) choose
// the cases for long campaigns; JX_DIFF_DOT_SEED=<seed> JX_DIFF_DOTS=1 reruns a failing one.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "api/internal.h"
#include "diff/compare.h"
#include "eight_devices.h"
#include "ir/builder.h"
#include "runtime/gemm.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;
using jx::Shape;
using jx::api::Backend;
using jx::api::evaluate_with;
using jx::diff::multi_index;
using jx::runtime::BufferPtr;

uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}
uint64_t base_seed() { return env_or("JX_DIFF_DOT_SEED", 1); }
uint64_t case_count() { return env_or("JX_DIFF_DOTS", JX_DEFAULT_DOTS); }
constexpr uint64_t kDefaultSeed = 1, kDefaultCases = 300;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

BufferPtr interpret(const Array &x) { return evaluate_with(Backend::Interpreter, x.node()); }

// The multiply-adds a case may cost (zero-size dims count as 1, so operands stay small too). Most
// cases stay under kSmallWork; one in 15 may reach kLargeWork: 200 x 200 x 200 in Release, 126^3
// in the sanitizers' Debug build (the whole test runs in about 10 s and 20 s there on 2 cores).
constexpr int64_t kSmallWork = 40'000;
// GEMM-sized cases (a third of the float ones) have batch, m, n and k of 2 or more and at least
// kGemmMinWork multiply-adds (the size at which dot_general runs as a BLAS GEMM; smaller products
// stay fused loops), at most kGemmWork, or kLargeWork for large ones.
constexpr int64_t kGemmMinWork = 1 << 14, kGemmWork = 250'000;
#ifdef NDEBUG
constexpr int64_t kLargeWork = 8'000'000;
#else
constexpr int64_t kLargeWork = 2'000'000;
#endif
constexpr int64_t kSizes[] = {0, 1, 2, 3, 5, 7, 8, 13, 17, 31, 33, 64, 65, 97, 128, 130};
constexpr int kNumSizes = int(std::size(kSizes));

enum class Api { Einsum, DotGeneral, Matmul, Tensordot, Dot };
constexpr const char *api_name(Api a) {
  switch (a) {
  case Api::Einsum: return "einsum";
  case Api::DotGeneral: return "ir::dot_general";
  case Api::Matmul: return "matmul";
  case Api::Tensordot: return "tensordot";
  case Api::Dot: return "dot";
  }
  return "?";
}

// x*2+1 (logical_not for bool), exp (floats only).
enum class Producer { None, Affine, Exp };

// How one operand of the contraction is made from its jit parameter: slice, then transpose, then
// the producer.
struct OperandPlan {
  Shape param;                   // the parameter's shape
  std::vector<jx::Slice> slices; // one per axis; empty: not sliced
  std::vector<int64_t> perm;     // empty: not transposed
  Producer producer = Producer::None;
  Shape shape;                        // what the contraction sees
  std::vector<int64_t> contract_axes; // which of its axes are contracted, in pairing order
  bool strided = false, reversed = false, offset = false; // what its slices do
};

struct Case {
  uint64_t seed = 0;
  DType dtype = DType::float64;
  Api api = Api::Einsum;
  int64_t nb = 0, nc = 0, nl = 0, nr = 0; // batch, contracted, lhs free, rhs free dims
  OperandPlan lhs, rhs;
  std::string subscripts;              // einsum
  std::vector<int64_t> lb, rb, lc, rc; // ir::dot_general (lc, rc also for tensordot)
  int64_t k = 1;                       // contracted length
  int64_t work = 1;                    // as budgeted
  Shape out;                           // the result's shape
  // Consumers: y + bias (bias of the output's shape, its last axis, or a scalar), relu
  // (jnp::maximum(y, 0)), y * scale. For bool: logical_xor with the bias, logical_not.
  bool has_bias = false, relu = false;
  Shape bias;
  bool gemm_sized = false, large = false;
  double scale = 0; // 0: none
  std::string description;
};

std::string shape_text(const Shape &s) { return fmt::format("[{}]", fmt::join(s, ",")); }

std::string slice_text(const jx::Slice &s) {
  auto part = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string(); };
  return fmt::format("{}:{}:{}", part(s.start), part(s.stop), part(s.step));
}

// Slices for an axis of length n: plain, offset, strided or reversed (steps of 1 only when
// !strided); returns the parameter's length along it.
int64_t random_slice(int64_t n, bool strided, std::mt19937_64 &rng, OperandPlan &p) {
  static constexpr int64_t steps[] = {1, 1, 1, 2, 3, -1, -2};
  int64_t step = steps[rng() % std::size(steps)];
  if (!strided) step = step > 0 ? 1 : -1;
  const int64_t off = int64_t(rng() % 3), extra = int64_t(rng() % 3);
  if (n == 0) {
    p.slices.push_back(jx::slice(off, off, 1));
    p.offset = p.offset || off > 0;
    return off + extra;
  }
  const int64_t span = (n - 1) * std::abs(step) + 1, length = off + span + extra;
  p.strided = p.strided || std::abs(step) > 1;
  p.offset = p.offset || off > 0;
  if (step > 0) {
    p.slices.push_back(jx::slice(off, off + span, step));
  } else {
    p.reversed = true;
    const int64_t start = length - 1 - off, stop = start - span;
    p.slices.push_back(
        jx::slice(start, stop < 0 ? std::nullopt : std::optional<int64_t>(stop), step));
  }
  return length;
}

// Fills in how an operand of `shape` comes from its parameter.
void plan_operand(OperandPlan &p, DType dtype, std::mt19937_64 &rng) {
  const int64_t rank = int64_t(p.shape.size());
  const int kind = int(rng() % 20); // 8 plain, 5 transposed, 4 sliced, 3 both
  const bool sliced = kind >= 13, transposed = kind >= 8 && kind < 13 ? true : kind >= 17;
  Shape before_transpose = p.shape;
  if (transposed && rank >= 2) {
    p.perm.resize(size_t(rank));
    std::iota(p.perm.begin(), p.perm.end(), 0);
    do
      std::shuffle(p.perm.begin(), p.perm.end(), rng);
    while (std::is_sorted(p.perm.begin(), p.perm.end()));
    for (int64_t i = 0; i < rank; ++i)
      before_transpose[size_t(p.perm[size_t(i)])] = p.shape[size_t(i)];
  }
  p.param = before_transpose;
  // Strides multiply across axes: a parameter more than 8 times the operand (and over 4 Ki
  // elements) is drawn again with unit steps.
  for (int attempt = 0; sliced && rank >= 1 && attempt < 2; ++attempt) {
    p.slices.clear();
    p.strided = p.reversed = p.offset = false;
    for (int64_t a = 0; a < rank; ++a)
      p.param[size_t(a)] = random_slice(before_transpose[size_t(a)], attempt == 0, rng, p);
    if (jx::shape_size(p.param) <= 8 * jx::shape_size(p.shape) + 4096) break;
  }
  const int r = int(rng() % 20);
  if (dtype == DType::bool_ || !jx::is_floating(dtype))
    p.producer = r < 8 ? Producer::Affine : Producer::None;
  else
    p.producer = r < 5 ? Producer::Affine : r < 10 ? Producer::Exp : Producer::None;
}

// Dim sizes within the budget: the largest is drawn smaller until the work fits. Large cases start
// from sizes of 17 and up and step one size down at a time, so their work ends near the budget.
// GEMM-sized ones use sizes of 2 and up, the smallest grown until the work reaches kGemmMinWork.
std::vector<int64_t> random_sizes(size_t count, int64_t budget, bool large, bool gemm_sized,
                                  std::mt19937_64 &rng) {
  const int lowest = gemm_sized ? 2 : 0;
  std::vector<int> idx(count);
  for (int &i : idx)
    i = large ? kNumSizes / 2 + int(rng() % (kNumSizes / 2))
              : lowest + int(rng() % uint64_t(kNumSizes - lowest));
  auto work = [&] {
    int64_t w = 1;
    for (int i : idx)
      w *= std::max<int64_t>(1, kSizes[i]);
    return w;
  };
  while (work() > budget) {
    int &largest = *std::max_element(idx.begin(), idx.end());
    largest = large || gemm_sized ? largest - 1 : lowest + int(rng() % uint64_t(largest - lowest));
  }
  while (gemm_sized && work() < kGemmMinWork) {
    int &smallest = *std::min_element(idx.begin(), idx.end());
    ++smallest;
  }
  std::vector<int64_t> sizes;
  for (int i : idx)
    sizes.push_back(kSizes[i]);
  return sizes;
}

Case make_case(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 12345);
  Case c;
  c.seed = seed;
  static constexpr DType dtypes[] = {DType::float32, DType::float32, DType::float32, DType::float64,
                                     DType::float64, DType::float64, DType::int32,   DType::int32,
                                     DType::int64,   DType::int64,   DType::bool_};
  c.dtype = dtypes[rng() % std::size(dtypes)];
  static constexpr Api apis[] = {Api::Einsum,     Api::Einsum,     Api::Einsum, Api::Einsum,
                                 Api::DotGeneral, Api::DotGeneral, Api::Matmul, Api::Matmul,
                                 Api::Tensordot,  Api::Dot};
  c.api = apis[rng() % std::size(apis)];
  auto upto2 = [&] { return int64_t(rng() % 3); };
  c.gemm_sized = jx::is_floating(c.dtype) && rng() % 3 == 0;
  auto one_or_two = [&] { return int64_t(1 + rng() % 2); };
  if (c.gemm_sized) switch (c.api) {
    case Api::Einsum:
    case Api::DotGeneral:
      c.nb = upto2(), c.nc = one_or_two(), c.nl = one_or_two(), c.nr = one_or_two();
      break;
    case Api::Matmul: c.nb = upto2(), c.nc = 1, c.nl = 1, c.nr = 1; break;
    case Api::Tensordot: c.nc = one_or_two(), c.nl = one_or_two(), c.nr = one_or_two(); break;
    case Api::Dot: c.nc = 1, c.nl = one_or_two(), c.nr = one_or_two(); break;
    }
  else
    switch (c.api) {
    case Api::Einsum:
    case Api::DotGeneral: c.nb = upto2(), c.nc = upto2(), c.nl = upto2(), c.nr = upto2(); break;
    case Api::Matmul:
      c.nc = 1, c.nl = int64_t(rng() % 2), c.nr = int64_t(rng() % 2);
      c.nb = c.nl && c.nr ? upto2() : 0;
      break;
    case Api::Tensordot: c.nc = upto2(), c.nl = upto2(), c.nr = upto2(); break;
    case Api::Dot: c.nc = 1, c.nl = upto2(), c.nr = upto2(); break;
    }
  const bool large = c.large = rng() % 15 == 0;
  const size_t dims = size_t(c.nb + c.nc + c.nl + c.nr);
  const std::vector<int64_t> sizes = random_sizes(dims,
                                                  large          ? kLargeWork
                                                  : c.gemm_sized ? kGemmWork
                                                                 : kSmallWork,
                                                  large, c.gemm_sized, rng);
  // Labels 0.. : batch, contracted, lhs free, rhs free.
  std::vector<int64_t> batch, contract, lfree, rfree;
  for (int64_t i = 0; i < int64_t(dims); ++i)
    (i < c.nb                 ? batch
     : i < c.nb + c.nc        ? contract
     : i < c.nb + c.nc + c.nl ? lfree
                              : rfree)
        .push_back(i);
  for (int64_t s : sizes) {
    c.work *= std::max<int64_t>(1, s);
  }
  for (int64_t l : contract)
    c.k *= sizes[size_t(l)];

  // Each operand's axes as labels.
  std::vector<int64_t> left, right;
  auto cat = [](std::initializer_list<std::vector<int64_t>> parts) {
    std::vector<int64_t> v;
    for (const auto &p : parts)
      v.insert(v.end(), p.begin(), p.end());
    return v;
  };
  switch (c.api) {
  case Api::Einsum:
  case Api::DotGeneral:
  case Api::Tensordot:
    if (c.gemm_sized && rng() % 2) {
      // Grouped as BLAS reads them, each operand row- or column-major.
      left = rng() % 2 ? cat({batch, lfree, contract}) : cat({batch, contract, lfree});
      right = rng() % 2 ? cat({batch, contract, rfree}) : cat({batch, rfree, contract});
      break;
    }
    left = cat({batch, contract, lfree});
    right = cat({batch, contract, rfree});
    std::shuffle(left.begin(), left.end(), rng);
    std::shuffle(right.begin(), right.end(), rng);
    break;
  case Api::Matmul:
    left = cat({batch, lfree, contract});
    right = cat({batch, contract, rfree});
    break;
  case Api::Dot:
    left = cat({lfree, contract});
    right =
        rfree.empty()
            ? contract
            : cat({std::vector<int64_t>(rfree.begin(), rfree.end() - 1), contract, {rfree.back()}});
    break;
  }
  auto position = [](const std::vector<int64_t> &labels, int64_t l) {
    return int64_t(std::find(labels.begin(), labels.end(), l) - labels.begin());
  };
  // The contracted pairs in a random order (einsum's order is its own; GEMM-sized cases keep
  // theirs, which groups).
  std::vector<int64_t> pairs = contract;
  if (!c.gemm_sized) std::shuffle(pairs.begin(), pairs.end(), rng);
  for (int64_t l : batch) {
    c.lb.push_back(position(left, l));
    c.rb.push_back(position(right, l));
  }
  for (int64_t l : pairs) {
    c.lc.push_back(position(left, l));
    c.rc.push_back(position(right, l));
  }
  c.lhs.contract_axes = c.lc;
  c.rhs.contract_axes = c.rc;
  for (int64_t l : left)
    c.lhs.shape.push_back(sizes[size_t(l)]);
  for (int64_t l : right)
    c.rhs.shape.push_back(sizes[size_t(l)]);

  // The result's labels: dot_general's order (batch, lhs free, rhs free), or for einsum a random
  // permutation.
  std::vector<int64_t> out_labels = batch;
  for (int64_t l : left)
    if (std::count(lfree.begin(), lfree.end(), l)) out_labels.push_back(l);
  for (int64_t l : right)
    if (std::count(rfree.begin(), rfree.end(), l)) out_labels.push_back(l);
  if (c.api == Api::Einsum) {
    std::shuffle(out_labels.begin(), out_labels.end(), rng);
    // Random distinct letters, either case.
    std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::shuffle(letters.begin(), letters.end(), rng);
    auto term = [&](const std::vector<int64_t> &labels) {
      std::string s;
      for (int64_t l : labels)
        s += letters[size_t(l)];
      return s;
    };
    c.subscripts = term(left) + "," + term(right) + "->" + term(out_labels);
  }
  for (int64_t l : out_labels)
    c.out.push_back(sizes[size_t(l)]);

  plan_operand(c.lhs, c.dtype, rng);
  plan_operand(c.rhs, c.dtype, rng);

  c.has_bias = rng() % 2;
  if (c.has_bias) {
    const int b = int(rng() % 3);
    c.bias = b == 0 || c.out.empty() ? Shape{} : b == 1 ? Shape{c.out.back()} : c.out;
  }
  c.relu = rng() % 10 < 3;
  if (rng() % 10 < 3) {
    const bool fl = jx::is_floating(c.dtype);
    c.scale = rng() % 2 ? (fl ? 0.5 : 3.0) : (fl ? -3.0 : -2.0);
  }

  // The description: enough to read the case without running it.
  auto operand_text = [&](const char *name, const OperandPlan &p) {
    std::string s = fmt::format("param{}", shape_text(p.param));
    if (!p.slices.empty()) {
      std::vector<std::string> parts;
      for (const jx::Slice &sl : p.slices)
        parts.push_back(slice_text(sl));
      s += fmt::format("[{}]", fmt::join(parts, ", "));
    }
    if (!p.perm.empty()) s = fmt::format("transpose({}, [{}])", s, fmt::join(p.perm, ","));
    if (p.producer == Producer::Affine)
      s = c.dtype == DType::bool_ ? fmt::format("logical_not({})", s) : fmt::format("{}*2+1", s);
    if (p.producer == Producer::Exp) s = fmt::format("exp({})", s);
    return fmt::format("{} = {} : {}", name, s, shape_text(p.shape));
  };
  std::string call;
  switch (c.api) {
  case Api::Einsum: call = fmt::format("einsum('{}', lhs, rhs)", c.subscripts); break;
  case Api::DotGeneral:
    call = fmt::format("dot_general(lhs, rhs, batch=([{}], [{}]), contract=([{}], [{}]))",
                       fmt::join(c.lb, ","), fmt::join(c.rb, ","), fmt::join(c.lc, ","),
                       fmt::join(c.rc, ","));
    break;
  case Api::Matmul: call = "matmul(lhs, rhs)"; break;
  case Api::Tensordot:
    call = fmt::format("tensordot(lhs, rhs, ([{}], [{}]))", fmt::join(c.lc, ","),
                       fmt::join(c.rc, ","));
    break;
  case Api::Dot: call = "dot(lhs, rhs)"; break;
  }
  std::string consumers;
  if (c.dtype == DType::bool_) {
    if (c.has_bias) consumers += fmt::format(" ^ bias{}", shape_text(c.bias));
    if (c.relu) consumers += ", logical_not";
  } else {
    if (c.has_bias) consumers += fmt::format(" + bias{}", shape_text(c.bias));
    if (c.relu) consumers += ", maximum(y, 0)";
    if (c.scale != 0) consumers += fmt::format(", * {}", c.scale);
  }
  c.description = fmt::format("seed {}: {} {}{}; k = {}, result {}{}\n  {}\n  {}", seed,
                              jx::dtype_name(c.dtype), call, consumers, c.k, shape_text(c.out),
                              c.gemm_sized ? " (GEMM-sized)" : "", operand_text("lhs", c.lhs),
                              operand_text("rhs", c.rhs));
  return c;
}

// The operand as the contraction sees it. drop_last_term zeroes its last index along its first
// contracted axis (a deliberately wrong program, for the bound's sensitivity).
Array prepare(const Case &c, const OperandPlan &p, const Array &param,
              bool drop_last_term = false) {
  Array x = param;
  if (!p.slices.empty()) x = x.index(std::vector<jx::IndexItem>(p.slices.begin(), p.slices.end()));
  if (!p.perm.empty()) x = jnp::transpose(x, p.perm);
  if (p.producer == Producer::Affine) x = c.dtype == DType::bool_ ? jnp::logical_not(x) : x * 2 + 1;
  if (p.producer == Producer::Exp) x = jnp::exp(x);
  if (drop_last_term && !p.contract_axes.empty()) {
    const int64_t axis = p.contract_axes[0], n = x.shape()[size_t(axis)];
    Shape s(x.shape().size(), 1);
    s[size_t(axis)] = n;
    x = jnp::where(jnp::reshape(jnp::arange(n) != n - 1, s), x, 0.0);
  }
  return x;
}

Array contract(const Case &c, const Array &l, const Array &r) {
  switch (c.api) {
  case Api::Einsum: return jnp::einsum(c.subscripts, l, r);
  case Api::DotGeneral:
    return Array(jx::ir::dot_general(l.node(), r.node(), c.lb, c.rb, c.lc, c.rc));
  case Api::Matmul: return jnp::matmul(l, r);
  case Api::Tensordot: return jnp::tensordot(l, r, {c.lc, c.rc});
  case Api::Dot: return jnp::dot(l, r);
  }
  throw std::logic_error("unknown api");
}

Array consume(const Case &c, Array y, const Array &bias) {
  if (c.dtype == DType::bool_) {
    if (c.has_bias) y = jnp::logical_xor(y, bias);
    if (c.relu) y = jnp::logical_not(y);
    return y;
  }
  if (c.has_bias) y = y + bias;
  if (c.relu) y = jnp::maximum(y, 0);
  if (c.scale != 0) y = jx::is_floating(c.dtype) ? y * c.scale : y * int64_t(c.scale);
  return y;
}

// The whole program of a case, of its three arguments (the bias is unused without one).
Array program(const Case &c, const Array &lhs, const Array &rhs, const Array &bias,
              bool drop_last_term = false) {
  return consume(c, contract(c, prepare(c, c.lhs, lhs, drop_last_term), prepare(c, c.rhs, rhs)),
                 bias);
}

// Argument values: floats in [-1, 1], int32 in [-8, 8], int64 in [-2^20, 2^20] (no overflow in
// any case's sums), bools.
Array random_array(const Shape &shape, DType dtype, std::mt19937_64 &rng) {
  const size_t n = size_t(jx::shape_size(shape));
  auto fill = [&]<class T>(auto draw) {
    std::vector<T> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = T(draw());
    return jnp::array(v, shape);
  };
  // Uniform in [-1, 1) from 53 random bits (libstdc++'s uniform_real_distribution takes a long
  // double logarithm per draw: 14% of this test under ASan).
  auto unit = [&] { return double(rng() >> 11) * 0x1p-52 - 1.0; };
  switch (dtype) {
  case DType::float32: return fill.operator()<float>(unit);
  case DType::float64: return fill.operator()<double>(unit);
  case DType::int32: return fill.operator()<int32_t>([&] { return int64_t(rng() % 17) - 8; });
  case DType::int64:
    return fill.operator()<int64_t>([&] { return int64_t(rng() % (1 << 21)) - (1 << 20); });
  case DType::bool_: return fill.operator()<bool>([&] { return rng() % 2 == 0; });
  default: break;
  }
  throw std::logic_error("a dtype the cases do not draw");
}

struct Arguments {
  Array lhs, rhs, bias;
};

Arguments arguments(const Case &c) {
  std::mt19937_64 rng(c.seed ^ 0x5DEECE66Dull);
  Array lhs = random_array(c.lhs.param, c.dtype, rng),
        rhs = random_array(c.rhs.param, c.dtype, rng);
  return {lhs, rhs, random_array(c.has_bias ? c.bias : Shape{}, c.dtype, rng)};
}

std::vector<jx::ShapeDtypeStruct> specs(const Case &c) {
  return {{c.lhs.param, c.dtype}, {c.rhs.param, c.dtype}, {c.has_bias ? c.bias : Shape{}, c.dtype}};
}

// The case compiled by jx::jit over its parameters, with out_shardings when given, and called.
// gemm, when given, tells whether the contraction ran as a BLAS GEMM (a "gemm" step in the plan).
Array run_compiled(const Case &c, const Arguments &a, std::vector<jx::Sharding> out_shardings = {},
                   bool *gemm = nullptr) {
  auto f = [&c](const Array &lhs, const Array &rhs, const Array &bias) {
    return program(c, lhs, rhs, bias);
  };
  const std::vector<jx::ShapeDtypeStruct> s = specs(c);
  auto compiled =
      jx::jit(f, {.out_shardings = std::move(out_shardings)}).lower(s[0], s[1], s[2]).compile();
  if (gemm) *gemm = compiled.as_text().find(" = gemm dot_general") != std::string::npos;
  Array out = compiled(a.lhs, a.rhs, a.bias);
  out.block_until_ready();
  return out;
}

BufferPtr buffer_of(const Array &x) {
  return jx::runtime::Buffer::borrow(const_cast<void *>(x.data()),
                                     size_t(x.size()) * jx::itemsize(x.dtype()));
}

double element(const BufferPtr &b, DType dtype, int64_t i) {
  return dtype == DType::float32 ? double(b->as<float>()[i]) : b->as<double>()[i];
}

// The float error bound, per element of the result f = scale * relu(y + bias), y = sum_k a*b:
//
//   |f_jx - f_ref| <= |scale| * (k + 10) * eps * sum_k |a| |b|  +  4 * eps * |f_ref|
//
// eps is the dtype's machine epsilon (2^-23, 2^-52), k the contracted length, sum_k |a||b|
// computed by the interpreter in float64 on jnp::abs of the operands, contracted the same way.
// k * eps * sum|a||b| covers any order of the k - 1 additions and k roundings of products, in the
// dtype's precision or wider (the interpreter accumulates float32 in double), on either side; the
// 10 covers operands computed by exp (libm against libmvec: up to 4 ulp each, 8 for both) and
// spare; 4 * eps * |f| covers rounding the bias addition and the scaling on each side (relu does
// not widen a difference). A contraction over k = 0 must give exactly 0.
struct FloatCheck {
  bool ok = true;
  std::string message;
  int64_t differing = 0; // elements not bitwise equal
  double worst = 0;      // max |error| / bound over elements with a nonzero bound
};

FloatCheck check_floats(const Case &c, const BufferPtr &expected, const BufferPtr &actual,
                        const BufferPtr &abs_sum) {
  const double eps = c.dtype == DType::float32 ? 0x1p-23 : 0x1p-52;
  const double scale = c.scale != 0 ? std::abs(c.scale) : 1.0;
  FloatCheck r;
  const int64_t n = jx::shape_size(c.out);
  for (int64_t i = 0; i < n; ++i) {
    const double e = element(expected, c.dtype, i), a = element(actual, c.dtype, i);
    const double s = abs_sum->as<double>()[i];
    const double bound = scale * double(c.k + 10) * eps * s + 4 * eps * std::abs(e);
    const double error = std::abs(a - e);
    r.differing += !(a == e);
    if (bound > 0) r.worst = std::max(r.worst, error / bound);
    if (!(error <= bound) && r.ok) { // NaN fails too: no case can produce one
      r.ok = false;
      r.message = fmt::format("at {}: jx {} vs interpreter {}: error {:.3g} > bound {:.3g} "
                              "(sum|a||b| = {:.6g})",
                              multi_index(c.out, i), a, e, error, bound, s);
    }
  }
  return r;
}

// Float64 sum_k |a| |b| for the case, in the result's layout (consumers keep it).
BufferPtr abs_products(const Case &c, const Arguments &a) {
  Array l = jnp::abs(prepare(c, c.lhs, a.lhs)).astype(jnp::float64);
  Array r = jnp::abs(prepare(c, c.rhs, a.rhs)).astype(jnp::float64);
  return interpret(contract(c, l, r));
}

// Collects failures; the first 10 are printed in full.
class Failures {
public:
  void add(const Case &c, const std::string &what) {
    if (count_++ < 10) text_ += fmt::format("\n--- {}\n{}\n", what, c.description);
  }
  void report(uint64_t cases) const {
    if (count_) ADD_FAILURE() << count_ << " of " << cases << " cases failed" << text_;
  }

private:
  int64_t count_ = 0;
  std::string text_;
};

TEST(Contractions, CompiledMatchesInterpreter) {
  const uint64_t cases = case_count(), base = base_seed();
  Failures failures;
  std::map<DType, int64_t> per_dtype, gemms;
  int64_t differing = 0, float_elements = 0, exact_elements = 0;
  double worst = 0, slowest = 0;
  uint64_t slowest_seed = 0;
  int64_t slowest_work = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = base; seed < base + cases; ++seed) {
    const Case c = make_case(seed);
    const auto t_case = std::chrono::steady_clock::now();
    try {
      const Arguments a = arguments(c);
      const Array reference = program(c, a.lhs, a.rhs, a.bias);
      const BufferPtr expected = interpret(reference);
      bool gemm = false;
      const Array out = run_compiled(c, a, {}, &gemm);
      gemms[c.dtype] += gemm;
      if (out.shape() != c.out || out.dtype() != c.dtype) {
        failures.add(c, fmt::format("compiled result is {}{}, expected {}{}",
                                    jx::dtype_name(out.dtype()), shape_text(out.shape()),
                                    jx::dtype_name(c.dtype), shape_text(c.out)));
        continue;
      }
      ++per_dtype[c.dtype];
      if (jx::is_floating(c.dtype)) {
        FloatCheck r = check_floats(c, expected, buffer_of(out), abs_products(c, a));
        differing += r.differing;
        float_elements += out.size();
        worst = std::max(worst, r.worst);
        if (!r.ok) failures.add(c, r.message);
      } else {
        // Integers and bools: exactly the interpreter's values.
        jx::diff::CompareResult r =
            jx::diff::compare_buffers(reference, expected, buffer_of(out), {});
        exact_elements += out.size();
        if (!r.ok) failures.add(c, r.message);
      }
    } catch (const std::exception &e) {
      failures.add(c, fmt::format("threw: {}", e.what()));
    }
    const double t = seconds_since(t_case);
    if (t > slowest) slowest = t, slowest_seed = seed, slowest_work = c.work;
  }
  std::string dtypes;
  for (auto [t, n] : per_dtype)
    dtypes += fmt::format(" {}={} ({} as GEMMs)", jx::dtype_name(t), n, gemms[t]);
  fmt::print(
      "{} contractions from seed {} in {:.2f} s ({});\n{} float elements ({} differ "
      "bitwise, worst error {:.3g} of its bound), {} integer and bool elements equal; slowest: "
      "seed {} ({} multiply-adds) in {:.2f} s\n",
      cases, base, seconds_since(t0), dtypes, float_elements, differing, worst, exact_elements,
      slowest_seed, slowest_work, slowest);
  failures.report(cases);
  // The campaign guards the BLAS path only if it reaches it.
  if (cases >= 100) {
    for (DType t : {DType::float32, DType::float64})
      EXPECT_GE(gemms[t], int64_t(cases / 30))
          << "few " << jx::dtype_name(t) << " contractions ran as GEMMs";
  }
}

// The float cases with rank-2 or rank-3 results, compiled with out_shardings over 1, 2, 3, 4 and
// 8 devices (rows split), a 2 x 4 mesh P('x', 'y') and 8 devices over columns: every placement
// gives the unplaced program's bits.
TEST(Contractions, ShardedResultsAreBitIdentical) {
  const uint64_t base = base_seed();
  // 30 by default, half of them GEMM-sized.
  const uint64_t wanted = std::max<uint64_t>(1, case_count() / 10);
  uint64_t tested_gemm_sized = 0, ran_as_gemm = 0;
  std::vector<jx::Device> devices = jx::devices();
  auto rows = [&](int64_t n, size_t rank) {
    Shape shape(rank, 1);
    shape[0] = n;
    return jx::Sharding(jx::PositionalSharding(
                            jx::mesh_utils::create_device_mesh(
                                {n}, std::vector<jx::Device>(devices.begin(), devices.begin() + n)))
                            .reshape(shape));
  };
  const jx::Sharding grid = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), jx::P("x", "y"));
  const jx::Sharding columns = jx::NamedSharding(jx::make_mesh({8}, {"d"}), jx::P(nullptr, "d"));
  Failures failures;
  uint64_t tested = 0;
  std::vector<std::string> shapes; // (result, k)
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = base; tested < wanted && seed < base + 100 * wanted; ++seed) {
    const Case c = make_case(seed);
    if (!jx::is_floating(c.dtype) || (c.out.size() != 2 && c.out.size() != 3)) continue;
    if ((c.gemm_sized ? tested_gemm_sized : tested - tested_gemm_sized) >= (wanted + 1) / 2)
      continue;
    ++tested;
    tested_gemm_sized += c.gemm_sized;
    shapes.push_back(fmt::format("{}{}", shape_text(c.out), c.k));
    try {
      const Arguments a = arguments(c);
      bool gemm = false;
      const Array whole = run_compiled(c, a, {}, &gemm);
      ran_as_gemm += gemm;
      std::vector<std::pair<std::string, jx::Sharding>> placements;
      for (int64_t n : {1, 2, 3, 4, 8})
        placements.emplace_back(fmt::format("{} devices over rows", n), rows(n, c.out.size()));
      placements.emplace_back("2 x 4 mesh P('x', 'y')", grid);
      placements.emplace_back("8 devices over columns", columns);
      for (const auto &[name, sharding] : placements) {
        const Array placed = run_compiled(c, a, {sharding});
        const size_t bytes = size_t(whole.size()) * jx::itemsize(c.dtype);
        if (!(placed.sharding() == sharding)) {
          failures.add(
              c, fmt::format("{}: the result is placed as {}", name, placed.sharding().str()));
        } else if (bytes && std::memcmp(whole.data(), placed.data(), bytes) != 0) {
          jx::diff::CompareResult r =
              jx::diff::compare_buffers(whole, buffer_of(whole), buffer_of(placed), {});
          failures.add(c, fmt::format("{}: {}", name, r.message));
        }
      }
    } catch (const std::exception &e) {
      failures.add(c, fmt::format("threw: {}", e.what()));
    }
  }
  fmt::print("{} float contractions ({} run as GEMMs) compiled for 7 placements each in {:.2f} s; "
             "(result, k): {}\n",
             tested, ran_as_gemm, seconds_since(t0), fmt::join(shapes, " "));
  EXPECT_EQ(tested, wanted);
  failures.report(tested);
}

// Deep products (k >= 4 max(m, n)) run as k parts summed after (runtime::gemm_tiles): within the
// bound of the interpreter, and every placement of the result gives the unplaced program's bits.
TEST(Contractions, DeepProductsSplitAlongK) {
  const jx::Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"d"}), jx::P("d", nullptr));
  const jx::Sharding grid = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), jx::P("x", "y"));
  const int64_t m = 48, n = 40, k = 4001;
  for (DType dtype : {DType::float32, DType::float64}) {
    SCOPED_TRACE(jx::dtype_name(dtype));
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> a(size_t(m * k)), b(size_t(k * n));
    for (double &x : a)
      x = dist(rng);
    for (double &x : b)
      x = dist(rng);
    const Array lhs = jnp::array(a, Shape{m, k}).astype(dtype);
    const Array rhs = jnp::array(b, Shape{k, n}).astype(dtype);
    auto matmul = [](const Array &x, const Array &y) { return jnp::matmul(x, y); };
    const jx::ShapeDtypeStruct ls{{m, k}, dtype}, rs{{k, n}, dtype};
    auto compiled = jx::jit(matmul).lower(ls, rs).compile();
    if (jx::runtime::gemm_parallelism() > 1) {
      EXPECT_NE(compiled.as_text().find("split_along_k"), std::string::npos) << compiled.as_text();
    }
    const Array whole = compiled(lhs, rhs);
    const BufferPtr expected = evaluate_with(Backend::Interpreter, matmul(lhs, rhs).node());
    const double eps = dtype == DType::float32 ? 0x1p-24 : 0x1p-53;
    const Array av = lhs.astype(jx::float64), bv = rhs.astype(jx::float64);
    int64_t wrong = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double magnitude = 0;
        for (int64_t q = 0; q < k; ++q)
          magnitude += std::abs(static_cast<const double *>(av.data())[i * k + q] *
                                static_cast<const double *>(bv.data())[q * n + j]);
        const double got = element(buffer_of(whole), dtype, i * n + j),
                     want = element(expected, dtype, i * n + j);
        if (!(std::abs(got - want) <= double(k + 10) * eps * magnitude) && wrong++ < 5)
          ADD_FAILURE() << "[" << i << ", " << j << "]: " << got << " vs " << want;
      }
    EXPECT_EQ(wrong, 0);
    for (const jx::Sharding &s : {rows, grid}) {
      const Array placed = jx::jit(matmul, {.out_shardings = {s}})(lhs, rhs);
      EXPECT_EQ(std::memcmp(placed.data(), whole.data(), size_t(m * n) * jx::itemsize(dtype)), 0)
          << s.str();
    }
  }
}

// Batched outer products (k = 1) stay loops, fully unrolled by LLVM for small shapes: LLVM
// 19.1's SLP vectorizer miscompiled them (lanes of its shuffles left poison: (1,2,5,1) x
// (1,2,1,3) had 4 of 30 elements wrong), so jx turns it off. Small integers: exact in any order.
TEST(Contractions, SmallBatchedOuterProductsAreExact) {
  int64_t wrong = 0, cases = 0;
  for (DType dtype : {DType::float64, DType::float32})
    for (int64_t b0 : {1, 2, 5})
      for (int64_t b1 : {1, 2, 3})
        for (int64_t m : {1, 2, 5})
          for (int64_t n : {1, 2, 3}) {
            const Shape sa{b0, b1, m, 1}, sb{b0, b1, 1, n};
            std::vector<double> av(size_t(jx::shape_size(sa))), bv(size_t(jx::shape_size(sb)));
            for (size_t i = 0; i < av.size(); ++i)
              av[i] = double(int64_t(i % 7) - 3);
            for (size_t i = 0; i < bv.size(); ++i)
              bv[i] = double(int64_t(i % 5) - 2);
            const Array a = jnp::array(av, sa).astype(dtype), b = jnp::array(bv, sb).astype(dtype);
            auto matmul = [](const Array &x, const Array &y) { return jnp::matmul(x, y); };
            const Array got = jx::jit(matmul)(a, b);
            const BufferPtr expected = evaluate_with(Backend::Interpreter, matmul(a, b).node());
            ++cases;
            if (std::memcmp(got.data(), expected->data(),
                            size_t(got.size()) * jx::itemsize(dtype)) != 0 &&
                wrong++ < 5)
              ADD_FAILURE() << jx::dtype_name(dtype) << " " << shape_text(sa) << " x "
                            << shape_text(sb);
          }
  EXPECT_EQ(wrong, 0) << "of " << cases;
}

// The bound is not vacuous: where a dropped term should stand out (k * (k + 10) * eps <= 1/64,
// so the bound is a small share of a typical term), a program that drops the last term of one
// contracted axis fails the check.
TEST(Contractions, BoundCatchesADroppedTerm) {
  int64_t eligible = 0, caught = 0;
  for (uint64_t seed = kDefaultSeed; seed < kDefaultSeed + kDefaultCases; ++seed) {
    const Case c = make_case(seed);
    const double eps = c.dtype == DType::float32 ? 0x1p-23 : 0x1p-52;
    if (!jx::is_floating(c.dtype) || c.k < 2 || jx::shape_size(c.out) == 0 ||
        double(c.k) * double(c.k + 10) * eps > 1.0 / 64 || c.work > kSmallWork)
      continue;
    ++eligible;
    const Arguments a = arguments(c);
    const BufferPtr expected = interpret(program(c, a.lhs, a.rhs, a.bias));
    const BufferPtr wrong = interpret(program(c, a.lhs, a.rhs, a.bias, true));
    caught += !check_floats(c, expected, wrong, abs_products(c, a)).ok;
  }
  fmt::print("dropping a term: {} of {} eligible cases caught\n", caught, eligible);
  EXPECT_GE(eligible, 50);
  EXPECT_GE(caught, eligible * 9 / 10);
}

// A bool contraction is NumPy's and jnp's: any over k of a and b, never a count mod 2 (an i1 add)
// or mod 256 (a byte counter); compiled and interpreted alike.
TEST(Contractions, BoolContractionIsAnyOfAnd) {
  for (int64_t k : {1, 2, 3, 256, 257, 513}) {
    // a: rows all true, all false, true only at the end; b: columns all true, true only first.
    std::vector<bool> a(size_t(3 * k)), b(size_t(k * 2));
    for (int64_t j = 0; j < k; ++j) {
      a[size_t(j)] = true;
      a[size_t(2 * k + j)] = j == k - 1;
      b[size_t(2 * j)] = true;
      b[size_t(2 * j + 1)] = j == 0;
    }
    std::vector<bool> expected(6);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t n = 0; n < 2; ++n)
        for (int64_t j = 0; j < k; ++j)
          expected[size_t(i * 2 + n)] =
              expected[size_t(i * 2 + n)] || (a[size_t(i * k + j)] && b[size_t(j * 2 + n)]);
    const Array x = jnp::array(a, Shape{3, k}), y = jnp::array(b, Shape{k, 2});
    auto matmul = [](const Array &l, const Array &r) { return jnp::matmul(l, r); };
    auto einsum = [](const Array &l, const Array &r) { return jnp::einsum("ik,kj->ij", l, r); };
    const jx::ShapeDtypeStruct sx{{3, k}, jnp::bool_}, sy{{k, 2}, jnp::bool_};
    const Array compiled_matmul = jx::jit(matmul).lower(sx, sy).compile()(x, y);
    const Array compiled_einsum = jx::jit(einsum).lower(sx, sy).compile()(x, y);
    EXPECT_EQ(compiled_matmul.dtype(), DType::bool_);
    EXPECT_EQ(compiled_matmul.to_vector<bool>(), expected) << "matmul, k = " << k;
    EXPECT_EQ(compiled_einsum.to_vector<bool>(), expected) << "einsum, k = " << k;
    const BufferPtr interpreted = interpret(matmul(x, y));
    EXPECT_EQ(std::vector<bool>(interpreted->as<bool>(), interpreted->as<bool>() + 6), expected)
        << "interpreter, k = " << k;
  }
}

// Mismatched contracted sizes are ShapeErrors, eagerly and while tracing.
TEST(Contractions, MismatchedSizesAreShapeErrors) {
  const Array a = jnp::ones({3, 4}), b = jnp::ones({5, 6});
  EXPECT_THROW(jnp::matmul(a, b), jx::ShapeError);
  EXPECT_THROW(jnp::einsum("ij,jk->ik", a, b), jx::ShapeError);
  EXPECT_THROW(jnp::einsum("ij,jk", a, b), jx::ShapeError);
  EXPECT_THROW(jnp::dot(a, b), jx::ShapeError);
  EXPECT_THROW(jnp::tensordot(a, b, {{1}, {0}}), jx::ShapeError);
  // Batch sizes that differ (neither is 1).
  const Array c = jnp::ones({2, 3, 4}), d = jnp::ones({3, 4, 5});
  EXPECT_THROW(jnp::matmul(c, d), jx::ShapeError);
  EXPECT_THROW(jnp::einsum("bij,bjk->bik", c, d), jx::ShapeError);
  auto traced = jx::jit([](const Array &x, const Array &y) { return jnp::matmul(x, y); });
  EXPECT_THROW(traced.lower(jx::ShapeDtypeStruct{{3, 4}, jnp::float32},
                            jx::ShapeDtypeStruct{{5, 6}, jnp::float32}),
               jx::ShapeError);
  auto traced_einsum =
      jx::jit([](const Array &x, const Array &y) { return jnp::einsum("ij,jk->ik", x, y); });
  EXPECT_THROW(traced_einsum.lower(jx::ShapeDtypeStruct{{3, 4}, jnp::int32},
                                   jx::ShapeDtypeStruct{{5, 6}, jnp::int32}),
               jx::ShapeError);
}

// The default campaign covers what the file's header claims, and cases are reproducible.
TEST(Contractions, GeneratorCoversItsClaims) {
  std::map<DType, int64_t> dtypes;
  std::map<Api, int64_t> apis;
  std::map<std::string, int64_t> seen;
  std::set<int64_t> sizes;
  std::vector<std::string> large;
  for (uint64_t seed = kDefaultSeed; seed < kDefaultSeed + kDefaultCases; ++seed) {
    const Case c = make_case(seed);
    ASSERT_EQ(c.description, make_case(seed).description);
    ++dtypes[c.dtype];
    ++apis[c.api];
    for (const OperandPlan *p : {&c.lhs, &c.rhs}) {
      seen["transposed operand"] += !p->perm.empty();
      seen["sliced operand"] += !p->slices.empty();
      seen["strided slice"] += p->strided;
      seen["reversed slice"] += p->reversed;
      seen["offset slice"] += p->offset;
      seen["sliced and transposed"] += !p->slices.empty() && !p->perm.empty();
      seen["x*2+1 or logical_not producer"] += p->producer == Producer::Affine;
      seen["exp producer"] += p->producer == Producer::Exp;
      sizes.insert(p->shape.begin(), p->shape.end());
    }
    for (auto [name, n] : {std::pair{"batch", c.nb}, std::pair{"contracted", c.nc},
                           std::pair{"lhs free", c.nl}, std::pair{"rhs free", c.nr}})
      ++seen[fmt::format("{} {} dims", n, name)];
    seen["zero-size dim"] += jx::shape_size(c.lhs.shape) == 0 || jx::shape_size(c.rhs.shape) == 0;
    seen["k = 0"] += c.k == 0;
    seen["empty result"] += jx::shape_size(c.out) == 0;
    seen["rank-0 result"] += c.out.empty();
    if (c.large) {
      ++seen["large"];
      large.push_back(fmt::format("{}{}", shape_text(c.out), c.k));
    }
    seen["GEMM-sized"] += c.gemm_sized;
    seen["bias"] += c.has_bias;
    seen["bias over the last axis"] += c.has_bias && c.bias.size() == 1 && c.out.size() > 1;
    seen["relu"] += c.relu && c.dtype != DType::bool_;
    seen["scale"] += c.scale != 0 && c.dtype != DType::bool_;
  }
  std::string table;
  for (auto [t, n] : dtypes)
    table += fmt::format("{}={} ", jx::dtype_name(t), n);
  for (auto [a, n] : apis)
    table += fmt::format("{}={} ", api_name(a), n);
  for (auto &[name, n] : seen)
    table += fmt::format("{}={} ", name, n);
  fmt::print("{} cases: {}\nlarge ones (result, k): {}\n", kDefaultCases, table,
             fmt::join(large, " "));
  for (DType t : {DType::float32, DType::float64, DType::int32, DType::int64, DType::bool_})
    EXPECT_GE(dtypes[t], 15) << jx::dtype_name(t);
  for (Api a : {Api::Einsum, Api::DotGeneral, Api::Matmul, Api::Tensordot, Api::Dot})
    EXPECT_GE(apis[a], 15) << api_name(a);
  for (auto &[name, n] : seen)
    EXPECT_GE(n, 3) << name;
  for (const char *name :
       {"transposed operand", "sliced operand", "strided slice", "reversed slice", "exp producer",
        "zero-size dim", "k = 0", "large", "2 batch dims", "2 contracted dims"})
    EXPECT_GE(seen[name], 3) << name; // present in the table at all
  EXPECT_EQ(sizes, std::set<int64_t>(std::begin(kSizes), std::end(kSizes)));
}

} // namespace
