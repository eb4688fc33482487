// A compiled program as the runtime runs it: numbered buffer slots, and steps that fill them
// (values that exist already, arguments, random fills, generated kernels over boxes of their
// outputs, contractions through BLAS, and library routines: sorts, cumulative sums). The JIT builds
// one per executable; ahead-of-time objects carry one encoded (runtime/aot.h). No LLVM and no graph
// here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <jx/dtype.h>

#include "runtime/buffer.h"
#include "runtime/collectives.h"
#include "runtime/gemm.h"
#include "runtime/library.h"

namespace jx::runtime {

// A generated kernel: computes the box {lo_0, hi_0, lo_1, hi_1, ...} of its outputs from
// buffers = {outputs..., inputs..., literal values}.
using KernelFn = void (*)(const int64_t *box, void *const *buffers);

struct Program;

// Ahead-of-time objects carry a step's fields as runtime/aot_format.h's JX_AOT_STEP_FIELDS lists
// them.
struct Step {
  enum class Kind { Value, Argument, Fill, Kernel, Contraction, While, Case, Scan, Library } kind;
  std::vector<int> outs{};         // slots written
  std::vector<size_t> out_bytes{}; // Fill, Kernel: the size of each output
  std::vector<int> frees{};        // slots whose last reader is this step
  // Value: the buffer (a constant, a realized value; the callback may refuse a deleted one).
  std::function<BufferPtr()> value{};
  int argument = 0; // Argument: its position
  // Fill: jax.random.uniform's [0, 1) values of `extent` for the key (hi, lo).
  uint32_t key_hi = 0, key_lo = 0;
  DType dtype = DType::float64; // Fill, Contraction, Library (its inputs')
  // Contraction: out = lhs . rhs for inputs {lhs, rhs}, in the tiles of gemm_tiles (tasks).
  Gemm gemm{};
  // Library: the routine run on the inputs (of dtype and shape extent) into the output.
  Library library{};
  // Kernel (null for an empty output).
  KernelFn kernel = nullptr;
  std::vector<int> inputs{};        // slots read
  std::vector<uint64_t> literals{}; // the literal buffer
  std::vector<int64_t> extent{};    // the output's shape (Fill, Library too)
  int64_t outer = 0, grain = 1;     // rows of axis 0, rows per chunk (no tasks)
  // Placed kernels: the devices' distinct boxes (2 * rank bounds each) and the elements visited
  // per output element; tasks is their split for the pool (split_boxes), one task each (in a
  // multi-process program, of this process's boxes only: none when it computes none). Empty:
  // row chunks. Contractions: tasks are their tiles (5 words each).
  std::vector<int64_t> boxes{};
  std::vector<int> box_devices{}; // the device of each box (the trace's)
  int64_t box_work = 1;
  std::vector<int64_t> tasks{};
  std::vector<int> donors{};      // per output: the donated argument it takes, or -1
  std::vector<int> donor_slots{}; // per output: that argument's slot
  // Kernel, Library: the input (an index into inputs) whose contents output 0 starts with, or -1:
  // the step writes an update of it alone (a scatter: its x, input 0). Where the output's memory
  // is not that input's own (it runs in place when the input dies here), the input is copied
  // into the output first (by the runtime for a kernel, by the scatter itself).
  int update_input = -1;
  // While: regions {cond, body}, each run on every input (the carries first), until cond gives
  // false; the outputs are the carries. Case: inputs {int32 index, operands...}; regions: the
  // branches, the index clamped into range. Scan: inputs {carries, xs, captured}; regions
  // {body}, run on the carries and row t of each xs for t in [0, length) (reversed: down),
  // writing the carries and row t of each stacked output (out_bytes: whole outputs). Their inputs
  // and outputs have buffers of their own.
  std::vector<std::shared_ptr<const Program>> regions{};
  int64_t carries = 0;        // While, Scan
  int64_t xs = 0, length = 0; // Scan
  bool reverse = false;       // Scan
  // Multi-process programs: the boxes this process sends and receives before the step. A placed
  // kernel's early_tasks read none of what it receives: they run while the messages are in
  // flight, its tasks after.
  Exchange exchange{};
  std::vector<int64_t> early_tasks{};
  std::string name{}; // what the trace calls the step (a kernel's symbol)
};

// A step kind's name (AOT's validation errors, the trace's step spans).
const char *step_kind_name(Step::Kind kind);

// Elements per parallel chunk below which splitting costs more than it gains.
inline constexpr int64_t min_chunk_elements = 1 << 14;

// Tasks for a pool of `threads`: each box split along axis 0 so that there are about 4 per thread
// in all (a device's box is one task when there are that many devices), none below
// min_chunk_elements of work. Boxes that tile a rectangle split as that rectangle (whole rows).
std::vector<int64_t> split_boxes(const std::vector<int64_t> &boxes, size_t rank,
                                 int64_t work_per_element, int64_t threads);

struct Program {
  std::vector<Step> steps{};
  std::vector<int> outputs;          // slots returned
  std::vector<int64_t> arena_offset; // per slot: offset in the per-call arena, or -1
  size_t arena_bytes = 0;
  int slot_count = 0;
  // Each argument's size: what an ahead-of-time object's validator checks a region's inputs
  // against (a scan of length 0 has no rows to measure its xs' by).
  std::vector<int64_t> argument_bytes{};
  // Multi-process programs (compile/distribute.cpp): the boxes exchanged after the last step so
  // that each output holds its addressable shards; per output, whether this process holds less
  // than the whole of it; the hash of the global program, the same on every process that
  // compiled the same function.
  bool distributed = false;
  // Per slot: its array's shape, element size and the window of it this process holds (kernels
  // are compiled for these windows' strides; a buffer that comes from elsewhere, an argument or
  // a region's result, is copied into the slot's window unless it serves it).
  struct Layout {
    Shape shape;
    size_t itemsize = 0;
    Window window;
  };
  std::vector<Layout> layouts{};
  Exchange gather{};
  std::vector<bool> partial_outputs{};
  uint64_t fingerprint = 0;
};

// A multi-process program's slot layouts: whether b serves code compiled for the slot; a buffer
// laid out as the slot; a copy of what b holds of the slot's window, laid out as the slot.
bool serves(const Buffer &b, const Program::Layout &layout);
BufferPtr make_buffer(const Program::Layout &layout);
BufferPtr refit(const Buffer &b, const Program::Layout &layout);
// Lays b out again, in place, as the hull of its window and the slot's, when that serves the slot
// (the same extent past axis 0); false, leaving b as it is, otherwise. Not while another thread
// reads b.
bool widen(Buffer &b, const Program::Layout &layout);

// Runs program on the default thread pool: one arena per call (so calls may overlap), kernels
// split into their tasks or into row chunks. Thread-safe. results: none, or per output the
// buffer to write it into, or null for anywhere (kernels write there directly; values that are
// not computed by this call are copied); the outputs returned are then those buffers.
// A donated argument's memory is taken by the output planned for it when nothing else holds the
// buffer: neither the caller's array nor anyone but args and the program (the first owned_args
// args: args alone, as a loop's carries, which the loop holds only there; not its rows of xs nor
// captured values, read again by later iterations). arena: memory of at least the
// program's arena_bytes for its intermediates, which no other call uses meanwhile (a loop's, for
// each iteration of its body), or null: a new one for this call.
std::vector<BufferPtr> run(const Program &program, const std::vector<BufferPtr> &args,
                           const std::vector<BufferPtr> &results = {}, size_t owned_args = 0,
                           Buffer *arena = nullptr);

} // namespace jx::runtime
