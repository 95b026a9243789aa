"""torchlight: Tensors on the NumPy (or CuPy) backend, and `torchlight.scalar` Values.

Written as a user writes it: public API only, gradients from `backward()`.

Example:
    >>> from bench.peers import Env
    >>> from bench.peers.torchlight_peer import make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env()).grads())
    ['b', 'w', 'x']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from bench.peers import Case, Env
from bench.peers.scalar_mlp import mlp_loss, mlp_params, param_grads
from bench.workloads import W2_LR, w1_forward, w3_loss, w5_chain, w6_loss
from torchlight import scalar


def _leaves(d: dict, names: str | tuple[str, ...], env: Env) -> list[tl.Tensor]:
    return [tl.tensor(env.xp.asarray(d[k]), requires_grad=True, backend=env.backend) for k in names]


def _grads(named: dict[str, tl.Tensor]) -> dict[str, np.ndarray]:
    return {k: t.grad.numpy() for k, t in named.items()}


def _clear(*tensors: tl.Tensor) -> None:
    for t in tensors:
        t.grad = None


def w1(d: dict, env: Env) -> Case:
    x, w, b = _leaves(d, "xwb", env)

    def run() -> None:
        _clear(x, w, b)
        w1_forward(x, w, b).backward()

    return Case(run, lambda: (run(), _grads({"x": x, "w": w, "b": b}))[1])


def w2(d: dict, env: Env) -> Case:
    names = ("W1", "b1", "W2", "b2", "W3", "b3")
    X = tl.tensor(env.xp.asarray(d["X"]), backend=env.backend)
    key = (env.xp.arange(d["X"].shape[0]), env.xp.asarray(d["y"]))

    def loss(W1: Any, b1: Any, W2: Any, b2: Any, W3: Any, b3: Any) -> tl.Tensor:
        h1 = (X @ W1 + b1).relu()
        h2 = (h1 @ W2 + b2).relu()
        logits = h2 @ W3 + b3
        return -logits.log_softmax(-1)[key].mean()

    params = _leaves({k: d[k].copy() for k in names}, names, env)

    def step() -> None:
        _clear(*params)
        loss(*params).backward()
        for p in params:
            p.data -= W2_LR * p.grad.data

    def grads() -> dict[str, np.ndarray]:
        fresh = _leaves(d, names, env)
        loss(*fresh).backward()
        return _grads(dict(zip(names, fresh)))

    return Case(step, grads)


def w3(d: dict, env: Env) -> Case:
    x, w = _leaves(d, "xw", env)

    def run() -> None:
        _clear(x, w)
        w3_loss(x, w).backward()

    return Case(run, lambda: (run(), _grads({"x": x, "w": w}))[1])


def w4(d: dict, env: Env) -> Case:
    """Values of `torchlight.scalar`: one node per multiply, add and tanh."""
    params = mlp_params(d, scalar.variable)

    def run() -> None:
        mlp_loss(params, d, lambda v: v.tanh()).backward()

    return Case(run, lambda: (run(), param_grads(params))[1])


def w5_scalar(d: dict, env: Env) -> Case:
    x = scalar.variable(float(d["x"]))

    def run() -> None:
        w5_chain(x).backward()

    return Case(run, lambda: (run(), {"x": np.asarray(x.grad)})[1])


def w5_tensor(d: dict, env: Env) -> Case:
    (x,) = _leaves(d, "x", env)

    def run() -> None:
        _clear(x)
        w5_chain(x).backward()

    return Case(run, lambda: (run(), _grads({"x": x}))[1])


def w6(d: dict, env: Env) -> Case:
    a, b = _leaves(d, "ab", env)

    def run() -> None:
        _clear(a, b)
        w6_loss(a, b).backward()

    return Case(run, lambda: (run(), _grads({"a": a, "b": b}))[1])


def make(key: str, data: dict, env: Env, scalar_engine: bool = False) -> Case:
    """The torchlight case of workload `key` (W5: Values or 0-d tensors)."""
    if key == "W5":
        return (w5_scalar if scalar_engine else w5_tensor)(data, env)
    return {"W1": w1, "W2": w2, "W3": w3, "W4": w4, "W6": w6}[key](data, env)
