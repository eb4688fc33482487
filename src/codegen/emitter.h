// The kernel emitter's class, whose members are defined by concept: emit.cpp (the kernel's
// entry and its stores: plain, tiled, streamed), values.cpp (the values of inlined nodes: index
// arithmetic of movement ops, loads), reductions.cpp (reductions and contractions at the root),
// loops_in_kernels.cpp (updates of an operand, loops run step by step or over tiles inside the
// kernel); the loop nests, which every part builds, are templates here. Internal to codegen.
#pragma once

#include <jx/error.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/scalar.h"
#include "ir/builder.h"
#include "passes/kernel_plan.h"
#include "passes/reduction_interval.h"

namespace jx::codegen {

using ir::Node;
using ir::Op;
using ir::OpKind;
using llvm::Value;
using passes::KernelPlan;
using Index = std::vector<Value *>;

// A concatenate of one operand with itself, two or more times.
inline bool is_repeat(const Node &n) {
  return n.inputs.size() >= 2 && n.inputs[0]->shape[n.attrs[0]] > 0 &&
         std::all_of(n.inputs.begin(), n.inputs.end(),
                     [&](const ir::NodePtr &p) { return p == n.inputs[0]; });
}

// Loop nests, reductions and the values of inlined nodes; what one element of an op computes is
// ScalarCode's (scalar.h).
class Emitter : ScalarCode {
public:
  Emitter(llvm::Module &mod, const KernelPlan &plan) : ScalarCode(mod), plan_(plan) {
    for (size_t i = 0; i < plan.inputs.size(); ++i)
      param_[plan.inputs[i]] = plan.roots.size() + i;
    for (size_t i = 0; i < plan.literals.size(); ++i)
      literal_[plan.literals[i]] = i;
  }

  void emit(const std::string &name);

private:
  // Emits the loop nests once for each value of a 0-d bool the kernel selects on (through
  // broadcasts), branching on it at entry: each copy's selects on it fold away. pow's special
  // cases take this form (passes::simplify's exp_log_power), so the usual case loops without
  // them. Kernels without such a flag are emitted once.
  template <class F> void versioned(F &&nest) {
    const Node *flag = selecting_flag();
    if (!flag) return nest();
    Value *value_now = value(*flag, {});
    auto *on = llvm::BasicBlock::Create(ctx_, "version.on", fn_);
    auto *off = llvm::BasicBlock::Create(ctx_, "version.off", fn_);
    auto *done = llvm::BasicBlock::Create(ctx_, "version.done", fn_);
    b_.CreateCondBr(value_now, on, off);
    for (auto [block, taken] : {std::pair{on, true}, std::pair{off, false}}) {
      b_.SetInsertPoint(block);
      memo_.emplace_back();
      memo_.back()[{flag, Index{}}] = llvm::ConstantInt::get(value_now->getType(), taken);
      nest();
      memo_.pop_back();
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(done);
  }

  // ---- rolls: reads of concatenate([x, x]) at a wrapped index ----
  // A roll by a traced shift reads x twice end to end (roll_traced) at i + start, which wraps
  // once along the loop, where i + start reaches m: read through a select of two indices, the
  // loop gathers. Such loops run in chunks (Halide's loop partitioning, the point found at run
  // time): where every roll read of a chunk stays on one side of its wrap at the chunk's first
  // and last element, the chunk reads at a fixed offset, contiguously; the one chunk a wrap
  // crosses keeps the select. Both ends decide for the chunk only where each index is monotone
  // along the loop and computed in straight-line code, so kernels computing anything but
  // elementwise ops and the movements below keep the select everywhere.
  static bool is_roll(const Node &n) {
    return n.op == Op::Concatenate && n.inputs.size() == 2 && is_repeat(n);
  }

  bool monotone_indices(bool reduction_root) const;
  bool reads_rolls() const;

  // Runs run(lo, hi) over [begin, end) in chunks of `chunk` loop steps, each with its roll reads
  // at fixed offsets where that holds. probe(i, last) emits the value at loop step i (its first
  // element, or its last where `last`): dead code but for the roll indices it records.
  template <class P, class R>
  void roll_chunks(Value *begin, Value *end, int64_t chunk, P &&probe, R &&run) {
    if (!rolls_) return run(begin, end);
    loop(
        begin, end,
        [&](Value *lo) {
          Value *hi = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                               b_.CreateAdd(lo, c64(chunk), "", true, true), end);
          const auto first = roll_indices([&] { probe(lo, false); });
          const auto last = roll_indices([&] { probe(b_.CreateSub(hi, c64(1)), true); });
          if (first.size() != last.size()) throw Error("internal: roll probes disagree");
          Value *uniform = b_.getTrue();
          std::vector<Value *> offsets; // each read's, where the chunk does not cross its wrap
          for (size_t k = 0; k < first.size(); ++k) {
            Value *m = c64(roll_length(*first[k].first));
            Value *wrapped = b_.CreateICmpSGE(first[k].second, m);
            uniform = b_.CreateAnd(uniform,
                                   b_.CreateICmpEQ(wrapped, b_.CreateICmpSGE(last[k].second, m)));
            offsets.push_back(b_.CreateSelect(wrapped, m, c64(0)));
          }
          auto *fixed = llvm::BasicBlock::Create(ctx_, "roll.fixed", fn_);
          auto *wraps = llvm::BasicBlock::Create(ctx_, "roll.wraps", fn_);
          auto *done = llvm::BasicBlock::Create(ctx_, "roll.done", fn_);
          b_.CreateCondBr(uniform, fixed, wraps);
          auto run_chunk = [&](llvm::BasicBlock *block) {
            b_.SetInsertPoint(block);
            memo_.emplace_back();
            run(lo, hi);
            memo_.pop_back();
            b_.CreateBr(done);
          };
          for (size_t k = 0; k < first.size(); ++k)
            roll_offsets_.push_back({first[k].first, offsets[k]});
          run_chunk(fixed);
          if (roll_read_ != roll_offsets_.size()) throw Error("internal: roll reads disagree");
          roll_offsets_.clear();
          roll_read_ = 0;
          run_chunk(wraps);
          b_.SetInsertPoint(done);
        },
        chunk);
  }

  static int64_t roll_length(const Node &roll) { return roll.inputs[0]->shape[roll.attrs[0]]; }

  // The indices along their axis at which emit() reads rolls, in the order it reads them.
  template <class F> std::vector<std::pair<const Node *, Value *>> roll_indices(F &&emit) {
    std::vector<std::pair<const Node *, Value *>> found;
    roll_probe_ = &found;
    memo_.emplace_back();
    emit();
    memo_.pop_back();
    roll_probe_ = nullptr;
    return found;
  }

  // ---- pads: reads of a padded array, each under its bounds check ----
  // A stencil over a zero-padded grid reads its neighbours through pads: a masked load per
  // vector and the compares of its mask (the limit's loop reads plain vectors). Rows of such
  // kernels run in three parts (Halide's loop partitioning): the first and last pad_edge_ steps
  // as they are, and between them, where every pad read is inside its array at the part's first
  // and last step (so, each index monotone along the row, at every step), plain reads.
  bool reads_pads() const;
  // Runs run(lo, hi, edge) over [begin, end) in those parts (edge: one of the short first and last
  // ones); probe(i) emits the value at loop step i: dead code but for the bounds checks it
  // records.
  void pad_parts(Value *begin, Value *end, const std::function<void(Value *)> &probe,
                 const std::function<void(Value *, Value *, bool)> &run);

  // The first 0-d bool, not a literal, that a select of the kernel takes as its predicate
  // (through broadcasts); null if none.
  const Node *selecting_flag() const;

  // The first node the kernel computes (its roots and what they read short of its inputs, depth
  // first) for which found(node) holds, or null.
  template <class F> const Node *first_computed(F &&found) const {
    std::unordered_set<const Node *> seen;
    std::vector<const Node *> stack;
    for (const ir::NodePtr &root : plan_.roots)
      stack.push_back(root.get());
    while (!stack.empty()) {
      const Node *n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || param_.count(n)) continue;
      if (found(*n)) return n;
      for (const ir::NodePtr &in : n->inputs)
        stack.push_back(in.get());
    }
    return nullptr;
  }

  // The KernelFn-typed function: loads the buffer pointers and calls the body.
  void emit_entry_point(const std::string &name, size_t buffer_count);

  // ---- loops ----

  template <class F> llvm::BranchInst *loop(Value *begin, Value *end, F &&body, int64_t step = 1) {
    return loop_by(begin, end, body,
                   [&](Value *i) { return b_.CreateAdd(i, c64(step), "", true, true); });
  }

  // A loop whose next index is next(i); returns its latch's branch (for loop metadata).
  template <class F, class N>
  llvm::BranchInst *loop_by(Value *begin, Value *end, F &&body, N &&next) {
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    auto *header = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto *body_block = llvm::BasicBlock::Create(ctx_, "body", fn_);
    auto *exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode *i = b_.CreatePHI(i64_, 2);
    i->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), body_block, exit);
    b_.SetInsertPoint(body_block);
    memo_.emplace_back();
    body(static_cast<Value *>(i));
    memo_.pop_back();
    i->addIncoming(next(static_cast<Value *>(i)), b_.GetInsertBlock());
    llvm::BranchInst *latch = b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    return latch;
  }

  // A loop the vectorizer takes as it is (its calls to libm's vector variants), not unrolled
  // into scalar code first.
  template <class F> void vectorized_loop(Value *begin, Value *end, F &&body) {
    rolled(loop(begin, end, body), true);
  }

  // Marks a loop of a few steps to stay scalar and rolled: vectorizing it would only cost compile
  // time.
  void keep_scalar(llvm::BranchInst *latch) { rolled(latch, false); }

  // A loop's metadata: not unrolled, vectorized or not.
  void rolled(llvm::BranchInst *latch, bool vectorize) {
    llvm::MDNode *self = llvm::MDNode::getDistinct(
        ctx_, {nullptr,
               llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                        llvm::ConstantAsMetadata::get(b_.getInt1(vectorize))}),
               llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")})});
    self->replaceOperandWith(0, self);
    latch->setMetadata(llvm::LLVMContext::MD_loop, self);
  }

  // `length` steps of a loop whose values live in phis: step(values) emits one step (in a memo
  // scope of its own) and returns the next values. Returns the values after the last step.
  template <class F>
  std::vector<Value *> steps(int64_t length, const std::vector<Value *> &init, F &&step) {
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    auto *header = llvm::BasicBlock::Create(ctx_, "steps", fn_);
    auto *body_block = llvm::BasicBlock::Create(ctx_, "step", fn_);
    auto *exit = llvm::BasicBlock::Create(ctx_, "steps.exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode *t = b_.CreatePHI(i64_, 2);
    t->addIncoming(c64(0), pre);
    std::vector<Value *> values;
    for (Value *v : init) {
      llvm::PHINode *phi = b_.CreatePHI(v->getType(), 2);
      phi->addIncoming(v, pre);
      values.push_back(phi);
    }
    b_.CreateCondBr(b_.CreateICmpSLT(t, c64(length)), body_block, exit);
    b_.SetInsertPoint(body_block);
    memo_.emplace_back();
    const std::vector<Value *> next = step(values);
    memo_.pop_back();
    for (size_t i = 0; i < values.size(); ++i)
      llvm::cast<llvm::PHINode>(values[i])->addIncoming(next[i], b_.GetInsertBlock());
    t->addIncoming(b_.CreateAdd(t, c64(1), "", true, true), b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    return values;
  }

  // A while loop whose values live in phis: holds(values) emits its condition (a memo scope of
  // its own), step(values) one step, returning the next values. Returns the values it ends with.
  template <class C, class F>
  std::vector<Value *> while_steps(const std::vector<Value *> &init, C &&holds, F &&step) {
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    auto *header = llvm::BasicBlock::Create(ctx_, "while", fn_);
    auto *body_block = llvm::BasicBlock::Create(ctx_, "while.step", fn_);
    auto *exit = llvm::BasicBlock::Create(ctx_, "while.exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    std::vector<Value *> values;
    for (Value *v : init) {
      llvm::PHINode *phi = b_.CreatePHI(v->getType(), 2);
      phi->addIncoming(v, pre);
      values.push_back(phi);
    }
    memo_.emplace_back();
    Value *go = holds(values);
    memo_.pop_back();
    b_.CreateCondBr(go, body_block, exit);
    b_.SetInsertPoint(body_block);
    memo_.emplace_back();
    const std::vector<Value *> next = step(values);
    memo_.pop_back();
    for (size_t i = 0; i < values.size(); ++i)
      llvm::cast<llvm::PHINode>(values[i])->addIncoming(next[i], b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    return values;
  }

  // A flattened loop's index and the axis indices divided out of it (outermost first).
  struct Flat {
    Value *index;
    std::vector<Value *> parts;
    std::vector<int64_t> extents;
  };
  std::vector<Flat> flats_; // the flattened loops enclosing the emission point

  // One axis of a loop nest: its bounds, and whether they are the constants [0, extent).
  struct Span {
    size_t axis;
    Value *lo, *hi;
    int64_t extent;
    bool whole;
  };

  // Loops over spans (outermost first), setting idx[span.axis], then runs body(idx). Whole unit
  // axes are not loops (their index is 0), and past max_nest_depth levels the outer axes run as
  // one flattened loop divided back into them: LLVM's loop passes take time superlinear in the
  // depth (a rank-64 reduction compiled for seconds), and the inner loops, which vectorize, stay
  // as they were. Only the first axis of a flattened group may be boxed.
  template <class F> void span_nest(const std::vector<Span> &spans, Index &idx, F &&body) {
    std::vector<Span> live;
    for (const Span &sp : spans)
      if (sp.whole && sp.extent == 1)
        idx[sp.axis] = c64(0);
      else
        live.push_back(sp);
    std::vector<std::vector<Span>> levels;
    for (size_t i = 0; i < live.size();) {
      const size_t left = max_nest_depth > levels.size() ? max_nest_depth - levels.size() : 1;
      const size_t take = live.size() - i > left ? live.size() - i - left + 1 : 1;
      std::vector<Span> group{live[i++]};
      while (group.size() < take && live[i].whole && live[i].extent > 0 && group[0].extent != 0)
        group.push_back(live[i++]);
      levels.push_back(std::move(group));
    }
    span_levels(levels, 0, idx, body);
  }

  template <class F>
  void span_levels(const std::vector<std::vector<Span>> &levels, size_t level, Index &idx,
                   F &&body) {
    if (level == levels.size()) {
      body(idx);
      return;
    }
    const std::vector<Span> &group = levels[level];
    int64_t inner = 1; // elements of the group's axes after its first
    for (size_t k = 1; k < group.size(); ++k)
      inner *= group[k].extent;
    Value *lo = group[0].lo, *hi = group[0].hi;
    if (inner > 1) {
      lo = b_.CreateMul(lo, c64(inner), "", true, true);
      hi = b_.CreateMul(hi, c64(inner), "", true, true);
    }
    loop(lo, hi, [&](Value *i) {
      Flat flat{i, std::vector<Value *>(group.size()), {}};
      for (size_t k = group.size(); k-- > 1;) {
        idx[group[k].axis] = flat.parts[k] = b_.CreateURem(i, c64(group[k].extent));
        i = b_.CreateUDiv(i, c64(group[k].extent));
      }
      idx[group[0].axis] = flat.parts[0] = i;
      for (const Span &sp : group)
        flat.extents.push_back(sp.extent);
      flats_.push_back(std::move(flat));
      span_levels(levels, level + 1, idx, body);
      flats_.pop_back();
    });
  }

  // Spans of the output axes [first, stop) within the kernel's box.
  std::vector<Span> box_spans(size_t first, size_t stop);

  // Loops over the output axes [axis, stop) within the kernel's box (stop -1: the rank),
  // extending idx.
  template <class F> void box_nest(size_t axis, Index idx, F &&body, size_t stop = size_t(-1)) {
    stop = std::min(stop, bounds_.size());
    idx.resize(stop);
    span_nest(box_spans(axis, stop), idx, body);
  }

  // One tile of a tiled nest: its rows along the tiled axis and its columns along the last.
  struct Tile {
    Value *row_begin, *row_end, *col_begin, *col_end;
  };

  // Loops over the box in tiles of the tiled axis and the last one (tile_axis_): a tile's reads
  // of a transposed input stay within a few cache lines while its stores run along rows.
  // body(idx, tile) runs per element, after_tile(idx, tile) once a tile is done.
  template <class F, class G = std::nullptr_t>
  void tiled_box_nest(F &&body, G &&after_tile = nullptr) {
    // The last axis's tiles run outermost (at the tiled axis's place), so consecutive tiles read
    // the same rows of the transposed input further along: each of its rows is read in order.
    const size_t tiled = size_t(tile_axis_), last = bounds_.size() - 1;
    auto end_of = [&](Value *start, size_t a) {
      Value *end = b_.CreateAdd(start, c64(tile_edge), "", true, true);
      return b_.CreateSelect(b_.CreateICmpSLT(end, bounds_[a].second), end, bounds_[a].second);
    };
    Index idx(bounds_.size());
    span_nest(box_spans(0, tiled), idx, [&](Index &) {
      loop(
          bounds_[last].first, bounds_[last].second,
          [&](Value *col_start) {
            span_nest(box_spans(tiled + 1, last), idx, [&](Index &) {
              loop(
                  bounds_[tiled].first, bounds_[tiled].second,
                  [&](Value *tiled_start) {
                    const Tile tile{tiled_start, end_of(tiled_start, tiled), col_start,
                                    end_of(col_start, last)};
                    loop(tile.row_begin, tile.row_end, [&](Value *i) {
                      loop(tile.col_begin, tile.col_end, [&](Value *j) {
                        Index inner = idx;
                        inner[tiled] = i;
                        inner[last] = j;
                        body(inner, tile);
                      });
                    });
                    if constexpr (!std::is_same_v<std::decay_t<G>, std::nullptr_t>)
                      after_tile(idx, tile);
                  },
                  tile_edge);
            });
          },
          tile_edge);
    });
  }

  // An update of the operand the output already holds: each element of the update (the loops'
  // index space) stored at its place, start + step * index, the starts clamped as the op's.
  void emit_update(const std::vector<int64_t> &strides);

  // Where update `root` writes element idx of its update: its starts (clamped) plus idx times its
  // steps.
  std::function<Index(const Index &)> update_places(const Node &root);

  // Stores update `root`'s elements at their places in output `out`, over the update's index
  // space as `over` loops it.
  template <class Over>
  void store_update(const Node &root, size_t out, const std::vector<int64_t> &strides,
                    Over &&over) {
    const auto place = update_places(root);
    over([&](const Index &idx) {
      store_element(pointers_[out], root.dtype, linear(place(idx), strides),
                    value(*root.inputs[1], idx));
    });
  }

  // A loop run step by step inside the kernel (passes::sequential_loop_veto): the carries it
  // changes live in the outputs (output 0 holds its initial value already, the others are copied
  // in first). Each step computes its 0-d carries' next values (phis), then stores its updates
  // carry by carry in passes::sequential_loop_order's order (a carry stored earlier is read from
  // its output), each update as it is computed where it is in place, else through a stack
  // temporary; with no such order, every update goes through a temporary before any store. The
  // carries it leaves as they are, and what it captures, are read from the loop's operands; the
  // 0-d carries read after it are stored last. A loop split along axis 0 (KernelPlan::loop_split)
  // does all this for each row of its box in turn, over that row's part of each carry; split
  // along another axis, once over its box's part of that axis. The part at 0 stores the 0-d
  // carries.
  void emit_sequential_loop();

  // The scan whose results are this kernel's roots, or null.
  const Node *kernel_scan() const;

  // A scan run inside the kernel over tiles of its carries: scan_tile elements along the last
  // axis of each carry of the carries' shape in a stack buffer, the whole loop run over the tile,
  // each step an inner loop over the tile's elements, which the vectorizer turns into vector code
  // (element by element, each step would wait for the previous one's latency, in scalar code);
  // the 0-d carries (a counter) once per step, in registers. Then the tile's results are stored.
  void emit_scan_tiles(const Node &scan, const std::vector<int64_t> &strides);

  // Whether the kernel writes its outputs with streaming stores (the driver asks for it where
  // they are large and no later step reads them): elementwise roots that are not bool, whose
  // tile rows and row chunks are whole cache lines (not bool, int8 or uint8), not complex (a
  // vector of pairs is no LLVM type). Streamed, a 4096^2
  // float64 transpose + 1 on 2 threads takes 7.8 ms against 21.9 with ordinary stores, whose
  // read-for-ownership of each line costs more than the read of the input (memcpy: 9.5 ms, a
  // streamed copy 5.6 ms).
  bool streams() const;

  // A stack buffer of `count` elements per output, cache-line aligned.
  std::vector<llvm::AllocaInst *> stack_buffers(int64_t count);

  // Every root's value at idx, stored into buffers at element `at`.
  void store_to_buffers(const std::vector<llvm::AllocaInst *> &buffers, const Index &idx,
                        Value *at) {
    std::vector<Value *> values;
    for (const ir::NodePtr &root : plan_.roots)
      values.push_back(root_value(*root, idx));
    for (size_t r = 0; r < values.size(); ++r)
      store_element(buffers[r], plan_.roots[r]->dtype, at, values[r]);
  }

  // The tiled nest computing each tile into a stack buffer per output, then copying its rows out
  // with streaming stores, and a fence so the stores are visible before the kernel returns.
  void emit_streamed_tiles(const std::vector<int64_t> &strides);

  // The box row by row, each row in chunks of row_chunk elements computed into a stack buffer and
  // copied out with streaming stores. Chunks end at multiples of row_chunk in the output's flat
  // index, so that all but a row's first start on a cache line.
  void emit_streamed_rows(const std::vector<int64_t> &strides);

  // Copies width elements from buffer[from] to output r at element `at`: whole cache lines with
  // streaming stores when width is the full `count` and the destination is cache-line aligned
  // (the runtime's buffers are; an AOT caller's may not be), else element by element.
  void copy_row(llvm::AllocaInst *buffer, Value *from, size_t r, Value *at, Value *width,
                int64_t count) {
    const DType t = plan_.roots[r]->dtype;
    llvm::Type *elem = mem_type(t);
    Value *src = b_.CreateInBoundsGEP(elem, buffer, from);
    Value *dst = b_.CreateInBoundsGEP(elem, pointers_[r], at);
    Value *aligned =
        b_.CreateICmpEQ(b_.CreateAnd(b_.CreatePtrToInt(dst, i64_), c64(cache_line - 1)), c64(0));
    auto *stream = llvm::BasicBlock::Create(ctx_, "stream", fn_);
    auto *plain = llvm::BasicBlock::Create(ctx_, "plain", fn_);
    auto *done = llvm::BasicBlock::Create(ctx_, "copied", fn_);
    b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpEQ(width, c64(count)), aligned), stream, plain);

    b_.SetInsertPoint(stream);
    const int64_t lanes = cache_line / int64_t(itemsize(t));
    auto *line = llvm::FixedVectorType::get(elem, unsigned(lanes));
    auto *nontemporal = llvm::MDNode::get(ctx_, {llvm::ConstantAsMetadata::get(b_.getInt32(1))});
    for (int64_t k = 0; k < count; k += lanes) {
      Value *v = b_.CreateAlignedLoad(line, b_.CreateConstInBoundsGEP1_64(elem, src, k),
                                      llvm::Align(cache_line));
      llvm::StoreInst *s = b_.CreateAlignedStore(v, b_.CreateConstInBoundsGEP1_64(elem, dst, k),
                                                 llvm::Align(cache_line));
      s->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
    }
    b_.CreateBr(done);

    b_.SetInsertPoint(plain);
    loop(c64(0), width, [&](Value *j) {
      b_.CreateStore(b_.CreateLoad(elem, b_.CreateInBoundsGEP(elem, src, j)),
                     b_.CreateInBoundsGEP(elem, dst, j));
    });
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // The output axis to tile together with the last one when the kernel reads a large input
  // transposed (a transpose of the output's shape whose innermost output axis is not its input's
  // innermost axis), or -1.
  int transposed_axis() const;

  // Loops over axes [axis, shape.size()) of shape, extending idx.
  template <class F> void nest(const Shape &shape, size_t axis, Index idx, F &&body) {
    std::vector<Span> spans;
    for (size_t a = axis; a < shape.size(); ++a)
      spans.push_back({a, c64(0), c64(shape[a]), shape[a], true});
    idx.resize(shape.size());
    span_nest(spans, idx, body);
  }

  // ---- types and memory ----

  Value *c64(int64_t v) { return llvm::ConstantInt::get(i64_, v, true); }

  Value *linear(const Index &idx, const std::vector<int64_t> &strides);

  Value *load_element(Value *base, DType t, Value *at);
  void store_element(Value *base, DType t, Value *at, Value *v);

  // ---- the root: elementwise, reduction or contraction ----

  Value *root_value(const Node &root, const Index &idx);

  // Accumulators in stack slots: SROA/mem2reg turn them into registers.
  llvm::AllocaInst *slot(llvm::Type *type, Value *init);

  // A reduction at the root: out[o] = combine over r in `shape` of term(o, r).
  struct Reduction {
    Shape shape;
    Op combine;
    std::function<Value *(const Index &out, const Index &red)> term;
    // The terms are narrower floats widened (a float32 sum's float64 partials): float64 holds
    // their sum without compensation.
    bool widened = false;
    // The index of operand k (a contraction's lhs 0 or rhs 1) at the term (out, red).
    std::function<Index(int k, const Index &out, const Index &red)> operand_index;
    // Where the terms outside [begin, end) of the one reduced axis are the identity
    // (passes::reduction_interval): the loops run over it alone; `outside`, where set, is added
    // once (a contraction's 0 * the other operand, +-0 or NaN).
    Value *begin = nullptr, *end = nullptr, *outside = nullptr;
  };

  Reduction describe_reduction(const Node &n);

  // red's interval at the element `kept`, where its terms have one (passes::reduction_interval)
  // and the loop that sums them can start and end anywhere: the bounds clamped into the axis,
  // and what the terms outside add.
  void restrict_to_interval(const Node &n, Reduction &red, const Index &kept);

  // The terms of red's one reduced axis in its interval, or those of its whole shape.
  template <class F> void each_term(const Reduction &red, F &&body) {
    if (red.begin)
      loop(red.begin, red.end, [&](Value *i) { body(Index{i}); });
    else
      nest(red.shape, 0, {}, body);
  }

  // What the terms outside red's interval add to its result.
  Value *with_outside(const Reduction &red, Value *result);

  Value *identity(Op combine, DType t);

  // The roots (one reduction or contraction, or sibling reductions over the same axes of
  // operands of one shape: multi-output fusion) accumulated together, each into its output in
  // the order it would have alone; what their terms share is computed once per element.
  void emit_row_reductions();

  // 0-d reductions and arg-reductions: one accumulator in a register.
  Value *reduce(const Node &n, const Index &kept);

  // A float sum (and contraction) into one value accumulates in float64: float32 terms are
  // widened, which costs nothing at memory bandwidth and leaves one rounding, at the end; float64
  // terms (not themselves widened float32) are summed compensated (compensated_sum). Past
  // one block (pairwise_block terms; 4x that for float32) the sum runs in blocks along the
  // innermost reduced axis (rows shorter than a block are gathered into one), each summed in lanes
  // that LLVM may reassociate, and the block sums are combined as a binary counter combines
  // carries: a pairwise tree over the blocks, built in a stack of one partial per level. The
  // error grows as log2 of the length, as NumPy's pairwise summation; the order depends only on
  // the shape, so every mesh and AOT give the same bits.
  Value *float_sum(const Reduction &red, const Index &kept, DType t);

  // A float64 sum into one value: Neumaier's compensated summation in vector lanes along the
  // innermost reduced axis (compensated_vectors vectors of compensated_width, built here because
  // the loop vectorizer only splits reassociable reductions and the SLP vectorizer is off), folded
  // into one compensated total at the end. The error is about one rounding of the result,
  // whatever the length (NumPy's pairwise sum grows as log2 n); the order depends only on the
  // shape, so every mesh and AOT give the same bits.
  Value *compensated_sum(const Reduction &red, const Index &kept);

  // body() runs where cond holds.
  template <class F> void when(Value *cond, F &&body) {
    auto *then = llvm::BasicBlock::Create(ctx_, "then", fn_);
    auto *done = llvm::BasicBlock::Create(ctx_, "done", fn_);
    b_.CreateCondBr(cond, then, done);
    b_.SetInsertPoint(then);
    memo_.emplace_back();
    body();
    memo_.pop_back();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // Bool sums, products and contractions (any / all of the terms) accumulate in an i32: with an
  // i1 or i8 accumulator the vectorizer takes 64 lanes over strided loads and emits thousands of
  // shuffles (a (64,8,17) x (64,) bool tensordot: 2.3 s to compile; 0.16 s so).
  Value *any_or_all(const Reduction &red, const Index &kept);

  Value *arg_reduce(const Node &n, const Index &kept);

  Value *dot(const Node &n, const Index &out) { return reduce(n, out); }

  // ---- values of inlined nodes ----

  Value *value(const Node &n, const Index &idx);

  Value *compute(const Node &n, const Index &idx);

  // Result k of a scan run inside the kernel (passes::scan_kernel_veto): the scan's loop at this
  // element, its carries in phis, emitted once per element; the finals are memoized under the
  // body's carry params (read through carry_ alone otherwise).
  Value *scan_result(const Node &result, const Index &idx);

  // A select of complex numbers part by part: a select of pairs keeps the vectorizer away.
  Value *select(Value *cond, Value *a, Value *c);

  Value *leaf(const Node &n, const Index &idx);

  Value *movement(const Node &n, const Index &idx);

  // Output and input axes pair up in groups of equal size (a split, a merge, unit axes): within
  // a group the flat index maps over, so a split axis is p * m + q and only merged axes need a
  // division.
  Index reshape_index(const Node &n, const Node &x, const Index &idx);

  Value *clamp(Value *v, int64_t lo, int64_t hi);

  // x at the index the indices hold (counted from the end when negative), clamped into range or
  // read as 0 outside it.
  Value *take(const Node &n, const Node &x, const Index &idx);

  Value *pad(const Node &n, const Node &x, const Index &idx);

  Value *slice_update(const Node &n, const Node &x, const Index &idx);

  // update[d] where every d[i] lies in [0, update.shape[i]) and `also` holds, else old.
  Value *update_or(const Node &update, const Index &d, Value *also, Value *old);

  // Start `axis` of a dynamic slice (input first + axis), clamped into [0, last].
  Value *dynamic_start(const Node &n, size_t first, int64_t axis, int64_t last);

  Value *dynamic_update_slice(const Node &n, const Node &x, const Index &idx);

  // Branches to the one operand that owns the index (binary search over the offsets), so only
  // that operand is computed.
  Value *concatenate(const Node &n, const Index &idx);

  void emit_parts(const std::vector<std::pair<const Node *, int64_t>> &parts, size_t lo, size_t hi,
                  int64_t axis, const Index &idx, llvm::BasicBlock *merge,
                  std::vector<std::pair<Value *, llvm::BasicBlock *>> &incoming);

  std::vector<std::pair<Value *, Value *>> bounds_; // [lo, hi) of each output axis
  // Transposed reads: the output axis tiled with the last one (-1: none), the tiles' edge, and the
  // input size below which the input stays in cache anyway.
  int tile_axis_ = -1;
  static constexpr int64_t tile_edge = 32;
  // Most loop levels of one nest over axes (span_nest).
  static constexpr size_t max_nest_depth = 4;
  static constexpr int64_t min_tiled_input = 1 << 15;
  // Tiles need both tiled axes this long: over short axes (units, the twos of a high-rank array)
  // the tiles gain nothing and only deepen the nest.
  static constexpr int64_t min_tiled_edge = 8;
  // Streamed outputs leave their stack buffer by whole cache lines: a tile row (tile_edge
  // elements) and a row chunk are multiples of one for every dtype but bool.
  static constexpr int64_t cache_line = 64;
  static constexpr int64_t row_chunk = 64;
  // Loop steps per chunk of a loop reading rolls (roll_chunks): long enough that its vector loop
  // amortizes the probes and the branch, short enough that few elements take the select.
  static constexpr int64_t roll_chunk = 1024;
  // Reduced terms combined per accumulator update in row reductions.
  static constexpr int64_t reduce_unroll = 4;
  // Elements of each carry a scan run inside a kernel keeps in a stack tile (L1-resident: 2 KiB
  // per float64 carry).
  static constexpr int64_t scan_tile = 256;
  // Terms per block of a pairwise float64 sum: each vector lane of a block sums a few of them.
  static constexpr int64_t pairwise_block = 256;
  // A compensated float64 sum's vectors (independent, to hide the adds' latency) and their width
  // (AVX2's; memory bounds the sum before the width does).
  static constexpr int64_t compensated_vectors = 4, compensated_width = 4;
  const KernelPlan &plan_;
  llvm::Function *fn_ = nullptr;
  std::unordered_map<const Node *, size_t> param_, literal_;
  // The params of a scan's body run inside the kernel: a carry bound to its value this step, a
  // captured value to the scan's operand it stands for.
  std::unordered_map<const Node *, Value *> carry_;
  std::unordered_map<const Node *, const Node *> captured_;
  // A sequential loop's changed carries (their params in each region): read from these outputs,
  // with these strides.
  std::unordered_map<const Node *, std::pair<size_t, std::vector<int64_t>>> carried_in_output_;
  std::vector<Value *> literal_values_;
  std::vector<ir::NodePtr> interval_bounds_;
  std::vector<Value *> pointers_;
  // Whether the kernel's loops run in roll_chunks; the offsets of the roll reads of the chunk being
  // emitted, in the order they are read, and how many it has read; where a probe records the roll
  // indices.
  bool rolls_ = false;
  std::vector<std::pair<const Node *, Value *>> roll_offsets_;
  size_t roll_read_ = 0;
  std::vector<std::pair<const Node *, Value *>> *roll_probe_ = nullptr;
  // Whether the kernel's rows run in pad_parts; their edge parts' length (a vector's worth, or
  // the widest pad); whether the part being emitted reads pads without their checks, and how
  // many pad reads it has emitted; where a probe records the checks.
  bool pads_ = false;
  int64_t pad_edge_ = 8;
  bool pads_inside_ = false;
  size_t pad_reads_ = 0;
  std::vector<Value *> *pad_probe_ = nullptr;
  // Values already emitted at an index, per scope (a loop body or a branch region).
  std::vector<std::map<std::pair<const Node *, Index>, Value *>> memo_;
};

} // namespace jx::codegen
