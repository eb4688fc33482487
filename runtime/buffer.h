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
  // Memory the caller owns and keeps alive (ahead-of-time calls' arguments and results, the
  // constants in their objects): never freed here.
  static std::shared_ptr<Buffer> borrow(void *data, size_t bytes) {
    return std::shared_ptr<Buffer>(new Buffer(data, bytes));
  }
  // Takes from's memory (jit's donate_argnums): from is left deleted, without storage.
  static std::shared_ptr<Buffer> take(Buffer &from) {
    auto to = std::make_shared<Buffer>(0);
    std::swap(to->data_, from.data_);
    std::swap(to->capacity_, from.capacity_);
    std::swap(to->owned_, from.owned_);
    to->bytes_ = from.bytes_;
    from.deleted_ = true;
    return to;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() {
    if (owned_) deallocate(data_, capacity_);
  }

  void *data() { return data_; }
  const void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool deleted() const { return deleted_; }
  // Holds only this process's shards of a global array (a multi-process program's result): the
  // rest of its bytes are not the array's.
  bool partial() const { return partial_; }
  void mark_partial() { partial_ = true; }

  template <class T> T *as() { return static_cast<T *>(data_); }
  template <class T> const T *as() const { return static_cast<const T *>(data_); }

private:
  Buffer(void *data, size_t bytes) : data_(data), bytes_(bytes), owned_(false) {}

  void *data_;
  size_t bytes_, capacity_ = 0;
  bool deleted_ = false, owned_ = true, partial_ = false;
};

using BufferPtr = std::shared_ptr<Buffer>;

inline BufferPtr make_buffer(size_t bytes) { return std::make_shared<Buffer>(bytes); }

} // namespace jx::runtime
