"""Writes a golden set: each input to <out>/in_<name>.npy, each case's result to <out>/<case>.npy,
and <out>/MANIFEST.txt listing each file's dtype and shape. Shared by the make_*golden.py scripts.

A case is (name, fn) or (name, fn, jx_dtype): the result is cast to jx_dtype where jx deliberately
differs from NumPy's dtype (the manifest says so).
"""
import os
import warnings

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")


def write(out, inputs, cases, script, max_size):
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith(".npy"):
            os.remove(os.path.join(out, f))
    lines = []
    for name, a in inputs.items():
        np.save(os.path.join(out, f"in_{name}.npy"), a)
        lines.append(f"in_{name} {a.dtype} {a.shape}")
    names = set()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. the mean of an empty axis is nan
        for name, fn, *jx_dtype in cases:
            assert name not in names and name not in inputs, name
            names.add(name)
            out_value = np.asarray(fn())
            note = ""
            if jx_dtype:
                note = f" (NumPy: {out_value.dtype})"
                out_value = out_value.astype(jx_dtype[0])
            assert out_value.size <= max_size and out_value.dtype.name in DTYPES, (
                name, out_value.dtype)
            np.save(os.path.join(out, f"{name}.npy"), out_value)
            lines.append(f"{name} {out_value.dtype} {out_value.shape}{note}")
    with open(os.path.join(out, "MANIFEST.txt"), "w") as f:
        f.write(f"# file dtype shape, written by {script}\n" + "\n".join(lines) + "\n")
    print(f"{len(inputs)} inputs, {len(cases)} cases")
