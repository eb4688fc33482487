#!/usr/bin/env python3
"""Writes docs/api-coverage.md: which public functions of jax.numpy, jax.numpy.linalg, jax.nn,
jax.scipy.special and the jax.lax functions users call directly jx has.

Run with a Python that has JAX installed (the project's venv): python scripts/api_coverage.py.
The functions come from the installed JAX; whether jx has one is read from the public headers
(a declaration of the name, in jx's spelling, in the module's header), so the table cannot claim
what the headers lack. Names deliberately left out carry their reason below and do not count.
tests/api/test_api_coverage.cpp checks every name marked present against the headers again.
"""
import inspect
import os
import re
import sys

import jax
import jax.lax
import jax.nn
import jax.numpy as jnp
import jax.scipy.special

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# module -> (the JAX module, jx's C++ namespace, jx's headers declaring it)
MODULES = {
    "jax.numpy": (jnp, "jx::numpy", ["include/jx/numpy.h"]),
    "jax.numpy.linalg": (jnp.linalg, "jx::numpy::linalg", ["include/jx/linalg.h"]),
    "jax.nn": (jax.nn, "jx::nn", ["include/jx/nn.h"]),
    "jax.scipy.special": (jax.scipy.special, "jx::scipy::special", ["include/jx/scipy.h"]),
    "jax.lax": (jax.lax, "jx::lax", ["include/jx/lax.h"]),
}

# C++ spellings of Python names that are C++ keywords.
SPELLING = {"delete": "delete_", "switch": "switch_"}

# The jax.lax functions users call directly (the rest of lax is jnp's implementation layer).
LAX = ["while_loop", "fori_loop", "cond", "switch", "scan", "map", "associative_scan",
       "stop_gradient", "select", "dot_general", "conv_general_dilated", "reduce", "cumsum",
       "cumprod", "cummax", "cummin", "cumlogsumexp", "sort", "top_k", "dynamic_slice",
       "dynamic_update_slice", "dynamic_index_in_dim", "gather", "scatter", "scatter_add",
       "broadcast_in_dim", "rsqrt", "logistic", "erf_inv", "lgamma", "digamma", "integer_pow",
       "clamp", "iota", "broadcasted_iota", "psum", "pmean", "all_gather", "ppermute",
       "axis_index", "population_count", "rng_bit_generator", "reduce_window", "sort_key_val",
       "approx_max_k", "batch_matmul", "fft", "complex"]

OUT_OF_SCOPE = {
    "jax.numpy": {
        "frompyfunc": "wraps a Python callable as a ufunc; C++ callers compose functions",
        "vectorize": "a Python decorator; C++ callers use jx::vmap",
        "printoptions": "Python's printing state; jx prints as NumPy's defaults",
        "get_printoptions": "Python's printing state; jx prints as NumPy's defaults",
        "set_printoptions": "Python's printing state; jx prints as NumPy's defaults",
        "array_repr": "jx::to_string and fmt's formatter print arrays",
        "array_str": "jx::to_string and fmt's formatter print arrays",
        "iterable": "a Python protocol check",
        "from_dlpack": "the DLPack exchange of Python objects",
        "frombuffer": "Python buffer objects; jnp::array takes C++ containers",
        "fromfile": "Python file objects; jnp::load reads .npy files",
        "fromiter": "Python iterators; jnp::array takes C++ containers",
        "fromstring": "Python strings of numbers",
        "einsum_path": "opt_einsum's plan of a Python call; jx plans einsum when it traces",
    },
    "jax.nn": {
        "get_scaled_dot_general_config": "configuration objects of JAX's quantized matmul",
        "scaled_dot_general": "JAX's quantized (microscaling) matmul: needs float8 types",
        "scaled_matmul": "JAX's quantized (microscaling) matmul: needs float8 types",
    },
}


def public_functions(module):
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        # Classes are dtypes and Python types (jnp.float32, jnp.ndarray), not functions.
        if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
            continue
        names.append(name)
    return sorted(names)


def declared_names(headers, namespace):
    """The function names declared in the headers' blocks of namespace (one level deep); a long
    return type may stand on the line before the name (clang-format's break)."""
    names = set()
    inner = namespace.split("::")[-1]
    for path in headers:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            continue
        text = open(full).read()
        # The text of each `namespace <ns> {` block, up to its closing comment.
        for match in re.finditer(r"namespace ([\w:]+) \{(.*?)\n\} // namespace \1", text, re.S):
            if match.group(1).split("::")[-1] != inner:
                continue
            body = re.sub(r"namespace detail \{.*?\n\} // namespace detail", "", match.group(2),
                          flags=re.S)
            for decl in re.finditer(r"(?:^|\n)(?:template <[^\n]*>\s*)?(?:requires[^\n]*\s*)?"
                                    r"(?:inline |constexpr )*[\w:<>, *&]+?[ *&\n](\w+)\(", body):
                names.add(decl.group(1))
    return names


def main():
    rows = []
    summary = []
    for label, (module, namespace, headers) in MODULES.items():
        names = LAX if label == "jax.lax" else public_functions(module)
        declared = declared_names(headers, namespace)
        out = OUT_OF_SCOPE.get(label, {})
        present = counted = 0
        for name in names:
            spelled = SPELLING.get(name, name)
            if name in out:
                status, note = "out of scope", out[name]
            elif spelled in declared:
                status, note = "present", f"`{namespace}::{spelled}`"
            else:
                status, note = "missing", ""
            if status != "out of scope":
                counted += 1
                present += status == "present"
            rows.append((label, name, status, note))
        summary.append((label, present, counted, len(names) - counted))
    lines = [
        "# API coverage",
        "",
        "Generated by `scripts/api_coverage.py` from the installed JAX "
        f"({jax.__version__}) and jx's public headers; do not edit by hand.",
        "`tests/api/test_api_coverage.cpp` fails if a name marked present is not declared there.",
        "Out-of-scope names (Python machinery) do not count; dtypes and Python classes are not",
        "listed.",
        "",
        "| module | present | of | coverage | out of scope |",
        "|---|---|---|---|---|",
    ]
    for label, present, counted, skipped in summary:
        lines.append(f"| {label} | {present} | {counted} | {100 * present / counted:.0f}% | "
                     f"{skipped} |")
    lines += ["", "| module | name | status | jx |", "|---|---|---|---|"]
    lines += [f"| {label} | {name} | {status} | {note} |" for label, name, status, note in rows]
    path = os.path.join(ROOT, "docs", "api-coverage.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    for label, present, counted, skipped in summary:
        print(f"{label}: {present}/{counted} ({100 * present / counted:.0f}%), "
              f"{skipped} out of scope")
    return 0


if __name__ == "__main__":
    sys.exit(main())
