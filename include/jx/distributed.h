// jax.distributed for jx: one program run by several processes (JAX's multi-controller model),
// each with JX_NUM_CPU_DEVICES devices of one global mesh, over MPI (Open MPI).
//
//   mpirun -np 2 ./my_program       // each process:
//   jx::distributed::initialize();  // before any device is used
//   auto mesh = jx::make_mesh({8}, {"x"});            // jx::devices(): every process's devices
//   auto x = jx::make_array_from_callback(shape, sharding, load_my_rows);
//   auto y = jx::jit(f)(x);         // each process computes its devices' boxes; halos and
//                                   // gathers move between processes as MPI messages
//   auto all = jx::multihost_utils::process_allgather(y);
//
// Every process must trace and call the same jitted functions in the same order: the first call
// of each compares a fingerprint of the compiled program across processes. Without initialize()
// a program is one process, as always, and needs no MPI.
#pragma once

#include <jx/array.h>
#include <jx/sharding.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jx {

namespace distributed {

struct InitializeOptions {
  // JAX's arguments. Under mpirun (or srun) MPI knows the processes: these are checked against
  // what it reports. Processes started otherwise give all three and meet at coordinator_address
  // ("host:port" where process 0 listens); process 0 starts Open MPI's ompi-server, through which
  // they connect.
  std::optional<std::string> coordinator_address{};
  std::optional<int> num_processes{}, process_id{};
  // An MPI communicator the application already uses (a pointer to its MPI_Comm): jx works on a
  // duplicate of it and leaves MPI's initialization and finalization to the application.
  const void *mpi_communicator = nullptr;
};

// jax.distributed.initialize: joins the processes started by mpirun (Open MPI's environment) or
// those meeting at options.coordinator_address;
// MPI errors return to jx (MPI_ERRORS_RETURN), and exchanges give up after
// JX_COLLECTIVE_TIMEOUT_S seconds (default 300) with a jx::Error. jx::Error if already
// initialized, if the options disagree with MPI, or if jx was built without MPI (JX_MPI=OFF).
void initialize(const InitializeOptions &options = {});
// jax.distributed.shutdown: programs compiled across processes can no longer run.
void shutdown();
bool is_initialized();

} // namespace distributed

// jax.process_index(), jax.process_count()
int process_index();
int process_count();
// jax.local_devices(), jax.local_device_count(): this process's devices (ids
// process_index() * local_device_count() onward).
std::vector<Device> local_devices();
int local_device_count();

// jax.make_array_from_callback: a global array of `shape` placed as `sharding`, whose
// addressable shards this process fills by calling data_callback with each shard's index (one
// slice per dimension); the callback returns that shard's values.
Array make_array_from_callback(
    const Shape &shape, const Sharding &sharding,
    const std::function<Array(const std::vector<Slice> &)> &data_callback);
// jax.make_array_from_process_local_data: local_data is this process's part of the global array
// (the bounding box of its addressable shards, in the order of the global array); global_shape
// defaults to the local shape scaled by the processes along each split axis. ValueError when the
// local data's shape does not match.
Array make_array_from_process_local_data(const Sharding &sharding, const Array &local_data,
                                         std::optional<Shape> global_shape = std::nullopt);

namespace multihost_utils {
// jax.experimental.multihost_utils.process_allgather: the whole of a global array on every
// process (tiled=true; for an array every process holds whole, itself).
Array process_allgather(const Array &x);
// broadcast_one_to_all: process 0's value of x on every process.
Array broadcast_one_to_all(const Array &x);
// sync_global_devices: returns once every process has called it with the same name.
void sync_global_devices(const std::string &name);
} // namespace multihost_utils

} // namespace jx
