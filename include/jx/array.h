// jx::Array: an immutable n-dimensional array value, backed by a lazy expression graph.
#pragma once

#include <jx/dtype.h>
#include <jx/error.h>
#include <jx/shape.h>
#include <jx/sharding.h>

#include <concepts>
#include <cstdint>
#include <fmt/format.h>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace jx {

namespace ir {
struct Node;
}

// Python's slice(start, stop, step); an empty optional is None.
struct Slice {
  std::optional<int64_t> start, stop, step;
};
// slice(1, 5, 2) is 1:5:2; slice() is ':'; slice(none, none, -1) is '::-1'.
inline Slice slice(std::optional<int64_t> start = std::nullopt,
                   std::optional<int64_t> stop = std::nullopt,
                   std::optional<int64_t> step = std::nullopt) {
  return {start, stop, step};
}
inline constexpr std::nullopt_t none = std::nullopt;

struct NewAxis {};
struct Ellipsis {};
inline constexpr NewAxis newaxis{};
inline constexpr Ellipsis ellipsis{};

class Array;

// One item of an index expression: an integer, a slice, newaxis, '...', or an array of integers or
// bools (advanced indexing, NumPy's rules; held as its graph node).
class IndexItem {
public:
  using ArrayNode = std::shared_ptr<const ir::Node>;
  // An unsigned index past INT64_MAX is held as INT64_MAX (past the end of every axis, so it
  // raises NumPy's IndexError) with its own value kept for the message; converted, it would turn
  // negative and count from the end.
  template <std::integral T>
  IndexItem(T i)
      : v_(std::is_unsigned_v<T> && uint64_t(i) > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(i)),
        unsigned_(std::is_unsigned_v<T> && uint64_t(i) > uint64_t(INT64_MAX)
                      ? std::optional<uint64_t>(uint64_t(i))
                      : std::nullopt) {}
  IndexItem(Slice s) : v_(s) {}
  IndexItem(NewAxis n) : v_(n) {}
  IndexItem(Ellipsis e) : v_(e) {}
  IndexItem(const Array &a);
  const std::variant<int64_t, Slice, NewAxis, Ellipsis, ArrayNode> &value() const { return v_; }
  // An integer index as NumPy writes it in messages (an unsigned one past INT64_MAX as itself).
  std::string integer_text() const;

private:
  std::variant<int64_t, Slice, NewAxis, Ellipsis, ArrayNode> v_;
  std::optional<uint64_t> unsigned_;
};

class At;
struct Shard;

class Array {
public:
  // An Array with no value yet (`Array x; ... x = jnp::zeros(...)`): any use of it before the
  // assignment raises the ValueError of node().
  Array() = default;
  // A C++ scalar is weakly typed, as a Python scalar in JAX: 2.0 * f32 stays float32.
  template <class T>
  requires std::is_arithmetic_v<T> Array(T value) : Array(from_scalar(value)) {}
  // A C++ complex number, weakly typed as a Python complex: 1i * f32 is complex64.
  template <class T>
  requires std::is_floating_point_v<T> Array(std::complex<T> value)
      : Array(from_scalar_complex(std::complex<double>(value))) {}
  explicit Array(std::shared_ptr<const ir::Node> node);
  // node's value placed as `sharding` says (for computations that produce sharded results);
  // ValueError as Sharding::check_compatible_aval.
  Array(std::shared_ptr<const ir::Node> node, Sharding sharding);

  const Shape &shape() const;
  int64_t ndim() const;
  int64_t size() const;
  DType dtype() const;
  bool weak_type() const;

  Array astype(DType dtype) const;
  // x.T: the axes reversed (jnp.transpose(x)).
  Array T() const;
  // x.mT: the last two axes swapped (jnp.matrix_transpose; ValueError below two dimensions).
  Array mT() const;

  // x[i], x[1:5], x[:, None], x[..., 0]: x(0), x(slice(1, 5)), x(slice(), newaxis), x(ellipsis, 0).
  // x[idx], x[mask], x[i, :, j]: integer and bool arrays as items (NumPy's advanced indexing;
  // out-of-range indices are clamped, as jnp's; a bool mask must be concrete).
  Array index(const std::vector<IndexItem> &items) const;
  template <class... I> Array operator()(I &&...items) const {
    return index({IndexItem(std::forward<I>(items))...});
  }
  Array operator[](IndexItem item) const { return index({std::move(item)}); }

  // x.at[idx].set(v) is x.at(idx...).set(v).
  template <class... I> At at(I &&...items) const;

  // Computes the value now (jax's block_until_ready); returns *this.
  const Array &block_until_ready() const;
  // Elements in C order, converted to T.
  template <class T> std::vector<T> to_vector() const;
  // The only element of a size-1 array, converted to T (ValueError otherwise).
  template <class T> T item() const;

  // Raw realized data, dtype() elements in C order. Valid while this Array lives.
  const void *data() const;
  // The array's graph node; a jx::ValueError for an Array without a value (default-constructed,
  // moved from, or made from a null node).
  const std::shared_ptr<const ir::Node> &node() const {
    if (!node_) no_value();
    return node_;
  }

  // x.reshape(shape), as jnp.reshape.
  Array reshape(const Shape &shape) const;

  // x.sharding: how the array is placed on devices. SingleDeviceSharding(devices()[0]) unless
  // device_put placed it otherwise (results of ops get that default for now).
  Sharding sharding() const;
  // Whether device_put (or a computation with out_shardings) placed x: jit then holds it to its
  // in_shardings, where an uncommitted array is placed as asked (JAX's committed arrays).
  bool committed() const { return sharding_.has_value(); }
  // x.addressable_shards: one per device of x.sharding() on this process, by device id.
  std::vector<Shard> addressable_shards() const;
  // x.is_fully_addressable: every device of x.sharding() is this process's.
  bool is_fully_addressable() const;

private:
  [[noreturn]] static void no_value();
  static Array from_scalar_double(double v);
  static Array from_scalar_int(int64_t v, bool is_bool);
  static Array from_scalar_complex(std::complex<double> v);
  template <class T> static Array from_scalar(T v) {
    if constexpr (std::is_same_v<T, bool>)
      return from_scalar_int(v, true);
    else if constexpr (std::is_integral_v<T>)
      return from_scalar_int(static_cast<int64_t>(v), false);
    else
      return from_scalar_double(static_cast<double>(v));
  }
  void copy_to(DType dtype, void *out) const;

  std::shared_ptr<const ir::Node> node_;
  // Empty for the default placement, which is only resolved when asked for: making arrays must
  // not fix the device count before config::set_num_cpu_devices.
  std::optional<Sharding> sharding_;
};

// jax.Shard: one device's part of an array: its index in the global array and its values (a lazy
// slice of the array, placed on that device).
struct Shard {
  Device device;
  std::vector<Slice> index;
  Array data;
};

// x.at[index]: functional updates, returning a new array.
class At {
public:
  At(Array base, std::vector<IndexItem> items) : base_(std::move(base)), items_(std::move(items)) {}
  Array set(const Array &values) const;
  Array add(const Array &values) const;
  Array subtract(const Array &values) const;
  Array multiply(const Array &values) const;
  Array divide(const Array &values) const;
  Array min(const Array &values) const;
  Array max(const Array &values) const;
  Array get() const;

private:
  Array base_;
  std::vector<IndexItem> items_;
};

inline IndexItem::IndexItem(const Array &a) : v_(a.node()) {}

template <class... I> At Array::at(I &&...items) const {
  return At(*this, {IndexItem(std::forward<I>(items))...});
}

template <class T> std::vector<T> Array::to_vector() const {
  std::vector<T> out(static_cast<size_t>(size()));
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> tmp(new bool[out.size()]);
    copy_to(DType::bool_, tmp.get());
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = tmp[i];
  } else if constexpr (std::is_same_v<T, int>) {
    std::vector<int32_t> tmp(out.size());
    copy_to(DType::int32, tmp.data());
    out.assign(tmp.begin(), tmp.end());
  } else {
    copy_to(dtype_of_v<T>, out.data());
  }
  return out;
}

template <class T> T Array::item() const {
  if (size() != 1) throw ValueError("can only convert an array of size 1 to a C++ scalar");
  return to_vector<T>()[0];
}

// Operators, with NumPy broadcasting and promotion.
Array operator+(const Array &a, const Array &b);
Array operator-(const Array &a, const Array &b);
Array operator*(const Array &a, const Array &b);
Array operator/(const Array &a, const Array &b);
Array operator%(const Array &a, const Array &b);
Array operator-(const Array &a);
Array operator==(const Array &a, const Array &b);
Array operator!=(const Array &a, const Array &b);
Array operator<(const Array &a, const Array &b);
Array operator<=(const Array &a, const Array &b);
Array operator>(const Array &a, const Array &b);
Array operator>=(const Array &a, const Array &b);
Array operator&(const Array &a, const Array &b);
Array operator|(const Array &a, const Array &b);
Array operator^(const Array &a, const Array &b);
Array operator~(const Array &a);
// jnp.left_shift and jnp.right_shift (x << y, x >> y); `os << x` still prints x.
Array operator<<(const Array &a, const Array &b);
Array operator>>(const Array &a, const Array &b);

// NumPy's str(x): "[[1. 2.]\n [3. 4.]]".
std::string to_string(const Array &x);
std::ostream &operator<<(std::ostream &os, const Array &x);
// A dtype prints as its NumPy name: "float32".
inline std::ostream &operator<<(std::ostream &os, DType t) { return os << dtype_name(t); }

} // namespace jx

template <> struct fmt::formatter<jx::Array> : fmt::formatter<std::string> {
  auto format(const jx::Array &x, format_context &ctx) const {
    return fmt::formatter<std::string>::format(jx::to_string(x), ctx);
  }
};

template <> struct fmt::formatter<jx::DType> : fmt::formatter<std::string_view> {
  auto format(jx::DType t, format_context &ctx) const {
    return fmt::formatter<std::string_view>::format(jx::dtype_name(t), ctx);
  }
};
