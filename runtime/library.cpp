// The library routines: cumulative ops as NumPy's accumulate (one pass per line, vectorized
// across the lines of an inner axis), sorts through Highway's vqsort (NaNs moved last first; it
// has no order for them), argsort as a vqsort of (key, index) pairs, which makes it stable.
#include "runtime/library.h"

#include <hwy/contrib/sort/vqsort.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "runtime/program.h"
#include "runtime/thread_pool.h"

namespace jx::runtime {

namespace {

// The array as lines along the axis: outer x n x inner, a line's elements inner apart.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};

Lines lines_of(const std::vector<int64_t> &shape, int64_t axis) {
  Lines l;
  for (int64_t a = 0; a < int64_t(shape.size()); ++a) {
    if (a < axis) l.outer *= shape[size_t(a)];
    if (a > axis) l.inner *= shape[size_t(a)];
  }
  l.n = shape.at(size_t(axis));
  return l;
}

// Items per pool chunk so that a chunk is at least min_chunk_elements of work.
int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, min_chunk_elements / std::max<int64_t>(1, work_per_item));
}

// Signed integers wrap around (as NumPy's); the arithmetic is done unsigned, where it is defined.
template <class T> T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else
    return a + b;
}
template <class T> T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else
    return a * b;
}
// np.maximum and np.minimum: a NaN wins; on ties the running value stays.
template <class T> T nan_max(T running, T x) { return x > running || x != x ? x : running; }
template <class T> T nan_min(T running, T x) { return x < running || x != x ? x : running; }

// out[.., k, ..] = combine(out[.., k - 1, ..], x[.., k, ..]) along each line, in order; the
// inner axis in chunks, each chunk's lines advanced together (the loop over them vectorizes).
template <class T, class F>
void accumulate(const T *x, T *out, const Lines &l, bool reverse, F combine) {
  const int64_t chunk = std::min<int64_t>(l.inner, 1024);
  const int64_t chunks = (l.inner + chunk - 1) / chunk;
  default_pool().parallel_for(
      0, l.outer * chunks, grain_for(l.n * chunk), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t o = t / chunks, i0 = (t % chunks) * chunk;
          const int64_t i1 = std::min(l.inner, i0 + chunk);
          const int64_t base = o * l.n * l.inner;
          for (int64_t step = 0; step < l.n; ++step) {
            const int64_t k = reverse ? l.n - 1 - step : step;
            const T *src = x + base + k * l.inner;
            T *dst = out + base + k * l.inner;
            if (step == 0) {
              std::copy(src + i0, src + i1, dst + i0);
              continue;
            }
            const T *prev = reverse ? dst + l.inner : dst - l.inner;
            for (int64_t i = i0; i < i1; ++i)
              dst[i] = combine(prev[i], src[i]);
          }
        }
      });
}

template <class T> void cumulative(LibraryOp op, const T *x, T *out, const Lines &l, bool reverse) {
  switch (op) {
  case LibraryOp::CumSum: return accumulate(x, out, l, reverse, wrapping_add<T>);
  case LibraryOp::CumProd: return accumulate(x, out, l, reverse, wrapping_mul<T>);
  case LibraryOp::CumMax: return accumulate(x, out, l, reverse, nan_max<T>);
  case LibraryOp::CumMin: return accumulate(x, out, l, reverse, nan_min<T>);
  default: throw std::logic_error("internal: not a cumulative op");
  }
}

// Runs line(in, out) for each line, copied into contiguous scratch when the axis is not the last.
template <class In, class Out, class F> void for_each_line(const In *x, Out *y, const Lines &l, F line) {
  default_pool().parallel_for(0, l.outer * l.inner, grain_for(l.n), [&](int64_t begin,
                                                                         int64_t end) {
    // Not std::vector: a vector<bool> has no data().
    const size_t scratch = l.inner == 1 ? 0 : size_t(l.n);
    const std::unique_ptr<In[]> in(new In[scratch]);
    const std::unique_ptr<Out[]> out(new Out[scratch]);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / l.inner, i = t % l.inner, base = o * l.n * l.inner + i;
      if (l.inner == 1) {
        line(x + base, y + base);
        continue;
      }
      for (int64_t k = 0; k < l.n; ++k)
        in[size_t(k)] = x[base + k * l.inner];
      line(in.get(), out.get());
      for (int64_t k = 0; k < l.n; ++k)
        y[base + k * l.inner] = out[size_t(k)];
    }
  });
}

// Integers that may alias floats (GCC's may_alias): a line's floats are sorted as their bits.
typedef int64_t __attribute__((may_alias)) aliasing_int64;
typedef int32_t __attribute__((may_alias)) aliasing_int32;

// A float's bits as a signed integer in the float's order (negative values' magnitude bits
// flipped); applied twice it gives the bits back.
template <class I> I float_order(I bits) {
  return bits ^ ((bits >> (sizeof(I) * 8 - 1)) & std::numeric_limits<I>::max());
}

// Highway 1.0's vqsort turns infinities into the largest finite values: the numbers (no NaNs) are
// sorted as signed integers in their order instead.
template <class Aliasing, class I> void sort_as_integers(void *line, int64_t n) {
  Aliasing *bits = static_cast<Aliasing *>(line);
  for (int64_t k = 0; k < n; ++k)
    bits[k] = float_order<I>(bits[k]);
  hwy::Sorter sorter;
  sorter(static_cast<I *>(line), size_t(n), hwy::SortAscending());
  for (int64_t k = 0; k < n; ++k)
    bits[k] = float_order<I>(bits[k]);
}
void sort_numbers(double *line, int64_t n) { sort_as_integers<aliasing_int64, int64_t>(line, n); }
void sort_numbers(float *line, int64_t n) { sort_as_integers<aliasing_int32, int32_t>(line, n); }

template <class T> void sort_lines(const T *x, T *y, const Lines &l) {
  for_each_line(x, y, l, [&](const T *in, T *out) {
    std::copy(in, in + l.n, out);
    if constexpr (std::is_same_v<T, bool>) {
      const int64_t falses = std::count(out, out + l.n, false);
      std::fill(out, out + falses, false);
      std::fill(out + falses, out + l.n, true);
    } else if constexpr (std::is_floating_point_v<T>) {
      const int64_t numbers = std::partition(out, out + l.n, [](T v) { return v == v; }) - out;
      sort_numbers(out, numbers);
    } else {
      hwy::Sorter sorter;
      sorter(out, size_t(l.n), hwy::SortAscending());
    }
  });
}

// An unsigned key in the order of T's values: -0.0 as 0.0, every NaN last and equal.
template <class T> uint64_t order_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_integral_v<T>) {
    return uint64_t(int64_t(v)) ^ (uint64_t(1) << 63);
  } else {
    if (v != v) return std::numeric_limits<uint64_t>::max();
    const double d = v == 0 ? 0.0 : double(v); // exact: a float widens to the same order
    const uint64_t bits = std::bit_cast<uint64_t>(d);
    return bits >> 63 ? ~bits : bits | (uint64_t(1) << 63);
  }
}

template <class T>
void argsort_lines(const std::vector<const void *> &keys, int64_t *y, const Lines &l) {
  const T *primary = static_cast<const T *>(keys[0]);
  if (keys.size() == 1) {
    // (key, index) pairs sorted as 128-bit numbers: equal keys stay in index order.
    for_each_line(primary, y, l, [&](const T *in, int64_t *out) {
      std::vector<hwy::uint128_t> pairs(size_t(l.n));
      for (int64_t k = 0; k < l.n; ++k)
        pairs[size_t(k)] = {uint64_t(k), order_key(in[k])};
      hwy::Sorter sorter;
      sorter(pairs.data(), pairs.size(), hwy::SortAscending());
      for (int64_t k = 0; k < l.n; ++k)
        out[k] = int64_t(pairs[size_t(k)].lo);
    });
    return;
  }
  // Several keys: a stable sort of the indices, comparing key by key.
  default_pool().parallel_for(0, l.outer * l.inner, grain_for(l.n * int64_t(keys.size())),
                              [&](int64_t begin, int64_t end) {
                                std::vector<std::vector<uint64_t>> line_keys(keys.size());
                                std::vector<int64_t> index(size_t(l.n));
                                for (int64_t t = begin; t < end; ++t) {
                                  const int64_t o = t / l.inner, i = t % l.inner;
                                  const int64_t base = o * l.n * l.inner + i;
                                  for (size_t j = 0; j < keys.size(); ++j) {
                                    line_keys[j].resize(size_t(l.n));
                                    const T *key = static_cast<const T *>(keys[j]);
                                    for (int64_t k = 0; k < l.n; ++k)
                                      line_keys[j][size_t(k)] = order_key(key[base + k * l.inner]);
                                  }
                                  std::iota(index.begin(), index.end(), int64_t(0));
                                  std::stable_sort(index.begin(), index.end(),
                                                   [&](int64_t a, int64_t b) {
                                                     for (const std::vector<uint64_t> &key :
                                                          line_keys)
                                                       if (key[size_t(a)] != key[size_t(b)])
                                                         return key[size_t(a)] < key[size_t(b)];
                                                     return false;
                                                   });
                                  for (int64_t k = 0; k < l.n; ++k)
                                    y[base + k * l.inner] = index[size_t(k)];
                                }
                              });
}

template <class T>
void run_typed(const Library &lib, const Lines &l, const std::vector<const void *> &inputs,
               void *out) {
  const T *x = static_cast<const T *>(inputs[0]);
  switch (lib.op) {
  case LibraryOp::Sort: return sort_lines(x, static_cast<T *>(out), l);
  case LibraryOp::ArgSort: return argsort_lines<T>(inputs, static_cast<int64_t *>(out), l);
  default:
    if constexpr (!std::is_same_v<T, bool>)
      return cumulative(lib.op, x, static_cast<T *>(out), l, lib.reverse);
    throw std::logic_error("internal: no cumulative op on bools");
  }
}

} // namespace

bool library_supports(LibraryOp op, DType dtype) {
  if (op == LibraryOp::ArgSort || op == LibraryOp::Sort) return true;
  return dtype != DType::bool_;
}

void run_library(const Library &lib, DType dtype, const std::vector<int64_t> &shape,
                 const std::vector<const void *> &inputs, void *out) {
  const Lines l = lines_of(shape, lib.axis);
  if (l.outer * l.n * l.inner == 0) return;
  switch (dtype) {
  case DType::bool_: return run_typed<bool>(lib, l, inputs, out);
  case DType::int32: return run_typed<int32_t>(lib, l, inputs, out);
  case DType::int64: return run_typed<int64_t>(lib, l, inputs, out);
  case DType::float32: return run_typed<float>(lib, l, inputs, out);
  case DType::float64: return run_typed<double>(lib, l, inputs, out);
  }
}

} // namespace jx::runtime
