// jx::aot: a compiled program's kernels and runtime program written out as an object file and a
// header; the registry and command line of generator programs.
#include <jx/aot.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "aot/object.h"
#include "api/traced_program.h"
#include "runtime/aot.h"

namespace jx::aot {
namespace {

// Why name cannot name a generated function (its C symbol, NAME.h's declaration and the
// NAME_aot namespace), or "".
std::string bad_name(const std::string &name) {
  bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char ch : name)
    identifier = identifier && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  if (!identifier) return "is not a C identifier";
  static const std::set<std::string> keywords = {"alignas",
                                                 "alignof",
                                                 "and",
                                                 "and_eq",
                                                 "asm",
                                                 "auto",
                                                 "bitand",
                                                 "bitor",
                                                 "bool",
                                                 "break",
                                                 "case",
                                                 "catch",
                                                 "char",
                                                 "char8_t",
                                                 "char16_t",
                                                 "char32_t",
                                                 "class",
                                                 "compl",
                                                 "concept",
                                                 "const",
                                                 "consteval",
                                                 "constexpr",
                                                 "constinit",
                                                 "const_cast",
                                                 "continue",
                                                 "co_await",
                                                 "co_return",
                                                 "co_yield",
                                                 "decltype",
                                                 "default",
                                                 "delete",
                                                 "do",
                                                 "double",
                                                 "dynamic_cast",
                                                 "else",
                                                 "enum",
                                                 "explicit",
                                                 "export",
                                                 "extern",
                                                 "false",
                                                 "float",
                                                 "for",
                                                 "friend",
                                                 "goto",
                                                 "if",
                                                 "inline",
                                                 "int",
                                                 "long",
                                                 "mutable",
                                                 "namespace",
                                                 "new",
                                                 "noexcept",
                                                 "not",
                                                 "not_eq",
                                                 "nullptr",
                                                 "operator",
                                                 "or",
                                                 "or_eq",
                                                 "private",
                                                 "protected",
                                                 "public",
                                                 "register",
                                                 "reinterpret_cast",
                                                 "requires",
                                                 "restrict",
                                                 "return",
                                                 "short",
                                                 "signed",
                                                 "sizeof",
                                                 "static",
                                                 "static_assert",
                                                 "static_cast",
                                                 "struct",
                                                 "switch",
                                                 "template",
                                                 "this",
                                                 "thread_local",
                                                 "throw",
                                                 "true",
                                                 "try",
                                                 "typedef",
                                                 "typeid",
                                                 "typename",
                                                 "union",
                                                 "unsigned",
                                                 "using",
                                                 "virtual",
                                                 "void",
                                                 "volatile",
                                                 "wchar_t",
                                                 "while",
                                                 "xor",
                                                 "xor_eq",
                                                 "main",
                                                 "typeof",
                                                 "typeof_unqual",
                                                 "linux",
                                                 "unix",
                                                 "i386",
                                                 "offsetof"};
  if (keywords.count(name)) return "is a C or C++ keyword, a predefined macro or main";
  if (std::none_of(name.begin(), name.end(), [](char ch) { return std::islower(ch); }))
    return "has no lower-case letter (such names are left to macros: NULL, INT64_MAX, ...)";
  // What NAME.h's includes declare and what the runtime exports.
  if (name == "std" || name == "jx" || name.starts_with("jx_") || name.ends_with("_t"))
    return "clashes with a name of the C library, the C++ standard library or the jx runtime "
           "(std, jx, jx_*, *_t)";
  if (name[0] == '_' || name.find("__") != std::string::npos)
    return "is reserved in C and C++ (a leading underscore, or two underscores)";
  if (name.ends_with("_aot")) return "ends in _aot (NAME_aot is the namespace of NAME.h)";
  return "";
}

const char *c_type(DType t) {
  switch (t) {
  case DType::bool_: return "bool";
  case DType::int8: return "int8_t";
  case DType::int16: return "int16_t";
  case DType::int32: return "int32_t";
  case DType::int64: return "int64_t";
  case DType::uint8: return "uint8_t";
  case DType::uint16: return "uint16_t";
  case DType::uint32: return "uint32_t";
  case DType::uint64: return "uint64_t";
  case DType::float16:
  case DType::bfloat16: return "uint16_t"; // their bits
  case DType::float32: return "float";
  case DType::float64: return "double";
  case DType::complex64: return "std::complex<float>";
  case DType::complex128: return "std::complex<double>";
  }
  return "void";
}

// aot_abi.h's enumerator of t: JX_AOT_ and its NumPy name in capitals (JX_AOT_UINT8).
std::string dtype_code(DType t) {
  std::string code = "JX_AOT_" + std::string(dtype_name(t));
  std::transform(code.begin(), code.end(), code.begin(),
                 [](unsigned char c) { return char(std::toupper(c)); });
  return code;
}

// The object's exported symbol for the function NAME (NAME.h's inline NAME calls it).
std::string entry_symbol(const std::string &name) { return "jx_aot_fn_" + name; }

// NAME.h: the C entry point, and in C++ the signature's constants and a typed call.
std::string header_text(const std::string &name, const runtime::aot::Signature &sig,
                        const aot_impl::Object &object) {
  // The name as it is: names differing in case get distinct guards, and none is aot_abi.h's.
  const std::string guard = "JX_AOT_FUNCTION_" + name + "_H";
  std::string h = fmt::format(
      "/* {0}: generated by jx::aot for CPU {1} (math tier {2}). Do not edit.\n"
      " *   {0}({3}) -> ({4}) */\n"
      "#ifndef {5}\n#define {5}\n\n#include <jx/aot_abi.h>\n\n"
      "#if JX_AOT_ABI_VERSION != {6}\n"
      "#error \"{0}.h was generated for jx AOT ABI version {6}\"\n#endif\n\n"
      "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n"
      "int32_t {9}(const jx_aot_array *args, int32_t num_args,\n"
      "    const jx_aot_array *results, int32_t num_results, char *error, size_t error_size);\n"
      "#ifdef __cplusplus\n}}\n#endif\n\n"
      "/* Computes the {7} result(s) into the caller's C-ordered buffers from the {8} "
      "argument(s),\n"
      " * as the jx function traced. Returns a jx_aot_status; on failure writes a message into\n"
      " * error. Thread-safe; results must not overlap arguments. The object's symbol is\n"
      " * {9}, so that it cannot take over a library's symbol of the same name. */\n"
      "static inline int32_t {0}(const jx_aot_array *args, int32_t num_args,\n"
      "    const jx_aot_array *results, int32_t num_results, char *error, size_t error_size) {{\n"
      "  return {9}(args, num_args, results, num_results, error, error_size);\n}}\n\n"
      "#ifdef __cplusplus\n#include <array>\n#include <complex>\n#include <cstdint>\n#include "
      "<span>\n"
      "#include <string>\n\nnamespace {0}_aot {{\n\n"
      "inline constexpr int32_t num_args = {8}, num_results = {7};\n",
      name, object.cpu, object.tier, runtime::aot::spec_text(sig.args),
      runtime::aot::spec_text(sig.results), guard, JX_AOT_ABI_VERSION, sig.results.size(),
      sig.args.size(), entry_symbol(name));
  std::vector<std::string> params, arrays_in, arrays_out, checks;
  auto describe = [&](const char *kind, size_t i, const runtime::aot::ArraySpec &s, bool out) {
    const std::string var = fmt::format("{}{}", kind, i);
    h += fmt::format("inline constexpr std::array<int64_t, {}> {}_shape{{{}}};\n", s.shape.size(),
                     var, fmt::join(s.shape, ", "));
    h += fmt::format("inline constexpr int32_t {}_dtype = {};\n", var, dtype_code(s.dtype));
    params.push_back(fmt::format("std::span<{}{}> {}", out ? "" : "const ", c_type(s.dtype), var));
    (out ? arrays_out : arrays_in)
        .push_back(
            fmt::format("{{const_cast<{0} *>({1}.data()), {1}_dtype, {2}, {1}_shape.data()}}",
                        c_type(s.dtype), var, s.shape.size()));
    checks.push_back(
        fmt::format("  if ({0}.size() != {1})\n"
                    "    throw jx::aot::CallError(JX_AOT_ERROR_ARGUMENTS, \"{2}: {0} has \" + "
                    "std::to_string({0}.size()) +\n"
                    "                                 \" elements, expected {1} ({3})\");\n",
                    var, shape_size(s.shape), name, runtime::aot::spec_text({s})));
  };
  for (size_t i = 0; i < sig.args.size(); ++i)
    describe("arg", i, sig.args[i], false);
  for (size_t i = 0; i < sig.results.size(); ++i)
    describe("result", i, sig.results[i], true);
  auto array_list = [](const std::vector<std::string> &items) {
    return items.empty() ? std::string("{}")
                         : fmt::format("{{\n      {}}}", fmt::join(items, ",\n      "));
  };
  h += fmt::format("\n// Checks the sizes, then calls {0}; throws jx::aot::CallError with the "
                   "runtime's message.\n"
                   "inline void call({1}) {{\n{2}"
                   "  const jx_aot_array args[{3}] = {4};\n"
                   "  const jx_aot_array results[{5}] = {6};\n"
                   "  char error[512] = \"\";\n"
                   "  if (const int32_t status = ::{7}(args, num_args, results, num_results, "
                   "error, sizeof error))\n"
                   "    throw jx::aot::CallError(status, error);\n}}\n\n"
                   "}} // namespace {0}_aot\n#endif\n\n#endif\n",
                   name, fmt::join(params, ", "), fmt::join(checks, ""),
                   std::max<size_t>(1, sig.args.size()), array_list(arrays_in),
                   std::max<size_t>(1, sig.results.size()), array_list(arrays_out),
                   entry_symbol(name));
  return h;
}

// Written under a temporary name and renamed, so that a build never sees half a file.
void write_file(const std::string &path, const std::string &bytes) {
  // Unique per process, so that generators writing one directory at once do not collide.
  const std::string temporary = fmt::format("{}.{}.tmp", path, getpid());
  bool written;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    written = bool(out.flush());
  }
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(fmt::format("jx.aot: cannot write {}", path));
  }
}

// p with each Value step's size set to its constant's, which is appended to `constants`: in step
// order, a control step's regions' in its place, depth first (the encoder's order).
runtime::Program with_constants(const runtime::Program &p,
                                std::vector<runtime::BufferPtr> &constants) {
  runtime::Program out = p;
  for (runtime::Step &s : out.steps) {
    if (s.kind == runtime::Step::Kind::Value) {
      constants.push_back(s.value());
      s.out_bytes = {constants.back()->bytes()};
    }
    for (std::shared_ptr<const runtime::Program> &region : s.regions)
      region = std::make_shared<const runtime::Program>(with_constants(*region, constants));
  }
  return out;
}

std::map<std::string, Maker> &registry() {
  static std::map<std::string, Maker> functions;
  return functions;
}

} // namespace

Files compile(const jx::detail::Program &program, const std::string &name,
              const std::string &directory, const Options &options) {
  if (const std::string why = bad_name(name); !why.empty())
    throw ValueError(fmt::format("jx.aot: the function name '{}' {}", name, why));
  if (!program.executable) throw Error("internal: jx.aot: the program has not been compiled");
  const compile::Executable &executable = *program.executable;
  if (executable.distributed())
    throw NotImplementedError("jx::aot::compile: this program was compiled to run across the "
                              "processes of jx::distributed; ahead-of-time objects run in one "
                              "process (compile it without jx::distributed::initialize)");
  runtime::aot::Signature signature;
  for (const ShapeDtypeStruct &s : program.specs)
    signature.args.push_back({s.dtype, s.shape});
  for (const ir::NodePtr &o : program.outputs)
    signature.results.push_back({o.get()->dtype, o.get()->shape});
  aot_impl::ObjectContents contents;
  contents.symbol = entry_symbol(name);
  contents.target_cpu = options.target_cpu;
  contents.signature = signature;
  contents.program = with_constants(executable.program(), contents.constants);
  // Values with_sharding_constraint adds as extra outputs are not results.
  contents.program.outputs.resize(program.outputs.size());
  contents.kernels = executable.kernel_plans();
  const aot_impl::Object object = aot_impl::emit_object(contents);
  Files files{directory + "/" + name + ".o", directory + "/" + name + ".h",
              contents.kernels.size()};
  write_file(files.object, object.bytes);
  write_file(files.header, header_text(name, signature, object));
  return files;
}

bool register_function(const std::string &name, Maker make) {
  if (const std::string why = bad_name(name); !why.empty())
    throw ValueError(fmt::format("jx.aot: the function name '{}' {}", name, why));
  if (!registry().emplace(name, std::move(make)).second)
    throw ValueError(fmt::format("jx.aot: the function '{}' is registered twice", name));
  return true;
}

int generator_main(int argc, char **argv) {
  std::string directory = ".";
  Options options;
  std::vector<std::string> names;
  auto usage = [&] {
    fmt::print(stderr, "usage: {} --output-dir DIR [--target-cpu CPU] NAME... | --list\n", argv[0]);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      for (const auto &[name, make] : registry())
        fmt::print("{}\n", name);
      return 0;
    }
    if ((arg == "--output-dir" || arg == "-o") && i + 1 < argc)
      directory = argv[++i];
    else if (arg == "--target-cpu" && i + 1 < argc)
      options.target_cpu = argv[++i];
    else if (!arg.empty() && arg[0] == '-')
      return usage();
    else
      names.push_back(arg);
  }
  if (names.empty()) return usage();
  try {
    for (const std::string &name : names) {
      auto it = registry().find(name);
      if (it == registry().end()) {
        std::vector<std::string> known;
        for (const auto &[n, make] : registry())
          known.push_back(n);
        fmt::print(stderr, "{}: no function '{}' is registered (registered: {})\n", argv[0], name,
                   fmt::join(known, ", "));
        return 1;
      }
      const auto start = std::chrono::steady_clock::now();
      const Files files = compile(*it->second(), name, directory, options);
      fmt::print("jx.aot: {} -> {} + {} ({} kernels) in {:.0f} ms\n", name, files.object,
                 files.header, files.kernels,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    }
  } catch (const std::exception &e) {
    fmt::print(stderr, "{}: {}\n", argv[0], e.what());
    return 1;
  }
  return 0;
}

} // namespace jx::aot
