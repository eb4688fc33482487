// Processes started without mpirun (jax.distributed.initialize's coordinator_address,
// num_processes, process_id): they meet over TCP at the coordinator, process 0's address, and
// build one MPI communicator with MPI_Comm_accept/connect through an ompi-server that process 0
// starts.
#pragma once

#include <string>

#include <mpi.h>

namespace jx::mpi {

// MPI initialized (MPI_Init_thread) in every process, then a communicator of all of them, ranked
// by process_id. jx::Error when the coordinator cannot be reached or the processes do not all
// arrive within JX_COLLECTIVE_TIMEOUT_S, or when ompi-server cannot be started.
MPI_Comm join_at(const std::string &coordinator, int num_processes, int process_id);

// Stops process 0's ompi-server (after MPI_Finalize).
void stop_name_server();

} // namespace jx::mpi
