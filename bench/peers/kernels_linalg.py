"""Factorizations, solves and BLAS-like loops of the kernels group (kernels.py): NumPy as NPBench
writes them, JAX as NPBench's JAX versions, inputs by bench/kernels/linalg.cpp's formulas."""
import numpy as np

try:
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # kernels.py runs NumPy alone then
    jnp = lax = None


# name: size as kernels_bench prints it, inputs, NumPy, JAX, JAX's static arguments.
KERNELS = {}
