#!/usr/bin/env python3
"""Writes tests/golden/random_keys/: jax.random's results for keys as arrays, for
tests/random/test_random_keys.cpp.

Each sampler below (one function of a single key) is written three ways:
  <name>.npy        f(PRNGKey(SEED))
  <name>__vmap.npy  jax.vmap(f)(jax.random.split(PRNGKey(SEED), 8)): a batch of keys
  <name>__loop.npy  a fori_loop over i in [0, 4) writing f(fold_in(PRNGKey(SEED), i)) to row i
                    (a traced loop index folded into the key)
  <name>__carry.npy a fori_loop carrying the key: key, sub = split(key); row i is f(sub)
The inputs the samplers read (in_<name>.npy) are written too. The C++ test runs each sampler eagerly, under jit with the key as an argument, over the batch of
keys with vmap and scan, and in the two loops, and compares bits.

Run with the project's venv: /opt/jx-venv/bin/python tests/golden/make_random_keys_golden.py
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_io  # noqa: E402

jax.config.update("jax_enable_x64", True)
# jx implements the partitionable threefry counter layout, the default of this JAX.
assert jax.config.jax_threefry_partitionable, "expected jax_threefry_partitionable=True"

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_keys")
SEED = 1234
STEPS = 4
BATCH = 8

r = jax.random
f16, bf16, f32, f64 = jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64

LOGITS = np.log(np.array([[0.1, 0.2, 0.3, 0.15, 0.05, 0.2],
                          [0.5, 0.1, 0.1, 0.1, 0.1, 0.1],
                          [0.01, 0.01, 0.01, 0.01, 0.01, 0.95],
                          [0.2, 0.2, 0.2, 0.2, 0.1, 0.1]]))
P = np.array([0.1, 0.0, 0.3, 0.05, 0.25, 0.3])
X2D = np.arange(12.0).reshape(3, 4)

# name -> f(key). Mirrored by name in tests/random/test_random_keys.cpp.
SAMPLERS = {
    "split_5": lambda k: r.split(k, 5),
    "split_2x3": lambda k: r.split(k, (2, 3)),
    "fold_in_123": lambda k: r.fold_in(k, 123),
    "fold_in_max": lambda k: r.fold_in(k, 2**32 - 1),
    "bits_u32": lambda k: r.bits(k, (3, 5), jnp.uint32),
    "bits_u64": lambda k: r.bits(k, (7,), jnp.uint64),
    "bits_u16": lambda k: r.bits(k, (9,), jnp.uint16),
    "bits_u8": lambda k: r.bits(k, (2, 5), jnp.uint8),
    "uniform_f32": lambda k: r.uniform(k, (4, 5), f32),
    "uniform_f64": lambda k: r.uniform(k, (4, 5), f64),
    "uniform_f16": lambda k: r.uniform(k, (11,), f16),
    "uniform_bf16": lambda k: r.uniform(k, (11,), bf16),
    "uniform_range_f32": lambda k: r.uniform(k, (9,), f32, -3.3, 5.7),
    "uniform_range_f64": lambda k: r.uniform(k, (9,), f64, -3.3, 5.7),
    "uniform_range_f16": lambda k: r.uniform(k, (9,), f16, -3.3, 5.7),
    "uniform_range_bf16": lambda k: r.uniform(k, (9,), bf16, -3.3, 5.7),
    "uniform_bounds_f64": lambda k: r.uniform(k, (2, 3), f64, jnp.array([0.0, 1.0, 2.0]),
                                               jnp.array([[1.0], [5.0]])),
    "normal_f32": lambda k: r.normal(k, (4, 5), f32),
    "normal_f64": lambda k: r.normal(k, (4, 5), f64),
    "normal_f16": lambda k: r.normal(k, (7,), f16),
    "normal_bf16": lambda k: r.normal(k, (7,), bf16),
    "randint_i32": lambda k: r.randint(k, (3, 4), 0, 10, jnp.int32),
    "randint_i64": lambda k: r.randint(k, (10,), -5, 1000),
    "randint_u8_full": lambda k: r.randint(k, (10,), 0, 256, jnp.uint8),
    "randint_i8": lambda k: r.randint(k, (10,), -128, 127, jnp.int8),
    "randint_u32": lambda k: r.randint(k, (10,), 3, 4000000000, jnp.uint32),
    "randint_empty_range": lambda k: r.randint(k, (5,), 7, 3),
    "randint_bounds": lambda k: r.randint(k, (2, 4), jnp.array([0, 10, 20, 30]),
                                          jnp.array([[5], [100]])),
    "bernoulli_f64": lambda k: r.bernoulli(k, 0.3, (10,)),
    "bernoulli_p_f32": lambda k: r.bernoulli(k, jnp.array([0.0, 0.1, 0.5, 0.9, 1.0], f32)),
    "bernoulli_high": lambda k: r.bernoulli(k, 0.25, (3, 4), mode="high"),
    "exponential_f32": lambda k: r.exponential(k, (12,), f32),
    "exponential_f64": lambda k: r.exponential(k, (12,), f64),
    "gumbel_f32": lambda k: r.gumbel(k, (12,), f32),
    "gumbel_f64": lambda k: r.gumbel(k, (12,), f64),
    "gumbel_high_f64": lambda k: r.gumbel(k, (12,), f64, mode="high"),
    "truncated_normal_f32": lambda k: r.truncated_normal(k, -1.5, 2.0, (12,), f32),
    "truncated_normal_f64": lambda k: r.truncated_normal(k, -1.5, 2.0, (12,), f64),
    "truncated_normal_bounds": lambda k: r.truncated_normal(k, jnp.array([-1.0, 0.0, 1.0]), 3.0),
    "categorical": lambda k: r.categorical(k, LOGITS),
    "categorical_axis0": lambda k: r.categorical(k, LOGITS, axis=0),
    "categorical_shape": lambda k: r.categorical(k, LOGITS, shape=(3, 4)),
    "categorical_noreplace": lambda k: r.categorical(k, LOGITS, shape=(3, 4), replace=False),
    "permutation_20": lambda k: r.permutation(k, 20),
    # Past 1625 elements: two rounds of sorting by fresh random bits.
    "permutation_1700": lambda k: r.permutation(k, jnp.arange(1700, dtype=jnp.int16)),
    "permutation_rows": lambda k: r.permutation(k, X2D),
    "permutation_axis1": lambda k: r.permutation(k, X2D, axis=1),
    "permutation_independent": lambda k: r.permutation(k, X2D, axis=1, independent=True),
    "choice_int": lambda k: r.choice(k, 10, (5,)),
    "choice_array": lambda k: r.choice(k, jnp.arange(20.0) * 1.5, (3, 4)),
    "choice_axis1": lambda k: r.choice(k, X2D, (2,), axis=1),
    "choice_noreplace": lambda k: r.choice(k, 10, (6,), replace=False),
    "choice_p": lambda k: r.choice(k, 6, (8,), p=P),
    "choice_p_noreplace": lambda k: r.choice(k, 6, (3,), replace=False, p=P),
}


def loop_fold(f, key):
    first = f(key)

    def body(i, out):
        return out.at[i].set(f(r.fold_in(key, i)))

    return jax.lax.fori_loop(0, STEPS, body, jnp.zeros((STEPS,) + first.shape, first.dtype))


def loop_carry(f, key):
    first = f(key)

    def body(i, carry):
        key, out = carry
        key, sub = r.split(key)
        return key, out.at[i].set(f(sub))

    return jax.lax.fori_loop(0, STEPS, body,
                             (key, jnp.zeros((STEPS,) + first.shape, first.dtype)))[1]


def main():
    key = r.PRNGKey(SEED)
    keys = r.split(key, BATCH)
    cases = []
    for name, f in SAMPLERS.items():
        cases.append((name, lambda f=f: jax.jit(f)(key)))
        cases.append((name + "__vmap", lambda f=f: jax.vmap(f)(keys)))
        cases.append((name + "__loop", lambda f=f: jax.jit(lambda k: loop_fold(f, k))(key)))
        cases.append((name + "__carry", lambda f=f: jax.jit(lambda k: loop_carry(f, k))(key)))
    # The key constructors and fold_in of a batch of data.
    cases += [
        ("PRNGKey_0", lambda: r.PRNGKey(0)),
        ("PRNGKey_minus1", lambda: r.PRNGKey(-1)),
        ("PRNGKey_2pow40_plus3", lambda: r.PRNGKey(2**40 + 3)),
        ("key_data_key_42", lambda: r.key_data(r.key(42))),
        ("PRNGKey_vmap_seeds", lambda: jax.vmap(r.PRNGKey)(jnp.array([0, 1, -1, 2**33 + 5]))),
        ("PRNGKey_vmap_seeds_i32",
         lambda: jax.vmap(r.PRNGKey)(jnp.array([0, 1, -1, 7], jnp.int32))),
        ("fold_in_vmap_data", lambda: jax.vmap(lambda d: r.fold_in(key, d))(jnp.arange(6))),
    ]
    # NumPy's .npy has no bfloat16: those results are stored as their uint16 bits.
    def bits_of_bf16(fn):
        out = np.asarray(fn())
        return out.view(np.uint16) if out.dtype == bf16 else out

    cases = [(name, lambda fn=fn: bits_of_bf16(fn)) for name, fn in cases]
    inputs = {"logits": LOGITS, "p": P, "x2d": X2D}
    golden_io.write(OUT, inputs, cases, "tests/golden/make_random_keys_golden.py", max_size=16384)


if __name__ == "__main__":
    main()
