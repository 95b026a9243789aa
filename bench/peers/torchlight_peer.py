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

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import torchlight as tl
from bench.peers import Case, Env, backward_case
from bench.peers.scalar_mlp import mlp_loss, mlp_params, param_grads
from bench.workloads import W2_LR, w1_forward, w3_loss, w5_chain, w6_loss
from torchlight import scalar


def _leaves(d: dict, names: str | tuple[str, ...], env: Env) -> list[tl.Tensor]:
    return [tl.tensor(env.xp.asarray(d[k]), requires_grad=True, backend=env.backend) for k in names]


def _case(d: dict, names: str, env: Env, loss: Any) -> Case:
    return backward_case(dict(zip(names, _leaves(d, names, env))), loss, lambda g: g.numpy())


def w2_loss(X: tl.Tensor, y: tl.Tensor, W1: tl.Tensor, b1: tl.Tensor, W2: tl.Tensor, b2: tl.Tensor,
            W3: tl.Tensor, b3: tl.Tensor) -> tl.Tensor:
    """W2's loss: two ReLU layers and a linear one, softmax cross-entropy against the labels `y`."""
    linear = tl.nn.functional.linear
    h1 = linear(X, W1, b1).relu()
    h2 = linear(h1, W2, b2).relu()
    return tl.nn.functional.cross_entropy(linear(h2, W3, b3), y)


def w2(d: dict, env: Env, loss: Callable[..., tl.Tensor] = w2_loss) -> Case:
    """The SGD step around `loss(X, y, *params)` (`w2_loss`, or that compiled)."""
    names = ("W1", "b1", "W2", "b2", "W3", "b3")
    X = tl.tensor(env.xp.asarray(d["X"]), backend=env.backend)
    y = tl.tensor(env.xp.asarray(d["y"]), backend=env.backend)
    params = _leaves({k: d[k].copy() for k in names}, names, env)

    def step() -> None:
        for p in params:
            p.grad = None
        loss(X, y, *params).backward()
        for p in params:
            p.data -= W2_LR * p.grad.data

    return Case(step, _case(d, names, env, functools.partial(loss, X, y)).grads)


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


#: workloads that are one loss and its backward: (leaf names, loss)
_BACKWARD_ONLY = {"W1": ("xwb", w1_forward), "W3": ("xw", w3_loss), "W5": ("x", w5_chain), "W6": ("ab", w6_loss)}
#: the loss of each workload on Tensors, as `make` runs it (W5: on 0-d tensors)
LOSSES: dict[str, Callable[..., tl.Tensor]] = {"W2": w2_loss, **{k: v[1] for k, v in _BACKWARD_ONLY.items()}}


def make(key: str, data: dict, env: Env, scalar_engine: bool = False,
         loss: Callable[..., tl.Tensor] | None = None) -> Case:
    """The torchlight case of workload `key` (W5: Values or 0-d tensors).

    `loss` replaces `LOSSES[key]` (a compiled form of it, as bench.peers.compiled_peer gives).
    """
    if key in _BACKWARD_ONLY and not (key == "W5" and scalar_engine):
        names, eager = _BACKWARD_ONLY[key]
        return _case(data, names, env, loss or eager)
    if key == "W2":
        return w2(data, env, loss or w2_loss)
    return {"W4": w4, "W5": w5_scalar}[key](data, env)
