"""JAX's jit, on its CPU build: the whole of a workload's forward and backward compiled by XLA.

`jax.jit(jax.grad(loss))` fuses an elementwise program into one loop, which
is what torchlight's compiled programs are measured against. Each case jits
its function once when made and runs it once there, so the timed rounds
are replays (as for torchlight compiled, whose recording is reported apart).

JAX takes its thread count from XLA_FLAGS when it is first imported:
`configure(threads)` sets that before the import (one thread: no
multi-threaded Eigen), so that JAX runs on the threads the other peers get.
float64 workloads (W1, W6) need JAX's x64 mode, switched on here.

Example (where JAX is installed):
    >>> from bench.peers import Env
    >>> from bench.peers.jax_peer import make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env()).grads())  # doctest: +SKIP
    ['b', 'w', 'x']
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from bench.peers import Case, Env
from bench.workloads import W1_CONSTANT, W1_OPS, W2_LR, W6_CHAIN


def configure(threads: int) -> None:
    """XLA's threads (before JAX is imported; after, it keeps the ones it started with)."""
    if "jax" not in sys.modules and "XLA_FLAGS" not in os.environ and threads == 1:
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def _jax() -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    return jax, jnp


def _w1_loss(jnp: Any) -> Any:
    steps = (lambda h, w, b: h * w, lambda h, w, b: h + b, lambda h, w, b: jnp.tanh(h),
             lambda h, w, b: jnp.exp(h), lambda h, w, b: 1.0 / (1.0 + jnp.exp(-h)),
             lambda h, w, b: h * W1_CONSTANT)

    def loss(x: Any, w: Any, b: Any) -> Any:
        h = x
        for i in range(W1_OPS):
            h = steps[i % len(steps)](h, w, b)
        return h.sum()

    return loss


def _w3_loss(jnp: Any) -> Any:
    def loss(x: Any, w: Any) -> Any:
        return (jnp.tanh(x * w) * (1.0 / (1.0 + jnp.exp(-x))) + jnp.exp(-x * x)).sum()

    return loss


def _w6_loss(jnp: Any) -> Any:
    def loss(a: Any, b: Any) -> Any:
        y = a
        for _ in range(W6_CHAIN):
            y = y @ b
        return y.sum()

    return loss


def _w2_loss(jnp: Any, X: Any, y: Any) -> Any:
    def loss(W1: Any, b1: Any, W2: Any, b2: Any, W3: Any, b3: Any) -> Any:
        h1 = jnp.maximum(X @ W1.T + b1, 0)
        h2 = jnp.maximum(h1 @ W2.T + b2, 0)
        logits = h2 @ W3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        logp = shifted - jnp.log(jnp.exp(shifted).sum(axis=1, keepdims=True))
        return -jnp.take_along_axis(logp, y[:, None], axis=1).mean()

    return loss


_LEAVES = {"W1": "xwb", "W2": ("W1", "b1", "W2", "b2", "W3", "b3"), "W3": "xw", "W6": "ab"}


def make(key: str, data: dict, env: Env) -> Case:
    """The jitted case of workload `key` (W1, W2, W3, W6; on the CPU only)."""
    if env.backend != "numpy":
        raise NotImplementedError("the JAX peer runs on its CPU build only")
    jax, jnp = _jax()
    names = _LEAVES[key]
    leaves = [jnp.asarray(data[k]) for k in names]
    if key == "W2":
        loss = _w2_loss(jnp, jnp.asarray(data["X"]), jnp.asarray(data["y"]))
    else:
        loss = {"W1": _w1_loss, "W3": _w3_loss, "W6": _w6_loss}[key](jnp)
    grad = jax.jit(jax.grad(loss, argnums=tuple(range(len(names)))))

    def grads() -> dict[str, Any]:
        return {k: np.asarray(g) for k, g in zip(names, grad(*leaves))}

    if key == "W2":
        @jax.jit
        def sgd(*params: Any) -> tuple:
            return tuple(p - W2_LR * g for p, g in zip(params, jax.grad(loss, argnums=tuple(range(6)))(*params)))

        params = list(leaves)

        def step() -> None:
            params[:] = sgd(*params)
            params[0].block_until_ready()

        step()
        return Case(step, grads)

    def run() -> None:
        for g in grad(*leaves):
            g.block_until_ready()

    run()  # the jit's compilation: not timed
    return Case(run, grads)
