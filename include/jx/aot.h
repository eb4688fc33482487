// jx::aot: a jit-compiled function written out as NAME.o (its kernels and program) and NAME.h
// (a C entry point and a typed C++ wrapper), to link into programs that have no LLVM: they need
// only libjx_runtime, libm and libmvec. Generators (see jx_add_aot_library in cmake/jx_aot.cmake)
// register functions with JX_AOT_FUNCTION and get their main from jx::aot_main.
#pragma once

#include <jx/jit.h>

#include <functional>
#include <memory>
#include <string>

namespace jx::aot {

struct Options {
  // "host" (this machine's CPU and features) or an LLVM CPU name: "x86-64-v3", "skylake-avx512".
  std::string target_cpu = "host";
};

struct Files {
  std::string object, header; // paths written
  size_t kernels = 0;
};

// Writes directory/name.o and directory/name.h for program. name must be a C identifier that is
// no keyword and clashes with nothing NAME.h declares (a jx::ValueError says why). The object
// exports one symbol, jx_aot_fn_<name>; NAME.h declares the inline C function `name` calling it.
Files compile(const detail::Program &program, const std::string &name, const std::string &directory,
              const Options &options = {});

template <class Out>
Files compile(const Compiled<Out> &compiled, const std::string &name, const std::string &directory,
              const Options &options = {}) {
  return compile(*compiled.program(), name, directory, options);
}
template <class Out>
Files compile(const Lowered<Out> &lowered, const std::string &name, const std::string &directory,
              const Options &options = {}) {
  return compile(lowered.compile(), name, directory, options);
}

// Generators: functions by name, each made on demand (so a generator run builds only those asked
// for).
using Maker = std::function<std::shared_ptr<const detail::Program>()>;
bool register_function(const std::string &name, Maker make);

// The generator's command line: `GENERATOR --output-dir DIR [--target-cpu CPU] NAME...` writes
// DIR/NAME.o and DIR/NAME.h for each NAME; `--list` prints the registered names. Returns the exit
// status (jx::aot_main's main returns it).
int generator_main(int argc, char **argv);

namespace impl {
template <class Out> std::shared_ptr<const jx::detail::Program> program_of(const Lowered<Out> &l) {
  return l.compile().program();
}
template <class Out> std::shared_ptr<const jx::detail::Program> program_of(const Compiled<Out> &c) {
  return c.program();
}
} // namespace impl

} // namespace jx::aot

// Registers the function NAME for the generator; the block that follows returns its
// jit(...).lower(...) (or a Compiled):
//   JX_AOT_FUNCTION(saxpy) { return jx::jit(saxpy).lower(jx::ShapeDtypeStruct{{1024}}); }
// (The maker is a generic lambda whose call of the block depends on its (empty) parameter pack,
// so that its body, which needs the block's deduced return type, is instantiated at the end of
// the file, after the block: clang checks a call that depends on nothing where it is written.)
#define JX_AOT_FUNCTION(NAME)                                                                      \
  static auto jx_aot_make_##NAME();                                                                \
  [[maybe_unused]] static const bool jx_aot_registered_##NAME = ::jx::aot::register_function(      \
      #NAME, [](auto... none) -> std::shared_ptr<const ::jx::detail::Program> {                    \
        return ::jx::aot::impl::program_of(jx_aot_make_##NAME(none...));                           \
      });                                                                                          \
  static auto jx_aot_make_##NAME()
