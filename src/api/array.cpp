// jx::Array: construction from scalars, accessors, reading data, astype/reshape.
#include <jx/array.h>
#include <jx/numpy.h>

#include <cstring>

#include "api/internal.h"
#include "interp/dispatch.h"
#include "interp/scalar_ops.h"

namespace jx {

using api::node_of;

Array::Array(std::shared_ptr<const ir::Node> node) : node_(std::move(node)) {}

void Array::no_value() {
  throw ValueError("this Array has no value: it was moved from (or default-constructed, or made "
                   "from a null node); assign it a new value before using it");
}

Array Array::from_scalar_double(double v) { return Array(ir::literal(v, default_float, true)); }

Array Array::from_scalar_complex(std::complex<double> v) {
  return Array(ir::complex(ir::literal(v.real(), default_float, true),
                           ir::literal(v.imag(), default_float, true)));
}

Array Array::from_scalar_int(int64_t v, bool is_bool) {
  return Array(ir::literal_int(v, is_bool ? DType::bool_ : default_int, true));
}

const Shape &Array::shape() const { return node()->shape; }
int64_t Array::ndim() const { return node()->ndim(); }
int64_t Array::size() const { return node()->size(); }
DType Array::dtype() const { return node()->dtype; }
bool Array::weak_type() const { return node()->weak; }

Array Array::astype(DType dtype) const { return Array(ir::convert(node(), dtype, false)); }

Array Array::T() const { return numpy::transpose(*this); }

Array Array::mT() const { return numpy::matrix_transpose(*this); }

Array Array::reshape(const Shape &shape) const { return numpy::reshape(*this, shape); }

const Array &Array::block_until_ready() const {
  // A multi-process array holding this process's shards is ready as it is.
  if (!node()->local_value()) api::realize(node());
  return *this;
}

const void *Array::data() const { return api::realize(node())->data(); }

void Array::copy_to(DType to, void *out) const {
  const int64_t n = size();
  if (is_complex(to) || is_complex(dtype())) { // converted by the graph's rules (ir::convert)
    runtime::BufferPtr converted = api::realize(ir::convert(node(), to, false));
    if (n) std::memcpy(out, converted->data(), size_t(n) * itemsize(to));
    return;
  }
  runtime::BufferPtr buffer = api::realize(node());
  dispatch_dtype(dtype(), [&](auto from_tag) {
    using F = decltype(from_tag);
    const F *in = buffer->as<F>();
    dispatch_dtype(to, [&](auto to_tag) {
      using T = decltype(to_tag);
      T *o = static_cast<T *>(out);
      for (int64_t i = 0; i < n; ++i)
        o[i] = interp::convert_scalar<T, F>(in[i]);
    });
  });
}

Array operator+(const Array &a, const Array &b) { return numpy::add(a, b); }
Array operator-(const Array &a, const Array &b) { return numpy::subtract(a, b); }
Array operator*(const Array &a, const Array &b) { return numpy::multiply(a, b); }
Array operator/(const Array &a, const Array &b) { return numpy::divide(a, b); }
Array operator%(const Array &a, const Array &b) { return numpy::remainder(a, b); }
Array operator-(const Array &a) { return numpy::negative(a); }
Array operator==(const Array &a, const Array &b) { return numpy::equal(a, b); }
Array operator!=(const Array &a, const Array &b) { return numpy::not_equal(a, b); }
Array operator<(const Array &a, const Array &b) { return numpy::less(a, b); }
Array operator<=(const Array &a, const Array &b) { return numpy::less_equal(a, b); }
Array operator>(const Array &a, const Array &b) { return numpy::greater(a, b); }
Array operator>=(const Array &a, const Array &b) { return numpy::greater_equal(a, b); }
Array operator&(const Array &a, const Array &b) { return numpy::bitwise_and(a, b); }
Array operator|(const Array &a, const Array &b) { return numpy::bitwise_or(a, b); }
Array operator^(const Array &a, const Array &b) { return numpy::bitwise_xor(a, b); }
Array operator~(const Array &a) { return numpy::invert(a); }
Array operator<<(const Array &a, const Array &b) { return numpy::left_shift(a, b); }
Array operator>>(const Array &a, const Array &b) { return numpy::right_shift(a, b); }

} // namespace jx
