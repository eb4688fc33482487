// NumPy .npy reader and writer: header dict parsing, byte-order and Fortran-order handling.
#include "io/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

#include "jx/error.h"

namespace jx::io {
namespace {

static_assert(std::endian::native == std::endian::little, "jx stores arrays little-endian");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlign = 64;   // NumPy pads magic + version + length + header to this.
constexpr int kMaxDepth = 16;   // Bounds parser recursion on hostile headers.
constexpr size_t kSnippet = 80; // Longest piece of header text quoted in an error message.

std::string quoted(const std::string &path) { return "'" + path + "'"; }

// Trailing padding is dropped so that messages stay readable.
std::string snippet(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  if (text.size() <= kSnippet) return std::string(text);
  return std::string(text.substr(0, kSnippet)) + "...";
}

[[noreturn]] void os_error(int err, const std::string &path) {
  throw IOError(std::error_code(err, std::generic_category()).message() + ": " + quoted(path));
}

[[noreturn]] void truncated(const std::string &path, const char *what, uint64_t expected,
                            uint64_t found) {
  throw IOError("EOF while reading " + std::string(what) + " of " + quoted(path) + ": expected " +
                std::to_string(expected) + " bytes, found " + std::to_string(found));
}

[[noreturn]] void bad_header(const std::string &path, const std::string &why) {
  throw IOError("Cannot parse header of " + quoted(path) + ": " + why);
}

// Writes all of `bytes` to fd; 0, or the errno of the failed write.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    bytes.remove_prefix(size_t(n));
  }
  return 0;
}

// Writes the parts to an open fd and closes it; 0, or the errno of the failure.
int write_and_close(int fd, std::span<const std::string_view> parts) {
  int err = 0;
  for (std::string_view part : parts)
    if (!err) err = write_all(fd, part);
  if (::close(fd) != 0 && !err) err = errno;
  return err;
}

// The path a symbolic link finally names (possibly not existing yet): a file replaced through a
// link is replaced at its target, and the link stays.
std::string follow_links(std::string p) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
    if (n <= 0 || size_t(n) == sizeof buf) return p;
    std::string target(buf, size_t(n));
    const size_t slash = p.rfind('/');
    if (target[0] != '/' && slash != std::string::npos) target = p.substr(0, slash + 1) + target;
    p = std::move(target);
  }
  return p; // A loop of links: the open reports ELOOP.
}

// Writes parts as the file at `path`, as np.save does, but never destroys what was there: a
// regular file (or a new one) is written to a temporary file beside it, renamed over it when
// complete, so a failed write leaves the old file whole; anything else (a device such as
// /dev/full, a FIFO) is written in place and left alone on failure, for renaming would replace
// the device itself.
void write_replacing(const std::string &path, std::span<const std::string_view> parts) {
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) os_error(errno, path);
  auto write_in_place = [&] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) os_error(errno, path);
    if (const int err = write_and_close(fd, parts)) os_error(err, path);
  };
  if (exists && !S_ISREG(st.st_mode)) return write_in_place();

  const std::string target = follow_links(path);
  // A link that names no file in a directory (/proc/self/fd/N of a memfd or a deleted file):
  // renaming onto its text would create an unrelated file, so the open file is written in place.
  struct stat target_st;
  if (exists && (::stat(target.c_str(), &target_st) != 0 || target_st.st_dev != st.st_dev ||
                 target_st.st_ino != st.st_ino))
    return write_in_place();
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  static std::atomic<uint64_t> counter{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    // The name's start only: a name near NAME_MAX leaves no room for the suffix.
    temp = dir + "." + base.substr(0, 64) + "." + std::to_string(::getpid()) + "." +
           std::to_string(counter.fetch_add(1)) + ".tmp";
    // 0666: the umask applies, as to a file np.save creates.
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const int err = errno;
    // A writable file in a directory we may not create files in: only writing in place works.
    if (exists && (err == EACCES || err == EPERM || err == EROFS)) return write_in_place();
    os_error(err, path);
  }
  if (exists) {
    // The replacement keeps the old file's permissions and, where allowed, its owner.
    (void)::fchmod(fd, st.st_mode & 07777);
    // Changing the owner needs privileges; without them the file is the writer's, as a new one.
    const bool other_owner = st.st_uid != ::geteuid() || st.st_gid != ::getegid();
    if (other_owner && ::fchown(fd, st.st_uid, st.st_gid) != 0) errno = 0;
  }
  int err = write_and_close(fd, parts);
  if (!err && ::rename(temp.c_str(), target.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(temp.c_str()); // Ours alone: the file at `path` was never touched.
    os_error(err, path);
  }
}

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// A Python literal from the header: the subset np.save writes, plus enough to reject the rest.
struct Value {
  enum class Kind { str, boolean, none, integer, tuple, list } kind;
  std::string str;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<Value> items;
  std::string_view raw; // Source text, for error messages.
};

class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &path) : text_(text), path_(path) {}

  // Parses the whole header as a dict of string keys; duplicate keys are rejected.
  std::vector<std::pair<std::string, Value>> parse_dict() {
    std::vector<std::pair<std::string, Value>> entries;
    skip_ws();
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      Value key = parse_value(0);
      if (key.kind != Value::Kind::str) fail("dict keys must be strings");
      for (const auto &e : entries)
        if (e.first == key.str) fail("duplicate key '" + key.str + "'");
      skip_ws();
      expect(':');
      skip_ws();
      entries.emplace_back(key.str, parse_value(0));
      skip_ws();
      if (peek() != ',') break;
      ++pos_;
    }
    skip_ws();
    expect('}');
    skip_ws();
    if (pos_ != text_.size()) fail("trailing characters after the dict");
    return entries;
  }

private:
  [[noreturn]] void fail(const std::string &why) {
    bad_header(path_,
               why + " (at offset " + std::to_string(pos_) + " of \"" + snippet(text_) + "\")");
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_ws() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  void expect(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  Value parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    if (pos_ >= text_.size()) fail("unexpected end of header");
    size_t start = pos_;
    Value v;
    char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = Value::Kind::str;
      v.str = parse_string(c);
    } else if (c == '(' || c == '[') {
      v = parse_sequence(depth);
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      v.kind = Value::Kind::integer;
      v.integer = parse_int();
    } else {
      std::string_view word = parse_word();
      if (word == "True" || word == "False") {
        v.kind = Value::Kind::boolean;
        v.boolean = word == "True";
      } else if (word == "None") {
        v.kind = Value::Kind::none;
      } else {
        fail("unexpected value");
      }
    }
    v.raw = text_.substr(start, pos_ - start);
    return v;
  }

  // Backslash escapes keep the escaped character: descrs never need more.
  std::string parse_string(char quote) {
    std::string out;
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') ++pos_;
      if (pos_ < text_.size()) out += text_[pos_++];
    }
    expect(quote);
    return out;
  }

  // Python ints; a trailing 'L' comes from headers written by Python 2.
  int64_t parse_int() {
    bool negative = peek() == '-';
    if (peek() == '-' || peek() == '+') ++pos_;
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
    uint64_t magnitude = 0;
    const uint64_t limit = uint64_t(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
    while (peek() >= '0' && peek() <= '9') {
      uint64_t digit = uint64_t(text_[pos_++] - '0');
      if (magnitude > (limit - digit) / 10) fail("integer out of range");
      magnitude = magnitude * 10 + digit;
    }
    if (peek() == 'L' || peek() == 'l') ++pos_;
    // Two's complement wrap gives INT64_MIN for a magnitude of 2^63.
    return negative ? int64_t(0 - magnitude) : int64_t(magnitude);
  }

  std::string_view parse_word() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // "(3)" is a parenthesized int, not a tuple, exactly as in Python.
  Value parse_sequence(int depth) {
    char close = peek() == '(' ? ')' : ']';
    Value v;
    v.kind = close == ')' ? Value::Kind::tuple : Value::Kind::list;
    ++pos_;
    bool comma = false;
    while (true) {
      skip_ws();
      if (peek() == close) break;
      v.items.push_back(parse_value(depth + 1));
      skip_ws();
      if (peek() != ',') break;
      comma = true;
      ++pos_;
    }
    expect(close);
    if (v.kind == Value::Kind::tuple && v.items.size() == 1 && !comma) return std::move(v.items[0]);
    return v;
  }

  std::string_view text_;
  const std::string &path_;
  size_t pos_ = 0;
};

struct Header {
  std::string descr; // Empty when the descr is not a string (a structured dtype).
  std::string_view descr_raw;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Checks the dict the way numpy.lib.format does: exactly the three keys, a tuple of ints shape.
Header parse_header(std::string_view text, const std::string &path) {
  auto entries = HeaderParser(text, path).parse_dict();
  const Value *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (const auto &[key, value] : entries) {
    if (key == "descr")
      descr = &value;
    else if (key == "fortran_order")
      fortran = &value;
    else if (key == "shape")
      shape = &value;
    else
      bad_header(path, "unexpected key '" + key + "'");
  }
  for (auto [name, value] :
       {std::pair{"descr", descr}, {"fortran_order", fortran}, {"shape", shape}})
    if (!value)
      bad_header(path,
                 std::string("Header does not contain the correct keys: missing '") + name + "'");

  Header h;
  if (shape->kind != Value::Kind::tuple)
    bad_header(path, "shape is not valid: " + snippet(shape->raw));
  for (const Value &d : shape->items) {
    if (d.kind != Value::Kind::integer)
      bad_header(path, "shape is not valid: " + snippet(shape->raw));
    if (d.integer < 0)
      bad_header(path, "negative dimensions are not allowed: shape " + snippet(shape->raw));
    h.shape.push_back(d.integer);
  }
  if (fortran->kind != Value::Kind::boolean)
    bad_header(path, "fortran_order is not a valid bool: " + snippet(fortran->raw));
  h.fortran_order = fortran->boolean;
  if (descr->kind == Value::Kind::str) h.descr = descr->str;
  h.descr_raw = descr->raw;
  return h;
}

// Maps a descr to a jx dtype; sets `swap` for big-endian data. Returns false if unsupported.
bool parse_descr(const std::string &descr, DType &dtype, bool &swap) {
  if (descr.size() < 2) return false;
  const std::string_view type = std::string_view(descr).substr(1);
  constexpr std::pair<std::string_view, DType> types[] = {
      {"b1", DType::bool_},   {"i1", DType::int8},      {"i2", DType::int16},
      {"i4", DType::int32},   {"i8", DType::int64},     {"u1", DType::uint8},
      {"u2", DType::uint16},  {"u4", DType::uint32},    {"u8", DType::uint64},
      {"f2", DType::float16}, {"V2", DType::bfloat16},  {"f4", DType::float32},
      {"f8", DType::float64}, {"c8", DType::complex64}, {"c16", DType::complex128}};
  auto it = std::find_if(std::begin(types), std::end(types),
                         [&](const auto &t) { return t.first == type; });
  if (it == std::end(types)) return false;
  dtype = it->second;
  // '|' means "byte order not applicable"; accept it as native like NumPy does.
  switch (descr[0]) {
  case '<':
  case '=':
  case '|': swap = false; return true;
  case '>': swap = itemsize(dtype) > 1; return true;
  default: return false;
  }
}

// Python's repr of a shape tuple: "()", "(3,)", "(3, 4)".
std::string shape_repr(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

const char *descr_of(DType dtype) {
  switch (dtype) {
  case DType::bool_: return "|b1";
  case DType::int8: return "|i1";
  case DType::int16: return "<i2";
  case DType::int32: return "<i4";
  case DType::int64: return "<i8";
  case DType::uint8: return "|u1";
  case DType::uint16: return "<u2";
  case DType::uint32: return "<u4";
  case DType::uint64: return "<u8";
  case DType::float16: return "<f2";
  // NumPy has no bfloat16: ml_dtypes' arrays save as two-byte voids, which jx reads as bfloat16.
  case DType::bfloat16: return "<V2";
  case DType::float32: return "<f4";
  case DType::float64: return "<f8";
  case DType::complex64: return "<c8";
  case DType::complex128: return "<c16";
  }
  throw DTypeError("write_npy: invalid dtype");
}

// Byte size of a `shape` array of `width`-byte elements; false if it does not fit int64.
bool byte_size(const std::vector<int64_t> &shape, size_t width, uint64_t &bytes) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    bytes = 0;
    return true;
  }
  uint64_t n = width;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, uint64_t(d), &n)) return false;
  bytes = n;
  return n <= uint64_t(std::numeric_limits<int64_t>::max());
}

// Reorders a column-major array of `width`-byte elements into row-major order.
void fortran_to_c(const std::byte *src, std::byte *dst, const std::vector<int64_t> &shape,
                  size_t width) {
  size_t ndim = shape.size();
  std::vector<int64_t> stride(ndim), index(ndim, 0); // Fortran strides, in elements.
  int64_t count = 1;
  for (size_t k = 0; k < ndim; ++k) {
    stride[k] = count;
    count *= shape[k];
  }
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + size_t(i) * width, src + size_t(offset) * width, width);
    // Advance the C-order multi-index (last axis fastest) and its Fortran offset.
    for (size_t k = ndim; k-- > 0;) {
      if (++index[k] < shape[k]) {
        offset += stride[k];
        break;
      }
      index[k] = 0;
      offset -= stride[k] * (shape[k] - 1);
    }
  }
}

} // namespace

NpyArray read_npy(const std::string &path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever (and a
  // device could block too); nothing but a regular file is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) os_error(errno, path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    os_error(err, path);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    os_error(EISDIR, path);
  }
  // The size must be known up front so that a hostile header cannot make us allocate more
  // than the file holds.
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw IOError("Not a regular file: " + quoted(path));
  }
  File f(::fdopen(fd, "rb"));
  if (!f) {
    const int err = errno;
    ::close(fd);
    os_error(err, path);
  }
  const uint64_t file_size = uint64_t(st.st_size);

  unsigned char pre[12]; // magic, major, minor, 2- or 4-byte header length
  size_t got = std::fread(pre, 1, 8, f.get());
  if (got == 0 || std::memcmp(pre, kMagic.data(), std::min(got, kMagic.size())) != 0)
    throw IOError(quoted(path) +
                  " is not a .npy file: the magic string is not correct; expected b'\\x93NUMPY'");
  if (got < 8) truncated(path, "header", 8, got);
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    throw IOError(quoted(path) + ": unsupported .npy format version " + std::to_string(major) +
                  "." + std::to_string(minor) + " (jx reads 1.0, 2.0 and 3.0)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  got = std::fread(pre + 8, 1, len_bytes, f.get());
  if (got < len_bytes) truncated(path, "header", 8 + len_bytes, 8 + got);
  uint64_t header_len = 0;
  for (size_t i = len_bytes; i-- > 0;)
    header_len = header_len << 8 | pre[8 + i];

  const uint64_t data_offset = 8 + len_bytes + header_len;
  if (file_size < data_offset) truncated(path, "header", data_offset, file_size);
  std::string text(header_len, '\0');
  got = std::fread(text.data(), 1, header_len, f.get());
  if (got < header_len) truncated(path, "header", data_offset, 8 + len_bytes + got);

  Header h = parse_header(text, path);
  NpyArray out;
  bool swap = false;
  if (!parse_descr(h.descr, out.dtype, swap))
    throw DTypeError(
        quoted(path) + ": unsupported dtype " + snippet(h.descr_raw) +
        " (jx reads bool, int8 to int64, uint8 to uint64, float16, float32, float64, and "
        "two-byte voids as bfloat16)");
  out.shape = std::move(h.shape);
  const size_t width = itemsize(out.dtype);
  uint64_t nbytes = 0;
  if (!byte_size(out.shape, width, nbytes))
    bad_header(path, "array size overflows: shape " + shape_repr(out.shape));

  if (file_size - data_offset < nbytes)
    truncated(path, "array data", nbytes, file_size - data_offset);
  auto raw = runtime::make_buffer(nbytes);
  auto *bytes = raw->as<std::byte>();
  got = std::fread(bytes, 1, nbytes, f.get());
  if (got < nbytes) truncated(path, "array data", nbytes, got);

  // A complex number's parts are swapped each in place.
  const size_t swapped = is_complex(out.dtype) ? width / 2 : width;
  if (swap)
    for (uint64_t i = 0; i < nbytes; i += swapped)
      std::reverse(bytes + i, bytes + i + swapped);
  // Any nonzero byte is true in NumPy; C++ bool must hold exactly 0 or 1.
  if (out.dtype == DType::bool_)
    for (uint64_t i = 0; i < nbytes; ++i)
      bytes[i] = std::byte(bytes[i] != std::byte{0});
  // Fortran and C order coincide for fewer than two dims and for empty arrays.
  if (h.fortran_order && out.shape.size() > 1 && nbytes > 0) {
    out.data = runtime::make_buffer(nbytes);
    fortran_to_c(bytes, out.data->as<std::byte>(), out.shape, width);
  } else {
    out.data = std::move(raw);
  }
  return out;
}

void write_npy(const std::string &path, DType dtype, const std::vector<int64_t> &shape,
               const void *data) {
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
    throw ValueError("write_npy: negative dimensions are not allowed (writing " + quoted(path) +
                     ")");
  uint64_t nbytes = 0;
  if (!byte_size(shape, itemsize(dtype), nbytes))
    throw ValueError("write_npy: array size overflows (writing " + quoted(path) + ")");
  if (nbytes > 0 && !data)
    throw ValueError("write_npy: data is null (writing " + quoted(path) + ")");

  std::string header = std::string("{'descr': '") + descr_of(dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
  // Version 1.0 stores the header length in 16 bits; 2.0 in 32.
  int major = 1;
  size_t preamble = 10;
  auto padded = [&] {
    return header.size() + 1 + (kAlign - (preamble + header.size() + 1) % kAlign) % kAlign;
  };
  if (padded() > std::numeric_limits<uint16_t>::max()) {
    major = 2;
    preamble = 12;
  }
  const size_t header_len = padded();
  if (header_len > std::numeric_limits<uint32_t>::max())
    throw ValueError("write_npy: header too large (writing " + quoted(path) + ")");
  header.resize(header_len - 1, ' ');
  header += '\n';

  std::string pre(kMagic);
  pre += char(major);
  pre += '\0';
  for (size_t i = 0; i < preamble - 8; ++i)
    pre += char(header_len >> (8 * i) & 0xff);

  const std::string_view parts[] = {pre, header, {static_cast<const char *>(data), size_t(nbytes)}};
  write_replacing(path, parts);
}

} // namespace jx::io
