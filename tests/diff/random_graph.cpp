// The random graph generator: picks jnp calls valid for their operands, builds them through the
// public API, and records the program as text.
#include "diff/random_graph.h"

#include <jx/lax.h>
#include <jx/numpy.h>
#include <jx/random.h>
#include <jx/scipy.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ir/node.h"
#include "ir/printer.h"

namespace jx::diff {
namespace {

namespace jnp = jx::numpy;

// Sets of dtypes, one bit per DType.
using DTypeSet = unsigned;
constexpr DTypeSet bit(DType t) { return 1u << unsigned(t); }
constexpr DTypeSet kAnyDType = (1u << jx::num_dtypes) - 1;
constexpr DTypeSet kFloats = bit(DType::float32) | bit(DType::float64);
constexpr DTypeSet kNonFloats = kAnyDType & ~kFloats;
constexpr DTypeSet kNumbers = kAnyDType & ~bit(DType::bool_);
constexpr DType kDTypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                             DType::float64};
// The narrow and unsigned integers, drawn one time in eight where an integer may be.
constexpr DType kSmallIntegers[] = {DType::int8,   DType::int16,  DType::uint8,
                                    DType::uint16, DType::uint32, DType::uint64};

// ---- Python spellings for the description ----

std::string py_dtype(DType t) {
  return t == DType::bool_ ? "jnp.bool_" : fmt::format("jnp.{}", dtype_name(t));
}

std::string py_float(double v) {
  if (std::isnan(v)) return "jnp.nan";
  if (std::isinf(v)) return v > 0 ? "jnp.inf" : "-jnp.inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

template <class T> std::string py_value(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "True" : "False";
  else if constexpr (std::is_floating_point_v<T>)
    return py_float(v);
  else
    return fmt::format("{}", v);
}

std::string py_tuple(const std::vector<int64_t> &v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

std::string py_opt(std::optional<int64_t> v) { return v ? fmt::format("{}", *v) : ""; }

std::string py_slice(const Slice &s) {
  std::string out = py_opt(s.start) + ":" + py_opt(s.stop);
  if (s.step) out += ":" + py_opt(s.step);
  return out;
}

// NumPy broadcasting of two shapes; nullopt where they do not broadcast.
std::optional<Shape> broadcast2(const Shape &a, const Shape &b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// A generated value: an array, how the program refers to it, and whether its value may differ
// between correct implementations (float results downstream of sums, contractions or libm calls).
struct Value {
  Array a;
  std::string ref; // "v3", or the literal text of an inline C++ scalar
  int id = -1;     // line that defines it; -1 for inline scalars
  bool approx = false;
};

// What an operand must be: its dtype, and exact where the op is discontinuous.
struct Need {
  DTypeSet dtypes = kAnyDType;
  bool exact = false;
  bool nonneg_scalar = false; // scalars must be >= 0 (integer exponents)
};

struct Line {
  std::string text;
  std::vector<int> deps;
};

// Thrown when a call would need a leaf beyond the size limits; the call is dropped.
struct TooLarge {};

class Generator {
public:
  // With arguments, float leaf k of literal data is args[arg_of_leaf[k]] where that is >= 0.
  Generator(uint64_t seed, const GraphOptions &options, std::vector<int> arg_of_leaf = {},
            std::vector<Array> args = {})
      : rng_(seed), o_(options), arg_of_leaf_(std::move(arg_of_leaf)), args_(std::move(args)) {}

  GeneratedGraph run() {
    const int64_t n_ops = uni(o_.min_ops, o_.max_ops);
    fresh(random_shape(random_rank()), pick_dtype(kAnyDType));
    for (int64_t done = 0, tries = 0; done < n_ops && tries < 40 * n_ops; ++tries) {
      // Mostly extend the newest value, so that most calls lie on the root's path.
      Value x = chance(0.8) ? pool_.back() : pool_[uni(0, int64_t(pool_.size()) - 1)];
      if (apply_random_op(x)) ++done;
    }
    return {pool_.back().a, describe(pool_.back())};
  }

  // After run(): the float leaves of literal data, in order of creation, and which of them the
  // root depends on.
  const std::vector<Value> &float_leaves() const { return float_leaves_; }
  std::vector<bool> leaves_reaching_root() const {
    const std::vector<bool> live = live_lines(pool_.back());
    std::vector<bool> out;
    for (const Value &v : float_leaves_)
      out.push_back(live[v.id]);
    return out;
  }

private:
  std::mt19937_64 rng_;
  GraphOptions o_;
  std::vector<int> arg_of_leaf_;
  std::vector<Array> args_;
  std::vector<Value> pool_, float_leaves_;
  std::vector<Line> lines_;

  // ---- randomness (own integer mapping: std distributions differ between standard libraries) --

  int64_t uni(int64_t lo, int64_t hi) { return lo + int64_t(rng_() % uint64_t(hi - lo + 1)); }
  double unit() { return double(rng_() >> 11) * 0x1p-53; }
  bool chance(double p) { return unit() < p; }
  template <class T> T pick(std::initializer_list<T> xs) {
    return xs.begin()[uni(0, int64_t(xs.size()) - 1)];
  }
  template <class T> const T &pick(const std::vector<T> &xs) {
    return xs[uni(0, int64_t(xs.size()) - 1)];
  }
  template <class T> void shuffle(std::vector<T> &xs) {
    for (size_t i = xs.size(); i > 1; --i)
      std::swap(xs[i - 1], xs[uni(0, int64_t(i) - 1)]);
  }
  DType pick_dtype(DTypeSet set) {
    if (o_.float_dtype && (set & kFloats)) set = (set & ~kFloats) | bit(*o_.float_dtype);
    std::vector<DType> ts;
    for (DType t : kDTypes)
      if (set & bit(t)) ts.push_back(t);
    if (o_.small_integers && chance(0.125)) {
      std::vector<DType> small;
      for (DType t : kSmallIntegers)
        if (set & bit(t)) small.push_back(t);
      if (!small.empty()) return pick(small);
    }
    return pick(ts);
  }
  bool has(Family f) const { return o_.families & f; }

  // ---- shapes and axes ----

  int64_t random_rank() { return pick<int64_t>({0, 1, 1, 1, 2, 2, 2, 3, 3, 4}); }
  int64_t random_dim() {
    int64_t r = uni(0, 99);
    return r < 4 ? 0 : r < 24 ? 1 : uni(2, 7);
  }
  Shape random_shape(int64_t rank) {
    Shape s;
    for (int64_t i = 0; i < rank; ++i)
      s.push_back(random_dim());
    while (shape_size(s) > o_.max_size) {
      int64_t &d = *std::max_element(s.begin(), s.end());
      d = (d + 1) / 2;
    }
    return s;
  }
  bool fits(const Shape &s) const { return s.size() <= 4 && shape_size(s) <= o_.max_size; }
  // An axis of a rank-r array, negative half of the time.
  int64_t random_axis(int64_t r) {
    int64_t a = uni(0, r - 1);
    return chance(0.5) ? a - r : a;
  }
  // k distinct axes of a rank-r array in random order, each maybe negative.
  std::vector<int64_t> random_axes(int64_t r, int64_t k) {
    std::vector<int64_t> all(r);
    for (int64_t i = 0; i < r; ++i)
      all[i] = i;
    shuffle(all);
    all.resize(k);
    for (int64_t &a : all)
      if (chance(0.3)) a -= r;
    return all;
  }
  // A shape of n elements with rank 0..4 (1..4 when n == 0).
  Shape factor_shape(int64_t n) {
    if (n == 0) {
      Shape s(uni(1, 4));
      for (int64_t &d : s)
        d = uni(0, 4);
      s[uni(0, int64_t(s.size()) - 1)] = 0;
      return s;
    }
    Shape s(uni(n == 1 ? 0 : 1, 4), 1);
    for (int64_t p = 2, m = n; m > 1; ++p) {
      if (p * p > m) p = m; // m is prime
      for (; m % p == 0; m /= p)
        s[uni(0, int64_t(s.size()) - 1)] *= p;
    }
    return s;
  }
  // A shape that broadcasts with s, mostly to s itself: leading axes dropped, axes set to 1,
  // sometimes a new leading axis or a size-1 axis of s expanded.
  Shape broadcast_partner_shape(const Shape &s) {
    Shape p = s;
    if (chance(0.3)) p.erase(p.begin(), p.begin() + uni(0, int64_t(p.size())));
    for (int64_t &d : p)
      if (chance(0.3)) d = 1;
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] == 1 && chance(0.15)) p[i] = random_dim();
    if (chance(0.15)) p.insert(p.begin(), uni(1, 4));
    std::optional<Shape> out = broadcast2(s, p);
    return out && fits(*out) ? p : s;
  }

  // ---- the program text ----

  std::optional<Value> emit(const Array &a, std::string expr, const std::vector<int> &deps,
                            bool approx) {
    if (!fits(a.shape())) return std::nullopt;
    const int id = int(lines_.size());
    lines_.push_back({fmt::format("v{} = {}  # {}", id, expr, ir::type_str(*a.node())), {}});
    for (int d : deps)
      if (d >= 0) lines_.back().deps.push_back(d);
    pool_.push_back({a, fmt::format("v{}", id), id, approx && is_floating(a.dtype())});
    return pool_.back();
  }

  // Which lines the root depends on.
  std::vector<bool> live_lines(const Value &root) const {
    std::vector<bool> live(lines_.size());
    live[root.id] = true;
    for (int i = root.id; i >= 0; --i)
      if (live[i])
        for (int d : lines_[i].deps)
          live[d] = true;
    return live;
  }

  // The lines the root depends on, in program order; with arguments, as a Python function.
  std::string describe(const Value &root) const {
    const std::vector<bool> live = live_lines(root);
    std::string out, indent;
    if (!args_.empty()) {
      std::vector<std::string> names;
      for (size_t i = 0; i < args_.size(); ++i)
        names.push_back(fmt::format("x{}", i));
      out = fmt::format("def f({}):\n", fmt::join(names, ", "));
      indent = "  ";
    }
    for (size_t i = 0; i < lines_.size(); ++i)
      if (live[i]) out += indent + lines_[i].text + "\n";
    return out + (args_.empty() ? "root = " : "  return ") + root.ref;
  }

  // ---- leaves ----

  double random_float() {
    int64_t r = uni(0, 99);
    // Moderate values draw uniformly instead of infinities, NaNs, huge or tiny values.
    if (o_.moderate_values && (r < 4 || (r >= 45 && r < 48))) r = 99;
    if (r < 2) return std::numeric_limits<double>::quiet_NaN();
    if (r < 4) return pick({1.0, -1.0}) * std::numeric_limits<double>::infinity();
    if (r < 8) return pick({0.0, -0.0});
    if (r < 30) return double(uni(-6, 6));
    if (r < 45) return double(uni(-32, 32)) / 4;
    if (r < 48) return pick({1.0, -1.0}) * pick({1e-30, 1e30, 1e-310, 65504.0});
    return -10 + 20 * unit();
  }
  int64_t random_int(DType t) {
    int64_t r = uni(0, 99);
    if (r < 75 || o_.moderate_values) return uni(-8, 8);
    if (r < 90) return uni(-1000, 1000);
    if (t == DType::int32)
      return r < 97
                 ? int32_t(uint32_t(rng_()))
                 : pick({std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()});
    if (t != DType::int64) return int64_t(rng_()); // wrapped by the caller's type
    return r < 97
               ? int64_t(rng_())
               : pick({std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
  }

  template <class T> Value constant_of(const Shape &s, const std::vector<T> &data) {
    // An argument replaces the leaf once its data is drawn, so the rest of the program is the same.
    if constexpr (std::is_floating_point_v<T>) {
      const size_t k = float_leaves_.size();
      if (k < arg_of_leaf_.size() && arg_of_leaf_[k] >= 0) {
        const int i = arg_of_leaf_[k];
        float_leaves_.push_back(*emit(args_[i], fmt::format("x{}", i), {}, false));
        return float_leaves_.back();
      }
    }
    std::string text;
    for (size_t i = 0; i < data.size() && i < 12; ++i)
      text += (i ? ", " : "") + py_value<T>(data[i]);
    if (data.size() > 12) text += ", ...";
    const DType t = dtype_of_v<T>;
    std::string expr = s.empty() ? fmt::format("jnp.array({}, dtype={})", text, py_dtype(t))
                                 : fmt::format("jnp.array([{}], dtype={})", text, py_dtype(t));
    if (s.size() > 1) expr += fmt::format(".reshape({})", py_tuple(s));
    const Value v = *emit(jnp::array(data, s), expr, {}, false);
    if constexpr (std::is_floating_point_v<T>) float_leaves_.push_back(v);
    return v;
  }

  // Integers of a narrow or unsigned T: mostly small, now and then wrapped from a wide value or
  // T's extremes.
  template <class T> Value int_constant(const Shape &s) {
    std::vector<T> d(size_t(shape_size(s)));
    for (T &v : d)
      v = chance(0.03) ? pick({std::numeric_limits<T>::min(), std::numeric_limits<T>::max()})
                       : T(random_int(dtype_of_v<T>));
    return constant_of(s, d);
  }

  Value constant(const Shape &s, DType t) {
    const size_t n = size_t(shape_size(s));
    switch (t) {
    case DType::bool_: {
      std::vector<bool> d(n);
      for (size_t i = 0; i < n; ++i)
        d[i] = chance(0.5);
      return constant_of(s, d);
    }
    case DType::int8: return int_constant<int8_t>(s);
    case DType::int16: return int_constant<int16_t>(s);
    case DType::int32: {
      std::vector<int32_t> d(n);
      for (int32_t &v : d)
        v = int32_t(random_int(t));
      return constant_of(s, d);
    }
    case DType::int64: {
      std::vector<int64_t> d(n);
      for (int64_t &v : d)
        v = random_int(t);
      return constant_of(s, d);
    }
    case DType::uint8: return int_constant<uint8_t>(s);
    case DType::uint16: return int_constant<uint16_t>(s);
    case DType::uint32: return int_constant<uint32_t>(s);
    case DType::uint64: return int_constant<uint64_t>(s);
    case DType::float16:
    case DType::bfloat16:
    case DType::complex64:
    case DType::complex128: break; // not drawn
    case DType::float32: {
      std::vector<float> d(n);
      for (float &v : d)
        v = float(random_float());
      return constant_of(s, d);
    }
    case DType::float64: {
      std::vector<double> d(n);
      for (double &v : d)
        v = random_float();
      return constant_of(s, d);
    }
    }
    return constant_of(s, std::vector<bool>(n));
  }

  // A C++ scalar of t's kind (weakly typed), or now and then a strongly typed 0-d jnp.array.
  Value scalar(DType t, bool nonneg = false) {
    const bool strong = chance(0.125);
    double v;
    std::string text;
    if (t == DType::bool_) {
      v = chance(0.5);
      text = py_value(v != 0);
    } else if (is_integer(t)) {
      // With unsigned arrays about, a negative C++ int would be out of bounds (NumPy raises).
      v = double(nonneg || o_.small_integers ? uni(0, 4) : uni(-4, 9));
      text = fmt::format("{}", int64_t(v));
    } else {
      v = nonneg ? pick({0.0, 0.5, 1.0, 2.0, 3.0, 2.5})
                 : pick({0.5, 1.5, -2.0, 3.0, 0.0, -0.25, 10.0, 1e-3, -7.5, 2.0});
      if (!nonneg && chance(0.03) && !o_.moderate_values)
        v = pick({std::nan(""), std::numeric_limits<double>::infinity()});
      text = py_float(v);
    }
    if (strong) return {jnp::array(v, t), fmt::format("{}({})", py_dtype(t), text)};
    if (t == DType::bool_) return {Array(v != 0), text};
    if (is_integer(t)) return {Array(int64_t(v)), text};
    return {Array(v), text};
  }

  jx::random::Key random_key(std::string &text) {
    const int64_t seed = uni(0, 1000);
    jx::random::Key key = jx::random::PRNGKey(seed);
    text = fmt::format("jax.random.PRNGKey({})", seed);
    if (chance(0.3)) {
      const int64_t i = uni(0, 2);
      key = jx::random::split(key, 3)[i];
      text = fmt::format("jax.random.split({}, 3)[{}]", text, i);
    } else if (chance(0.2)) {
      const uint32_t d = uint32_t(uni(0, 99));
      key = jx::random::fold_in(key, d);
      text = fmt::format("jax.random.fold_in({}, {})", text, d);
    }
    return key;
  }

  // A leaf computed from parameters, of shape s and dtype t where this kind of leaf allows;
  // exact unless approx_ok (random.normal goes through erf_inv, an approximation).
  std::optional<Value> generated(const Shape &s, DType t, bool approx_ok) {
    const int64_t kind = uni(0, 4);
    if (kind == 0 && is_floating(t)) {
      std::string key;
      jx::random::Key k = random_key(key);
      if (approx_ok && chance(0.3))
        return emit(jx::random::normal(k, s, t),
                    fmt::format("jax.random.normal({}, {}, {})", key, py_tuple(s), py_dtype(t)), {},
                    true);
      const double lo = pick({0.0, -1.0, -5.0, 2.0}), hi = pick({1.0, 3.0, 0.5, 8.0});
      return emit(jx::random::uniform(k, s, t, lo, hi),
                  fmt::format("jax.random.uniform({}, {}, {}, {}, {})", key, py_tuple(s),
                              py_dtype(t), py_float(lo), py_float(hi)),
                  {}, false);
    }
    if (kind == 1 && s.size() == 1 && t != DType::bool_) {
      const int64_t n = s[0];
      if (chance(0.5)) {
        const int64_t start = uni(-5, 5), step = pick<int64_t>({1, 2, -1, 3});
        return emit(jnp::arange(start, start + n * step, step, t),
                    fmt::format("jnp.arange({}, {}, {}, dtype={})", start, start + n * step, step,
                                py_dtype(t)),
                    {}, false);
      }
      // Quarter steps are exact, so the length is exactly n.
      const double start = double(uni(-8, 8)) / 4, step = pick({0.25, -0.5, 1.5});
      return emit(jnp::arange(start, start + double(n) * step, step, t),
                  fmt::format("jnp.arange({}, {}, {}, dtype={})", py_float(start),
                              py_float(start + double(n) * step), py_float(step), py_dtype(t)),
                  {}, false);
    }
    if (kind == 2 && s.size() == 1 && t != DType::bool_) {
      const double start = pick({0.0, -1.0, 2.5, -3.25}), stop = pick({1.0, 10.0, -2.0, 0.1});
      const bool endpoint = chance(0.7);
      return emit(jnp::linspace(start, stop, {.num = s[0], .endpoint = endpoint, .dtype = t}),
                  fmt::format("jnp.linspace({}, {}, {}, endpoint={}, dtype={})", py_float(start),
                              py_float(stop), s[0], py_value(endpoint), py_dtype(t)),
                  {}, false);
    }
    if (kind == 3 && s.size() == 2) {
      const int64_t k = uni(-2, 2);
      return emit(jnp::eye(s[0], s[1], k, t),
                  fmt::format("jnp.eye({}, {}, k={}, dtype={})", s[0], s[1], k, py_dtype(t)), {},
                  false);
    }
    if (kind == 4) {
      const int64_t form = uni(0, 2);
      if (form == 0)
        return emit(jnp::zeros(s, t), fmt::format("jnp.zeros({}, {})", py_tuple(s), py_dtype(t)),
                    {}, false);
      if (form == 1)
        return emit(jnp::ones(s, t), fmt::format("jnp.ones({}, {})", py_tuple(s), py_dtype(t)), {},
                    false);
      Value fill = scalar(pick_dtype(kAnyDType));
      return emit(jnp::full(s, fill.a, t),
                  fmt::format("jnp.full({}, {}, dtype={})", py_tuple(s), fill.ref, py_dtype(t)), {},
                  false);
    }
    return std::nullopt;
  }

  // A new leaf of shape s and dtype t.
  Value fresh(const Shape &s, DType t, bool approx_ok = true) {
    if (!fits(s)) throw TooLarge();
    if (has(kGenerated) && chance(0.3))
      if (std::optional<Value> v = generated(s, t, approx_ok)) return *v;
    return constant(s, t);
  }

  // ---- operands ----

  bool usable(const Value &v, const Need &need) const {
    return (need.dtypes & bit(v.a.dtype())) && !(need.exact && v.approx);
  }

  // A second operand for an elementwise op on an array of shape xs: a scalar, an earlier value or
  // a new leaf, whose shape broadcasts with xs (equals it without the Broadcasting family).
  Value partner(const Shape &xs, const Need &need) {
    const bool bc = has(kBroadcasting);
    if ((bc || xs.empty()) && chance(0.25))
      return scalar(pick_dtype(need.dtypes), need.nonneg_scalar);
    if (chance(0.3)) {
      std::vector<const Value *> found;
      for (const Value &v : pool_) {
        if (!usable(v, need)) continue;
        std::optional<Shape> b = broadcast2(xs, v.a.shape());
        if (bc ? b && fits(*b) : v.a.shape() == xs) found.push_back(&v);
      }
      if (!found.empty()) return *pick(found);
    }
    return fresh(bc && chance(0.6) ? broadcast_partner_shape(xs) : xs, pick_dtype(need.dtypes),
                 !need.exact);
  }

  // ---- one jnp call ----

  bool apply_random_op(const Value &x) {
    using Op = std::optional<Value> (Generator::*)(const Value &);
    struct Choice {
      Family family;
      int weight;
      Op op;
      const char *name;
    };
    static const Choice choices[] = {
        {kElementwise, 8, &Generator::unary, "unary"},
        {kElementwise, 10, &Generator::arithmetic, "arithmetic"},
        {kElementwise, 4, &Generator::comparison, "comparison"},
        {kElementwise, 4, &Generator::logic, "logic"},
        {kElementwise, 3, &Generator::where, "where"},
        {kElementwise, 3, &Generator::astype, "astype"},
        {kElementwise, 2, &Generator::complex_numbers, "complex_numbers"},
        {kBroadcasting, 2, &Generator::broadcast_to, "broadcast_to"},
        {kMovement, 3, &Generator::reshape, "reshape"},
        {kMovement, 3, &Generator::transpose, "transpose"},
        {kMovement, 2, &Generator::expand_or_squeeze, "expand_or_squeeze"},
        {kMovement, 4, &Generator::index, "index"},
        {kMovement, 2, &Generator::flip_or_roll, "flip_or_roll"},
        {kMovement, 2, &Generator::pad, "pad"},
        {kMovement, 3, &Generator::concatenate_or_stack, "concatenate_or_stack"},
        {kMovement, 2, &Generator::diff, "diff"},
        {kMovement, 3, &Generator::at, "at"},
        {kMovement, 2, &Generator::dynamic, "dynamic"},
        {kReduction, 6, &Generator::reduce, "reduce"},
        {kReduction, 2, &Generator::arg_reduce, "arg_reduce"},
        {kSorting, 3, &Generator::sort_or_scan, "sort_or_scan"},
        {kGather, 3, &Generator::gather_or_scatter, "gather_or_scatter"},
        {kLinalg, 2, &Generator::linear_algebra, "linear_algebra"},
        {kContraction, 5, &Generator::contract, "contract"},
    };
    int total = 0;
    for (const Choice &c : choices)
      if (has(c.family)) total += c.weight;
    if (total == 0) return false;
    int64_t r = uni(0, total - 1);
    for (const Choice &c : choices) {
      if (!has(c.family)) continue;
      if (r >= c.weight) {
        r -= c.weight;
        continue;
      }
      try {
        return (this->*c.op)(x).has_value();
      } catch (const TooLarge &) {
        return false;
      } catch (const std::exception &e) {
        // A jnp call the generator made valid raised: name it and show the program so far.
        std::string program;
        for (const Line &line : lines_)
          program += line.text + "\n";
        throw std::runtime_error(fmt::format("{} on {} raised: {}\nprogram so far:\n{}", c.name,
                                             x.ref, e.what(), program));
      }
    }
    return false;
  }

  using Fn1 = Array (*)(const Array &);
  using Fn2 = Array (*)(const Array &, const Array &);

  std::optional<Value> unary(const Value &x) {
    const DType t = x.a.dtype();
    const bool b = t == DType::bool_, f = is_floating(t);
    struct U {
      const char *format;
      Fn1 fn;
      bool valid, needs_exact, approx;
    };
    const U table[] = {
        {"jnp.negative({})", jnp::negative, !b, false, false},
        {"-{}", [](const Array &a) { return -a; }, !b, false, false},
        {"jnp.positive({})", jnp::positive, true, false, false},
        {"jnp.abs({})", jnp::abs, true, false, false},
        {"jnp.absolute({})", jnp::absolute, true, false, false},
        {"jnp.sign({})", jnp::sign, !b, true, false},
        {"jnp.exp({})", jnp::exp, true, false, true},
        {"jnp.expm1({})", jnp::expm1, true, false, true},
        {"jnp.log({})", jnp::log, true, false, true},
        {"jnp.log1p({})", jnp::log1p, true, false, true},
        {"jnp.sqrt({})", jnp::sqrt, true, false, false},
        {"jnp.square({})", jnp::square, true, false, false},
        {"jnp.sin({})", jnp::sin, true, false, true},
        {"jnp.cos({})", jnp::cos, true, false, true},
        {"jnp.tan({})", jnp::tan, true, false, true},
        {"jnp.tanh({})", jnp::tanh, true, false, true},
        {"jnp.sinh({})", jnp::sinh, true, false, true},
        {"jnp.cosh({})", jnp::cosh, true, false, true},
        {"jnp.arcsin({})", jnp::arcsin, true, false, true},
        {"jnp.arccos({})", jnp::arccos, true, false, true},
        {"jnp.arctan({})", jnp::arctan, true, false, true},
        {"jnp.arcsinh({})", jnp::arcsinh, true, false, true},
        {"jnp.arccosh({})", jnp::arccosh, true, false, true},
        {"jnp.arctanh({})", jnp::arctanh, true, false, true},
        {"jnp.exp2({})", jnp::exp2, true, false, true},
        {"jnp.log2({})", jnp::log2, true, false, true},
        {"jnp.log10({})", jnp::log10, true, false, true},
        {"jnp.cbrt({})", jnp::cbrt, true, false, true},
        {"jax.scipy.special.erf({})", jx::scipy::special::erf, true, false, true},
        {"jax.scipy.special.erfc({})", jx::scipy::special::erfc, true, false, true},
        {"jnp.round({})", [](const Array &a) { return jnp::round(a); }, !b, true, false},
        {"jnp.floor({})", jnp::floor, true, true, false},
        {"jnp.ceil({})", jnp::ceil, true, true, false},
        {"jnp.isnan({})", jnp::isnan, true, true, false},
        {"jnp.isfinite({})", jnp::isfinite, true, true, false},
        {"jnp.signbit({})", jnp::signbit, true, true, false},
        {"jnp.isinf({})", jnp::isinf, true, true, false},
        {"jnp.logical_not({})", jnp::logical_not, true, true, false},
        {"jnp.bitwise_not({})", jnp::bitwise_not, !f, false, false},
        {"jax.lax.population_count({})", jx::lax::population_count, !b && !f, false, false},
        {"jax.lax.clz({})", jx::lax::clz, !b && !f, false, false},
        {"jax.lax.square({})", jx::lax::square, !b, false, false},
        {"jax.lax.rsqrt({})", jx::lax::rsqrt, f, false, false},
        {"jax.lax.logistic({})", jx::lax::logistic, f, false, true},
        {"jnp.invert({})", jnp::invert, !f, false, false},
        {"~{}", [](const Array &a) { return ~a; }, !f, false, false},
    };
    std::vector<const U *> valid;
    for (const U &u : table)
      if (u.valid && !(u.needs_exact && x.approx)) valid.push_back(&u);
    const U &u = *pick(valid);
    return emit(u.fn(x.a), fmt::format(fmt::runtime(u.format), x.ref), {x.id},
                x.approx || u.approx);
  }

  // x + y·1j computed on as complex numbers, then taken apart again (real, imag, abs, angle):
  // the graph's values stay real, with complex ones between (ir::finish's formulas of the parts).
  std::optional<Value> complex_numbers(const Value &x) {
    const DType t = x.a.dtype();
    // Its formulas broadcast literals (x + y * 1j, exp's zero test).
    if (!is_floating(t) || !has(kBroadcasting)) return std::nullopt;
    const Value y = fresh(x.a.shape(), t);
    const std::complex<double> i(0, 1);
    Array z = x.a + y.a * i;
    std::string text = fmt::format("({} + {} * 1j)", x.ref, y.ref);
    bool approx = x.approx || y.approx;
    const int64_t r = x.a.ndim();
    switch (uni(0, 5)) {
    case 0:
      z = z * jnp::conj(z) + z;
      text = fmt::format("({0} * jnp.conj({0}) + {0})", text);
      break;
    case 1:
      z = z / (z + 2.0);
      text = fmt::format("({0} / ({0} + 2.0))", text);
      break;
    case 2:
      z = jnp::exp(z);
      text = fmt::format("jnp.exp({})", text);
      approx = true;
      break;
    case 3:
      z = jnp::sqrt(z) - jnp::log(z + 3.0);
      text = fmt::format("(jnp.sqrt({0}) - jnp.log({0} + 3.0))", text);
      approx = true;
      break;
    case 4:
      if (!has(kMovement)) break;
      z = jnp::flip(z);
      text = fmt::format("jnp.flip({})", text);
      break;
    default:
      if (r == 0 || !has(kReduction)) break;
      const int64_t axis = random_axis(r);
      z = jnp::sum(z, axis);
      text = fmt::format("jnp.sum({}, axis={})", text, axis);
      approx = true;
      break;
    }
    static const std::pair<const char *, Fn1> parts[] = {{"jnp.real({})", jnp::real},
                                                         {"jnp.imag({})", jnp::imag},
                                                         {"jnp.abs({})", jnp::abs},
                                                         {"jnp.angle({})", nullptr}};
    const auto &[format, part] = parts[uni(0, 3)];
    const Array out = part ? part(z) : jnp::angle(z);
    const bool exact_part =
        part == jnp::real || part == jnp::imag; // abs, angle: libm's hypot, atan2
    return emit(out, fmt::format(fmt::runtime(format), text), {x.id, y.id}, approx || !exact_part);
  }

  // Applies a binary function with x as one operand and y as the other, in random order.
  std::optional<Value> binary(const char *format, Fn2 fn, const Value &x, const Value &y,
                              bool approx) {
    const bool swap = chance(0.3);
    const Value &a = swap ? y : x, &b = swap ? x : y;
    return emit(fn(a.a, b.a), fmt::format(fmt::runtime(format), a.ref, b.ref), {a.id, b.id},
                approx || a.approx || b.approx);
  }

  std::optional<Value> arithmetic(const Value &x) {
    enum Kind { Continuous, Discontinuous, Subtract, Power, Math };
    struct B {
      const char *format;
      Fn2 fn;
      Kind kind;
    };
    static const B table[] = {
        {"jnp.add({}, {})", jnp::add, Continuous},
        {"{} + {}", [](const Array &a, const Array &b) { return a + b; }, Continuous},
        {"jnp.subtract({}, {})", jnp::subtract, Subtract},
        {"{} - {}", [](const Array &a, const Array &b) { return a - b; }, Subtract},
        {"jnp.multiply({}, {})", jnp::multiply, Continuous},
        {"{} * {}", [](const Array &a, const Array &b) { return a * b; }, Continuous},
        {"jnp.divide({}, {})", jnp::divide, Continuous},
        {"jnp.true_divide({}, {})", jnp::true_divide, Continuous},
        {"{} / {}", [](const Array &a, const Array &b) { return a / b; }, Continuous},
        {"jnp.maximum({}, {})", jnp::maximum, Continuous},
        {"jnp.minimum({}, {})", jnp::minimum, Continuous},
        {"jnp.floor_divide({}, {})", jnp::floor_divide, Discontinuous},
        {"jnp.remainder({}, {})", jnp::remainder, Discontinuous},
        {"jnp.mod({}, {})", jnp::mod, Discontinuous},
        {"{} % {}", [](const Array &a, const Array &b) { return a % b; }, Discontinuous},
        {"jnp.power({}, {})", jnp::power, Power},
        {"jnp.arctan2({}, {})", jnp::arctan2, Math},
        {"jnp.hypot({}, {})", jnp::hypot, Math},
        {"jnp.logaddexp({}, {})", jnp::logaddexp, Math},
        {"jnp.logaddexp2({}, {})", jnp::logaddexp2, Math},
        {"jnp.copysign({}, {})", jnp::copysign, Discontinuous},
        {"jnp.nextafter({}, {})", jnp::nextafter, Discontinuous},
        {"jnp.fmod({}, {})", jnp::fmod, Discontinuous},
        {"jnp.clip({}, {})", [](const Array &a, const Array &b) { return jnp::clip(a, b); },
         Continuous},
        {"jnp.clip({}, None, {})",
         [](const Array &a, const Array &b) { return jnp::clip(a, std::nullopt, b); }, Continuous},
    };
    const B &op = table[uni(0, std::size(table) - 1)];
    if (op.kind == Discontinuous && x.approx) return std::nullopt;
    if (o_.differentiable && op.fn == jnp::nextafter) return std::nullopt;
    if (op.kind == Power) {
      // x is the base (it may be approximate); the exponent is exact, and a literal exponent is
      // non-negative, as NumPy refuses negative integer powers of integers.
      Value e = partner(x.a.shape(), {.exact = true, .nonneg_scalar = true});
      const ir::Node &n = *e.a.node();
      if (n.op == ir::Op::Literal && !is_floating(n.dtype) && n.ivalue < 0 &&
          !is_floating(x.a.dtype()))
        return std::nullopt;
      return emit(jnp::power(x.a, e.a), fmt::format("jnp.power({}, {})", x.ref, e.ref),
                  {x.id, e.id}, true);
    }
    // NumPy has no boolean subtraction.
    const DTypeSet dtypes =
        op.kind == Subtract && x.a.dtype() == DType::bool_ ? kNumbers : kAnyDType;
    Value y = partner(x.a.shape(), {.dtypes = dtypes, .exact = op.kind == Discontinuous});
    return binary(op.format, op.fn, x, y, op.kind == Math);
  }

  std::optional<Value> comparison(const Value &x) {
    static const std::pair<const char *, Fn2> table[] = {
        {"jnp.equal({}, {})", jnp::equal},
        {"jnp.not_equal({}, {})", jnp::not_equal},
        {"jnp.less({}, {})", jnp::less},
        {"jnp.less_equal({}, {})", jnp::less_equal},
        {"jnp.greater({}, {})", jnp::greater},
        {"jnp.greater_equal({}, {})", jnp::greater_equal},
        {"{} == {}", [](const Array &a, const Array &b) { return a == b; }},
        {"{} != {}", [](const Array &a, const Array &b) { return a != b; }},
        {"{} < {}", [](const Array &a, const Array &b) { return a < b; }},
        {"{} <= {}", [](const Array &a, const Array &b) { return a <= b; }},
        {"{} > {}", [](const Array &a, const Array &b) { return a > b; }},
        {"{} >= {}", [](const Array &a, const Array &b) { return a >= b; }},
    };
    if (x.approx) return std::nullopt;
    const auto &[format, fn] = table[uni(0, std::size(table) - 1)];
    return binary(format, fn, x, partner(x.a.shape(), {.exact = true}), false);
  }

  std::optional<Value> logic(const Value &x) {
    struct B {
      const char *format;
      Fn2 fn;
      bool integers_only;
    };
    static const B table[] = {
        {"jnp.logical_and({}, {})", jnp::logical_and, false},
        {"jnp.logical_or({}, {})", jnp::logical_or, false},
        {"jnp.logical_xor({}, {})", jnp::logical_xor, false},
        {"jnp.bitwise_and({}, {})", jnp::bitwise_and, true},
        {"jnp.bitwise_or({}, {})", jnp::bitwise_or, true},
        {"jnp.bitwise_xor({}, {})", jnp::bitwise_xor, true},
        {"{} & {}", [](const Array &a, const Array &b) { return a & b; }, true},
        {"{} | {}", [](const Array &a, const Array &b) { return a | b; }, true},
        {"{} ^ {}", [](const Array &a, const Array &b) { return a ^ b; }, true},
        {"jnp.left_shift({}, {})", jnp::left_shift, true},
        {"jnp.right_shift({}, {})", jnp::right_shift, true},
    };
    if (x.approx) return std::nullopt;
    const B &op = table[uni(0, std::size(table) - 1)];
    if (op.integers_only && is_floating(x.a.dtype())) return std::nullopt;
    // Integer-only ops need an integer common type: uint64 with a signed integer promotes to
    // float64.
    DTypeSet integers = 0;
    for (int t = 0; t < jx::num_dtypes; ++t)
      if ((kNonFloats & bit(DType(t))) && !is_floating(jx::promote_types(x.a.dtype(), DType(t))))
        integers |= bit(DType(t));
    Value y =
        partner(x.a.shape(), {.dtypes = op.integers_only ? integers : kAnyDType, .exact = true});
    return binary(op.format, op.fn, x, y, false);
  }

  std::optional<Value> where(const Value &x) {
    Value cond = !x.approx && chance(0.3) ? x : partner(x.a.shape(), {.exact = true});
    Value other = partner(*broadcast2(x.a.shape(), cond.a.shape()), {});
    const bool swap = chance(0.5);
    const Value &a = swap ? other : x, &b = swap ? x : other;
    return emit(jnp::where(cond.a, a.a, b.a),
                fmt::format("jnp.where({}, {}, {})", cond.ref, a.ref, b.ref), {cond.id, a.id, b.id},
                a.approx || b.approx);
  }

  std::optional<Value> astype(const Value &x) {
    const DType t = pick_dtype(x.approx ? kFloats : kAnyDType);
    const int64_t form = uni(0, 2);
    const Array out = form == 0   ? x.a.astype(t)
                      : form == 1 ? jnp::astype(x.a, t)
                                  : jnp::asarray(x.a, t);
    const char *format = form == 0   ? "{}.astype({})"
                         : form == 1 ? "jnp.astype({}, {})"
                                     : "jnp.asarray({}, dtype={})";
    return emit(out, fmt::format(fmt::runtime(format), x.ref, py_dtype(t)), {x.id}, x.approx);
  }

  std::optional<Value> broadcast_to(const Value &x) {
    Shape s = x.a.shape();
    for (int64_t &d : s)
      if (d == 1 && chance(0.5)) d = random_dim();
    for (int64_t k = uni(0, 4 - int64_t(s.size())); k > 0; --k)
      s.insert(s.begin(), random_dim());
    if (!fits(s)) return std::nullopt;
    return emit(jnp::broadcast_to(x.a, s),
                fmt::format("jnp.broadcast_to({}, {})", x.ref, py_tuple(s)), {x.id}, x.approx);
  }

  std::optional<Value> reshape(const Value &x) {
    if (chance(0.15))
      return emit(jnp::ravel(x.a), fmt::format("jnp.ravel({})", x.ref), {x.id}, x.approx);
    Shape s = factor_shape(x.a.size());
    Shape arg = s;
    if (!s.empty() && x.a.size() > 0 && chance(0.3)) arg[uni(0, int64_t(s.size()) - 1)] = -1;
    if (chance(0.5))
      return emit(x.a.reshape(arg), fmt::format("{}.reshape({})", x.ref, py_tuple(arg)), {x.id},
                  x.approx);
    return emit(jnp::reshape(x.a, arg), fmt::format("jnp.reshape({}, {})", x.ref, py_tuple(arg)),
                {x.id}, x.approx);
  }

  std::optional<Value> transpose(const Value &x) {
    const int64_t r = x.a.ndim();
    const int64_t form = r == 0 ? 0 : uni(0, 3);
    if (form == 0)
      return emit(jnp::transpose(x.a), fmt::format("jnp.transpose({})", x.ref), {x.id}, x.approx);
    if (form == 1) {
      std::vector<int64_t> perm = random_axes(r, r);
      return emit(jnp::transpose(x.a, perm),
                  fmt::format("jnp.transpose({}, {})", x.ref, py_tuple(perm)), {x.id}, x.approx);
    }
    const int64_t a = random_axis(r), b = random_axis(r);
    if (form == 2)
      return emit(jnp::moveaxis(x.a, a, b), fmt::format("jnp.moveaxis({}, {}, {})", x.ref, a, b),
                  {x.id}, x.approx);
    return emit(jnp::swapaxes(x.a, a, b), fmt::format("jnp.swapaxes({}, {}, {})", x.ref, a, b),
                {x.id}, x.approx);
  }

  std::optional<Value> expand_or_squeeze(const Value &x) {
    const Shape &s = x.a.shape();
    const int64_t r = x.a.ndim();
    if (r < 4 && chance(0.5)) {
      const int64_t k = uni(1, std::min<int64_t>(2, 4 - r));
      std::vector<int64_t> axes = random_axes(r + k, k);
      if (k == 1 && chance(0.6))
        return emit(jnp::expand_dims(x.a, axes[0]),
                    fmt::format("jnp.expand_dims({}, {})", x.ref, axes[0]), {x.id}, x.approx);
      return emit(jnp::expand_dims(x.a, axes),
                  fmt::format("jnp.expand_dims({}, {})", x.ref, py_tuple(axes)), {x.id}, x.approx);
    }
    std::vector<int64_t> ones;
    for (int64_t i = 0; i < r; ++i)
      if (s[i] == 1) ones.push_back(chance(0.5) ? i - r : i);
    if (ones.empty() || chance(0.3))
      return emit(jnp::squeeze(x.a), fmt::format("jnp.squeeze({})", x.ref), {x.id}, x.approx);
    shuffle(ones);
    ones.resize(uni(1, int64_t(ones.size())));
    if (ones.size() == 1)
      return emit(jnp::squeeze(x.a, ones[0]), fmt::format("jnp.squeeze({}, {})", x.ref, ones[0]),
                  {x.id}, x.approx);
    return emit(jnp::squeeze(x.a, ones), fmt::format("jnp.squeeze({}, {})", x.ref, py_tuple(ones)),
                {x.id}, x.approx);
  }

  struct Index {
    std::vector<IndexItem> items;
    std::string text;
  };

  // A basic index for shape s: integers, slices (negative steps, out-of-range bounds), newaxis and
  // an ellipsis, or fewer items than axes.
  Index random_index(const Shape &s, bool newaxis) {
    const int64_t r = int64_t(s.size());
    // Axes [e0, e1) are left to an ellipsis, or (without one) the trailing axes [e0, r).
    const bool ellipsis = chance(0.2);
    const int64_t e0 = uni(0, r), e1 = ellipsis ? uni(e0, r) : r;
    std::vector<std::pair<IndexItem, std::string>> items;
    for (int64_t a = 0; a < r; ++a) {
      if (a == e0 && ellipsis) items.emplace_back(jx::ellipsis, "...");
      if (a >= e0 && a < e1) continue;
      const int64_t n = s[a];
      if (n > 0 && chance(0.3)) {
        const int64_t i = uni(-n, n - 1);
        items.emplace_back(i, fmt::format("{}", i));
        continue;
      }
      auto bound = [&]() -> std::optional<int64_t> {
        if (chance(0.5)) return std::nullopt;
        return uni(-n - 2, n + 2);
      };
      Slice sl{bound(), bound(), std::nullopt};
      const int64_t step = pick<int64_t>({0, 0, 1, 2, 3, -1, -1, -2, -3});
      if (step != 0) sl.step = step;
      items.emplace_back(sl, py_slice(sl));
    }
    if (ellipsis && e0 == r) items.emplace_back(jx::ellipsis, "...");
    for (int64_t k = newaxis ? uni(0, 2) : 0; k > 0; --k)
      items.insert(items.begin() + uni(0, int64_t(items.size())), {jx::newaxis, "None"});
    Index out;
    for (auto &[item, text] : items) {
      out.items.push_back(item);
      out.text += (out.text.empty() ? "" : ", ") + text;
    }
    if (out.items.empty()) out.text = "()";
    return out;
  }

  std::optional<Value> index(const Value &x) {
    Index ix = random_index(x.a.shape(), true);
    return emit(x.a.index(ix.items), fmt::format("{}[{}]", x.ref, ix.text), {x.id}, x.approx);
  }

  std::optional<Value> flip_or_roll(const Value &x) {
    const int64_t r = x.a.ndim();
    const int64_t form = r == 0 ? 0 : uni(0, 2);
    const bool flip = chance(0.5);
    jnp::Axes axes;
    std::string axes_text = "None";
    if (form == 1) {
      const int64_t a = random_axis(r);
      axes = a;
      axes_text = fmt::format("{}", a);
    } else if (form == 2) {
      // roll(x, shift, axis=()) reads past the empty axis list (a jx bug), so roll gets >= 1 axis.
      std::vector<int64_t> v = random_axes(r, uni(flip ? 0 : 1, r));
      axes = v;
      axes_text = py_tuple(v);
    }
    if (flip)
      return emit(jnp::flip(x.a, axes), fmt::format("jnp.flip({}, axis={})", x.ref, axes_text),
                  {x.id}, x.approx);
    // One shift for all axes, or one per axis.
    std::vector<int64_t> shift{uni(-9, 9)};
    if (form == 2 && !axes.axes().empty() && chance(0.5)) {
      shift.clear();
      for (size_t i = 0; i < axes.axes().size(); ++i)
        shift.push_back(uni(-9, 9));
    }
    return emit(jnp::roll(x.a, shift, axes),
                fmt::format("jnp.roll({}, {}, axis={})", x.ref,
                            shift.size() == 1 ? fmt::format("{}", shift[0]) : py_tuple(shift),
                            axes_text),
                {x.id}, x.approx);
  }

  std::optional<Value> pad(const Value &x) {
    const int64_t r = x.a.ndim();
    std::vector<std::pair<int64_t, int64_t>> widths;
    std::string text;
    const int64_t form = r == 0 ? uni(0, 1) : uni(0, 2);
    if (form == 0) {
      const int64_t w = uni(0, 2);
      widths = {{w, w}};
      text = fmt::format("{}", w);
    } else {
      for (int64_t i = 0; i < (form == 1 ? 1 : r); ++i) {
        widths.emplace_back(uni(0, 2), uni(0, 2));
        text += fmt::format("({}, {}), ", widths.back().first, widths.back().second);
      }
      text = "(" + text.substr(0, text.size() - 2) + (widths.size() == 1 ? ",)" : ")");
    }
    Value c = chance(0.5) ? Value{Array(0), "0"} : scalar(pick_dtype(kAnyDType));
    return emit(jnp::pad(x.a, widths, {.constant_values = c.a}),
                fmt::format("jnp.pad({}, {}, constant_values={})", x.ref, text, c.ref), {x.id},
                x.approx);
  }

  // An operand of shape s: x itself when it has that shape, an earlier value or a new leaf.
  Value operand_of_shape(const Value &x, const Shape &s) {
    if (x.a.shape() == s && chance(0.3)) return x;
    if (chance(0.3)) {
      std::vector<const Value *> found;
      for (const Value &v : pool_)
        if (v.a.shape() == s) found.push_back(&v);
      if (!found.empty()) return *pick(found);
    }
    return fresh(s, pick_dtype(kAnyDType));
  }

  std::optional<Value> concatenate_or_stack(const Value &x) {
    const int64_t r = x.a.ndim();
    const bool stack = r == 0 || (r < 4 && chance(0.4));
    const int64_t axis = stack ? uni(-r - 1, r) : random_axis(r);
    std::vector<Value> parts{x};
    for (int64_t k = uni(1, 2); k > 0; --k) {
      Shape s = x.a.shape();
      if (!stack) s[api_axis(axis, r)] = uni(0, 4);
      parts.push_back(operand_of_shape(x, s));
    }
    shuffle(parts);
    std::vector<Array> arrays;
    std::vector<int> deps;
    std::vector<std::string> refs;
    bool approx = false;
    for (const Value &v : parts) {
      arrays.push_back(v.a);
      deps.push_back(v.id);
      refs.push_back(v.ref);
      approx = approx || v.approx;
    }
    if (stack)
      return emit(jnp::stack(arrays, axis),
                  fmt::format("jnp.stack([{}], axis={})", fmt::join(refs, ", "), axis), deps,
                  approx);
    return emit(jnp::concatenate(arrays, axis),
                fmt::format("jnp.concatenate([{}], axis={})", fmt::join(refs, ", "), axis), deps,
                approx);
  }

  static int64_t api_axis(int64_t a, int64_t r) { return a < 0 ? a + r : a; }

  std::optional<Value> diff(const Value &x) {
    const int64_t r = x.a.ndim();
    if (r == 0) return std::nullopt;
    const int64_t n = pick<int64_t>({0, 1, 1, 1, 2, 3}), axis = random_axis(r);
    std::vector<int> deps{x.id};
    auto edge = [&](std::string &text) -> std::optional<Array> {
      const int64_t form = uni(0, 4);
      if (form <= 2) return std::nullopt;
      Shape s = x.a.shape();
      s[api_axis(axis, r)] = uni(0, 2);
      const Value e = form == 3 ? scalar(pick_dtype(kAnyDType)) : fresh(s, pick_dtype(kAnyDType));
      deps.push_back(e.id);
      text = e.ref;
      return e.a;
    };
    std::string pre, app;
    std::optional<Array> prepend = edge(pre), append = edge(app);
    std::string expr = fmt::format("jnp.diff({}, n={}, axis={}", x.ref, n, axis);
    if (prepend) expr += ", prepend=" + pre;
    if (append) expr += ", append=" + app;
    return emit(jnp::diff(x.a, n, axis, prepend, append), expr + ")", deps, x.approx);
  }

  std::optional<Value> at(const Value &x) {
    Index ix = random_index(x.a.shape(), chance(0.2));
    At at(x.a, ix.items);
    const DType t = x.a.dtype();
    const int64_t method = uni(0, 7);
    if (method == 7)
      return emit(at.get(), fmt::format("{}.at[{}].get()", x.ref, ix.text), {x.id}, x.approx);
    if (method == 5 && t == DType::bool_) return std::nullopt; // no boolean subtraction
    // Values are cast to x's dtype: exact ones only, unless that cast is float to float.
    const Need need{.exact = !is_floating(t)};
    // A scalar, or an array whose shape broadcasts to the indexed one: trailing dims, some 1.
    const Shape target = at.get().shape();
    Shape s(target.end() - uni(0, int64_t(target.size())), target.end());
    for (int64_t &d : s)
      if (chance(0.3)) d = 1;
    const Value v = chance(0.4) ? scalar(pick_dtype(kAnyDType)) : fresh(s, pick_dtype(kAnyDType));
    if (!usable(v, need)) return std::nullopt;
    static const char *const names[] = {"set", "add",      "multiply", "min",
                                        "max", "subtract", "divide"};
    Array out = method == 0   ? at.set(v.a)
                : method == 1 ? at.add(v.a)
                : method == 2 ? at.multiply(v.a)
                : method == 3 ? at.min(v.a)
                : method == 4 ? at.max(v.a)
                : method == 5 ? at.subtract(v.a)
                              : at.divide(v.a);
    return emit(out, fmt::format("{}.at[{}].{}({})", x.ref, ix.text, names[method], v.ref),
                {x.id, v.id}, x.approx || v.approx);
  }

  // lax.dynamic_slice or dynamic_update_slice at starts that may be negative or past the end
  // (JAX clamps them), some counted from x's own data so that the kernel reads them at run time.
  std::optional<Value> dynamic(const Value &x) {
    const int64_t r = x.a.ndim();
    if (r == 0) return std::nullopt;
    std::vector<Array> starts;
    std::vector<std::string> texts;
    Shape sizes;
    for (int64_t k = 0; k < r; ++k) {
      const int64_t extent = x.a.shape()[size_t(k)];
      const int64_t v = uni(-extent - 2, extent + 2);
      sizes.push_back(uni(0, extent));
      if (!x.approx && chance(0.4)) {
        starts.push_back(jnp::count_nonzero(x.a).astype(DType::int32) + int32_t(v));
        texts.push_back(fmt::format("jnp.count_nonzero({}).astype(jnp.int32) + {}", x.ref, v));
      } else {
        starts.push_back(Array(v).astype(DType::int32));
        texts.push_back(fmt::format("jnp.int32({})", v));
      }
    }
    const std::string starts_text = fmt::format("({},)", fmt::join(texts, ", "));
    if (chance(0.5))
      return emit(
          jx::lax::dynamic_slice(x.a, starts, sizes),
          fmt::format("jax.lax.dynamic_slice({}, {}, {})", x.ref, starts_text, py_tuple(sizes)),
          {x.id}, x.approx);
    const Value u = fresh(sizes, x.a.dtype());
    return emit(jx::lax::dynamic_update_slice(x.a, u.a, starts),
                fmt::format("jax.lax.dynamic_update_slice({}, {}, {})", x.ref, u.ref, starts_text),
                {x.id, u.id}, x.approx || u.approx);
  }

  // axis=None, one axis, or a tuple of axes (maybe empty) of a rank-r array.
  std::pair<jnp::Axes, std::string> random_reduce_axes(int64_t r) {
    const int64_t form = r == 0 ? pick<int64_t>({0, 2}) : uni(0, 2);
    if (form == 0) return {jnp::Axes(), "None"};
    if (form == 1) {
      const int64_t a = random_axis(r);
      return {jnp::Axes(a), fmt::format("{}", a)};
    }
    std::vector<int64_t> axes = random_axes(r, uni(0, r));
    return {jnp::Axes(axes), py_tuple(axes)};
  }

  std::optional<Value> reduce(const Value &x) {
    using Fn = Array (*)(const Array &, const jnp::Axes &, bool);
    struct R {
      const char *name;
      Fn fn;
      bool needs_exact, sums, needs_elements;
    };
#define JX_REDUCTION(f)                                                                            \
  [](const Array &a, const jnp::Axes &axis, bool keepdims) {                                       \
    return jnp::f(a, {.axis = axis, .keepdims = keepdims});                                        \
  }
    static const R table[] = {
        {"sum", JX_REDUCTION(sum), false, true, false},
        {"prod", JX_REDUCTION(prod), false, true, false},
        {"mean", JX_REDUCTION(mean), false, true, false},
        {"max", JX_REDUCTION(max), false, false, true},
        {"min", JX_REDUCTION(min), false, false, true},
        {"amax", JX_REDUCTION(amax), false, false, true},
        {"amin", JX_REDUCTION(amin), false, false, true},
        {"all", JX_REDUCTION(all), true, false, false},
        {"any", JX_REDUCTION(any), true, false, false},
    };
#undef JX_REDUCTION
    const R &op = table[uni(0, std::size(table) - 1)];
    if (op.needs_exact && x.approx) return std::nullopt;
    const int64_t r = x.a.ndim();
    auto [axes, text] = random_reduce_axes(r);
    if (op.needs_elements) // max and min of nothing raise
      for (int64_t a = 0; a < r; ++a)
        if (x.a.shape()[a] == 0 &&
            (axes.is_none() || std::count(axes.axes().begin(), axes.axes().end(), a) ||
             std::count(axes.axes().begin(), axes.axes().end(), a - r)))
          return std::nullopt;
    const bool keepdims = chance(0.3);
    Array out = op.fn(x.a, axes, keepdims);
    return emit(out,
                fmt::format("jnp.{}({}, axis={}{})", op.name, x.ref, text,
                            keepdims ? ", keepdims=True" : ""),
                {x.id}, x.approx || op.sums);
  }

  // Running sums, products, maxima and minima, sorts and argsorts along an axis (the runtime's
  // routines in both backends: exact for exact operands). A product or argsort of an inexact
  // operand may differ by more than a bound says (the backends' operands differ a little).
  // Differentiable graphs keep cumsum and argsort only: cummax, cummin and sort have kinks at
  // ties that central differences straddle, and cumprod's products overflow them.
  std::optional<Value> sort_or_scan(const Value &x) {
    const int64_t r = x.a.ndim();
    if (r == 0) return std::nullopt;
    const int64_t axis = random_axis(r), form = uni(0, 5);
    const bool is_bool = x.a.dtype() == DType::bool_;
    if (o_.differentiable && form != 0 && form != 5) return std::nullopt;
    if ((form == 1 || form == 5) && x.approx) return std::nullopt;
    switch (form) {
    case 0:
      return emit(jnp::cumsum(x.a, axis), fmt::format("jnp.cumsum({}, axis={})", x.ref, axis),
                  {x.id}, x.approx);
    case 1:
      return emit(jnp::cumprod(x.a, axis), fmt::format("jnp.cumprod({}, axis={})", x.ref, axis),
                  {x.id}, false);
    case 2: {
      if (is_bool) return std::nullopt;
      const bool max = chance(0.5), reverse = chance(0.3);
      const Array out =
          max ? jx::lax::cummax(x.a, axis, reverse) : jx::lax::cummin(x.a, axis, reverse);
      return emit(out,
                  fmt::format("jax.lax.{}({}, axis={}, reverse={})", max ? "cummax" : "cummin",
                              x.ref, api_axis(axis, r), reverse ? "True" : "False"),
                  {x.id}, x.approx);
    }
    case 3:
    case 4: {
      const bool descending = form == 4;
      return emit(jnp::sort(x.a, {.axis = axis, .descending = descending}),
                  fmt::format("jnp.sort({}, axis={}{})", x.ref, axis,
                              descending ? ", descending=True" : ""),
                  {x.id}, x.approx);
    }
    default: {
      const bool descending = chance(0.3);
      return emit(jnp::argsort(x.a, {.axis = axis, .descending = descending}),
                  fmt::format("jnp.argsort({}, axis={}{})", x.ref, axis,
                              descending ? ", descending=True" : ""),
                  {x.id}, false);
    }
    }
  }

  // x read or updated at a few literal indices along one axis (repeated, negative, out of range:
  // jnp clamps reads and drops updates there): x[..., idx], jnp.take(mode="clip"), and the
  // .at[..., idx] scatters (set, add, max, min; multiply needs exact operands).
  // LAPACK's routines on the matrices of x's last two axes, the same in both backends: equal bits
  // for exact operands whatever their conditioning (a singular or NaN matrix gives both the same
  // infinities or NaNs). Not in differentiable graphs: svd, qr and eig have no derivatives yet.
  // Form 10: a part of the Fourier transform along the last axis (runtime/fft.h, in both).
  std::optional<Value> linear_algebra(const Value &x) {
    namespace la = jnp::linalg;
    const int64_t r = x.a.ndim();
    if (r < 2 || x.approx || o_.differentiable) return std::nullopt;
    const bool square = x.a.shape()[r - 2] == x.a.shape()[r - 1];
    const int64_t form = uni(0, 10);
    if (form == 10) {
      if (x.a.shape()[r - 1] == 0 || !is_floating(x.a.dtype())) return std::nullopt;
      return emit(jnp::imag(jnp::fft::fft(x.a)), fmt::format("jnp.fft.fft({}).imag", x.ref), {x.id},
                  false);
    }
    if (!square && (form < 6 || form > 7)) return std::nullopt;
    auto call = [&](const Array &out, const std::string &fn, const std::string &suffix = "") {
      return emit(out, fmt::format("jnp.linalg.{}({}){}", fn, x.ref, suffix), {x.id}, false);
    };
    switch (form) {
    case 0: return call(la::det(x.a), "det");
    case 1: return call(la::slogdet(x.a).logabsdet, "slogdet", ".logabsdet");
    case 2: return call(la::inv(x.a), "inv");
    case 3: return call(la::cholesky(x.a), "cholesky");
    case 4: return call(la::eigvalsh(x.a), "eigvalsh");
    case 5: {
      const Array b = x.a(jx::ellipsis, jx::slice(0, 1));
      return emit(la::solve(x.a, b), fmt::format("jnp.linalg.solve({0}, {0}[..., :1])", x.ref),
                  {x.id}, false);
    }
    case 6: return call(la::svdvals(x.a), "svdvals");
    case 7: return call(la::qr(x.a).R, "qr", ".R");
    // The parts of complex results (abs would round by libm's hypot).
    case 8: return call(jnp::real(la::eigvals(x.a)), "eigvals", ".real");
    default: return call(jnp::imag(la::eig(x.a).eigenvectors), "eig", ".eigenvectors.imag");
    }
  }

  std::optional<Value> gather_or_scatter(const Value &x) {
    const int64_t r = x.a.ndim();
    if (r == 0 || x.a.size() == 0) return std::nullopt;
    const int64_t axis = uni(0, r - 1), n = x.a.shape()[axis], count = uni(1, 6);
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < count; ++k)
      idx.push_back(uni(-n - 2, n + 1));
    const Array indices = jnp::array(idx);
    const std::string itext = fmt::format("jnp.array([{}])", fmt::join(idx, ", "));
    std::vector<IndexItem> items(size_t(axis), jx::Slice{});
    items.emplace_back(indices);
    std::string text;
    for (int64_t a = 0; a < axis; ++a)
      text += ":, ";
    text += itext;
    const int64_t form = uni(0, 6);
    if (form == 0)
      return emit(jnp::take(x.a, indices, {.axis = axis, .mode = "clip"}),
                  fmt::format("jnp.take({}, {}, axis={}, mode='clip')", x.ref, itext, axis), {x.id},
                  x.approx);
    if (form == 1)
      return emit(x.a.index(items), fmt::format("{}[{}]", x.ref, text), {x.id}, x.approx);
    if (o_.differentiable && form >= 4) return std::nullopt; // no derivatives of these yet
    const DType t = x.a.dtype();
    const Need need{.exact = !is_floating(t) || form == 5};
    const At at(x.a, items);
    const Value v = chance(0.4) ? scalar(pick_dtype(kAnyDType)) : fresh(at.get().shape(), t);
    if (!usable(v, need) || (form == 5 && x.approx)) return std::nullopt;
    static const char *const names[] = {"", "", "set", "add", "max", "multiply", "min"};
    const Array out = form == 2   ? at.set(v.a)
                      : form == 3 ? at.add(v.a)
                      : form == 4 ? at.max(v.a)
                      : form == 5 ? at.multiply(v.a)
                                  : at.min(v.a);
    return emit(out, fmt::format("{}.at[{}].{}({})", x.ref, text, names[form], v.ref), {x.id, v.id},
                x.approx || v.approx);
  }

  std::optional<Value> arg_reduce(const Value &x) {
    if (x.approx) return std::nullopt;
    const int64_t r = x.a.ndim();
    std::optional<int64_t> axis;
    if (r > 0 && chance(0.7)) axis = random_axis(r);
    if (axis ? x.a.shape()[api_axis(*axis, r)] == 0 : x.a.size() == 0) return std::nullopt;
    const bool keepdims = chance(0.3), max = chance(0.5);
    Array out = max ? jnp::argmax(x.a, {.axis = axis, .keepdims = keepdims})
                    : jnp::argmin(x.a, {.axis = axis, .keepdims = keepdims});
    return emit(out,
                fmt::format("jnp.{}({}, axis={}{})", max ? "argmax" : "argmin", x.ref,
                            axis ? fmt::format("{}", *axis) : "None",
                            keepdims ? ", keepdims=True" : ""),
                {x.id}, false);
  }

  // A contraction partner of shape s: x itself when it fits, else a new leaf.
  Value contraction_operand(const Value &x, const Shape &s) {
    if (x.a.shape() == s && chance(0.2)) return x;
    return fresh(s, pick_dtype(kAnyDType));
  }

  std::optional<Value> contract(const Value &x) {
    const Shape &xs = x.a.shape();
    const int64_t r = x.a.ndim();
    const int64_t form = uni(0, 6);
    auto done = [&](const Array &out, const std::string &expr, const Value &y) {
      return emit(out, expr, {x.id, y.id}, true);
    };
    if (form == 0 && r >= 1) {
      // matmul(x, y) or matmul(y, x); batch dims of the partner broadcast against x's.
      const bool left = chance(0.6);
      const int64_t k = left ? xs.back() : (r == 1 ? xs[0] : xs[r - 2]);
      const int64_t m = random_dim();
      Shape s;
      if (chance(0.25)) {
        s = {k};
      } else {
        Shape batch(xs.begin(), xs.end() - std::min<int64_t>(r, 2));
        if (chance(0.3)) batch.clear();
        for (int64_t &d : batch)
          if (chance(0.3)) d = 1;
        if (r == 1 && chance(0.3)) batch = {uni(1, 3)};
        s = batch;
        if (left)
          s.insert(s.end(), {k, m});
        else
          s.insert(s.end(), {m, k});
      }
      Value y = contraction_operand(x, s);
      const Value &a = left ? x : y, &b = left ? y : x;
      return done(jnp::matmul(a.a, b.a), fmt::format("jnp.matmul({}, {})", a.ref, b.ref), y);
    }
    if (form == 1) {
      // dot(x, y): x's last axis with y's only or second-to-last one; scalars multiply.
      Shape s;
      if (r == 0)
        s = random_shape(uni(0, 2));
      else if (chance(0.4))
        s = {xs.back()};
      else if (r <= 2 || chance(0.5))
        s = {xs.back(), random_dim()};
      else
        s = {random_dim(), xs.back(), random_dim()};
      Value y = contraction_operand(x, s);
      return done(jnp::dot(x.a, y.a), fmt::format("jnp.dot({}, {})", x.ref, y.ref), y);
    }
    if (form == 2) {
      const int64_t n = uni(0, std::min<int64_t>(r, 3));
      Shape s(xs.end() - n, xs.end());
      for (int64_t k = uni(0, 2); k > 0; --k)
        s.push_back(random_dim());
      Value y = contraction_operand(x, s);
      return done(jnp::tensordot(x.a, y.a, n),
                  fmt::format("jnp.tensordot({}, {}, axes={})", x.ref, y.ref, n), y);
    }
    if (form == 3) {
      // tensordot over explicit axis pairs, at random positions in the partner.
      const int64_t k = uni(0, std::min<int64_t>(r, 2)), ry = k + uni(0, 2);
      std::vector<int64_t> xa = random_axes(r, k), ya = random_axes(ry, k);
      Shape s(ry, -1);
      for (int64_t i = 0; i < k; ++i)
        s[api_axis(ya[i], ry)] = xs[api_axis(xa[i], r)];
      for (int64_t &d : s)
        if (d < 0) d = uni(1, 5);
      Value y = contraction_operand(x, s);
      return done(jnp::tensordot(x.a, y.a, {xa, ya}),
                  fmt::format("jnp.tensordot({}, {}, axes=({}, {}))", x.ref, y.ref, py_tuple(xa),
                              py_tuple(ya)),
                  y);
    }
    if (form == 4) {
      Value y = contraction_operand(x, factor_shape(x.a.size()));
      return done(jnp::vdot(x.a, y.a), fmt::format("jnp.vdot({}, {})", x.ref, y.ref), y);
    }
    if (form == 5) {
      Value y = contraction_operand(x, random_shape(uni(0, 2)));
      return done(jnp::outer(x.a, y.a), fmt::format("jnp.outer({}, {})", x.ref, y.ref), y);
    }
    return einsum(x);
  }

  // A random einsum over x and up to two new operands: repeated letters (diagonals), shared
  // letters (contractions), an ellipsis, explicit or implicit output.
  std::optional<Value> einsum(const Value &x) {
    const Shape &xs = x.a.shape();
    const int64_t r = x.a.ndim();
    std::vector<char> letters;
    std::vector<int64_t> dims;
    auto new_letter = [&](int64_t d) {
      letters.push_back(char('a' + letters.size()));
      dims.push_back(d);
      return letters.back();
    };
    const bool ellipsis = r >= 1 && chance(0.2);
    const int64_t ne = ellipsis ? uni(0, r) : 0;
    const Shape ell_shape(xs.begin(), xs.begin() + ne);
    std::string term = ellipsis ? "..." : "";
    for (int64_t i = ne; i < r; ++i) {
      std::vector<char> same;
      for (size_t k = 0; k < letters.size(); ++k)
        if (dims[k] == xs[i]) same.push_back(letters[k]);
      term += !same.empty() && chance(0.25) ? pick(same) : new_letter(xs[i]);
    }
    std::vector<std::string> terms{term};
    std::vector<Array> operands{x.a};
    std::vector<int> deps{x.id};
    std::vector<std::string> refs{x.ref};
    for (int64_t k = uni(0, 2); k > 0; --k) {
      Shape s;
      std::string t;
      if (ellipsis && chance(0.5)) {
        s.assign(ell_shape.end() - uni(0, ne), ell_shape.end());
        for (int64_t &d : s)
          if (chance(0.3)) d = 1;
        t = "...";
      }
      for (int64_t i = uni(0, 3); i > 0; --i) {
        if (!letters.empty() && chance(0.5)) {
          const size_t j = size_t(uni(0, int64_t(letters.size()) - 1));
          t += letters[j];
          s.push_back(dims[j]);
        } else {
          t += new_letter(uni(1, 5));
          s.push_back(dims.back());
        }
      }
      Value y = fresh(s, pick_dtype(kAnyDType));
      terms.push_back(t);
      operands.push_back(y.a);
      deps.push_back(y.id);
      refs.push_back(y.ref);
    }
    std::string spec = fmt::format("{}", fmt::join(terms, ","));
    if (chance(0.7)) {
      std::string out;
      for (char c : letters)
        if (chance(0.5)) out += c;
      std::vector<char> order(out.begin(), out.end());
      shuffle(order);
      out.assign(order.begin(), order.end());
      if (ellipsis) out.insert(size_t(uni(0, int64_t(out.size()))), "...");
      spec += "->" + out;
    }
    return emit(jnp::einsum(spec, operands),
                fmt::format("jnp.einsum(\"{}\", {})", spec, fmt::join(refs, ", ")), deps, true);
  }
};

} // namespace

GeneratedGraph random_graph(uint64_t seed, const GraphOptions &options) {
  return Generator(seed, options).run();
}

GeneratedFunction random_function(uint64_t seed, const GraphOptions &options) {
  for (uint64_t attempt = 0;; ++attempt) {
    const uint64_t graph_seed = seed + attempt * 0x9e3779b97f4a7c15;
    Generator g(graph_seed, options);
    if (!is_floating(g.run().root.dtype())) continue;
    const std::vector<bool> reaching = g.leaves_reaching_root();
    std::vector<size_t> candidates;
    for (size_t k = 0; k < reaching.size(); ++k)
      if (reaching[k]) candidates.push_back(k);
    if (candidates.empty()) continue;
    // Its own stream, so that choosing arguments leaves the program's draws alone.
    std::mt19937_64 coin(graph_seed ^ 0x5bd1e9955bd1e995);
    std::vector<bool> chosen(candidates.size());
    bool any = false;
    for (size_t c = 0; c < candidates.size(); ++c) {
      chosen[c] = coin() % 2;
      any = any || chosen[c];
    }
    if (!any) chosen[coin() % candidates.size()] = true;

    GeneratedFunction fn;
    fn.graph_seed = graph_seed;
    std::vector<int> arg_of_leaf(reaching.size(), -1);
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!chosen[c]) continue;
      const Array &leaf = g.float_leaves()[candidates[c]].a;
      arg_of_leaf[candidates[c]] = int(fn.example_args.size());
      fn.arg_specs.push_back({leaf.shape(), leaf.dtype()});
      fn.example_args.push_back(leaf);
    }
    fn.description = Generator(graph_seed, options, arg_of_leaf, fn.example_args).run().description;
    fn.f = [graph_seed, options, arg_of_leaf,
            specs = fn.arg_specs](const std::vector<Array> &args) {
      if (args.size() != specs.size())
        throw std::invalid_argument(
            fmt::format("the function takes {} arguments, not {}", specs.size(), args.size()));
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].shape() != specs[i].shape || args[i].dtype() != specs[i].dtype)
          throw std::invalid_argument(
              fmt::format("argument {} is {}[{}], not {}[{}]", i, dtype_name(args[i].dtype()),
                          fmt::join(args[i].shape(), ","), dtype_name(specs[i].dtype),
                          fmt::join(specs[i].shape, ",")));
      return Generator(graph_seed, options, arg_of_leaf, args).run().root;
    };
    return fn;
  }
}

} // namespace jx::diff
