// The errors of jx's pytree functions (include/jx/tree.h), worded as JAX's.
#include <jx/error.h>
#include <jx/tree.h>

#include <fmt/format.h>

namespace jx::detail {

void throw_structure_mismatch(const char *what, const std::string &expected,
                              const std::string &got) {
  throw ValueError(fmt::format("{}: pytree structure error: the trees differ: the first is "
                               "PyTreeDef({}) but another is PyTreeDef({})",
                               what, expected, got));
}

void throw_leaf_count(const std::string &structure, size_t expected, size_t got) {
  if (got < expected)
    throw ValueError(fmt::format("Too few leaves for PyTreeDef; expected {}, got {} ({})", expected,
                                 got, structure));
  throw ValueError(
      fmt::format("Too many leaves for PyTreeDef; expected {}. ({})", expected, structure));
}

} // namespace jx::detail
