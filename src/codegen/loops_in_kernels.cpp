// Kernels that update their operand in place, and loops run inside a kernel: step by step
// (sequential loops) or over tiles of their carries (scans) (Emitter, emitter.h).
#include "codegen/emitter.h"

#include <jx/error.h>

#include <fmt/format.h>

namespace jx::codegen {

// An update of the operand the output already holds: each element of the update (the loops'
// index space) stored at its place, start + step * index, the starts clamped as the op's.
void Emitter::emit_update(const std::vector<int64_t> &strides) {
  store_update(*plan_.roots[0], 0, strides,
               [&](const std::function<void(const Index &)> &f) { box_nest(0, {}, f); });
}

// Where update `root` writes element idx of its update: its starts (clamped) plus idx times its
// steps.
std::function<Index(const Index &)> Emitter::update_places(const Node &root) {
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

// A loop run step by step inside the kernel (passes::sequential_loop_veto): the carries it
// changes live in the outputs (output 0 holds its initial value already, the others are copied
// in first). Each step computes its 0-d carries' next values (phis), then stores its updates
// carry by carry in passes::sequential_loop_order's order (a carry stored earlier is read from
// its output), each update as it is computed where it is in place, else through a stack
// temporary; with no such order, every update goes through a temporary before any store. The
// carries it leaves as they are, and what it captures, are read from the loop's operands; the
// 0-d carries read after it are stored last.
void Emitter::emit_sequential_loop() {
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
  // Where the loop splits (passes::sequential_loop_split), what it stores or stages is its part:
  // along axis 0 the row it runs, along another the box's part of that axis.
  const bool split = !plan_.loop_split.empty();
  const size_t split_axis = plan_.loop_split_axis;
  const bool by_rows = plan_.loop_row_by_row;
  Value *row = nullptr;
  auto over = [&](const Shape &shape) {
    return [&, shape](const std::function<void(const Index &)> &f) {
      if (row) return nest(shape, 1, {row}, f);
      if (!split) return nest(shape, 0, {}, f);
      std::vector<Span> spans;
      for (size_t a = 0; a < shape.size(); ++a)
        spans.push_back(a == split_axis
                            ? Span{a, bounds_[0].first, bounds_[0].second, shape[a], false}
                            : Span{a, c64(0), c64(shape[a]), shape[a], true});
      Index idx(shape.size());
      span_nest(spans, idx, f);
    };
  };
  auto staged_strides = [&](const Shape &shape) {
    std::vector<int64_t> at = row_major_strides(shape);
    if (by_rows) at[0] = 0;
    return at;
  };
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
  // Staged updates: each output's updates (first to last) or its replacement
  // (passes::replaces_carry, no update root), a temporary each, in the entry block.
  struct Staged {
    size_t out;
    const Node *root;
    const Node *update;
    llvm::AllocaInst *values;
  };
  std::vector<Staged> staged;
  const std::vector<size_t> order = passes::sequential_loop_order(loop);
  if (passes::sequential_loop_staged(loop)) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    for (size_t r = 0; r < changed.size(); ++r) {
      std::vector<const Node *> roots = passes::sequential_loop_updates(loop, changed[r]);
      if (roots.empty()) roots = {nullptr}; // a replacement
      for (const Node *root : roots) {
        const Node *update = root ? root->inputs[1].get() : body.outputs[changed[r]].get();
        const int64_t elements = update->size() / (by_rows ? update->shape[0] : 1);
        staged.push_back(
            {r, root, update, entry.CreateAlloca(mem_type(update->dtype), c64(elements))});
      }
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
    // One-element updates first, in the step's scope: others read them (gramschmidt's column
    // update reads the dot product its R update writes) without computing them again in their
    // loops.
    for (const Staged &u : staged)
      if (const Node &update = *u.update; update.size() == 1)
        value(update, Index(update.shape.size(), c64(0)));
    // Staged updates' values (of output `out`, or all), then their stores in order.
    auto stage_and_store = [&](std::optional<size_t> out) {
      std::vector<std::function<Index(const Index &)>> places(staged.size());
      for (size_t k = 0; k < staged.size(); ++k) {
        const Staged &u = staged[k];
        if (out && u.out != *out) continue;
        const Node &update = *u.update;
        places[k] = u.root ? update_places(*u.root) : [](const Index &idx) { return idx; };
        const auto at = staged_strides(update.shape);
        over(update.shape)([&](const Index &idx) {
          store_element(u.values, update.dtype, linear(idx, at), value(update, idx));
        });
      }
      for (size_t k = 0; k < staged.size(); ++k) {
        const Staged &u = staged[k];
        if (out && u.out != *out) continue;
        const Node &update = *u.update;
        const auto at = staged_strides(update.shape);
        over(update.shape)([&](const Index &idx) {
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
        store_update(root, r, strides[r], over(root.inputs[1]->shape));
      } else {
        stage_and_store(r);
      }
      carried_in_output_[body.outputs[k].get()] = {r, strides[r]};
    }
    for (size_t k : order)
      carried_in_output_.erase(body.outputs[k].get());
    return next;
  };
  auto run = [&] {
    // The first carry's output starts as its initial value where it updates that (the runtime
    // copies it, or hands over its memory); the others are copied here.
    for (size_t r = plan_.updates_operand ? 1 : 0; r < changed.size(); ++r) {
      const Node &init_value = *loop.inputs[changed[r]];
      over(init_value.shape)([&](const Index &idx) {
        store_element(pointers_[r], init_value.dtype, linear(idx, strides[r]),
                      value(init_value, idx));
      });
    }
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
    if (changed.size() == plan_.roots.size()) return;
    // The 0-d carries read after the loop, alike for every part: the part at 0 stores them.
    llvm::BasicBlock *done = nullptr;
    if (split) {
      auto *store = llvm::BasicBlock::Create(ctx_, "finals", fn_);
      done = llvm::BasicBlock::Create(ctx_, "finals.done", fn_);
      b_.CreateCondBr(b_.CreateICmpEQ(row ? row : bounds_[0].first, c64(0)), store, done);
      b_.SetInsertPoint(store);
    }
    for (size_t r = changed.size(); r < plan_.roots.size(); ++r) {
      const auto k = size_t(plan_.roots[r]->attrs[0]);
      const size_t s = size_t(std::find(scalar.begin(), scalar.end(), k) - scalar.begin());
      store_element(pointers_[r], plan_.roots[r]->dtype, c64(0), finals[s]);
    }
    if (done) {
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    }
  };
  if (by_rows) {
    this->loop(bounds_[0].first, bounds_[0].second, [&](Value *r) {
      row = r;
      run();
    });
  } else {
    run();
  }
  for (const ir::Region &r : *loop.regions)
    for (const ir::NodePtr &p : r.params) {
      carry_.erase(p.get());
      carried_in_output_.erase(p.get());
    }
}

// The scan whose results are this kernel's roots, or null.
const Node *Emitter::kernel_scan() const {
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
void Emitter::emit_scan_tiles(const Node &scan, const std::vector<int64_t> &strides) {
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
    return b_.CreateInsertValue(z, b_.CreateLoad(part, b_.CreateInBoundsGEP(part, imaginary[i], j)),
                                1);
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

} // namespace jx::codegen
