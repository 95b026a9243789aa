"""PyTorch eager (CPU, or CUDA with `--backend cupy`), written as its users write it.

Example:
    >>> from bench.peers import Env
    >>> from bench.peers.torch_peer import make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env()).grads())
    ['b', 'w', 'x']
"""

from __future__ import annotations

from typing import Any

import torch

from bench.peers import Case, Env, backward_case
from bench.workloads import W2_LR, w1_forward, w3_loss, w5_chain, w6_loss


def device(env: Env) -> str:
    return "cuda" if env.backend == "cupy" else "cpu"


def _leaves(d: dict, names: str | tuple[str, ...], env: Env) -> list[torch.Tensor]:
    return [torch.tensor(d[k], device=device(env)).requires_grad_() for k in names]


def _case(d: dict, names: str | tuple[str, ...], env: Env, loss: Any) -> Case:
    return backward_case(dict(zip(names, _leaves(d, names, env))), loss, lambda g: g.detach().cpu().numpy())


def w2(d: dict, env: Env, compiled: bool = False) -> Case:
    names = ("W1", "b1", "W2", "b2", "W3", "b3")
    X = torch.tensor(d["X"], device=device(env))
    y = torch.tensor(d["y"], device=device(env))

    def loss(W1, b1, W2, b2, W3, b3) -> torch.Tensor:  # noqa: ANN001
        linear = torch.nn.functional.linear
        h1 = torch.relu(linear(X, W1, b1))
        h2 = torch.relu(linear(h1, W2, b2))
        return torch.nn.functional.cross_entropy(linear(h2, W3, b3), y)

    if compiled:
        loss = torch.compile(loss)
    params = _leaves(d, names, env)

    def step() -> None:
        for p in params:
            p.grad = None
        loss(*params).backward()
        with torch.no_grad():
            for p in params:
                p -= W2_LR * p.grad

    return Case(step, _case(d, names, env, loss).grads)


#: workloads that are one loss and its backward: (leaf names, loss)
_BACKWARD_ONLY = {"W1": ("xwb", w1_forward), "W3": ("xw", w3_loss), "W5": ("x", w5_chain), "W6": ("ab", w6_loss)}


def make(key: str, data: dict, env: Env, compiled: bool = False) -> Case:
    """The PyTorch case of workload `key` (no W4: that one is for scalar engines); with `compiled`,
    its loss through `torch.compile`, compiled here by one run that is not timed."""
    if key == "W2":
        case = w2(data, env, compiled)
    else:
        names, loss = _BACKWARD_ONLY[key]
        case = _case(data, names, env, torch.compile(loss) if compiled else loss)
    if compiled:
        case.run()
    return case


def make_compiled(key: str, data: dict, env: Env) -> Case:
    return make(key, data, env, compiled=True)
