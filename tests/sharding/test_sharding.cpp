// Devices, meshes, partition specs and shardings: the boxes each device owns, device_put, the
// shards of an array, JAX's printing, and every bad input. The process has 8 CPU devices.
#include <jx/jx.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/devices.h"
#include "test_util.h"

namespace jnp = jx::numpy;
using jx::Array;
using jx::Device;
using jx::P;
using jx::Shape;
using jx::ShardBox;
using jx::Sharding;

namespace {

// The child process of DeviceCount.ComesFromTheEnvironment keeps the count the variable gives.
const char *const child_flag = "JX_SHARDING_TEST_CHILD";

// Sets the device count before any test uses devices, as a JAX program sets jax_num_cpu_devices
// right after importing jax.
class EightDevices : public testing::Environment {
public:
  void SetUp() override {
    if (!std::getenv(child_flag)) jx::config::set_num_cpu_devices(8);
  }
};
const testing::Environment *const eight_devices =
    testing::AddGlobalTestEnvironment(new EightDevices);

using test_util::expect_error;

std::vector<Device> first(int n) {
  std::vector<Device> all = jx::devices();
  return {all.begin(), all.begin() + n};
}

ShardBox box(int device, std::vector<int64_t> lo, std::vector<int64_t> hi) {
  return {Device{device}, std::move(lo), std::move(hi)};
}

// Seed 000's layouts: PositionalSharding(create_device_mesh((n,), devices()[:n])).reshape(r, c)
// with n = r * c: (1, 1) on one device, (8, 1) and (1, 8) on eight.
jx::PositionalSharding seed_layout(int rows, int cols) {
  return jx::PositionalSharding(
             jx::mesh_utils::create_device_mesh({rows * cols}, first(rows * cols)))
      .reshape(rows, cols);
}

Array iota(const Shape &shape) {
  return jnp::arange(jx::shape_size(shape)).astype(jnp::float64).reshape(shape);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Devices

TEST(Devices, EightCpuDevicesById) {
  EXPECT_EQ(jx::device_count(), 8);
  const std::vector<Device> ds = jx::devices();
  ASSERT_EQ(ds.size(), 8u);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(ds[size_t(i)].id, i);
  EXPECT_EQ(ds[3].str(), "CpuDevice(id=3)");
  EXPECT_EQ(fmt::format("{}", ds[0]), "CpuDevice(id=0)");
  EXPECT_EQ(ds[0].platform(), "cpu");
}

TEST(Devices, CountIsFixedOnceUsed) {
  EXPECT_EQ(jx::device_count(), 8);
  expect_error<jx::Error>([] { jx::config::set_num_cpu_devices(4); },
                          "must be called before devices are used");
  EXPECT_EQ(jx::device_count(), 8);
  jx::config::set_num_cpu_devices(8); // the count in use: nothing to change
}

TEST(Devices, CountMustBePositive) {
  expect_error<jx::ValueError>([] { jx::config::set_num_cpu_devices(0); },
                               "must be positive, got 0");
  expect_error<jx::ValueError>([] { jx::config::set_num_cpu_devices(-2); },
                               "must be positive, got -2");
}

TEST(Devices, CountIsBounded) {
  expect_error<jx::ValueError>([] { jx::config::set_num_cpu_devices(INT_MAX); },
                               "must be at most 4096, got 2147483647");
  expect_error<jx::ValueError>([] { jx::config::set_num_cpu_devices(4097); },
                               "must be at most 4096, got 4097");
}

TEST(Devices, EnvironmentValueParsing) {
  using jx::runtime::parse_device_count;
  EXPECT_EQ(parse_device_count("3"), 3);
  EXPECT_EQ(parse_device_count("16"), 16);
  EXPECT_FALSE(parse_device_count("0").has_value());
  EXPECT_FALSE(parse_device_count("-1").has_value());
  EXPECT_FALSE(parse_device_count("eight").has_value());
  EXPECT_FALSE(parse_device_count("4x").has_value());
  EXPECT_FALSE(parse_device_count("").has_value());
  EXPECT_EQ(parse_device_count("4096"), 4096);
  EXPECT_FALSE(parse_device_count("4097").has_value());
  EXPECT_FALSE(parse_device_count("2147483648").has_value());
}

// Run only as the child of DeviceCount.ComesFromTheEnvironment.
TEST(DeviceCountChild, ReadsTheEnvironment) {
  if (!std::getenv(child_flag)) GTEST_SKIP() << "a helper run in a child process";
  EXPECT_EQ(jx::device_count(), 3);
}

TEST(DeviceCount, ComesFromTheEnvironment) {
  EXPECT_EQ(test_util::run_self("DeviceCountChild.*",
                                {"JX_NUM_CPU_DEVICES=3", std::string(child_flag) + "=1"}),
            0);
}

// Run only as the child of DeviceCount.BadEnvironmentValuesAreValueErrors: a JX_NUM_CPU_DEVICES
// outside 1..4096 raises at every use, and set_num_cpu_devices still decides the count after.
TEST(BadDeviceCountChild, RaisesUntilSet) {
  if (!std::getenv(child_flag)) GTEST_SKIP() << "a helper run in a child process";
  const std::string message =
      std::string("JX_NUM_CPU_DEVICES must be an integer from 1 to 4096, got '") +
      std::getenv("JX_NUM_CPU_DEVICES") + "'";
  expect_error<jx::ValueError>([] { jx::device_count(); }, message);
  expect_error<jx::ValueError>([] { jx::devices(); }, message);
  expect_error<jx::ValueError>([] { jx::make_mesh({1}, {"x"}); }, message);
  expect_error<jx::ValueError>([] { jx::config::set_num_cpu_devices(INT_MAX); },
                               "must be at most 4096");
  jx::config::set_num_cpu_devices(2);
  EXPECT_EQ(jx::device_count(), 2);
}

TEST(DeviceCount, BadEnvironmentValuesAreValueErrors) {
  for (const char *bad : {"0", "-1", "abc", "2x", "4097", "99999999999"})
    EXPECT_EQ(
        test_util::run_self("BadDeviceCountChild.*", {std::string("JX_NUM_CPU_DEVICES=") + bad,
                                                      std::string(child_flag) + "=1"}),
        0)
        << "JX_NUM_CPU_DEVICES=" << bad;
}

// ---------------------------------------------------------------------------------------------
// Meshes

TEST(Mesh, MakeMeshTakesTheFirstDevices) {
  const jx::Mesh mesh = jx::make_mesh({2, 3}, {"x", "y"});
  EXPECT_EQ(mesh.axis_sizes(), (Shape{2, 3}));
  EXPECT_EQ(mesh.size(), 6);
  EXPECT_EQ(mesh.devices().devices, first(6));
  EXPECT_EQ(mesh.axis_names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(mesh.str(), "Mesh('x': 2, 'y': 3)");
}

TEST(Mesh, CreateDeviceMeshAndReshape) {
  const jx::DeviceArray a = jx::mesh_utils::create_device_mesh({8});
  EXPECT_EQ(a.shape, (Shape{8}));
  EXPECT_EQ(a.devices, jx::devices());
  const jx::DeviceArray b = a.reshape({2, -1});
  EXPECT_EQ(b.shape, (Shape{2, 4}));
  EXPECT_EQ(b.devices, a.devices);
  const jx::Mesh mesh(b, {"a", "b"});
  EXPECT_EQ(mesh.axis_sizes(), (Shape{2, 4}));
  // Any order of devices: the mesh keeps it.
  const std::vector<Device> reversed = {Device{3}, Device{2}, Device{1}, Device{0}};
  EXPECT_EQ(jx::mesh_utils::create_device_mesh({2, 2}, reversed).devices, reversed);
}

TEST(Mesh, MoreDevicesThanExist) {
  expect_error<jx::ValueError>(
      [] {
        jx::make_mesh({4, 4}, {"x", "y"});
      },
      "Number of devices 8 must be >= the product of mesh_shape (4, 4)");
  expect_error<jx::ValueError>([] { jx::mesh_utils::create_device_mesh({16}); },
                               "Number of devices 8 must equal the product of mesh_shape (16,)");
  expect_error<jx::ValueError>(
      [] {
        jx::mesh_utils::create_device_mesh({2}, {Device{0}, Device{8}});
      },
      "CpuDevice(id=8) does not exist: there are 8 CPU devices");
  expect_error<jx::ValueError>([] { jx::SingleDeviceSharding(Device{-1}); },
                               "CpuDevice(id=-1) does not exist");
}

TEST(Mesh, BadShapesAndNames) {
  expect_error<jx::ValueError>(
      [] {
        jx::make_mesh({0, 2}, {"x", "y"});
      },
      "axis sizes must be positive, got (0, 2)");
  expect_error<jx::ValueError>(
      [] {
        jx::make_mesh({2, 4}, {"x"});
      },
      "but got devices.ndim == 2 and len(axis_names) == 1.");
  expect_error<jx::ValueError>(
      [] {
        jx::make_mesh({2, 4}, {"x", "x"});
      },
      "Mesh axis names must be unique, got ('x', 'x')");
  expect_error<jx::ValueError>(
      [] {
        jx::Mesh(jx::DeviceArray{{2}, {Device{1}, Device{1}}}, {"x"});
      },
      "Mesh devices must be distinct, but CpuDevice(id=1) appears more than once");
  expect_error<jx::ValueError>(
      [] {
        jx::Mesh(jx::DeviceArray{{3}, first(2)}, {"x"});
      },
      "a device array of shape (3,) holds 3 devices, not 2");
  expect_error<jx::ShapeError>(
      [] {
        jx::mesh_utils::create_device_mesh({8}).reshape({3, 3});
      },
      "cannot reshape array of size 8 into shape (3, 3)");
}

// ---------------------------------------------------------------------------------------------
// Partition specs

TEST(PartitionSpec, EntriesAndPrinting) {
  EXPECT_EQ(P("x", nullptr).str(), "PartitionSpec('x', None)");
  EXPECT_EQ(P(jx::none, "x").str(), "PartitionSpec(None, 'x')");
  EXPECT_EQ(P({"x", "y"}).str(), "PartitionSpec(('x', 'y'),)");
  EXPECT_EQ(P({"x", "y"}, nullptr).str(), "PartitionSpec(('x', 'y'), None)");
  EXPECT_EQ(P("x").str(), "PartitionSpec('x',)");
  EXPECT_EQ(P().str(), "PartitionSpec()");
  EXPECT_EQ(P("x", {"y", "z"}).entries()[1].axes(), (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(P({"x", "y"}).size(), 1u);
  EXPECT_EQ(P("x", "y").size(), 2u);
  EXPECT_EQ(P("x"), P({"x"})); // as JAX parses them
  EXPECT_NE(P("x"), P("x", nullptr));
  EXPECT_EQ(fmt::format("{}", P("x", nullptr)), "PartitionSpec('x', None)");
  const std::vector<std::string> xy = {"x", "y"};
  EXPECT_EQ(P(std::vector<P::Entry>{P::Entry(xy), nullptr, nullptr, nullptr, "z"}).str(),
            "PartitionSpec(('x', 'y'), None, None, None, 'z')");
}

// ---------------------------------------------------------------------------------------------
// Shard boxes

TEST(ShardBoxes, RowsSplitOverAMeshAxis) {
  const Sharding s = jx::NamedSharding(jx::make_mesh({4}, {"x"}), P("x", nullptr));
  EXPECT_EQ(s.shard_boxes({8, 6}),
            (std::vector<ShardBox>{box(0, {0, 0}, {2, 6}), box(1, {2, 0}, {4, 6}),
                                   box(2, {4, 0}, {6, 6}), box(3, {6, 0}, {8, 6})}));
  EXPECT_EQ(s.shard_shape({8, 6}), (Shape{2, 6}));
  EXPECT_EQ(s.num_devices(), 4u);
  EXPECT_FALSE(s.is_fully_replicated());
  EXPECT_EQ(s.str(), "NamedSharding(mesh=Mesh('x': 4), spec=PartitionSpec('x', None))");
}

TEST(ShardBoxes, ColumnsSplitOverAMeshAxis) {
  const Sharding s = jx::NamedSharding(jx::make_mesh({4}, {"x"}), P(nullptr, "x"));
  EXPECT_EQ(s.shard_boxes({2, 8}),
            (std::vector<ShardBox>{box(0, {0, 0}, {2, 2}), box(1, {0, 2}, {2, 4}),
                                   box(2, {0, 4}, {2, 6}), box(3, {0, 6}, {2, 8})}));
  EXPECT_EQ(s.shard_shape({2, 8}), (Shape{2, 2}));
}

TEST(ShardBoxes, TwoDimensionalMesh) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  const Sharding xy = jx::NamedSharding(mesh, P("x", "y"));
  // Device d sits at mesh position (d / 4, d % 4).
  std::vector<ShardBox> expected;
  for (int d = 0; d < 8; ++d)
    expected.push_back(box(d, {d / 4 * 3, d % 4 * 2}, {d / 4 * 3 + 3, d % 4 * 2 + 2}));
  EXPECT_EQ(xy.shard_boxes({6, 8}), expected);
  EXPECT_EQ(xy.shard_shape({6, 8}), (Shape{3, 2}));

  // Transposed: rows over y, columns over x.
  const Sharding yx = jx::NamedSharding(mesh, P("y", "x"));
  expected.clear();
  for (int d = 0; d < 8; ++d)
    expected.push_back(box(d, {d % 4 * 2, d / 4 * 3}, {d % 4 * 2 + 2, d / 4 * 3 + 3}));
  EXPECT_EQ(yx.shard_boxes({8, 6}), expected);
}

TEST(ShardBoxes, SeveralAxesOnOneDimension) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  // ('x', 'y'): x is the major axis, so device d = 4 * x + y gets block d.
  std::vector<ShardBox> expected;
  for (int d = 0; d < 8; ++d)
    expected.push_back(box(d, {d}, {d + 1}));
  EXPECT_EQ(Sharding(jx::NamedSharding(mesh, P({"x", "y"}))).shard_boxes({8}), expected);
  // ('y', 'x'): y major, so device d = 4 * x + y gets block 2 * y + x.
  expected.clear();
  for (int d = 0; d < 8; ++d) {
    const int b = 2 * (d % 4) + d / 4;
    expected.push_back(box(d, {b}, {b + 1}));
  }
  EXPECT_EQ(Sharding(jx::NamedSharding(mesh, P({"y", "x"}))).shard_boxes({8}), expected);
}

TEST(ShardBoxes, UnnamedMeshAxesHoldReplicas) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  const Sharding s = jx::NamedSharding(mesh, P("x"));
  const std::vector<ShardBox> boxes = s.shard_boxes({4, 3});
  ASSERT_EQ(boxes.size(), 8u);
  for (int d = 0; d < 8; ++d)
    EXPECT_EQ(boxes[size_t(d)], box(d, {d / 4 * 2, 0}, {d / 4 * 2 + 2, 3}));
  EXPECT_FALSE(s.is_fully_replicated());

  const Sharding replicated = jx::NamedSharding(mesh, P());
  EXPECT_TRUE(replicated.is_fully_replicated());
  for (const ShardBox &b : replicated.shard_boxes({4, 3})) {
    EXPECT_EQ(b.lo, (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(b.hi, (std::vector<int64_t>{4, 3}));
  }
  EXPECT_EQ(replicated.shard_shape({4, 3}), (Shape{4, 3}));
  // Splitting over an axis of size 1 splits nothing.
  EXPECT_TRUE(
      Sharding(jx::NamedSharding(jx::make_mesh({1, 8}, {"a", "b"}), P("a"))).is_fully_replicated());
}

TEST(ShardBoxes, SeedLayouts) {
  const Shape global{4096, 4096};
  std::vector<ShardBox> rows, cols;
  for (int d = 0; d < 8; ++d) {
    rows.push_back(box(d, {512 * d, 0}, {512 * d + 512, 4096}));
    cols.push_back(box(d, {0, 512 * d}, {4096, 512 * d + 512}));
  }
  const Sharding by_rows = seed_layout(8, 1), by_cols = seed_layout(1, 8);
  EXPECT_EQ(by_rows.shard_boxes(global), rows);
  EXPECT_EQ(by_rows.shard_shape(global), (Shape{512, 4096}));
  EXPECT_EQ(by_cols.shard_boxes(global), cols);
  EXPECT_EQ(by_cols.shard_shape(global), (Shape{4096, 512}));
  EXPECT_EQ(by_rows.num_devices(), 8u);

  // (1, 1): the whole array on the first device.
  const Sharding whole = seed_layout(1, 1);
  EXPECT_TRUE(whole.is_fully_replicated());
  EXPECT_EQ(whole.shard_shape(global), global);
  EXPECT_EQ(whole.shard_boxes(global), (std::vector<ShardBox>{box(0, {0, 0}, {4096, 4096})}));
  EXPECT_TRUE(whole.is_equivalent_to(jx::SingleDeviceSharding(Device{0}), 2));
}

TEST(ShardBoxes, SeedLayoutTheWayJaxSpellsIt) {
  // PositionalSharding(mesh_utils.create_device_mesh((8,), devices=jax.devices()[:8]))
  const jx::PositionalSharding p(jx::mesh_utils::create_device_mesh({8}, first(8)));
  EXPECT_EQ(p.shape(), (Shape{8}));
  EXPECT_EQ(p.reshape(8, 1).shape(), (Shape{8, 1}));
  EXPECT_EQ(p.reshape({1, 8}).shape(), (Shape{1, 8}));
  EXPECT_EQ(p.reshape(2, -1).shape(), (Shape{2, 4}));
  // As NumPy: eight devices do not fit one position (the seed's (1, 1) starts from one device).
  expect_error<jx::ShapeError>([&] { p.reshape(1, 1); },
                               "cannot reshape array of size 8 into shape (1, 1)");
}

TEST(ShardBoxes, PositionalReplicate) {
  const jx::PositionalSharding grid = seed_layout(2, 4);
  // Replicating over the columns: positions (r, :) merge, so each row block is held by 4 devices.
  const jx::PositionalSharding rows = grid.replicate(1);
  EXPECT_EQ(rows.shape(), (Shape{2, 1}));
  EXPECT_EQ(rows.device_sets()[1],
            (std::vector<Device>{Device{4}, Device{5}, Device{6}, Device{7}}));
  const std::vector<ShardBox> boxes = Sharding(rows).shard_boxes({4, 6});
  ASSERT_EQ(boxes.size(), 8u);
  for (int d = 0; d < 8; ++d)
    EXPECT_EQ(boxes[size_t(d)], box(d, {d / 4 * 2, 0}, {d / 4 * 2 + 2, 6}));
  EXPECT_EQ(grid.replicate(1, false).shape(), (Shape{2}));
  EXPECT_EQ(grid.replicate(-2).shape(), (Shape{1, 4}));

  const jx::PositionalSharding all = grid.replicate();
  EXPECT_EQ(all.shape(), (Shape{1, 1}));
  EXPECT_EQ(all.device_sets()[0], jx::devices());
  EXPECT_TRUE(Sharding(all).is_fully_replicated());
  EXPECT_EQ(Sharding(all).shard_boxes({5}).size(), 8u); // fully replicated: any rank
  expect_error<jx::AxisError>([&] { grid.replicate(2); },
                              "axis 2 is out of bounds for array of dimension 2");
}

TEST(ShardBoxes, SingleDevice) {
  const Sharding s = jx::SingleDeviceSharding(Device{5});
  EXPECT_EQ(s.shard_boxes({3, 2}), (std::vector<ShardBox>{box(5, {0, 0}, {3, 2})}));
  EXPECT_TRUE(s.is_fully_replicated());
  EXPECT_EQ(s.num_devices(), 1u);
  EXPECT_EQ(s.str(), "SingleDeviceSharding(device=CpuDevice(id=5))");
  EXPECT_EQ(s.shard_boxes({}), (std::vector<ShardBox>{box(5, {}, {})}));
}

TEST(ShardBoxes, UnevenDimensionsPadLikeXla) {
  // 10 rows over 4 devices: ceil(10 / 4) = 3 rows each, the last shard shorter.
  const Sharding s = jx::NamedSharding(jx::make_mesh({4}, {"x"}), P("x"));
  EXPECT_EQ(s.shard_boxes({10}), (std::vector<ShardBox>{box(0, {0}, {3}), box(1, {3}, {6}),
                                                        box(2, {6}, {9}), box(3, {9}, {10})}));
  // 9 over 4: the last shard is empty.
  EXPECT_EQ(s.shard_boxes({9}).back(), box(3, {9}, {9}));
  // 2 over 4: two empty shards.
  EXPECT_EQ(s.shard_boxes({2}), (std::vector<ShardBox>{box(0, {0}, {1}), box(1, {1}, {2}),
                                                       box(2, {2}, {2}), box(3, {2}, {2})}));
  expect_error<jx::ValueError>(
      [&] { s.shard_shape({10}); },
      "implies that array axis 0 is partitioned 4 times, but the dimension size is 10 (full "
      "shape: (10,), per-dimension tiling factors: [4] should evenly divide the shape)");
}

TEST(ShardBoxes, ZeroSizedDimensions) {
  const Sharding s = jx::NamedSharding(jx::make_mesh({4}, {"x"}), P("x"));
  for (const ShardBox &b : s.shard_boxes({0})) {
    EXPECT_EQ(b.lo, (std::vector<int64_t>{0}));
    EXPECT_EQ(b.hi, (std::vector<int64_t>{0}));
  }
  EXPECT_EQ(s.shard_shape({0}), (Shape{0}));
}

// ---------------------------------------------------------------------------------------------
// Equality

TEST(Equivalence, AsJax) {
  const jx::Mesh mesh = jx::make_mesh({8}, {"x"});
  const Sharding named_rows = jx::NamedSharding(mesh, P("x", nullptr));
  EXPECT_TRUE(named_rows.is_equivalent_to(Sharding(seed_layout(8, 1)), 2));
  EXPECT_FALSE(named_rows.is_equivalent_to(Sharding(seed_layout(1, 8)), 2));
  EXPECT_TRUE(named_rows.is_equivalent_to(jx::NamedSharding(mesh, P("x")), 2));
  EXPECT_NE(named_rows, Sharding(jx::NamedSharding(mesh, P("x")))); // but not ==
  EXPECT_EQ(named_rows, Sharding(jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x", nullptr))));

  // Replicated over the same devices, in the same order.
  const Sharding replicated = jx::NamedSharding(mesh, P());
  EXPECT_TRUE(replicated.is_equivalent_to(Sharding(seed_layout(8, 1).replicate()), 2));
  // One device: a mesh of one device is a single-device sharding.
  const Sharding one = jx::SingleDeviceSharding(Device{0});
  EXPECT_TRUE(one.is_equivalent_to(jx::NamedSharding(jx::make_mesh({1}, {"x"}), P("x")), 3));
  EXPECT_FALSE(one.is_equivalent_to(jx::SingleDeviceSharding(Device{1}), 3));
  EXPECT_FALSE(one.is_equivalent_to(replicated, 3));
  EXPECT_EQ(one, Sharding(jx::SingleDeviceSharding(Device{0})));
  EXPECT_NE(one, Sharding(jx::SingleDeviceSharding(Device{1})));
  // Another device order places the shards on other devices.
  const jx::Mesh reversed(
      jx::mesh_utils::create_device_mesh({8}, {Device{7}, Device{6}, Device{5}, Device{4},
                                               Device{3}, Device{2}, Device{1}, Device{0}}),
      {"x"});
  EXPECT_FALSE(named_rows.is_equivalent_to(jx::NamedSharding(reversed, P("x")), 2));
  expect_error<jx::ValueError>([&] { named_rows.is_equivalent_to(replicated, 1); },
                               "only valid for values of rank at least 2");
}

TEST(Printing, PositionalShardingAsNumPy) {
  EXPECT_EQ(seed_layout(1, 8).str(), "PositionalSharding([[{CPU 0} {CPU 1} {CPU 2} {CPU 3} {CPU 4} "
                                     "{CPU 5} {CPU 6} {CPU 7}]], shape=(1, 8))");
  EXPECT_EQ(jx::PositionalSharding(first(2)).str(),
            "PositionalSharding([{CPU 0} {CPU 1}], shape=(2,))");
  EXPECT_EQ(seed_layout(4, 2).str(), "PositionalSharding([[{CPU 0} {CPU 1}]\n"
                                     "                    [{CPU 2} {CPU 3}]\n"
                                     "                    [{CPU 4} {CPU 5}]\n"
                                     "                    [{CPU 6} {CPU 7}]], shape=(4, 2))");
  EXPECT_EQ(seed_layout(2, 4).replicate(1).str(),
            "PositionalSharding([[{CPU 0, 1, 2, 3}]\n"
            "                    [{CPU 4, 5, 6, 7}]], shape=(2, 1))");
  EXPECT_EQ(seed_layout(8, 1).reshape(2, 2, 2).str(),
            "PositionalSharding([[[{CPU 0} {CPU 1}]\n"
            "                     [{CPU 2} {CPU 3}]]\n"
            "\n"
            "                    [[{CPU 4} {CPU 5}]\n"
            "                     [{CPU 6} {CPU 7}]]], shape=(2, 2, 2))");
  EXPECT_EQ(fmt::format("{}", Sharding(seed_layout(1, 1))),
            "PositionalSharding([[{CPU 0}]], shape=(1, 1))");
}

// ---------------------------------------------------------------------------------------------
// Bad specs

TEST(BadSpec, UnknownMeshAxis) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  expect_error<jx::ValueError>(
      [&] { jx::NamedSharding(mesh, P("x", "z")); },
      "Resource axis: z of PartitionSpec('x', 'z') is not found in mesh: ('x', 'y').");
  expect_error<jx::ValueError>(
      [&] {
        jx::NamedSharding(mesh, P({"y", "w"}));
      },
      "Resource axis: w of PartitionSpec(('y', 'w'),)");
}

TEST(BadSpec, AxisUsedTwice) {
  const jx::Mesh mesh = jx::make_mesh({2, 4}, {"x", "y"});
  expect_error<jx::ValueError>(
      [&] { jx::NamedSharding(mesh, P("x", "x")); },
      "A single NamedSharding spec specification can map every mesh axis to at most one "
      "positional dimension, but PartitionSpec('x', 'x') has duplicate entries for `x`");
  expect_error<jx::ValueError>(
      [&] {
        jx::NamedSharding(mesh, P({"x", "y"}, "y"));
      },
      "has duplicate entries for `y`");
}

TEST(BadSpec, LongerThanTheArraysRank) {
  const Sharding s = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("x", nullptr, "y"));
  expect_error<jx::ValueError>(
      [&] {
        s.shard_boxes({4, 4});
      },
      "Sharding NamedSharding(mesh=Mesh('x': 2, 'y': 4), spec=PartitionSpec('x', None, 'y')) is "
      "only valid for values of rank at least 3, but was applied to a value of rank 2.");
  expect_error<jx::ValueError>(
      [&] {
        jx::device_put(jnp::zeros({4, 4}), s);
      },
      "One of device_put args is incompatible with its sharding "
      "annotation NamedSharding(");
  expect_error<jx::ValueError>(
      [] { jx::device_put(Array(1.0), jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x"))); },
      "but was applied to a value of rank 0. For scalars the PartitionSpec should be P()");
}

TEST(BadSpec, PositionalShardingOfAnotherRank) {
  expect_error<jx::ValueError>([] { jx::device_put(jnp::zeros({16}), seed_layout(8, 1)); },
                               "is only valid for values of rank 2, but was applied to a value "
                               "of rank 1");
  expect_error<jx::ValueError>(
      [] {
        Sharding(seed_layout(8, 1)).shard_boxes({2, 2, 8});
      },
      "is only valid for values of rank 2");
  expect_error<jx::ValueError>([] { jx::PositionalSharding(std::vector<Device>{}); },
                               "requires at least one device");
  expect_error<jx::ValueError>(
      [] {
        jx::PositionalSharding(std::vector<Device>{Device{2}, Device{2}});
      },
      "PositionalSharding devices must be distinct");
  expect_error<jx::ShapeError>([] { seed_layout(8, 1).reshape(3, 2); },
                               "cannot reshape array of size 8 into shape (3, 2)");
}

// ---------------------------------------------------------------------------------------------
// Arrays

TEST(DevicePut, DefaultIsTheFirstDevice) {
  const Array x = jnp::ones({3});
  EXPECT_EQ(x.sharding(), Sharding(jx::SingleDeviceSharding(Device{0})));
  // Results of ops on sharded arrays get the default placement until the engine sets theirs.
  const Array y = jx::device_put(x, jx::NamedSharding(jx::make_mesh({1}, {"x"}), P("x")));
  EXPECT_EQ((y + 1).sharding(), Sharding(jx::SingleDeviceSharding(Device{0})));
}

TEST(DevicePut, KeepsTheValuesAndTheNode) {
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {64, 48}, jx::float64);
  const std::vector<double> before = x.to_vector<double>();
  const Sharding rows = seed_layout(8, 1), cols = seed_layout(1, 8);
  const Array a = jx::device_put(x, rows), b = jx::device_put(x, cols);
  EXPECT_EQ(a.sharding(), rows);
  EXPECT_EQ(b.sharding(), cols);
  EXPECT_EQ(a.node(), x.node()); // shardings are on the handle, not in the graph
  EXPECT_EQ(b.node(), x.node());
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  ASSERT_EQ(av.size(), before.size());
  EXPECT_EQ(std::memcmp(av.data(), before.data(), av.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(bv.data(), before.data(), bv.size() * sizeof(double)), 0);
  // A copy of the handle keeps the placement; a device_put of a sharded array replaces it.
  const Array copy = a;
  EXPECT_EQ(copy.sharding(), rows);
  EXPECT_EQ(jx::device_put(a, cols).sharding(), cols);
}

TEST(DevicePut, OntoOneDevice) {
  const Array x = jnp::arange(6);
  const Array y = jx::device_put(x, Device{3});
  EXPECT_EQ(y.sharding(), Sharding(jx::SingleDeviceSharding(Device{3})));
  EXPECT_EQ(y.to_vector<int64_t>(), x.to_vector<int64_t>());
  expect_error<jx::ValueError>([&] { jx::device_put(x, Device{8}); }, "does not exist");
}

TEST(DevicePut, UnevenDimensionsAreRejectedAsJax) {
  const Sharding s = jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x"));
  expect_error<jx::ValueError>(
      [&] { jx::device_put(jnp::zeros({10}), s); },
      "One of device_put args was given the sharding of NamedSharding(mesh=Mesh('x': 8), "
      "spec=PartitionSpec('x',)), which implies that the global size of its dimension 0 should "
      "be divisible by 8, but it is equal to 10 (full shape: (10,))");
  expect_error<jx::ValueError>(
      [] {
        jx::device_put(jnp::zeros({8, 12}), seed_layout(1, 8));
      },
      "dimension 1 should be divisible by 8, but it is equal to 12");
}

TEST(DevicePut, TheEngineConstructorChecksTheRank) {
  const Array x = jnp::zeros({4});
  const Array y(x.node(), seed_layout(1, 1)); // fully replicated: any rank
  EXPECT_TRUE(y.sharding().is_fully_replicated());
  expect_error<jx::ValueError>([&] { Array(x.node(), seed_layout(8, 1)); },
                               "is only valid for values of rank 2");
}

TEST(AddressableShards, DataEqualsTheSlices) {
  const Array x = iota({16, 8});
  for (const Sharding &s :
       {Sharding(seed_layout(8, 1)), Sharding(seed_layout(1, 8)), Sharding(seed_layout(1, 1)),
        Sharding(jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("y", "x")))}) {
    const Array a = jx::device_put(x, s);
    const std::vector<jx::Shard> shards = a.addressable_shards();
    const std::vector<ShardBox> boxes = s.shard_boxes(x.shape());
    ASSERT_EQ(shards.size(), boxes.size()) << s.str();
    for (size_t i = 0; i < shards.size(); ++i) {
      const jx::Shard &shard = shards[i];
      EXPECT_EQ(shard.device, boxes[i].device);
      ASSERT_EQ(shard.index.size(), 2u);
      const Array expected = x(shard.index[0], shard.index[1]);
      for (size_t d = 0; d < 2; ++d) {
        EXPECT_EQ(shard.index[d].start, boxes[i].lo[d]);
        EXPECT_EQ(shard.index[d].stop, boxes[i].hi[d]);
        EXPECT_EQ(shard.data.shape()[d], boxes[i].hi[d] - boxes[i].lo[d]);
      }
      EXPECT_EQ(shard.data.to_vector<double>(), expected.to_vector<double>()) << s.str();
      EXPECT_EQ(shard.data.sharding(), Sharding(jx::SingleDeviceSharding(shard.device)));
    }
  }
}

TEST(AddressableShards, OfAnUnshardedArrayAndAScalar) {
  const std::vector<jx::Shard> shards = iota({3, 2}).addressable_shards();
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_EQ(shards[0].device, Device{0});
  EXPECT_EQ(shards[0].data.to_vector<double>(), iota({3, 2}).to_vector<double>());
  const std::vector<jx::Shard> scalar = Array(2.5).addressable_shards();
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_TRUE(scalar[0].index.empty());
  EXPECT_EQ(scalar[0].data.item<double>(), 2.5);
}
