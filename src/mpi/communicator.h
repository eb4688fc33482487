// The communicator of jx::distributed over MPI (Open MPI): each exchange's boxes as MPI subarray
// datatypes sent and received point to point, nonblocking, waited on with a deadline.
#pragma once

#include <memory>
#include <string>

#include "runtime/collectives.h"

namespace jx::mpi {

// Whether jx was built with MPI (the JX_MPI build option).
bool available();

// Joins the processes MPI started (MPI_Init_thread unless MPI is initialized already) on a
// duplicate of MPI_COMM_WORLD, or of *mpi_communicator (an MPI_Comm) when given. jx::Error
// without MPI.
std::shared_ptr<runtime::Communicator> connect(const void *mpi_communicator);

// Joins processes started without mpirun, which meet at `coordinator` (host:port where process 0
// listens; src/mpi/rendezvous.h).
std::shared_ptr<runtime::Communicator> connect_at(const std::string &coordinator, int num_processes,
                                                  int process_id);

} // namespace jx::mpi
