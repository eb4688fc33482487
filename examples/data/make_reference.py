"""Reference results for the examples: NumPy's Simpson result and a corner of JAX's normal sample.

Run from the repository root: python3 examples/data/make_reference.py
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def simps(f, a, b, N):
    # N should be even
    dx = (b - a) / N
    x = np.linspace(a, b, N + 1)
    y = f(x)
    w = np.ones_like(y)
    w[2:-1:2] = 2.
    w[1::2] = 4.
    S = dx / 3 * np.einsum("i...,i...", w, y)
    return S


def funcN(x):
    return np.stack([x**(i / 10) * np.exp(-x) for i in range(200)], axis=1)


a = np.arange(0, 10, 0.1)
b = a + 0.05
np.save(os.path.join(here, "simpson_numpy.npy"), simps(funcN, a, b, 512))

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
x = jax.random.normal(jax.random.PRNGKey(0), (4096, 4096), dtype="f8")
np.save(os.path.join(here, "diff_seed_jax_corner.npy"), np.asarray(x[:4, :4]))
