// Typed errors raised by jx, named after the Python exceptions NumPy/JAX raise for the same input.
#pragma once

#include <stdexcept>
#include <string>

namespace jx {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// NumPy ValueError.
class ValueError : public Error {
public:
  using Error::Error;
};

// Shape mismatches: broadcasting, reshape sizes, concatenation (a ValueError in NumPy).
class ShapeError : public ValueError {
public:
  using ValueError::ValueError;
};

// numpy.exceptions.AxisError: an axis out of range for an array's rank.
class AxisError : public ValueError {
public:
  using ValueError::ValueError;
};

// NumPy IndexError: an index out of range, a bad index expression.
class IndexError : public Error {
public:
  using Error::Error;
};

// NumPy TypeError about dtypes: an op not defined for the operands' dtypes.
class DTypeError : public Error {
public:
  using Error::Error;
};

// File input/output: missing, truncated or malformed files.
class IOError : public Error {
public:
  using Error::Error;
};

} // namespace jx
