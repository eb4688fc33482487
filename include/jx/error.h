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

// Python's TypeError: a value of the wrong type or signature (e.g. calling a compiled function
// with arguments of other shapes or dtypes than it was compiled for).
class TypeError : public Error {
public:
  using Error::Error;
};

// NumPy TypeError about dtypes: an op not defined for the operands' dtypes.
class DTypeError : public TypeError {
public:
  using TypeError::TypeError;
};

// jax.errors.ConcretizationTypeError: data was read from a value that is only traced (inside jit,
// an argument is known by shape and dtype, not by value).
class ConcretizationTypeError : public Error {
public:
  using Error::Error;
};

// Python's MemoryError (NumPy's _ArrayMemoryError): the system refused an array's memory.
class MemoryError : public Error {
public:
  using Error::Error;
};

// jax.errors.UnexpectedTracerError: a value computed from a traced argument was used after its
// trace ended, or inside another trace (it escaped the function, e.g. into a captured variable).
class UnexpectedTracerError : public Error {
public:
  using Error::Error;
};

// Python's NotImplementedError: an argument JAX does not implement (jnp.round of integers to
// decimals < 0).
class NotImplementedError : public Error {
public:
  using Error::Error;
};

// Python's OverflowError: a C++ integer that the dtype it is converted to cannot hold (NumPy 2's
// "Python integer 300 out of bounds for uint8").
class OverflowError : public Error {
public:
  using Error::Error;
};

// File input/output: missing, truncated or malformed files.
class IOError : public Error {
public:
  using Error::Error;
};

} // namespace jx
