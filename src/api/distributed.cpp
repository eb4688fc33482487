// jax.distributed for jx (include/jx/distributed.h): initialize and shutdown, the process's
// devices, global arrays made from process-local data, and multihost_utils.
#include <jx/distributed.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mutex>
#include <string>

#include "api/internal.h"
#include "api/placement.h"
#include "compile/distribute.h"
#include "mpi/communicator.h"
#include "runtime/collectives.h"
#include "runtime/devices.h"
#include "runtime/program.h"

namespace jx {

namespace {

std::mutex initialize_mutex;

// This process's shards of an array of `shape` under s, one per distinct box.
std::vector<ShardBox> local_boxes(const Sharding &s, const Shape &shape) {
  std::vector<ShardBox> out;
  const int me = process_index();
  for (const ShardBox &b : s.shard_boxes(shape))
    if (b.device.process_index() == me &&
        std::none_of(out.begin(), out.end(),
                     [&](const ShardBox &o) { return o.lo == b.lo && o.hi == b.hi; }))
      out.push_back(b);
  return out;
}

std::vector<int64_t> box_count(const ShardBox &b) {
  std::vector<int64_t> count;
  for (size_t a = 0; a < b.lo.size(); ++a)
    count.push_back(b.hi[a] - b.lo[a]);
  return count;
}

// The bounding box [lo, hi) of some boxes of an array of `shape` (empty, all 0, for none).
std::pair<std::vector<int64_t>, std::vector<int64_t>> bounding(const std::vector<ShardBox> &boxes,
                                                               const Shape &shape) {
  std::vector<int64_t> lo(shape.size(), 0), hi(shape.size(), 0);
  if (boxes.empty()) return {lo, hi};
  lo = shape;
  for (const ShardBox &b : boxes)
    for (size_t a = 0; a < shape.size(); ++a) {
      lo[a] = std::min(lo[a], b.lo[a]);
      hi[a] = std::max(hi[a], b.hi[a]);
    }
  return {lo, hi};
}

// A buffer for this process's shards of a global array: the window of their bounding box (the
// whole array when they cover it).
runtime::BufferPtr shards_buffer(const std::vector<ShardBox> &local, const Shape &shape,
                                 DType dtype) {
  const auto [lo, hi] = bounding(local, shape);
  runtime::Program::Layout layout{shape, itemsize(dtype), {lo, hi}};
  int64_t covered = 0;
  for (const ShardBox &b : local)
    covered += shape_size(Shape(box_count(b)));
  if (covered == shape_size(shape)) layout.window = runtime::Window::whole(shape);
  runtime::BufferPtr buffer = runtime::make_buffer(layout);
  if (covered < shape_size(shape)) buffer->mark_partial();
  return buffer;
}

} // namespace

namespace distributed {

void initialize(const InitializeOptions &options) {
  std::lock_guard lock(initialize_mutex);
  if (runtime::communicator())
    throw Error("jx::distributed::initialize should only be called once.");
  // Started by mpirun (its environment) or given a communicator: MPI knows the processes. Else
  // they meet at the coordinator.
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || options.mpi_communicator;
  std::shared_ptr<runtime::Communicator> c;
  if (options.coordinator_address && !launched) {
    if (!options.num_processes) throw ValueError("Number of processes must be defined.");
    if (!options.process_id)
      throw ValueError("The process id of the current process must be defined.");
    c = mpi::connect_at(*options.coordinator_address, *options.num_processes, *options.process_id);
  } else {
    c = mpi::connect(options.mpi_communicator);
  }
  if (options.num_processes && *options.num_processes != c->process_count())
    throw ValueError(fmt::format("jx::distributed::initialize: num_processes={}, but MPI started "
                                 "{} processes",
                                 *options.num_processes, c->process_count()));
  if (options.process_id && *options.process_id != c->process_index())
    throw ValueError(fmt::format("jx::distributed::initialize: process_id={}, but MPI gives this "
                                 "process rank {}",
                                 *options.process_id, c->process_index()));
  runtime::set_communicator(std::move(c));
}

void shutdown() {
  std::lock_guard lock(initialize_mutex);
  if (std::shared_ptr<runtime::Communicator> c = runtime::communicator()) {
    c->shutdown();
    runtime::set_communicator(nullptr);
  }
}

bool is_initialized() { return runtime::communicator() != nullptr; }

} // namespace distributed

int process_index() { return runtime::process_index(); }
int process_count() { return runtime::process_count(); }
int local_device_count() { return runtime::device_count(); }

std::vector<Device> local_devices() {
  std::vector<Device> out;
  const int first = process_index() * local_device_count();
  for (int d = 0; d < local_device_count(); ++d)
    out.push_back(Device{first + d});
  return out;
}

int Device::process_index() const { return id / runtime::device_count(); }

bool Array::is_fully_addressable() const {
  if (!sharding_) return true;
  const int me = jx::process_index();
  const std::vector<Device> set = sharding_->device_set();
  return std::all_of(set.begin(), set.end(), [&](Device d) { return d.process_index() == me; });
}

Array make_array_from_callback(
    const Shape &shape, const Sharding &sharding,
    const std::function<Array(const std::vector<Slice> &)> &data_callback) {
  sharding.check_compatible_aval(shape);
  const std::vector<ShardBox> local = local_boxes(sharding, shape);
  std::vector<Array> parts;
  for (const ShardBox &b : local) {
    std::vector<Slice> index;
    for (size_t a = 0; a < shape.size(); ++a)
      index.push_back(slice(b.lo[a], b.hi[a]));
    parts.push_back(data_callback(index));
    if (parts.back().shape() != Shape(box_count(b)))
      throw ValueError(fmt::format("make_array_from_callback: the callback returned shape {} for "
                                   "the shard at {} of {}, whose shape is {}",
                                   shape_str(parts.back().shape()), b.device.str(),
                                   shape_str(shape), shape_str(Shape(box_count(b)))));
    if (parts.back().dtype() != parts.front().dtype())
      throw TypeError(fmt::format("make_array_from_callback: the callback returned {} and {} for "
                                  "two shards",
                                  dtype_name(parts.front().dtype()),
                                  dtype_name(parts.back().dtype())));
  }
  const DType dtype = parts.empty() ? default_float : parts.front().dtype();
  runtime::BufferPtr buffer = shards_buffer(local, shape, dtype);
  const runtime::Window held = buffer->holds(shape);
  for (size_t i = 0; i < local.size(); ++i) {
    // Each part computed, copied and let go before the next: one shard's memory at a time.
    const Array part = std::move(parts[i]);
    runtime::copy_window(api::realize(part.node())->as<char>(), {local[i].lo, local[i].hi},
                         buffer->as<char>(), held, itemsize(dtype));
  }
  return Array(ir::constant(std::move(buffer), dtype, shape), sharding);
}

Array make_array_from_process_local_data(const Sharding &sharding, const Array &local_data,
                                         std::optional<Shape> global_shape) {
  const Shape &local_shape = local_data.shape();
  sharding.check_compatible_aval(local_shape);
  if (!global_shape) {
    // Each axis scaled by how many processes' parts lie along it: the shards' count along it
    // over this process's (probed on a shape of one element per device along each axis).
    const int64_t devices = int64_t(sharding.num_devices());
    const Shape probe(local_shape.size(), devices);
    const auto [lo, hi] = bounding(local_boxes(sharding, probe), probe);
    global_shape = local_shape;
    for (size_t a = 0; a < local_shape.size(); ++a)
      if (hi[a] > lo[a]) (*global_shape)[a] = local_shape[a] * devices / (hi[a] - lo[a]);
  }
  const Shape &shape = *global_shape;
  const std::vector<ShardBox> local = local_boxes(sharding, shape);
  // The local data is the bounding box of this process's shards.
  const auto [lo, hi] = bounding(local, shape);
  Shape expected;
  for (size_t a = 0; a < shape.size(); ++a)
    expected.push_back(hi[a] - lo[a]);
  if (expected != local_shape)
    throw ValueError(fmt::format("make_array_from_process_local_data: local data of shape {} "
                                 "does not match this process's shards of a global array of "
                                 "shape {} placed as {}: expected shape {}",
                                 shape_str(local_shape), shape_str(shape), sharding.str(),
                                 shape_str(expected)));
  const DType dtype = local_data.dtype();
  runtime::BufferPtr buffer = shards_buffer(local, shape, dtype);
  const runtime::BufferPtr data = api::realize(local_data.node());
  // The local data is laid out as the window of the shards' bounding box: copied as it is.
  runtime::copy_window(data->as<char>(), {lo, hi}, buffer->as<char>(), buffer->holds(shape),
                       itemsize(dtype));
  return Array(ir::constant(std::move(buffer), dtype, shape), sharding);
}

namespace api {

Array local_shards(const Array &x, const Sharding &sharding) {
  const std::vector<ShardBox> local = local_boxes(sharding, x.shape());
  runtime::BufferPtr buffer = shards_buffer(local, x.shape(), x.dtype());
  runtime::copy_window(realize(x.node())->as<char>(), runtime::Window::whole(x.shape()),
                       buffer->as<char>(), buffer->holds(x.shape()), itemsize(x.dtype()));
  return Array(ir::constant(std::move(buffer), x.dtype(), x.shape()), sharding);
}

} // namespace api

std::vector<Shard> Array::addressable_shards() const {
  const Sharding s = sharding();
  const runtime::BufferPtr held = node()->op == ir::Op::Constant ? node()->local_value() : nullptr;
  std::vector<Shard> shards;
  for (const ShardBox &box : s.shard_boxes(shape())) {
    if (box.device.process_index() != jx::process_index()) continue;
    std::vector<Slice> slices;
    std::vector<IndexItem> items;
    for (size_t dim = 0; dim < box.lo.size(); ++dim) {
      slices.push_back(slice(box.lo[dim], box.hi[dim]));
      items.emplace_back(slices.back());
    }
    if (held && held->partial()) {
      // Only this process's shards are there: copied out of the global buffer.
      const std::vector<int64_t> count = box_count(box);
      const size_t item = itemsize(dtype());
      runtime::BufferPtr part = runtime::make_buffer(size_t(shape_size(Shape(count))) * item);
      runtime::copy_window(held->as<char>(), held->holds(shape()), part->as<char>(),
                           {box.lo, box.hi}, item);
      shards.push_back(
          {box.device, slices,
           Array(ir::constant(part, dtype(), Shape(count)), SingleDeviceSharding(box.device))});
      continue;
    }
    shards.push_back(
        {box.device, slices, Array(index(items).node(), SingleDeviceSharding(box.device))});
  }
  return shards;
}

namespace multihost_utils {

namespace {

// A copy of `held` (an array of x's dtype and shape whose boxes live as `placement` says) after
// the exchange that gives every process the whole of it.
Array exchanged_copy(runtime::Communicator &comm, const runtime::Buffer &held, const Array &x,
                     const sharding::Placement &placement) {
  runtime::BufferPtr whole =
      runtime::make_buffer(size_t(shape_size(x.shape())) * itemsize(x.dtype()));
  runtime::copy_window(held.as<char>(), held.holds(x.shape()), whole->as<char>(),
                       runtime::Window::whole(x.shape()), itemsize(x.dtype()));
  void *address[] = {whole->data()};
  comm.exchange(compile::allgather_exchange(placement, x.shape(), x.dtype(), comm.process_index(),
                                            comm.process_count(), local_device_count()),
                address);
  return Array(ir::constant(std::move(whole), x.dtype(), x.shape()));
}

// Every process's dtype and shape of x, compared before any data moves: an exchange of arrays
// that differ pairs mismatched messages (one process reads mixed data, another fails in MPI).
// Each process gathers the same descriptors, so each raises the same ValueError. One allgather
// of a hash of them when they agree.
void require_one_type(runtime::Communicator &comm, const Array &x, std::string_view name) {
  const std::string type = fmt::format("{}[{}]", dtype_name(x.dtype()), fmt::join(x.shape(), ","));
  const std::vector<uint64_t> hashes = comm.allgather(std::hash<std::string>{}(type));
  if (std::all_of(hashes.begin(), hashes.end(), [&](uint64_t h) { return h == hashes[0]; })) return;
  const std::vector<uint64_t> heads = comm.allgather(uint64_t(x.dtype()) | uint64_t(x.ndim()) << 8);
  uint64_t rank = 0;
  for (uint64_t h : heads)
    rank = std::max(rank, h >> 8);
  std::vector<std::vector<uint64_t>> dims; // by axis, then process
  for (uint64_t a = 0; a < rank; ++a)
    dims.push_back(comm.allgather(a < uint64_t(x.ndim()) ? uint64_t(x.shape()[a]) : 0));
  std::vector<std::string> types;
  for (size_t p = 0; p < heads.size(); ++p) {
    std::vector<uint64_t> shape;
    for (uint64_t a = 0; a < heads[p] >> 8; ++a)
      shape.push_back(dims[a][p]);
    types.push_back(fmt::format("{}[{}] on process {}", dtype_name(DType(heads[p] & 0xff)),
                                fmt::join(shape, ","), p));
  }
  throw ValueError(fmt::format("{} needs an array of one shape and dtype on every process, but "
                               "got {}",
                               name, fmt::join(types, ", ")));
}

} // namespace

Array process_allgather(const Array &x) {
  // Every process takes part whatever it holds (the schedule sends only what is missing): a
  // decision of its own could leave a peer waiting.
  const std::shared_ptr<runtime::Communicator> comm = runtime::communicator();
  if (!comm || !x.committed()) return Array(x.node());
  runtime::BufferPtr held = x.node()->local_value();
  require_one_type(*comm, x, "process_allgather");
  if (!held) held = api::realize(x.node());
  return exchanged_copy(*comm, *held, x, api::placement_of(x.sharding(), x.shape()));
}

Array broadcast_one_to_all(const Array &x) {
  const std::shared_ptr<runtime::Communicator> comm = runtime::communicator();
  if (!comm) return x;
  require_one_type(*comm, x, "broadcast_one_to_all");
  // Process 0 holds the whole: every other process receives it from there.
  return exchanged_copy(*comm, *api::realize(x.node()), x,
                        {{0, std::vector<int64_t>(x.ndim(), 0), x.shape()}});
}

void sync_global_devices(const std::string &name) {
  const std::shared_ptr<runtime::Communicator> comm = runtime::communicator();
  if (!comm) return;
  const uint64_t mine = std::hash<std::string>{}(name);
  const std::vector<uint64_t> all = comm->allgather(mine);
  for (size_t p = 0; p < all.size(); ++p)
    if (all[p] != mine)
      throw Error(fmt::format("sync_global_devices name mismatch: process {} synced on another "
                              "name than '{}' (process {})",
                              p, name, comm->process_index()));
}

} // namespace multihost_utils

} // namespace jx
