// The library routines: cumulative ops as NumPy's accumulate (one pass per line, vectorized
// across the lines of an inner axis), sorts through Highway's vqsort (NaNs moved last first; it
// has no order for them), argsort as a vqsort of (key, index) pairs, which makes it stable.
#include "runtime/library.h"

#include <hwy/contrib/sort/vqsort.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "runtime/buffer.h"
#include "runtime/fft.h"
#include "runtime/int_math.h"
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
// Function objects (not function pointers, which would be called indirectly per element).
// Bools add as NumPy's: or (and multiply: and).
struct WrappingAdd {
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else if constexpr (std::is_integral_v<T>)
      return runtime::wrap_add(a, b);
    else
      return a + b;
  }
};
struct WrappingMul {
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else if constexpr (std::is_integral_v<T>)
      return runtime::wrap_mul(a, b);
    else
      return a * b;
  }
};
// np.maximum and np.minimum: a NaN wins; on ties the running value stays.
struct NanMax {
  template <class T> T operator()(T running, T x) const {
    return x > running || x != x ? x : running;
  }
};
struct NanMin {
  template <class T> T operator()(T running, T x) const {
    return x < running || x != x ? x : running;
  }
};

// Calls f with the cumulative op's combine.
template <class F> void with_combine(LibraryOp op, F f) {
  switch (op) {
  case LibraryOp::CumSum: return f(WrappingAdd{});
  case LibraryOp::CumProd: return f(WrappingMul{});
  case LibraryOp::CumMax: return f(NanMax{});
  case LibraryOp::CumMin: return f(NanMin{});
  default: throw std::logic_error("internal: not a cumulative op");
  }
}

// Runs lanes(o, i0, i1) over the lines' lanes: each outer index o with a chunk [i0, i1) of the
// inner axis (the loop over a chunk's lanes vectorizes), chunks in parallel, each `work_per_lane`
// elements of work per lane.
template <class F> void for_each_lane_chunk(const Lines &l, int64_t work_per_lane, F lanes) {
  const int64_t chunk = std::min<int64_t>(l.inner, 1024);
  const int64_t chunks = (l.inner + chunk - 1) / chunk;
  default_pool().parallel_for(0, l.outer * chunks, grain_for(work_per_lane * chunk),
                              [&](int64_t begin, int64_t end) {
                                for (int64_t t = begin; t < end; ++t) {
                                  const int64_t i0 = (t % chunks) * chunk;
                                  lanes(t / chunks, i0, std::min(l.inner, i0 + chunk));
                                }
                              });
}

// out[.., k, ..] = combine(out[.., k - 1, ..], x[.., k, ..]) along each line, in order; a chunk's
// lines advance together.
template <class T, class F>
void accumulate(const T *x, T *out, const Lines &l, bool reverse, F combine) {
  for_each_lane_chunk(l, l.n, [&](int64_t o, int64_t i0, int64_t i1) {
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
  });
}

// Contiguous lines of at least 4 blocks are scanned in pieces of a size fixed by the shape (never
// by the pool, so the bits do not depend on it): each piece's total (8 running totals combined
// in order), the pieces' offsets in order along the line, then each piece from its offset. A task
// takes a block of 4 pieces and advances their 4 running values together: 4 independent chains of
// operations instead of one chain through the line. Reverse scans read the line backwards.
constexpr int64_t scan_piece = int64_t(1) << 14, scan_block = 4 * scan_piece;

template <bool Reverse, class T, class F>
void accumulate_blocked(const T *x, T *out, const Lines &l, F combine) {
  const int64_t pieces = (l.n + scan_piece - 1) / scan_piece;
  const int64_t blocks = (pieces + 3) / 4;
  // Step s of a line is its element s from the start (or the end, reversed); piece p holds steps
  // [p P, min(n, (p + 1) P)).
  auto step = [&](int64_t o, int64_t s) { return o * l.n + (Reverse ? l.n - 1 - s : s); };
  auto end = [&](int64_t p) { return std::min(l.n, (p + 1) * scan_piece); };
  std::vector<T> total(size_t(l.outer * pieces));
  default_pool().run_batch(l.outer * blocks, [&](int64_t t) {
    const int64_t o = t / blocks;
    for (int64_t p = t % blocks * 4; p < std::min(pieces - 1, t % blocks * 4 + 4); ++p) {
      const T *in = x + step(o, p * scan_piece);
      constexpr int64_t dir = Reverse ? -1 : 1;
      T lanes[8];
      for (int64_t k = 0; k < 8; ++k)
        lanes[k] = in[dir * k];
      for (int64_t s = 8; s < scan_piece; s += 8) // a full piece: a multiple of 8
        for (int64_t k = 0; k < 8; ++k)
          lanes[k] = combine(lanes[k], in[dir * (s + k)]);
      T sum = lanes[0];
      for (int64_t k = 1; k < 8; ++k)
        sum = combine(sum, lanes[k]);
      total[size_t(o * pieces + p)] = sum;
    }
  });
  // total[p] becomes the combination of pieces 0..p: the offset of piece p + 1.
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t p = 1; p + 1 < pieces; ++p)
      total[size_t(o * pieces + p)] =
          combine(total[size_t(o * pieces + p - 1)], total[size_t(o * pieces + p)]);
  default_pool().run_batch(l.outer * blocks, [&](int64_t t) {
    const int64_t o = t / blocks, p0 = t % blocks * 4, count = std::min<int64_t>(4, pieces - p0);
    constexpr int64_t dir = Reverse ? -1 : 1;
    const T *in[4];
    T *to[4], running[4];
    int64_t length = scan_piece;
    for (int64_t k = 0; k < count; ++k) {
      const int64_t p = p0 + k;
      in[k] = x + step(o, p * scan_piece);
      to[k] = out + step(o, p * scan_piece);
      running[k] = p == 0 ? in[k][0] : combine(total[size_t(o * pieces + p - 1)], in[k][0]);
      to[k][0] = running[k];
      length = std::min(length, end(p) - p * scan_piece);
    }
    // The pieces' steps 1..length together, then the rest of a shorter last piece alone.
    if (count == 4)
      for (int64_t s = 1; s < length; ++s)
        for (int64_t k = 0; k < 4; ++k)
          to[k][dir * s] = running[k] = combine(running[k], in[k][dir * s]);
    for (int64_t k = 0; k < count; ++k)
      for (int64_t s = count == 4 ? length : 1; s < end(p0 + k) - (p0 + k) * scan_piece; ++s)
        to[k][dir * s] = running[k] = combine(running[k], in[k][dir * s]);
  });
}

template <class T> void cumulative(LibraryOp op, const T *x, T *out, const Lines &l, bool reverse) {
  with_combine(op, [&](auto combine) {
    if (l.inner == 1 && l.n >= 4 * scan_block && reverse)
      accumulate_blocked<true>(x, out, l, combine);
    else if (l.inner == 1 && l.n >= 4 * scan_block)
      accumulate_blocked<false>(x, out, l, combine);
    else
      accumulate(x, out, l, reverse, combine);
  });
}

// Runs line(in, out) for each line, copied into contiguous scratch when the axis is not the last.
template <class In, class Out, class F>
void for_each_line(const In *x, Out *y, const Lines &l, F line) {
  default_pool().parallel_for(
      0, l.outer * l.inner, grain_for(l.n), [&](int64_t begin, int64_t end) {
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

// The keys key(0..n) of a line sorted ascending into keys (by less, vqsort's order). A long line
// is first cut into buckets between splitters sampled from it (counted, then scattered, chunks
// in parallel) and the buckets are sorted in parallel, so no merge follows. Sorted keys are
// unique, so the result does not depend on how many buckets there are.
template <class K, class KeyOf, class Less>
void sample_sort(int64_t n, KeyOf key, K *keys, Less less) {
  int64_t parts = 1;
  while (parts * 2 <= default_pool().size() && n / (parts * 2) >= (int64_t(1) << 18))
    parts *= 2;
  if (parts == 1) {
    for (int64_t i = 0; i < n; ++i)
      keys[i] = key(i);
    hwy::Sorter sorter;
    sorter(keys, size_t(n), hwy::SortAscending());
    return;
  }
  const int64_t samples = 64 * parts, chunks = 4 * parts;
  std::vector<K> sample(static_cast<size_t>(samples)), splitter(static_cast<size_t>(parts - 1));
  for (int64_t s = 0; s < samples; ++s)
    sample[size_t(s)] = key(s * n / samples);
  std::sort(sample.begin(), sample.end(), less);
  for (int64_t p = 0; p + 1 < parts; ++p)
    splitter[size_t(p)] = sample[size_t((p + 1) * samples / parts)];
  // The splitters at or below k, counted without branches (a search's branches mispredict on
  // every other key of random data).
  auto bucket = [&](const K &k) {
    int64_t b = 0;
    for (const K &s : splitter)
      b += !less(k, s);
    return b;
  };
  // where[c * parts + b]: chunk c's count in bucket b, then where its next key goes.
  std::vector<int64_t> where(size_t(chunks * parts), 0), start(size_t(parts + 1), 0);
  auto chunk = [&](int64_t c) { return std::pair{n * c / chunks, n * (c + 1) / chunks}; };
  // Counts and positions live in each task's own array while it runs: chunks' entries share
  // cache lines, which threads writing them would pass back and forth.
  default_pool().run_batch(chunks, [&](int64_t c) {
    const auto [lo, hi] = chunk(c);
    std::vector<int64_t> count(static_cast<size_t>(parts), 0);
    for (int64_t i = lo; i < hi; ++i)
      ++count[size_t(bucket(key(i)))];
    std::copy(count.begin(), count.end(), where.begin() + c * parts);
  });
  int64_t at = 0;
  for (int64_t b = 0; b < parts; ++b) {
    start[size_t(b)] = at;
    for (int64_t c = 0; c < chunks; ++c)
      std::swap(where[size_t(c * parts + b)], at), at += where[size_t(c * parts + b)];
  }
  start[size_t(parts)] = at;
  default_pool().run_batch(chunks, [&](int64_t c) {
    const auto [lo, hi] = chunk(c);
    std::vector<int64_t> next(where.begin() + c * parts, where.begin() + (c + 1) * parts);
    for (int64_t i = lo; i < hi; ++i) {
      const K k = key(i);
      keys[next[size_t(bucket(k))]++] = k;
    }
  });
  default_pool().run_batch(parts, [&](int64_t b) {
    hwy::Sorter sorter;
    sorter(keys + start[size_t(b)], size_t(start[size_t(b + 1)] - start[size_t(b)]),
           hwy::SortAscending());
  });
}

// Integers that may alias floats (GCC's may_alias): a line's floats are sorted as their bits.
typedef int64_t __attribute__((may_alias)) aliasing_int64;
typedef int32_t __attribute__((may_alias)) aliasing_int32;
const aliasing_int64 *aliasing(const double *p) {
  return reinterpret_cast<const aliasing_int64 *>(p);
}
const aliasing_int32 *aliasing(const float *p) {
  return reinterpret_cast<const aliasing_int32 *>(p);
}

// A float's bits as a signed integer in the float's order (negative values' magnitude bits
// flipped); applied twice it gives the bits back. NaNs become one positive quiet NaN, after
// +inf.
template <class I> I flip_negative(I bits) {
  return bits ^ ((bits >> (sizeof(I) * 8 - 1)) & std::numeric_limits<I>::max());
}
template <class I, class T> I float_order(T v) {
  return flip_negative(v == v ? std::bit_cast<I>(v)
                              : std::bit_cast<I>(std::numeric_limits<T>::quiet_NaN()));
}
template <class T, class I> T float_of_order(I key) { return std::bit_cast<T>(flip_negative(key)); }

// Highway 1.0's vqsort turns infinities into the largest finite values: floats are sorted as
// signed integers in their order, written over the output line and turned back.
template <class T> void sort_line(const T *in, T *out, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
    I *keys = reinterpret_cast<I *>(out);
    sample_sort(
        n, [&](int64_t i) { return float_order<I>(in[i]); }, keys, std::less<I>());
    const auto *bits = aliasing(out);
    default_pool().parallel_for(0, n, min_chunk_elements, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        out[i] = float_of_order<T, I>(I(bits[i]));
    });
  } else if constexpr (sizeof(T) == 1) {
    // Bytes (vqsort has no 8-bit keys): a counting sort.
    std::array<int64_t, 256> count{};
    for (int64_t i = 0; i < n; ++i)
      ++count[uint8_t(in[i])];
    const int first = std::is_signed_v<T> ? 128 : 0; // int8's order starts at -128 (0x80)
    for (int b = 0; b < 256; ++b) {
      const int byte = (first + b) & 255;
      out = std::fill_n(out, count[size_t(byte)], T(byte));
    }
  } else {
    sample_sort(
        n, [&](int64_t i) { return in[i]; }, out, std::less<T>());
  }
}

template <class T> void sort_lines(const T *x, T *y, const Lines &l) {
  for_each_line(x, y, l, [&](const T *in, T *out) {
    if constexpr (std::is_same_v<T, bool>) {
      const int64_t falses = std::count(in, in + l.n, false);
      std::fill(out, out + falses, false);
      std::fill(out + falses, out + l.n, true);
    } else {
      sort_line(in, out, l.n);
    }
  });
}

// An unsigned key in the order of T's values: -0.0 as 0.0, every NaN last and equal.
template <class T> uint64_t order_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_unsigned_v<T>) {
    return uint64_t(v);
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
      const BufferPtr scratch = make_buffer(size_t(l.n) * sizeof(hwy::uint128_t));
      hwy::uint128_t *pairs = static_cast<hwy::uint128_t *>(scratch->data());
      sample_sort(
          l.n,
          [&](int64_t k) {
            return hwy::uint128_t{uint64_t(k), order_key(in[k])};
          },
          pairs,
          [](const hwy::uint128_t &a, const hwy::uint128_t &b) {
            return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
          });
      default_pool().parallel_for(0, l.n, min_chunk_elements, [&](int64_t lo, int64_t hi) {
        for (int64_t k = lo; k < hi; ++k)
          out[k] = int64_t(pairs[k].lo);
      });
    });
    return;
  }
  // Several keys: a stable sort of the indices, comparing key by key.
  default_pool().parallel_for(
      0, l.outer * l.inner, grain_for(l.n * int64_t(keys.size())), [&](int64_t begin, int64_t end) {
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
          std::stable_sort(index.begin(), index.end(), [&](int64_t a, int64_t b) {
            for (const std::vector<uint64_t> &key : line_keys)
              if (key[size_t(a)] != key[size_t(b)]) return key[size_t(a)] < key[size_t(b)];
            return false;
          });
          for (int64_t k = 0; k < l.n; ++k)
            y[base + k * l.inner] = index[size_t(k)];
        }
      });
}

// x copied (unless out is x's memory: the scatter runs in place), then each update combined into
// its place in order: updates of one lane (the positions before and after the axis) in the order
// of their indices, lanes in parallel. Indices out of range (after negative ones count from the
// end) are dropped.
template <class T, class F>
void scatter(const T *x, const int64_t *indices, const T *updates, T *out, const Lines &l,
             int64_t count, F combine) {
  copy_unless_same(x, out, size_t(l.outer * l.n * l.inner) * sizeof(T));
  if (l.outer == 1 && l.inner == 1) { // a vector's elements (a histogram's bins): one loop
    for (int64_t k = 0; k < count; ++k) {
      const int64_t j = indices[k] < 0 ? indices[k] + l.n : indices[k];
      if (uint64_t(j) < uint64_t(l.n)) out[j] = combine(out[j], updates[k]);
    }
    return;
  }
  for_each_lane_chunk(l, count, [&](int64_t o, int64_t i0, int64_t i1) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t j = indices[k];
      if (j < 0) j += l.n;
      if (j < 0 || j >= l.n) continue;
      T *dst = out + (o * l.n + j) * l.inner;
      const T *src = updates + (o * count + k) * l.inner;
      for (int64_t i = i0; i < i1; ++i)
        dst[i] = combine(dst[i], src[i]);
    }
  });
}

struct Replace {
  template <class T> T operator()(T, T update) const { return update; }
};

template <class T>
void run_typed(const Library &lib, const Lines &l, const std::vector<const void *> &inputs,
               void *out) {
  if (is_scatter(lib.op)) {
    const T *x = static_cast<const T *>(inputs[0]), *updates = static_cast<const T *>(inputs[2]);
    const int64_t *indices = static_cast<const int64_t *>(inputs[1]);
    T *y = static_cast<T *>(out);
    auto run = [&](auto combine) { scatter(x, indices, updates, y, l, lib.count, combine); };
    switch (lib.op) {
    case LibraryOp::ScatterSet: return run(Replace{});
    case LibraryOp::ScatterAdd: return run(WrappingAdd{});
    case LibraryOp::ScatterMul: return run(WrappingMul{});
    case LibraryOp::ScatterMin: return run(NanMin{});
    default: return run(NanMax{});
    }
  }
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

// float16 and bfloat16 never reach a routine: the graph sorts and scans them in float32; complex
// numbers neither: ir::finish builds their scans and scatters on the parts.
bool library_supports(LibraryOp op, DType dtype) {
  if (is_storage_float(dtype) || is_complex(dtype)) return false;
  if (is_linalg(op) || op == LibraryOp::Fft) return dtype == DType::float32 || dtype == DType::float64;
  if (op == LibraryOp::ArgSort || op == LibraryOp::Sort || is_scatter(op)) return true;
  return dtype != DType::bool_;
}

void run_library(const Library &lib, DType dtype, const std::vector<int64_t> &shape,
                 const std::vector<const void *> &inputs, void *out) {
  if (is_linalg(lib.op)) return run_linalg(lib, dtype, shape, inputs, out);
  const Lines l = lines_of(shape, lib.axis);
  if (l.outer * l.n * l.inner == 0) return;
  if (lib.op == LibraryOp::Fft) {
    if (dtype == DType::float32)
      return fft_lines(static_cast<const float *>(inputs.at(0)),
                       static_cast<const float *>(inputs.at(1)),
                       static_cast<std::complex<float> *>(out), l.outer, l.n, l.inner, lib.reverse);
    return fft_lines(static_cast<const double *>(inputs.at(0)),
                     static_cast<const double *>(inputs.at(1)),
                     static_cast<std::complex<double> *>(out), l.outer, l.n, l.inner, lib.reverse);
  }
  switch (dtype) {
  case DType::bool_: return run_typed<bool>(lib, l, inputs, out);
  case DType::int8: return run_typed<int8_t>(lib, l, inputs, out);
  case DType::int16: return run_typed<int16_t>(lib, l, inputs, out);
  case DType::int32: return run_typed<int32_t>(lib, l, inputs, out);
  case DType::int64: return run_typed<int64_t>(lib, l, inputs, out);
  case DType::uint8: return run_typed<uint8_t>(lib, l, inputs, out);
  case DType::uint16: return run_typed<uint16_t>(lib, l, inputs, out);
  case DType::uint32: return run_typed<uint32_t>(lib, l, inputs, out);
  case DType::uint64: return run_typed<uint64_t>(lib, l, inputs, out);
  case DType::float32: return run_typed<float>(lib, l, inputs, out);
  case DType::float64: return run_typed<double>(lib, l, inputs, out);
  case DType::float16:
  case DType::bfloat16:
  case DType::complex64:
  case DType::complex128: break; // library_supports refuses them
  }
  throw std::logic_error("internal: no library routine on float16, bfloat16 or complex numbers");
}

} // namespace jx::runtime
