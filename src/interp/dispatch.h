// Calls a generic lambda with a value of the C++ type of a DType: dispatch(t, [](auto tag) {...}).
#pragma once

#include <jx/dtype.h>

#include "base/storage_float.h"

#include <cstdint>

namespace jx {

template <class F> decltype(auto) dispatch_dtype(DType t, F &&f) {
  switch (t) {
  case DType::bool_: return f(bool{});
  case DType::int8: return f(int8_t{});
  case DType::int16: return f(int16_t{});
  case DType::int32: return f(int32_t{});
  case DType::int64: return f(int64_t{});
  case DType::uint8: return f(uint8_t{});
  case DType::uint16: return f(uint16_t{});
  case DType::uint32: return f(uint32_t{});
  case DType::uint64: return f(uint64_t{});
  case DType::float16: return f(Float16{});
  case DType::bfloat16: return f(BFloat16{});
  case DType::float32: return f(float{});
  case DType::float64: return f(double{});
  }
  return f(double{});
}

} // namespace jx
