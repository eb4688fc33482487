// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jx/dtype.h"
#include "runtime/buffer.h"

namespace jx::io {

// An array loaded from a .npy file: C order, native (little-endian) byte order.
struct NpyArray {
  jx::DType dtype;
  std::vector<int64_t> shape;
  jx::runtime::BufferPtr data;
};

// Reads a .npy file with dtype '|b1', '<i4', '<i8', '<f4' or '<f8' (big-endian variants are
// byte-swapped; Fortran-order files are transposed into C order). Bool bytes are normalized
// to 0/1. Throws jx::IOError for missing, truncated or malformed files and jx::DTypeError
// for any other dtype.
NpyArray read_npy(const std::string &path);

// Writes `data` (C order, native byte order, product(shape) elements) as a .npy file: format
// 1.0, or 2.0 when the header does not fit 1.0's 16-bit length. Throws jx::ValueError for a
// negative dimension and jx::IOError when the file cannot be written. A regular file is replaced
// whole (a temporary file beside it, renamed over it; through a symbolic link, its target), so a
// failed write leaves the old file as it was; a device or FIFO is written in place, never removed.
void write_npy(const std::string &path, jx::DType dtype, const std::vector<int64_t> &shape,
               const void *data);

} // namespace jx::io
