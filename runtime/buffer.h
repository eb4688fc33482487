// A contiguous, 64-byte aligned block of memory: the storage behind every realized array, taken
// from and returned to the caching allocator.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/allocator.h"
#include "runtime/window.h"

namespace jx::runtime {

class Buffer {
public:
  static constexpr size_t alignment = 64;

  explicit Buffer(size_t bytes) : bytes_(bytes) { data_ = allocate(bytes, &capacity_); }
  struct Empty {};
  explicit Buffer(Empty) : data_(nullptr), bytes_(0), owned_(false) {}
  // Memory the caller owns and keeps alive (ahead-of-time calls' arguments and results, the
  // constants in their objects): never freed here.
  static std::shared_ptr<Buffer> borrow(void *data, size_t bytes) {
    return std::shared_ptr<Buffer>(new Buffer(data, bytes));
  }
  // Takes from's memory (jit's donate_argnums): from is left deleted, without storage.
  static std::shared_ptr<Buffer> take(Buffer &from) {
    // Empty, not Buffer(0): a loop body donating its carries takes one every iteration, and the
    // allocator's lock and map cost more than the step.
    auto to = std::make_shared<Buffer>(Empty{});
    std::swap(to->data_, from.data_);
    std::swap(to->capacity_, from.capacity_);
    std::swap(to->owned_, from.owned_);
    to->bytes_ = from.bytes_;
    to->window_ = from.window_;
    to->origin_bytes_ = from.origin_bytes_;
    to->partial_ = from.partial_;
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
  // Holds only this process's shards of a global array (a multi-process program's result): what
  // else its window holds (margins) is not the array's.
  bool partial() const { return partial_; }
  void mark_partial() { partial_ = true; }
  // Holds only `window` of its global array (a multi-process program's buffers): its bytes are
  // that box's, and base() is where global element 0 would be. Empty: the whole array.
  const Window *window() const {
    return window_.lo.empty() && window_.hi.empty() ? nullptr : &window_;
  }
  // The window it holds of an array of `shape`: its own, or the whole.
  Window holds(const Shape &shape) const { return window() ? window_ : Window::whole(shape); }
  void set_window(Window w, size_t itemsize) {
    origin_bytes_ = w.origin() * int64_t(itemsize);
    window_ = std::move(w);
  }
  // The address kernels index with global element offsets (the window's strides).
  void *base() { return static_cast<char *>(data_) - origin_bytes_; }
  // Takes other's memory and window, leaving other with this one's (freed with it).
  void swap_storage(Buffer &other) {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(capacity_, other.capacity_);
    std::swap(owned_, other.owned_);
    std::swap(window_, other.window_);
    std::swap(origin_bytes_, other.origin_bytes_);
  }

  template <class T> T *as() { return static_cast<T *>(data_); }
  template <class T> const T *as() const { return static_cast<const T *>(data_); }

private:
  Buffer(void *data, size_t bytes) : data_(data), bytes_(bytes), owned_(false) {}

  void *data_;
  size_t bytes_, capacity_ = 0;
  bool deleted_ = false, owned_ = true, partial_ = false;
  Window window_{};
  int64_t origin_bytes_ = 0;
};

using BufferPtr = std::shared_ptr<Buffer>;

inline BufferPtr make_buffer(size_t bytes) { return std::make_shared<Buffer>(bytes); }

} // namespace jx::runtime
