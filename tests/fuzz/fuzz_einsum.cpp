// libFuzzer target for einsum's subscripts parser, which runs inside jnp::einsum: the first byte
// chooses operand shapes, the rest is the subscripts string. Operands are zero arrays, one per
// term left of "->", with a dimension per letter and 0-3 for an ellipsis; sizes follow the letter
// so that valid strings usually get consistent shapes. The result is never read (no compilation).
// Any outcome but a jx::Error or a result of sane shape is a finding.
#include <jx/error.h>
#include <jx/numpy.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace jnp = jx::numpy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 256) return 0;
  const uint8_t seed = data[0];
  const std::string_view spec(reinterpret_cast<const char *>(data) + 1, size - 1);
  const std::string_view lhs = spec.substr(0, spec.find("->"));
  std::vector<jx::Array> operands;
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    const std::string_view term = lhs.substr(start, comma == lhs.npos ? lhs.npos : comma - start);
    jx::Shape shape;
    int64_t elements = 1;
    const bool ellipsis = term.find("...") != term.npos;
    // Ellipsis rank varies per operand, so that broadcasting between them is exercised too.
    const int extra = ellipsis ? (seed + operands.size()) % 4 : 0;
    for (int i = 0; i < extra; ++i)
      shape.push_back(1 + (seed >> 2) % 3 * (i & 1));
    for (unsigned char c : term)
      if (c != '.' && c != ' ') shape.push_back(seed & 0x40 ? 1 + (c + seed) % 3 : 2);
    if (shape.size() > 64) shape.resize(64); // NumPy's rank cap: zeros would refuse more
    // Bit 7 drops the last dimension: a rank that disagrees with the term.
    if (seed & 0x80 && !shape.empty()) shape.pop_back();
    for (int64_t &d : shape) {
      if (elements * d > 4096) d = 1; // small arrays: the parser is the target
      elements *= d;
    }
    operands.push_back(jnp::zeros(shape));
    if (comma == lhs.npos || operands.size() > 32) break;
    start = comma + 1;
  }
  try {
    const jx::Array r = jnp::einsum(spec, operands);
    for (int64_t d : r.shape())
      if (d < 0) std::abort();
  } catch (const jx::Error &) {
  }
  return 0;
}
