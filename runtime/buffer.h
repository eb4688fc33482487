// A contiguous, 64-byte aligned block of memory: the storage behind every realized array, taken
// from and returned to the caching allocator.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/allocator.h"

namespace jx::runtime {

class Buffer {
public:
  static constexpr size_t alignment = 64;

  explicit Buffer(size_t bytes) : bytes_(bytes) { data_ = allocate(bytes, &capacity_); }
  // Takes from's memory (jit's donate_argnums): from is left deleted, without storage.
  static std::shared_ptr<Buffer> take(Buffer &from) {
    auto to = std::make_shared<Buffer>(0);
    std::swap(to->data_, from.data_);
    std::swap(to->capacity_, from.capacity_);
    to->bytes_ = from.bytes_;
    from.deleted_ = true;
    return to;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { deallocate(data_, capacity_); }

  void *data() { return data_; }
  const void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool deleted() const { return deleted_; }

  template <class T> T *as() { return static_cast<T *>(data_); }
  template <class T> const T *as() const { return static_cast<const T *>(data_); }

private:
  void *data_;
  size_t bytes_, capacity_ = 0;
  bool deleted_ = false;
};

using BufferPtr = std::shared_ptr<Buffer>;

inline BufferPtr make_buffer(size_t bytes) { return std::make_shared<Buffer>(bytes); }

} // namespace jx::runtime
