// jax.sharding for jx: the runtime's CPU devices, meshes, partition specs, shardings.
//
// A sharded array keeps one global row-major buffer; each device owns the box of its shard in it
// (Sharding::shard_boxes), read and written in place: shared memory needs no copies. A sharding is
// metadata on the Array handle, not part of the graph, so device_put(x, s1) and device_put(x, s2)
// are two arrays over one node.
#pragma once

#include <jx/shape.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace jx {

class Array;

// jax.Device: one of the process's logical CPU devices, a unit of work on the runtime thread
// pool (not a thread of its own).
struct Device {
  int id = 0;

  std::string platform() const { return "cpu"; }
  // The process whose device this is (jx::distributed): id / local_device_count().
  int process_index() const;
  // "CpuDevice(id=3)", as JAX prints it.
  std::string str() const;
  friend auto operator<=>(const Device &, const Device &) = default;
};

// jax.devices(): every device, by id (every process's, with jx::distributed). This or anything else
// that needs devices (a mesh, a sharding, device_put, Array::sharding) fixes the device count for
// the rest of the process.
std::vector<Device> devices();
// jax.device_count()
int device_count();

namespace config {
// jax_num_cpu_devices (XLA's --xla_force_host_platform_device_count): the number of CPU devices,
// default JX_NUM_CPU_DEVICES or 1. Only before devices are first used, as in JAX: afterwards
// jx::Error; ValueError unless 1 <= n <= 4096.
void set_num_cpu_devices(int n);
} // namespace config

// An n-dimensional array of devices, row-major (JAX uses a NumPy array of Device objects).
struct DeviceArray {
  Shape shape;
  std::vector<Device> devices;

  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(devices.size()); }
  // numpy's reshape: one dimension may be -1; ShapeError if the sizes differ.
  DeviceArray reshape(const Shape &new_shape) const;
  friend bool operator==(const DeviceArray &, const DeviceArray &) = default;
};

namespace mesh_utils {
// jax.experimental.mesh_utils.create_device_mesh: `devices` laid out row-major as mesh_shape,
// whose product must be their number (ValueError otherwise).
DeviceArray create_device_mesh(const Shape &mesh_shape,
                               const std::vector<Device> &devices = jx::devices());
} // namespace mesh_utils

// jax.sharding.Mesh: an n-d array of distinct devices with a name per axis.
class Mesh {
public:
  // ValueError if the names are not one per axis, or repeat; if a device repeats or does not
  // exist.
  Mesh(DeviceArray devices, std::vector<std::string> axis_names);

  const DeviceArray &devices() const { return devices_; }
  const std::vector<std::string> &axis_names() const { return axis_names_; }
  const Shape &axis_sizes() const { return devices_.shape; }
  int64_t size() const { return devices_.size(); }
  // "Mesh('x': 4, 'y': 2)"
  std::string str() const;
  friend bool operator==(const Mesh &, const Mesh &) = default;

private:
  DeviceArray devices_;
  std::vector<std::string> axis_names_;
};

// jax.make_mesh: a mesh of the first prod(axis_shapes) devices; ValueError if there are fewer.
Mesh make_mesh(const Shape &axis_shapes, const std::vector<std::string> &axis_names,
               const std::vector<Device> &devices = jx::devices());

// jax.sharding.PartitionSpec (alias P): for each leading array dimension, the mesh axes it is
// split over, major to minor, or none. Dimensions past the spec's length are not split.
//   P("x", nullptr)   rows split over mesh axis x, columns whole (jx::none works too)
//   P({"x", "y"})     rows split over x and y together (JAX's P(('x', 'y')))
class PartitionSpec {
public:
  class Entry {
  public:
    Entry(std::nullptr_t) {}
    Entry(std::nullopt_t) {}
    Entry(const char *axis) : axes_{axis} {}
    Entry(std::string axis) : axes_{std::move(axis)} {}
    Entry(std::initializer_list<std::string> axes) : axes_(axes), grouped_(true) {}
    explicit Entry(std::vector<std::string> axes) : axes_(std::move(axes)), grouped_(true) {}

    // Empty for an unsplit dimension.
    const std::vector<std::string> &axes() const { return axes_; }
    // Written as a tuple: ('x', 'y'), even of one name.
    bool grouped() const { return grouped_; }

  private:
    std::vector<std::string> axes_;
    bool grouped_ = false;
  };

  PartitionSpec() = default;
  // P({"x", "y"}) is one entry: a braced list converts to std::initializer_list before any other
  // type, so this overload keeps it from reading as P("x", "y").
  PartitionSpec(std::initializer_list<std::string> axes) : entries_{Entry(axes)} {}
  PartitionSpec(Entry e0) : entries_{std::move(e0)} {}
  PartitionSpec(Entry e0, Entry e1) : entries_{std::move(e0), std::move(e1)} {}
  PartitionSpec(Entry e0, Entry e1, Entry e2)
      : entries_{std::move(e0), std::move(e1), std::move(e2)} {}
  PartitionSpec(Entry e0, Entry e1, Entry e2, Entry e3)
      : entries_{std::move(e0), std::move(e1), std::move(e2), std::move(e3)} {}
  // Any number of entries, built at run time.
  explicit PartitionSpec(std::vector<Entry> entries) : entries_(std::move(entries)) {}

  const std::vector<Entry> &entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  // "PartitionSpec('x', None)", "PartitionSpec(('x', 'y'),)"
  std::string str() const;
  // Compares the axes of each entry, as JAX compares parsed specs: P("x") == P({"x"}).
  friend bool operator==(const PartitionSpec &a, const PartitionSpec &b);

private:
  std::vector<Entry> entries_;
};
using P = PartitionSpec;

// jax.sharding.NamedSharding: array dimensions split over named mesh axes; the devices along the
// mesh axes the spec does not name hold replicas.
class NamedSharding {
public:
  // ValueError if the spec names an axis the mesh lacks, or one axis twice.
  NamedSharding(Mesh mesh, PartitionSpec spec);

  const Mesh &mesh() const { return mesh_; }
  const PartitionSpec &spec() const { return spec_; }
  // "NamedSharding(mesh=Mesh('x': 8), spec=PartitionSpec('x', None))"
  std::string str() const;
  friend bool operator==(const NamedSharding &, const NamedSharding &) = default;

private:
  Mesh mesh_;
  PartitionSpec spec_;
};

// jax.sharding.PositionalSharding (removed from recent JAX, kept for seed 000): an n-d array of
// device sets whose shape is the number of ways each array dimension is split. It applies to
// arrays of its own rank, or to any array once fully replicated (every dimension of size 1).
//   PositionalSharding(mesh_utils::create_device_mesh({8})).reshape(8, 1)   rows over 8 devices
class PositionalSharding {
public:
  // ValueError if there are no devices, if one repeats or does not exist.
  explicit PositionalSharding(const DeviceArray &devices);
  explicit PositionalSharding(const std::vector<Device> &devices);

  const Shape &shape() const { return shape_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  // numpy's reshape of the device-set array; ShapeError if the sizes differ.
  PositionalSharding reshape(const Shape &new_shape) const;
  template <std::integral... I> PositionalSharding reshape(I... dims) const {
    return reshape(Shape{static_cast<int64_t>(dims)...});
  }
  // The union of the device sets along `axis` (all of them for none): those devices then hold
  // replicas. keepdims=false drops the axis. AxisError for an axis out of range.
  PositionalSharding replicate(std::optional<int64_t> axis = std::nullopt,
                               bool keepdims = true) const;

  // The devices as given, in order (JAX's device assignment).
  const std::vector<Device> &devices() const { return devices_; }
  // Row-major over shape(): each position's devices, by id.
  const std::vector<std::vector<Device>> &device_sets() const { return sets_; }
  // NumPy's print of the device sets: "PositionalSharding([{CPU 0} {CPU 1}], shape=(2,))"
  std::string str() const;
  friend bool operator==(const PositionalSharding &, const PositionalSharding &) = default;

private:
  PositionalSharding(std::vector<Device> devices, Shape shape,
                     std::vector<std::vector<Device>> sets);

  std::vector<Device> devices_;
  Shape shape_;
  std::vector<std::vector<Device>> sets_;
};

// jax.sharding.SingleDeviceSharding: the whole array on one device.
class SingleDeviceSharding {
public:
  // ValueError if the device does not exist.
  explicit SingleDeviceSharding(Device device);

  Device device() const { return device_; }
  // "SingleDeviceSharding(device=CpuDevice(id=0))"
  std::string str() const;
  friend bool operator==(const SingleDeviceSharding &, const SingleDeviceSharding &) = default;

private:
  Device device_;
};

// The box [lo, hi) of a global array that a device owns: its shard, in place in the array's
// row-major buffer. Devices holding replicas have equal boxes.
struct ShardBox {
  Device device;
  std::vector<int64_t> lo, hi;
  friend bool operator==(const ShardBox &, const ShardBox &) = default;
};

// jax.sharding.Sharding: any of the shardings above, as one immutable shared value (cheap to
// copy). Each converts to it implicitly.
class Sharding {
public:
  using Variant = std::variant<NamedSharding, PositionalSharding, SingleDeviceSharding>;

  Sharding(NamedSharding s);
  Sharding(PositionalSharding s);
  Sharding(SingleDeviceSharding s);

  const Variant &value() const { return *impl_; }

  // One box per device of the sharding, by device id. A dimension of n elements split m ways
  // gives shards of ceil(n / m) elements, the trailing ones shorter or empty, as XLA pads them
  // (device_put itself only accepts even splits, as JAX). ValueError as check_compatible_aval.
  std::vector<ShardBox> shard_boxes(const Shape &global) const;
  // The shape of every shard; ValueError if a dimension does not split evenly, as JAX.
  Shape shard_shape(const Shape &global) const;
  // ValueError unless the sharding applies to arrays of this shape's rank: a NamedSharding to
  // ranks of at least its spec's length, a PositionalSharding to its own rank (any when fully
  // replicated).
  void check_compatible_aval(const Shape &shape) const;

  bool is_fully_replicated() const;
  size_t num_devices() const;
  // The devices, by id (JAX's device_set).
  std::vector<Device> device_set() const;
  std::string str() const;

  // JAX's is_equivalent_to: same device assignment, and every device holds the same part of any
  // array of rank ndim (so P("x") on a mesh of size 1 is equivalent to a replicated sharding).
  bool is_equivalent_to(const Sharding &other, int64_t ndim) const;
  // The same kind of sharding, built the same way (JAX's ==).
  friend bool operator==(const Sharding &a, const Sharding &b);

private:
  std::shared_ptr<const Variant> impl_;
};

// jax.device_put(x, sharding): x placed as the sharding says. The value (and the graph node) is
// x's; only the placement changes. ValueError if the sharding does not apply to x's rank, or
// does not split a dimension of x evenly (as JAX).
Array device_put(const Array &x, const Sharding &sharding);
// jax.device_put(x, device): the whole of x on one device.
Array device_put(const Array &x, Device device);

namespace detail {
template <class T>
concept ShardingPrintable =
    std::is_same_v<T, Device> || std::is_same_v<T, Mesh> || std::is_same_v<T, PartitionSpec> ||
    std::is_same_v<T, NamedSharding> || std::is_same_v<T, PositionalSharding> ||
    std::is_same_v<T, SingleDeviceSharding> || std::is_same_v<T, Sharding>;
} // namespace detail

template <detail::ShardingPrintable T> std::ostream &operator<<(std::ostream &os, const T &x) {
  return os << x.str();
}

} // namespace jx

template <jx::detail::ShardingPrintable T> struct fmt::formatter<T> : fmt::formatter<std::string> {
  auto format(const T &x, format_context &ctx) const {
    return fmt::formatter<std::string>::format(x.str(), ctx);
  }
};
