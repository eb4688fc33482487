// Random API-sequence fuzzer: random jnp, jit and sharding calls with random, often invalid,
// arguments over a pool of live arrays. Each call must raise a jx::Error or return a value that
// the compiled backend computes as the reference evaluator does (within tests/diff's tolerance);
// any other exception is a failure, and a crash is one by itself.
//
// A run is a series of sequences of kCalls calls, sequence i seeded with seed + i (a fresh pool).
//   JX_API_FUZZ_SEED=s         first sequence's seed (default 1; random under JX_API_FUZZ_SECONDS)
//   JX_API_FUZZ_SECONDS=n      run sequences for n seconds instead of JX_API_FUZZ_SEQUENCES
//   JX_API_FUZZ_SEQUENCES=k    sequences of a bounded run (default 8)
//   JX_API_FUZZ_VERBOSE=1      print each call before making it
// A failure names its sequence's seed and call: JX_API_FUZZ_SEED=<seed> JX_API_FUZZ_SEQUENCES=1
// JX_API_FUZZ_VERBOSE=1 replays it.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <typeinfo>
#include <unistd.h>
#include <unordered_set>

#include "api/internal.h"
#include "diff/compare.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::DType;
using jx::Shape;
using jx::api::Backend;
using jx::api::evaluate_with;
using jx::runtime::BufferPtr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int kCalls = 150;                    // calls per sequence
constexpr int64_t kLargest = int64_t(1) << 24; // bytes: larger valid results are not realized
// bytes: the reference evaluator materializes every intermediate; a graph with a larger one
// (a broadcast of a huge axis reduced to an empty result) is realized but not checked.
constexpr int64_t kLargestIntermediate = int64_t(1) << 28;

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// What the fuzzer is doing, for the signal handler: a crash names its call.
char g_current[1024];
void on_fatal_signal(int sig) {
  const char head[] = "\n*** test_api_fuzz: fatal signal during ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, g_current, strnlen(g_current, sizeof g_current));
  (void)!write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string type_name(const std::type_info &t) {
  int status = 0;
  char *s = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string out = status == 0 && s ? s : t.name();
  std::free(s);
  return out;
}

std::string desc(const Array &x) {
  try {
    return fmt::format("{}{}[{}]", x.weak_type() ? "weak " : "", jx::dtype_name(x.dtype()),
                       fmt::join(x.shape(), ","));
  } catch (const jx::Error &) {
    return "<no value>";
  }
}

std::string desc(const std::vector<Array> &xs) {
  std::vector<std::string> parts;
  for (const Array &x : xs)
    parts.push_back(desc(x));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::string desc(const jnp::Axes &a) { return a.is_none() ? "None" : fmt::format("{}", a.axes()); }

std::string desc(const std::vector<jx::IndexItem> &items) {
  std::vector<std::string> parts;
  auto opt = [](const std::optional<int64_t> &v) { return v ? fmt::format("{}", *v) : ""; };
  for (const jx::IndexItem &it : items) {
    const auto &v = it.value();
    if (auto *i = std::get_if<int64_t>(&v))
      parts.push_back(fmt::format("{}", *i));
    else if (auto *s = std::get_if<jx::Slice>(&v))
      parts.push_back(fmt::format("{}:{}:{}", opt(s->start), opt(s->stop), opt(s->step)));
    else if (std::holds_alternative<jx::NewAxis>(v))
      parts.push_back("None");
    else
      parts.push_back("...");
  }
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// Bytes of a shape, or nullopt when the product overflows (or a dimension is negative).
std::optional<int64_t> bytes_of(const Shape &shape, DType dtype) {
  int64_t bytes = int64_t(jx::itemsize(dtype));
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes)) return std::nullopt;
  return bytes;
}

// The placeholder result of a call that returns no array.
Array no_array() { return Array(std::shared_ptr<const jx::ir::Node>()); }

BufferPtr buffer_of(const Array &x) {
  return jx::runtime::Buffer::borrow(const_cast<void *>(x.data()),
                                     size_t(x.size()) * jx::itemsize(x.dtype()));
}

class Fuzzer {
public:
  explicit Fuzzer(bool verbose) : verbose_(verbose) {}

  void run_sequence(uint64_t seed);
  void report(double seconds, uint64_t first_seed, uint64_t sequences) const;
  int64_t calls() const { return calls_; }

private:
  using Rng = std::mt19937_64;

  // ---- random values ----
  uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t between(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }
  template <class T> const T &one_of(const std::vector<T> &v) { return v[below(v.size())]; }

  int64_t extreme() {
    static const std::vector<int64_t> values = {kMax,
                                                kMin,
                                                kMax - 1,
                                                kMin + 1,
                                                int64_t(1) << 62,
                                                -(int64_t(1) << 62),
                                                int64_t(1) << 40,
                                                int64_t(1) << 32,
                                                int64_t(0x5555555555555556),
                                                std::numeric_limits<int32_t>::max(),
                                                std::numeric_limits<int32_t>::min(),
                                                int64_t(std::numeric_limits<int32_t>::max()) + 1};
    return one_of(values);
  }
  // A small integer argument (axes, counts, indices), sometimes extreme.
  int64_t wild(int64_t lo, int64_t hi) { return chance(0.05) ? extreme() : between(lo, hi); }
  int64_t small_dim() {
    static const std::vector<int64_t> dims = {0, 1, 1, 2, 2, 3, 3, 4, 5};
    return one_of(dims);
  }
  Shape small_shape(int64_t max_rank = 4) {
    static const std::vector<int64_t> ranks = {0, 1, 1, 2, 2, 2, 3, 3, 4};
    Shape s(std::min<int64_t>(max_rank, one_of(ranks)));
    for (int64_t &d : s)
      d = small_dim();
    return s;
  }
  // A shape argument: mostly small, sometimes negative, huge or of a rank past NumPy's limit.
  Shape shape_arg() {
    Shape s = small_shape();
    const uint64_t r = below(100);
    if (r < 4 && !s.empty())
      s[below(s.size())] = -between(1, 3);
    else if (r < 9 && !s.empty())
      s[below(s.size())] = extreme();
    else if (r < 11)
      s = {int64_t(1) << 40, int64_t(1) << 40};
    else if (r < 12)
      s = Shape(between(60, 70), 1);
    return s;
  }
  DType dtype_arg() {
    static const std::vector<DType> types = {jnp::bool_, jnp::int32, jnp::int64, jnp::float32,
                                             jnp::float64};
    return one_of(types);
  }
  double float_value() {
    static const std::vector<double> specials = {0.0,
                                                 -0.0,
                                                 1.0,
                                                 -1.0,
                                                 0.5,
                                                 std::numeric_limits<double>::quiet_NaN(),
                                                 std::numeric_limits<double>::infinity(),
                                                 -std::numeric_limits<double>::infinity(),
                                                 1e30,
                                                 -1e300,
                                                 5e-324,
                                                 1e-40,
                                                 3e9};
    if (chance(0.1)) return one_of(specials);
    return double(between(-40, 40)) / 8;
  }
  int64_t int_value(DType t) {
    if (chance(0.05)) {
      if (t == jnp::int32)
        return chance(0.5) ? std::numeric_limits<int32_t>::min()
                           : std::numeric_limits<int32_t>::max();
      return chance(0.5) ? kMin : kMax;
    }
    return between(-9, 9);
  }
  // A fresh array of the shape (small by construction) with random data.
  Array fresh(const Shape &shape, DType t) {
    const int64_t n = jx::shape_size(shape);
    switch (t) {
    case DType::bool_: {
      std::vector<bool> v(n);
      for (int64_t i = 0; i < n; ++i)
        v[i] = chance(0.5);
      return jnp::array(v, shape);
    }
    case DType::int32: {
      std::vector<int32_t> v(n);
      for (auto &x : v)
        x = int32_t(int_value(t));
      return jnp::array(v, shape);
    }
    case DType::int64: {
      std::vector<int64_t> v(n);
      for (auto &x : v)
        x = int_value(t);
      return jnp::array(v, shape);
    }
    case DType::float32: {
      std::vector<float> v(n);
      for (auto &x : v)
        x = float(float_value());
      return jnp::array(v, shape);
    }
    case DType::float64: {
      std::vector<double> v(n);
      for (auto &x : v)
        x = float_value();
      return jnp::array(v, shape);
    }
    default: { // the narrow and unsigned integers: int64 values wrapped
      std::vector<int64_t> v(n);
      for (auto &x : v)
        x = int_value(DType::int64);
      return jnp::array(v, shape).astype(t);
    }
    }
  }
  // A C++ scalar (weakly typed) or a strongly typed 0-d array.
  Array scalar() {
    switch (below(6)) {
    case 0: return Array(between(-5, 5));
    case 1: return Array(chance(0.8) ? between(-5, 5) : extreme());
    case 2: return Array(float_value());
    case 3: return Array(chance(0.5));
    case 4: return Array(int32_t(between(-3, 3)));
    default: return jnp::array(float_value(), dtype_arg());
    }
  }
  // An operand: a pool array, a scalar, or a fresh array shaped like `like` for broadcasting.
  Array operand(const Array *like = nullptr) {
    const uint64_t r = below(10);
    if (r < 2) return scalar();
    if (like && r < 6) {
      Shape s = like->shape();
      // A broadcast-compatible shape: trailing axes kept, some set to 1, sometimes one dropped.
      if (!s.empty() && chance(0.3)) s.erase(s.begin());
      for (int64_t &d : s)
        if (chance(0.2)) d = 1;
      if (chance(0.05) && !s.empty()) s[below(s.size())] += 1; // mismatched
      return fresh(s, chance(0.6) ? like->dtype() : dtype_arg());
    }
    return pick();
  }
  Array pick() { return pool_.empty() ? fresh(small_shape(), dtype_arg()) : one_of(pool_); }
  jnp::Axes axes_arg(int64_t ndim) {
    const uint64_t r = below(10);
    if (r < 3) return jnp::Axes();
    if (r < 7) return jnp::Axes(wild(-ndim - 1, ndim));
    std::vector<int64_t> a(below(4));
    for (int64_t &x : a)
      x = wild(-ndim - 1, ndim);
    return jnp::Axes(a);
  }
  std::optional<int64_t> opt_int(int64_t lo, int64_t hi) {
    if (chance(0.3)) return std::nullopt;
    return wild(lo, hi);
  }
  std::vector<jx::IndexItem> index_items(const Shape &shape) {
    std::vector<jx::IndexItem> items;
    const size_t n = below(shape.size() + 3);
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = i < shape.size() ? shape[i] : 2;
      switch (below(10)) {
      case 0:
      case 1:
      case 2: items.emplace_back(wild(-d - 1, d)); break;
      case 3:
      case 4:
      case 5:
      case 6: {
        std::optional<int64_t> step = opt_int(-3, 3);
        if (step && chance(0.05)) step = chance(0.5) ? kMin : kMax;
        items.emplace_back(jx::slice(opt_int(-d - 2, d + 2), opt_int(-d - 2, d + 2), step));
        break;
      }
      case 7:
      case 8: items.emplace_back(jx::newaxis); break;
      default: items.emplace_back(jx::ellipsis); break;
      }
    }
    return items;
  }

  // ---- calls ----
  // Runs one API call: a jx::Error is recorded, any other exception is a failure, a returned
  // Array is checked (now or after some later calls) and joins the pool.
  template <class F> void call(const std::string &what, F &&f);
  template <class F> void call_void(const std::string &what, F &&f);
  void record(const jx::Error &e) { ++errors_[type_name(typeid(e))]; }
  // Failures are listed up to 3 per called function (a known bug repeats), 30 in all.
  void fail(const std::string &what, const std::string &why) {
    const std::string function = what.substr(0, what.find('('));
    if (failures_.size() < 30 && ++failures_by_function_[function] <= 3)
      failures_.push_back(
          fmt::format("seed {} call {}: {}\n    {}", seed_, call_index_, what, why));
    ++failure_count_;
  }
  // Whether r may be realized; a failure if its shape is impossible.
  bool small_enough(const Array &r, const std::string &what);
  void check(const Array &r, const std::string &what);
  void check_against(const Array &reference, const Array &actual, const std::string &what);
  void keep(const Array &r, const std::string &what);
  void flush_deferred();

  void step();
  void creation();
  void random_call();
  void unary();
  void binary();
  void reduction();
  void reshape_call();
  void movement();
  void indexing();
  void at_update();
  void join();
  void pad_diff();
  void contraction();
  void einsum_call();
  void cast();
  void jit_call();
  void sharding_call();
  void misc();
  template <class F, class... A>
  void compare_jit(const std::string &what, const F &f, const jx::Jitted<F> &jf, const A &...args);

  bool verbose_;
  Rng rng_;
  uint64_t seed_ = 0;
  int call_index_ = 0;
  std::vector<Array> pool_;
  std::vector<std::pair<Array, std::string>> deferred_;
  int64_t calls_ = 0, checked_ = 0, skipped_large_ = 0, failure_count_ = 0;
  std::map<std::string, int64_t> errors_;
  std::vector<std::string> failures_;
  std::map<std::string, int64_t> failures_by_function_;
  int64_t reference_out_of_memory_ = 0;
};

template <class F> void Fuzzer::call(const std::string &what, F &&f) {
  ++calls_;
  std::snprintf(g_current, sizeof g_current, "seed %llu call %d: %s",
                static_cast<unsigned long long>(seed_), call_index_, what.c_str());
  if (verbose_) fmt::print("{}\n", g_current);
  try {
    Array r = f();
    keep(r, what);
  } catch (const jx::Error &e) {
    record(e);
  } catch (const std::exception &e) {
    fail(what, fmt::format("untyped exception {}: {}", type_name(typeid(e)), e.what()));
  } catch (...) {
    fail(what, "unknown exception");
  }
}

template <class F> void Fuzzer::call_void(const std::string &what, F &&f) {
  call(what, [&] {
    f();
    return no_array();
  });
}

bool Fuzzer::small_enough(const Array &r, const std::string &what) {
  const Shape &s = r.shape();
  if (s.size() > jx::max_rank) {
    fail(what, fmt::format("accepted rank {}", s.size()));
    return false;
  }
  std::optional<int64_t> bytes = bytes_of(s, r.dtype());
  if (!bytes) {
    fail(what, fmt::format("accepted an impossible shape {}", s));
    return false;
  }
  if (*bytes > kLargest) {
    ++skipped_large_;
    return false;
  }
  return true;
}

// Whether the reference evaluator would materialize a value over kLargestIntermediate for r.
bool reference_too_large(const Array &r) {
  int64_t largest = 0;
  std::unordered_set<const jx::ir::Node *> seen;
  std::vector<const jx::ir::Node *> stack = {r.node().get()};
  while (!stack.empty()) {
    const jx::ir::Node *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    const std::optional<int64_t> bytes = bytes_of(n->shape, n->dtype);
    largest = std::max(largest, bytes.value_or(kMax));
    for (const jx::ir::NodePtr &input : n->inputs)
      stack.push_back(input.get());
  }
  return largest > kLargestIntermediate;
}

void Fuzzer::check(const Array &r, const std::string &what) {
  const bool too_large = reference_too_large(r);
  BufferPtr expected;
  jx::diff::Tolerance tolerance;
  std::string interp_error;
  try {
    if (!too_large) {
      expected = evaluate_with(Backend::Interpreter, r.node());
      tolerance = jx::diff::tolerance_for(r);
    }
  } catch (const jx::Error &e) {
    interp_error = fmt::format("{}: {}", type_name(typeid(e)), e.what());
  } catch (const std::exception &e) {
    fail(what, fmt::format("reference evaluator threw {}: {}", type_name(typeid(e)), e.what()));
    return;
  }
  try {
    r.block_until_ready();
    if (chance(0.05)) (void)jx::to_string(r);
  } catch (const jx::Error &e) {
    if (interp_error.empty())
      fail(what, fmt::format("realizing raised {}: {} where the reference gave a value",
                             type_name(typeid(e)), e.what()));
    else
      record(e);
    return;
  } catch (const std::exception &e) {
    fail(what, fmt::format("realizing threw {}: {}", type_name(typeid(e)), e.what()));
    return;
  }
  if (too_large || interp_error.starts_with("jx::MemoryError")) {
    // The reference evaluator materializes every intermediate (a broadcast of a huge axis into
    // an empty result); the compiled backend need not.
    ++reference_out_of_memory_;
    return;
  }
  if (!interp_error.empty()) {
    fail(what, "the reference raised " + interp_error + " where realizing gave a value");
    return;
  }
  const size_t bytes = size_t(r.size()) * jx::itemsize(r.dtype());
  if (expected->bytes() != bytes) {
    fail(what, fmt::format("reference has {} bytes, result {}", expected->bytes(), bytes));
    return;
  }
  jx::diff::CompareResult c = jx::diff::compare_buffers(r, expected, buffer_of(r), tolerance);
  if (!c.ok) fail(what, fmt::format("{} {}: {}", desc(r), r.shape(), c.message));
  ++checked_;
}

// actual (a jit result) against reference (the same function run eagerly, pending).
void Fuzzer::check_against(const Array &reference, const Array &actual, const std::string &what) {
  if (reference.shape() != actual.shape() || reference.dtype() != actual.dtype()) {
    fail(what, fmt::format("jit gave {}, eager {}", desc(actual), desc(reference)));
    return;
  }
  if (!small_enough(reference, what)) return;
  if (reference_too_large(reference)) {
    ++reference_out_of_memory_;
    return;
  }
  try {
    BufferPtr expected = evaluate_with(Backend::Interpreter, reference.node());
    jx::diff::Tolerance tolerance = jx::diff::tolerance_for(reference);
    actual.block_until_ready();
    jx::diff::CompareResult c =
        jx::diff::compare_buffers(reference, expected, buffer_of(actual), tolerance);
    if (!c.ok) fail(what, fmt::format("jit result {}: {}", desc(actual), c.message));
    ++checked_;
  } catch (const jx::Error &e) {
    fail(what,
         fmt::format("checking the jit result raised {}: {}", type_name(typeid(e)), e.what()));
  }
}

void Fuzzer::keep(const Array &r, const std::string &what) {
  try {
    (void)r.node();
  } catch (const jx::Error &) {
    return; // call_void's placeholder
  }
  if (!small_enough(r, what)) return;
  if (chance(0.6))
    check(r, what);
  else
    deferred_.emplace_back(r, what);
  if (pool_.size() < 12)
    pool_.push_back(r);
  else
    pool_[below(pool_.size())] = r;
}

void Fuzzer::flush_deferred() {
  std::shuffle(deferred_.begin(), deferred_.end(), rng_);
  auto pending = std::move(deferred_);
  deferred_.clear();
  for (auto &[r, what] : pending)
    check(r, what + " (checked later)");
}

// ---- call kinds ----

void Fuzzer::creation() {
  const Shape s = shape_arg();
  const DType t = dtype_arg();
  switch (below(12)) {
  case 0:
    call(fmt::format("zeros({}, {})", s, jx::dtype_name(t)), [&] { return jnp::zeros(s, t); });
    break;
  case 1:
    call(fmt::format("ones({}, {})", s, jx::dtype_name(t)), [&] { return jnp::ones(s, t); });
    break;
  case 2: {
    Array fill = chance(0.8) ? scalar() : operand();
    std::optional<DType> dt;
    if (chance(0.5)) dt = t;
    call(fmt::format("full({}, {})", s, desc(fill)), [&] { return jnp::full(s, fill, dt); });
    break;
  }
  case 3: {
    Array x = pick();
    std::optional<DType> dt;
    if (chance(0.5)) dt = t;
    switch (below(3)) {
    case 0: call("zeros_like(" + desc(x) + ")", [&] { return jnp::zeros_like(x, dt); }); break;
    case 1: call("ones_like(" + desc(x) + ")", [&] { return jnp::ones_like(x, dt); }); break;
    default: {
      Array fill = chance(0.8) ? scalar() : operand();
      call(fmt::format("full_like({}, {})", desc(x), desc(fill)),
           [&] { return jnp::full_like(x, fill, dt); });
    }
    }
    break;
  }
  case 4: {
    const int64_t stop = wild(-3, 12);
    call(fmt::format("arange({})", stop), [&] { return jnp::arange(stop); });
    break;
  }
  case 5: {
    const int64_t a = wild(-6, 6), b = wild(-6, 12), c = chance(0.1) ? 0 : wild(-3, 3);
    std::optional<DType> dt;
    if (chance(0.3)) dt = t;
    call(fmt::format("arange({}, {}, {}, {})", a, b, c, dt ? jx::dtype_name(*dt) : "None"),
         [&] { return jnp::arange(a, b, c, dt); });
    break;
  }
  case 6: {
    double a = float_value(), b = chance(0.2) ? 1e19 : float_value(),
           c = chance(0.1) ? 0.0 : double(between(-8, 8)) / 4;
    if (chance(0.3)) a = std::trunc(a), b = std::trunc(b);
    std::optional<DType> dt;
    if (chance(0.3)) dt = t;
    call(fmt::format("arange({}, {}, {}, {})", a, b, c, dt ? jx::dtype_name(*dt) : "None"),
         [&] { return jnp::arange(a, b, c, dt); });
    break;
  }
  case 7: {
    Array a = chance(0.7) ? Array(float_value()) : operand();
    Array b = chance(0.7) ? Array(float_value()) : operand(&a);
    const int64_t num = wild(-1, 6), axis = wild(-3, 2);
    const bool endpoint = chance(0.5);
    std::optional<DType> dt;
    if (chance(0.3)) dt = t;
    call(fmt::format("linspace({}, {}, {}, {}, {})", desc(a), desc(b), num, endpoint, axis),
         [&] {
           return jnp::linspace(a, b, {.num = num, .endpoint = endpoint, .dtype = dt, .axis = axis});
         });
    break;
  }
  case 8: {
    const int64_t n = wild(-1, 5), k = wild(-4, 4);
    std::optional<int64_t> m = opt_int(-1, 5);
    call(fmt::format("eye({}, {}, {})", n, m ? fmt::format("{}", *m) : "None", k),
         [&] { return jnp::eye(n, m, k, t); });
    break;
  }
  case 9: {
    // array(data, shape): the data's size sometimes differs from the shape's.
    Shape shape = chance(0.8) ? small_shape() : shape_arg();
    std::optional<int64_t> n = bytes_of(shape, DType::bool_);
    int64_t size = n && *n <= 4096 ? *n : between(0, 6);
    if (chance(0.1)) size += between(-1, 1);
    size = std::max<int64_t>(size, 0);
    std::vector<double> data(size);
    for (double &v : data)
      v = float_value();
    call(fmt::format("array(double[{}], {})", size, shape),
         [&] { return jnp::array(data, shape); });
    break;
  }
  case 10: {
    const double v = float_value();
    call(fmt::format("array({}, {})", v, jx::dtype_name(t)), [&] { return jnp::array(v, t); });
    break;
  }
  default: {
    Shape shape = small_shape();
    call(fmt::format("fresh({}, {})", shape, jx::dtype_name(t)), [&] { return fresh(shape, t); });
  }
  }
}

void Fuzzer::random_call() {
  const int64_t seed = wild(0, 100);
  const Shape s = chance(0.9) ? small_shape() : shape_arg();
  const DType t = dtype_arg();
  switch (below(4)) {
  case 0: {
    const int64_t num = chance(0.9) ? between(-1, 4) : (chance(0.5) ? kMax : int64_t(1) << 62);
    call(fmt::format("random.split(PRNGKey({}), {})", seed, num), [&] {
      const jx::Array keys = jx::random::split(jx::random::PRNGKey(seed), num);
      return jnp::array(std::vector<int64_t>{keys.shape()[0]});
    });
    break;
  }
  case 1: {
    Array lo = chance(0.7) ? Array(float_value()) : operand();
    Array hi = chance(0.7) ? Array(float_value()) : operand();
    call(fmt::format("random.uniform(PRNGKey({}), {}, {}, {}, {})", seed, s, jx::dtype_name(t),
                     desc(lo), desc(hi)),
         [&] {
           jx::random::Key key = jx::random::fold_in(jx::random::PRNGKey(seed), uint32_t(seed));
           return jx::random::uniform(key, s, t, lo, hi);
         });
    break;
  }
  default:
    call(fmt::format("random.normal(PRNGKey({}), {}, {})", seed, s, jx::dtype_name(t)),
         [&] { return jx::random::normal(jx::random::PRNGKey(seed), s, t); });
  }
}

using Unary = Array (*)(const Array &);
using Binary = Array (*)(const Array &, const Array &);

void Fuzzer::unary() {
  static const std::vector<std::pair<const char *, Unary>> ops = {
      {"negative", jnp::negative},
      {"positive", jnp::positive},
      {"abs", jnp::abs},
      {"absolute", jnp::absolute},
      {"sign", jnp::sign},
      {"exp", jnp::exp},
      {"expm1", jnp::expm1},
      {"log", jnp::log},
      {"log1p", jnp::log1p},
      {"sqrt", jnp::sqrt},
      {"square", jnp::square},
      {"sin", jnp::sin},
      {"cos", jnp::cos},
      {"tan", jnp::tan},
      {"tanh", jnp::tanh},
      {"floor", jnp::floor},
      {"ceil", jnp::ceil},
      {"isnan", jnp::isnan},
      {"isfinite", jnp::isfinite},
      {"signbit", jnp::signbit},
      {"isinf", jnp::isinf},
      {"logical_not", jnp::logical_not},
      {"bitwise_not", jnp::bitwise_not},
      {"invert", jnp::invert},
      {"ravel", jnp::ravel},
      {"operator-", +[](const Array &x) { return -x; }},
      {"operator~", +[](const Array &x) { return ~x; }},
  };
  const auto &[name, f] = one_of(ops);
  Array x = chance(0.9) ? pick() : scalar();
  call(fmt::format("{}({})", name, desc(x)), [&] { return f(x); });
}

void Fuzzer::binary() {
  static const std::vector<std::pair<const char *, Binary>> ops = {
      {"add", jnp::add},
      {"subtract", jnp::subtract},
      {"multiply", jnp::multiply},
      {"divide", jnp::divide},
      {"true_divide", jnp::true_divide},
      {"floor_divide", jnp::floor_divide},
      {"remainder", jnp::remainder},
      {"mod", jnp::mod},
      {"power", jnp::power},
      {"maximum", jnp::maximum},
      {"minimum", jnp::minimum},
      {"equal", jnp::equal},
      {"not_equal", jnp::not_equal},
      {"less", jnp::less},
      {"less_equal", jnp::less_equal},
      {"greater", jnp::greater},
      {"greater_equal", jnp::greater_equal},
      {"logical_and", jnp::logical_and},
      {"logical_or", jnp::logical_or},
      {"logical_xor", jnp::logical_xor},
      {"bitwise_and", jnp::bitwise_and},
      {"bitwise_or", jnp::bitwise_or},
      {"bitwise_xor", jnp::bitwise_xor},
      {"left_shift", jnp::left_shift},
      {"right_shift", jnp::right_shift},
      {"+", +[](const Array &a, const Array &b) { return a + b; }},
      {"-", +[](const Array &a, const Array &b) { return a - b; }},
      {"*", +[](const Array &a, const Array &b) { return a * b; }},
      {"/", +[](const Array &a, const Array &b) { return a / b; }},
      {"%", +[](const Array &a, const Array &b) { return a % b; }},
      {"<", +[](const Array &a, const Array &b) { return a < b; }},
      {"==", +[](const Array &a, const Array &b) { return a == b; }},
      {"&", +[](const Array &a, const Array &b) { return a & b; }},
      {"|", +[](const Array &a, const Array &b) { return a | b; }},
      {"^", +[](const Array &a, const Array &b) { return a ^ b; }},
  };
  const auto &[name, f] = one_of(ops);
  Array a = chance(0.85) ? pick() : scalar();
  Array b = operand(&a);
  if (chance(0.5)) std::swap(a, b);
  call(fmt::format("{}({}, {})", name, desc(a), desc(b)), [&] { return f(a, b); });
}

void Fuzzer::reduction() {
  // sum, prod, max and min take initial; mean, all and any only where (MeanOptions).
  using Reduce = Array (*)(const Array &, const jnp::ReduceOptions &);
#define JX_REDUCE(f) +[](const Array &x, const jnp::ReduceOptions &o) { return jnp::f(x, o); }
#define JX_MEAN(f)                                                                                 \
  +[](const Array &x, const jnp::ReduceOptions &o) {                                               \
    return jnp::f(x, {.axis = o.axis, .keepdims = o.keepdims, .where = o.where});                  \
  }
  static const std::vector<std::pair<const char *, Reduce>> ops = {
      {"sum", JX_REDUCE(sum)},   {"prod", JX_REDUCE(prod)}, {"max", JX_REDUCE(max)},
      {"min", JX_REDUCE(min)},   {"amax", JX_REDUCE(amax)}, {"amin", JX_REDUCE(amin)},
      {"mean", JX_MEAN(mean)},   {"all", JX_MEAN(all)},     {"any", JX_MEAN(any)}};
#undef JX_REDUCE
#undef JX_MEAN
  Array x = pick();
  const bool keepdims = chance(0.4);
  if (chance(0.2)) {
    std::optional<int64_t> axis = opt_int(-x.ndim() - 1, x.ndim());
    const bool max = chance(0.5);
    call(fmt::format("{}({}, {}, {})", max ? "argmax" : "argmin", desc(x),
                     axis ? fmt::format("{}", *axis) : "None", keepdims),
         [&] {
           return max ? jnp::argmax(x, {.axis = axis, .keepdims = keepdims})
                      : jnp::argmin(x, {.axis = axis, .keepdims = keepdims});
         });
    return;
  }
  const auto &[name, f] = one_of(ops);
  jnp::Axes axes = axes_arg(x.ndim());
  // where=: a mask that broadcasts to x (or, rarely, does not); initial=: a scalar (or an array).
  std::optional<Array> where, initial;
  if (chance(0.3)) where = operand(&x) > 0;
  const std::string_view op = name;
  if (op != "mean" && op != "all" && op != "any" && chance(0.3))
    initial = chance(0.9) ? scalar() : pick();
  call(fmt::format("{}({}, {}, {}, where={}, initial={})", name, desc(x), desc(axes), keepdims,
                   where ? desc(*where) : "None", initial ? desc(*initial) : "None"),
       [&] {
         return f(x, {.axis = axes, .keepdims = keepdims, .initial = initial, .where = where});
       });
}

void Fuzzer::reshape_call() {
  Array x = pick();
  if (chance(0.1)) {
    call("ravel(" + desc(x) + ")", [&] { return jnp::ravel(x); });
    return;
  }
  Shape s;
  if (chance(0.6)) {
    // A factorization of x's size, with a -1 sometimes.
    int64_t n = x.size();
    const size_t rank = below(4);
    for (size_t i = 0; i + 1 < rank; ++i) {
      int64_t d = 1;
      for (int64_t c : {2, 3, 5})
        if (n % c == 0 && chance(0.5)) d = c;
      s.push_back(d);
      n = d ? n / d : n;
    }
    if (rank) s.push_back(n);
    if (!s.empty() && chance(0.4)) s[below(s.size())] = -1;
    if (!s.empty() && chance(0.1)) s[below(s.size())] = -1; // two -1s, sometimes
  } else {
    s = shape_arg();
    if (!s.empty() && chance(0.3)) s[below(s.size())] = -1;
  }
  const bool method = chance(0.5);
  call(fmt::format("reshape({}, {})", desc(x), s),
       [&] { return method ? x.reshape(s) : jnp::reshape(x, s); });
}

void Fuzzer::movement() {
  Array x = pick();
  const int64_t nd = x.ndim();
  switch (below(8)) {
  case 0: {
    std::optional<std::vector<int64_t>> perm;
    if (chance(0.8)) {
      perm.emplace(nd);
      for (int64_t i = 0; i < nd; ++i)
        (*perm)[i] = i;
      std::shuffle(perm->begin(), perm->end(), rng_);
      if (chance(0.15) && !perm->empty()) (*perm)[below(nd)] = wild(-nd - 1, nd);
      if (chance(0.1)) perm->push_back(between(0, nd));
      if (chance(0.2))
        for (int64_t &p : *perm)
          if (chance(0.5)) p -= nd;
    }
    call(fmt::format("transpose({}, {})", desc(x), perm ? fmt::format("{}", *perm) : "None"),
         [&] { return jnp::transpose(x, perm); });
    break;
  }
  case 1: {
    const int64_t a = wild(-nd - 1, nd), b = wild(-nd - 1, nd);
    call(fmt::format("moveaxis({}, {}, {})", desc(x), a, b),
         [&] { return jnp::moveaxis(x, a, b); });
    break;
  }
  case 2: {
    const int64_t a = wild(-nd - 1, nd), b = wild(-nd - 1, nd);
    call(fmt::format("swapaxes({}, {}, {})", desc(x), a, b),
         [&] { return jnp::swapaxes(x, a, b); });
    break;
  }
  case 3: {
    jnp::Axes axes = axes_arg(nd + 1);
    if (axes.is_none()) axes = jnp::Axes(0);
    call(fmt::format("expand_dims({}, {})", desc(x), desc(axes)),
         [&] { return jnp::expand_dims(x, axes); });
    break;
  }
  case 4: {
    jnp::Axes axes = axes_arg(nd);
    call(fmt::format("squeeze({}, {})", desc(x), desc(axes)),
         [&] { return jnp::squeeze(x, axes); });
    break;
  }
  case 5: {
    Shape s = x.shape();
    for (int64_t &d : s)
      if (d == 1 && chance(0.5)) d = small_dim();
    if (chance(0.4)) s.insert(s.begin(), small_dim());
    if (chance(0.15)) s = shape_arg();
    call(fmt::format("broadcast_to({}, {})", desc(x), s), [&] { return jnp::broadcast_to(x, s); });
    break;
  }
  case 6: {
    jnp::Axes axes = axes_arg(nd);
    call(fmt::format("flip({}, {})", desc(x), desc(axes)), [&] { return jnp::flip(x, axes); });
    break;
  }
  default: {
    jnp::Axes axes = axes_arg(nd);
    if (chance(0.5)) {
      const int64_t shift = wild(-7, 7);
      call(fmt::format("roll({}, {}, {})", desc(x), shift, desc(axes)),
           [&] { return jnp::roll(x, shift, axes); });
    } else {
      std::vector<int64_t> shifts(below(3) + (axes.is_none() ? 0 : axes.axes().size()) / 2);
      for (int64_t &s : shifts)
        s = wild(-7, 7);
      call(fmt::format("roll({}, {}, {})", desc(x), shifts, desc(axes)),
           [&] { return jnp::roll(x, shifts, axes); });
    }
  }
  }
}

void Fuzzer::indexing() {
  Array x = pick();
  std::vector<jx::IndexItem> items = index_items(x.shape());
  if (items.size() == 1 && chance(0.3)) {
    jx::IndexItem item = items[0];
    call(fmt::format("{}[{}]", desc(x), desc(items)), [&] { return x[item]; });
    return;
  }
  call(fmt::format("{}{}", desc(x), desc(items)), [&] { return x.index(items); });
}

void Fuzzer::at_update() {
  Array x = pick();
  std::vector<jx::IndexItem> items = index_items(x.shape());
  Array values = scalar();
  if (chance(0.6)) {
    try {
      Array target = x.index(items);
      values = operand(&target);
    } catch (const jx::Error &) {
      values = operand();
    }
  }
  static const std::vector<const char *> names = {"set",    "add", "subtract", "multiply",
                                                  "divide", "min", "max",      "get"};
  const size_t which = below(names.size());
  call(fmt::format("{}.at{}.{}({})", desc(x), desc(items), names[which], desc(values)), [&] {
    jx::At at(x, items);
    switch (which) {
    case 0: return at.set(values);
    case 1: return at.add(values);
    case 2: return at.subtract(values);
    case 3: return at.multiply(values);
    case 4: return at.divide(values);
    case 5: return at.min(values);
    case 6: return at.max(values);
    default: return at.get();
    }
  });
}

void Fuzzer::join() {
  Array first = pick();
  const int64_t nd = first.ndim();
  int64_t axis = wild(-nd - 1, nd);
  std::vector<Array> xs;
  const size_t n = below(10) ? 1 + below(4) : 0;
  const bool stack = chance(0.4);
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || chance(0.2)) {
      xs.push_back(i == 0 ? first : pick());
      continue;
    }
    Shape s = first.shape();
    if (!stack && nd > 0 && axis >= -nd && axis < nd) s[axis < 0 ? axis + nd : axis] = small_dim();
    if (chance(0.05) && !s.empty()) s[below(s.size())] += 1;
    xs.push_back(fresh(s, chance(0.7) ? first.dtype() : dtype_arg()));
  }
  if (stack)
    call(fmt::format("stack({}, {})", desc(xs), axis), [&] { return jnp::stack(xs, axis); });
  else
    call(fmt::format("concatenate({}, {})", desc(xs), axis),
         [&] { return jnp::concatenate(xs, axis); });
}

void Fuzzer::pad_diff() {
  Array x = pick();
  const int64_t nd = x.ndim();
  Array c = chance(0.7) ? scalar() : operand();
  switch (below(3)) {
  case 0: {
    std::vector<std::pair<int64_t, int64_t>> widths(chance(0.8) ? nd : below(3));
    if (chance(0.2)) widths.resize(1);
    for (auto &[lo, hi] : widths) {
      lo = chance(0.05) ? extreme() : between(-1, 3);
      hi = chance(0.05) ? extreme() : between(-1, 3);
    }
    std::vector<std::string> text;
    for (auto &[lo, hi] : widths)
      text.push_back(fmt::format("({}, {})", lo, hi));
    call(fmt::format("pad({}, [{}], {})", desc(x), fmt::join(text, ", "), desc(c)),
         [&] { return jnp::pad(x, widths, {.constant_values = c}); });
    break;
  }
  case 1: {
    const int64_t w = wild(-1, 3);
    call(fmt::format("pad({}, {}, {})", desc(x), w, desc(c)),
         [&] { return jnp::pad(x, w, {.constant_values = c}); });
    break;
  }
  default: {
    const int64_t n = wild(-1, 4), axis = wild(-nd - 1, nd);
    std::optional<Array> pre, post;
    if (chance(0.3)) pre = chance(0.5) ? scalar() : operand(&x);
    if (chance(0.3)) post = chance(0.5) ? scalar() : operand(&x);
    call(fmt::format("diff({}, {}, {}, {}, {})", desc(x), n, axis, pre ? desc(*pre) : "None",
                     post ? desc(*post) : "None"),
         [&] { return jnp::diff(x, n, axis, pre, post); });
  }
  }
}

void Fuzzer::contraction() {
  // Mostly operands of agreeing shapes: a[..., m, k] and b[..., k, n].
  Array a = pick(), b = pick();
  if (chance(0.7)) {
    const int64_t m = small_dim(), k = small_dim(), n = small_dim();
    Shape batch = small_shape(2), sa = batch, sb = batch;
    if (chance(0.3)) sa.clear();
    sa.push_back(m);
    sa.push_back(k);
    sb.push_back(k);
    sb.push_back(n);
    if (chance(0.2)) sa.erase(sa.begin(), sa.end() - 1);
    if (chance(0.2)) sb.erase(sb.begin(), sb.end() - 2), sb.pop_back();
    if (chance(0.05)) sb[0] += 1;
    a = fresh(sa, chance(0.8) ? jnp::float64 : dtype_arg());
    b = fresh(sb, chance(0.5) ? a.dtype() : dtype_arg());
  }
  const std::string ab = desc(a) + ", " + desc(b);
  switch (below(7)) {
  case 0: call("matmul(" + ab + ")", [&] { return jnp::matmul(a, b); }); break;
  case 1: call("dot(" + ab + ")", [&] { return jnp::dot(a, b); }); break;
  case 2: {
    const int64_t axes = wild(-1, 3);
    call(fmt::format("tensordot({}, {})", ab, axes), [&] { return jnp::tensordot(a, b, axes); });
    break;
  }
  case 3: {
    std::vector<int64_t> xa(below(3)), xb(xa.size() + (chance(0.1) ? 1 : 0));
    for (int64_t &v : xa)
      v = wild(-a.ndim() - 1, a.ndim());
    for (int64_t &v : xb)
      v = wild(-b.ndim() - 1, b.ndim());
    call(fmt::format("tensordot({}, ({}, {}))", ab, xa, xb), [&] {
      return jnp::tensordot(a, b, {xa, xb});
    });
    break;
  }
  case 4: call("vdot(" + ab + ")", [&] { return jnp::vdot(a, b); }); break;
  case 5: call("outer(" + ab + ")", [&] { return jnp::outer(a, b); }); break;
  default: einsum_call();
  }
}

void Fuzzer::einsum_call() {
  static const std::vector<std::string> specs = {"ij,jk->ik",
                                                 "ij,jk",
                                                 "ii->i",
                                                 "ii",
                                                 "i...,i...",
                                                 "...ij,...jk->...ik",
                                                 "ij->ji",
                                                 "i,i",
                                                 "i,j->ij",
                                                 "abc->",
                                                 "abc->cab",
                                                 "ij,ij->ij",
                                                 "bij,bjk->bik",
                                                 "i->",
                                                 "ij->j",
                                                 "ii->",
                                                 "iij->j",
                                                 "...",
                                                 "...->",
                                                 "a...b,b...->a...",
                                                 "ij,jk,kl->il",
                                                 "i",
                                                 "ab,ba",
                                                 "ij->kk",
                                                 "i->ii",
                                                 "ij,,jk",
                                                 "",
                                                 "->",
                                                 "i...j...->ij",
                                                 "ij-k",
                                                 "ijk,,",
                                                 "I,i",
                                                 "aa,a->a"};
  std::string spec = one_of(specs);
  if (chance(0.1)) {
    // Random garbage over the spec alphabet.
    static const std::string alphabet = "ijk.,->aAZ 1";
    spec.clear();
    for (size_t i = below(9); i > 0; --i)
      spec += alphabet[below(alphabet.size())];
  }
  // Operands shaped by their labels, one dimension per label, sometimes perturbed.
  std::map<char, int64_t> dims;
  const Shape ellipsis = small_shape(2);
  std::vector<Array> operands;
  const std::string inputs = spec.substr(0, spec.find("->"));
  std::string term;
  const DType t = chance(0.7) ? jnp::float64 : dtype_arg();
  auto flush = [&] {
    Shape s;
    for (size_t i = 0; i < term.size(); ++i) {
      const char c = term[i];
      if (c == '.') {
        if (term.compare(i, 3, "...") == 0) {
          Shape e = ellipsis;
          if (chance(0.3) && !e.empty()) e.erase(e.begin());
          s.insert(s.end(), e.begin(), e.end());
          i += 2;
        }
      } else if (std::isalpha(static_cast<unsigned char>(c))) {
        if (!dims.count(c)) dims[c] = small_dim();
        s.push_back(dims[c]);
      }
    }
    if (chance(0.05) && !s.empty()) s[below(s.size())] += 1;
    operands.push_back(chance(0.05) ? pick() : fresh(s, t));
    term.clear();
  };
  for (char c : inputs) {
    if (c == ',')
      flush();
    else
      term += c;
  }
  flush();
  if (chance(0.05)) operands.pop_back();
  if (chance(0.05)) operands.push_back(pick());
  call(fmt::format("einsum(\"{}\", {})", spec, desc(operands)),
       [&] { return jnp::einsum(spec, operands); });
}

void Fuzzer::cast() {
  Array x = chance(0.9) ? pick() : scalar();
  const DType t = dtype_arg();
  switch (below(3)) {
  case 0:
    call(fmt::format("{}.astype({})", desc(x), jx::dtype_name(t)), [&] { return x.astype(t); });
    break;
  case 1:
    call(fmt::format("astype({}, {})", desc(x), jx::dtype_name(t)),
         [&] { return jnp::astype(x, t); });
    break;
  default: {
    std::optional<DType> dt;
    if (chance(0.7)) dt = t;
    call(fmt::format("asarray({}, {})", desc(x), dt ? jx::dtype_name(*dt) : "None"),
         [&] { return jnp::asarray(x, dt); });
  }
  }
}

// Calls jf and f (eagerly) on the same arguments: both raise a jx::Error, or the jit outputs
// match the eager ones' reference values.
template <class F, class... A>
void Fuzzer::compare_jit(const std::string &what, const F &f, const jx::Jitted<F> &jf,
                         const A &...args) {
  using Out = std::decay_t<std::invoke_result_t<const F &, const A &...>>;
  call_void(what, [&] {
    std::vector<Array> eager;
    std::string eager_error;
    try {
      eager = jx::detail::Outputs<Out>::flatten(f(args...));
    } catch (const jx::Error &e) {
      eager_error = type_name(typeid(e));
    }
    std::vector<Array> jitted;
    try {
      jitted = jx::detail::Outputs<Out>::flatten(jf(args...));
    } catch (const jx::Error &e) {
      if (eager_error.empty())
        fail(what, fmt::format("jit raised {}: {} where eager gave {}", type_name(typeid(e)),
                               e.what(), desc(eager)));
      throw;
    }
    if (!eager_error.empty()) {
      fail(what, fmt::format("jit gave {} where eager raised {}", desc(jitted), eager_error));
      return;
    }
    if (eager.size() != jitted.size()) {
      fail(what, fmt::format("jit gave {} outputs, eager {}", jitted.size(), eager.size()));
      return;
    }
    for (size_t i = 0; i < eager.size(); ++i)
      check_against(eager[i], jitted[i], fmt::format("{} output {}", what, i));
  });
}

struct JitFunctions {
  static Array f0(const Array &x) { return jnp::sin(x) * 2.0 + x; }
  static Array f1(const Array &x, const Array &y) { return jnp::where(x > y, x - y, y * 0.5); }
  static std::tuple<Array, Array> f2(const Array &x) {
    return {jnp::sum(x, -1), jnp::max(x, {.axis = 0, .keepdims = true})};
  }
  static Array f3(const Array &x, const Array &y) { return jnp::matmul(x, y) + 1; }
  static Array f4(const Array &x, int64_t n) { return jnp::reshape(x, {n, -1}) * 3; }
  static std::vector<Array> f5(const Array &x) {
    return {x(0), jnp::exp(x).astype(jnp::float32), x.astype(jnp::int32) % 3};
  }
  static Array f6(const Array &x) { return x.at(0).set(jnp::mean(x)); }
  static Array f7(const Array &x, const Array &y) {
    return jnp::concatenate({x, y * 2}, 0) - jnp::mean(x);
  }
};

void Fuzzer::jit_call() {
  Array x = pick();
  Array y = chance(0.6) ? operand(&x) : pick();
  const std::string xy = desc(x) + ", " + desc(y);
  switch (below(10)) {
  case 0: {
    auto f = JitFunctions::f0;
    compare_jit("jit(sin(x) * 2 + x)(" + desc(x) + ")", f, jx::jit(f), x);
    break;
  }
  case 1: {
    auto f = JitFunctions::f1;
    compare_jit("jit(where(x > y, x - y, y / 2))(" + xy + ")", f, jx::jit(f), x, y);
    break;
  }
  case 2: {
    auto f = JitFunctions::f2;
    compare_jit("jit((sum(x, -1), max(x, 0, keepdims)))(" + desc(x) + ")", f, jx::jit(f), x);
    break;
  }
  case 3: {
    auto f = JitFunctions::f3;
    compare_jit("jit(matmul(x, y) + 1)(" + xy + ")", f, jx::jit(f), x, y);
    break;
  }
  case 4: {
    auto f = JitFunctions::f4;
    const int64_t n = wild(-1, 4);
    compare_jit(fmt::format("jit(reshape(x, (n, -1)) * 3)({}, n={})", desc(x), n), f, jx::jit(f), x,
                n);
    break;
  }
  case 5: {
    auto f = JitFunctions::f5;
    compare_jit("jit([x[0], exp(x).astype(f32), x.astype(i32) % 3])(" + desc(x) + ")", f,
                jx::jit(f), x);
    break;
  }
  case 6: {
    auto f = JitFunctions::f6;
    compare_jit("jit(x.at[0].set(mean(x)))(" + desc(x) + ")", f, jx::jit(f), x);
    break;
  }
  case 7: {
    auto f = JitFunctions::f7;
    compare_jit("jit(concatenate([x, y * 2]) - mean(x))(" + xy + ")", f, jx::jit(f), x, y);
    break;
  }
  case 8: {
    // lower(spec).compile() called with the compiled signature or another one (a TypeError).
    const jx::ShapeDtypeStruct spec{chance(0.5) ? x.shape() : small_shape(),
                                    chance(0.5) ? x.dtype() : dtype_arg()};
    call(fmt::format("jit(f0).lower({} {}).compile()({})", jx::dtype_name(spec.dtype), spec.shape,
                     desc(x)),
         [&] {
           auto compiled = jx::jit(JitFunctions::f0).lower(spec).compile();
           Array out = compiled(x);
           Array reference = JitFunctions::f0(x);
           check_against(reference, out, "lowered f0");
           return out;
         });
    break;
  }
  default: {
    // Donation of a fresh copy of x: afterwards the copy is deleted and reading it raises.
    Array copy = fresh(x.shape(), x.dtype());
    call("jit(f0, donate_argnums=0)(" + desc(copy) + ")", [&] {
      Array reference = JitFunctions::f0(copy);
      BufferPtr expected = evaluate_with(Backend::Interpreter, reference.node());
      auto f = jx::jit(JitFunctions::f0, {.donate_argnums = {0}});
      Array out = f(copy);
      check_against(reference, out, "donated f0");
      // Deleted (a jx::Error), or kept because `reference` still reads it: no crash either way.
      try {
        (void)copy.to_vector<double>();
      } catch (const jx::Error &e) {
        record(e);
      }
      return out;
    });
  }
  }
}

void Fuzzer::sharding_call() {
  Array x = pick();
  const int64_t nd = x.ndim();
  std::optional<jx::Sharding> sharding;
  std::string what;
  try {
    switch (below(4)) {
    case 0: {
      static const std::vector<std::pair<Shape, std::vector<std::string>>> meshes = {
          {{1}, {"x"}}, {{2}, {"x"}},         {{4}, {"x"}}, {{2, 2}, {"x", "y"}},
          {{3}, {"x"}}, {{1, 4}, {"x", "y"}}, {{8}, {"x"}}, {{2}, {"x", "y"}}};
      const auto &[mesh_shape, names] = one_of(meshes);
      std::vector<jx::PartitionSpec::Entry> entries;
      static const std::vector<std::string> axes = {"x", "y", "z"};
      for (size_t i = below(nd + 2); i > 0; --i)
        switch (below(4)) {
        case 0: entries.emplace_back(nullptr); break;
        case 1: entries.emplace_back(std::vector<std::string>{"x", "y"}); break;
        default: entries.emplace_back(one_of(axes));
        }
      what = fmt::format("NamedSharding(make_mesh({}), {} entries)", mesh_shape, entries.size());
      call(what + " on " + desc(x), [&] {
        jx::Mesh mesh = jx::make_mesh(mesh_shape, names);
        sharding.emplace(jx::NamedSharding(mesh, jx::PartitionSpec(entries)));
        return no_array();
      });
      break;
    }
    case 1: {
      const int64_t n = between(1, 5);
      Shape s = x.shape();
      for (int64_t &d : s)
        d = 1;
      if (!s.empty()) s[below(s.size())] = n;
      if (chance(0.2)) s = small_shape();
      what = fmt::format("PositionalSharding({} devices).reshape({})", n, s);
      call(what, [&] {
        std::vector<jx::Device> devices = jx::devices();
        devices.resize(std::min<size_t>(n, devices.size()));
        sharding.emplace(jx::PositionalSharding(devices).reshape(s));
        return no_array();
      });
      break;
    }
    case 2: {
      const int id = int(between(-1, 4));
      what = fmt::format("Device({})", id);
      call("device_put(" + desc(x) + ", " + what + ")",
           [&] { return jx::device_put(x, jx::Device{id}); });
      return;
    }
    default: {
      const int id = int(between(-1, 4));
      what = fmt::format("SingleDeviceSharding({})", id);
      call(what, [&] {
        sharding.emplace(jx::SingleDeviceSharding(jx::Device{id}));
        return no_array();
      });
    }
    }
  } catch (const jx::Error &e) {
    record(e);
  }
  if (!sharding) return;
  const jx::Sharding s = *sharding;
  if (chance(0.3)) {
    // Placed by a jitted function's out_shardings.
    call(fmt::format("jit(f0, out_shardings={})({})", what, desc(x)), [&] {
      Array out = jx::jit(JitFunctions::f0, {.out_shardings = {s}})(x);
      check_against(JitFunctions::f0(x), out, "jit with out_shardings");
      return out;
    });
    return;
  }
  call(fmt::format("device_put({}, {})", desc(x), what), [&] {
    Array placed = jx::device_put(x, s);
    for (const jx::Shard &shard : placed.addressable_shards())
      keep(shard.data,
           fmt::format("shard on device {} of device_put({}, {})", shard.device.id, desc(x), what));
    return placed;
  });
}

void Fuzzer::misc() {
  switch (below(4)) {
  case 0: {
    std::vector<Shape> shapes(below(4));
    for (Shape &s : shapes)
      s = chance(0.9) ? small_shape() : shape_arg();
    call_void(fmt::format("broadcast_shapes({})", shapes),
              [&] { (void)jnp::broadcast_shapes(shapes); });
    break;
  }
  case 1: {
    static const std::vector<std::string> names = {
        "f8", "<f4", "float32", "int", "i8", "?", "bool", "complex64", "", "u1", ">i4", "double"};
    const std::string name = one_of(names);
    call_void("dtype(\"" + name + "\")", [&] { (void)jx::dtype(name); });
    break;
  }
  case 2: {
    Array x = pick();
    call_void("item/to_vector/to_string of " + desc(x), [&] {
      (void)x.to_vector<double>();
      (void)x.to_vector<bool>();
      (void)jx::to_string(x);
      (void)x.item<int64_t>();
    });
    break;
  }
  default: {
    // A moved-from Array used as an operand: a jx::ValueError, never a crash.
    Array x = pick();
    Array moved = std::move(x);
    (void)moved;
    call("add(<moved-from>, 1)", [&] { return x + 1; });
  }
  }
}

void Fuzzer::step() {
  const uint64_t r = below(100);
  if (r < 8)
    creation();
  else if (r < 11)
    random_call();
  else if (r < 21)
    unary();
  else if (r < 36)
    binary();
  else if (r < 45)
    reduction();
  else if (r < 51)
    reshape_call();
  else if (r < 59)
    movement();
  else if (r < 66)
    indexing();
  else if (r < 71)
    at_update();
  else if (r < 75)
    join();
  else if (r < 80)
    pad_diff();
  else if (r < 87)
    contraction();
  else if (r < 90)
    cast();
  else if (r < 94)
    jit_call();
  else if (r < 97)
    sharding_call();
  else
    misc();
}

void Fuzzer::run_sequence(uint64_t seed) {
  seed_ = seed;
  rng_.seed(seed);
  pool_.clear();
  deferred_.clear();
  for (int i = 0; i < 4; ++i)
    pool_.push_back(fresh(small_shape(), dtype_arg()));
  for (call_index_ = 0; call_index_ < kCalls; ++call_index_) {
    step();
    if (call_index_ % 10 == 9) flush_deferred();
  }
  flush_deferred();
}

void Fuzzer::report(double seconds, uint64_t first_seed, uint64_t sequences) const {
  std::vector<std::string> errors;
  for (const auto &[name, count] : errors_)
    errors.push_back(fmt::format("{} {}", name, count));
  fmt::print(
      "api fuzz: seeds {}..{}: {} calls, {} values checked, {} large results not "
      "realized, {} not checked (the reference would materialize too much), errors: {}; {:.1f} s\n",
      first_seed, first_seed + sequences - 1, calls_, checked_, skipped_large_,
      reference_out_of_memory_, fmt::join(errors, ", "), seconds);
  if (failure_count_) {
    std::string text;
    for (const std::string &f : failures_)
      text += "\n  " + f;
    ADD_FAILURE() << failure_count_ << " failures (first " << failures_.size() << "):" << text;
  }
}

TEST(ApiFuzz, TypedErrorOrCorrectValue) {
  try {
    jx::config::set_num_cpu_devices(4);
  } catch (const jx::Error &) {
    // Devices already fixed (JX_NUM_CPU_DEVICES or an earlier use): shardings adapt.
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(sig, on_fatal_signal);
  const char *seconds_env = env("JX_API_FUZZ_SECONDS");
  const double seconds = seconds_env ? std::strtod(seconds_env, nullptr) : 0;
  const char *seed_env = env("JX_API_FUZZ_SEED");
  const uint64_t first =
      seed_env ? std::strtoull(seed_env, nullptr, 0) : (seconds > 0 ? std::random_device{}() : 1);
  const char *count_env = env("JX_API_FUZZ_SEQUENCES");
  const uint64_t count = count_env ? std::strtoull(count_env, nullptr, 0) : 8;
  fmt::print("api fuzz: seed {} ({}), JX_API_FUZZ_SEED={} JX_API_FUZZ_SEQUENCES=1 replays one "
             "sequence\n",
             first, seconds > 0 ? fmt::format("{} s", seconds) : fmt::format("{} sequences", count),
             first);
  std::fflush(stdout);
  Fuzzer fuzzer(env("JX_API_FUZZ_VERBOSE") != nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  uint64_t done = 0;
  while (seconds > 0 ? elapsed() < seconds : done < count)
    fuzzer.run_sequence(first + done++);
  fuzzer.report(elapsed(), first, done);
}

} // namespace
