"""One module per framework; each offers `make(workload, data, env) -> Case`.

A `Case` has `run()` (one timed repetition: forward, backward and, for W2,
the SGD update) and `grads()` (the gradients of one fresh forward+backward
as host NumPy arrays, keyed by input name) used for the agreement check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Case:
    """One framework's implementation of one workload, ready to time."""

    run: Callable[[], Any]
    grads: Callable[[], dict[str, Any]]


def backward_case(leaves: dict[str, Any], loss: Callable[..., Any], host: Callable[[Any], Any]) -> Case:
    """The Case of a workload that is `loss(*leaves).backward()` on an autograd framework.

    `run` clears the leaves' `.grad` first (so repetitions do not accumulate);
    `grads` runs once more and brings each `.grad` to the host with `host`.
    """
    tensors = list(leaves.values())

    def run() -> None:
        for t in tensors:
            t.grad = None
        loss(*tensors).backward()

    return Case(run, lambda: (run(), {k: host(t.grad) for k, t in leaves.items()})[1])


@dataclass
class Env:
    """Where the arrays live: `backend` is "numpy" (CPU) or "cupy" (GPU).

    `xp` is the array module of the hand-written reference (numpy or cupy)
    and `sync()` waits for the device so that timings are complete.
    """

    backend: str = "numpy"
    xp: Any = np
    sync: Callable[[], None] = lambda: None
