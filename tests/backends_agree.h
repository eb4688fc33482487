// A lazy array's bits through the reference evaluator and through compiled kernels, compared.
#pragma once

#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstring>

#include "api/internal.h"

namespace test_util {

inline void expect_backends_agree(const jx::Array &x) {
  const auto interpreted = jx::api::evaluate_with(jx::api::Backend::Interpreter, x.node());
  const auto compiled = jx::api::evaluate_with(jx::api::Backend::Compiler, x.node());
  const size_t bytes = size_t(x.size()) * itemsize(x.dtype());
  EXPECT_TRUE(bytes == 0 || std::memcmp(interpreted->data(), compiled->data(), bytes) == 0);
}

} // namespace test_util
