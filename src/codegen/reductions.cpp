// Reductions and contractions at a kernel's root: rows accumulated in registers, float sums
// pairwise or compensated, bool and arg reductions (Emitter, emitter.h).
#include "codegen/emitter.h"

#include <jx/error.h>

#include <fmt/format.h>

namespace jx::codegen {

Emitter::Reduction Emitter::describe_reduction(const Node &n) {
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
void Emitter::restrict_to_interval(const Node &n, Reduction &red, const Index &kept) {
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

// What the terms outside red's interval add to its result.
Value *Emitter::with_outside(const Reduction &red, Value *result) {
  return red.outside ? b_.CreateFAdd(result, red.outside) : result;
}

Value *Emitter::identity(Op combine, DType t) {
  switch (combine) {
  case Op::Add: return constant(t, 0, 0);
  case Op::Mul: return constant(t, 1, 1);
  default: return extreme(t, combine == Op::Max ? -1 : 1);
  }
}

// The roots (one reduction or contraction, or sibling reductions over the same axes of
// operands of one shape: multi-output fusion) accumulated together, each into its output in
// the order it would have alone; what their terms share is computed once per element.
void Emitter::emit_row_reductions() {
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
Value *Emitter::reduce(const Node &n, const Index &kept) {
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
Value *Emitter::float_sum(const Reduction &red, const Index &kept, DType t) {
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
    Value *levels = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, b_.CreateNot(k), b_.getTrue());
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
Value *Emitter::compensated_sum(const Reduction &red, const Index &kept) {
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
  Value *groups =
      red.begin ? b_.CreateUDiv(b_.CreateSub(red.end, red.begin), c64(lanes)) : c64(extent / lanes);
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

// Bool sums, products and contractions (any / all of the terms) accumulate in an i32: with an
// i1 or i8 accumulator the vectorizer takes 64 lanes over strided loads and emits thousands of
// shuffles (a (64,8,17) x (64,) bool tensordot: 2.3 s to compile; 0.16 s so).
Value *Emitter::any_or_all(const Reduction &red, const Index &kept) {
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

Value *Emitter::arg_reduce(const Node &n, const Index &kept) {
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

} // namespace jx::codegen
