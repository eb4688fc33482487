// A contiguous, 64-byte aligned block of memory: the storage behind every realized array.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace jx::runtime {

class Buffer {
public:
  static constexpr size_t alignment = 64;

  explicit Buffer(size_t bytes) : bytes_(bytes) {
    size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    data_ = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
    if (!data_) throw std::bad_alloc();
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { std::free(data_); }

  void *data() { return data_; }
  const void *data() const { return data_; }
  size_t bytes() const { return bytes_; }

  template <class T> T *as() { return static_cast<T *>(data_); }
  template <class T> const T *as() const { return static_cast<const T *>(data_); }

private:
  void *data_;
  size_t bytes_;
};

using BufferPtr = std::shared_ptr<Buffer>;

inline BufferPtr make_buffer(size_t bytes) { return std::make_shared<Buffer>(bytes); }

} // namespace jx::runtime
