// The ahead-of-time program's word format, shared by its encoder and decoder (aot_format.cpp) and
// its validation (aot_validate.cpp): the words' reader and writer, each field's coding, and the
// one list of a step's fields (JX_AOT_STEP_FIELDS) that encode, decode and validation expand.
#pragma once

#include <jx/error.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/aot.h"

namespace jx::runtime::aot::format {

inline constexpr int64_t magic = 0x0054'4f41'584a; // "JXAOT", little-endian

inline const char *dtype_text(DType t) {
  // As jx::dtype_name, which the runtime does not link.
  static constexpr const char *names[] = {
      "bool",   "int32",  "int64",  "float32", "float64",  "int8",      "int16",     "uint8",
      "uint16", "uint32", "uint64", "float16", "bfloat16", "complex64", "complex128"};
  static_assert(std::size(names) == num_dtypes);
  return names[size_t(t)];
}

class Writer {
public:
  void word(int64_t w) { words.push_back(w); }
  std::vector<int64_t> words;
};

inline void unbound_kernel(const int64_t *, void *const *) {}

[[noreturn]] inline void corrupt(const std::string &what) {
  throw Error("jx AOT program: " + what);
}

// Elements of a shape, each dimension and the product checked (2^40 and 2^56 at most).
inline int64_t checked_elements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || d > (int64_t(1) << 40) || __builtin_mul_overflow(n, d, &n) ||
        n > (int64_t(1) << 56))
      corrupt("corrupt shape");
  return n;
}

inline size_t byte_size(DType dtype, const std::vector<int64_t> &shape) {
  return size_t(checked_elements(shape)) * itemsize(dtype);
}

class Reader {
public:
  Reader(const int64_t *words, int64_t count) : words_(words), count_(count) {}
  int64_t word() {
    if (at_ >= count_) corrupt("truncated");
    return words_[at_++];
  }
  // A count, at most what is left to read (a corrupt count must not allocate the world).
  size_t count() {
    const int64_t n = word();
    if (n < 0 || n > count_ - at_) corrupt("corrupt length");
    return size_t(n);
  }
  // A word in [lo, hi], else `what` (so that no value is cut short into a valid-looking one).
  int64_t ranged(int64_t lo, int64_t hi, const char *what) {
    const int64_t w = word();
    if (w < lo || w > hi) corrupt(what);
    return w;
  }
  bool done() const { return at_ == count_; }
  // Regions nest programs: deeper than this is a corrupt program, not a deep recursion.
  void enter() {
    if (++depth_ > max_depth) corrupt("regions nested too deep");
  }
  void leave() { --depth_; }
  static constexpr int max_depth = 64;

private:
  const int64_t *words_;
  int64_t count_, at_ = 0;
  int depth_ = 0;
};

// How a field is written as words and read back. A word in [lo, hi], else the error `what`
// (Word{} takes any word).
struct Word {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  const char *what = "";
  template <class T> void put(Writer &w, const T &v) const { w.word(int64_t(v)); }
  template <class T> void get(Reader &r, T &v) const { v = T(r.ranged(lo, hi, what)); }
};

// A count (at most the words left), then that many words.
struct List {
  Word each{};
  template <class T> void put(Writer &w, const std::vector<T> &v) const {
    w.word(int64_t(v.size()));
    for (const T &x : v)
      each.put(w, x);
  }
  template <class T> void get(Reader &r, std::vector<T> &v) const {
    v.resize(r.count());
    for (T &x : v)
      each.get(r, x);
  }
};

// A kernel as a flag, bound to the object's kernel table once the program is validated.
struct KernelFlag {
  void put(Writer &w, KernelFn k) const { w.word(k != nullptr); }
  void get(Reader &r, KernelFn &k) const {
    k = r.ranged(0, 1, "corrupt kernel flag") ? &unbound_kernel : nullptr;
  }
};

// A contraction: batch, m, n, k, then the operands' strides.
struct GemmWords {
  template <class G, class F> static void each(G &g, F f) {
    for (auto *v : {&g.batch, &g.m, &g.n, &g.k})
      f(*v);
    for (auto &v : g.lhs)
      f(v);
    for (auto &v : g.rhs)
      f(v);
  }
  void put(Writer &w, const Gemm &g) const {
    each(g, [&](int64_t v) { w.word(v); });
  }
  void get(Reader &r, Gemm &g) const {
    each(g, [&](int64_t &v) { v = r.word(); });
  }
};

void put_program(Writer &w, const Program &p, const std::vector<int64_t> &argument_bytes);
Program get_program(Reader &r);

// A control step's regions: their count, then each program (program fields, then its steps).
struct RegionPrograms {
  void put(Writer &w, const std::vector<std::shared_ptr<const Program>> &regions) const {
    w.word(int64_t(regions.size()));
    for (const auto &region : regions)
      put_program(w, *region, region->argument_bytes);
  }
  void get(Reader &r, std::vector<std::shared_ptr<const Program>> &regions) const {
    regions.resize(r.count());
    r.enter();
    for (auto &region : regions)
      region = std::make_shared<Program>(get_program(r)); // bound after validation
    r.leave();
  }
};

using Kind = Step::Kind;

// The kinds of step that use a field, as bits.
template <class... K> constexpr uint32_t used_by(K... kinds) {
  return (0u | ... | (1u << uint32_t(kinds)));
}
constexpr uint32_t control_kinds = used_by(Kind::While, Kind::Case, Kind::Scan),
                   every_kind = used_by(Kind::Value, Kind::Argument, Kind::Fill, Kind::Kernel,
                                        Kind::Contraction, Kind::Library) |
                                control_kinds;

constexpr Word any_word{}, step_kind{0, int64_t(Kind::Library), "corrupt step kind"},
    slot{0, INT32_MAX, "slot out of range"}, slot_table{0, INT32_MAX, "slot table"},
    position{0, INT32_MAX, "argument out of range"}, key{0, UINT32_MAX, "corrupt random key"},
    dtype_word{0, num_dtypes - 1, "corrupt dtype"}, count_word{0, INT32_MAX, "corrupt loop counts"},
    length_word{0, int64_t(1) << 40, "corrupt scan length"}, flag{0, 1, "corrupt flag"},
    update_word{-1, INT32_MAX, "corrupt update input"};
constexpr List words{}, slots{slot}, donations{{-1, INT32_MAX, "corrupt donation"}};
constexpr RegionPrograms region_programs{};
constexpr KernelFlag kernel_flag{};
constexpr GemmWords gemm_words{};

// A library routine: its op, axis, direction, index count (scatters) and mode (linear algebra).
struct LibraryWords {
  void put(Writer &w, const Library &l) const {
    w.word(int64_t(l.op));
    w.word(l.axis);
    w.word(l.reverse);
    w.word(l.count);
    w.word(l.mode);
  }
  void get(Reader &r, Library &l) const {
    l.op = LibraryOp(r.ranged(0, library_op_count - 1, "corrupt library op"));
    l.axis = r.ranged(0, 63, "corrupt library axis");
    l.reverse = r.ranged(0, 1, "corrupt library direction") != 0;
    l.count = r.ranged(0, int64_t(1) << 48, "corrupt library index count");
    l.mode = r.ranged(0, linalg_mode_count(l.op) - 1, "corrupt library mode");
  }
};
constexpr LibraryWords library_words{};

// A signature's arrays: their count, then each one's dtype and shape.
struct Specs {
  void put(Writer &w, const std::vector<ArraySpec> &arrays) const {
    w.word(int64_t(arrays.size()));
    for (const ArraySpec &s : arrays) {
      dtype_word.put(w, s.dtype);
      words.put(w, s.shape);
    }
  }
  void get(Reader &r, std::vector<ArraySpec> &arrays) const {
    arrays.resize(r.count());
    for (ArraySpec &s : arrays) {
      dtype_word.get(r, s.dtype);
      words.get(r, s.shape);
      checked_elements(s.shape);
    }
  }
};
constexpr Specs specs{};

// A step's fields in the order of their words: the one list that encode, decode and
// validate_unused expand. Per field: its coding, the kinds of step that use it (in the others it
// holds its default, checked, so that no word goes unread: a kernel flag on another kind of step
// would shift the kernel table) and its name in errors. Not carried: a Value step's buffer and the
// tasks (bound when decoded, from the object's constants and for the pool that runs it). Donations
// are carried for loop bodies' carries (the object's own program computes into the caller's
// results, and never holds its arguments alone).
// clang-format off
#define JX_AOT_STEP_FIELDS(X)                                                                      \
  X(kind,      step_kind,   every_kind,                                "kind")                     \
  X(outs,      slots,       every_kind,                                "outputs")                  \
  X(out_bytes, words,       every_kind & ~used_by(Kind::Argument),     "output sizes")             \
  X(frees,     slots,       used_by(Kind::Kernel, Kind::Contraction, Kind::Library) | control_kinds, "inputs") \
  X(argument,  position,    used_by(Kind::Argument),                   "argument index")           \
  X(key_hi,    key,         used_by(Kind::Fill),                       "random key")               \
  X(key_lo,    key,         used_by(Kind::Fill),                       "random key")               \
  X(dtype,     dtype_word,  used_by(Kind::Fill, Kind::Contraction, Kind::Library), "dtype")       \
  X(kernel,    kernel_flag, used_by(Kind::Kernel),                     "kernel flag")              \
  X(inputs,    slots,       used_by(Kind::Kernel, Kind::Contraction, Kind::Library) | control_kinds, "inputs") \
  X(literals,  words,       used_by(Kind::Kernel),                     "literals")                 \
  X(extent,    words,       used_by(Kind::Fill, Kind::Kernel, Kind::Contraction, Kind::Library), "extent") \
  X(outer,     any_word,    used_by(Kind::Kernel),                     "kernel rows")              \
  X(grain,     any_word,    used_by(Kind::Kernel),                     "kernel rows")              \
  X(boxes,     words,       used_by(Kind::Kernel),                     "device boxes")             \
  X(box_work,  any_word,    used_by(Kind::Kernel),                     "device boxes")             \
  X(gemm,      gemm_words,  used_by(Kind::Contraction),                "contraction shape")        \
  X(library,   library_words, used_by(Kind::Library),                "library routine")          \
  X(regions,   region_programs, control_kinds,                         "regions")                  \
  X(carries,   count_word,  used_by(Kind::While, Kind::Scan),          "loop carries")             \
  X(xs,        count_word,  used_by(Kind::Scan),                       "scanned inputs")           \
  X(length,    length_word, used_by(Kind::Scan),                       "scan length")              \
  X(reverse,   flag,        used_by(Kind::Scan),                       "scan direction")          \
  X(update_input, update_word, used_by(Kind::Kernel, Kind::Library),    "update input")            \
  X(donors,    donations,   used_by(Kind::Kernel, Kind::Library),      "donations")               \
  X(donor_slots, donations, used_by(Kind::Kernel, Kind::Library),      "donations")
// A program's fields before its steps, likewise.
#define JX_AOT_PROGRAM_FIELDS(X)                                                                   \
  X(slot_count, slot_table) X(arena_bytes, any_word) X(arena_offset, words) X(outputs, slots)
// clang-format on

// The program's validation against the signature and the object's tables (aot_validate.cpp), and
// the binding of the object's kernels and constants to its steps.
std::vector<int64_t> argument_sizes(const Signature &signature);
void validate(const Decoded &d, const jx_aot_object &o);
void bind(Program &p, const jx_aot_object &o, size_t &kernel, size_t &constant, int64_t threads);

} // namespace jx::runtime::aot::format
