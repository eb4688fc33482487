// NumPy-style text of an array: str(x), with summarization of large arrays as NumPy does.
#include <jx/array.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <ostream>

#include "api/internal.h"

namespace jx {

namespace {

constexpr int64_t threshold = 1000, edge_items = 3;

// One float in NumPy's default style: at most 8 fraction digits, trailing zeros trimmed, the
// point kept ("1.", "0.125", "1.5e-05").
std::string float_text(double v, bool scientific) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = scientific ? fmt::format("{:.8e}", v) : fmt::format("{:.8f}", v);
  size_t end = scientific ? s.find('e') : s.size();
  size_t cut = end;
  while (cut > 0 && s[cut - 1] == '0') --cut;
  s.erase(cut, end - cut);
  if (scientific) {
    // NumPy writes at least two exponent digits: e-05, e+10.
    size_t e = s.find('e');
    std::string exponent = s.substr(e + 2);
    if (exponent.size() < 2) exponent = "0" + exponent;
    s.resize(e + 2);
    s += exponent;
  }
  return s;
}

struct Formatter {
  DType dtype;
  std::vector<std::string> texts{};
  size_t int_width = 0, frac_width = 0; // floats: aligned on the point
  size_t width = 0;                     // every element right-aligned to this

  std::string element(int64_t i) const {
    const std::string &t = texts[i];
    size_t point = t.find('.');
    if (!is_floating(dtype) || point == std::string::npos) return t; // nan, inf: right-aligned
    std::string out(int_width > point ? int_width - point : 0, ' ');
    out += t;
    size_t frac = t.size() - point;
    if (frac_width > frac) out.append(frac_width - frac, ' ');
    return out;
  }
};

void render(const Formatter &f, const Shape &shape, size_t axis, int64_t offset, int64_t stride_prod,
            bool summarize, std::string &out, int indent) {
  if (axis == shape.size()) {
    std::string e = f.element(offset);
    if (f.width > e.size()) out.append(f.width - e.size(), ' ');
    out.append(e);
    return;
  }
  const int64_t n = shape[axis];
  const int64_t inner = stride_prod / std::max<int64_t>(n, 1);
  out += '[';
  const bool last_axis = axis + 1 == shape.size();
  auto separator = [&] {
    if (last_axis) {
      out.push_back(' ');
      return;
    }
    out.append(shape.size() - axis - 1, '\n');
    out.append(size_t(indent + 1), ' ');
  };
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * edge_items && i == edge_items) {
      out.append("...");
      separator();
      i = n - edge_items;
    }
    render(f, shape, axis + 1, offset + i * inner, inner, summarize, out, indent + 1);
    if (i + 1 < n) separator();
  }
  out += ']';
}

} // namespace

std::string to_string(const Array &x) {
  Formatter f{x.dtype()};
  switch (x.dtype()) {
  case DType::bool_:
    for (bool b : x.to_vector<bool>()) f.texts.push_back(b ? "True" : "False");
    break;
  case DType::int32:
  case DType::int64:
    for (int64_t v : x.to_vector<int64_t>()) f.texts.push_back(fmt::format("{}", v));
    break;
  case DType::float32:
  case DType::float64: {
    std::vector<double> values = x.to_vector<double>();
    double lo = INFINITY, hi = 0;
    for (double v : values)
      if (std::isfinite(v) && v != 0) {
        lo = std::min(lo, std::fabs(v));
        hi = std::max(hi, std::fabs(v));
      }
    // NumPy switches to scientific notation for tiny values or a wide range.
    const bool scientific = lo != INFINITY && (hi >= 1e16 || lo < 1e-4 || hi / lo > 1e3);
    for (double v : values) {
      if (x.dtype() == DType::float32) v = std::stod(fmt::format("{}", float(v)));
      f.texts.push_back(float_text(v, scientific));
    }
    for (const std::string &t : f.texts) {
      size_t point = t.find('.');
      if (point == std::string::npos) continue;
      f.int_width = std::max(f.int_width, point);
      f.frac_width = std::max(f.frac_width, t.size() - point);
    }
    break;
  }
  }
  if (x.ndim() == 0) return f.texts[0];
  for (int64_t i = 0; i < x.size(); ++i) f.width = std::max(f.width, f.element(i).size());
  std::string out;
  render(f, x.shape(), 0, 0, x.size(), x.size() > threshold, out, 0);
  return out;
}

std::ostream &operator<<(std::ostream &os, const Array &x) { return os << to_string(x); }

} // namespace jx
