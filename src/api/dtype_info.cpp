// numpy.iinfo, numpy.finfo, numpy.can_cast and jnp.isdtype: questions about dtypes.
#include <jx/error.h>
#include <jx/numpy.h>

#include <cmath>
#include <fmt/format.h>

#include "api/internal.h"
#include "base/storage_float.h"

namespace jx::numpy {

IInfo iinfo(DType dtype) {
  if (!is_integer(checked_dtype(dtype))) {
    // NumPy names the dtype by its kind character ('f' for floats, 'b' for bool).
    throw ValueError(
        fmt::format("Invalid integer data type '{}'.", dtype == DType::bool_ ? 'b' : 'f'));
  }
  return {dtype, int(itemsize(dtype)) * 8, api::integer_limit(dtype, false),
          uint64_t(api::integer_limit(dtype, true))};
}

FInfo finfo(DType dtype) {
  if (!is_floating(checked_dtype(dtype)))
    throw ValueError(fmt::format("data type <class 'numpy.{}'> not inexact", dtype_name(dtype)));
  // The significand's stored bits, the exponent's bits and the decimal precision of each.
  int nmant = 52, nexp = 11, precision = 15;
  switch (dtype) {
  case DType::float16: nmant = 10, nexp = 5, precision = 3; break;
  case DType::bfloat16: nmant = 7, nexp = 8, precision = 2; break;
  case DType::float32: nmant = 23, nexp = 8, precision = 6; break;
  default: break;
  }
  const int maxexp = 1 << (nexp - 1), minexp = 2 - maxexp;
  const double eps = std::ldexp(1.0, -nmant), tiny = std::ldexp(1.0, minexp);
  const double max = std::ldexp(2.0 - eps, maxexp - 1);
  // numpy.finfo's resolution: 10 ** -precision in the dtype (rounded to it).
  double resolution = std::pow(10.0, -precision);
  if (dtype == DType::float16) resolution = Float16(resolution);
  if (dtype == DType::bfloat16) resolution = BFloat16(resolution);
  if (dtype == DType::float32) resolution = float(resolution);
  return {dtype,      int(itemsize(dtype)) * 8,
          eps,        eps / 2,
          max,        -max,
          tiny,       tiny,
          resolution, precision,
          nmant,      nexp,
          maxexp,     minexp};
}

namespace {

// NumPy's kind order for "same_kind" casts: bool, unsigned, signed, float.
int kind_rank(DType t) {
  if (t == DType::bool_) return 0;
  if (is_unsigned(t)) return 1;
  return is_integer(t) ? 2 : 3;
}

bool is_kind(DType t, std::string_view kind) {
  if (kind == "bool") return t == DType::bool_;
  if (kind == "signed integer") return is_signed_integer(t);
  if (kind == "unsigned integer") return is_unsigned(t);
  if (kind == "integral") return is_integer(t);
  if (kind == "real floating") return is_floating(t);
  if (kind == "complex floating") return false;
  if (kind == "numeric") return t != DType::bool_;
  throw ValueError(fmt::format(
      "Unrecognized kind='{}' expected one of ['bool', 'signed integer', 'unsigned integer', "
      "'integral', 'real floating', 'complex floating', 'numeric'], or a compatible input for "
      "jnp.dtype()",
      kind));
}

} // namespace

bool can_cast(DType from, DType to, std::string_view casting) {
  checked_dtype(from);
  checked_dtype(to);
  if (casting == "no" || casting == "equiv") return from == to;
  if (casting == "safe") return jx::promote_types(from, to) == to;
  if (casting == "same_kind")
    return jx::promote_types(from, to) == to || kind_rank(from) <= kind_rank(to);
  if (casting == "unsafe") return true;
  throw ValueError(fmt::format(
      "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got '{}')", casting));
}

bool isdtype(DType dtype, const DTypeKindSpec &kind) {
  checked_dtype(dtype);
  if (const DType *t = std::get_if<DType>(&kind)) return checked_dtype(*t) == dtype;
  return is_kind(dtype, std::get<std::string_view>(kind));
}

bool isdtype(DType dtype, const std::vector<DTypeKindSpec> &kinds) {
  for (const DTypeKindSpec &k : kinds)
    if (isdtype(dtype, k)) return true;
  return false;
}

} // namespace jx::numpy
