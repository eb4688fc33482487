// Fused kernel -> LLVM IR. The kernel is a loop nest over the root's index space; every node
// inlined into it is emitted as a function of an index vector: movement ops rewrite the index,
// elementwise ops combine values at the same index, parameters are loads. Reductions and
// contractions at the root add inner loops with an accumulator. LLVM's O3 pipeline then hoists
// loop invariants (LICM), removes duplicate work (GVN) and vectorizes the innermost loop. This
// file: the kernel's entry, its stores (plain, tiled, streamed); the emitter's other parts are
// listed in emitter.h.
#include "codegen/emit.h"
#include "codegen/emitter.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace jx::codegen {

void Emitter::emit(const std::string &name) {
  auto *ptr = llvm::PointerType::get(ctx_, 0);
  const size_t outputs = plan_.roots.size();
  const size_t buffer_count = outputs + plan_.inputs.size() + 1; // outputs, inputs, literals
  // The body takes every buffer as its own noalias argument (buffers never overlap: outputs
  // are fresh, inputs are read-only), so the vectorizer needs no runtime alias checks; the
  // exported entry point unpacks the buffer array and calls it (inlined).
  std::vector<llvm::Type *> params{ptr};
  params.insert(params.end(), buffer_count, ptr);
  fn_ = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false),
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
  pads_ = !rolls_ && reads_pads();
  if (pads_)
    first_computed([&](const Node &n) {
      if (n.op == Op::Pad)
        for (int64_t width : n.attrs)
          pad_edge_ = std::max(pad_edge_, std::abs(width));
      return false;
    });

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
      } else if (rolls_ || pads_) {
        // Rows of the last axis in parts: roll_chunks or pad_parts.
        box_nest(
            0, {},
            [&](const Index &outer) {
              Index idx = outer;
              idx.push_back(nullptr);
              auto at = [&](Value *i) {
                idx.back() = i;
                return idx;
              };
              auto probe = [&](Value *i) {
                for (const ir::NodePtr &root : plan_.roots)
                  root_value(*root, at(i));
              };
              auto run = [&](Value *lo, Value *hi, bool edge) {
                llvm::BranchInst *latch = loop(lo, hi, [&](Value *i) { store_all(at(i)); });
                if (edge) keep_scalar(latch);
              };
              const auto &[begin, end] = bounds_.back();
              if (rolls_)
                roll_chunks(
                    begin, end, roll_chunk, [&](Value *i, bool) { probe(i); },
                    [&](Value *lo, Value *hi) { run(lo, hi, false); });
              else
                pad_parts(begin, end, probe, run);
            },
            out.size() - 1);
      } else {
        box_nest(0, {}, store_all);
      }
    });
  }
  b_.CreateRetVoid();
}

// Whether every value the kernel computes reads its operands at indices monotone along each
// loop, in straight-line code: elementwise ops and the movements below (a 0-d reduction root
// where `reduction_root`).
bool Emitter::monotone_indices(bool reduction_root) const {
  auto monotone = [&](const Node &n) {
    switch (op_kind(n.op)) {
    case OpKind::Leaf:
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Ternary: return true;
    case OpKind::Reduce:
    case OpKind::Contraction:
      return reduction_root && n.shape.empty() && &n == plan_.roots[0].get();
    case OpKind::Movement:
      return n.op == Op::Broadcast || n.op == Op::Transpose || n.op == Op::Slice ||
             n.op == Op::DynamicSlice || n.op == Op::DynamicUpdateSlice || n.op == Op::Pad ||
             is_roll(n);
    default: return false;
    }
  };
  return !first_computed([&](const Node &n) { return !monotone(n); });
}

bool Emitter::reads_rolls() const { return first_computed(is_roll) && monotone_indices(true); }

bool Emitter::reads_pads() const {
  return first_computed([](const Node &n) { return n.op == Op::Pad; }) && monotone_indices(false);
}

void Emitter::pad_parts(Value *begin, Value *end, const std::function<void(Value *)> &probe,
                        const std::function<void(Value *, Value *, bool)> &run) {
  auto part = [&](Value *lo, Value *hi, bool edge) {
    memo_.emplace_back();
    run(lo, hi, edge);
    memo_.pop_back();
  };
  Value *middle_lo =
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(begin, c64(pad_edge_)), end);
  Value *middle_hi =
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, middle_lo, b_.CreateSub(end, c64(pad_edge_)));
  part(begin, middle_lo, true);
  auto *probed = llvm::BasicBlock::Create(ctx_, "pad.probe", fn_);
  auto *inside = llvm::BasicBlock::Create(ctx_, "pad.inside", fn_);
  auto *checked = llvm::BasicBlock::Create(ctx_, "pad.checked", fn_);
  auto *done = llvm::BasicBlock::Create(ctx_, "pad.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(middle_lo, middle_hi), probed, done);
  b_.SetInsertPoint(probed);
  std::vector<Value *> checks;
  pad_probe_ = &checks;
  for (Value *i : {middle_lo, b_.CreateSub(middle_hi, c64(1))}) {
    memo_.emplace_back();
    probe(i);
    memo_.pop_back();
  }
  pad_probe_ = nullptr;
  Value *all = b_.getTrue();
  for (Value *check : checks)
    all = b_.CreateAnd(all, check);
  b_.CreateCondBr(all, inside, checked);
  b_.SetInsertPoint(inside);
  pads_inside_ = true;
  pad_reads_ = 0;
  part(middle_lo, middle_hi, false);
  pads_inside_ = false;
  if (2 * pad_reads_ != checks.size()) throw Error("internal: pad reads disagree with the probes");
  b_.CreateBr(done);
  b_.SetInsertPoint(checked);
  part(middle_lo, middle_hi, false);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  part(middle_hi, end, true);
}

// The first 0-d bool, not a literal, that a select of the kernel takes as its predicate
// (through broadcasts); null if none.
const Node *Emitter::selecting_flag() const {
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

// The KernelFn-typed function: loads the buffer pointers and calls the body.
void Emitter::emit_entry_point(const std::string &name, size_t buffer_count) {
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

// Spans of the output axes [first, stop) within the kernel's box.
std::vector<Emitter::Span> Emitter::box_spans(size_t first, size_t stop) {
  std::vector<Span> spans;
  const Shape &extent = plan_.loop_shape();
  for (size_t a = first; a < stop; ++a)
    spans.push_back({a, bounds_[a].first, bounds_[a].second, extent[a], !plan_.boxed(a)});
  return spans;
}

// Whether the kernel writes its outputs with streaming stores (the driver asks for it where
// they are large and no later step reads them): elementwise roots that are not bool, whose
// tile rows and row chunks are whole cache lines (not bool, int8 or uint8), not complex (a
// vector of pairs is no LLVM type). Streamed, a 4096^2
// float64 transpose + 1 on 2 threads takes 7.8 ms against 21.9 with ordinary stores, whose
// read-for-ownership of each line costs more than the read of the input (memcpy: 9.5 ms, a
// streamed copy 5.6 ms).
bool Emitter::streams() const {
  if (!plan_.stream_outputs) return false;
  for (const ir::NodePtr &root : plan_.roots)
    if (itemsize(root->dtype) * tile_edge % cache_line != 0 || is_complex(root->dtype) ||
        op_kind(root->op) == OpKind::Reduce || op_kind(root->op) == OpKind::Contraction)
      return false;
  return true;
}

// A stack buffer of `count` elements per output, cache-line aligned.
std::vector<llvm::AllocaInst *> Emitter::stack_buffers(int64_t count) {
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  std::vector<llvm::AllocaInst *> buffers;
  for (const ir::NodePtr &root : plan_.roots) {
    llvm::AllocaInst *a = entry.CreateAlloca(mem_type(root->dtype), c64(count));
    a->setAlignment(llvm::Align(cache_line));
    buffers.push_back(a);
  }
  return buffers;
}

// The tiled nest computing each tile into a stack buffer per output, then copying its rows out
// with streaming stores, and a fence so the stores are visible before the kernel returns.
void Emitter::emit_streamed_tiles(const std::vector<int64_t> &strides) {
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
void Emitter::emit_streamed_rows(const std::vector<int64_t> &strides) {
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

// The output axis to tile together with the last one when the kernel reads a large input
// transposed (a transpose of the output's shape whose innermost output axis is not its input's
// innermost axis), or -1.
int Emitter::transposed_axis() const {
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

Value *Emitter::root_value(const Node &root, const Index &idx) {
  switch (op_kind(root.op)) {
  case OpKind::Reduce: return reduce(root, idx);
  case OpKind::Contraction: return dot(root, idx);
  default: return value(root, idx);
  }
}

// Accumulators in stack slots: SROA/mem2reg turn them into registers.
llvm::AllocaInst *Emitter::slot(llvm::Type *type, Value *init) {
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  llvm::AllocaInst *a = entry.CreateAlloca(type);
  b_.CreateStore(init, a);
  return a;
}

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
