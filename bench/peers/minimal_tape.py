"""The minimal tape: the floor of a Python autograd tape, NOT a competitor.

A `Var` holds an array, its gradient, its parents and a backward closure
on raw arrays, micrograd-style with `__slots__`; `backward()` sorts the
graph with an explicit stack (W5 is 100,000 deep), sums gradients in a dict
keyed by the Var itself (it defines no `__eq__`, so it hashes by identity:
a dict keyed by `id` without the calls to `id`) and drops each closure once
run. Nothing else: no create_graph (the closures compute on raw arrays),
no checks of shapes or dtypes, no broadcasting rules, no backends, no
`requires_grad` (every Var is differentiated), no `no_grad`. Sigmoid is
`1 / (1 + exp(-x))` with no overflow guard: fine for the bench's data, but
exp(-x) overflows, with a RuntimeWarning, below x = -709 (-88 in float32).
It is a floor of time only, not of memory: each Var keeps its output array,
so until backward the graph holds every intermediate (W3: 2.3x the peak of
NumPy by hand).

It is in the bench to measure, in the same round-robin run as the others,
what the bookkeeping of a Python tape costs on this machine at the least:
one object per op forward, one closure call per op backward. A target that
asks for less time than this tape takes is out of reach of any tape built
that way, however lean its code.

Example:
    >>> import numpy as np
    >>> from bench.peers.minimal_tape import Var
    >>> x = Var(np.array([1.0, 2.0]))
    >>> (x * x * 3.0 + x).sum().backward()
    >>> x.grad.tolist()
    [7.0, 13.0]
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.peers import Case, Env, backward_case
from bench.peers.numpy_hand import host
from bench.workloads import w1_forward, w3_loss, w5_chain

Backward = Callable[[Any], tuple[Any, ...]]


def _pass_through(g: Any) -> tuple[Any, Any]:
    """The backward of `+`: both inputs get the gradient as it is (one function for every add)."""
    return g, g


class Var:
    """An array on the tape; `xp` is its array module (`on(xp)` makes one for another)."""

    __slots__ = ("data", "grad", "parents", "backward_fn")
    xp: Any = np

    def __init__(self, data: Any, parents: tuple[Var, ...] = (), backward_fn: Backward | None = None) -> None:
        self.data, self.grad, self.parents, self.backward_fn = data, None, parents, backward_fn

    def __add__(self, other: Var) -> Var:
        return type(self)(self.data + other.data, (self, other), _pass_through)

    def __mul__(self, other: Var | float) -> Var:
        a = self.data
        if type(other) is not type(self):
            return type(self)(a * other, (self,), lambda g: (g * other,))
        b = other.data
        return type(self)(a * b, (self, other), lambda g: (g * b, g * a))

    def __neg__(self) -> Var:
        return type(self)(-self.data, (self,), lambda g: (-g,))

    def tanh(self) -> Var:
        y = self.xp.tanh(self.data)
        return type(self)(y, (self,), lambda g: (g * (1.0 - y * y),))

    def exp(self) -> Var:
        y = self.xp.exp(self.data)
        return type(self)(y, (self,), lambda g: (g * y,))

    def sigmoid(self) -> Var:
        y = 1.0 / (1.0 + self.xp.exp(-self.data))
        return type(self)(y, (self,), lambda g: (g * (y * (1.0 - y)),))

    def sum(self) -> Var:
        shape, xp = self.data.shape, self.xp
        return type(self)(xp.sum(self.data), (self,), lambda g: (xp.broadcast_to(g, shape),))

    def backward(self) -> None:
        """Add d self / d leaf into every leaf's `.grad`; frees the graph as it goes."""
        order, seen, stack = [], set(), [(self, False)]
        while stack:  # post-order depth-first walk: each Var after all its parents
            v, emit = stack.pop()
            if emit:
                order.append(v)
            elif v not in seen:
                seen.add(v)
                stack.append((v, True))
                for p in v.parents:
                    if p not in seen:
                        stack.append((p, False))
        grads = {self: self.xp.ones_like(self.data)}
        for v in reversed(order):
            g = grads.pop(v)
            if v.backward_fn is None:
                v.grad = g if v.grad is None else v.grad + g
                continue
            for p, gp in zip(v.parents, v.backward_fn(g)):
                grads[p] = grads[p] + gp if p in grads else gp
            v.parents = v.backward_fn = None


@functools.cache
def on(xp: Any) -> type[Var]:
    """The Var class whose ops run on array module `xp` (NumPy's is `Var` itself)."""
    return Var if xp is np else type("Var", (Var,), {"__slots__": (), "xp": xp})


#: workload -> (leaf names, the loss shared with torch and torchlight in bench.workloads)
_LOSSES = {"W1": ("xwb", w1_forward), "W3": ("xw", w3_loss), "W5": ("x", w5_chain)}


def make(key: str, data: dict, env: Env) -> Case:
    """The minimal tape's case of W1, W3 or W5 (0-d arrays for W5, like torchlight's 0-d case)."""
    names, loss = _LOSSES[key]
    var = on(env.xp)
    return backward_case({k: var(env.xp.asarray(data[k])) for k in names}, loss, host)
