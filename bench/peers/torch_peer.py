"""PyTorch eager (CPU, or CUDA with `--backend cupy`), written as its users write it.

Example:
    >>> from bench.peers import Env
    >>> from bench.peers.torch_peer import make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env()).grads())
    ['b', 'w', 'x']
"""

from __future__ import annotations

import numpy as np
import torch

from bench.peers import Case, Env
from bench.workloads import W2_LR, w1_forward, w3_loss, w5_chain, w6_loss


def device(env: Env) -> str:
    return "cuda" if env.backend == "cupy" else "cpu"


def _leaves(d: dict, names: str | tuple[str, ...], env: Env) -> list[torch.Tensor]:
    return [torch.tensor(d[k], device=device(env)).requires_grad_() for k in names]


def _grads(named: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {k: t.grad.detach().cpu().numpy() for k, t in named.items()}


def _clear(*tensors: torch.Tensor) -> None:
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
    X = torch.tensor(d["X"], device=device(env))
    y = torch.tensor(d["y"], device=device(env))

    def loss(W1, b1, W2, b2, W3, b3) -> torch.Tensor:  # noqa: ANN001
        h1 = torch.relu(X @ W1 + b1)
        h2 = torch.relu(h1 @ W2 + b2)
        return torch.nn.functional.cross_entropy(h2 @ W3 + b3, y)

    params = _leaves(d, names, env)

    def step() -> None:
        _clear(*params)
        loss(*params).backward()
        with torch.no_grad():
            for p in params:
                p -= W2_LR * p.grad

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


def w5(d: dict, env: Env) -> Case:
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


def make(key: str, data: dict, env: Env) -> Case:
    """The PyTorch case of workload `key` (no W4: that one is for scalar engines)."""
    return {"W1": w1, "W2": w2, "W3": w3, "W5": w5, "W6": w6}[key](data, env)
