#include "runtime/window.h"

#include <algorithm>
#include <cstring>

namespace jx::runtime {

Shape Window::extent() const {
  Shape e;
  for (size_t a = 0; a < lo.size(); ++a)
    e.push_back(std::max<int64_t>(0, hi[a] - lo[a]));
  return e;
}

int64_t Window::elements() const { return shape_size(extent()); }

int64_t Window::origin() const {
  const Shape e = extent();
  int64_t offset = 0, stride = 1;
  for (size_t a = lo.size(); a-- > 0;) {
    offset += lo[a] * stride;
    stride *= e[a];
  }
  return offset;
}

bool Window::serves(const Window &w) const {
  if (w.empty()) return true;
  if (lo.size() != w.lo.size()) return false;
  for (size_t a = 0; a < lo.size(); ++a) {
    if (lo[a] > w.lo[a] || hi[a] < w.hi[a]) return false;
    if (a > 0 && (lo[a] != w.lo[a] || hi[a] != w.hi[a])) return false;
  }
  return true;
}

Window Window::hull(const Window &other) const {
  if (other.empty()) return *this;
  if (empty()) return other;
  Window h = *this;
  for (size_t a = 0; a < lo.size(); ++a) {
    h.lo[a] = std::min(lo[a], other.lo[a]);
    h.hi[a] = std::max(hi[a], other.hi[a]);
  }
  return h;
}

void copy_box(const char *src, const Shape &src_shape, const std::vector<int64_t> &src_lo,
              char *dst, const Shape &dst_shape, const std::vector<int64_t> &dst_lo,
              const std::vector<int64_t> &count, size_t itemsize) {
  const size_t rank = count.size();
  if (rank == 0) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  for (int64_t c : count)
    if (c <= 0) return;
  std::vector<int64_t> src_stride(rank, 1), dst_stride(rank, 1);
  for (size_t a = rank - 1; a-- > 0;) {
    src_stride[a] = src_stride[a + 1] * src_shape[a + 1];
    dst_stride[a] = dst_stride[a + 1] * dst_shape[a + 1];
  }
  std::vector<int64_t> at(rank, 0);
  while (true) {
    int64_t s = 0, d = 0;
    for (size_t a = 0; a < rank; ++a) {
      s += (src_lo[a] + at[a]) * src_stride[a];
      d += (dst_lo[a] + at[a]) * dst_stride[a];
    }
    std::memcpy(dst + size_t(d) * itemsize, src + size_t(s) * itemsize,
                size_t(count[rank - 1]) * itemsize);
    size_t a = rank - 1;
    while (a-- > 0) {
      if (++at[a] < count[a]) break;
      at[a] = 0;
    }
    if (a == size_t(-1)) return;
  }
}

void copy_window(const char *src, const Window &from, char *dst, const Window &to,
                 size_t itemsize) {
  const size_t rank = from.lo.size();
  std::vector<int64_t> src_lo(rank), dst_lo(rank), count(rank);
  for (size_t a = 0; a < rank; ++a) {
    const int64_t lo = std::max(from.lo[a], to.lo[a]), hi = std::min(from.hi[a], to.hi[a]);
    if (hi <= lo) return;
    src_lo[a] = lo - from.lo[a];
    dst_lo[a] = lo - to.lo[a];
    count[a] = hi - lo;
  }
  copy_box(src, from.extent(), src_lo, dst, to.extent(), dst_lo, count, itemsize);
}

} // namespace jx::runtime
