// The decoded AOT program checked before it runs: every slot, size, extent, table index, box and
// region against what run() relies on, and the object's kernels and constants bound to its steps.
#include "runtime/aot_format.h"

#include <algorithm>
#include <functional>
#include <set>

namespace jx::runtime::aot::format {
namespace {

// A library routine reads whole operands of its extent and dtype (several keys for argsort only;
// a scatter's x, its count int64 indices and its updates, the axis's extent replaced by the
// count) along an axis of that extent, and writes its output whole (int64 indices for argsort).
// Linear algebra reads matrices of its extent (solve: a (..., n, n) and b, its extent), square
// where the op needs them, with LAPACK's 32-bit dimensions, and writes linalg_output_shape.
void validate_linalg(const Step &s, const std::vector<int64_t> &bytes) {
  const Library &l = s.library;
  const size_t r = s.extent.size();
  const bool solve = l.op == LibraryOp::Solve;
  const bool square = l.op != LibraryOp::Svd && l.op != LibraryOp::Qr;
  if (s.kernel || s.out_bytes.size() != 1 || s.inputs.size() != (solve ? 2u : 1u) || l.axis != 0 ||
      l.reverse || l.count != 0 || !library_supports(l.op, s.dtype) || r < 2 ||
      s.extent[r - 2] > INT32_MAX || s.extent[r - 1] > INT32_MAX ||
      (square && !solve && s.extent[r - 2] != s.extent[r - 1]))
    corrupt("library step");
  const auto item = int64_t(itemsize(s.dtype));
  std::vector<int64_t> a = s.extent;
  if (solve) a[r - 1] = a[r - 2];
  if (bytes[size_t(s.inputs[0])] != checked_elements(a) * item ||
      (solve && bytes[size_t(s.inputs[1])] != checked_elements(s.extent) * item))
    corrupt("library operand");
  const int64_t out_item = l.op == LibraryOp::Eig ? 2 * item : item; // complex
  if (int64_t(s.out_bytes[0]) != checked_elements(linalg_output_shape(l, s.extent)) * out_item)
    corrupt("library output");
}

void validate_library(const Step &s, const std::vector<int64_t> &bytes) {
  const Library &l = s.library;
  if (s.update_input != (is_scatter(l.op) ? 0 : -1)) corrupt("library update");
  if (is_linalg(l.op)) return validate_linalg(s, bytes);
  const bool scatter = is_scatter(l.op);
  if (s.kernel || s.inputs.empty() || s.out_bytes.size() != 1 ||
      (scatter                   ? s.inputs.size() != 3
       : l.op == LibraryOp::Fft ? s.inputs.size() != 2
                                : s.inputs.size() > 1 && l.op != LibraryOp::ArgSort) ||
      (!scatter && l.count != 0) || l.mode != 0 || !library_supports(l.op, s.dtype) ||
      l.axis >= int64_t(s.extent.size()))
    corrupt("library step");
  const int64_t elements = checked_elements(s.extent);
  const auto item = int64_t(itemsize(s.dtype));
  if (scatter) {
    std::vector<int64_t> updates = s.extent;
    updates[size_t(l.axis)] = l.count;
    if (bytes[size_t(s.inputs[0])] != elements * item ||
        bytes[size_t(s.inputs[1])] != checked_elements({l.count}) * 8 ||
        bytes[size_t(s.inputs[2])] != checked_elements(updates) * item)
      corrupt("library operand");
  } else {
    for (int in : s.inputs)
      if (bytes[size_t(in)] != elements * item) corrupt("library operand");
  }
  const size_t out_item = l.op == LibraryOp::ArgSort ? 8
                          : l.op == LibraryOp::Fft   ? 2 * itemsize(s.dtype) // complex
                                                     : itemsize(s.dtype);
  if (s.out_bytes[0] != size_t(elements) * out_item) corrupt("library output");
}

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

// Fields a kind does not use hold their defaults (JX_AOT_STEP_FIELDS).
void validate_unused(const Step &s) {
  static const Step defaults{};
#define JX_AOT_UNUSED(field, coding, kinds, name)                                                  \
  if (!((kinds) >> uint32_t(s.kind) & 1) && !(s.field == defaults.field))                          \
    corrupt(std::string(name) + (s.kind == Kind::Argument ? " on an " : " on a ") +                \
            step_kind_name(s.kind) + " step");
  JX_AOT_STEP_FIELDS(JX_AOT_UNUSED)
#undef JX_AOT_UNUSED
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

// The object's tables, taken in the order the steps use them (a control step's regions' in its
// place, depth first).
struct Tables {
  const jx_aot_object &o;
  KernelInfo info;
  int64_t kernels = 0, constants = 0;
};

std::vector<int64_t> validate_program(const Program &p, const std::vector<int64_t> &arg_bytes,
                                      Tables &t);

// A loop's or branch's inputs and regions against what run_while, run_case and run_scan do with
// them: inputs in buffers of their own, each region's arguments and results of the sizes the
// step hands it and takes from it.
void validate_control(const Step &s, const std::vector<int64_t> &bytes,
                      const std::vector<int64_t> &arena_offset, Tables &t) {
  std::vector<int64_t> in, out(s.out_bytes.begin(), s.out_bytes.end());
  for (int slot : s.inputs) {
    if (arena_offset[size_t(slot)] != -1) corrupt("control step input in the arena");
    in.push_back(bytes[size_t(slot)]);
  }
  for (const auto &region : s.regions)
    if (!region) corrupt("regions");
  auto region = [&](size_t k, const std::vector<int64_t> &args) {
    if (s.regions[k]->argument_bytes != args) corrupt("region arguments");
    return validate_program(*s.regions[k], args, t);
  };
  const auto carries = size_t(s.carries);
  switch (s.kind) {
  case Kind::While: {
    if (s.regions.size() != 2 || carries < 1 || carries > in.size()) corrupt("loop");
    const std::vector<int64_t> carried(in.begin(), in.begin() + std::ptrdiff_t(carries));
    if (region(0, in) != std::vector<int64_t>{1}) corrupt("loop condition");
    if (region(1, in) != carried || out != carried) corrupt("loop carries");
    break;
  }
  case Kind::Case: {
    if (s.regions.empty() || in.empty() || in[0] != 4) corrupt("branch index");
    const std::vector<int64_t> operands(in.begin() + 1, in.end());
    for (size_t k = 0; k < s.regions.size(); ++k)
      if (region(k, operands) != out) corrupt("branch results");
    break;
  }
  default: { // Scan
    const auto xs = size_t(s.xs);
    if (s.regions.size() != 1 || carries + xs > in.size() || out.size() < carries) corrupt("scan");
    // Rows of each xs; a scan of length 0 reads none, and its body says what a row would be.
    std::vector<int64_t> args = in;
    const std::vector<int64_t> &declared = s.regions[0]->argument_bytes;
    if (declared.size() != in.size()) corrupt("region arguments");
    for (size_t k = carries; k < carries + xs; ++k) {
      if (s.length > 0 ? in[k] % s.length != 0 : in[k] != 0) corrupt("scanned input");
      args[k] = s.length > 0 ? in[k] / s.length : declared[k];
    }
    const std::vector<int64_t> results = region(0, args);
    if (results.size() != out.size()) corrupt("scan outputs");
    for (size_t k = 0; k < out.size(); ++k) {
      int64_t stacked = 0;
      if (k < carries ? results[k] != in[k] || out[k] != in[k]
                      : __builtin_mul_overflow(results[k], s.length, &stacked) || stacked != out[k])
        corrupt("scan outputs");
    }
  }
  }
}

// What run() relies on: every slot written once before it is read and not read after it is
// freed, sizes that agree with the arguments', the extents, the arena and the object's kernels
// and constants, indices inside their tables, boxes inside their extents, arguments loaded once
// each and in order, regions that take and give what their steps hand them. Returns the sizes
// of the program's outputs.
std::vector<int64_t> validate_program(const Program &p, const std::vector<int64_t> &arg_bytes,
                                      Tables &t) {
  const auto slots = size_t(p.slot_count);
  if (p.slot_count < 0 || p.arena_offset.size() != slots) corrupt("slot table");
  if (p.arena_bytes > (size_t(1) << 62)) corrupt("arena size");
  const jx_aot_object &o = t.o;
  constexpr int64_t unwritten = -1, freed = -2;
  std::vector<int64_t> bytes(slots, unwritten); // per live slot, its size
  auto live = [&](int slot) {
    if (slot < 0 || size_t(slot) >= slots) corrupt("slot out of range");
    if (bytes[size_t(slot)] == unwritten) corrupt("slot read before it is written");
    if (bytes[size_t(slot)] == freed) corrupt("slot read after it is freed");
  };
  constexpr auto align = int64_t(Buffer::alignment);
  std::vector<std::pair<int, int64_t>> in_arena; // live slots in the arena, with their ends
  int64_t arena_end = 0;
  int64_t last_argument = -1;
  bool past_arguments = false;
  std::vector<int64_t> argument_slot(slots, -1); // per slot: the argument it holds, or -1
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
    const bool control = (control_kinds >> uint32_t(s.kind)) & 1;
    const bool single = s.kind != Step::Kind::Kernel && !control;
    if ((s.outs.empty() && !control) || (single && s.outs.size() != 1)) corrupt("step outputs");
    if (s.kind != Step::Kind::Argument && s.out_bytes.size() != s.outs.size())
      corrupt("step output sizes");
    if (s.kind == Step::Kind::Argument) {
      // Each argument loaded once, before any other step, in order: two arguments' positions
      // swapped are an error, not a run with the wrong values.
      if (past_arguments || s.argument <= last_argument) corrupt("argument order");
      last_argument = s.argument;
      if (!s.outs.empty() && s.outs[0] >= 0 && size_t(s.outs[0]) < slots)
        argument_slot[size_t(s.outs[0])] = s.argument;
    } else {
      past_arguments = true;
    }
    for (size_t r = 0; r < s.outs.size(); ++r) {
      const int out = s.outs[r];
      if (out < 0 || size_t(out) >= slots) corrupt("slot out of range");
      if (bytes[size_t(out)] != unwritten) corrupt("slot written twice");
      int64_t size = 0;
      if (s.kind == Step::Kind::Argument) {
        if (s.argument < 0 || size_t(s.argument) >= arg_bytes.size())
          corrupt("argument out of range");
        size = arg_bytes[size_t(s.argument)];
      } else {
        if (s.out_bytes[r] > (size_t(1) << 62)) corrupt("step output sizes");
        size = int64_t(s.out_bytes[r]);
      }
      const int64_t offset = p.arena_offset[size_t(out)];
      const bool computed = s.kind == Step::Kind::Fill || s.kind == Step::Kind::Contraction ||
                            s.kind == Step::Kind::Library;
      // Control steps' results are the buffers their regions return.
      const bool own_buffer = (single && !computed) || control;
      if (offset < -1 || (offset >= 0 && (own_buffer || offset > int64_t(p.arena_bytes) - size ||
                                          offset % int64_t(Buffer::alignment) != 0)))
        corrupt("arena offset");
      if (offset >= 0) {
        // Whole cache lines, as the JIT places them, apart from every other live slot's but an
        // input of the same lines that a one-output kernel or a scatter frees (it writes over it
        // in place).
        const int64_t end = offset + (size + align - 1) / align * align;
        const bool over = s.kind == Step::Kind::Kernel || s.update_input >= 0;
        auto taken_over = [&](int slot, int64_t other_end) {
          return over && s.outs.size() == 1 && p.arena_offset[size_t(slot)] == offset &&
                 other_end == end && std::count(s.frees.begin(), s.frees.end(), slot) == 1;
        };
        for (const auto &[slot, other_end] : in_arena)
          if (offset < other_end && p.arena_offset[size_t(slot)] < end &&
              !taken_over(slot, other_end))
            corrupt("arena slots overlap");
        in_arena.emplace_back(out, end);
        arena_end = std::max(arena_end, end);
      }
      bytes[size_t(out)] = size;
    }
    // Each donation names an argument, the slot its step loaded it into, of the output's size.
    if ((!s.donors.empty() && s.donors.size() != s.outs.size()) ||
        s.donor_slots.size() != s.donors.size())
      corrupt("donations");
    for (size_t r = 0; r < s.donors.size(); ++r) {
      if ((s.donors[r] < 0) != (s.donor_slots[r] < 0)) corrupt("donations");
      if (s.donors[r] < 0) continue;
      const int from = s.donor_slots[r];
      if (size_t(s.donors[r]) >= arg_bytes.size() || size_t(from) >= slots ||
          argument_slot[size_t(from)] != s.donors[r] ||
          arg_bytes[size_t(s.donors[r])] != int64_t(s.out_bytes[r]))
        corrupt("donations");
    }
    switch (s.kind) {
    case Step::Kind::Value:
      // The constant the table holds is as large as the step says, and aligned as buffers are.
      if (t.constants >= o.num_constants ||
          o.constant_bytes[t.constants] != int64_t(s.out_bytes[0]) ||
          (s.out_bytes[0] > 0 && !o.constants[t.constants]) ||
          reinterpret_cast<uintptr_t>(o.constants[t.constants]) % Buffer::alignment != 0)
        corrupt("constant table");
      ++t.constants;
      break;
    case Step::Kind::Argument: break;
    case Step::Kind::Library: validate_library(s, bytes); break;
    case Step::Kind::Fill:
      if (!is_floating(s.dtype) || s.out_bytes[0] != byte_size(s.dtype, s.extent))
        corrupt("random fill");
      break;
    case Step::Kind::While:
    case Step::Kind::Case:
    case Step::Kind::Scan: validate_control(s, bytes, p.arena_offset, t); break;
    case Step::Kind::Contraction:
      validate_contraction(s, bytes);
      if (checked_elements(s.extent) != s.gemm.batch * s.gemm.m * s.gemm.n)
        corrupt("contraction extent");
      break;
    case Step::Kind::Kernel: {
      const size_t rank = s.extent.size();
      const int64_t elements = checked_elements(s.extent);
      // Every output has the extent's elements, of 1, 4 or 8 bytes; the rows run over axis 0. An
      // update's output 0 is its operand's size, the extent the update's (a loop run step by step
      // in the kernel: its other outputs are its other carries, the extent one step's, none).
      if (s.update_input >= 0) {
        if (s.outs.empty() || size_t(s.update_input) >= s.inputs.size() ||
            bytes[size_t(s.inputs[size_t(s.update_input)])] != int64_t(s.out_bytes[0]) ||
            int64_t(s.out_bytes[0]) < elements)
          corrupt("kernel update");
      } else {
        for (size_t bytes_out : s.out_bytes)
          if (bytes_out != size_t(elements) && bytes_out != size_t(4 * elements) &&
              bytes_out != size_t(8 * elements))
            corrupt("kernel output sizes");
      }

      if (!s.kernel && elements > 0) corrupt("kernel missing");
      // Inputs distinct: the kernel reads each of its parameters from its own buffer.
      if (std::set<int>(s.inputs.begin(), s.inputs.end()).size() != s.inputs.size())
        corrupt("kernel inputs repeated");
      if (s.kernel) {
        if (t.kernels >= o.num_kernels || !o.kernels[t.kernels]) corrupt("kernel table");
        t.info.check(s, bytes);
        ++t.kernels;
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
  std::vector<int64_t> out;
  for (int slot : p.outputs) {
    live(slot);
    out.push_back(bytes[size_t(slot)]);
  }
  return out;
}

} // namespace

std::vector<int64_t> argument_sizes(const Signature &signature) {
  std::vector<int64_t> sizes;
  for (const ArraySpec &a : signature.args)
    sizes.push_back(int64_t(byte_size(a)));
  return sizes;
}

// The program against the signature and the object's tables, each entry of which it uses once.
void validate(const Decoded &d, const jx_aot_object &o) {
  if (o.num_kernels < 0 || (o.num_kernels > 0 && !o.kernels) || o.num_constants < 0 ||
      (o.num_constants > 0 && (!o.constants || !o.constant_bytes)))
    corrupt("object tables");
  const std::vector<int64_t> args = argument_sizes(d.signature);
  if (d.program.argument_bytes != args) corrupt("argument sizes");
  Tables t{o, KernelInfo(o)};
  const std::vector<int64_t> results = validate_program(d.program, args, t);
  if (t.kernels != o.num_kernels || t.constants != o.num_constants || !t.info.done())
    corrupt("table sizes");
  if (results.size() != d.signature.results.size()) corrupt("result count");
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i] != int64_t(byte_size(d.signature.results[i]))) corrupt("result size");
}

// The object's kernels and constants bound to the validated program's steps, in the order
// validate took them; tasks split for `threads`.
void bind(Program &p, const jx_aot_object &o, size_t &kernel, size_t &constant, int64_t threads) {
  for (Step &s : p.steps) {
    if (s.kernel) s.kernel = o.kernels[kernel++];
    if (s.kind == Step::Kind::Value) {
      BufferPtr value = Buffer::borrow(const_cast<void *>(o.constants[constant++]), s.out_bytes[0]);
      s.value = [value] { return value; };
    }
    s.tasks = s.kind == Step::Kind::Contraction
                  ? gemm_tiles(s.gemm, gemm_parallelism())
                  : split_boxes(s.boxes, s.extent.size(), s.box_work, threads);
    // Decoded regions are made mutable (get_program) and shared only once bound.
    for (const auto &region : s.regions)
      bind(const_cast<Program &>(*region), o, kernel, constant, threads);
  }
}

} // namespace jx::runtime::aot::format
