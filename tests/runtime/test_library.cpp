// runtime/library.h: the cumulative ops, sort and argsort against plain loops and std::stable_sort,
// along every axis of small and long arrays of each dtype, with the values sorts get wrong
// easily: infinities, NaNs, signed zeros, ties and integer extremes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/library.h"

namespace {

using jx::DType;
using jx::runtime::Library;
using jx::runtime::LibraryOp;
using jx::runtime::run_library;

template <class T> std::vector<T> values(size_t n, std::mt19937_64 &rng) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int> pick(0, 19);
  for (T &x : v) {
    const int r = pick(rng);
    if constexpr (std::is_floating_point_v<T>) {
      constexpr T inf = std::numeric_limits<T>::infinity();
      const T special[] = {inf, -inf, std::numeric_limits<T>::quiet_NaN(), T(0), -T(0), T(1.5)};
      x = r < 6 ? special[r] : T(std::normal_distribution<double>(0, 10)(rng));
    } else {
      const T special[] = {std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), 0, -1};
      x = r < 4 ? special[r] : T(std::uniform_int_distribution<int>(-5, 5)(rng));
    }
  }
  return v;
}

// Lines of shape along axis: outer x n x inner.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  Lines(const std::vector<int64_t> &shape, int64_t axis) {
    for (int64_t a = 0; a < int64_t(shape.size()); ++a) {
      if (a < axis) outer *= shape[a];
      if (a > axis) inner *= shape[a];
    }
    n = shape[axis];
  }
  int64_t at(int64_t o, int64_t k, int64_t i) const { return (o * n + k) * inner + i; }
};

// NumPy's order: NaNs last, -0.0 equal to 0.0.
template <class T> bool less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <class T> bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return a == b;
}

template <class T> void check_dtype(DType dtype) {
  std::mt19937_64 rng(7);
  const std::vector<std::vector<int64_t>> shapes = {{1}, {7}, {5000}, {3, 4}, {2, 3, 5}, {0, 4}};
  for (const std::vector<int64_t> &shape : shapes)
    for (int64_t axis = 0; axis < int64_t(shape.size()); ++axis) {
      SCOPED_TRACE(::testing::Message()
                   << "shape " << ::testing::PrintToString(shape) << " axis " << axis);
      const Lines l(shape, axis);
      const size_t size = size_t(l.outer * l.n * l.inner);
      const std::vector<T> x = values<T>(size, rng);
      // Sort: each line ascending, NaNs last, the same multiset.
      std::vector<T> sorted(size);
      run_library({.op = LibraryOp::Sort, .axis = axis}, dtype, shape, {x.data()}, sorted.data());
      std::vector<int64_t> order(size);
      run_library({.op = LibraryOp::ArgSort, .axis = axis}, dtype, shape, {x.data()}, order.data());
      for (int64_t o = 0; o < l.outer; ++o)
        for (int64_t i = 0; i < l.inner; ++i) {
          std::vector<T> line;
          for (int64_t k = 0; k < l.n; ++k)
            line.push_back(x[l.at(o, k, i)]);
          std::vector<int64_t> want(line.size());
          std::iota(want.begin(), want.end(), 0);
          std::stable_sort(want.begin(), want.end(),
                           [&](int64_t a, int64_t b) { return less(line[a], line[b]); });
          for (int64_t k = 0; k < l.n; ++k) {
            ASSERT_EQ(order[l.at(o, k, i)], want[k]) << "argsort, position " << k;
            ASSERT_TRUE(same(sorted[l.at(o, k, i)], line[want[k]])) << "sort, position " << k;
          }
        }
      // Cumulative ops (not of bools): running values in order, forwards and reversed.
      if constexpr (!std::is_same_v<T, bool>)
        for (LibraryOp op :
             {LibraryOp::CumSum, LibraryOp::CumProd, LibraryOp::CumMax, LibraryOp::CumMin})
          for (bool reverse : {false, true}) {
            std::vector<T> out(size);
            run_library({.op = op, .axis = axis, .reverse = reverse}, dtype, shape, {x.data()},
                        out.data());
            for (int64_t o = 0; o < l.outer; ++o)
              for (int64_t i = 0; i < l.inner; ++i) {
                T running{};
                for (int64_t step = 0; step < l.n; ++step) {
                  const int64_t k = reverse ? l.n - 1 - step : step;
                  const T v = x[l.at(o, k, i)];
                  using U =
                      typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>,
                                                  std::type_identity<T>>::type;
                  if (step == 0)
                    running = v;
                  else if (op == LibraryOp::CumSum)
                    running = T(U(running) + U(v));
                  else if (op == LibraryOp::CumProd)
                    running = T(U(running) * U(v));
                  else if (op == LibraryOp::CumMax)
                    running = v > running || v != v ? v : running;
                  else
                    running = v < running || v != v ? v : running;
                  ASSERT_TRUE(same(out[l.at(o, k, i)], running))
                      << "op " << int(op) << " reverse " << reverse << " position " << k;
                }
              }
          }
    }
}

TEST(Library, Float64) { check_dtype<double>(DType::float64); }
TEST(Library, Float32) { check_dtype<float>(DType::float32); }
TEST(Library, Int64) { check_dtype<int64_t>(DType::int64); }
TEST(Library, Int32) { check_dtype<int32_t>(DType::int32); }

TEST(Library, Bools) {
  const std::vector<int64_t> shape{2, 5};
  const bool x[] = {true, false, true, false, false, true, true, false, true, true};
  bool sorted[10];
  run_library({.op = LibraryOp::Sort, .axis = 1}, DType::bool_, shape, {x}, sorted);
  EXPECT_EQ(std::vector<bool>(sorted, sorted + 10),
            (std::vector<bool>{false, false, false, true, true, false, true, true, true, true}));
  int64_t order[10];
  run_library({.op = LibraryOp::ArgSort, .axis = 1}, DType::bool_, shape, {x}, order);
  EXPECT_EQ(std::vector<int64_t>(order, order + 10),
            (std::vector<int64_t>{1, 3, 4, 0, 2, 2, 0, 1, 3, 4}));
}

// Several keys: the first decides, the next breaks its ties, the index breaks theirs.
TEST(Library, ArgSortOfSeveralKeys) {
  const std::vector<int64_t> shape{6};
  const double primary[] = {1, 0, 1, 0, 1, std::nan("")};
  const double secondary[] = {2, 2, 1, 1, 2, 0};
  int64_t order[6];
  run_library({.op = LibraryOp::ArgSort, .axis = 0}, DType::float64, shape, {primary, secondary},
              order);
  EXPECT_EQ(std::vector<int64_t>(order, order + 6), (std::vector<int64_t>{3, 1, 2, 0, 4, 5}));
}

// Long lines take the parallel paths: sorts in parts merged pairwise, scans by blocks (integers
// exactly as in order; float sums within the reordering's rounding).
TEST(Library, LongLines) {
  std::mt19937_64 rng(3);
  const int64_t n = 600007;
  const std::vector<double> x = values<double>(size_t(n), rng);
  std::vector<double> sorted(static_cast<size_t>(n)), want = x;
  run_library({.op = LibraryOp::Sort}, DType::float64, {n}, {x.data()}, sorted.data());
  std::stable_sort(want.begin(), want.end(), less<double>);
  for (int64_t k = 0; k < n; ++k)
    ASSERT_TRUE(same(sorted[size_t(k)], want[size_t(k)])) << k;
  std::vector<int64_t> order(static_cast<size_t>(n)), want_order(static_cast<size_t>(n));
  run_library({.op = LibraryOp::ArgSort}, DType::float64, {n}, {x.data()}, order.data());
  std::iota(want_order.begin(), want_order.end(), 0);
  std::stable_sort(want_order.begin(), want_order.end(),
                   [&](int64_t a, int64_t b) { return less(x[size_t(a)], x[size_t(b)]); });
  EXPECT_EQ(order, want_order);
  std::vector<int64_t> ints(static_cast<size_t>(n)), sums(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    ints[size_t(k)] = int64_t(rng() % 2001) - 1000;
  for (bool reverse : {false, true}) {
    run_library({.op = LibraryOp::CumSum, .reverse = reverse}, DType::int64, {n}, {ints.data()},
                sums.data());
    int64_t running = 0;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t k = reverse ? n - 1 - step : step;
      running += ints[size_t(k)];
      ASSERT_EQ(sums[size_t(k)], running) << "reverse " << reverse << " position " << k;
    }
  }
  std::vector<double> finite(static_cast<size_t>(n)), fsum(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    finite[size_t(k)] = std::normal_distribution<double>(0, 1)(rng);
  run_library({.op = LibraryOp::CumSum}, DType::float64, {n}, {finite.data()}, fsum.data());
  double running = 0, magnitude = 0;
  for (int64_t k = 0; k < n; ++k) {
    running += finite[size_t(k)];
    magnitude += std::abs(finite[size_t(k)]);
    ASSERT_NEAR(fsum[size_t(k)], running, 1e-13 * magnitude) << k;
  }
}

// Sorted float64 lines keep their infinities (Highway 1.0's vqsort alone would make them the
// largest finite values).
TEST(Library, SortKeepsInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {inf, 1.0, -inf, std::nan(""), -0.0, 0.0, -1.0};
  std::vector<double> y(x.size());
  run_library({.op = LibraryOp::Sort}, DType::float64, {int64_t(x.size())}, {x.data()}, y.data());
  EXPECT_EQ(y[0], -inf);
  EXPECT_EQ(y[5], inf);
  EXPECT_TRUE(std::isnan(y[6]));
}

} // namespace
