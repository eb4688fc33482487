// The ahead-of-time program format and jx_aot_run, the entry every generated function calls.
#include "runtime/aot.h"

#include "runtime/allocator.h"

#include <jx/error.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <new>

namespace jx::runtime::aot {
namespace {

constexpr int64_t magic = 0x0054'4f41'584a; // "JXAOT", little-endian

const char *dtype_text(DType t) {
  static constexpr const char *names[] = {"bool", "int32", "int64", "float32", "float64"};
  return names[size_t(t)];
}

class Writer {
public:
  void word(int64_t w) { words.push_back(w); }
  template <class T> void list(const std::vector<T> &v) {
    word(int64_t(v.size()));
    for (const T &x : v)
      word(int64_t(x));
  }
  void specs(const std::vector<ArraySpec> &specs) {
    word(int64_t(specs.size()));
    for (const ArraySpec &s : specs) {
      word(int64_t(s.dtype));
      list(s.shape);
    }
  }
  std::vector<int64_t> words;
};

class Reader {
public:
  Reader(const int64_t *words, int64_t count) : words_(words), count_(count) {}
  int64_t word() {
    if (at_ >= count_) throw Error("jx AOT program: truncated");
    return words_[at_++];
  }
  // A count, bounded by what is left to read (a corrupt count must not allocate the world).
  size_t count() {
    const int64_t n = word();
    if (n < 0 || n > count_ - at_ + 1) throw Error("jx AOT program: corrupt length");
    return size_t(n);
  }
  template <class T> std::vector<T> list() {
    std::vector<T> v(count());
    for (T &x : v)
      x = T(word());
    return v;
  }
  DType dtype() {
    const int64_t d = word();
    if (d < 0 || d > int64_t(DType::float64)) throw Error("jx AOT program: corrupt dtype");
    return DType(d);
  }
  std::vector<ArraySpec> specs() {
    std::vector<ArraySpec> out(count());
    for (ArraySpec &s : out) {
      s.dtype = dtype();
      s.shape = list<int64_t>();
    }
    return out;
  }
  bool done() const { return at_ == count_; }

private:
  const int64_t *words_;
  int64_t count_, at_ = 0;
};

} // namespace

std::string spec_text(const std::vector<ArraySpec> &specs) {
  std::string text;
  for (const ArraySpec &s : specs) {
    if (!text.empty()) text += ", ";
    text += dtype_text(s.dtype);
    text += "[";
    for (size_t i = 0; i < s.shape.size(); ++i) {
      if (i) text += ",";
      text += std::to_string(s.shape[i]);
    }
    text += "]";
  }
  return text;
}

std::vector<int64_t> encode(const Program &program, const Signature &signature) {
  Writer w;
  w.word(magic);
  w.word(JX_AOT_ABI_VERSION);
  w.specs(signature.args);
  w.specs(signature.results);
  w.word(program.slot_count);
  w.word(int64_t(program.arena_bytes));
  w.list(program.arena_offset);
  w.list(program.outputs);
  w.word(int64_t(program.steps.size()));
  for (const Step &s : program.steps) {
    w.word(int64_t(s.kind));
    w.list(s.outs);
    w.list(s.out_bytes);
    w.list(s.frees);
    w.word(s.argument);
    w.word(s.key_hi);
    w.word(s.key_lo);
    w.word(int64_t(s.dtype));
    w.word(s.kernel != nullptr);
    w.list(s.inputs);
    w.list(s.literals);
    w.list(s.extent);
    w.word(s.outer);
    w.word(s.grain);
    w.list(s.tasks);
  }
  return std::move(w.words);
}

Decoded decode(const int64_t *words, int64_t count, const jx_aot_kernel *kernels,
               const void *const *constants) {
  Reader r(words, count);
  if (r.word() != magic) throw Error("jx AOT program: not a jx program");
  if (const int64_t version = r.word(); version != JX_AOT_ABI_VERSION)
    throw Error("jx AOT program: generated for ABI version " + std::to_string(version) +
                ", but this runtime is ABI version " + std::to_string(JX_AOT_ABI_VERSION));
  Decoded d;
  d.signature.args = r.specs();
  d.signature.results = r.specs();
  Program &p = d.program;
  p.slot_count = int(r.word());
  p.arena_bytes = size_t(r.word());
  p.arena_offset = r.list<int64_t>();
  p.outputs = r.list<int>();
  const size_t steps = r.count();
  size_t kernel = 0, constant = 0;
  for (size_t i = 0; i < steps; ++i) {
    Step s{.kind = Step::Kind(r.word())};
    s.outs = r.list<int>();
    s.out_bytes = r.list<size_t>();
    s.frees = r.list<int>();
    s.argument = int(r.word());
    s.key_hi = uint32_t(r.word());
    s.key_lo = uint32_t(r.word());
    s.dtype = r.dtype();
    const bool has_kernel = r.word() != 0;
    s.inputs = r.list<int>();
    s.literals = r.list<uint64_t>();
    s.extent = r.list<int64_t>();
    s.outer = r.word();
    s.grain = r.word();
    s.tasks = r.list<int64_t>();
    if (has_kernel) s.kernel = kernels[kernel++];
    if (s.kind == Step::Kind::Value) {
      if (s.out_bytes.size() != 1) throw Error("jx AOT program: a constant without its size");
      BufferPtr value = Buffer::borrow(const_cast<void *>(constants[constant++]), s.out_bytes[0]);
      s.value = [value] { return value; };
    }
    p.steps.push_back(std::move(s));
  }
  if (!r.done()) throw Error("jx AOT program: trailing words");
  return d;
}

} // namespace jx::runtime::aot

namespace {

using jx::runtime::aot::ArraySpec;

// Programs decoded so far, by their words' address (each object's program is decoded once).
const jx::runtime::aot::Decoded &decoded(const int64_t *words, int64_t count,
                                         const jx_aot_kernel *kernels,
                                         const void *const *constants) {
  static std::mutex mutex;
  static std::map<const int64_t *, std::unique_ptr<jx::runtime::aot::Decoded>> programs;
  std::lock_guard lock(mutex);
  auto &slot = programs[words];
  if (!slot)
    slot = std::make_unique<jx::runtime::aot::Decoded>(
        jx::runtime::aot::decode(words, count, kernels, constants));
  return *slot;
}

// An argument's or result's mismatch with its spec, or "".
std::string mismatch(const char *what, size_t i, const jx_aot_array &a, const ArraySpec &spec) {
  const bool dtype_ok = a.dtype == int32_t(spec.dtype);
  const bool shape_ok =
      a.rank == int32_t(spec.shape.size()) &&
      (a.rank == 0 || (a.shape && std::equal(spec.shape.begin(), spec.shape.end(), a.shape)));
  if (dtype_ok && shape_ok) {
    int64_t size = 1;
    for (int64_t n : spec.shape)
      size *= n;
    if (!a.data && size > 0) return std::string(what) + " " + std::to_string(i) + " has no data";
    return "";
  }
  std::string given;
  if (a.dtype >= 0 && a.dtype <= int32_t(jx::DType::float64) && a.rank >= 0 &&
      (a.rank == 0 || a.shape))
    given = jx::runtime::aot::spec_text(
        {{jx::DType(a.dtype), std::vector<int64_t>(a.shape, a.shape + a.rank)}});
  else
    given = "dtype code " + std::to_string(a.dtype) + ", rank " + std::to_string(a.rank);
  return std::string(what) + " " + std::to_string(i) + " is " + given + ", expected " +
         jx::runtime::aot::spec_text({spec});
}

size_t byte_size(const ArraySpec &s) {
  size_t n = jx::itemsize(s.dtype);
  for (int64_t d : s.shape)
    n *= size_t(d);
  return n;
}

int32_t fail(int32_t status, const std::string &message, char *error, size_t error_size) {
  if (error && error_size > 0) std::snprintf(error, error_size, "%s", message.c_str());
  return status;
}

} // namespace

extern "C" int32_t jx_aot_abi_version(void) { return JX_AOT_ABI_VERSION; }

extern "C" void *jx_aot_allocate(size_t bytes) {
  size_t capacity;
  try {
    return jx::runtime::allocate(bytes, &capacity);
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
}

extern "C" void jx_aot_free(void *data, size_t bytes) {
  jx::runtime::deallocate(data, jx::runtime::block_capacity(bytes));
}

extern "C" int32_t jx_aot_run(const int64_t *program, int64_t program_words,
                              const jx_aot_kernel *kernels, const void *const *constants,
                              const jx_aot_array *args, int32_t num_args,
                              const jx_aot_array *results, int32_t num_results, char *error,
                              size_t error_size) {
  using namespace jx::runtime;
  const aot::Decoded *d;
  try {
    d = &decoded(program, program_words, kernels, constants);
  } catch (const jx::Error &e) {
    return fail(JX_AOT_ERROR_ABI, e.what(), error, error_size);
  } catch (const std::bad_alloc &) {
    return fail(JX_AOT_ERROR_RUNTIME, "out of memory", error, error_size);
  }
  const aot::Signature &sig = d->signature;
  if (num_args && !args)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "args is null, but the function takes " + std::to_string(sig.args.size()) +
                    " arguments (" + aot::spec_text(sig.args) + ")",
                error, error_size);
  if (num_results && !results)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "results is null, but the function returns " + std::to_string(sig.results.size()) +
                    " results (" + aot::spec_text(sig.results) + ")",
                error, error_size);
  if (num_args != int32_t(sig.args.size()) || num_results != int32_t(sig.results.size()))
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "called with " + std::to_string(num_args) + " arguments and " +
                    std::to_string(num_results) + " results, but the function takes " +
                    std::to_string(sig.args.size()) + " arguments (" + aot::spec_text(sig.args) +
                    ") and returns " + std::to_string(sig.results.size()) + " results (" +
                    aot::spec_text(sig.results) + ")",
                error, error_size);
  std::string problem;
  for (size_t i = 0; problem.empty() && i < sig.args.size(); ++i)
    problem = mismatch("argument", i, args[i], sig.args[i]);
  for (size_t i = 0; problem.empty() && i < sig.results.size(); ++i)
    problem = mismatch("result", i, results[i], sig.results[i]);
  // Results are written while arguments are read: they must not share memory.
  for (size_t i = 0; problem.empty() && i < sig.results.size(); ++i) {
    const char *r = static_cast<const char *>(results[i].data);
    const size_t rn = byte_size(sig.results[i]);
    auto overlaps = [&](const void *p, size_t n) {
      const char *q = static_cast<const char *>(p);
      return rn > 0 && n > 0 && r < q + n && q < r + rn;
    };
    for (size_t k = 0; problem.empty() && k < sig.args.size(); ++k)
      if (overlaps(args[k].data, byte_size(sig.args[k])))
        problem = "result " + std::to_string(i) + " overlaps argument " + std::to_string(k);
    for (size_t k = 0; problem.empty() && k < i; ++k)
      if (overlaps(results[k].data, byte_size(sig.results[k])))
        problem = "result " + std::to_string(i) + " overlaps result " + std::to_string(k);
  }
  if (!problem.empty())
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "Argument types differ from the types for which this computation was compiled: " +
                    problem,
                error, error_size);
  try {
    std::vector<BufferPtr> in, out;
    for (size_t i = 0; i < sig.args.size(); ++i)
      in.push_back(Buffer::borrow(args[i].data, byte_size(sig.args[i])));
    for (size_t i = 0; i < sig.results.size(); ++i)
      out.push_back(Buffer::borrow(results[i].data, byte_size(sig.results[i])));
    run(d->program, in, out);
  } catch (const std::bad_alloc &) {
    return fail(JX_AOT_ERROR_RUNTIME, "out of memory", error, error_size);
  } catch (const std::exception &e) {
    return fail(JX_AOT_ERROR_RUNTIME, e.what(), error, error_size);
  }
  return JX_AOT_OK;
}
