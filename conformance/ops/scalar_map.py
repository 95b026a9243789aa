"""The scalar-function entries: `Backend.map`, `zip` and `reduce` over `torchlight.scalar` functions.

Functions Map, Zip and PlainPartial (the recorded backward of `map` over a
plain Python function, whose second derivative raises by design).

Example:
    >>> from conformance.ops.scalar_map import OPS
    >>> [op.name for op in OPS if op.function == "Zip"]
    ['zip_mul', 'zip_div', 'zip_pow']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import BINARY, UNARY, sigmoid_ref
from torchlight import scalar


def cube_plus(v: Any) -> Any:
    """A plain Python function (not a `torchlight.scalar` one) for `map`."""
    return v * v * v + v


def mapped(fn: Any, ref: Any, domain: Any = D.normal, **extra: Any) -> OpInfo:
    name = getattr(fn, "__name__", "fn")
    return OpInfo(f"map_{name}", lambda x: x.backend.map(fn)(x), ref, UNARY[:4], domain=domain,
                  function="Map", **extra)


def zipped(fn: Any, ref: Any, domain: Any = D.normal, **extra: Any) -> OpInfo:
    return OpInfo(f"zip_{fn.__name__}", lambda a, b: a.backend.zip(fn)(a, b), ref, BINARY[:5], domain=domain,
                  function="Zip", **extra)


def plain_partial_call(x: Any, g: Any) -> Any:
    """The recorded backward of `map(cube_plus)` at `x` for the gradient `g` (PlainPartial: linear in `g`)."""
    leaf = x.detach().requires_grad_()
    (out,) = tl.autograd.grad(leaf.backend.map(cube_plus)(leaf), leaf, g, create_graph=True)
    return out


OPS: list[OpInfo] = [
    mapped(scalar.exp, np.exp, D.bounded),
    mapped(scalar.ln, np.log, D.positive),
    mapped(scalar.tanh, np.tanh),
    mapped(scalar.sigmoid, sigmoid_ref),
    mapped(scalar.relu, lambda x: np.where(x > 0, x, 0.0), D.away_from_zero),
    mapped(cube_plus, lambda x: x ** 3 + x, double_backward=False,
           double_backward_reason="second derivatives through a plain Python function raise NotImplementedError "
                                  "by design (write it with torchlight.scalar functions)"),
    OpInfo("map_cube_plus_backward", plain_partial_call, lambda x, g: g * (3.0 * x ** 2 + 1.0), (
        Case("same_shape", ((3, 4), (3, 4)), grad=(False, True), forward_only=True,
             note="its graph reaches x, where a derivative is the plain function's second: it raises "
                  "(jvps through it, in g alone: tests/test_ops.py::test_exempt_ops_give_jvps)"),
        Case("vector", ((5,), (5,)), grad=(False, True), forward_only=True),
    ), function=("Mul", "PlainPartial")),
    zipped(scalar.mul, operator.mul),
    zipped(scalar.div, operator.truediv, D.away_from_zero),
    zipped(scalar.pow, np.power, (D.positive, D.bounded)),
    OpInfo("reduce_mul", lambda x, dim: x.backend.reduce(scalar.mul, 1.0)(x, dim),
           lambda x, dim: np.prod(x, axis=dim),
           (Case("dim1", ((3, 4),), kwargs={"dim": 1}), Case("dim0", ((2, 3),), kwargs={"dim": 0})),
           function=("Zip", "Gather")),
]
