// The kernels group (issue 33): PolyBench/NPBench kernels written in jx as their NumPy versions are
// written (the loops as loops: lax::fori_loop over time steps, rows or bytes, parts of arrays
// updated with .at()), each one jit program. Each family's file registers its kernels; main.cpp
// times them. Inputs are built by the same formulas as bench/peers/kernels_*.py's.
#pragma once

#include <jx/jx.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace kernels {

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;
using jx::none;
using jx::slice;
using lax::Arrays;

// A jit program's outputs, a pair or tuple of arrays, as the list a Kernel's run returns.
template <class Tuple> Arrays outputs(const Tuple &result) {
  return std::apply([](const auto &...a) { return Arrays{a...}; }, result);
}

struct Kernel {
  std::string name, size;      // size as the Python side prints it, e.g. "N=600 TSTEPS=100"
  std::function<Arrays()> run; // one call of the compiled program
};

// Built lazily: making a kernel builds its inputs and traces nothing until the first run.
using Registry = std::vector<std::function<Kernel()>>;

Registry stencil_kernels(); // stencils.cpp: time-stepped grids
Registry linalg_kernels();  // linalg.cpp: factorizations, solves and BLAS-like loops
Registry misc_kernels();    // misc.cpp: the rest (bit loops, escape time, dynamic programming, ...)

} // namespace kernels
