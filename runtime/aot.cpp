// The ahead-of-time program format and jx_aot_run_v3, the entry every generated function calls;
// jx_aot_allocate and jx_aot_free.
#include "runtime/aot.h"

#include <jx/error.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <unordered_map>

#include "runtime/allocator.h"
#include "runtime/thread_pool.h"

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

void unbound_kernel(const int64_t *, void *const *) {}

[[noreturn]] void corrupt(const std::string &what) { throw Error("jx AOT program: " + what); }

// Elements of a shape, each dimension and the product checked (2^40 and 2^56 at most).
int64_t checked_elements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || d > (int64_t(1) << 40) || __builtin_mul_overflow(n, d, &n) ||
        n > (int64_t(1) << 56))
      corrupt("corrupt shape");
  return n;
}

size_t byte_size(DType dtype, const std::vector<int64_t> &shape) {
  return size_t(checked_elements(shape)) * itemsize(dtype);
}
size_t byte_size(const ArraySpec &s) { return byte_size(s.dtype, s.shape); }

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
  template <class T> std::vector<T> list() {
    std::vector<T> v(count());
    for (T &x : v)
      x = T(word());
    return v;
  }
  // A word in [lo, hi], else `what` (so that no value is cut short into a valid-looking one).
  int64_t ranged(int64_t lo, int64_t hi, const char *what) {
    const int64_t w = word();
    if (w < lo || w > hi) corrupt(what);
    return w;
  }
  // Slot numbers and argument positions: ints.
  int index(const char *what) { return int(ranged(0, INT32_MAX, what)); }
  std::vector<int> indices(const char *what) {
    std::vector<int> v(count());
    for (int &x : v)
      x = index(what);
    return v;
  }
  DType dtype() {
    const int64_t d = word();
    if (d < 0 || d > int64_t(DType::float64)) corrupt("corrupt dtype");
    return DType(d);
  }
  std::vector<ArraySpec> specs() {
    std::vector<ArraySpec> out(count());
    for (ArraySpec &s : out) {
      s.dtype = dtype();
      s.shape = list<int64_t>();
      checked_elements(s.shape);
    }
    return out;
  }
  bool done() const { return at_ == count_; }

private:
  const int64_t *words_;
  int64_t count_, at_ = 0;
};

// A contraction reads its operands inside their buffers and writes its output whole, through
// layouts BLAS accepts.
void validate_contraction(const Step &s, const std::vector<int64_t> &bytes) {
  const Gemm &g = s.gemm;
  if (!is_floating(s.dtype) || s.kernel || s.inputs.size() != 2) corrupt("contraction");
  const int64_t dims[] = {g.batch, g.m, g.n, g.k};
  for (int64_t d : dims)
    if (d < 0 || d > (int64_t(1) << 31)) corrupt("contraction shape");
  const int64_t out_elements = checked_elements({g.batch, g.m, g.n});
  if (s.out_bytes[0] != size_t(out_elements) * itemsize(s.dtype)) corrupt("contraction output");
  // The last element each operand is read at lies inside its buffer.
  auto reads_inside = [&](int slot, const int64_t *strides, int64_t rows, int64_t cols) {
    const int64_t extents[] = {g.batch, rows, cols};
    int64_t last = 0;
    for (int a = 0; a < 3; ++a) {
      if (strides[a] < 0 || strides[a] > (int64_t(1) << 40)) corrupt("contraction strides");
      if (extents[a] == 0) return;
      // Checked: 2^31 extents times 2^40 strides would wrap to an offset that looks inside.
      int64_t reach = 0;
      if (__builtin_mul_overflow(extents[a] - 1, strides[a], &reach) ||
          __builtin_add_overflow(last, reach, &last))
        corrupt("contraction operand");
    }
    if (last >= bytes[size_t(slot)] / int64_t(itemsize(s.dtype))) corrupt("contraction operand");
  };
  reads_inside(s.inputs[0], g.lhs, g.m, g.k);
  reads_inside(s.inputs[1], g.rhs, g.k, g.n);
  const bool vector_ok =
      (g.n != 1 || g.k <= 1 || g.rhs[1] != 0) && (g.m != 1 || g.k <= 1 || g.lhs[2] != 0);
  if (!vector_ok || !blas_layout(g.m, g.k, g.lhs[1], g.lhs[2]) ||
      !blas_layout(g.k, g.n, g.rhs[1], g.rhs[2]) || g.n > 0x7fffffff)
    corrupt("contraction layout");
}

const char *kind_text(Step::Kind kind) {
  static constexpr const char *names[] = {"value", "argument", "fill", "kernel", "contraction"};
  return names[size_t(kind)];
}

// Fields a kind does not use hold the defaults encode writes, so that no word goes unchecked (a
// kernel flag on another kind of step would shift the kernel table).
void validate_unused(const Step &s) {
  using K = Step::Kind;
  const auto kind = s.kind;
  auto unused = [&](bool ok, const char *field) {
    if (!ok)
      corrupt(std::string(field) + (kind == K::Argument ? " on an " : " on a ") + kind_text(kind) +
              " step");
  };
  const Gemm &g = s.gemm;
  const bool no_gemm = g.batch == 0 && g.m == 0 && g.n == 0 && g.k == 0 &&
                       std::all_of(g.lhs, g.lhs + 3, [](int64_t v) { return v == 0; }) &&
                       std::all_of(g.rhs, g.rhs + 3, [](int64_t v) { return v == 0; });
  if (kind != K::Kernel) {
    unused(!s.kernel, "kernel flag");
    unused(s.literals.empty(), "literals");
    unused(s.outer == 0 && s.grain == 1, "kernel rows");
    unused(s.boxes.empty() && s.box_work == 1, "device boxes");
  }
  if (kind != K::Argument) unused(s.argument == 0, "argument index");
  if (kind != K::Fill) unused(s.key_hi == 0 && s.key_lo == 0, "random key");
  if (kind != K::Fill && kind != K::Contraction) unused(s.dtype == DType::float64, "dtype");
  if (kind != K::Contraction) unused(no_gemm, "contraction shape");
  if (kind == K::Value || kind == K::Argument || kind == K::Fill)
    unused(s.inputs.empty() && s.frees.empty(), "inputs");
  if (kind == K::Value || kind == K::Argument) unused(s.extent.empty(), "extent");
  if (kind == K::Argument) unused(s.out_bytes.empty(), "output sizes");
}

// The next record of the object's kernel_info: what the step's kernel was compiled for.
class KernelInfo {
public:
  explicit KernelInfo(const jx_aot_object &o) : words_(o.kernel_info), count_(o.kernel_info_words) {
    if (count_ < 0 || (count_ > 0 && !words_)) corrupt("kernel info table");
  }
  void check(const Step &s, const std::vector<int64_t> &bytes) {
    const int64_t outs = next(), ins = next(), literals = next();
    if (outs != int64_t(s.outs.size()) || ins != int64_t(s.inputs.size()))
      corrupt("kernel buffers: the kernel takes " + std::to_string(outs) + " outputs and " +
              std::to_string(ins) + " inputs, the step gives " + std::to_string(s.outs.size()) +
              " and " + std::to_string(s.inputs.size()));
    if (literals != int64_t(s.literals.size()))
      corrupt("kernel literals: the kernel reads " + std::to_string(literals) +
              ", the step gives " + std::to_string(s.literals.size()));
    for (size_t r = 0; r < s.outs.size(); ++r)
      if (next() != int64_t(s.out_bytes[r])) corrupt("kernel output sizes");
    for (int in : s.inputs)
      if (next() != bytes[size_t(in)]) corrupt("kernel input sizes");
  }
  bool done() const { return at_ == count_; }

private:
  int64_t next() {
    if (at_ >= count_) corrupt("kernel info table");
    return words_[at_++];
  }
  const int64_t *words_;
  int64_t count_, at_ = 0;
};

// What run() relies on: every slot written once before it is read and not read after it is
// freed, sizes that agree with the signature, the extents, the arena and the object's kernels and
// constants, indices inside their tables, boxes inside their extents, arguments loaded once each
// and in order.
void validate(const Decoded &d, const jx_aot_object &o) {
  const Program &p = d.program;
  const auto slots = size_t(p.slot_count);
  if (p.slot_count < 0 || p.arena_offset.size() != slots) corrupt("slot table");
  if (p.arena_bytes > (size_t(1) << 62)) corrupt("arena size");
  if (o.num_kernels < 0 || (o.num_kernels > 0 && !o.kernels) || o.num_constants < 0 ||
      (o.num_constants > 0 && (!o.constants || !o.constant_bytes)))
    corrupt("object tables");
  constexpr int64_t unwritten = -1, freed = -2;
  std::vector<int64_t> bytes(slots, unwritten); // per live slot, its size
  auto live = [&](int slot) {
    if (slot < 0 || size_t(slot) >= slots) corrupt("slot out of range");
    if (bytes[size_t(slot)] == unwritten) corrupt("slot read before it is written");
    if (bytes[size_t(slot)] == freed) corrupt("slot read after it is freed");
  };
  KernelInfo info(o);
  constexpr auto align = int64_t(Buffer::alignment);
  std::vector<std::pair<int, int64_t>> in_arena; // live slots in the arena, with their ends
  int64_t arena_end = 0;
  int64_t kernels = 0, constants = 0, last_argument = -1;
  bool past_arguments = false;
  for (const Step &s : p.steps) {
    validate_unused(s);
    for (int in : s.inputs)
      live(in);
    for (int f : s.frees) {
      live(f);
      // Each freed slot once, and only by a step that reads it (its last reader).
      if (std::count(s.frees.begin(), s.frees.end(), f) != 1 ||
          std::find(s.inputs.begin(), s.inputs.end(), f) == s.inputs.end())
        corrupt("step frees");
    }
    const bool single = s.kind != Step::Kind::Kernel;
    if (s.outs.empty() || (single && s.outs.size() != 1)) corrupt("step outputs");
    if (s.kind != Step::Kind::Argument && s.out_bytes.size() != s.outs.size())
      corrupt("step output sizes");
    if (s.kind == Step::Kind::Argument) {
      // Each argument loaded once, before any other step, in order: two arguments' positions
      // swapped are an error, not a run with the wrong values.
      if (past_arguments || s.argument <= last_argument) corrupt("argument order");
      last_argument = s.argument;
    } else {
      past_arguments = true;
    }
    for (size_t r = 0; r < s.outs.size(); ++r) {
      const int out = s.outs[r];
      if (out < 0 || size_t(out) >= slots) corrupt("slot out of range");
      if (bytes[size_t(out)] != unwritten) corrupt("slot written twice");
      int64_t size = 0;
      if (s.kind == Step::Kind::Argument) {
        if (s.argument < 0 || size_t(s.argument) >= d.signature.args.size())
          corrupt("argument out of range");
        size = int64_t(byte_size(d.signature.args[size_t(s.argument)]));
      } else {
        if (s.out_bytes[r] > (size_t(1) << 62)) corrupt("step output sizes");
        size = int64_t(s.out_bytes[r]);
      }
      const int64_t offset = p.arena_offset[size_t(out)];
      const bool computed = s.kind == Step::Kind::Fill || s.kind == Step::Kind::Contraction;
      if (offset < -1 ||
          (offset >= 0 && ((single && !computed) || offset > int64_t(p.arena_bytes) - size ||
                           offset % int64_t(Buffer::alignment) != 0)))
        corrupt("arena offset");
      if (offset >= 0) {
        // Whole cache lines, as the JIT places them, apart from every other live slot's.
        const int64_t end = offset + (size + align - 1) / align * align;
        for (const auto &[slot, other_end] : in_arena)
          if (offset < other_end && p.arena_offset[size_t(slot)] < end)
            corrupt("arena slots overlap");
        in_arena.emplace_back(out, end);
        arena_end = std::max(arena_end, end);
      }
      bytes[size_t(out)] = size;
    }
    switch (s.kind) {
    case Step::Kind::Value:
      // The constant the table holds is as large as the step says, and aligned as buffers are.
      if (constants >= o.num_constants || o.constant_bytes[constants] != int64_t(s.out_bytes[0]) ||
          (s.out_bytes[0] > 0 && !o.constants[constants]) ||
          reinterpret_cast<uintptr_t>(o.constants[constants]) % Buffer::alignment != 0)
        corrupt("constant table");
      ++constants;
      break;
    case Step::Kind::Argument: break;
    case Step::Kind::Fill:
      if (!is_floating(s.dtype) || s.out_bytes[0] != byte_size(s.dtype, s.extent))
        corrupt("random fill");
      break;
    case Step::Kind::Contraction:
      validate_contraction(s, bytes);
      if (checked_elements(s.extent) != s.gemm.batch * s.gemm.m * s.gemm.n)
        corrupt("contraction extent");
      break;
    case Step::Kind::Kernel: {
      const size_t rank = s.extent.size();
      const int64_t elements = checked_elements(s.extent);
      // Every output has the extent's elements, of 1, 4 or 8 bytes; the rows run over axis 0.
      for (size_t bytes_out : s.out_bytes)
        if (bytes_out != size_t(elements) && bytes_out != size_t(4 * elements) &&
            bytes_out != size_t(8 * elements))
          corrupt("kernel output sizes");
      if (!s.kernel && elements > 0) corrupt("kernel missing");
      // Inputs distinct: the kernel reads each of its parameters from its own buffer.
      if (std::set<int>(s.inputs.begin(), s.inputs.end()).size() != s.inputs.size())
        corrupt("kernel inputs repeated");
      if (s.kernel) {
        if (kernels >= o.num_kernels || !o.kernels[kernels]) corrupt("kernel table");
        info.check(s, bytes);
        ++kernels;
      }
      int64_t work = 0;
      if (s.outer != (rank ? s.extent[0] : 1) || s.grain < 1 || s.box_work < 0 ||
          __builtin_mul_overflow(s.box_work, elements, &work) || work > (int64_t(1) << 62))
        corrupt("kernel bounds");
      if (!s.boxes.empty() && (rank == 0 || s.boxes.size() % (2 * rank) != 0))
        corrupt("device boxes");
      for (size_t i = 0; i < s.boxes.size(); ++i) {
        const int64_t extent = s.extent[(i / 2) % rank];
        if (s.boxes[i] < 0 || s.boxes[i] > extent || (i % 2 && s.boxes[i] < s.boxes[i - 1]))
          corrupt("device boxes");
      }
      break;
    }
    }
    for (int f : s.frees) {
      bytes[size_t(f)] = freed;
      std::erase_if(in_arena, [&](const std::pair<int, int64_t> &a) { return a.first == f; });
    }
  }
  if (arena_end != int64_t(p.arena_bytes)) corrupt("arena size");
  if (kernels != o.num_kernels || constants != o.num_constants || !info.done())
    corrupt("table sizes");
  if (p.outputs.size() != d.signature.results.size()) corrupt("result count");
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const int out = p.outputs[i];
    live(out);
    const ArraySpec &r = d.signature.results[i];
    if (bytes[size_t(out)] != int64_t(byte_size(r))) corrupt("result size");
  }
}

} // namespace

uint64_t host_cpu_features() {
  // Needed when this runs before libgcc's own constructor has filled the CPU model.
  __builtin_cpu_init();
  // __builtin_cpu_supports takes literals only: the list's names expanded in place.
#define JX_AOT_FEATURE_SUPPORTED(NAME) __builtin_cpu_supports(NAME),
  const int has[] = {JX_AOT_CPU_FEATURES(JX_AOT_FEATURE_SUPPORTED)};
#undef JX_AOT_FEATURE_SUPPORTED
  static_assert(sizeof(has) / sizeof(has[0]) == cpu_feature_count);
  uint64_t mask = 0;
  for (size_t i = 0; i < cpu_feature_count; ++i)
    mask |= uint64_t(has[i] != 0) << i;
  return mask;
}

std::string missing_cpu_features(uint64_t required, uint64_t host) {
  std::string names;
  // Bits past the list come from a newer jx that knows more features: unknown here, so missing.
  for (size_t i = 0; i < 64; ++i)
    if ((required & ~host) >> i & 1)
      names += std::string(names.empty() ? "" : ", ") + (i < cpu_feature_count
                                                             ? std::string(cpu_features[i])
                                                             : "feature bit " + std::to_string(i));
  return names;
}

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

uint64_t checksum(const int64_t *words, int64_t count) {
  uint64_t h = 0xcbf29ce484222325u;
  for (int64_t i = 0; i < count; ++i) {
    if (i == 2) continue;
    const auto w = uint64_t(words[i]);
    for (int b = 0; b < 64; b += 8)
      h = (h ^ ((w >> b) & 0xff)) * 0x100000001b3u;
  }
  return h;
}

void seal(std::vector<int64_t> &words) {
  if (words.size() > 2) words[2] = int64_t(checksum(words.data(), int64_t(words.size())));
}

std::vector<int64_t> encode(const Program &program, const Signature &signature,
                            uint64_t required_features) {
  int64_t kernels = 0, constants = 0;
  // Argument steps first, by position (they read nothing, and nothing reads their slots before
  // them): the order the decoder insists on.
  std::vector<const Step *> steps;
  for (const Step &s : program.steps) {
    kernels += s.kernel != nullptr;
    constants += s.kind == Step::Kind::Value;
    if (s.kind == Step::Kind::Argument) steps.push_back(&s);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step *a, const Step *b) { return a->argument < b->argument; });
  for (const Step &s : program.steps)
    if (s.kind != Step::Kind::Argument) steps.push_back(&s);
  Writer w;
  w.word(magic);
  w.word(JX_AOT_ABI_VERSION);
  w.word(0); // the checksum, once the rest is written
  w.word(int64_t(required_features));
  w.word(kernels);
  w.word(constants);
  w.specs(signature.args);
  w.specs(signature.results);
  w.word(program.slot_count);
  w.word(int64_t(program.arena_bytes));
  w.list(program.arena_offset);
  w.list(program.outputs);
  w.word(int64_t(steps.size()));
  for (const Step *step : steps) {
    const Step &s = *step;
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
    w.list(s.boxes);
    w.word(s.box_work);
    for (int64_t v : {s.gemm.batch, s.gemm.m, s.gemm.n, s.gemm.k})
      w.word(v);
    for (int a = 0; a < 3; ++a)
      w.word(s.gemm.lhs[a]);
    for (int a = 0; a < 3; ++a)
      w.word(s.gemm.rhs[a]);
  }
  seal(w.words);
  return std::move(w.words);
}

std::vector<int64_t> kernel_info(const Program &program, const Signature &signature) {
  std::vector<int64_t> bytes(size_t(std::max(program.slot_count, 0))), info;
  for (const Step &s : program.steps) {
    for (size_t r = 0; r < s.outs.size(); ++r)
      bytes.at(size_t(s.outs[r])) = s.kind == Step::Kind::Argument
                                        ? int64_t(byte_size(signature.args.at(size_t(s.argument))))
                                        : int64_t(s.out_bytes.at(r));
    if (!s.kernel) continue;
    info.insert(info.end(),
                {int64_t(s.outs.size()), int64_t(s.inputs.size()), int64_t(s.literals.size())});
    info.insert(info.end(), s.out_bytes.begin(), s.out_bytes.end());
    for (int in : s.inputs)
      info.push_back(bytes.at(size_t(in)));
  }
  return info;
}

Decoded decode(const jx_aot_object &object, int64_t threads) {
  const int64_t count = object.program_words;
  if (!object.program || count < 0) corrupt("no program");
  Reader r(object.program, count);
  if (r.word() != magic) corrupt("not a jx program");
  // The version before the checksum: an object of another version may sum differently.
  if (const int64_t version = r.word(); version != JX_AOT_ABI_VERSION)
    throw Error("jx AOT program: generated for ABI version " + std::to_string(version) +
                ", but this runtime is ABI version " + std::to_string(JX_AOT_ABI_VERSION) +
                " (generate the object again with this jx)");
  if (uint64_t(r.word()) != checksum(object.program, count))
    corrupt("checksum mismatch: the program words are corrupt");
  Decoded d;
  d.required_features = uint64_t(r.word());
  const int64_t kernel_count = r.word(), constant_count = r.word();
  if (kernel_count != object.num_kernels || constant_count != object.num_constants)
    corrupt("table sizes");
  d.signature.args = r.specs();
  d.signature.results = r.specs();
  Program &p = d.program;
  p.slot_count = int(r.ranged(0, INT32_MAX, "slot table"));
  p.arena_bytes = size_t(r.word());
  p.arena_offset = r.list<int64_t>();
  p.outputs = r.indices("slot out of range");
  const size_t steps = r.count();
  for (size_t i = 0; i < steps; ++i) {
    const auto kind =
        Step::Kind(r.ranged(0, int64_t(Step::Kind::Contraction), "corrupt step kind"));
    Step s{.kind = kind};
    s.outs = r.indices("slot out of range");
    s.out_bytes = r.list<size_t>();
    s.frees = r.indices("slot out of range");
    s.argument = r.index("argument out of range");
    s.key_hi = uint32_t(r.ranged(0, UINT32_MAX, "corrupt random key"));
    s.key_lo = uint32_t(r.ranged(0, UINT32_MAX, "corrupt random key"));
    s.dtype = r.dtype();
    // Bound from the table once validated.
    s.kernel = r.ranged(0, 1, "corrupt kernel flag") ? &unbound_kernel : nullptr;
    s.inputs = r.indices("slot out of range");
    s.literals = r.list<uint64_t>();
    s.extent = r.list<int64_t>();
    s.outer = r.word();
    s.grain = r.word();
    s.boxes = r.list<int64_t>();
    s.box_work = r.word();
    for (int64_t *v : {&s.gemm.batch, &s.gemm.m, &s.gemm.n, &s.gemm.k})
      *v = r.word();
    for (int a = 0; a < 3; ++a)
      s.gemm.lhs[a] = r.word();
    for (int a = 0; a < 3; ++a)
      s.gemm.rhs[a] = r.word();
    p.steps.push_back(std::move(s));
  }
  if (!r.done()) corrupt("trailing words");
  validate(d, object);
  size_t kernel = 0, constant = 0;
  for (Step &s : p.steps) {
    if (s.kernel) s.kernel = object.kernels[kernel++];
    if (s.kind == Step::Kind::Value) {
      BufferPtr value =
          Buffer::borrow(const_cast<void *>(object.constants[constant++]), s.out_bytes[0]);
      s.value = [value] { return value; };
    }
    s.tasks = s.kind == Step::Kind::Contraction
                  ? gemm_tiles(s.gemm, gemm_parallelism())
                  : split_boxes(s.boxes, s.extent.size(), s.box_work, threads);
  }
  return d;
}

namespace {

// An argument's or result's mismatch with its spec, or "".
std::string mismatch(const char *what, size_t i, const jx_aot_array &a, const ArraySpec &spec) {
  const bool dtype_ok = a.dtype == int32_t(spec.dtype);
  const bool shape_ok =
      a.rank == int32_t(spec.shape.size()) &&
      (a.rank == 0 || (a.shape && std::equal(spec.shape.begin(), spec.shape.end(), a.shape)));
  if (dtype_ok && shape_ok) {
    if (!a.data && byte_size(spec) > 0)
      return std::string(what) + " " + std::to_string(i) + " has no data";
    return "";
  }
  // The given shape is printed only when it can be read sensibly (a garbage rank is not).
  std::string given;
  if (a.dtype >= 0 && a.dtype <= int32_t(jx::DType::float64) && a.rank >= 0 && a.rank <= 32 &&
      (a.rank == 0 || a.shape))
    given = spec_text({{jx::DType(a.dtype), std::vector<int64_t>(a.shape, a.shape + a.rank)}});
  else
    given = "dtype code " + std::to_string(a.dtype) + ", rank " + std::to_string(a.rank);
  return std::string(what) + " " + std::to_string(i) + " is " + given + ", expected " +
         spec_text({spec});
}

int32_t fail(int32_t status, const std::string &message, char *error, size_t error_size) {
  if (error && error_size > 0) std::snprintf(error, error_size, "%s", message.c_str());
  return status;
}

int32_t run(void **state, const jx_aot_object *object, const jx_aot_array *args, int32_t num_args,
            const jx_aot_array *results, int32_t num_results, char *error, size_t error_size) {
  if (!state) return fail(JX_AOT_ERROR_ABI, "jx_aot_run_v3: state is null", error, error_size);
  if (!object) return fail(JX_AOT_ERROR_ABI, "jx_aot_run_v3: object is null", error, error_size);
  // Decoded once per object, published in the object's own slot (so an unloaded and reloaded
  // object never sees another's program); a losing racer drops its copy.
  std::atomic_ref<void *> slot(*state);
  auto *d = static_cast<const Decoded *>(slot.load(std::memory_order_acquire));
  if (!d) {
    std::unique_ptr<Decoded> fresh;
    try {
      fresh = std::make_unique<Decoded>(decode(*object, default_pool().size()));
    } catch (const jx::Error &e) {
      return fail(JX_AOT_ERROR_ABI, e.what(), error, error_size);
    }
    void *expected = nullptr;
    if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel))
      d = fresh.release();
    else
      d = static_cast<const Decoded *>(expected);
  }
  static const uint64_t host = host_cpu_features();
  if (const std::string missing = missing_cpu_features(d->required_features, host);
      !missing.empty())
    return fail(JX_AOT_ERROR_CPU,
                "this object was compiled for a CPU with " + missing + ", which this one lacks",
                error, error_size);
  const Signature &sig = d->signature;
  if (num_args && !args)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "args is null, but the function takes " + std::to_string(sig.args.size()) +
                    " arguments (" + spec_text(sig.args) + ")",
                error, error_size);
  if (num_results && !results)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "results is null, but the function returns " + std::to_string(sig.results.size()) +
                    " results (" + spec_text(sig.results) + ")",
                error, error_size);
  if (num_args != int32_t(sig.args.size()) || num_results != int32_t(sig.results.size()))
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "called with " + std::to_string(num_args) + " arguments and " +
                    std::to_string(num_results) + " results, but the function takes " +
                    std::to_string(sig.args.size()) + " arguments (" + spec_text(sig.args) +
                    ") and returns " + std::to_string(sig.results.size()) + " results (" +
                    spec_text(sig.results) + ")",
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
  std::vector<BufferPtr> in, out;
  for (size_t i = 0; i < sig.args.size(); ++i)
    in.push_back(Buffer::borrow(args[i].data, byte_size(sig.args[i])));
  for (size_t i = 0; i < sig.results.size(); ++i)
    out.push_back(Buffer::borrow(results[i].data, byte_size(sig.results[i])));
  runtime::run(d->program, in, out);
  return JX_AOT_OK;
}

} // namespace
} // namespace jx::runtime::aot

using jx::runtime::aot::fail;

extern "C" int32_t jx_aot_abi_version(void) { return JX_AOT_ABI_VERSION; }

namespace {

// The live blocks of jx_aot_allocate and their sizes, beside the blocks: jx_aot_free checks a
// pointer here without reading memory in front of it, which a foreign pointer may not have.
struct LiveBlocks {
  std::mutex mutex;
  std::unordered_map<void *, size_t> bytes;
};
LiveBlocks &live_blocks() {
  static auto *blocks = new LiveBlocks; // never destroyed: blocks may be freed in static teardown
  return *blocks;
}

} // namespace

extern "C" void *jx_aot_allocate(size_t bytes) {
  size_t capacity;
  void *block = nullptr;
  try {
    block = jx::runtime::allocate(bytes, &capacity);
    LiveBlocks &live = live_blocks();
    std::lock_guard lock(live.mutex);
    live.bytes[block] = bytes;
    return block;
  } catch (...) { // out of memory, whatever the allocator throws: nothing escapes into C
    if (block) jx::runtime::deallocate(block, capacity);
    return nullptr;
  }
}

extern "C" void jx_aot_free(void *data, size_t bytes) {
  if (!data) return;
  LiveBlocks &live = live_blocks();
  {
    std::lock_guard lock(live.mutex);
    auto it = live.bytes.find(data);
    if (it == live.bytes.end()) {
      std::fprintf(stderr,
                   "jx_aot_free: %p was not returned by jx_aot_allocate, or was freed already; "
                   "left alone\n",
                   data);
      return;
    }
    if (it->second != bytes) {
      // Freed with the wrong size, the block would join another size class and overflow the
      // next allocation of that class.
      std::fprintf(stderr,
                   "jx_aot_free: %p was allocated with %zu bytes but freed with %zu; not freed "
                   "(free it with %zu)\n",
                   data, it->second, bytes, it->second);
      return;
    }
    live.bytes.erase(it);
  }
  jx::runtime::deallocate(data, jx::runtime::block_capacity(bytes));
}

extern "C" int32_t jx_aot_run_v3(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size) {
  // Nothing may escape into C callers.
  try {
    return jx::runtime::aot::run(state, object, args, num_args, results, num_results, error,
                                 error_size);
  } catch (const std::bad_alloc &) {
    return fail(JX_AOT_ERROR_RUNTIME, "out of memory", error, error_size);
  } catch (const std::exception &e) {
    return fail(JX_AOT_ERROR_RUNTIME, e.what(), error, error_size);
  } catch (...) {
    return fail(JX_AOT_ERROR_RUNTIME, "unknown error", error, error_size);
  }
}

extern "C" int32_t jx_aot_run_v2(void **, const int64_t *, int64_t, const jx_aot_kernel *,
                                 const void *const *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return fail(JX_AOT_ERROR_ABI,
              "jx AOT object: generated for ABI version 2, but this runtime is ABI version " +
                  std::to_string(JX_AOT_ABI_VERSION) + " (generate the object again with this jx)",
              error, error_size);
}
