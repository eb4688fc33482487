// The ahead-of-time program's words: encode and decode (its fields from aot_format.h's lists),
// the checksum, CPU features and signature text. The C entry points that run decoded programs are
// runtime/aot_abi.cpp's; the checks a decoded program passes, aot_validate.cpp's.
#include "runtime/aot_format.h"

#include <algorithm>

namespace jx::runtime::aot {
namespace format {
namespace {

void put_step(Writer &w, const Step &s) {
#define JX_AOT_PUT(field, coding, ...) coding.put(w, s.field);
  JX_AOT_STEP_FIELDS(JX_AOT_PUT)
#undef JX_AOT_PUT
}

Step get_step(Reader &r) {
  Step s{};
#define JX_AOT_GET(field, coding, ...) coding.get(r, s.field);
  JX_AOT_STEP_FIELDS(JX_AOT_GET)
#undef JX_AOT_GET
  return s;
}

} // namespace

// A program's fields, its arguments' sizes, then its steps, Argument steps first by position
// (they read nothing, and nothing reads their slots before them): the order the decoder insists
// on.
void put_program(Writer &w, const Program &p, const std::vector<int64_t> &argument_bytes) {
#define JX_AOT_PUT_PROGRAM(field, coding) coding.put(w, p.field);
  JX_AOT_PROGRAM_FIELDS(JX_AOT_PUT_PROGRAM)
#undef JX_AOT_PUT_PROGRAM
  words.put(w, argument_bytes);
  std::vector<const Step *> steps;
  for (const Step &s : p.steps)
    if (s.kind == Step::Kind::Argument) steps.push_back(&s);
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step *a, const Step *b) { return a->argument < b->argument; });
  for (const Step &s : p.steps)
    if (s.kind != Step::Kind::Argument) steps.push_back(&s);
  w.word(int64_t(steps.size()));
  for (const Step *s : steps)
    put_step(w, *s);
}

Program get_program(Reader &r) {
  Program p;
#define JX_AOT_GET_PROGRAM(field, coding) coding.get(r, p.field);
  JX_AOT_PROGRAM_FIELDS(JX_AOT_GET_PROGRAM)
#undef JX_AOT_GET_PROGRAM
  words.get(r, p.argument_bytes);
  const size_t steps = r.count();
  for (size_t i = 0; i < steps; ++i)
    p.steps.push_back(get_step(r));
  return p;
}

} // namespace format

using namespace format;
uint64_t host_cpu_features() {
  // Needed when this runs before libgcc's own constructor has filled the CPU model.
  __builtin_cpu_init();
  // __builtin_cpu_supports takes literals only: the list's names expanded in place.
#define JX_AOT_FEATURE_SUPPORTED(NAME) __builtin_cpu_supports(NAME),
  const int has[] = {JX_AOT_CPU_FEATURES(JX_AOT_FEATURE_SUPPORTED)};
#undef JX_AOT_FEATURE_SUPPORTED
  static_assert(sizeof(has) / sizeof(has[0]) == cpu_feature_count);
  uint64_t mask = 0;
  for (size_t i = 0; i < cpu_feature_count; ++i)
    mask |= uint64_t(has[i] != 0) << i;
  return mask;
}

std::string missing_cpu_features(uint64_t required, uint64_t host) {
  std::string names;
  // Bits past the list come from a newer jx that knows more features: unknown here, so missing.
  for (size_t i = 0; i < 64; ++i)
    if ((required & ~host) >> i & 1)
      names += std::string(names.empty() ? "" : ", ") + (i < cpu_feature_count
                                                             ? std::string(cpu_features[i])
                                                             : "feature bit " + std::to_string(i));
  return names;
}

size_t byte_size(const ArraySpec &s) { return byte_size(s.dtype, s.shape); }

std::string spec_text(const std::vector<ArraySpec> &specs) {
  std::string text;
  for (const ArraySpec &s : specs) {
    if (!text.empty()) text += ", ";
    text += dtype_text(s.dtype);
    text += "[";
    for (size_t i = 0; i < s.shape.size(); ++i) {
      if (i) text += ",";
      text += std::to_string(s.shape[i]);
    }
    text += "]";
  }
  return text;
}

uint64_t checksum(const int64_t *words, int64_t count) {
  uint64_t h = 0xcbf29ce484222325u;
  for (int64_t i = 0; i < count; ++i) {
    if (i == 2) continue;
    const auto w = uint64_t(words[i]);
    for (int b = 0; b < 64; b += 8)
      h = (h ^ ((w >> b) & 0xff)) * 0x100000001b3u;
  }
  return h;
}

void seal(std::vector<int64_t> &words) {
  if (words.size() > 2) words[2] = int64_t(checksum(words.data(), int64_t(words.size())));
}

std::vector<int64_t> encode(const Program &program, const Signature &signature,
                            uint64_t required_features) {
  int64_t kernels = 0, constants = 0;
  const std::function<void(const Program &)> count = [&](const Program &p) {
    for (const Step &s : p.steps) {
      kernels += s.kernel != nullptr;
      constants += s.kind == Step::Kind::Value;
      for (const auto &region : s.regions)
        count(*region);
    }
  };
  count(program);
  Writer w;
  w.word(magic);
  w.word(JX_AOT_ABI_VERSION);
  w.word(0); // the checksum, once the rest is written
  w.word(int64_t(required_features));
  w.word(kernels);
  w.word(constants);
  specs.put(w, signature.args);
  specs.put(w, signature.results);
  put_program(w, program, argument_sizes(signature));
  seal(w.words);
  return std::move(w.words);
}

namespace {
void add_kernel_info(const Program &program, const std::vector<int64_t> &arg_bytes,
                     std::vector<int64_t> &info) {
  std::vector<int64_t> bytes(size_t(std::max(program.slot_count, 0)));
  for (const Step &s : program.steps) {
    for (size_t r = 0; r < s.outs.size(); ++r)
      bytes.at(size_t(s.outs[r])) = s.kind == Step::Kind::Argument
                                        ? arg_bytes.at(size_t(s.argument))
                                        : int64_t(s.out_bytes.at(r));
    if (s.kernel) {
      info.insert(info.end(),
                  {int64_t(s.outs.size()), int64_t(s.inputs.size()), int64_t(s.literals.size())});
      info.insert(info.end(), s.out_bytes.begin(), s.out_bytes.end());
      for (int in : s.inputs)
        info.push_back(bytes.at(size_t(in)));
    }
    for (const auto &region : s.regions)
      add_kernel_info(*region, region->argument_bytes, info);
  }
}
} // namespace

std::vector<int64_t> kernel_info(const Program &program, const Signature &signature) {
  std::vector<int64_t> info;
  add_kernel_info(program, argument_sizes(signature), info);
  return info;
}

Decoded decode(const jx_aot_object &object, int64_t threads) {
  const int64_t count = object.program_words;
  if (!object.program || count < 0) corrupt("no program");
  Reader r(object.program, count);
  if (r.word() != magic) corrupt("not a jx program");
  // The version before the checksum: an object of another version may sum differently.
  if (const int64_t version = r.word(); version != JX_AOT_ABI_VERSION)
    throw Error("jx AOT program: generated for ABI version " + std::to_string(version) +
                ", but this runtime is ABI version " + std::to_string(JX_AOT_ABI_VERSION) +
                " (generate the object again with this jx)");
  if (uint64_t(r.word()) != checksum(object.program, count))
    corrupt("checksum mismatch: the program words are corrupt");
  Decoded d;
  d.required_features = uint64_t(r.word());
  const int64_t kernel_count = r.word(), constant_count = r.word();
  if (kernel_count != object.num_kernels || constant_count != object.num_constants)
    corrupt("table sizes");
  specs.get(r, d.signature.args);
  specs.get(r, d.signature.results);
  d.program = get_program(r);
  if (!r.done()) corrupt("trailing words");
  validate(d, object);
  size_t kernel = 0, constant = 0;
  bind(d.program, object, kernel, constant, threads);
  return d;
}

} // namespace jx::runtime::aot
