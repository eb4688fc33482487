// What jx::random's two files share: key checks, threefry random bits and uniform floats, as graphs
// over key arrays (random.cpp), used by the samplers built on them (random_samplers.cpp).
#pragma once

#include <jx/array.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace jx::random::detail {

// JAX's TypeError unless key is key data: uint32 of shape (..., 2).
void check_key_data(const Array &key);
// check_key_data, then JAX's ValueError unless key is a single key, shape (2,) (`fn` names the
// function: a batch of keys goes through vmap).
void check_key(const Array &key, std::string_view fn);
// DTypeError unless dtype is a float dtype ("dtype argument to `fn` must be a float dtype").
void check_float(DType dtype, std::string_view fn);
// ValueError for a negative dimension.
void check_shape(const Shape &shape);

// x's value as a constant Array when it is known without running a trace: data already, a small
// graph of known values (a literal, split(key)[i] inside jit), or, outside traces, any graph
// (computed now). nullopt for a value that depends on a traced one.
std::optional<Array> known_value(const Array &x);
// The integer value of a scalar that must be concrete (JAX's ConcretizationTypeError naming
// `what` otherwise).
int64_t concrete_int(const Array &x, std::string_view what);

// A strongly typed scalar literal of an integer dtype, from its bits (as api::integer_limit's).
Array int_literal(int64_t bits, DType dtype);
// x's value as a constant Array when it is known without running a trace: data already, a small
// graph of known values (a literal, split(key)[i] inside jit), or, outside traces, any graph
// (computed now). nullopt for a value that depends on a traced one.
std::optional<Array> known_value(const Array &x);
// The integer value of a scalar that must be concrete (JAX's ConcretizationTypeError naming
// `what` otherwise).
int64_t concrete_int(const Array &x, std::string_view what);

// A strongly typed scalar literal of a float dtype.
Array float_literal(double value, DType dtype);

// jax._src.random's _split(key): the two keys of split(key, 2), first and second.
std::pair<Array, Array> split2(const Array &key);

// _random_bits(key, bit_width, shape): uniform unsigned integers of bit_width 8, 16, 32 or 64.
Array random_bits(const Array &key, int bit_width, const Shape &shape);

// jax.random.uniform's [0, 1) floats of dtype before scaling: the top mantissa bits of the random
// bits over 1.0, minus 1 (the random_uniform leaf where the key is known and dtype float32 or
// float64, else the same bits composed from random_bits).
Array unit_uniform(const Array &key, const Shape &shape, DType dtype);
// _uniform(key, minval, maxval, shape, dtype): max(minval, f * (maxval - minval) + minval), the
// multiply-add rounded once (XLA:CPU contracts it); minval and maxval broadcast to shape.
Array scaled_uniform(const Array &key, const Shape &shape, DType dtype, const Array &minval,
                     const Array &maxval);

// numpy.finfo(dtype).nmant of a float dtype.
int mantissa_bits(DType dtype);

} // namespace jx::random::detail
