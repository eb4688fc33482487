// A lazy array's bits through the reference evaluator and through compiled kernels, compared.
#pragma once

#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api/internal.h"

namespace test_util {

// An evaluated buffer of a float64, float32, int64 or int32 array as doubles.
inline std::vector<double> as_doubles(const jx::runtime::BufferPtr &b, jx::DType t, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = t == jx::float64   ? b->as<double>()[i]
                   : t == jx::float32 ? double(b->as<float>()[i])
                   : t == jx::int64   ? double(b->as<int64_t>()[i])
                                      : double(b->as<int32_t>()[i]);
  return v;
}

inline void expect_backends_agree(const jx::Array &x) {
  const auto interpreted = jx::api::evaluate_with(jx::api::Backend::Interpreter, x.node());
  const auto compiled = jx::api::evaluate_with(jx::api::Backend::Compiler, x.node());
  const size_t bytes = size_t(x.size()) * itemsize(x.dtype());
  EXPECT_TRUE(bytes == 0 || std::memcmp(interpreted->data(), compiled->data(), bytes) == 0);
}

} // namespace test_util
