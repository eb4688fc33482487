// jax.sharding: devices, meshes, partition specs, shardings and the boxes they give each device;
// device_put and the Array's sharding accessors. How each sharding tiles an array is the sharding
// stage's (sharding/tiling.h).
#include <jx/array.h>
#include <jx/jit.h>
#include <jx/sharding.h>

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <set>
#include <string_view>

#include "api/internal.h"
#include "api/placement.h"
#include "runtime/collectives.h"
#include "runtime/devices.h"
#include "runtime/thread_pool.h"
#include "sharding/placement.h"
#include "sharding/tiling.h"

namespace jx {

namespace {

// "'x'", as Python's repr of a string.
std::string quoted(const std::string &name) { return fmt::format("'{}'", name); }

// "('x', 'y')": a Python tuple of names.
std::string names_tuple(const std::vector<std::string> &names) {
  std::vector<std::string> items;
  for (const std::string &n : names)
    items.push_back(quoted(n));
  return fmt::format("({}{})", fmt::join(items, ", "), items.size() == 1 ? "," : "");
}

// ValueError unless every device exists and none repeats.
void check_devices(const std::vector<Device> &devices, std::string_view owner) {
  const int count = device_count();
  std::set<int> seen;
  for (Device d : devices) {
    if (d.id < 0 || d.id >= count)
      throw ValueError(fmt::format("{} does not exist: there {} {} CPU device{} "
                                   "(JX_NUM_CPU_DEVICES per process, jx::config::"
                                   "set_num_cpu_devices)",
                                   d.str(), count == 1 ? "is" : "are", count,
                                   count == 1 ? "" : "s"));
    if (!seen.insert(d.id).second)
      throw ValueError(fmt::format("{} devices must be distinct, but {} appears more than once",
                                   owner, d.str()));
  }
}

bool fully_replicated(const PositionalSharding &s) {
  return std::all_of(s.shape().begin(), s.shape().end(), [](int64_t d) { return d == 1; });
}

// The mesh axis positions each spec entry names (the constructor checked that they exist).
std::vector<std::vector<size_t>> spec_axes(const NamedSharding &s) {
  const std::vector<std::string> &names = s.mesh().axis_names();
  std::vector<std::vector<size_t>> out;
  for (const PartitionSpec::Entry &e : s.spec().entries()) {
    std::vector<size_t> &axes = out.emplace_back();
    for (const std::string &a : e.axes())
      axes.push_back(size_t(std::find(names.begin(), names.end(), a) - names.begin()));
  }
  return out;
}

std::vector<int> ids(const std::vector<Device> &devices) {
  std::vector<int> out;
  for (Device d : devices)
    out.push_back(d.id);
  return out;
}

// Arrays of rank ndim under s (which must apply to that rank), tiles by device id.
sharding::Tiling tiling(const Sharding &s, int64_t ndim) {
  struct {
    int64_t ndim;
    sharding::Tiling operator()(const NamedSharding &n) {
      return sharding::mesh_tiling(n.mesh().axis_sizes(), ids(n.mesh().devices().devices),
                                   spec_axes(n), ndim);
    }
    sharding::Tiling operator()(const PositionalSharding &p) {
      if (fully_replicated(p)) return sharding::replicated_tiling(ids(p.devices()), ndim);
      std::vector<std::vector<int>> sets;
      for (const std::vector<Device> &set : p.device_sets())
        sets.push_back(ids(set));
      return sharding::grid_tiling(p.shape(), sets);
    }
    sharding::Tiling operator()(const SingleDeviceSharding &d) {
      return sharding::replicated_tiling({d.device().id}, ndim);
    }
  } visitor{ndim};
  return std::visit(visitor, s.value());
}

// JAX's _device_assignment: the devices in the order the sharding was built from.
std::vector<Device> device_assignment(const Sharding &s) {
  struct {
    std::vector<Device> operator()(const NamedSharding &n) { return n.mesh().devices().devices; }
    std::vector<Device> operator()(const PositionalSharding &p) { return p.devices(); }
    std::vector<Device> operator()(const SingleDeviceSharding &d) { return {d.device()}; }
  } visitor;
  return std::visit(visitor, s.value());
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Devices

std::string Device::str() const { return fmt::format("CpuDevice(id={})", id); }

int device_count() { return runtime::device_count() * runtime::process_count(); }

std::vector<Device> devices() {
  std::vector<Device> out(static_cast<size_t>(device_count()));
  for (size_t i = 0; i < out.size(); ++i)
    out[i].id = int(i);
  return out;
}

void config::set_num_cpu_devices(int n) {
  if (n <= 0)
    throw ValueError(fmt::format(
        "jx::config::set_num_cpu_devices: the number of CPU devices must be positive, got {}", n));
  // A bound keeps a typo (or INT_MAX) from allocating device lists of gigabytes.
  if (n > runtime::max_device_count)
    throw ValueError(fmt::format("jx::config::set_num_cpu_devices: the number of CPU devices must "
                                 "be at most {}, got {}",
                                 runtime::max_device_count, n));
  if (!runtime::request_device_count(n))
    throw Error(fmt::format(
        "jx::config::set_num_cpu_devices({}) must be called before devices are used (by "
        "jx::devices(), device_count(), a mesh, a sharding or device_put): this process already "
        "has {} CPU device{}",
        n, runtime::device_count(), runtime::device_count() == 1 ? "" : "s"));
}

DeviceArray DeviceArray::reshape(const Shape &new_shape) const {
  return {api::resolve_reshape(size(), new_shape), devices};
}

DeviceArray mesh_utils::create_device_mesh(const Shape &mesh_shape,
                                           const std::vector<Device> &devices) {
  if (shape_size(mesh_shape) != int64_t(devices.size()))
    throw ValueError(fmt::format("Number of devices {} must equal the product of mesh_shape {}",
                                 devices.size(), shape_str(mesh_shape)));
  check_devices(devices, "Mesh");
  return {mesh_shape, devices};
}

// ---------------------------------------------------------------------------------------------
// Meshes and specs

Mesh::Mesh(DeviceArray devices, std::vector<std::string> axis_names)
    : devices_(std::move(devices)), axis_names_(std::move(axis_names)) {
  if (devices_.ndim() != int64_t(axis_names_.size()))
    throw ValueError(fmt::format(
        "Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
        "second argument (`axis_names`), but got devices.ndim == {} and len(axis_names) == {}.",
        devices_.ndim(), axis_names_.size()));
  if (shape_size(devices_.shape) != devices_.size())
    throw ValueError(fmt::format("a device array of shape {} holds {} devices, not {}",
                                 shape_str(devices_.shape), shape_size(devices_.shape),
                                 devices_.size()));
  if (std::set<std::string>(axis_names_.begin(), axis_names_.end()).size() != axis_names_.size())
    throw ValueError(
        fmt::format("Mesh axis names must be unique, got {}", names_tuple(axis_names_)));
  check_devices(devices_.devices, "Mesh");
}

std::string Mesh::str() const {
  std::vector<std::string> axes;
  for (size_t i = 0; i < axis_names_.size(); ++i)
    axes.push_back(fmt::format("{}: {}", quoted(axis_names_[i]), devices_.shape[i]));
  return fmt::format("Mesh({})", fmt::join(axes, ", "));
}

Mesh make_mesh(const Shape &axis_shapes, const std::vector<std::string> &axis_names,
               const std::vector<Device> &devices) {
  if (std::any_of(axis_shapes.begin(), axis_shapes.end(), [](int64_t d) { return d < 1; }))
    throw ValueError(
        fmt::format("make_mesh: axis sizes must be positive, got {}", shape_str(axis_shapes)));
  const int64_t needed = shape_size(axis_shapes);
  if (needed > int64_t(devices.size()))
    throw ValueError(fmt::format("Number of devices {} must be >= the product of mesh_shape {}",
                                 devices.size(), shape_str(axis_shapes)));
  return Mesh(mesh_utils::create_device_mesh(
                  axis_shapes, std::vector<Device>(devices.begin(), devices.begin() + needed)),
              axis_names);
}

std::string PartitionSpec::str() const {
  std::vector<std::string> items;
  for (const Entry &e : entries_) {
    if (e.grouped())
      items.push_back(names_tuple(e.axes()));
    else if (e.axes().empty())
      items.push_back("None");
    else
      items.push_back(quoted(e.axes()[0]));
  }
  return fmt::format("PartitionSpec({}{})", fmt::join(items, ", "), items.size() == 1 ? "," : "");
}

bool operator==(const PartitionSpec &a, const PartitionSpec &b) {
  return std::equal(a.entries_.begin(), a.entries_.end(), b.entries_.begin(), b.entries_.end(),
                    [](const auto &x, const auto &y) { return x.axes() == y.axes(); });
}

// ---------------------------------------------------------------------------------------------
// Shardings

NamedSharding::NamedSharding(Mesh mesh, PartitionSpec spec)
    : mesh_(std::move(mesh)), spec_(std::move(spec)) {
  const std::vector<std::string> &names = mesh_.axis_names();
  std::vector<std::string> used, repeated;
  for (const PartitionSpec::Entry &e : spec_.entries())
    for (const std::string &a : e.axes()) {
      if (std::find(names.begin(), names.end(), a) == names.end())
        throw ValueError(fmt::format("Resource axis: {} of {} is not found in mesh: {}.", a,
                                     spec_.str(), names_tuple(names)));
      if (std::find(used.begin(), used.end(), a) != used.end()) {
        if (std::find(repeated.begin(), repeated.end(), a) == repeated.end())
          repeated.push_back(fmt::format("`{}`", a));
      } else {
        used.push_back(a);
      }
    }
  if (!repeated.empty())
    throw ValueError(fmt::format(
        "A single NamedSharding spec specification can map every mesh axis to at most one "
        "positional dimension, but {} has duplicate entries for {}",
        spec_.str(), fmt::join(repeated, ", ")));
}

std::string NamedSharding::str() const {
  return fmt::format("NamedSharding(mesh={}, spec={})", mesh_.str(), spec_.str());
}

PositionalSharding::PositionalSharding(std::vector<Device> devices, Shape shape,
                                       std::vector<std::vector<Device>> sets)
    : devices_(std::move(devices)), shape_(std::move(shape)), sets_(std::move(sets)) {}

PositionalSharding::PositionalSharding(const DeviceArray &devices)
    : devices_(devices.devices), shape_(devices.shape) {
  if (devices_.empty())
    throw ValueError("PositionalSharding.__init__ requires at least one device, got []");
  if (shape_size(shape_) != int64_t(devices_.size()))
    throw ValueError(fmt::format("a device array of shape {} holds {} devices, not {}",
                                 shape_str(shape_), shape_size(shape_), devices_.size()));
  check_devices(devices_, "PositionalSharding");
  for (Device d : devices_)
    sets_.push_back({d});
}

PositionalSharding::PositionalSharding(const std::vector<Device> &devices)
    : PositionalSharding(DeviceArray{{int64_t(devices.size())}, devices}) {}

PositionalSharding PositionalSharding::reshape(const Shape &new_shape) const {
  return {devices_, api::resolve_reshape(int64_t(sets_.size()), new_shape), sets_};
}

PositionalSharding PositionalSharding::replicate(std::optional<int64_t> axis, bool keepdims) const {
  // The union over the reduced axes, as NumPy's sum of DeviceIdSets.
  std::vector<bool> reduced(shape_.size(), !axis.has_value());
  if (axis) reduced[size_t(api::normalize_axis(*axis, ndim()))] = true;
  Shape out_shape, kept_shape;
  for (size_t k = 0; k < shape_.size(); ++k) {
    if (!reduced[k]) kept_shape.push_back(shape_[k]);
    if (!reduced[k] || keepdims) out_shape.push_back(reduced[k] ? 1 : shape_[k]);
  }
  std::vector<std::vector<Device>> sets(size_t(shape_size(kept_shape)));
  const std::vector<int64_t> kept_strides = row_major_strides(kept_shape);
  for (size_t p = 0; p < sets_.size(); ++p) {
    const std::vector<int64_t> at = sharding::coordinates(int64_t(p), shape_);
    int64_t q = 0;
    for (size_t k = 0, j = 0; k < shape_.size(); ++k)
      if (!reduced[k]) q += at[k] * kept_strides[j++];
    sets[size_t(q)].insert(sets[size_t(q)].end(), sets_[p].begin(), sets_[p].end());
  }
  for (std::vector<Device> &s : sets)
    std::sort(s.begin(), s.end());
  return {devices_, out_shape, sets};
}

std::string PositionalSharding::str() const {
  std::vector<std::string> items;
  for (const std::vector<Device> &set : sets_) {
    std::vector<int> ids;
    for (Device d : set)
      ids.push_back(d.id);
    items.push_back(fmt::format("{{CPU {}}}", fmt::join(ids, ", ")));
  }
  const std::string prefix = "PositionalSharding(";
  return fmt::format("{}{}, shape={})", prefix,
                     api::array2string(shape_, items, prefix.size(), 1, 100), shape_str(shape_));
}

SingleDeviceSharding::SingleDeviceSharding(Device device) : device_(device) {
  check_devices({device_}, "SingleDeviceSharding");
}

std::string SingleDeviceSharding::str() const {
  return fmt::format("SingleDeviceSharding(device={})", device_.str());
}

Sharding::Sharding(NamedSharding s) : impl_(std::make_shared<const Variant>(std::move(s))) {}
Sharding::Sharding(PositionalSharding s) : impl_(std::make_shared<const Variant>(std::move(s))) {}
Sharding::Sharding(SingleDeviceSharding s) : impl_(std::make_shared<const Variant>(std::move(s))) {}

void Sharding::check_compatible_aval(const Shape &shape) const {
  const int64_t rank = int64_t(shape.size());
  if (const auto *named = std::get_if<NamedSharding>(impl_.get())) {
    const int64_t needed = int64_t(named->spec().size());
    if (rank < needed)
      throw ValueError(fmt::format(
          "Sharding {} is only valid for values of rank at least {}, but "
          "was applied to a value of rank {}.{}",
          str(), needed, rank, rank == 0 ? " For scalars the PartitionSpec should be P()" : ""));
  } else if (const auto *positional = std::get_if<PositionalSharding>(impl_.get())) {
    if (rank != positional->ndim() && !fully_replicated(*positional))
      throw ValueError(fmt::format("Sharding {} is only valid for values of rank {}, but was "
                                   "applied to a value of rank {}",
                                   str(), positional->ndim(), rank));
  }
}

std::vector<ShardBox> Sharding::shard_boxes(const Shape &global) const {
  check_compatible_aval(global);
  std::vector<ShardBox> boxes;
  for (sharding::DeviceBox &box :
       sharding::tile_boxes(tiling(*this, int64_t(global.size())), global))
    boxes.push_back(ShardBox{Device{box.device}, std::move(box.lo), std::move(box.hi)});
  return boxes;
}

sharding::Placement api::placement_of(const Sharding &s, const Shape &shape) {
  s.check_compatible_aval(shape);
  return sharding::tile_boxes(tiling(s, int64_t(shape.size())), shape);
}

Shape Sharding::shard_shape(const Shape &global) const {
  check_compatible_aval(global);
  const sharding::Tiling t = tiling(*this, int64_t(global.size()));
  Shape out;
  for (size_t dim = 0; dim < global.size(); ++dim) {
    if (global[dim] % t.ways[dim] != 0)
      throw ValueError(fmt::format(
          "Sharding {} implies that array axis {} is partitioned {} times, but the dimension size "
          "is {} (full shape: {}, per-dimension tiling factors: [{}] should evenly divide the "
          "shape)",
          str(), dim, t.ways[dim], global[dim], shape_str(global), fmt::join(t.ways, ", ")));
    out.push_back(global[dim] / t.ways[dim]);
  }
  return out;
}

bool Sharding::is_fully_replicated() const {
  struct {
    bool operator()(const NamedSharding &s) {
      int64_t ways = 1;
      for (const std::vector<size_t> &axes : spec_axes(s))
        for (size_t a : axes)
          ways *= s.mesh().axis_sizes()[a];
      return ways == 1;
    }
    bool operator()(const PositionalSharding &s) { return fully_replicated(s); }
    bool operator()(const SingleDeviceSharding &) { return true; }
  } visitor;
  return std::visit(visitor, *impl_);
}

size_t Sharding::num_devices() const { return device_assignment(*this).size(); }

std::vector<Device> Sharding::device_set() const {
  std::vector<Device> out = device_assignment(*this);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Sharding::str() const {
  return std::visit([](const auto &s) { return s.str(); }, *impl_);
}

bool Sharding::is_equivalent_to(const Sharding &other, int64_t ndim) const {
  const Shape rank_only(size_t(ndim), 1);
  check_compatible_aval(rank_only);
  other.check_compatible_aval(rank_only);
  return device_assignment(*this) == device_assignment(other) &&
         tiling(*this, ndim) == tiling(other, ndim);
}

bool operator==(const Sharding &a, const Sharding &b) {
  return a.impl_ == b.impl_ || *a.impl_ == *b.impl_;
}

// ---------------------------------------------------------------------------------------------
// Arrays

Array::Array(std::shared_ptr<const ir::Node> node, Sharding sharding)
    : node_(std::move(node)), sharding_(std::move(sharding)) {
  sharding_->check_compatible_aval(shape());
}

Sharding Array::sharding() const {
  if (!node_) no_value(); // an Array without a value has no placement either
  return sharding_ ? *sharding_ : Sharding(SingleDeviceSharding(Device{0}));
}

Array device_put(const Array &x, const Sharding &sharding) {
  try {
    sharding.check_compatible_aval(x.shape());
  } catch (const ValueError &e) {
    throw ValueError(fmt::format("One of device_put args is incompatible with its sharding "
                                 "annotation {}: {}",
                                 sharding.str(), e.what()));
  }
  const sharding::Tiling t = tiling(sharding, x.ndim());
  for (size_t dim = 0; dim < t.ways.size(); ++dim)
    if (x.shape()[dim] % t.ways[dim] != 0)
      throw ValueError(fmt::format(
          "One of device_put args was given the sharding of {}, which implies that the global "
          "size of its dimension {} should be divisible by {}, but it is equal to {} (full shape: "
          "{})",
          sharding.str(), dim, t.ways[dim], x.shape()[dim], shape_str(x.shape())));
  // Across processes, an array on devices of several processes holds this process's shards
  // only: a value every process has is cut to them, a global array resharded (a jitted copy).
  if (runtime::process_count() > 1 && !ir::tracing()) {
    const runtime::BufferPtr held = x.node()->local_value();
    if (held && held->partial() && x.committed() &&
        !x.sharding().is_equivalent_to(sharding, x.ndim()))
      return jit([](const Array &a) { return a; },
                 {.in_shardings = {x.sharding()}, .out_shardings = {sharding}})(x);
    if (!(held && held->partial()) && !Array(x.node(), sharding).is_fully_addressable())
      return api::local_shards(x, sharding);
  }
  return Array(x.node(), sharding);
}

Array device_put(const Array &x, Device device) {
  return device_put(x, SingleDeviceSharding(device));
}

} // namespace jx
