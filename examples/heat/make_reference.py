"""The heat example's reference: NumPy's result of the same explicit steps (heat.cpp).

Run from the repository root: python3 examples/heat/make_reference.py
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))

n, steps = 128, 1000
u = np.zeros((n, n))
u[n // 4:n // 2, n // 4:3 * n // 4] = 1.0  # a hot block
for _ in range(steps):
    p = np.pad(u, 1)
    u = u + 0.1 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u)
np.save(os.path.join(here, "heat_numpy.npy"), u)
