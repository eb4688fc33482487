// jx element types and NumPy's promotion rules between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jx {

// Order matters: it is the promotion order within each kind.
enum class DType : uint8_t { bool_, int32, int64, float32, float64 };

inline constexpr DType bool_ = DType::bool_;
inline constexpr DType int32 = DType::int32;
inline constexpr DType int64 = DType::int64;
inline constexpr DType float32 = DType::float32;
inline constexpr DType float64 = DType::float64;

// NumPy defaults.
inline constexpr DType default_int = DType::int64;
inline constexpr DType default_float = DType::float64;

enum class DTypeKind : uint8_t { boolean, integer, floating };

constexpr DTypeKind kind_of(DType t) {
  switch (t) {
  case DType::bool_: return DTypeKind::boolean;
  case DType::int32:
  case DType::int64: return DTypeKind::integer;
  case DType::float32:
  case DType::float64: return DTypeKind::floating;
  }
  return DTypeKind::boolean;
}

constexpr size_t itemsize(DType t) {
  switch (t) {
  case DType::bool_: return 1;
  case DType::int32:
  case DType::float32: return 4;
  case DType::int64:
  case DType::float64: return 8;
  }
  return 0;
}

constexpr bool is_floating(DType t) { return kind_of(t) == DTypeKind::floating; }
constexpr bool is_integer(DType t) { return kind_of(t) == DTypeKind::integer; }

// NumPy name: "bool", "int32", "int64", "float32", "float64".
std::string_view dtype_name(DType t);

// Parses NumPy spellings: "float64", "f8", "<f8", "double", "int32", "i4", "bool", "?" ...
// Throws jx::DTypeError for anything else.
DType dtype(std::string_view name);

// numpy.result_type for two strongly typed operands (int32 + float32 -> float64, as NumPy).
DType promote_types(DType a, DType b);

// C++ type <-> DType.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::bool_; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::float64; };
template <class T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

} // namespace jx
