#!/usr/bin/env python3
"""Generates the tiny .npy files in tests/golden/npy/ that tests/io/test_npy.cpp reads back.

Run from anywhere: python3 tests/golden/make_npy_golden.py. The expected values are hard-coded
in the test, so keep them in sync when changing anything here.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")


def save(name, a, version=None):
    with open(os.path.join(OUT, name), "wb") as f:
        np.lib.format.write_array(f, a, version=version, allow_pickle=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    save("bool_2x3.npy", np.array([[True, False, True], [False, False, True]]))
    save("int32_4.npy", np.array([1, -2, 2**31 - 1, -(2**31)], dtype="<i4"))
    save("int64_2x2.npy", np.array([[1, -1], [2**62, -(2**63)]], dtype="<i8"))
    save("float32_3.npy", np.array([0.5, -1.25, 3.0e38], dtype="<f4"))
    save("float64_2x3.npy", np.array([[0.0, 0.1, -2.5], [1e300, -1e-300, 42.0]], dtype="<f8"))
    save("scalar_f8.npy", np.array(3.25))
    save("empty_f8_0x3.npy", np.zeros((0, 3)))
    # Column-major on disk; values are 0..23 in C order once transposed.
    save("fortran_i4_2x3x4.npy", np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4)))
    save("bigendian_f8.npy", np.array([1.0, -2.5, 1e300], dtype=">f8"))
    save("bigendian_i4.npy", np.array([1, -2, 0x01020304], dtype=">i4"))
    save("v2_f4.npy", np.array([1.5, 2.5], dtype="<f4"), version=(2, 0))
    save("v3_i8.npy", np.array([7, -8], dtype="<i8"), version=(3, 0))
    # Unsupported dtypes.
    save("complex128.npy", np.array([1 + 2j]))
    save("unicode_U3.npy", np.array(["abc"]))
    save("float16.npy", np.array([1.0], dtype="<f2"))


if __name__ == "__main__":
    main()
