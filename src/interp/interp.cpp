// Reference evaluator: walks the graph in topological order and computes each node into a fresh
// buffer with plain loops. Movement ops are affine index maps (gather/scatter with strides).
#include "interp/interp.h"

#include <jx/error.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <fmt/format.h>
#include <unordered_map>

#include "interp/dispatch.h"
#include "interp/scalar_ops.h"
#include "ir/builder.h"
#include "ir/op_cases.h"
#include "ir/printer.h"
#include "runtime/threefry.h"

namespace jx::interp {
namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;
using runtime::BufferPtr;

// Calls f(affine_offset, linear_index) for each index of shape in row-major order, where
// affine_offset = base + sum(index[k] * strides[k]).
template <class F>
void for_each_index(const Shape &shape, const std::vector<int64_t> &strides, int64_t base, F &&f) {
  const int64_t n = shape_size(shape);
  if (n == 0) return;
  const size_t r = shape.size();
  if (r == 0) {
    f(base, int64_t(0));
    return;
  }
  std::vector<int64_t> idx(r, 0);
  const int64_t inner = shape[r - 1], inner_stride = strides[r - 1];
  int64_t offset = base;
  for (int64_t linear = 0; linear < n; linear += inner) {
    for (int64_t i = 0; i < inner; ++i)
      f(offset + i * inner_stride, linear + i);
    for (size_t k = r - 1; k-- > 0;) {
      offset += strides[k];
      if (++idx[k] < shape[k]) break;
      offset -= strides[k] * shape[k];
      idx[k] = 0;
    }
  }
}

BufferPtr alloc(const Node &n) { return runtime::make_buffer(n.size() * itemsize(n.dtype)); }

// out[i] = in[affine(i)] over the output's index space.
template <class T>
void gather(const T *in, T *out, const Shape &out_shape, const std::vector<int64_t> &strides,
            int64_t base) {
  for_each_index(out_shape, strides, base, [&](int64_t src, int64_t dst) { out[dst] = in[src]; });
}

// out[affine(i)] = in[i] over the input's index space.
template <class T>
void scatter(const T *in, T *out, const Shape &in_shape, const std::vector<int64_t> &strides,
             int64_t base) {
  for_each_index(in_shape, strides, base, [&](int64_t dst, int64_t src) { out[dst] = in[src]; });
}

// A region's outputs for these values of its params.
std::vector<BufferPtr> run_region(const ir::Region &region, const std::vector<BufferPtr> &args) {
  Bindings bindings;
  for (size_t i = 0; i < region.params.size(); ++i)
    bindings[region.params[i].get()] = args[i];
  return evaluate(region.outputs, bindings);
}

struct Evaluator {
  std::unordered_map<const Node *, BufferPtr> values;
  // Per control op, its results (read by its result nodes).
  std::unordered_map<const Node *, std::vector<BufferPtr>> results;

  const BufferPtr &value(const ir::NodePtr &n) { return values.at(n.get()); }

  BufferPtr eval(const Node &n) {
    if (op_kind(n.op) == OpKind::Control) return control(n);
    if (op_kind(n.op) == OpKind::Library) return library(n);
    if (is_complex(n.dtype)) return eval_complex(n);
    BufferPtr out;
    dispatch_dtype(n.dtype, [&](auto tag) {
      using T = decltype(tag);
      out = eval_typed<T>(n);
    });
    return out;
  }

  template <class T> BufferPtr eval_typed(const Node &n) {
    switch (op_kind(n.op)) {
    case OpKind::Leaf: return leaf<T>(n);
    case OpKind::Unary: return unary<T>(n);
    case OpKind::Binary: return binary<T>(n);
    case OpKind::Ternary: return n.op == Op::Fma ? fma<T>(n) : select<T>(n);
    case OpKind::Movement: return movement<T>(n);
    case OpKind::Reduce: return reduce<T>(n);
    case OpKind::Contraction: return dot<T>(n);
    case OpKind::Marker:
      if (n.op == Op::CustomLin) ir::throw_custom_lin_has_no_value();
      return value(n.inputs[0]);
    case OpKind::Control:
    case OpKind::Library: break;
    }
    throw Error("internal: unknown op kind");
  }

  // Complex values are only built, moved, selected and taken apart (ir::finish).
  BufferPtr eval_complex(const Node &n) {
    if (n.op == Op::Constant) return n.value();
    if (n.op == Op::StopGradient || op_kind(n.op) == OpKind::Marker) return value(n.inputs[0]);
    BufferPtr out;
    dispatch_any_dtype(n.dtype, [&](auto tag) {
      using C = decltype(tag);
      if constexpr (is_complex_type<C>) {
        using R = typename C::value_type;
        if (op_kind(n.op) == OpKind::Movement) {
          out = movement<C>(n);
        } else if (n.op == Op::Select) {
          out = select<C>(n);
        } else if (n.op == Op::Complex) {
          out = alloc(n);
          C *o = out->as<C>();
          const R *re = value(n.inputs[0])->as<R>(), *im = value(n.inputs[1])->as<R>();
          for (int64_t i = 0, size = n.size(); i < size; ++i)
            o[i] = C(re[i], im[i]);
        } else {
          throw Error(fmt::format("internal: {} on complex numbers (ir::finish builds it from "
                                  "real ops)",
                                  op_name(n.op)));
        }
      }
    });
    return out;
  }

  // real(z), imag(z): T is the parts' type.
  template <class T> BufferPtr part(const Node &n) {
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    const auto *z = value(n.inputs[0])->as<std::complex<T>>();
    for (int64_t i = 0, size = n.size(); i < size; ++i)
      o[i] = n.op == Op::Real ? z[i].real() : z[i].imag();
    return out;
  }

  // The runtime's routine, as compiled programs run it.
  BufferPtr library(const Node &n) {
    std::vector<const void *> in;
    for (const ir::NodePtr &x : n.inputs)
      in.push_back(value(x)->data());
    BufferPtr out = runtime::make_buffer(size_t(n.size()) * itemsize(n.dtype));
    runtime::run_library(ir::library_of(n), n.inputs[0]->dtype, ir::library_extent(n), in,
                         out->data());
    return out;
  }

  // while: cond, then body, until cond is false; case: the clamped index's branch. The op's own
  // buffer is a placeholder (it is no value); its results wait for its result nodes.
  BufferPtr control(const Node &n) {
    if (n.op == Op::Result) return results.at(n.inputs[0].get()).at(size_t(n.attrs[0]));
    std::vector<BufferPtr> in;
    for (const ir::NodePtr &x : n.inputs)
      in.push_back(value(x));
    const ir::Regions &regions = *n.regions;
    if (n.op == Op::Scan) {
      results[&n] = scan(n, std::move(in));
      return runtime::make_buffer(1);
    }
    if (n.op == Op::While) {
      while (run_region(regions[0], in)[0]->as<bool>()[0]) {
        std::vector<BufferPtr> next = run_region(regions[1], in);
        std::move(next.begin(), next.end(), in.begin());
      }
      in.resize(size_t(n.attrs[0]));
      results[&n] = std::move(in);
    } else {
      const int64_t last = int64_t(regions.size()) - 1;
      const int64_t index = std::clamp<int64_t>(in[0]->as<int32_t>()[0], 0, last);
      results[&n] = run_region(regions[size_t(index)], {in.begin() + 1, in.end()});
    }
    return runtime::make_buffer(1);
  }

  // scan: the body on the carries and row t of each xs, t up (or down, reversed); each output row
  // copied into its stacked result. Returns the carries, then the stacked outputs.
  static std::vector<BufferPtr> scan(const Node &n, std::vector<BufferPtr> args) {
    const auto carries = size_t(n.attrs[0]), xs = size_t(n.attrs[1]);
    const int64_t length = n.attrs[2];
    const ir::Region &body = (*n.regions)[0];
    auto bytes_of = [](const Node &x) { return size_t(x.size()) * itemsize(x.dtype); };
    const std::vector<BufferPtr> whole(args.begin() + std::ptrdiff_t(carries),
                                       args.begin() + std::ptrdiff_t(carries + xs));
    std::vector<BufferPtr> stacked;
    for (size_t k = carries; k < body.outputs.size(); ++k)
      stacked.push_back(runtime::make_buffer(bytes_of(*body.outputs[k]) * size_t(length)));
    for (int64_t step = 0; step < length; ++step) {
      const auto t = size_t(n.attrs[3] ? length - 1 - step : step);
      for (size_t k = 0; k < xs; ++k) {
        const size_t bytes = bytes_of(*body.params[carries + k]);
        BufferPtr row = runtime::make_buffer(bytes);
        if (bytes) std::memcpy(row->data(), whole[k]->as<char>() + t * bytes, bytes);
        args[carries + k] = std::move(row);
      }
      const std::vector<BufferPtr> out = run_region(body, args);
      std::copy(out.begin(), out.begin() + std::ptrdiff_t(carries), args.begin());
      for (size_t k = 0; k < stacked.size(); ++k) {
        const size_t bytes = bytes_of(*body.outputs[carries + k]);
        if (bytes) std::memcpy(stacked[k]->as<char>() + t * bytes, out[carries + k]->data(), bytes);
      }
    }
    args.resize(carries);
    args.insert(args.end(), stacked.begin(), stacked.end());
    return args;
  }

  template <class T> BufferPtr leaf(const Node &n) {
    if (n.op == Op::Constant) return n.value();
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    switch (n.op) {
    case Op::Literal: o[0] = is_floating(n.dtype) ? T(n.fvalue) : T(n.ivalue); break;
    case Op::Iota: {
      std::vector<int64_t> strides(n.ndim(), 0);
      strides[n.attrs[0]] = 1;
      for_each_index(n.shape, strides, 0, [&](int64_t v, int64_t i) { o[i] = static_cast<T>(v); });
      break;
    }
    case Op::Parameter: throw_concretization_error(n);
    case Op::RandomUniform:
      random_impl::uniform01({uint32_t(n.attrs[0]), uint32_t(n.attrs[1])}, n.shape, n.dtype, o);
      break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Leaf)
#include "ir/ops.def"
#undef JX_OP
    case Op::Constant: throw Error("internal: not a leaf");
    }
    return out;
  }

  template <class T> BufferPtr unary(const Node &n) {
    if constexpr (std::is_floating_point_v<T>)
      if (n.op == Op::Real || n.op == Op::Imag) return part<T>(n);
    const ir::NodePtr &x = n.inputs[0];
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    const int64_t size = n.size();
    if (n.op == Op::Convert) {
      dispatch_dtype(x->dtype, [&](auto from_tag) {
        using F = decltype(from_tag);
        const F *in = value(x)->template as<F>();
        for (int64_t i = 0; i < size; ++i)
          o[i] = convert_scalar<T, F>(in[i]);
      });
    } else if (n.op == Op::IsNan || n.op == Op::IsFinite || n.op == Op::SignBit) {
      dispatch_dtype(x->dtype, [&](auto from_tag) {
        using F = decltype(from_tag);
        const F *in = value(x)->template as<F>();
        for (int64_t i = 0; i < size; ++i)
          o[i] = predicate_scalar<F>(n.op, in[i]);
      });
    } else {
      const T *in = value(x)->as<T>();
      for (int64_t i = 0; i < size; ++i)
        o[i] = unary_scalar<T>(n.op, in[i]);
    }
    return out;
  }

  template <class T> BufferPtr binary(const Node &n) {
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    const int64_t size = n.size();
    if (op_info(n.op).dtype_rule == ir::DTypeRule::Bool) {
      dispatch_dtype(n.inputs[0]->dtype, [&](auto in_tag) {
        using F = decltype(in_tag);
        const F *a = value(n.inputs[0])->template as<F>(),
                *b = value(n.inputs[1])->template as<F>();
        for (int64_t i = 0; i < size; ++i)
          o[i] = compare_scalar<F>(n.op, a[i], b[i]);
      });
    } else {
      const T *a = value(n.inputs[0])->as<T>(), *b = value(n.inputs[1])->as<T>();
      for (int64_t i = 0; i < size; ++i)
        o[i] = binary_scalar<T>(n.op, a[i], b[i]);
    }
    return out;
  }

  template <class T> BufferPtr select(const Node &n) {
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    const bool *p = value(n.inputs[0])->as<bool>();
    const T *a = value(n.inputs[1])->as<T>(), *b = value(n.inputs[2])->as<T>();
    for (int64_t i = 0, size = n.size(); i < size; ++i)
      o[i] = p[i] ? a[i] : b[i];
    return out;
  }

  template <class T> BufferPtr fma(const Node &n) {
    BufferPtr out = alloc(n);
    if constexpr (std::is_floating_point_v<T>) {
      T *o = out->as<T>();
      const T *a = value(n.inputs[0])->as<T>(), *b = value(n.inputs[1])->as<T>(),
              *c = value(n.inputs[2])->as<T>();
      for (int64_t i = 0, size = n.size(); i < size; ++i)
        o[i] = std::fma(a[i], b[i], c[i]);
      return out;
    }
    throw Error("internal: fma of a non-float type");
  }

  template <class T> BufferPtr movement(const Node &n) {
    const ir::NodePtr &x = n.inputs[0];
    const T *in = value(x)->as<T>();
    const std::vector<int64_t> in_strides = row_major_strides(x->shape);
    const int64_t r = x->ndim();
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    switch (n.op) {
    case Op::Reshape: std::copy_n(in, n.size(), o); break;
    case Op::Broadcast: {
      std::vector<int64_t> strides(n.ndim(), 0);
      for (int64_t i = 0; i < r; ++i)
        strides[n.attrs[i]] = x->shape[i] == 1 ? 0 : in_strides[i];
      gather(in, o, n.shape, strides, 0);
      break;
    }
    case Op::Transpose: {
      std::vector<int64_t> strides(r);
      for (int64_t i = 0; i < r; ++i)
        strides[i] = in_strides[n.attrs[i]];
      gather(in, o, n.shape, strides, 0);
      break;
    }
    case Op::Slice: {
      auto [strides, base] = slice_map(n, in_strides, r);
      gather(in, o, n.shape, strides, base);
      break;
    }
    case Op::SliceUpdate: {
      std::copy_n(in, n.size(), o);
      auto [strides, base] = slice_map(n, in_strides, r);
      scatter(value(n.inputs[1])->as<T>(), o, n.inputs[1]->shape, strides, base);
      break;
    }
    case Op::Pad: {
      std::fill_n(o, n.size(), value(n.inputs[1])->as<T>()[0]);
      const std::vector<int64_t> out_strides = row_major_strides(n.shape);
      int64_t base = 0;
      for (int64_t i = 0; i < r; ++i)
        base += n.attrs[i] * out_strides[i];
      scatter(in, o, x->shape, out_strides, base);
      break;
    }
    case Op::Concatenate: {
      const std::vector<int64_t> out_strides = row_major_strides(n.shape);
      const int64_t axis = n.attrs[0];
      int64_t at = 0;
      for (const ir::NodePtr &part : n.inputs) {
        scatter(value(part)->as<T>(), o, part->shape, out_strides, at * out_strides[axis]);
        at += part->shape[axis];
      }
      break;
    }
    case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: {
      const bool update = n.op == Op::DynamicUpdateSlice;
      const ir::Node &part = update ? *n.inputs[1] : n;
      int64_t base = 0;
      for (int64_t i = 0; i < r; ++i) {
        const int64_t start = value(n.inputs[size_t(i) + (update ? 2 : 1)])->as<int64_t>()[0];
        base += std::clamp<int64_t>(start, 0, x->shape[i] - part.shape[i]) * in_strides[i];
      }
      if (!update) {
        gather(in, o, n.shape, in_strides, base);
        break;
      }
      std::copy_n(in, n.size(), o);
      scatter(value(n.inputs[1])->as<T>(), o, part.shape, in_strides, base);
      break;
    }
    case Op::Take: {
      const int64_t *indices = value(n.inputs[1])->as<int64_t>();
      const int64_t axis = n.attrs[0], extent = x->shape[axis], count = n.inputs[1]->size();
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < r; ++i) {
        if (i < axis) outer *= x->shape[i];
        if (i > axis) inner *= x->shape[i];
      }
      for (int64_t p = 0; p < outer; ++p)
        for (int64_t k = 0; k < count; ++k) {
          int64_t j = indices[k] < 0 ? indices[k] + extent : indices[k];
          const bool inside = j >= 0 && j < extent;
          j = std::clamp<int64_t>(j, 0, std::max<int64_t>(extent - 1, 0));
          for (int64_t i = 0; i < inner; ++i)
            o[(p * count + k) * inner + i] =
                inside || !n.attrs[1] ? in[(p * extent + j) * inner + i] : T(0);
        }
      break;
    }
    case Op::Diagonal: {
      std::vector<int64_t> strides;
      const int64_t a1 = n.attrs[0], a2 = n.attrs[1];
      for (int64_t i = 0; i < r; ++i)
        if (i != a1 && i != a2) strides.push_back(in_strides[i]);
      strides.push_back(in_strides[a1] + in_strides[a2]);
      gather(in, o, n.shape, strides, 0);
      break;
    }
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Movement)
#include "ir/ops.def"
#undef JX_OP
      throw Error("internal: not a movement op");
    }
    return out;
  }

  static std::pair<std::vector<int64_t>, int64_t>
  slice_map(const Node &n, const std::vector<int64_t> &in_strides, int64_t r) {
    std::vector<int64_t> strides(r);
    int64_t base = 0;
    for (int64_t i = 0; i < r; ++i) {
      base += n.attrs[i] * in_strides[i];
      strides[i] = n.attrs[2 * r + i] * in_strides[i];
    }
    return {strides, base};
  }

  // Splits x's axes into kept (outer) and reduced (inner) index spaces.
  struct ReduceSpace {
    Shape kept_shape, reduced_shape;
    std::vector<int64_t> kept_strides, reduced_strides;
  };
  static ReduceSpace reduce_space(const Shape &shape, const std::vector<int64_t> &axes) {
    ReduceSpace s;
    const std::vector<int64_t> strides = row_major_strides(shape);
    for (int64_t a = 0; a < int64_t(shape.size()); ++a) {
      bool reduced = std::find(axes.begin(), axes.end(), a) != axes.end();
      (reduced ? s.reduced_shape : s.kept_shape).push_back(shape[a]);
      (reduced ? s.reduced_strides : s.kept_strides).push_back(strides[a]);
    }
    return s;
  }

  template <class T> BufferPtr reduce(const Node &n) {
    const ir::NodePtr &x = n.inputs[0];
    BufferPtr out = alloc(n);
    if (n.op == Op::ArgMax || n.op == Op::ArgMin) {
      dispatch_dtype(x->dtype, [&](auto tag) {
        using X = decltype(tag);
        arg_reduce<X>(n, value(x)->template as<X>(), out->as<int64_t>());
      });
      return out;
    }
    const T *in = value(x)->as<T>();
    T *o = out->as<T>();
    ReduceSpace s = reduce_space(x->shape, n.attrs);
    // float32 accumulates in double and double sums are compensated (Neumaier): the oracle
    // should be the most accurate answer.
    using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
    for_each_index(s.kept_shape, s.kept_strides, 0, [&](int64_t base, int64_t i) {
      if constexpr (std::is_same_v<T, double>) {
        if (n.op == Op::ReduceSum) {
          double sum = 0, lost = 0;
          for_each_index(s.reduced_shape, s.reduced_strides, base, [&](int64_t src, int64_t) {
            const double v = in[src], t = sum + v;
            lost += std::abs(sum) >= std::abs(v) ? (sum - t) + v : (v - t) + sum;
            sum = t;
          });
          // Infinities and NaNs: the plain sum (the compensation would be NaN).
          o[i] = std::isfinite(sum) ? sum + lost : sum;
          return;
        }
      }
      Acc acc = n.op == Op::ReduceSum ? Acc(0) : n.op == Op::ReduceProd ? Acc(1) : Acc(in[base]);
      for_each_index(s.reduced_shape, s.reduced_strides, base, [&](int64_t src, int64_t) {
        Acc v = in[src];
        switch (n.op) {
        case Op::ReduceSum: acc = binary_scalar<Acc>(Op::Add, acc, v); break;
        case Op::ReduceProd: acc = binary_scalar<Acc>(Op::Mul, acc, v); break;
        case Op::ReduceMax: acc = binary_scalar<Acc>(Op::Max, acc, v); break;
        case Op::ReduceMin: acc = binary_scalar<Acc>(Op::Min, acc, v); break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Reduce)
#include "ir/ops.def"
#undef JX_OP
        case Op::ArgMax:
        case Op::ArgMin: throw Error("internal: not a reduction");
        }
      });
      o[i] = static_cast<T>(acc);
    });
    return out;
  }

  template <class X> static void arg_reduce(const Node &n, const X *in, int64_t *o) {
    ReduceSpace s = reduce_space(n.inputs[0]->shape, n.attrs);
    const bool is_max = n.op == Op::ArgMax;
    for_each_index(s.kept_shape, s.kept_strides, 0, [&](int64_t base, int64_t i) {
      int64_t best = 0;
      X best_value = in[base];
      bool done = false;
      for_each_index(s.reduced_shape, s.reduced_strides, base, [&](int64_t src, int64_t k) {
        if (done) return;
        X v = in[src];
        if constexpr (is_float_v<X>) {
          if (std::isnan(v)) { // the first NaN wins, as NumPy
            best = k;
            done = true;
            return;
          }
        }
        if (is_max ? v > best_value : v < best_value) {
          best = k;
          best_value = v;
        }
      });
      o[i] = best;
    });
  }

  template <class T> BufferPtr dot(const Node &n) {
    const ir::NodePtr &lhs = n.inputs[0], &rhs = n.inputs[1];
    ir::DotDims d = ir::dot_dims(n);
    const auto ls = row_major_strides(lhs->shape), rs = row_major_strides(rhs->shape);
    // Output axes: batch, lhs free, rhs free; each advances one or both operands.
    Shape out_shape;
    std::vector<int64_t> lstr, rstr;
    for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
      out_shape.push_back(lhs->shape[d.lhs_batch[i]]);
      lstr.push_back(ls[d.lhs_batch[i]]);
      rstr.push_back(rs[d.rhs_batch[i]]);
    }
    auto add_free = [&](const ir::NodePtr &x, const std::vector<int64_t> &strides,
                        const std::vector<int64_t> &b, const std::vector<int64_t> &c, bool is_lhs) {
      for (int64_t a = 0; a < x->ndim(); ++a) {
        if (std::count(b.begin(), b.end(), a) || std::count(c.begin(), c.end(), a)) continue;
        out_shape.push_back(x->shape[a]);
        lstr.push_back(is_lhs ? strides[a] : 0);
        rstr.push_back(is_lhs ? 0 : strides[a]);
      }
    };
    add_free(lhs, ls, d.lhs_batch, d.lhs_contract, true);
    add_free(rhs, rs, d.rhs_batch, d.rhs_contract, false);
    Shape k_shape;
    std::vector<int64_t> klstr, krstr;
    for (size_t i = 0; i < d.lhs_contract.size(); ++i) {
      k_shape.push_back(lhs->shape[d.lhs_contract[i]]);
      klstr.push_back(ls[d.lhs_contract[i]]);
      krstr.push_back(rs[d.rhs_contract[i]]);
    }
    const T *a = value(lhs)->as<T>(), *b = value(rhs)->as<T>();
    BufferPtr out = alloc(n);
    T *o = out->as<T>();
    using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
    // Contraction offsets relative to each output element's base, the same for all of them.
    std::vector<int64_t> lk, rk;
    for_each_index(k_shape, klstr, 0, [&](int64_t off, int64_t) { lk.push_back(off); });
    for_each_index(k_shape, krstr, 0, [&](int64_t off, int64_t) { rk.push_back(off); });
    std::vector<int64_t> rbase(n.size());
    for_each_index(out_shape, rstr, 0, [&](int64_t off, int64_t i) { rbase[i] = off; });
    for_each_index(out_shape, lstr, 0, [&](int64_t lbase, int64_t i) {
      Acc acc = 0;
      for (size_t k = 0; k < lk.size(); ++k)
        acc = binary_scalar<Acc>(
            Op::Add, acc,
            binary_scalar<Acc>(Op::Mul, Acc(a[lbase + lk[k]]), Acc(b[rbase[i] + rk[k]])));
      o[i] = static_cast<T>(acc);
    });
    return out;
  }
};

} // namespace

void throw_concretization_error(const ir::Node &parameter) {
  if (parameter.attrs.size() > 1 && !ir::trace_running(parameter.attrs[1]))
    throw UnexpectedTracerError(fmt::format(
        "Encountered an unexpected tracer. A function transformed by jx::jit had a side effect, "
        "allowing for a reference to an intermediate value with type {} (computed from its "
        "argument {}) to escape the scope of the transformation. JAX transformations require "
        "that functions explicitly return their outputs, and disallow saving intermediate "
        "values to global state.",
        ir::type_str(parameter), parameter.attrs[0]));
  throw ConcretizationTypeError(fmt::format(
      "Abstract tracer value encountered where concrete value is expected: argument {} of a jit "
      "function ({}) has no data while it is traced. Compute with it instead of reading it; "
      "branch on shapes and dtypes, or pass the value as a static argument.",
      parameter.attrs[0], ir::type_str(parameter)));
}

std::vector<BufferPtr> evaluate(const std::vector<ir::NodePtr> &roots, const Bindings &bindings) {
  ir::GraphReadLock graph_lock; // no node turns realized under the walk
  std::vector<const Node *> order = ir::topological_order(roots);
  // Remaining uses of each node, so intermediates are freed after their last consumer.
  std::unordered_map<const Node *, int64_t> uses;
  for (const Node *n : order)
    if (!n->realized())
      for (const ir::NodePtr &in : n->inputs)
        ++uses[in.get()];
  for (const ir::NodePtr &r : roots)
    ++uses[r.get()];

  Evaluator ev;
  for (const Node *n : order) {
    if (auto bound = bindings.find(n); bound != bindings.end()) {
      ev.values[n] = bound->second;
      continue;
    }
    if (BufferPtr done = n->value(); done && n->op != Op::Constant) {
      ev.values[n] = std::move(done);
      continue;
    }
    ev.values[n] = ev.eval(*n);
    for (const ir::NodePtr &in : n->inputs)
      if (--uses[in.get()] == 0) ev.values.erase(in.get());
  }
  std::vector<BufferPtr> out;
  for (const ir::NodePtr &r : roots)
    out.push_back(ev.values.at(r.get()));
  return out;
}

} // namespace jx::interp
