// libFuzzer target for the .npy reader: the input is the file. A file that loads must survive a
// round trip through write_npy unchanged; any outcome but that or a jx::Error is a finding.
#include <jx/error.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/npy.h"

namespace {

// An in-memory file, reopened by path through /proc (read_npy takes a path).
struct MemFile {
  int fd;
  std::string path;
  explicit MemFile(const char *name)
      : fd(memfd_create(name, 0)), path("/proc/self/fd/" + std::to_string(fd)) {
    if (fd < 0) std::abort();
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const MemFile in("npy-in"), out("npy-out");
  if (ftruncate(in.fd, 0) != 0 || pwrite(in.fd, data, size, 0) != ssize_t(size)) std::abort();
  jx::io::NpyArray a;
  try {
    a = jx::io::read_npy(in.path);
  } catch (const jx::Error &) {
    return 0;
  }
  size_t bytes = jx::itemsize(a.dtype);
  for (int64_t d : a.shape)
    bytes *= size_t(d);
  if (ftruncate(out.fd, 0) != 0) std::abort();
  jx::io::write_npy(out.path, a.dtype, a.shape, a.data->as<std::byte>());
  const jx::io::NpyArray b = jx::io::read_npy(out.path);
  if (b.dtype != a.dtype || b.shape != a.shape ||
      std::memcmp(a.data->as<std::byte>(), b.data->as<std::byte>(), bytes) != 0)
    std::abort();
  return 0;
}
