// Calls a generic lambda with a value of the C++ type of a DType: dispatch(t, [](auto tag) {...}).
// dispatch_dtype covers the real types (every op computes on them); dispatch_any_dtype adds the
// complex ones, which only data movement, selection and their parts' ops see (ir::finish builds
// complex arithmetic from real ops).
#pragma once

#include <jx/dtype.h>

#include <jx/error.h>

#include "base/storage_float.h"

#include <complex>
#include <cstdint>

namespace jx {

template <class T> inline constexpr bool is_complex_type = false;
template <class T> inline constexpr bool is_complex_type<std::complex<T>> = true;

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
  case DType::complex64:
  case DType::complex128: throw Error("internal: a complex value reached a real-typed routine");
  }
  return f(double{});
}

template <class F> decltype(auto) dispatch_any_dtype(DType t, F &&f) {
  if (t == DType::complex64) return f(std::complex<float>{});
  if (t == DType::complex128) return f(std::complex<double>{});
  return dispatch_dtype(t, std::forward<F>(f));
}

} // namespace jx
