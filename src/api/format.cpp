// NumPy's str(x), ported from numpy/_core/arrayprint.py: element formats (FloatingFormat with
// floatmode 'maxprec', precision 8), summarization past 1000 elements, wrapping at 75 columns.
#include <jx/array.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fmt/format.h>
#include <ostream>

#include "api/internal.h"
#include "base/storage_float.h"

namespace jx {

namespace {

constexpr int64_t threshold = 1000, edge_items = 3, line_width = 75, precision = 8;

// Shortest digits after the point (at most `precision`) that read back as x, as dragon4 with
// unique=True does; `scientific` picks the mantissa form.
// x as an element of dtype holds it: the digits printed are the fewest that give it back.
double held_as(DType dtype, double x) {
  switch (dtype) {
  case DType::float16: return Float16(x);
  case DType::bfloat16: return BFloat16(x);
  case DType::float32: return float(x);
  default: return x;
  }
}

std::string shortest(double x, DType dtype, bool scientific) {
  for (int p = 0; p < precision; ++p) {
    std::string s = scientific ? fmt::format("{:.{}e}", x, p) : fmt::format("{:.{}f}", x, p);
    if (held_as(dtype, std::strtod(s.c_str(), nullptr)) == held_as(dtype, x)) return s;
  }
  // Rounded to `precision` digits, trailing zeros trimmed (dragon4's trim='.').
  std::string s =
      scientific ? fmt::format("{:.{}e}", x, precision) : fmt::format("{:.{}f}", x, precision);
  size_t end = scientific ? s.find('e') : s.size(), cut = end;
  while (s[cut - 1] == '0')
    --cut;
  s.erase(cut, end - cut);
  return s;
}

struct ElementFormat {
  DType dtype;
  const std::vector<double> *floats = nullptr; // floats and bools
  const std::vector<int64_t> *ints = nullptr;  // integers, exact
  // floats
  bool exp_format = false;
  int digits = 0;   // exp format: mantissa digits after the point
  int exp_size = 0; // exp format: exponent digits
  size_t pad_left = 0, pad_right = 0;
  // ints, bools
  size_t width = 0;
  // A complex number's imaginary parts: '+' before non-negative values (NumPy's sign='+').
  bool plus = false;

  std::string signed_text(std::string s) const { return plus && s[0] != '-' ? "+" + s : s; }

  // An integer element's digits (uint64's values past INT64_MAX are held as their bits).
  std::string int_text(int64_t i) const {
    const int64_t v = (*ints)[size_t(i)];
    return dtype == DType::uint64 ? fmt::format("{}", uint64_t(v)) : fmt::format("{}", v);
  }

  std::string operator()(int64_t i) const {
    if (!is_floating(dtype) && dtype != DType::bool_) {
      std::string s = int_text(i);
      return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
    }
    const double v = (*floats)[i];
    if (dtype == DType::bool_) return v != 0 ? " True" : "False";
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
      s = signed_text(s);
      size_t total = pad_left + pad_right + 1;
      return std::string(total > s.size() ? total - s.size() : 0, ' ') + s;
    }
    std::string s;
    if (exp_format) {
      s = fmt::format("{:.{}e}", v, digits);
      size_t e = s.find('e');
      std::string mantissa = s.substr(0, e), exponent = s.substr(e + 2);
      if (mantissa.find('.') == std::string::npos) mantissa += '.';
      while (int(exponent.size()) < exp_size)
        exponent = "0" + exponent;
      s = mantissa + s.substr(e, 2) + exponent;
    } else {
      s = shortest(v, dtype, false);
      if (s.find('.') == std::string::npos) s += '.';
    }
    s = signed_text(s);
    size_t point = s.find('.');
    size_t frac = s.size() - point - 1;
    std::string out(pad_left > point ? pad_left - point : 0, ' ');
    out += s;
    if (!exp_format && pad_right > frac) out.append(pad_right - frac, ' ');
    return out;
  }
};

ElementFormat make_format(ElementFormat f, const std::vector<int64_t> &shown_indices) {
  if (f.dtype == DType::bool_) return f;
  if (!is_floating(f.dtype)) {
    for (int64_t i : shown_indices)
      f.width = std::max(f.width, f.int_text(i).size());
    return f;
  }
  std::vector<double> shown;
  for (int64_t i : shown_indices)
    shown.push_back((*f.floats)[i]);
  const DType dtype = f.dtype;
  std::vector<double> finite;
  bool any_inf_negative = false, any_nonfinite = false;
  for (double v : shown) {
    if (std::isfinite(v))
      finite.push_back(v);
    else {
      any_nonfinite = true;
      any_inf_negative = any_inf_negative || (std::isinf(v) && v < 0);
    }
  }
  double max_val = 0, min_val = INFINITY;
  for (double v : finite)
    if (v != 0) {
      max_val = std::max(max_val, std::fabs(v));
      min_val = std::min(min_val, std::fabs(v));
    }
  if (min_val != INFINITY) {
    // 10 ** min(8, finfo.precision): float16's precision is 3, bfloat16's 2, float32's 6.
    const double exp_cutoff_max = dtype == DType::float16    ? 1e3
                                  : dtype == DType::bfloat16 ? 1e2
                                  : dtype == DType::float32  ? 1e6
                                                             : 1e8;
    f.exp_format = max_val >= exp_cutoff_max || min_val < 0.0001 || max_val / min_val > 1000.;
  }
  if (finite.empty()) {
    f.pad_left = f.pad_right = 0;
  } else if (f.exp_format) {
    for (double v : finite) {
      std::string s = f.signed_text(shortest(v, dtype, true));
      size_t e = s.find('e'), point = s.find('.');
      size_t int_len = point == std::string::npos ? e : point;
      int frac_len = point == std::string::npos ? 0 : int(e - point - 1);
      f.digits = std::max(f.digits, frac_len);
      f.exp_size = std::max(f.exp_size, int(s.size() - e - 2));
      f.pad_left = std::max(f.pad_left, int_len);
    }
    f.pad_right = size_t(f.exp_size + 2 + f.digits);
  } else {
    for (double v : finite) {
      std::string s = f.signed_text(shortest(v, dtype, false));
      size_t point = s.find('.');
      f.pad_left = std::max(f.pad_left, point == std::string::npos ? s.size() : point);
      f.pad_right = std::max(f.pad_right, point == std::string::npos ? 0 : s.size() - point - 1);
    }
  }
  if (any_nonfinite) {
    const int64_t offset = int64_t(f.pad_right) + 1, signed_inf = any_inf_negative || f.plus;
    f.pad_left =
        size_t(std::max<int64_t>({int64_t(f.pad_left), 3 - offset, 3 + signed_inf - offset}));
  }
  return f;
}

// _formatArray: nested brackets, separators, wrapping and "..." summaries. Format maps an element's
// row-major offset to its text.
template <class Format> struct ArrayPrinter {
  const Shape &shape;
  const Format &format;
  bool summarize;

  static void extend_line(std::string &s, std::string &line, const std::string &word, int64_t width,
                          const std::string &prefix) {
    bool wrap = int64_t(line.size() + word.size()) > width && line.size() > prefix.size();
    if (wrap) {
      size_t end = line.find_last_not_of(' ');
      s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
      line = prefix;
    }
    line += word;
  }

  std::string recurse(size_t axis, int64_t offset, int64_t stride, const std::string &indent,
                      int64_t width) const {
    if (axis == shape.size()) return format(offset);
    const std::string next_indent = indent + " ";
    const int64_t next_width = width - 1;
    const int64_t n = shape[axis], inner = n == 0 ? 0 : stride / n;
    const bool summary = summarize && 2 * edge_items < n;
    const int64_t leading = summary ? edge_items : 0, trailing = summary ? edge_items : n;
    std::string s;
    if (axis + 1 == shape.size()) {
      const int64_t elem_width = width - 1;
      std::string line = indent;
      for (int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, recurse(axis + 1, offset + i * inner, inner, next_indent, next_width),
                    elem_width, indent);
        line += " ";
      }
      if (summary) {
        extend_line(s, line, "...", elem_width, indent);
        line += " ";
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend_line(s, line,
                    recurse(axis + 1, offset + (n - i) * inner, inner, next_indent, next_width),
                    elem_width, indent);
        line += " ";
      }
      extend_line(s, line,
                  recurse(axis + 1, offset + (n - 1) * inner, inner, next_indent, next_width),
                  elem_width, indent);
      s += line;
    } else {
      const std::string line_sep(shape.size() - axis - 1, '\n');
      for (int64_t i = 0; i < leading; ++i)
        s += indent + recurse(axis + 1, offset + i * inner, inner, next_indent, next_width) +
             line_sep;
      if (summary) s += indent + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i)
        s += indent + recurse(axis + 1, offset + (n - i) * inner, inner, next_indent, next_width) +
             line_sep;
      s += indent + recurse(axis + 1, offset + (n - 1) * inner, inner, next_indent, next_width);
    }
    std::string out = "[";
    out.append(s, indent.size(), std::string::npos);
    out.push_back(']');
    return out;
  }

  // The elements that will be shown (NumPy sizes the format on these only).
  void collect(size_t axis, int64_t offset, int64_t stride, std::vector<int64_t> &out) const {
    if (axis == shape.size()) {
      out.push_back(offset);
      return;
    }
    const int64_t n = shape[axis], inner = n == 0 ? 0 : stride / n;
    const bool summary = summarize && 2 * edge_items < n;
    for (int64_t i = 0; i < n; ++i) {
      if (summary && i == edge_items) i = n - edge_items;
      collect(axis + 1, offset + i * inner, inner, out);
    }
  }
};

// x (non-empty, not 0-d) with the format that `sized` makes of base for the elements shown.
template <class Format, class Size>
std::string print_array(const Array &x, const Format &base, Size sized) {
  ArrayPrinter<Format> collector{x.shape(), base, x.size() > threshold};
  std::vector<int64_t> shown;
  collector.collect(0, 0, x.size(), shown);
  const Format format = sized(base, shown);
  ArrayPrinter<Format> printer{x.shape(), format, collector.summarize};
  return printer.recurse(0, 0, x.size(), " ", line_width);
}

// ComplexFloatingFormat: the real parts' format, then the imaginary parts' (signed) with 'j'
// before their padding.
struct ComplexFormat {
  ElementFormat re, im;
  std::string operator()(int64_t i) const {
    const std::string imag = im(i);
    const size_t end = imag.find_last_not_of(' ') + 1;
    return re(i) + imag.substr(0, end) + 'j' + imag.substr(end);
  }
};

// A complex scalar as Python's complex repr prints it: 1j, (1.5-2j), (1e+20+nanj).
std::string complex_scalar_text(double re, double im, DType part) {
  auto repr = [part](double v) {
    if (std::isnan(v)) return std::string("nan");
    if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
    return part == DType::float32 ? fmt::format("{}", float(v)) : fmt::format("{}", v);
  };
  if (re == 0 && !std::signbit(re)) return repr(im) + "j";
  const std::string imag = repr(im);
  return fmt::format("({}{}{}j)", repr(re), imag[0] == '-' ? "" : "+", imag);
}

std::string complex_to_string(const Array &x) {
  const std::vector<std::complex<double>> values = x.to_vector<std::complex<double>>();
  std::vector<double> re, im;
  for (std::complex<double> v : values) {
    re.push_back(v.real());
    im.push_back(v.imag());
  }
  const DType part = real_dtype(x.dtype());
  if (x.ndim() == 0) return complex_scalar_text(re[0], im[0], part);
  if (x.size() == 0) return "[]";
  const ComplexFormat base{{.dtype = part, .floats = &re},
                           {.dtype = part, .floats = &im, .plus = true}};
  return print_array(x, base, [](const ComplexFormat &f, const std::vector<int64_t> &shown) {
    return ComplexFormat{make_format(f.re, shown), make_format(f.im, shown)};
  });
}

} // namespace

std::string to_string(const Array &x) {
  if (is_complex(x.dtype())) return complex_to_string(x);
  std::vector<double> floats;
  std::vector<int64_t> ints;
  if (is_integer(x.dtype()))
    ints = x.to_vector<int64_t>();
  else
    floats = x.to_vector<double>();
  ElementFormat base{x.dtype(), &floats, &ints};
  if (x.ndim() == 0) {
    if (x.dtype() == DType::bool_) return floats[0] != 0 ? "True" : "False";
    std::string s = make_format(base, {0})(0);
    return s.substr(s.find_first_not_of(' '));
  }
  if (x.size() == 0) return "[]"; // whatever the shape, as NumPy
  return print_array(x, base, make_format);
}

namespace api {

std::string array2string(const Shape &shape, const std::vector<std::string> &elements,
                         size_t prefix_size, size_t suffix_size, int64_t max_line_width) {
  const auto text = [&](int64_t offset) { return elements[size_t(offset)]; };
  ArrayPrinter<decltype(text)> printer{shape, text, int64_t(elements.size()) > threshold};
  return printer.recurse(0, 0, int64_t(elements.size()), std::string(prefix_size + 1, ' '),
                         max_line_width - int64_t(suffix_size));
}

} // namespace api

std::ostream &operator<<(std::ostream &os, const Array &x) { return os << to_string(x); }

} // namespace jx
