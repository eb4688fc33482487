// DType names, parsing and NumPy's promotion table; shape printing.
#include <jx/dtype.h>
#include <jx/error.h>
#include <jx/shape.h>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>

namespace jx {

std::string_view dtype_name(DType t) {
  switch (t) {
  case DType::bool_: return "bool";
  case DType::int32: return "int32";
  case DType::int64: return "int64";
  case DType::float32: return "float32";
  case DType::float64: return "float64";
  }
  return "?";
}

DType dtype(std::string_view name) {
  std::string_view n = name;
  if (!n.empty() && (n[0] == '<' || n[0] == '=' || n[0] == '|')) n.remove_prefix(1);
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias aliases[] = {
      {"bool", DType::bool_},      {"bool_", DType::bool_}, {"?", DType::bool_},
      {"b1", DType::bool_},        {"int32", DType::int32}, {"i4", DType::int32},
      {"int64", DType::int64},     {"i8", DType::int64},    {"int", DType::int64},
      {"float32", DType::float32}, {"f4", DType::float32},  {"single", DType::float32},
      {"float64", DType::float64}, {"f8", DType::float64},  {"double", DType::float64},
      {"float", DType::float64},
  };
  for (const Alias &a : aliases)
    if (a.name == n) return a.dtype;
  throw DTypeError(fmt::format("data type '{}' not understood", name));
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (kind_of(a) == kind_of(b)) return a > b ? a : b;
  if (kind_of(a) > kind_of(b)) std::swap(a, b);
  // Now b has the higher kind.
  if (kind_of(a) == DTypeKind::boolean) return b;
  // Integer with float: NumPy takes a float wide enough for the integer.
  return DType::float64;
}

int64_t checked_size(const Shape &shape, size_t itemsize) {
  if (shape.size() > max_rank)
    throw ValueError(
        fmt::format("maximum supported dimension for an ndarray is currently {}, found {}",
                    max_rank, shape.size()));
  // As NumPy's PyArray_NewFromDescr: the bytes of the nonzero dimensions must fit, even when
  // another dimension is 0.
  int64_t bytes = std::max<int64_t>(1, int64_t(itemsize)), size = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ValueError("negative dimensions are not allowed");
    if (d == 0) {
      size = 0;
      continue;
    }
    if (__builtin_mul_overflow(bytes, d, &bytes))
      throw ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                       "maximum possible size.");
    size *= d; // cannot wrap: bytes bounds it
  }
  return size;
}

std::string shape_str(const Shape &shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string shape_str_compact(const Shape &shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ","));
}

} // namespace jx
