"""Golden data for printing: str(x) as NumPy prints it, beside x as .npy.

Run from the repository root: python3 tests/golden/make_format_golden.py
"""
import os

import numpy as np

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "format")
os.makedirs(out, exist_ok=True)

cases = {
    "scientific": np.array([0.1, 0.1, 5.551115123125783e-17, 4.440892098500626e-16, 0.1]),
    "wrapped_floats": np.arange(40.0) * 1.5,
    "wrapped_ints": np.arange(30),
    "summarized_2d": np.arange(2000.0).reshape(40, 50) / 7,
    "float32": (np.arange(12, dtype=np.float32) / 3).reshape(3, 4),
    "bool_2d": np.array([[True, False], [False, True]]),
    "nonfinite": np.array([np.nan, -np.inf, 1.5, 100.25]),
    "cutoff_1e8": np.array([1e8, 1.0]),
    "negative_scientific": np.array([-1e-5, 2.5e10]),
    "ints_3d": np.arange(24).reshape(2, 3, 4) - 5,
    "int64_large": np.array([2**62 + 1, -(2**62) - 3]),
    "empty_2d": np.zeros((2, 0)),
    "scalar": np.array(3.25),
    "trimmed_digits": np.array([[-0.20584214, -0.78476578, 1.8160866712], [1.2959899012, -0.04869991, -0.6316204]]),
    "trimmed_scientific": np.array([1.2959899012e-7, 3.0]),
    "float16": np.array([0.1, 1000.5, 3.14159, 1e-5], dtype=np.float16),
    "float16_fixed": np.array([[0.1, 2.5], [-3.14159, 7.0]], dtype=np.float16),
    "uint64_large": np.array([2**64 - 1, 3, 2**63], dtype=np.uint64),
    "int8": np.array([-128, 0, 127], dtype=np.int8),
    "complex128": np.array([1 + 2j, 3.5 - 4j, -0.25 + 0j]),
    "complex64_2d": (np.arange(6, dtype=np.complex64) * (0.5 - 1.25j)).reshape(2, 3),
    "complex_nonfinite": np.array([complex(np.nan, 1), complex(1, -np.inf), 2 + 0j]),
    "complex_scientific": np.array([1e-5 + 2j, 3e9 - 1j]),
    "complex_scalar": np.array(1.5 - 2j),
    "complex_scalar_imaginary": np.array(3j),
}
for name, value in cases.items():
    np.save(os.path.join(out, name + ".npy"), value)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(str(value))
