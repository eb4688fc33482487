// The values of a kernel's inlined nodes at an index: elementwise ops through ScalarCode, movement
// ops as index arithmetic, parameters as loads (Emitter, emitter.h).
#include "codegen/emitter.h"

#include <jx/error.h>

#include "ir/op_cases.h"
#include <fmt/format.h>

namespace jx::codegen {

Value *Emitter::linear(const Index &idx, const std::vector<int64_t> &strides) {
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
      at = b_.CreateAdd(at, b_.CreateMul(idx[i], c64(strides[i]), "", true, true), "", true, true);
  return at;
}

Value *Emitter::load_element(Value *base, DType t, Value *at) {
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

void Emitter::store_element(Value *base, DType t, Value *at, Value *v) {
  if (is_complex(t)) {
    for (unsigned k = 0; k < 2; ++k)
      b_.CreateStore(b_.CreateExtractValue(v, k),
                     b_.CreateInBoundsGEP(mem_type(t), base, {at, b_.getInt32(k)}));
    return;
  }
  if (t == DType::bool_) v = b_.CreateZExt(v, mem_type(t));
  b_.CreateStore(v, b_.CreateInBoundsGEP(mem_type(t), base, at));
}

Value *Emitter::value(const Node &n, const Index &idx) {
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

Value *Emitter::compute(const Node &n, const Index &idx) {
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
Value *Emitter::scan_result(const Node &result, const Index &idx) {
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
Value *Emitter::select(Value *cond, Value *a, Value *c) {
  if (!a->getType()->isStructTy()) return b_.CreateSelect(cond, a, c);
  Value *z = llvm::PoisonValue::get(a->getType());
  for (unsigned k = 0; k < 2; ++k)
    z = b_.CreateInsertValue(
        z, b_.CreateSelect(cond, b_.CreateExtractValue(a, k), b_.CreateExtractValue(c, k)), k);
  return z;
}

Value *Emitter::leaf(const Node &n, const Index &idx) {
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

Value *Emitter::movement(const Node &n, const Index &idx) {
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
Index Emitter::reshape_index(const Node &n, const Node &x, const Index &idx) {
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
      flat = b_.CreateAdd(flat, b_.CreateMul(idx[k], c64(stride), "", true, true), "", true, true);
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

Value *Emitter::clamp(Value *v, int64_t lo, int64_t hi) {
  v = b_.CreateSelect(b_.CreateICmpSLT(v, c64(lo)), c64(lo), v);
  return b_.CreateSelect(b_.CreateICmpSGT(v, c64(hi)), c64(hi), v);
}

// x at the index the indices hold (counted from the end when negative), clamped into range or
// read as 0 outside it.
Value *Emitter::take(const Node &n, const Node &x, const Index &idx) {
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

Value *Emitter::pad(const Node &n, const Node &x, const Index &idx) {
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
  if (pad_probe_) pad_probe_->push_back(inside);
  if (pads_inside_) {
    // pad_parts' middle part: every pad read inside its array.
    ++pad_reads_;
    return value(x, at);
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

Value *Emitter::slice_update(const Node &n, const Node &x, const Index &idx) {
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
Value *Emitter::update_or(const Node &update, const Index &d, Value *also, Value *old) {
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
Value *Emitter::dynamic_start(const Node &n, size_t first, int64_t axis, int64_t last) {
  return clamp(value(*n.inputs[first + size_t(axis)], {}), 0, last);
}

Value *Emitter::dynamic_update_slice(const Node &n, const Node &x, const Index &idx) {
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
Value *Emitter::concatenate(const Node &n, const Index &idx) {
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

void Emitter::emit_parts(const std::vector<std::pair<const Node *, int64_t>> &parts, size_t lo,
                         size_t hi, int64_t axis, const Index &idx, llvm::BasicBlock *merge,
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

} // namespace jx::codegen
