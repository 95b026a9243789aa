"""The W4 MLP written once for any scalar engine (torchlight.scalar, micrograd).

The engine enters through `make_param` (a float to a differentiable node) and
`tanh` (a node to a node); the rest is `+`, `-` and `*` on nodes and floats,
neuron by neuron as micrograd's own `nn.Neuron` computes `sum(w*x) + b`.

Example:
    >>> from torchlight import scalar
    >>> from bench.workloads import w4_data
    >>> d = w4_data()
    >>> p = mlp_params(d, scalar.variable)
    >>> mlp_loss(p, d, lambda v: v.tanh()).data > 0
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

LAYERS = ("1", "2", "3")


def mlp_params(d: dict, make_param: Callable[[float], Any]) -> dict[str, list]:
    """W1..W3 as nested lists [n_in][n_out] and b1..b3 as lists of nodes."""
    params: dict[str, list] = {}
    for i in LAYERS:
        params["W" + i] = [[make_param(float(v)) for v in row] for row in d["W" + i]]
        params["b" + i] = [make_param(float(v)) for v in d["b" + i]]
    return params


def _layer(inputs: list, W: list, b: list, act: Callable[[Any], Any] | None) -> list:
    out = []
    for j, bias in enumerate(b):
        s = bias
        for i, xi in enumerate(inputs):
            s = s + W[i][j] * xi
        out.append(act(s) if act else s)
    return out


def mlp_loss(params: dict[str, list], d: dict, tanh: Callable[[Any], Any]) -> Any:
    """Summed squared error of the 2-16-16-1 tanh MLP over the 64 samples."""
    loss = 0.0
    for x, y in zip(d["X"].tolist(), d["Y"].tolist()):
        h = _layer(x, params["W1"], params["b1"], tanh)
        h = _layer(h, params["W2"], params["b2"], tanh)
        (out,) = _layer(h, params["W3"], params["b3"], None)
        diff = out - y[0]
        loss = diff * diff + loss
    return loss


def param_grads(params: dict[str, list]) -> dict[str, np.ndarray]:
    """The `.grad` of every parameter node, as arrays shaped like the data."""
    return {k: np.array([[v.grad for v in row] for row in p] if k.startswith("W") else [v.grad for v in p])
            for k, p in params.items()}
