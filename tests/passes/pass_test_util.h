// Helpers shared by the pass tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "interp/dispatch.h"
#include "interp/interp.h"
#include "ir/builder.h"

namespace pass_test {

// A constant node holding v (1-D unless a shape is given).
template <class T> jx::ir::NodePtr vec(std::vector<T> v, jx::Shape shape = {}) {
  if (shape.empty()) shape = {int64_t(v.size())};
  auto buf = jx::runtime::make_buffer(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i)
    buf->template as<T>()[i] = v[i];
  return jx::ir::constant(buf, jx::dtype_of_v<T>, shape);
}

// a and b have one dtype, shape and weak flag, and the reference evaluator gives them the same
// bits element by element (any NaN equals any NaN).
inline void expect_identical(const jx::ir::NodePtr &a, const jx::ir::NodePtr &b) {
  ASSERT_EQ(a->dtype, b->dtype);
  ASSERT_EQ(a->shape, b->shape);
  EXPECT_EQ(a->weak, b->weak);
  auto bufs = jx::interp::evaluate({a, b});
  jx::dispatch_dtype(a->dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < a->size(); ++i) {
      T x = bufs[0]->template as<T>()[i], y = bufs[1]->template as<T>()[i];
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) && std::isnan(y)) continue;
      EXPECT_EQ(std::memcmp(&x, &y, sizeof(T)), 0) << "element " << i << ": " << x << " vs " << y;
    }
  });
}

} // namespace pass_test
