// jnp.save / jnp.load: Arrays to and from NumPy .npy files.
#include <jx/numpy.h>

#include "api/internal.h"
#include "io/npy.h"

namespace jx::numpy {

void save(const std::string &path, const Array &x) {
  io::write_npy(path, x.dtype(), x.shape(), x.data());
}

Array load(const std::string &path) {
  io::NpyArray a = io::read_npy(path);
  return api::wrap(ir::constant(std::move(a.data), a.dtype, std::move(a.shape)));
}

} // namespace jx::numpy
