// Fused kernel -> LLVM IR. The kernel is a loop nest over the root's index space; every node
// inlined into it is emitted as a function of an index vector: movement ops rewrite the index,
// elementwise ops combine values at the same index, parameters are loads. Reductions and
// contractions at the root add inner loops with an accumulator. LLVM's O3 pipeline then hoists
// loop invariants (LICM), removes duplicate work (GVN) and vectorizes the innermost loop.
#include "codegen/emit.h"
#include "codegen/scalar.h"
#include "ir/op_cases.h"

#include <jx/error.h>

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "ir/builder.h"
#include "passes/reduction_interval.h"

namespace jx::codegen {

namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;
using llvm::Value;
using Index = std::vector<Value *>;

// A concatenate of one operand with itself, two or more times.
bool is_repeat(const Node &n) {
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

  void emit(const std::string &name) {
    auto *ptr = llvm::PointerType::get(ctx_, 0);
    const size_t outputs = plan_.roots.size();
    const size_t buffer_count = outputs + plan_.inputs.size() + 1; // outputs, inputs, literals
    // The body takes every buffer as its own noalias argument (buffers never overlap: outputs
    // are fresh, inputs are read-only), so the vectorizer needs no runtime alias checks; the
    // exported entry point unpacks the buffer array and calls it (inlined).
    std::vector<llvm::Type *> params{ptr};
    params.insert(params.end(), buffer_count, ptr);
    fn_ =
        llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false),
                               llvm::Function::InternalLinkage, name + ".body", mod_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    fn_->addFnAttr(llvm::Attribute::AlwaysInline);
    for (size_t i = 0; i < buffer_count; ++i) {
      fn_->addParamAttr(unsigned(1 + i), llvm::Attribute::NoAlias);
      if (i >= outputs) fn_->addParamAttr(unsigned(1 + i), llvm::Attribute::ReadOnly);
    }
    emit_entry_point(name, buffer_count);
    auto *entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry);
    // The box's bounds, loaded here so they dominate every loop; axes outside the plan's boxed
    // axes span the whole extent as constants (known trip counts vectorize best).
    const Shape &extent = plan_.loop_shape();
    for (size_t axis = 0; axis < extent.size(); ++axis) {
      if (!plan_.boxed(axis)) {
        bounds_.push_back({c64(0), c64(extent[axis])});
        continue;
      }
      auto bound = [&](size_t k) {
        return b_.CreateLoad(i64_, b_.CreateConstGEP1_64(i64_, fn_->getArg(0), 2 * axis + k));
      };
      bounds_.push_back({bound(0), bound(1)});
    }
    for (size_t slot = 0; slot < buffer_count; ++slot)
      pointers_.push_back(fn_->getArg(unsigned(1 + slot)));
    // Literal values, loaded once here so they dominate every use (and LLVM sees them as
    // loop invariants).
    for (const Node *lit : plan_.literals) {
      const bool f = is_floating(lit->dtype);
      Value *at = b_.CreateConstGEP1_64(i64_, pointers_.back(), literal_values_.size());
      Value *raw = b_.CreateLoad(f ? b_.getDoubleTy() : i64_, at);
      literal_values_.push_back(convert(raw, f ? DType::float64 : DType::int64, lit->dtype));
    }
    memo_.emplace_back();
    rolls_ = reads_rolls();

    const Node &first = *plan_.roots[0];
    const Shape &out = first.shape;
    const auto strides = row_major_strides(plan_.output_window.value_or(out));
    // Every value of an element before any store: an output may take a donated input's memory.
    auto store_all = [&](const Index &idx) {
      Value *at = linear(idx, strides);
      std::vector<Value *> values;
      for (const ir::NodePtr &root : plan_.roots)
        values.push_back(root_value(*root, idx));
      for (size_t r = 0; r < outputs; ++r)
        store_element(pointers_[r], plan_.roots[r]->dtype, at, values[r]);
    };
    if (outputs > 1 &&
        (op_kind(first.op) == OpKind::Reduce || op_kind(first.op) == OpKind::Contraction) &&
        (out.empty() || !passes::accumulates_rows(first) || first.op == Op::DotGeneral))
      throw Error("internal: only row reductions share a kernel");
    const Node *scan = kernel_scan();
    if (plan_.sequential_loop) {
      emit_sequential_loop();
    } else if (plan_.updates_operand) {
      emit_update(strides);
    } else if (scan && !out.empty()) {
      emit_scan_tiles(*scan, strides);
    } else if (out.empty()) {
      store_all({});
    } else {
      versioned([&] {
        if (passes::accumulates_rows(first)) {
          emit_row_reductions();
        } else if ((tile_axis_ = transposed_axis()) >= 0) {
          if (streams()) {
            emit_streamed_tiles(strides);
          } else {
            tiled_box_nest([&](const Index &idx, const Tile &) { store_all(idx); });
          }
        } else if (streams()) {
          emit_streamed_rows(strides);
        } else if (rolls_) {
          // Rows of the last axis in roll_chunks.
          box_nest(
              0, {},
              [&](const Index &outer) {
                Index idx = outer;
                idx.push_back(nullptr);
                auto at = [&](Value *i) {
                  idx.back() = i;
                  return idx;
                };
                roll_chunks(
                    bounds_.back().first, bounds_.back().second, roll_chunk,
                    [&](Value *i, bool) {
                      for (const ir::NodePtr &root : plan_.roots)
                        root_value(*root, at(i));
                    },
                    [&](Value *lo, Value *hi) {
                      loop(lo, hi, [&](Value *i) { store_all(at(i)); });
                    });
              },
              out.size() - 1);
        } else {
          box_nest(0, {}, store_all);
        }
      });
    }
    b_.CreateRetVoid();
  }

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

  bool reads_rolls() const {
    auto monotone = [&](const Node &n) {
      switch (op_kind(n.op)) {
      case OpKind::Leaf:
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::Ternary: return true;
      case OpKind::Reduce:
      case OpKind::Contraction: return n.shape.empty() && &n == plan_.roots[0].get();
      case OpKind::Movement:
        return n.op == Op::Broadcast || n.op == Op::Transpose || n.op == Op::Slice ||
               n.op == Op::DynamicSlice || n.op == Op::DynamicUpdateSlice || is_roll(n);
      default: return false;
      }
    };
    return first_computed(is_roll) && !first_computed([&](const Node &n) { return !monotone(n); });
  }

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
          std::vector<Value *> wrapped;
          for (size_t k = 0; k < first.size(); ++k) {
            Value *m = c64(roll_length(*first[k].first));
            wrapped.push_back(b_.CreateICmpSGE(first[k].second, m));
            uniform = b_.CreateAnd(
                uniform, b_.CreateICmpEQ(wrapped.back(), b_.CreateICmpSGE(last[k].second, m)));
          }
          auto *fixed = llvm::BasicBlock::Create(ctx_, "roll.fixed", fn_);
          auto *wraps = llvm::BasicBlock::Create(ctx_, "roll.wraps", fn_);
          auto *done = llvm::BasicBlock::Create(ctx_, "roll.done", fn_);
          b_.CreateCondBr(uniform, fixed, wraps);
          b_.SetInsertPoint(fixed);
          for (size_t k = 0; k < first.size(); ++k)
            roll_offsets_.push_back(
                {first[k].first,
                 b_.CreateSelect(wrapped[k], c64(roll_length(*first[k].first)), c64(0))});
          memo_.emplace_back();
          run(lo, hi);
          memo_.pop_back();
          if (roll_read_ != roll_offsets_.size()) throw Error("internal: roll reads disagree");
          roll_offsets_.clear();
          roll_read_ = 0;
          b_.CreateBr(done);
          b_.SetInsertPoint(wraps);
          memo_.emplace_back();
          run(lo, hi);
          memo_.pop_back();
          b_.CreateBr(done);
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

  // The first 0-d bool, not a literal, that a select of the kernel takes as its predicate
  // (through broadcasts); null if none.
  const Node *selecting_flag() const {
    const Node *flag = nullptr;
    first_computed([&](const Node &n) {
      if (n.op != Op::Select) return false;
      const Node *p = n.inputs[0].get();
      while (p->op == Op::Broadcast && !param_.count(p))
        p = p->inputs[0].get();
      if (!p->shape.empty() || p->dtype != DType::bool_ || literal_.count(p)) return false;
      flag = p;
      return true;
    });
    return flag;
  }

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
  void emit_entry_point(const std::string &name, size_t buffer_count) {
    auto *ptr = llvm::PointerType::get(ctx_, 0);
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr, ptr}, false);
    llvm::Function *entry_fn =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, mod_);
    entry_fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", entry_fn));
    std::vector<Value *> args{entry_fn->getArg(0)};
    for (size_t slot = 0; slot < buffer_count; ++slot)
      args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry_fn->getArg(1), slot)));
    b.CreateCall(fn_, args);
    b.CreateRetVoid();
  }

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
    llvm::BranchInst *latch = loop(begin, end, body);
    auto flag = [&](const char *name) {
      return llvm::MDNode::get(
          ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(b_.getTrue())});
    };
    llvm::MDNode *self = llvm::MDNode::getDistinct(
        ctx_, {nullptr, flag("llvm.loop.vectorize.enable"),
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
  std::vector<Span> box_spans(size_t first, size_t stop) {
    std::vector<Span> spans;
    const Shape &extent = plan_.loop_shape();
    for (size_t a = first; a < stop; ++a)
      spans.push_back({a, bounds_[a].first, bounds_[a].second, extent[a], !plan_.boxed(a)});
    return spans;
  }

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
  void emit_update(const std::vector<int64_t> &strides) {
    store_update(*plan_.roots[0], 0, strides,
                 [&](const std::function<void(const Index &)> &f) { box_nest(0, {}, f); });
  }

  // Where update `root` writes element idx of its update: its starts (clamped) plus idx times its
  // steps.
  std::function<Index(const Index &)> update_places(const Node &root) {
    const Node &x = *root.inputs[0], &update = *root.inputs[1];
    const auto rank = int64_t(x.ndim());
    Index start(size_t(rank), c64(0));
    std::vector<int64_t> step(size_t(rank), 1);
    for (int64_t i = 0; i < rank; ++i)
      if (root.op == Op::DynamicUpdateSlice) {
        start[size_t(i)] = dynamic_start(root, 2, i, x.shape[i] - update.shape[i]);
      } else {
        start[size_t(i)] = c64(root.attrs[size_t(i)]);
        step[size_t(i)] = root.attrs[size_t(2 * rank + i)];
      }
    return [this, start, step](const Index &idx) {
      Index at(idx.size());
      for (size_t i = 0; i < idx.size(); ++i)
        at[i] = b_.CreateAdd(start[i], b_.CreateMul(idx[i], c64(step[i])), "", true);
      return at;
    };
  }

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
  // 0-d carries read after it are stored last.
  void emit_sequential_loop() {
    const Node &loop = *plan_.roots[0]->inputs[0];
    const bool is_while = loop.op == Op::While;
    const ir::Region &body = passes::loop_body(loop);
    const auto carries = size_t(loop.attrs[0]);
    std::vector<size_t> changed; // per output of an array carry, its carry (0-d ones follow)
    std::vector<std::vector<int64_t>> strides;
    for (const ir::NodePtr &root : plan_.roots)
      if (!root->shape.empty()) {
        changed.push_back(size_t(root->attrs[0]));
        strides.push_back(row_major_strides(root->shape));
      }
    // The first carry's output starts as its initial value where it updates that (the runtime
    // copies it, or hands over its memory); the others are copied here.
    for (size_t r = plan_.updates_operand ? 1 : 0; r < changed.size(); ++r) {
      const Node &init = *loop.inputs[changed[r]];
      nest(init.shape, 0, {}, [&](const Index &idx) {
        store_element(pointers_[r], init.dtype, linear(idx, strides[r]), value(init, idx));
      });
    }
    std::vector<size_t> scalar;
    std::vector<Value *> init;
    for (size_t i = 0; i < carries; ++i)
      if (body.params[i]->shape.empty()) {
        scalar.push_back(i);
        init.push_back(value(*loop.inputs[i], {}));
      }
    for (const ir::Region &r : *loop.regions)
      for (size_t i = 0; i < r.params.size(); ++i)
        if (auto out = std::find(changed.begin(), changed.end(), i); out != changed.end())
          carried_in_output_[r.params[i].get()] = {size_t(out - changed.begin()),
                                                   strides[size_t(out - changed.begin())]};
        else if (i >= carries || !r.params[i]->shape.empty())
          captured_[r.params[i].get()] = loop.inputs[i].get();
    // Staged updates: each output's updates (first to last), a temporary each, in the entry
    // block.
    struct Staged {
      size_t out;
      const Node *root;
      llvm::AllocaInst *values;
    };
    std::vector<Staged> staged;
    const std::vector<size_t> order = passes::sequential_loop_order(loop);
    if (passes::sequential_loop_staged(loop)) {
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      for (size_t r = 0; r < changed.size(); ++r)
        for (const Node *root : passes::sequential_loop_updates(loop, changed[r])) {
          const Node &update = *root->inputs[1];
          staged.push_back(
              {r, root, entry.CreateAlloca(mem_type(update.dtype), c64(update.size()))});
        }
    }
    auto bind = [&](const ir::Region &r, const std::vector<Value *> &values) {
      for (size_t s = 0; s < scalar.size(); ++s)
        carry_[r.params[scalar[s]].get()] = values[s];
    };
    auto step = [&](const std::vector<Value *> &values) {
      bind(body, values);
      std::vector<Value *> next;
      for (size_t i : scalar)
        next.push_back(value(*body.outputs[i], {}));
      auto over = [&](const Node &update) {
        return [&](const std::function<void(const Index &)> &f) { nest(update.shape, 0, {}, f); };
      };
      // One-element updates first, in the step's scope: others read them (gramschmidt's column
      // update reads the dot product its R update writes) without computing them again in their
      // loops.
      for (const Staged &u : staged)
        if (const Node &update = *u.root->inputs[1]; update.size() == 1)
          value(update, Index(update.shape.size(), c64(0)));
      // Staged updates' values (of output `out`, or all), then their stores in order.
      auto stage_and_store = [&](std::optional<size_t> out) {
        std::vector<std::function<Index(const Index &)>> places(staged.size());
        for (size_t k = 0; k < staged.size(); ++k) {
          const Staged &u = staged[k];
          if (out && u.out != *out) continue;
          const Node &update = *u.root->inputs[1];
          places[k] = update_places(*u.root);
          const auto at = row_major_strides(update.shape);
          over(update)([&](const Index &idx) {
            store_element(u.values, update.dtype, linear(idx, at), value(update, idx));
          });
        }
        for (size_t k = 0; k < staged.size(); ++k) {
          const Staged &u = staged[k];
          if (out && u.out != *out) continue;
          const Node &update = *u.root->inputs[1];
          const auto at = row_major_strides(update.shape);
          over(update)([&](const Index &idx) {
            store_element(pointers_[u.out], update.dtype, linear(places[k](idx), strides[u.out]),
                          load_element(u.values, update.dtype, linear(idx, at)));
          });
        }
      };
      if (order.empty()) {
        stage_and_store(std::nullopt);
        return next;
      }
      // Carry by carry: once stored, a carry's new value is its buffer.
      for (size_t k : order) {
        const auto r = size_t(std::find(changed.begin(), changed.end(), k) - changed.begin());
        if (passes::sequential_update_in_place(loop, k)) {
          const Node &root = *body.outputs[k];
          store_update(root, r, strides[r], over(*root.inputs[1]));
        } else {
          stage_and_store(r);
        }
        carried_in_output_[body.outputs[k].get()] = {r, strides[r]};
      }
      for (size_t k : order)
        carried_in_output_.erase(body.outputs[k].get());
      return next;
    };
    std::vector<Value *> finals;
    if (is_while) {
      const ir::Region &cond = (*loop.regions)[0];
      finals = while_steps(
          init,
          [&](const std::vector<Value *> &values) {
            bind(cond, values);
            return value(*cond.outputs[0], {});
          },
          step);
    } else {
      finals = steps(loop.attrs[2], init, step);
    }
    // The 0-d carries read after the loop.
    for (size_t r = changed.size(); r < plan_.roots.size(); ++r) {
      const auto k = size_t(plan_.roots[r]->attrs[0]);
      const size_t s = size_t(std::find(scalar.begin(), scalar.end(), k) - scalar.begin());
      store_element(pointers_[r], plan_.roots[r]->dtype, c64(0), finals[s]);
    }
    for (const ir::Region &r : *loop.regions)
      for (const ir::NodePtr &p : r.params) {
        carry_.erase(p.get());
        carried_in_output_.erase(p.get());
      }
  }

  // The scan whose results are this kernel's roots, or null.
  const Node *kernel_scan() const {
    const Node *scan = nullptr;
    for (const ir::NodePtr &root : plan_.roots) {
      if (root->op != Op::Result || (scan && root->inputs[0].get() != scan)) return nullptr;
      scan = root->inputs[0].get();
    }
    return scan;
  }

  // A scan run inside the kernel over tiles of its carries: scan_tile elements along the last
  // axis of each carry of the carries' shape in a stack buffer, the whole loop run over the tile,
  // each step an inner loop over the tile's elements, which the vectorizer turns into vector code
  // (element by element, each step would wait for the previous one's latency, in scalar code);
  // the 0-d carries (a counter) once per step, in registers. Then the tile's results are stored.
  void emit_scan_tiles(const Node &scan, const std::vector<int64_t> &strides) {
    const ir::Region &body = (*scan.regions)[0];
    const auto carries = size_t(scan.attrs[0]);
    const size_t last = bounds_.size() - 1;
    for (size_t i = carries; i < body.params.size(); ++i)
      captured_[body.params[i].get()] = scan.inputs[i].get();
    // A complex carry's tile holds its parts apart (a second tile of imaginary parts), so the
    // step's loop over it is loads and stores of plain floats, which vectorize.
    std::vector<llvm::AllocaInst *> tiles(carries, nullptr), imaginary(carries, nullptr);
    {
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      auto tile = [&](llvm::Type *type) {
        llvm::AllocaInst *a = entry.CreateAlloca(type, c64(scan_tile));
        a->setAlignment(llvm::Align(cache_line));
        return a;
      };
      for (size_t i = 0; i < carries; ++i) {
        const DType t = scan.inputs[i]->dtype;
        if (scan.inputs[i]->shape.empty()) continue;
        tiles[i] = tile(is_complex(t) ? reg_type(real_dtype(t)) : mem_type(t));
        if (is_complex(t)) imaginary[i] = tile(reg_type(real_dtype(t)));
      }
    }
    auto load_tile = [&](size_t i, Value *j) -> Value * {
      const DType t = scan.inputs[i]->dtype;
      if (!is_complex(t)) return load_element(tiles[i], t, j);
      llvm::Type *part = reg_type(real_dtype(t));
      Value *z = llvm::PoisonValue::get(reg_type(t));
      z = b_.CreateInsertValue(z, b_.CreateLoad(part, b_.CreateInBoundsGEP(part, tiles[i], j)), 0);
      return b_.CreateInsertValue(
          z, b_.CreateLoad(part, b_.CreateInBoundsGEP(part, imaginary[i], j)), 1);
    };
    auto store_tile = [&](size_t i, Value *j, Value *v) {
      const DType t = scan.inputs[i]->dtype;
      if (!is_complex(t)) return store_element(tiles[i], t, j, v);
      llvm::Type *part = reg_type(real_dtype(t));
      b_.CreateStore(b_.CreateExtractValue(v, 0), b_.CreateInBoundsGEP(part, tiles[i], j));
      b_.CreateStore(b_.CreateExtractValue(v, 1), b_.CreateInBoundsGEP(part, imaginary[i], j));
    };
    box_nest(
        0, {},
        [&](const Index &outer) {
          loop(
              bounds_[last].first, bounds_[last].second,
              [&](Value *first) {
                Value *end = b_.CreateAdd(first, c64(scan_tile), "", true, true);
                end = b_.CreateSelect(b_.CreateICmpSLT(end, bounds_[last].second), end,
                                      bounds_[last].second);
                Value *count = b_.CreateSub(end, first, "", true, true);
                auto element = [&](Value *j) {
                  Index idx = outer;
                  idx.push_back(b_.CreateAdd(first, j, "", true, true));
                  return idx;
                };
                loop(c64(0), count, [&](Value *j) {
                  for (size_t i = 0; i < carries; ++i)
                    if (tiles[i]) store_tile(i, j, value(*scan.inputs[i], element(j)));
                });
                // The steps: the 0-d carries in phis, the others in their tiles.
                std::vector<size_t> scalar;
                std::vector<Value *> init;
                for (size_t i = 0; i < carries; ++i)
                  if (!tiles[i]) {
                    scalar.push_back(i);
                    init.push_back(value(*scan.inputs[i], {}));
                  }
                steps(scan.attrs[2], init, [&](const std::vector<Value *> &values) {
                  std::vector<Value *> next;
                  for (size_t s = 0; s < scalar.size(); ++s)
                    carry_[body.params[scalar[s]].get()] = values[s];
                  for (size_t i : scalar)
                    next.push_back(value(*body.outputs[i], {}));
                  loop(c64(0), count, [&](Value *j) {
                    const Index idx = element(j);
                    for (size_t i = 0; i < carries; ++i)
                      if (tiles[i]) carry_[body.params[i].get()] = load_tile(i, j);
                    std::vector<Value *> stored(carries, nullptr);
                    for (size_t i = 0; i < carries; ++i)
                      if (tiles[i]) stored[i] = value(*body.outputs[i], idx);
                    for (size_t i = 0; i < carries; ++i)
                      if (tiles[i]) store_tile(i, j, stored[i]);
                  });
                  return next;
                });
                for (size_t i = 0; i < carries; ++i)
                  carry_.erase(body.params[i].get());
                loop(c64(0), count, [&](Value *j) {
                  const Index idx = element(j);
                  Value *at = linear(idx, strides);
                  for (size_t r = 0; r < plan_.roots.size(); ++r) {
                    const auto k = size_t(plan_.roots[r]->attrs[0]);
                    store_element(pointers_[r], plan_.roots[r]->dtype, at, load_tile(k, j));
                  }
                });
              },
              scan_tile);
        },
        last);
  }

  // Whether the kernel writes its outputs with streaming stores (the driver asks for it where
  // they are large and no later step reads them): elementwise roots that are not bool, whose
  // tile rows and row chunks are whole cache lines (not bool, int8 or uint8), not complex (a
  // vector of pairs is no LLVM type). Streamed, a 4096^2
  // float64 transpose + 1 on 2 threads takes 7.8 ms against 21.9 with ordinary stores, whose
  // read-for-ownership of each line costs more than the read of the input (memcpy: 9.5 ms, a
  // streamed copy 5.6 ms).
  bool streams() const {
    if (!plan_.stream_outputs) return false;
    for (const ir::NodePtr &root : plan_.roots)
      if (itemsize(root->dtype) * tile_edge % cache_line != 0 || is_complex(root->dtype) ||
          op_kind(root->op) == OpKind::Reduce || op_kind(root->op) == OpKind::Contraction)
        return false;
    return true;
  }

  // A stack buffer of `count` elements per output, cache-line aligned.
  std::vector<llvm::AllocaInst *> stack_buffers(int64_t count) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    std::vector<llvm::AllocaInst *> buffers;
    for (const ir::NodePtr &root : plan_.roots) {
      llvm::AllocaInst *a = entry.CreateAlloca(mem_type(root->dtype), c64(count));
      a->setAlignment(llvm::Align(cache_line));
      buffers.push_back(a);
    }
    return buffers;
  }

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
  void emit_streamed_tiles(const std::vector<int64_t> &strides) {
    const std::vector<llvm::AllocaInst *> buffers = stack_buffers(tile_edge * tile_edge);
    const size_t tiled = size_t(tile_axis_), last = bounds_.size() - 1;
    auto in_tile = [&](Value *i, Value *j, const Tile &tile) {
      Value *row = b_.CreateSub(i, tile.row_begin, "", true, true);
      return b_.CreateAdd(b_.CreateMul(row, c64(tile_edge), "", true, true),
                          b_.CreateSub(j, tile.col_begin, "", true, true), "", true, true);
    };
    auto compute = [&](const Index &idx, const Tile &tile) {
      store_to_buffers(buffers, idx, in_tile(idx[tiled], idx[last], tile));
    };
    auto copy_out = [&](const Index &idx, const Tile &tile) {
      Value *width = b_.CreateSub(tile.col_end, tile.col_begin, "", true, true);
      loop(tile.row_begin, tile.row_end, [&](Value *i) {
        Index first = idx;
        first[tiled] = i;
        first[last] = tile.col_begin;
        Value *at = linear(first, strides), *from = in_tile(i, tile.col_begin, tile);
        for (size_t r = 0; r < buffers.size(); ++r)
          copy_row(buffers[r], from, r, at, width, tile_edge);
      });
    };
    tiled_box_nest(compute, copy_out);
    b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

  // The box row by row, each row in chunks of row_chunk elements computed into a stack buffer and
  // copied out with streaming stores. Chunks end at multiples of row_chunk in the output's flat
  // index, so that all but a row's first start on a cache line.
  void emit_streamed_rows(const std::vector<int64_t> &strides) {
    const std::vector<llvm::AllocaInst *> buffers = stack_buffers(row_chunk);
    const size_t last = bounds_.size() - 1;
    box_nest(
        0, {},
        [&](const Index &outer) {
          Index origin = outer;
          origin.push_back(c64(0));
          Value *base = linear(origin, strides); // the flat index of the row's element 0
          auto chunk_end = [&](Value *start) {
            Value *flat = b_.CreateAdd(base, start, "", true, true);
            Value *next = b_.CreateMul(
                b_.CreateAdd(b_.CreateUDiv(flat, c64(row_chunk)), c64(1), "", true, true),
                c64(row_chunk), "", true, true);
            Value *end = b_.CreateSub(next, base, "", true, true);
            return b_.CreateSelect(b_.CreateICmpSLT(end, bounds_[last].second), end,
                                   bounds_[last].second);
          };
          loop_by(
              bounds_[last].first, bounds_[last].second,
              [&](Value *start) {
                Value *end = chunk_end(start);
                loop(start, end, [&](Value *j) {
                  Index idx = outer;
                  idx.push_back(j);
                  store_to_buffers(buffers, idx, b_.CreateSub(j, start, "", true, true));
                });
                Value *width = b_.CreateSub(end, start, "", true, true);
                Value *at = b_.CreateAdd(base, start, "", true, true);
                for (size_t r = 0; r < buffers.size(); ++r)
                  copy_row(buffers[r], c64(0), r, at, width, row_chunk);
              },
              chunk_end);
        },
        last);
    b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

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
  int transposed_axis() const {
    const Node &root = *plan_.roots[0];
    const size_t rank = root.shape.size();
    if (rank < 2 || op_kind(root.op) == OpKind::Reduce || op_kind(root.op) == OpKind::Contraction)
      return -1;
    const Node *t = first_computed([&](const Node &n) {
      return n.op == Op::Transpose && n.shape == root.shape &&
             n.inputs[0]->size() >= min_tiled_input && n.attrs[rank - 1] != int64_t(rank - 1);
    });
    if (!t) return -1;
    for (size_t a = 0; a + 1 < rank; ++a)
      if (t->attrs[a] == int64_t(rank - 1))
        return root.shape[a] >= min_tiled_edge && root.shape[rank - 1] >= min_tiled_edge ? int(a)
                                                                                         : -1;
    return -1;
  }

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

  Value *linear(const Index &idx, const std::vector<int64_t> &strides) {
    Value *at = c64(0);
    std::vector<bool> done(idx.size(), false);
    // A flattened loop's axes laid out contiguously here add its index times the last one's
    // stride, not the sum of their divided parts (which SCEV analyses slowly, and the vectorizer
    // cannot see through).
    for (const Flat &f : flats_) {
      std::vector<size_t> at_pos;
      for (Value *part : f.parts)
        for (size_t i = 0; i < idx.size(); ++i)
          if (!done[i] && idx[i] == part) {
            at_pos.push_back(i);
            break;
          }
      bool contiguous = at_pos.size() == f.parts.size();
      for (size_t k = 0; contiguous && k + 1 < at_pos.size(); ++k)
        contiguous = strides[at_pos[k]] == strides[at_pos[k + 1]] * f.extents[k + 1];
      if (!contiguous) continue;
      for (size_t i : at_pos)
        done[i] = true;
      at = b_.CreateAdd(at, b_.CreateMul(f.index, c64(strides[at_pos.back()]), "", true, true), "",
                        true, true);
    }
    for (size_t i = 0; i < idx.size(); ++i)
      if (!done[i])
        at =
            b_.CreateAdd(at, b_.CreateMul(idx[i], c64(strides[i]), "", true, true), "", true, true);
    return at;
  }

  Value *load_element(Value *base, DType t, Value *at) {
    if (is_complex(t)) { // the parts loaded alone: interleaved loads the vectorizer groups
      llvm::Type *pair = mem_type(t), *part = reg_type(real_dtype(t));
      Value *z = llvm::PoisonValue::get(pair);
      for (unsigned k = 0; k < 2; ++k)
        z = b_.CreateInsertValue(
            z, b_.CreateLoad(part, b_.CreateInBoundsGEP(pair, base, {at, b_.getInt32(k)})), k);
      return z;
    }
    Value *v = b_.CreateLoad(mem_type(t), b_.CreateInBoundsGEP(mem_type(t), base, at));
    return t == DType::bool_ ? b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0)) : v;
  }
  void store_element(Value *base, DType t, Value *at, Value *v) {
    if (is_complex(t)) {
      for (unsigned k = 0; k < 2; ++k)
        b_.CreateStore(b_.CreateExtractValue(v, k),
                       b_.CreateInBoundsGEP(mem_type(t), base, {at, b_.getInt32(k)}));
      return;
    }
    if (t == DType::bool_) v = b_.CreateZExt(v, mem_type(t));
    b_.CreateStore(v, b_.CreateInBoundsGEP(mem_type(t), base, at));
  }

  // ---- the root: elementwise, reduction or contraction ----

  Value *root_value(const Node &root, const Index &idx) {
    switch (op_kind(root.op)) {
    case OpKind::Reduce: return reduce(root, idx);
    case OpKind::Contraction: return dot(root, idx);
    default: return value(root, idx);
    }
  }

  // Accumulators in stack slots: SROA/mem2reg turn them into registers.
  llvm::AllocaInst *slot(llvm::Type *type, Value *init) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::AllocaInst *a = entry.CreateAlloca(type);
    b_.CreateStore(init, a);
    return a;
  }

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

  Reduction describe_reduction(const Node &n) {
    if (n.op == Op::DotGeneral) {
      const Node &l = *n.inputs[0], &r = *n.inputs[1];
      ir::DotDims d = ir::dot_dims(n);
      Shape k_shape;
      for (int64_t a : d.lhs_contract)
        k_shape.push_back(l.shape[a]);
      const std::vector<int64_t> l_free = ir::other_axes(l.ndim(), d.lhs_batch, d.lhs_contract),
                                 r_free = ir::other_axes(r.ndim(), d.rhs_batch, d.rhs_contract);
      auto index = [&l, &r, d, l_free, r_free](int side, const Index &out, const Index &k) {
        Index li(l.shape.size()), ri(r.shape.size());
        size_t o = 0;
        for (size_t i = 0; i < d.lhs_batch.size(); ++i, ++o) {
          li[d.lhs_batch[i]] = out[o];
          ri[d.rhs_batch[i]] = out[o];
        }
        for (int64_t a : l_free)
          li[a] = out[o++];
        for (int64_t a : r_free)
          ri[a] = out[o++];
        for (size_t i = 0; i < k.size(); ++i) {
          li[d.lhs_contract[i]] = k[i];
          ri[d.rhs_contract[i]] = k[i];
        }
        return side == 0 ? li : ri;
      };
      auto term = [this, &n, &l, &r, index](const Index &out, const Index &k) {
        return binary(Op::Mul, n.dtype, value(l, index(0, out, k)), value(r, index(1, out, k)));
      };
      return {k_shape, Op::Add, term, false, index};
    }
    const Node &x = *n.inputs[0];
    Shape red_shape;
    for (int64_t a : n.attrs)
      red_shape.push_back(x.shape[a]);
    auto index = [&n, &x](int, const Index &kept, const Index &red) {
      Index idx(x.shape.size());
      size_t k = 0, r = 0;
      for (int64_t a = 0; a < x.ndim(); ++a) {
        bool is_reduced = r < n.attrs.size() && n.attrs[r] == a;
        idx[a] = is_reduced ? red[r++] : kept[k++];
      }
      return idx;
    };
    auto term = [this, &x, index](const Index &kept, const Index &red) {
      return value(x, index(0, kept, red));
    };
    const Op combine = n.op == Op::ReduceSum    ? Op::Add
                       : n.op == Op::ReduceProd ? Op::Mul
                       : n.op == Op::ReduceMax  ? Op::Max
                                                : Op::Min;
    const Node *source = &x;
    while (op_kind(source->op) == ir::OpKind::Movement)
      source = source->inputs[0].get();
    const bool widened = source->op == Op::Convert && is_floating(source->inputs[0]->dtype) &&
                         itemsize(source->inputs[0]->dtype) < itemsize(source->dtype);
    return {red_shape, combine, term, widened, index};
  }

  // red's interval at the element `kept`, where its terms have one (passes::reduction_interval)
  // and the loop that sums them can start and end anywhere: the bounds clamped into the axis,
  // and what the terms outside add.
  void restrict_to_interval(const Node &n, Reduction &red, const Index &kept) {
    std::optional<passes::ReductionInterval> interval = passes::reduction_interval(n);
    if (!interval) return;
    // Bounds made for the analysis stay alive while the memo refers to them by address.
    for (const auto *list : {&interval->lower, &interval->upper})
      for (const passes::IndexBound &b : *list)
        interval_bounds_.push_back(b.value);
    const int64_t extent = red.shape[0];
    // float_sum's blocks keep their shape's order; only a sum within one block is a plain loop.
    const bool blocked = red.combine == Op::Add && is_floating(n.dtype) &&
                         (n.dtype == DType::float32 || red.widened) &&
                         extent > (n.dtype == DType::float32 ? 4 : 1) * pairwise_block;
    if (blocked) return;
    const Index at = red.operand_index(interval->operand, kept, {c64(0)});
    auto bound = [&](const passes::IndexBound &b, Value *limit, bool lower) {
      Value *v = convert(value(*b.value, at), b.value->dtype, DType::int64);
      v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, v, c64(b.offset)); // <= INT64_MAX
      return lower ? b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, limit)
                   : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, limit);
    };
    Value *begin = c64(0), *end = c64(extent);
    for (const passes::IndexBound &b : interval->lower)
      begin = bound(b, begin, true);
    for (const passes::IndexBound &b : interval->upper)
      end = bound(b, end, false);
    begin = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, begin, c64(extent));
    end = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, end, begin);
    red.begin = begin;
    red.end = end;
    if (!interval->complement_term) return;
    // Any index outside stands for them all: the first where the interval starts later.
    Value *later = b_.CreateICmpSGT(begin, c64(0));
    Value *some = b_.CreateOr(later, b_.CreateICmpSLT(end, c64(extent)));
    Value *term = red.term(kept, {b_.CreateSelect(later, c64(0), c64(extent - 1))});
    red.outside = b_.CreateSelect(some, term, constant(n.dtype, 0, 0));
  }

  // The terms of red's one reduced axis in its interval, or those of its whole shape.
  template <class F> void each_term(const Reduction &red, F &&body) {
    if (red.begin)
      loop(red.begin, red.end, [&](Value *i) { body(Index{i}); });
    else
      nest(red.shape, 0, {}, body);
  }

  // What the terms outside red's interval add to its result.
  Value *with_outside(const Reduction &red, Value *result) {
    return red.outside ? b_.CreateFAdd(result, red.outside) : result;
  }

  Value *identity(Op combine, DType t) {
    switch (combine) {
    case Op::Add: return constant(t, 0, 0);
    case Op::Mul: return constant(t, 1, 1);
    default: return extreme(t, combine == Op::Max ? -1 : 1);
    }
  }

  // The roots (one reduction or contraction, or sibling reductions over the same axes of
  // operands of one shape: multi-output fusion) accumulated together, each into its output in
  // the order it would have alone; what their terms share is computed once per element.
  void emit_row_reductions() {
    const Node &first = *plan_.roots[0];
    const auto strides = row_major_strides(plan_.output_window.value_or(first.shape));
    std::vector<Reduction> reds;
    for (const ir::NodePtr &root : plan_.roots)
      reds.push_back(describe_reduction(*root));
    const Shape &red_shape = reds[0].shape;
    // Rows: every output axis but the last; the last axis spans [lo, hi).
    auto rows = [&](Value *lo, Value *hi, const Index &prefix) {
      auto each_element = [&](auto &&body) {
        loop(lo, hi, [&](Value *j) {
          Index idx = prefix;
          idx.push_back(j);
          body(idx, linear(idx, strides));
        });
      };
      each_element([&](const Index &, Value *at) {
        for (size_t k = 0; k < reds.size(); ++k)
          store_element(pointers_[k], plan_.roots[k]->dtype, at,
                        identity(reds[k].combine, plan_.roots[k]->dtype));
      });
      // Terms r0 + [first, first + count) of the innermost reduced axis, combined in order, then
      // into the accumulator.
      auto accumulate = [&](const Index &r0, Value *first_term, int64_t count) {
        each_element([&](const Index &idx, Value *at) {
          std::vector<Value *> terms(reds.size(), nullptr);
          for (int64_t u = 0; u < count; ++u) {
            Index r = r0;
            if (first_term) r.push_back(b_.CreateAdd(first_term, c64(u), "", true, true));
            for (size_t k = 0; k < reds.size(); ++k) {
              Value *t = reds[k].term(idx, r);
              terms[k] = terms[k] ? binary(reds[k].combine, plan_.roots[k]->dtype, terms[k], t) : t;
            }
          }
          for (size_t k = 0; k < reds.size(); ++k) {
            const DType t = plan_.roots[k]->dtype;
            Value *acc = load_element(pointers_[k], t, at);
            store_element(pointers_[k], t, at, binary(reds[k].combine, t, acc, terms[k]));
          }
        });
      };
      if (red_shape.empty()) {
        accumulate({}, nullptr, 1);
        return;
      }
      // The innermost reduced axis in groups of reduce_unroll terms: the accumulator row is
      // loaded and stored once per group rather than once per term (a row of 4096 doubles does
      // not stay in L1 beside the rows streaming through it).
      const Shape outer(red_shape.begin(), red_shape.end() - 1);
      const int64_t extent = red_shape.back(), groups = extent / reduce_unroll;
      nest(outer, 0, {}, [&](const Index &r0) {
        loop(c64(0), c64(groups), [&](Value *g) {
          accumulate(r0, b_.CreateMul(g, c64(reduce_unroll), "", true, true), reduce_unroll);
        });
        for (int64_t rest = groups * reduce_unroll; rest < extent; ++rest)
          accumulate(r0, c64(rest), 1);
      });
    };
    // The box's rows, each accumulated over the box's part of the last axis.
    std::vector<std::pair<Value *, Value *>> row_bounds(bounds_.begin(), bounds_.end() - 1);
    std::swap(row_bounds, bounds_);
    box_nest(0, {}, [&](const Index &prefix) {
      rows(row_bounds.back().first, row_bounds.back().second, prefix);
    });
    std::swap(row_bounds, bounds_);
  }

  // 0-d reductions and arg-reductions: one accumulator in a register.
  Value *reduce(const Node &n, const Index &kept) {
    if (n.op == Op::ArgMax || n.op == Op::ArgMin) return arg_reduce(n, kept);
    Reduction red = describe_reduction(n);
    const DType acc_t = n.dtype;
    if (acc_t == DType::bool_) return any_or_all(red, kept);
    restrict_to_interval(n, red, kept);
    if (red.combine == Op::Add && (acc_t == DType::float32 || acc_t == DType::float64))
      return with_outside(red, float_sum(red, kept, acc_t));
    llvm::AllocaInst *acc = slot(reg_type(acc_t), identity(red.combine, acc_t));
    each_term(red, [&](const Index &r) {
      Value *term = red.term(kept, r);
      // Reassociation lets the loop vectorizer split the sum into lanes (a different rounding
      // order, as NumPy's pairwise sums also have); only the accumulation gets it.
      llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
      llvm::FastMathFlags reassoc;
      reassoc.setAllowReassoc();
      b_.setFastMathFlags(reassoc);
      Value *prev = b_.CreateLoad(reg_type(acc_t), acc);
      // NaN-propagating max/min as LLVM's maximum/minimum, which the vectorizer can reduce.
      const bool float_extreme =
          is_floating(acc_t) && (red.combine == Op::Max || red.combine == Op::Min);
      Value *next = float_extreme ? intrinsic(red.combine == Op::Max ? llvm::Intrinsic::maximum
                                                                     : llvm::Intrinsic::minimum,
                                              prev, term)
                                  : binary(red.combine, acc_t, prev, term);
      b_.CreateStore(next, acc);
    });
    return b_.CreateLoad(reg_type(acc_t), acc);
  }

  // A float sum (and contraction) into one value accumulates in float64: float32 terms are
  // widened, which costs nothing at memory bandwidth and leaves one rounding, at the end; float64
  // terms (not themselves widened float32) are summed compensated (compensated_sum). Past
  // one block (pairwise_block terms; 4x that for float32) the sum runs in blocks along the
  // innermost reduced axis (rows shorter than a block are gathered into one), each summed in lanes
  // that LLVM may reassociate, and the block sums are combined as a binary counter combines
  // carries: a pairwise tree over the blocks, built in a stack of one partial per level. The
  // error grows as log2 of the length, as NumPy's pairwise summation; the order depends only on
  // the shape, so every mesh and AOT give the same bits.
  Value *float_sum(const Reduction &red, const Index &kept, DType t) {
    if (t == DType::float64 && !red.widened) return compensated_sum(red, kept);
    const DType acc_t = DType::float64;
    llvm::Type *acc_ty = reg_type(acc_t);
    Value *zero = llvm::ConstantFP::get(acc_ty, 0.0);
    // acc += term(r), reassociable: the vectorizer may split it into lanes.
    auto add_term = [&](llvm::AllocaInst *acc, const Index &r) {
      Value *term = convert(red.term(kept, r), t, acc_t);
      llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
      llvm::FastMathFlags reassoc;
      reassoc.setAllowReassoc();
      b_.setFastMathFlags(reassoc);
      b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(acc_ty, acc), term), acc);
    };
    // float32 terms summed in float64 lose nothing in blocks 4x longer (fewer merges).
    const int64_t block = t == DType::float32 ? 4 * pairwise_block : pairwise_block;
    if (shape_size(red.shape) <= block) {
      llvm::AllocaInst *acc = slot(acc_ty, zero);
      each_term(red, [&](const Index &r) { add_term(acc, r); });
      return convert(b_.CreateLoad(acc_ty, acc), acc_t, t);
    }
    // The terms [lo, hi) of the innermost reduced axis after the outer indices r0.
    auto run_sum = [&](const Index &r0, Value *lo, Value *hi) {
      llvm::AllocaInst *acc = slot(acc_ty, zero);
      loop(lo, hi, [&](Value *i) {
        Index r = r0;
        r.push_back(i);
        add_term(acc, r);
      });
      return static_cast<Value *>(b_.CreateLoad(acc_ty, acc));
    };
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    auto *stack_ty = llvm::ArrayType::get(acc_ty, 64);
    llvm::AllocaInst *stack = entry.CreateAlloca(stack_ty);
    auto level = [&](Value *l) { return b_.CreateInBoundsGEP(stack_ty, stack, {c64(0), l}); };
    llvm::AllocaInst *count = slot(i64_, c64(0));
    // Block k's sum merges with the partials of the levels where k has trailing ones.
    auto push = [&](Value *block_sum) {
      Value *k = b_.CreateLoad(i64_, count);
      Value *levels =
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, b_.CreateNot(k), b_.getTrue());
      llvm::AllocaInst *carry = slot(acc_ty, block_sum);
      loop(c64(0), levels, [&](Value *l) {
        b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(acc_ty, level(l)), b_.CreateLoad(acc_ty, carry)),
                       carry);
      });
      b_.CreateStore(b_.CreateLoad(acc_ty, carry), level(levels));
      b_.CreateStore(b_.CreateAdd(k, c64(1), "", true, true), count);
    };
    // Rows (or a row's tail) shorter than a block gather in `pending` until they fill one.
    llvm::AllocaInst *pending = slot(acc_ty, zero);
    llvm::AllocaInst *pending_terms = slot(i64_, c64(0));
    const Shape outer(red.shape.begin(), red.shape.end() - 1);
    const int64_t extent = red.shape.back(), blocks = extent / block, tail = extent % block;
    nest(outer, 0, {}, [&](const Index &r0) {
      if (blocks > 0)
        loop(c64(0), c64(blocks), [&](Value *k) {
          Value *lo = b_.CreateMul(k, c64(block), "", true, true);
          push(run_sum(r0, lo, b_.CreateAdd(lo, c64(block), "", true, true)));
        });
      if (tail == 0) return;
      Value *part = run_sum(r0, c64(blocks * block), c64(extent));
      b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(acc_ty, pending), part), pending);
      Value *terms = b_.CreateAdd(b_.CreateLoad(i64_, pending_terms), c64(tail), "", true, true);
      b_.CreateStore(terms, pending_terms);
      when(b_.CreateICmpSGE(terms, c64(block)), [&] {
        push(b_.CreateLoad(acc_ty, pending));
        b_.CreateStore(zero, pending);
        b_.CreateStore(c64(0), pending_terms);
      });
    });
    // What is pending, then each level's partial, lowest (latest) first.
    llvm::AllocaInst *sum = slot(acc_ty, b_.CreateLoad(acc_ty, pending));
    Value *k = b_.CreateLoad(i64_, count);
    Value *top =
        b_.CreateSub(c64(64), b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, k, b_.getFalse()));
    loop(c64(0), top, [&](Value *l) {
      Value *held = b_.CreateICmpNE(b_.CreateAnd(b_.CreateLShr(k, l), c64(1)), c64(0));
      when(held, [&] {
        b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(acc_ty, level(l)), b_.CreateLoad(acc_ty, sum)),
                       sum);
      });
    });
    return convert(b_.CreateLoad(acc_ty, sum), acc_t, t);
  }

  // A float64 sum into one value: Neumaier's compensated summation in vector lanes along the
  // innermost reduced axis (compensated_vectors vectors of compensated_width, built here because
  // the loop vectorizer only splits reassociable reductions and the SLP vectorizer is off), folded
  // into one compensated total at the end. The error is about one rounding of the result,
  // whatever the length (NumPy's pairwise sum grows as log2 n); the order depends only on the
  // shape, so every mesh and AOT give the same bits.
  Value *compensated_sum(const Reduction &red, const Index &kept) {
    llvm::Type *f64 = reg_type(DType::float64);
    auto *vec = llvm::FixedVectorType::get(f64, compensated_width);
    struct Compensated {
      llvm::AllocaInst *sum, *error;
    };
    auto finite = [&](Value *v) {
      return b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v),
                              llvm::ConstantFP::getInfinity(v->getType()));
    };
    auto accumulator = [&](llvm::Type *type) {
      Value *zero = llvm::ConstantFP::get(type, 0.0);
      return Compensated{slot(type, zero), slot(type, zero)};
    };
    // Neumaier: sum + x rounded, and what the rounding lost (exact, whichever operand is larger).
    auto add = [&](Compensated acc, Value *x) {
      llvm::Type *type = x->getType();
      Value *s = b_.CreateLoad(type, acc.sum);
      Value *t = b_.CreateFAdd(s, x);
      Value *s_larger = b_.CreateFCmpOGE(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, s),
                                         b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
      Value *larger = b_.CreateSelect(s_larger, s, x), *smaller = b_.CreateSelect(s_larger, x, s);
      Value *lost = b_.CreateFAdd(b_.CreateFSub(larger, t), smaller);
      b_.CreateStore(t, acc.sum);
      b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(type, acc.error), lost), acc.error);
    };
    // The compensated total, or the plain sum where that is infinite or NaN (its error is NaN).
    auto result = [&](Compensated acc) {
      Value *s = b_.CreateLoad(f64, acc.sum);
      return b_.CreateSelect(finite(s), b_.CreateFAdd(s, b_.CreateLoad(f64, acc.error)), s);
    };
    // Kahan, in the vector lanes: four adds a step (Neumaier's comparison and selects bound the
    // loop by the FP ports rather than by memory). Its compensation is exact while the running
    // sum is at least the term in magnitude; past a larger term it misses one rounding of the
    // smaller sum. Past an infinite sum the compensation is inf - inf, which turns the lane NaN:
    // a NaN total is summed again plainly (below).
    auto add_kahan = [&](Compensated acc, Value *x) {
      llvm::Type *type = x->getType();
      Value *s = b_.CreateLoad(type, acc.sum);
      Value *y = b_.CreateFSub(x, b_.CreateLoad(type, acc.error));
      Value *t = b_.CreateFAdd(s, y);
      b_.CreateStore(b_.CreateFSub(b_.CreateFSub(t, s), y), acc.error);
      b_.CreateStore(t, acc.sum);
    };
    auto term = [&](const Index &r0, Value *i) {
      Index r = r0;
      r.push_back(i);
      return red.term(kept, r);
    };
    const Compensated total = accumulator(f64);
    constexpr int64_t lanes = compensated_vectors * compensated_width;
    const int64_t extent = red.shape.back();
    const Shape outer(red.shape.begin(), red.shape.end() - 1);
    if (!red.begin && extent < lanes) {
      nest(red.shape, 0, {}, [&](const Index &r) { add(total, red.term(kept, r)); });
      return result(total);
    }
    // Groups of `lanes` terms from the first, then the rest one by one.
    Value *begin = red.begin ? red.begin : c64(0);
    Value *groups = red.begin ? b_.CreateUDiv(b_.CreateSub(red.end, red.begin), c64(lanes))
                              : c64(extent / lanes);
    std::vector<Compensated> vectors;
    for (int64_t v = 0; v < compensated_vectors; ++v)
      vectors.push_back(accumulator(vec));
    llvm::AllocaInst *terms = llvm::IRBuilder<>(&fn_->getEntryBlock(), fn_->getEntryBlock().begin())
                                  .CreateAlloca(llvm::ArrayType::get(f64, lanes));
    auto group_start = [&](Value *g) {
      return b_.CreateAdd(begin, b_.CreateMul(g, c64(lanes), "", true, true), "", true, true);
    };
    nest(outer, 0, {}, [&](const Index &r0) {
      auto groups_from = [&](Value *lo, Value *hi) {
        loop(lo, hi, [&](Value *g) {
          Value *first = group_start(g);
          // The group's terms into a stack row by a loop the vectorizer takes, so that costly
          // terms (softmax's exp) run through libm's vector variants, not a scalar call per lane.
          vectorized_loop(c64(0), c64(lanes), [&](Value *l) {
            b_.CreateStore(term(r0, b_.CreateAdd(first, l, "", true, true)),
                           b_.CreateInBoundsGEP(f64, terms, l));
          });
          for (int64_t v = 0; v < compensated_vectors; ++v)
            add_kahan(vectors[size_t(v)],
                      b_.CreateAlignedLoad(
                          vec, b_.CreateInBoundsGEP(f64, terms, c64(v * compensated_width)),
                          llvm::Align(8)));
        });
      };
      roll_chunks(
          c64(0), groups, roll_chunk / lanes,
          [&](Value *g, bool last) {
            term(r0, b_.CreateAdd(group_start(g), c64(last ? lanes - 1 : 0)));
          },
          groups_from);
      if (red.begin)
        loop(b_.CreateAdd(begin, b_.CreateMul(groups, c64(lanes))), red.end,
             [&](Value *i) { add(total, term(r0, i)); });
      else
        for (int64_t rest = extent / lanes * lanes; rest < extent; ++rest)
          add(total, term(r0, c64(rest)));
    });
    // Kahan's error terms are what the sums still owe (subtracted from the next term).
    for (const Compensated &acc : vectors) {
      Value *sums = b_.CreateLoad(vec, acc.sum), *errors = b_.CreateLoad(vec, acc.error);
      for (int64_t l = 0; l < compensated_width; ++l) {
        add(total, b_.CreateExtractElement(sums, l));
        add(total, b_.CreateFNeg(b_.CreateExtractElement(errors, l)));
      }
    }
    // A NaN here is a NaN term, inf - inf, or a lane that passed an infinity: IEEE's plain sum
    // tells them apart (rare, so the second pass costs nothing in the common case).
    llvm::AllocaInst *sum = slot(f64, result(total));
    when(b_.CreateFCmpUNO(b_.CreateLoad(f64, sum), b_.CreateLoad(f64, sum)), [&] {
      b_.CreateStore(llvm::ConstantFP::get(f64, 0.0), sum);
      each_term(red, [&](const Index &r) {
        b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(f64, sum), red.term(kept, r)), sum);
      });
    });
    return b_.CreateLoad(f64, sum);
  }

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
  Value *any_or_all(const Reduction &red, const Index &kept) {
    const bool any = red.combine == Op::Add || red.combine == Op::Max;
    llvm::Type *word = b_.getInt32Ty();
    llvm::AllocaInst *acc = slot(word, llvm::ConstantInt::get(word, any ? 0 : 1));
    nest(red.shape, 0, {}, [&](const Index &r) {
      Value *term = b_.CreateZExt(red.term(kept, r), word);
      Value *prev = b_.CreateLoad(word, acc);
      b_.CreateStore(any ? b_.CreateOr(prev, term) : b_.CreateAnd(prev, term), acc);
    });
    return b_.CreateICmpNE(b_.CreateLoad(word, acc), llvm::ConstantInt::get(word, 0));
  }

  Value *arg_reduce(const Node &n, const Index &kept) {
    const Node &x = *n.inputs[0];
    const int64_t axis = n.attrs[0];
    const bool is_max = n.op == Op::ArgMax;
    llvm::AllocaInst *best = slot(i64_, c64(0));
    llvm::AllocaInst *best_value = slot(reg_type(x.dtype), extreme(x.dtype, is_max ? -1 : 1));
    llvm::AllocaInst *done = slot(b_.getInt1Ty(), b_.getFalse());
    loop(c64(0), c64(x.shape[axis]), [&](Value *k) {
      Index idx = kept;
      idx.insert(idx.begin() + axis, k);
      Value *v = value(x, idx);
      Value *bv = b_.CreateLoad(reg_type(x.dtype), best_value);
      Value *better = compare(is_max ? Op::Gt : Op::Lt, x.dtype, v, bv);
      Value *nan = is_floating(x.dtype) ? b_.CreateFCmpUNO(v, v) : b_.getFalse();
      Value *was_done = b_.CreateLoad(b_.getInt1Ty(), done);
      // The first NaN wins, as NumPy.
      Value *take = b_.CreateAnd(b_.CreateNot(was_done), b_.CreateOr(nan, better));
      b_.CreateStore(b_.CreateSelect(take, k, b_.CreateLoad(i64_, best)), best);
      b_.CreateStore(b_.CreateSelect(take, v, bv), best_value);
      b_.CreateStore(b_.CreateOr(was_done, b_.CreateAnd(take, nan)), done);
    });
    return b_.CreateLoad(i64_, best);
  }

  Value *dot(const Node &n, const Index &out) { return reduce(n, out); }

  // ---- values of inlined nodes ----

  Value *value(const Node &n, const Index &idx) {
    if (auto it = carry_.find(&n); it != carry_.end()) return it->second;
    if (auto it = captured_.find(&n); it != captured_.end()) return value(*it->second, idx);
    if (auto it = carried_in_output_.find(&n); it != carried_in_output_.end())
      return load_element(pointers_[it->second.first], n.dtype, linear(idx, it->second.second));
    if (auto it = param_.find(&n); it != param_.end()) {
      const size_t k = it->second - plan_.roots.size();
      const std::optional<Shape> &window =
          k < plan_.input_windows.size() ? plan_.input_windows[k] : std::nullopt;
      return load_element(pointers_[it->second], n.dtype,
                          linear(idx, row_major_strides(window.value_or(n.shape))));
    }
    auto key = std::make_pair(&n, idx);
    for (auto scope = memo_.rbegin(); scope != memo_.rend(); ++scope)
      if (auto it = scope->find(key); it != scope->end()) return it->second;
    Value *v = compute(n, idx);
    memo_.back()[key] = v;
    return v;
  }

  Value *compute(const Node &n, const Index &idx) {
    auto in = [&](size_t i) -> const Node & { return *n.inputs[i]; };
    switch (op_kind(n.op)) {
    case OpKind::Leaf: return leaf(n, idx);
    case OpKind::Unary:
      if (n.op == Op::Convert) return convert(value(in(0), idx), in(0).dtype, n.dtype);
      if (n.op == Op::Real || n.op == Op::Imag)
        return b_.CreateExtractValue(value(in(0), idx), n.op == Op::Real ? 0 : 1);
      return unary(n.op, in(0).dtype, value(in(0), idx));
    case OpKind::Binary:
      if (n.op == Op::Complex) {
        Value *z = llvm::PoisonValue::get(reg_type(n.dtype));
        z = b_.CreateInsertValue(z, value(in(0), idx), 0);
        return b_.CreateInsertValue(z, value(in(1), idx), 1);
      }
      if (op_info(n.op).dtype_rule == ir::DTypeRule::Bool)
        return compare(n.op, in(0).dtype, value(in(0), idx), value(in(1), idx));
      return binary(n.op, n.dtype, value(in(0), idx), value(in(1), idx));
    case OpKind::Ternary:
      if (n.op == Op::Fma)
        return b_.CreateIntrinsic(llvm::Intrinsic::fma, {reg_type(n.dtype)},
                                  {value(in(0), idx), value(in(1), idx), value(in(2), idx)});
      return select(value(in(0), idx), value(in(1), idx), value(in(2), idx));
    case OpKind::Movement: return movement(n, idx);
    case OpKind::Control:
      if (n.op == Op::Result) return scan_result(n, idx);
      break;
    case OpKind::Reduce:
    case OpKind::Contraction:
      // A small one in a sequential loop's step (a dot product of a row): one element of it.
      if (plan_.sequential_loop) return reduce(n, idx);
      break;
    case OpKind::Library: break;
    case OpKind::Marker: throw Error("internal: a marker reached codegen (simplify erases them)");
    }
    throw Error(fmt::format("internal: {} must be materialized before it is read", op_name(n.op)));
  }

  // Result k of a scan run inside the kernel (passes::scan_kernel_veto): the scan's loop at this
  // element, its carries in phis, emitted once per element; the finals are memoized under the
  // body's carry params (read through carry_ alone otherwise).
  Value *scan_result(const Node &result, const Index &idx) {
    const Node &scan = *result.inputs[0];
    const ir::Region &body = (*scan.regions)[0];
    const auto carries = size_t(scan.attrs[0]), k = size_t(result.attrs[0]);
    const auto key = std::make_pair(body.params[k].get(), idx);
    for (auto scope = memo_.rbegin(); scope != memo_.rend(); ++scope)
      if (auto it = scope->find(key); it != scope->end()) return it->second;
    auto at = [&](const Node &n) { return n.shape.empty() ? Index{} : idx; };
    std::vector<Value *> init;
    for (size_t i = 0; i < carries; ++i)
      init.push_back(value(*scan.inputs[i], at(*scan.inputs[i])));
    for (size_t i = carries; i < body.params.size(); ++i)
      captured_[body.params[i].get()] = scan.inputs[i].get();
    const std::vector<Value *> finals =
        steps(scan.attrs[2], init, [&](const std::vector<Value *> &carried) {
          for (size_t i = 0; i < carries; ++i)
            carry_[body.params[i].get()] = carried[i];
          std::vector<Value *> next;
          for (size_t i = 0; i < carries; ++i)
            next.push_back(value(*body.outputs[i], at(*body.outputs[i])));
          return next;
        });
    for (size_t i = 0; i < carries; ++i) {
      carry_.erase(body.params[i].get());
      memo_.back()[{body.params[i].get(), idx}] = finals[i];
    }
    return finals[k];
  }

  // A select of complex numbers part by part: a select of pairs keeps the vectorizer away.
  Value *select(Value *cond, Value *a, Value *c) {
    if (!a->getType()->isStructTy()) return b_.CreateSelect(cond, a, c);
    Value *z = llvm::PoisonValue::get(a->getType());
    for (unsigned k = 0; k < 2; ++k)
      z = b_.CreateInsertValue(
          z, b_.CreateSelect(cond, b_.CreateExtractValue(a, k), b_.CreateExtractValue(c, k)), k);
    return z;
  }

  Value *leaf(const Node &n, const Index &idx) {
    switch (n.op) {
    case Op::Literal:
      if (auto it = literal_.find(&n); it != literal_.end()) return literal_values_[it->second];
      return constant(n.dtype, n.fvalue, n.ivalue);
    case Op::Iota: return convert(idx[n.attrs[0]], DType::int64, n.dtype);
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Leaf)
#include "ir/ops.def"
#undef JX_OP
      break;
    case Op::Constant:
    case Op::RandomUniform:
    case Op::Parameter:
      throw Error(fmt::format("internal: {} must be a kernel parameter", op_name(n.op)));
    }
    throw Error(fmt::format("internal: {} is not a leaf", op_name(n.op)));
  }

  Value *movement(const Node &n, const Index &idx) {
    const Node &x = *n.inputs[0];
    const int64_t r = x.ndim();
    switch (n.op) {
    case Op::Broadcast: {
      Index xi(r);
      for (int64_t i = 0; i < r; ++i)
        xi[i] = x.shape[i] == 1 ? c64(0) : idx[n.attrs[i]];
      return value(x, xi);
    }
    case Op::Transpose: {
      Index xi(r);
      for (int64_t i = 0; i < r; ++i)
        xi[n.attrs[i]] = idx[i];
      return value(x, xi);
    }
    case Op::Slice: {
      Index xi(r);
      for (int64_t i = 0; i < r; ++i)
        xi[i] = b_.CreateAdd(c64(n.attrs[i]), b_.CreateMul(idx[i], c64(n.attrs[2 * r + i])));
      return value(x, xi);
    }
    case Op::Reshape: return value(x, reshape_index(n, x, idx));
    case Op::Diagonal: {
      Index xi(r);
      size_t k = 0;
      for (int64_t i = 0; i < r; ++i)
        xi[i] = (i == n.attrs[0] || i == n.attrs[1]) ? idx.back() : idx[k++];
      return value(x, xi);
    }
    case Op::Take: return take(n, x, idx);
    case Op::Pad: return pad(n, x, idx);
    case Op::SliceUpdate: return slice_update(n, x, idx);
    case Op::DynamicSlice: {
      Index xi(r);
      for (int64_t i = 0; i < r; ++i)
        xi[i] = b_.CreateAdd(idx[i], dynamic_start(n, 1, i, x.shape[i] - n.shape[i]), "", true);
      return value(x, xi);
    }
    case Op::DynamicUpdateSlice: return dynamic_update_slice(n, x, idx);
    case Op::Concatenate: return concatenate(n, idx);
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Movement)
#include "ir/ops.def"
#undef JX_OP
      break;
    }
    throw Error(fmt::format("internal: {} is not a movement op", op_name(n.op)));
  }

  // Output and input axes pair up in groups of equal size (a split, a merge, unit axes): within
  // a group the flat index maps over, so a split axis is p * m + q and only merged axes need a
  // division.
  Index reshape_index(const Node &n, const Node &x, const Index &idx) {
    const Shape &out = n.shape, &in = x.shape;
    Index xi(in.size(), c64(0));
    size_t i = 0, j = 0;
    while (i < out.size() || j < in.size()) {
      const size_t i0 = i, j0 = j;
      int64_t po = 1, pi = 1;
      if (i < out.size()) po *= out[i++];
      if (j < in.size()) pi *= in[j++];
      while (po != pi && (i < out.size() || j < in.size())) {
        if (j == in.size() || (po < pi && i < out.size()))
          po *= out[i++];
        else
          pi *= in[j++];
      }
      Value *flat = c64(0);
      int64_t stride = 1;
      for (size_t k = i; k-- > i0;) {
        flat =
            b_.CreateAdd(flat, b_.CreateMul(idx[k], c64(stride), "", true, true), "", true, true);
        stride *= out[k];
      }
      if (j - j0 == 1) {
        xi[j0] = flat;
        continue;
      }
      stride = 1;
      for (size_t k = j; k-- > j0;) {
        xi[k] = b_.CreateURem(b_.CreateUDiv(flat, c64(stride)), c64(in[k]));
        stride *= in[k];
      }
    }
    return xi;
  }

  Value *clamp(Value *v, int64_t lo, int64_t hi) {
    v = b_.CreateSelect(b_.CreateICmpSLT(v, c64(lo)), c64(lo), v);
    return b_.CreateSelect(b_.CreateICmpSGT(v, c64(hi)), c64(hi), v);
  }

  // x at the index the indices hold (counted from the end when negative), clamped into range or
  // read as 0 outside it.
  Value *take(const Node &n, const Node &x, const Index &idx) {
    const Node &indices = *n.inputs[1];
    const int64_t axis = n.attrs[0], k = indices.ndim(), extent = x.shape[axis];
    const Index at(idx.begin() + axis, idx.begin() + axis + k);
    Value *j = value(indices, at);
    j = b_.CreateSelect(b_.CreateICmpSLT(j, c64(0)), b_.CreateAdd(j, c64(extent)), j);
    Value *inside = b_.CreateAnd(b_.CreateICmpSGE(j, c64(0)), b_.CreateICmpSLT(j, c64(extent)));
    Index xi(idx.begin(), idx.begin() + axis);
    xi.push_back(clamp(j, 0, std::max<int64_t>(extent - 1, 0)));
    xi.insert(xi.end(), idx.begin() + axis + k, idx.end());
    Value *v = value(x, xi);
    return n.attrs[1] ? b_.CreateSelect(inside, v, constant(n.dtype, 0, 0)) : v;
  }

  Value *pad(const Node &n, const Node &x, const Index &idx) {
    const int64_t r = x.ndim();
    Value *fill = value(*n.inputs[1], {});
    if (x.size() == 0) return fill;
    Value *inside = b_.getTrue();
    Index at(r);
    for (int64_t i = 0; i < r; ++i) {
      at[i] = b_.CreateSub(idx[i], c64(n.attrs[i]));
      inside = b_.CreateAnd(inside, b_.CreateAnd(b_.CreateICmpSGE(at[i], c64(0)),
                                                 b_.CreateICmpSLT(at[i], c64(x.shape[i]))));
    }
    if (!param_.count(&x)) {
      Index xi(r);
      for (int64_t i = 0; i < r; ++i)
        xi[i] = clamp(at[i], 0, x.shape[i] - 1);
      return b_.CreateSelect(inside, value(x, xi), fill);
    }
    // A buffer's element read under a branch, at the unclamped index: the vectorizer makes it a
    // masked load of contiguous elements, where a clamped index along the vectorized axis makes
    // a gather (slow on Zen 4: the heat stencil's right neighbour). Only for buffer reads: a math
    // call under the branch would keep the loop scalar.
    llvm::BasicBlock *from = b_.GetInsertBlock();
    auto *read = llvm::BasicBlock::Create(ctx_, "pad.read", fn_);
    auto *merge = llvm::BasicBlock::Create(ctx_, "pad.merge", fn_);
    b_.CreateCondBr(inside, read, merge);
    b_.SetInsertPoint(read);
    memo_.emplace_back(); // values computed here do not dominate later uses
    Value *v = value(x, at);
    memo_.pop_back();
    llvm::BasicBlock *read_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode *phi = b_.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, read_end);
    phi->addIncoming(fill, from);
    return phi;
  }

  Value *slice_update(const Node &n, const Node &x, const Index &idx) {
    const Node &update = *n.inputs[1];
    const int64_t r = x.ndim();
    Value *old = value(x, idx);
    if (update.size() == 0) return old;
    Value *on_lattice = b_.getTrue();
    Index d(r);
    for (int64_t i = 0; i < r; ++i) {
      const int64_t start = n.attrs[i], step = n.attrs[2 * r + i];
      const int64_t stride = step > 0 ? step : -step;
      Value *from_start =
          step > 0 ? b_.CreateSub(idx[i], c64(start)) : b_.CreateSub(c64(start), idx[i]);
      on_lattice =
          b_.CreateAnd(on_lattice, b_.CreateICmpEQ(b_.CreateSRem(from_start, c64(stride)), c64(0)));
      d[i] = b_.CreateSDiv(from_start, c64(stride));
    }
    return update_or(update, d, on_lattice, old);
  }

  // update[d] where every d[i] lies in [0, update.shape[i]) and `also` holds, else old.
  Value *update_or(const Node &update, const Index &d, Value *also, Value *old) {
    Value *inside = also;
    Index ui(d.size());
    for (size_t i = 0; i < d.size(); ++i) {
      const int64_t len = update.shape[i];
      inside = b_.CreateAnd(
          inside, b_.CreateAnd(b_.CreateICmpSGE(d[i], c64(0)), b_.CreateICmpSLT(d[i], c64(len))));
      // Along a unit axis the index is 0: the update's element memoized once for every reader.
      ui[i] = len == 1 ? c64(0) : clamp(d[i], 0, len - 1);
    }
    return b_.CreateSelect(inside, value(update, ui), old);
  }

  // Start `axis` of a dynamic slice (input first + axis), clamped into [0, last].
  Value *dynamic_start(const Node &n, size_t first, int64_t axis, int64_t last) {
    return clamp(value(*n.inputs[first + size_t(axis)], {}), 0, last);
  }

  Value *dynamic_update_slice(const Node &n, const Node &x, const Index &idx) {
    const Node &update = *n.inputs[1];
    Value *old = value(x, idx);
    if (update.size() == 0) return old;
    Index d(idx.size());
    for (size_t i = 0; i < idx.size(); ++i)
      d[i] = b_.CreateSub(idx[i], dynamic_start(n, 2, int64_t(i), x.shape[i] - update.shape[i]));
    return update_or(update, d, b_.getTrue(), old);
  }

  // Branches to the one operand that owns the index (binary search over the offsets), so only
  // that operand is computed.
  Value *concatenate(const Node &n, const Index &idx) {
    const int64_t axis = n.attrs[0];
    if (is_repeat(n)) {
      // One operand end to end (roll's concatenate([x, x])): a wrapped index and no branch, so
      // the loop stays vectorizable; at a fixed offset where roll_chunks found one.
      const int64_t m = n.inputs[0]->shape[axis];
      Index pi = idx;
      if (!is_roll(n)) {
        pi[axis] = b_.CreateURem(idx[axis], c64(m));
      } else if (!roll_offsets_.empty()) {
        // The k-th roll read of the chunk's loop body is the probe's k-th.
        if (roll_read_ == roll_offsets_.size() || roll_offsets_[roll_read_].first != &n)
          throw Error("internal: roll reads disagree");
        pi[axis] = b_.CreateSub(idx[axis], roll_offsets_[roll_read_++].second);
      } else {
        if (roll_probe_) roll_probe_->push_back({&n, idx[axis]});
        pi[axis] = b_.CreateSelect(b_.CreateICmpSGE(idx[axis], c64(m)),
                                   b_.CreateSub(idx[axis], c64(m)), idx[axis]);
      }
      return value(*n.inputs[0], pi);
    }
    std::vector<std::pair<const Node *, int64_t>> parts; // operand, offset
    int64_t at = 0;
    for (const ir::NodePtr &p : n.inputs) {
      if (p->shape[axis] > 0) parts.push_back({p.get(), at});
      at += p->shape[axis];
    }
    auto *merge = llvm::BasicBlock::Create(ctx_, "concat.merge", fn_);
    std::vector<std::pair<Value *, llvm::BasicBlock *>> incoming;
    emit_parts(parts, 0, parts.size(), axis, idx, merge, incoming);
    b_.SetInsertPoint(merge);
    llvm::PHINode *phi = b_.CreatePHI(reg_type(n.dtype), unsigned(incoming.size()));
    for (auto &[v, block] : incoming)
      phi->addIncoming(v, block);
    return phi;
  }

  void emit_parts(const std::vector<std::pair<const Node *, int64_t>> &parts, size_t lo, size_t hi,
                  int64_t axis, const Index &idx, llvm::BasicBlock *merge,
                  std::vector<std::pair<Value *, llvm::BasicBlock *>> &incoming) {
    if (hi - lo == 1) {
      auto [part, offset] = parts[lo];
      Index pi = idx;
      pi[axis] = b_.CreateSub(idx[axis], c64(offset));
      memo_.emplace_back();
      Value *v = value(*part, pi);
      memo_.pop_back();
      incoming.push_back({v, b_.GetInsertBlock()});
      b_.CreateBr(merge);
      return;
    }
    const size_t mid = (lo + hi) / 2;
    auto *left = llvm::BasicBlock::Create(ctx_, "concat.lo", fn_);
    auto *right = llvm::BasicBlock::Create(ctx_, "concat.hi", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(idx[axis], c64(parts[mid].second)), left, right);
    b_.SetInsertPoint(left);
    emit_parts(parts, lo, mid, axis, idx, merge, incoming);
    b_.SetInsertPoint(right);
    emit_parts(parts, mid, hi, axis, idx, merge, incoming);
  }

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
  // Values already emitted at an index, per scope (a loop body or a branch region).
  std::vector<std::map<std::pair<const Node *, Index>, Value *>> memo_;
};

} // namespace

void emit_kernel_into(llvm::Module &module, const KernelPlan &plan, const std::string &name) {
  Emitter(module, plan).emit(name);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyFunction(*module.getFunction(name), &os) ||
      llvm::verifyFunction(*module.getFunction(name + ".body"), &os))
    throw Error("internal: invalid LLVM IR for kernel " + name + ": " + os.str());
}

LoopCount count_loops(const KernelPlan &plan) {
  llvm::LLVMContext context;
  llvm::Module module("count_loops", context);
  emit_kernel_into(module, plan, "kernel");
  llvm::Function &body = *module.getFunction("kernel.body");
  llvm::DominatorTree dominators(body);
  llvm::LoopInfo loops(dominators);
  LoopCount count;
  for (const llvm::Loop *loop : loops.getLoopsInPreorder()) {
    ++count.loops;
    count.depth = std::max(count.depth, int(loop->getLoopDepth()));
  }
  return count;
}

std::unique_ptr<llvm::Module> emit_kernel(llvm::LLVMContext &context, const KernelPlan &plan,
                                          const std::string &name) {
  auto module = std::make_unique<llvm::Module>(name, context);
  emit_kernel_into(*module, plan, name);
  return module;
}

} // namespace jx::codegen
