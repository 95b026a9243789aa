"""micrograd (Karpathy's scalar engine), the peer of `torchlight.scalar`.

The PyPI package's `Value` has no tanh; `tanh` below adds it the way
micrograd adds every op (a node with a `_backward` closure), as in its
author's lecture.

Example:
    >>> from bench.peers import Env
    >>> from bench.peers.micrograd_peer import make
    >>> from bench.workloads import w4_data
    >>> sorted(make("W4", w4_data(), Env()).grads())[:2]
    ['W1', 'W2']
"""

from __future__ import annotations

import math

import numpy as np
from micrograd.engine import Value

from bench.peers import Case, Env
from bench.peers.scalar_mlp import mlp_loss, mlp_params, param_grads
from bench.workloads import w5_chain


def tanh(v: Value) -> Value:
    t = math.tanh(v.data)
    out = Value(t, (v,), "tanh")

    def _backward() -> None:
        v.grad += (1.0 - t * t) * out.grad

    out._backward = _backward
    return out


def w4(d: dict, env: Env) -> Case:
    params = mlp_params(d, Value)
    nodes = [v for p in params.values() for v in (p if not isinstance(p[0], list) else sum(p, []))]

    def run() -> None:
        for v in nodes:
            v.grad = 0.0
        mlp_loss(params, d, tanh).backward()

    return Case(run, lambda: (run(), param_grads(params))[1])


def w5(d: dict, env: Env) -> Case:
    x = Value(float(d["x"]))

    def run() -> None:
        x.grad = 0.0
        w5_chain(x).backward()

    return Case(run, lambda: (run(), {"x": np.asarray(x.grad)})[1])


def make(key: str, data: dict, env: Env) -> Case:
    """The micrograd case of W4 or W5."""
    return {"W4": w4, "W5": w5}[key](data, env)
