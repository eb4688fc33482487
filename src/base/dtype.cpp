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
  case DType::int8: return "int8";
  case DType::int16: return "int16";
  case DType::int32: return "int32";
  case DType::int64: return "int64";
  case DType::uint8: return "uint8";
  case DType::uint16: return "uint16";
  case DType::uint32: return "uint32";
  case DType::uint64: return "uint64";
  case DType::float16: return "float16";
  case DType::bfloat16: return "bfloat16";
  case DType::float32: return "float32";
  case DType::float64: return "float64";
  case DType::complex64: return "complex64";
  case DType::complex128: return "complex128";
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
  // NumPy's names, array-protocol codes and C names (numpy.dtype(...) on Linux x86-64).
  // clang-format off
  static constexpr Alias aliases[] = {
      {"bool", DType::bool_}, {"bool_", DType::bool_}, {"?", DType::bool_},
      {"b1", DType::bool_}, {"int8", DType::int8}, {"i1", DType::int8},
      {"byte", DType::int8}, {"b", DType::int8}, {"int16", DType::int16},
      {"i2", DType::int16}, {"short", DType::int16}, {"h", DType::int16},
      {"int32", DType::int32}, {"i4", DType::int32}, {"intc", DType::int32},
      {"i", DType::int32}, {"int64", DType::int64}, {"i8", DType::int64},
      {"int", DType::int64}, {"long", DType::int64}, {"l", DType::int64},
      {"uint8", DType::uint8}, {"u1", DType::uint8}, {"ubyte", DType::uint8},
      {"B", DType::uint8}, {"uint16", DType::uint16}, {"u2", DType::uint16},
      {"ushort", DType::uint16}, {"H", DType::uint16}, {"uint32", DType::uint32},
      {"u4", DType::uint32}, {"uintc", DType::uint32}, {"I", DType::uint32},
      {"uint64", DType::uint64}, {"u8", DType::uint64}, {"uint", DType::uint64},
      {"ulong", DType::uint64}, {"L", DType::uint64}, {"float32", DType::float32},
      {"f4", DType::float32}, {"single", DType::float32}, {"f", DType::float32},
      {"float64", DType::float64}, {"f8", DType::float64}, {"double", DType::float64},
      {"float", DType::float64}, {"d", DType::float64}, {"float16", DType::float16},
      {"f2", DType::float16}, {"half", DType::float16}, {"e", DType::float16},
      {"bfloat16", DType::bfloat16}, {"complex64", DType::complex64}, {"c8", DType::complex64},
      {"csingle", DType::complex64}, {"F", DType::complex64}, {"complex128", DType::complex128},
      {"c16", DType::complex128}, {"complex", DType::complex128}, {"cdouble", DType::complex128},
      {"D", DType::complex128},
  };
  // clang-format on
  for (const Alias &a : aliases)
    if (a.name == n) return a.dtype;
  throw DTypeError(fmt::format("data type '{}' not understood", name));
}

DType checked_dtype(DType t) {
  if (int(t) >= num_dtypes)
    throw DTypeError(fmt::format("Cannot interpret '{}' as a data type", int(t)));
  return t;
}

namespace {

int integer_bits(DType t) { return int(itemsize(t)) * 8; }

DType signed_of_bits(int bits) {
  switch (bits) {
  case 8: return DType::int8;
  case 16: return DType::int16;
  case 32: return DType::int32;
  default: return DType::int64;
  }
}

// The narrowest float that holds every value of an integer with this many bits: NumPy's
// "safe cast" rule behind int8 + float16 -> float16, int16 + float32 -> float32 but int32 +
// float32 -> float64 (ml_dtypes ranks bfloat16 with float16).
int float_rank_for(int bits) { return bits <= 8 ? 0 : bits <= 16 ? 1 : 2; }
int float_rank(DType t) {
  t = real_dtype(t);
  return is_storage_float(t) ? 0 : t == DType::float32 ? 1 : 2;
}
DType float_of_rank(int rank) { return rank == 1 ? DType::float32 : DType::float64; }

} // namespace

DType promote_types(DType a, DType b) {
  checked_dtype(a);
  checked_dtype(b);
  if (a == b) return a;
  if (kind_of(a) > kind_of(b)) std::swap(a, b);
  // Now b has the higher kind.
  if (kind_of(a) == DTypeKind::boolean) return b;
  if (kind_of(b) == DTypeKind::complex) { // complex64 holds float32's and int16's values
    const int need = is_integer(a) ? float_rank_for(integer_bits(a)) : float_rank(a);
    return std::max(need, float_rank(b)) == 2 ? DType::complex128 : DType::complex64;
  }
  if (kind_of(a) == DTypeKind::floating) { // both floats; float16 with bfloat16 is float32
    if (float_rank(a) == float_rank(b)) return DType::float32;
    return float_rank(a) > float_rank(b) ? a : b;
  }
  if (kind_of(b) == DTypeKind::floating) { // an integer with a float
    const int need = float_rank_for(integer_bits(a));
    return float_rank(b) >= need ? b : float_of_rank(need);
  }
  // Two integers.
  if (is_unsigned(a) == is_unsigned(b)) return integer_bits(a) > integer_bits(b) ? a : b;
  if (is_unsigned(a)) std::swap(a, b);
  // a signed, b unsigned: a signed type wider than b holds both; past 64 bits only a float does.
  if (integer_bits(a) > integer_bits(b)) return a;
  return integer_bits(b) == 64 ? DType::float64 : signed_of_bits(2 * integer_bits(b));
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
