// jx built without MPI (JX_MPI=OFF or Open MPI not found): one process only.
#include "mpi/communicator.h"

#include <jx/error.h>

namespace jx::mpi {

bool available() { return false; }

std::shared_ptr<runtime::Communicator> connect_at(const std::string &, int, int) {
  return connect(nullptr);
}

std::shared_ptr<runtime::Communicator> connect(const void *) {
  throw Error("jx::distributed::initialize: this jx was built without MPI (configure with Open "
              "MPI installed: libopenmpi-dev, and JX_MPI=ON)");
}

} // namespace jx::mpi
