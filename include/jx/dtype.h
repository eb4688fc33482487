// jx element types and NumPy's promotion rules between them.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jx {

// The values are stable codes (AOT objects and the C ABI store them): new dtypes go at the end.
// Promotion follows promote_types' table, not this order.
enum class DType : uint8_t {
  bool_,
  int32,
  int64,
  float32,
  float64,
  int8,
  int16,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  complex64,
  complex128,
};
inline constexpr int num_dtypes = 15;

inline constexpr DType bool_ = DType::bool_;
inline constexpr DType int8 = DType::int8;
inline constexpr DType int16 = DType::int16;
inline constexpr DType int32 = DType::int32;
inline constexpr DType int64 = DType::int64;
inline constexpr DType uint8 = DType::uint8;
inline constexpr DType uint16 = DType::uint16;
inline constexpr DType uint32 = DType::uint32;
inline constexpr DType uint64 = DType::uint64;
inline constexpr DType float16 = DType::float16;
inline constexpr DType bfloat16 = DType::bfloat16;
inline constexpr DType float32 = DType::float32;
inline constexpr DType float64 = DType::float64;
inline constexpr DType complex64 = DType::complex64;
inline constexpr DType complex128 = DType::complex128;

// NumPy defaults.
inline constexpr DType default_int = DType::int64;
inline constexpr DType default_uint = DType::uint64;
inline constexpr DType default_float = DType::float64;
inline constexpr DType default_complex = DType::complex128;

// Unsigned integers count as integers: a weakly typed C++ int joins either.
enum class DTypeKind : uint8_t { boolean, integer, floating, complex };

constexpr DTypeKind kind_of(DType t) {
  switch (t) {
  case DType::bool_: return DTypeKind::boolean;
  case DType::float16:
  case DType::bfloat16:
  case DType::float32:
  case DType::float64: return DTypeKind::floating;
  case DType::complex64:
  case DType::complex128: return DTypeKind::complex;
  default: return DTypeKind::integer;
  }
}

constexpr size_t itemsize(DType t) {
  switch (t) {
  case DType::bool_:
  case DType::int8:
  case DType::uint8: return 1;
  case DType::int16:
  case DType::uint16:
  case DType::float16:
  case DType::bfloat16: return 2;
  case DType::int32:
  case DType::uint32:
  case DType::float32: return 4;
  case DType::int64:
  case DType::uint64:
  case DType::float64:
  case DType::complex64: return 8;
  case DType::complex128: return 16;
  }
  return 0;
}

constexpr bool is_floating(DType t) { return kind_of(t) == DTypeKind::floating; }
constexpr bool is_integer(DType t) { return kind_of(t) == DTypeKind::integer; }
constexpr bool is_complex(DType t) { return kind_of(t) == DTypeKind::complex; }
// Floats or complex numbers: NumPy's np.inexact.
constexpr bool is_inexact(DType t) { return is_floating(t) || is_complex(t); }
// complex64 <-> float32, complex128 <-> float64: the type of a complex number's parts, and the
// complex number of a float's (float16 and bfloat16 give complex64, as NumPy's promotion does).
constexpr DType real_dtype(DType t) {
  return t == DType::complex64 ? DType::float32 : t == DType::complex128 ? DType::float64 : t;
}
constexpr DType complex_dtype(DType t) {
  return t == DType::float64 || t == DType::complex128 ? DType::complex128 : DType::complex64;
}
constexpr bool is_unsigned(DType t) {
  return t == DType::uint8 || t == DType::uint16 || t == DType::uint32 || t == DType::uint64;
}
constexpr bool is_signed_integer(DType t) { return is_integer(t) && !is_unsigned(t); }
// float16 and bfloat16 are storage types: every op on them computes in float32 and rounds its
// result back (as XLA:CPU does), so the graph holds no arithmetic in them.
constexpr bool is_storage_float(DType t) { return t == DType::float16 || t == DType::bfloat16; }

// NumPy name: "bool", "int8", ..., "uint64", "float32", "float64", "complex64", "complex128".
std::string_view dtype_name(DType t);

// Parses NumPy spellings: "float64", "f8", "<f8", "double", "int32", "i4", "bool", "?" ...
// Throws jx::DTypeError for anything else.
DType dtype(std::string_view name);

// t when it is one of DType's values; jx::DTypeError as NumPy's for what names no dtype
// ("Cannot interpret '42' as a data type") for any other, such as DType(42). Every DType that
// enters jx (an array's, an astype's, a creation's) is checked by it.
DType checked_dtype(DType t);

// numpy.result_type for two strongly typed operands (int32 + float32 -> float64, as NumPy).
DType promote_types(DType a, DType b);

// C++ type <-> DType.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::bool_; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::int8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::int16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::uint8; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::uint16; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::uint32; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::uint64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::float64; };
template <> struct dtype_of<std::complex<float>> {
  static constexpr DType value = DType::complex64;
};
template <> struct dtype_of<std::complex<double>> {
  static constexpr DType value = DType::complex128;
};
template <class T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

} // namespace jx
