#!/usr/bin/env python3
"""Writes docs/api-coverage.md: which public functions of JAX's modules jx has.

The modules: jax.numpy, jax.numpy.linalg, jax.numpy.fft, jax.nn, jax.random, the whole of jax.lax,
JAX's transformations and array placement (the `jax` row), jax.tree_util and every public
jax.scipy submodule the installed JAX has (jax.scipy.special, linalg, stats and each of its
distributions, signal, fft, ...; a package holding only submodules has no row of its own).

Run with a Python that has JAX installed (the project's venv): python scripts/api_coverage.py.
The functions come from the installed JAX: every public name of the module that is callable and
not a module, a class (dtypes, Python types, parameter objects such as lax.GatherDimensionNumbers)
or a typing alias (lax.PrecisionLike); the classes in CLASSES below are listed too, being the
module's functionality (custom_jvp, scipy's Rotation). Whether jx has one is read from the public
headers: a declaration of the name, in jx's spelling, at the top level of the module's namespace
in that namespace's headers, so the table cannot claim what the headers lack (a name jx declares
in another namespace, such as jx::stop_gradient for jax.lax.stop_gradient, does not count for the
module). Names deliberately left out carry their reason below and do not count.

The `jax` row's rule: every public function of dir(jax) is listed, and it counts when it
transforms functions (jit, grad, vmap, jvp, vjp, linearize, jacfwd, checkpoint, custom_jvp, pmap,
shard_map, eval_shape, make_jaxpr, pure_callback, ...) or places, moves, waits for or assembles
arrays, with the device and process queries placement needs (device_put, device_get,
block_until_ready, make_array_from_callback, make_mesh, devices, process_index, ...). The rest is
out of scope with its reason: configuration flags (jax.config's context managers, recognised by
their type), debugging and introspection aids, mutable references and deprecated aliases.
jx spells these names in namespace jx, as it does jax.tree_util's (jx::tree_map).

tests/api/test_api_coverage.cpp checks every name marked present against the headers again.
"""
import importlib
import inspect
import os
import pkgutil
import re
import sys
import types
import typing

import jax
import jax.lax
import jax.nn
import jax.numpy as jnp
import jax.numpy.fft
import jax.random
import jax.scipy
import jax.tree_util

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The headers that open namespace jx itself (its transformations, placement and trees).
JX_HEADERS = ["include/jx/array.h", "include/jx/distributed.h", "include/jx/dtype.h",
              "include/jx/error.h", "include/jx/jit.h", "include/jx/shape.h",
              "include/jx/sharding.h", "include/jx/transforms.h", "include/jx/tree.h"]

# module -> (the JAX module, jx's C++ namespace, jx's headers declaring it)
MODULES = {
    "jax.numpy": (jnp, "jx::numpy", ["include/jx/numpy.h"]),
    "jax.numpy.linalg": (jnp.linalg, "jx::numpy::linalg", ["include/jx/linalg.h"]),
    "jax.numpy.fft": (jnp.fft, "jx::numpy::fft", ["include/jx/numpy.h"]),
    "jax.nn": (jax.nn, "jx::nn", ["include/jx/nn.h"]),
    "jax.random": (jax.random, "jx::random", ["include/jx/random.h"]),
    "jax.lax": (jax.lax, "jx::lax", ["include/jx/lax.h"]),
    "jax": (jax, "jx", JX_HEADERS),
    "jax.tree_util": (jax.tree_util, "jx", JX_HEADERS),
}
# Every public jax.scipy submodule, in jx::scipy::<the rest> (include/jx/scipy.h).
for info in sorted(pkgutil.walk_packages(jax.scipy.__path__, "jax.scipy."), key=lambda m: m.name):
    if any(part.startswith("_") for part in info.name.split(".")):
        continue
    MODULES[info.name] = (importlib.import_module(info.name),
                          "jx::" + info.name[len("jax."):].replace(".", "::"),
                          ["include/jx/scipy.h"])

# Classes listed as functions: what the module offers is the class (a decorator, an object).
CLASSES = {
    "jax": ["custom_jvp", "custom_vjp"],
    "jax.scipy.interpolate": ["RegularGridInterpolator"],
    "jax.scipy.spatial.transform": ["Rotation", "Slerp"],
    "jax.scipy.stats": ["gaussian_kde"],
}

# C++ spellings of Python names that are C++ keywords.
SPELLING = {"delete": "delete_", "switch": "switch_"}

JAX_CONFIG = "a configuration flag (jax.config's context manager), not a transformation"
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
    "jax.lax": {
        "create_token": "XLA's tokens, which order XLA's side effects (infeed, outfeed)",
        "after_all": "XLA's tokens, which order XLA's side effects (infeed, outfeed)",
        "platform_dependent": "picks Python code per XLA platform; jx compiles for the host CPU",
        "stage": "lifts a Python scalar or NumPy array into a trace; jx's values are Arrays",
    },
    "jax": {
        "checking_leaks": "a debugging aid for Python tracers leaked out of a trace",
        "clear_caches": "cache management, not a transformation",
        "disable_jit": "a Python debugging context manager (jit runs eagerly inside it)",
        "ensure_compile_time_eval": "a Python context manager over tracing",
        "transfer_guard": "a Python context manager of the transfer-guard flags",
        "named_scope": "a Python context manager naming ops for the profiler",
        "ds": "builds an indexing slice (jx::slice), not a transformation",
        "effects_barrier": "orders JAX's Python side effects (callbacks, debug prints)",
        "typeof": "introspection of abstract values, not a transformation",
        "live_arrays": "introspection of the backend's buffers",
        "print_environment_info": "the installation's description",
        "make_user_context": "a jit cache context keyed on Python objects",
        "host_count": "a deprecated alias of process_count",
        "host_id": "a deprecated alias of process_index",
        "host_ids": "a deprecated alias of process_indices",
        "new_ref": "mutable array references (jax.Ref), a state feature, not a transformation",
        "empty_ref": "mutable array references (jax.Ref), a state feature, not a transformation",
        "free_ref": "mutable array references (jax.Ref), a state feature, not a transformation",
        "freeze": "mutable array references (jax.Ref), a state feature, not a transformation",
    },
    "jax.tree_util": {
        "register_dataclass": "registers a Python dataclass (register_pytree_node in C++)",
        "register_pytree_node_class": "a Python class decorator (register_pytree_node in C++)",
        "register_pytree_with_keys_class": "a Python class decorator "
                                           "(register_pytree_with_keys in C++)",
    },
}


def is_typing_alias(obj):
    return isinstance(obj, types.GenericAlias) or type(obj).__module__ == typing.__name__


def public_functions(label, module):
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if name in CLASSES.get(label, []):
            names.append(name)
            continue
        # Classes are dtypes, Python types and parameter objects (jnp.float32, jnp.ndarray,
        # lax.Precision), not functions; typing aliases (lax.PrecisionLike) are types too.
        if (inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj)
                or is_typing_alias(obj)):
            continue
        names.append(name)
    return sorted(names)


def out_of_scope(label, module, name):
    reason = OUT_OF_SCOPE.get(label, {}).get(name)
    if reason is None and label == "jax" and type(getattr(module, name)).__module__.startswith(
            "jax._src.config"):
        reason = JAX_CONFIG
    return reason


def namespace_bodies(text, outer=""):
    """(full namespace, the text of its blocks outside nested namespaces) for each
    `namespace <ns> {` ... `} // namespace <ns>` block of text, nested ones included."""
    for match in re.finditer(r"(?:^|\n)namespace ([\w:]+) \{(.*?)\n\} // namespace \1(?![\w:])",
                             text, re.S):
        full = f"{outer}::{match.group(1)}" if outer else match.group(1)
        body = match.group(2)
        yield from namespace_bodies(body, full)
        yield full, re.sub(r"\nnamespace (\w+) \{.*?\n\} // namespace \1(?![\w:])", "", body,
                           flags=re.S)


def declared_names(headers, namespace):
    """The function names declared at the top level of namespace's blocks in the headers (not
    in nested namespaces such as detail, nor class members, which are indented); a long return
    type may stand on the line before the name (clang-format's break)."""
    names = set()
    for path in headers:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            continue
        for ns, body in namespace_bodies(open(full).read()):
            if ns != namespace:
                continue
            # As tests/api/test_api_coverage.cpp reads a declaration: the name follows its type
            # ([\w>&*]) and a space or a line break.
            for decl in re.finditer(r"(?:^|\n)(?:template <[^\n]*>[ \n])?(?:requires[^\n]*\n)?"
                                    r"(?=[\w:])[\w:<>, *&]*?[\w>&*][ \n](\w+)\(", body):
                names.add(decl.group(1))
    return names


def percent(present, counted):
    return f"{100 * present / counted:.0f}%" if counted else "-"


def main():
    sections = []
    summary = []
    for label, (module, namespace, headers) in MODULES.items():
        names = public_functions(label, module)
        if not names:  # a package of submodules only (jax.scipy.stats's are rows of their own)
            continue
        declared = declared_names(headers, namespace)
        rows = []
        present = counted = 0
        for name in names:
            spelled = SPELLING.get(name, name)
            reason = out_of_scope(label, module, name)
            if reason is not None:
                status, note = "out of scope", reason
            elif spelled in declared:
                status, note = "present", f"`{namespace}::{spelled}`"
            else:
                status, note = "missing", ""
            if status != "out of scope":
                counted += 1
                present += status == "present"
            rows.append((name, status, note))
        summary.append((label, present, counted, len(names) - counted))
        sections.append((label, namespace, rows))
    lines = [
        "# API coverage",
        "",
        "Generated by `scripts/api_coverage.py` from the installed JAX "
        f"({jax.__version__}) and jx's public headers; do not edit by hand.",
        "`tests/api/test_api_coverage.cpp` fails if a name marked present is not declared there.",
        "A name is present when jx declares it at the top level of the module's namespace; one jx",
        "declares elsewhere (`jx::stop_gradient` for `jax.lax.stop_gradient`) does not count.",
        "Out-of-scope names (Python machinery) do not count; dtypes, Python classes and typing",
        "aliases are not listed. The `jax` row lists JAX's transformations and array placement",
        "(`jit`, `grad`, `vmap`, `custom_jvp`, `pmap`, `shard_map`, `device_put`, ...); its other",
        "functions (configuration flags, debugging aids) are out of scope.",
        "",
        "| module | present | of | coverage | out of scope |",
        "|---|---|---|---|---|",
    ]
    for label, present, counted, skipped in summary:
        lines.append(f"| {label} | {present} | {counted} | {percent(present, counted)} | "
                     f"{skipped} |")
    for label, namespace, rows in sections:
        lines += ["", f"## {label}", "", f"jx's namespace: `{namespace}`.", "",
                  "| module | name | status | jx |", "|---|---|---|---|"]
        lines += [f"| {label} | {name} | {status} | {note} |" for name, status, note in rows]
    path = os.path.join(ROOT, "docs", "api-coverage.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    for label, present, counted, skipped in summary:
        print(f"{label}: {present}/{counted} ({percent(present, counted)}), "
              f"{skipped} out of scope")
    return 0


if __name__ == "__main__":
    sys.exit(main())
