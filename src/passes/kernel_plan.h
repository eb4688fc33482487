// A fused kernel as fusion plans it and the code generator emits it: the root expressions it
// writes, the materialized nodes it reads (its parameters), and the loop structure. No LLVM types
// here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/node.h"
#include "runtime/program.h"

namespace jx::passes {

// The compiled kernel (runtime::KernelFn) is called so: buffers[r] is root r's output,
// buffers[roots + k] is input k, and the last buffer holds the kernel's literal values (8 bytes
// each: a double for float literals, an int64 otherwise), so a changed constant reuses the compiled
// code. The kernel computes the box of its output given by box = {lo_0, hi_0, lo_1, hi_1, ...}
// (nothing for a 0-d output); it reads the bounds of its boxed axes only and covers the others
// whole.
struct KernelPlan {
  // What the kernel writes, one output buffer each: a reduction or contraction alone,
  // elementwise values of one shape computed in one loop nest, or row reductions over the same
  // axes of operands of one shape accumulated together (multi-output fusion: what they share is
  // computed once per element).
  std::vector<ir::NodePtr> roots;
  // Nodes read from memory (constants, realized values, outputs of earlier kernels), in
  // parameter order. Everything else reachable from the roots is computed inline.
  std::vector<const ir::Node *> inputs;
  // Literal nodes computed inline, in the order of the literal buffer. Their values are not part
  // of the structural key.
  std::vector<const ir::Node *> literals{};
  // Output axes whose range the caller chooses (bit a for axis a): axis 0, split into chunks for
  // the thread pool, and the axes a sharding splits across devices.
  uint64_t boxed_axes = 1; // a bit per axis of up to max_rank (64)
  // Elementwise outputs written with streaming (non-temporal) stores: set by the compile driver
  // for large outputs that no later step of the program reads, whose lines would only evict
  // what is in the caches and cost a read-for-ownership each.
  bool stream_outputs = false;
  // Its root is work fusion hoisted out from under an expanding broadcast (computed once per
  // distinct element into a buffer of its own): pictures of the plan mark it. Not in the key.
  bool hoisted = false;
  // The root is an update (dynamic_update_slice, slice_update) of input 0 of its op, a kernel
  // input, whose contents the output buffer already holds (the same memory when the update runs in
  // place, else a copy the runtime makes first): the kernel loops over the update's elements only
  // and stores each at its place, so it costs the update's size, not the array's. Set by buffer
  // assignment where update_in_place holds.
  bool updates_operand = false;
  // Its roots are the results of a loop run step by step inside the kernel (sequential_loop_veto):
  // each carry the loop changes lives in its output buffer, each step storing its update there;
  // root 0's output holds its carry's initial value already (updates_operand), the kernel copies
  // the others' in first. Its 0-d carries live in registers; the carries it leaves as they are are
  // read from their initial values. Set by fusion.
  bool sequential_loop = false;
  // Such a loop's split (sequential_loop_split): {the extent of its carries' axis
  // loop_split_axis}, the kernel's index space. Split along axis 0, the kernel runs the whole loop
  // for each row of its box in turn; along another axis, once over its box's part. Empty: one
  // task runs it all.
  Shape loop_split{};
  size_t loop_split_axis = 0;
  bool loop_row_by_row = false; // runs_row_by_row, decided once by fusion
  // In a multi-process program, the extent of the window of its array that each input's buffer
  // and the outputs' buffers hold (the strides the kernel indexes them with; global indices still
  // address them, through the window's base); none: the whole array.
  std::vector<std::optional<Shape>> input_windows{};
  std::optional<Shape> output_window{};

  bool boxed(size_t axis) const { return axis < 64 && (boxed_axes >> axis & 1); }

  // Collects `literals` from the inlined part of the graph (call once inputs are set).
  void collect_literals();
  // The literal buffer's contents for this plan's literals.
  std::vector<uint64_t> literal_values() const;

  // The index space the kernel loops over: the roots' shape, or the update's of an update.
  const Shape &loop_shape() const;
  // Rows of the outermost loop, the unit the runtime splits across threads.
  int64_t outer_extent() const;
  // The nodes the kernel computes inline (its roots and what they read short of its inputs):
  // what its code's size grows with.
  size_t inline_node_count() const;
  // Those nodes, depth first from the roots.
  std::vector<const ir::Node *> inline_nodes() const;
  // A text key equal for two plans exactly when they compile to the same code (node identities
  // and constant data do not enter it).
  std::string structural_key() const;
};

// Whether `plan`'s root may be written as an update of its operand (updates_operand): one root, a
// dynamic_update_slice or slice_update of a kernel input x, whose starts do not read x and whose
// update reads x only at the element it overwrites (through elementwise ops and a slice of x at
// the same starts and steps), so writing the update into x's own memory changes nothing the
// kernel reads later.
// `outer` maps params of a loop body that the plan runs in to the loop's operands they stand for
// (a start computed before the loop is one captured param for the read, another for the write).
using NodeMap = std::unordered_map<const ir::Node *, const ir::Node *>;
bool update_in_place(const KernelPlan &plan, const NodeMap &outer = {});
// The kernel input whose contents an updating plan's output starts as (updates_operand): the
// updated operand of an update, the initial value of a sequential loop's updated carry.
const ir::Node *updated_operand(const KernelPlan &plan);

// Why a scan cannot run inside a kernel, or "" where it can: one loop per element of its carries'
// shape, the carries in registers, instead of the runtime running its body as a program each
// step. It can when it scans no xs, stacks no outputs, and its body computes each carry of the
// carries' shape from the carries at the same element (elementwise ops), and each 0-d carry (a
// fori_loop's counter) from 0-d carries alone, reading what it captures anywhere (a table indexed
// by the counter) and holding no reduction, contraction, library call or loop of its own.
std::string scan_kernel_veto(const ir::Node &scan);
// Why a loop (a scan of no xs and no stacked outputs, or a while) cannot run step by step inside
// one kernel, or "" where it can: a body that changes its array carries each by
// dynamic_update_slices or slice_updates (one, or a chain), or replaces one whole where the loop
// splits (replaces_carry, sequential_loop_split), all small enough for one thread
// (runtime::min_chunk_elements) unless it splits, so the kernel stores each step's updates
// into the carries' memory; its 0-d carries (counters, bounds) computed from anything, in
// registers; no loop, library call or large reduction of its own (small ones, a dot product of a
// row, run inline). One update that writes one element or reads its carry only where it writes
// (update_in_place) is stored as it is computed; otherwise (several carries or updates, or a row
// read from another row) the step's updates are computed into stack temporaries first, so they
// must fit there. A carry's initial value read elsewhere too (captured, or another carry's) is
// copied, not written over (sequential_loop_writes_over_init).
std::string sequential_loop_veto(const ir::Node &loop);
// An axis of its changed carries along which such a loop's steps split, and its extent.
struct LoopSplit {
  size_t axis;
  int64_t extent;
};
// The first axis that splits, or none. An axis splits where every update a step stores covers it
// whole (the same extent, at least 2) and position i along it of what the body computes from
// those carries reads their position i alone (elementwise ops; slices, dynamic slices, updates
// whole along it; broadcasts, transposes, reshapes and reductions over other axes that keep it,
// wherever they move it), and no 0-d carry or while condition reads them. Then each part's steps
// depend on no other part's: the loop runs row by row along axis 0 (interchanged: a row's part of
// the carries stays in cache across steps, where step by step each step would stream them all),
// or over a part of another axis (deriche's row recursion split by columns), the parts over
// threads.
std::optional<LoopSplit> sequential_loop_split(const ir::Node &loop);
// Whether a loop so split runs row by row (each row's whole loop in turn) rather than step by
// step over its box's part of the axis: split along axis 0, where a row's part of a step fills a
// vector (vadv's rows of a plane) or the step's temporaries would not fit whole. One element a
// row (deriche's column recursion), row by row would be a chain of dependent scalar steps.
bool runs_row_by_row(const ir::Node &loop, const LoopSplit &split);
// Whether fusion splits it (KernelPlan::loop_split): row by row always (the interchange keeps a
// row in cache), step by step over parts where its steps write enough in all for two threads (a
// while's steps are unknown: it splits); otherwise one task runs it.
bool worth_splitting(const ir::Node &loop, const LoopSplit &split);
// The array carries such a loop changes, in order.
std::vector<size_t> sequential_loop_carries(const ir::Node &loop);
// Whether a loop run step by step (sequential_loop) may write its first carry's steps over that
// carry's initial value (updates_operand): nothing else the kernel computes reads the value (a
// captured arange's start may be the very zeros node the carry starts as). Otherwise the kernel
// copies it into its output first, as it does its other carries.
bool sequential_loop_writes_over_init(const KernelPlan &plan);
// A while's or scan's body (a while's second region; its first is the condition).
const ir::Region &loop_body(const ir::Node &loop);
// Whether a reduction or contraction kept as a loop accumulates into rows of its output (its
// reduced axes not the innermost), rather than one output element at a time: the reduction loops
// sit outside the loop over the last output axis, which then has no loop-carried dependence and
// vectorizes, and whatever does not depend on it (LICM) is computed once per row.
bool accumulates_rows(const ir::Node &root);
// Whether n is an update of part of its operand (dynamic_update_slice, slice_update).
bool is_update(const ir::Node &n);
// The updates that change carry k, first to last (a chain: x.at[i].set(a).at[j].set(b)); none
// where it changes otherwise.
std::vector<const ir::Node *> sequential_loop_updates(const ir::Node &loop, size_t k);
// Whether a step replaces carry k whole (x.at[:].set(v) is v; an update of another array) rather
// than updating it.
bool replaces_carry(const ir::Node &loop, size_t k);
// What a step writes into carry k: its updates' values in order, or the replacement whole.
std::vector<const ir::Node *> sequential_loop_writes(const ir::Node &loop, size_t k);
// Elements a step writes into the carries it changes, in all.
int64_t sequential_loop_written(const ir::Node &loop);
// Whether carry k's one update may be stored as it is computed (update_in_place), reading the
// carries stored before it in sequential_loop_order from their buffers.
bool sequential_update_in_place(const ir::Node &loop, size_t k);
// An order in which a step may store its carries one after another (each carry's updates computed,
// then stored, before the next's are computed), or none: each carry's updates read the carries
// stored before it only as they end the step (from their buffers) and those stored after it only
// as they began it (jacobi_1d's B from A, then A from the new B).
std::vector<size_t> sequential_loop_order(const ir::Node &loop);
// Whether a step computes some update into a temporary before storing it: carries with no such
// order, or an update that is not in place.
bool sequential_loop_staged(const ir::Node &loop);
// A scan's carries' shape: its first carry's that is not 0-d, or 0-d.
Shape scan_carry_shape(const ir::Node &scan);
// The values with memory of their own that a region's nodes read (constants, realized values):
// a kernel running the region reads them as inputs.
bool is_region_buffer(const ir::Node &n);
std::vector<ir::NodePtr> region_buffers(const ir::Region &region);

} // namespace jx::passes
