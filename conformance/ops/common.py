"""What the category modules share: the case tables and the entry builders.

`UNARY` and `BINARY` are the shape cases of an elementwise op and a
broadcasting pair; `binary_errors` the bad inputs every broadcasting binary
op shares; `unary`/`binary` build the entry of a Tensor method or operator,
`pair` that of a free function `tl.name(a, b)` or method `a.name(b)`, `back`
that of a `*Back` Function called directly (`BACK_CASES`). `sigmoid_ref`,
`uniform` and `off_the_steps` are references and domains more than one
category uses.

Example:
    >>> import numpy as np
    >>> from conformance.ops.common import UNARY, unary
    >>> op = unary("exp", np.exp, "Exp")
    >>> op.method, op.function, [c.name for c in op.cases] == [c.name for c in UNARY]
    ('exp', 'Exp', True)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from torchlight.autograd import functions as F

UNARY = (
    Case("0d", ((),)),
    Case("1d", ((5,),)),
    Case("2d", ((3, 4),)),
    Case("batched", ((2, 3, 4),)),
    Case("empty", ((0, 3),)),
)

#: the shape cases of an elementwise function whose forward is a long formula (the special functions'
#: portable ones run tens of array ops): the same code path as UNARY's at a third of the elements, since
#: central differences cost two forwards per element
SMALL_UNARY = (
    Case("0d", ((),)),
    Case("1d", ((4,),)),
    Case("2d", ((2, 3),)),
    Case("empty", ((0, 3),)),
)


BINARY = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d_1d", ((), (4,))),
    Case("batched", ((2, 3, 4), (2, 3, 4))),
    Case("one_side_grad", ((3, 4), (3, 4)), grad=(True, False)),
    Case("empty", ((0, 3), (3,))),
    Case("number", ((3, 4),), kwargs={"number": 2.5}),
)


def binary_errors(function: str) -> tuple[Case, ...]:
    """The bad-input cases every broadcasting binary op shares."""
    return (
        Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match=f"{function}: shapes (2, 3) and (4,)",
             note="names the op and both shapes"),
        Case("two_backends", ((3,), (3,)), raises=tl.BackendError, match=f"{function}: tensors on two backends",
             other_backend=1, note="names the op and both backends, and suggests .to"),
    )


def binary(name: str, fn: Any, ref: Any, function: str, domain: Any = D.normal, right: bool = False,
           cases: tuple[Case, ...] = BINARY, **extra: Any) -> OpInfo:
    """A broadcasting binary operator; `right` calls the reflected dunder."""

    def call(a: Any, b: Any = None, number: float | None = None) -> Any:
        if number is not None:
            return fn(number, a) if right else fn(a, number)
        return getattr(b, name)(a) if right else fn(a, b)

    def reference(a: Any, b: Any = None, number: float | None = None) -> Any:
        if number is not None:
            return ref(number, a) if right else ref(a, number)
        return ref(a, b)  # b.__rsub__(a) is a - b

    return OpInfo(name, call, reference, cases + binary_errors(function), domain=domain, method=name,
                  function=function, **extra)


def unary(name: str, ref: Any, function: str, domain: Any = D.normal, cases: tuple[Case, ...] = UNARY,
          **extra: Any) -> OpInfo:
    """An elementwise Tensor method `x.name()`."""
    return OpInfo(name, lambda x: getattr(x, name)(), ref, cases, domain=domain, method=name,
                  function=function, **extra)


def complex_twins(ops: list[OpInfo], names: set[str]) -> list[OpInfo]:
    """`ops` with the entries called `names` marked `complex=True` (their gradients are right for complex
    inputs: the first cases run again with complex inputs, see `OpInfo`); a name that is not there raises."""
    missing = names - {op.name for op in ops}
    if missing:
        raise ValueError(f"complex_twins: no entries {sorted(missing)}")
    return [replace(op, complex=True) if op.name in names else op for op in ops]


def sigmoid_ref(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):
        return 1.0 / (1.0 + np.exp(-x))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def uniform(lo: float, hi: float) -> Any:
    """A domain uniform on [lo, hi] (tan away from its poles, log1p above -1)."""

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.uniform(lo, hi, shape)

    make.__name__ = f"uniform({lo}, {hi})"
    return make


def off_the_steps(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """k + u with u in [0.1, 0.4] or [0.6, 0.9]: at least 0.1 from every integer and half-integer
    (the steps of floor, ceil, trunc and round)."""
    return rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.4, shape) + 0.5 * rng.integers(0, 2, shape)


#: the shapes of a broadcasting pair of the elementwise-math area (tl.maximum, tl.atan2, ...)
PAIR_SHAPES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d", ((), ())),
    Case("one_side_grad", ((3, 4), (3, 4)), grad=(False, True)),
    Case("empty", ((0, 3), (3,))),
)


def pair_call(a: Any, b: Any = None, number: float | None = None, left: float | None = None, *, name: str,
              free: bool) -> Any:
    """`tl.name(a, b)` (free) or `a.name(b)`; `number` stands for b, `left` for a (then `a` is b)."""
    if left is not None:
        return getattr(tl, name)(left, a)
    other = number if b is None else b
    return getattr(tl, name)(a, other) if free else getattr(a, name)(other)


def pair(name: str, ref: Any, function: str, free: bool, domain: Any, extra_cases: tuple[Case, ...] = (),
         raised_as: str | None = None) -> OpInfo:
    """A broadcasting binary free function `tl.name(a, b)` or method `a.name(b)`, numbers on either side;
    errors name the op `raised_as` (an alias's errors name the function it stands for)."""
    op = raised_as or name
    number_left = (Case("number_left", ((3, 4),), kwargs={"left": 1.5}, note="tl.name(number, tensor)"),)
    cases = (
        *PAIR_SHAPES,
        Case("number", ((3, 4),), kwargs={"number": -1.5}),
        *(number_left if free else ()),
        *extra_cases,
        *binary_errors(op),
    )

    def reference(a: np.ndarray, b: Any = None, number: float | None = None, left: float | None = None) -> Any:
        return ref(left, a) if left is not None else ref(a, number if b is None else b)

    return OpInfo(f"tl.{name}" if free else name, lambda *args, **kw: pair_call(*args, name=name, free=free, **kw),
                  reference, cases, domain=domain, method=None if free else name, function=function)


BACK_CASES = (
    Case("1d", ((5,), (5,))),
    Case("2d", ((3, 4), (3, 4))),
    Case("0d", ((), ())),
    Case("grad_only", ((3,), (3,)), grad=(False, True)),
)


def back(name: str, ref: Any, domain: Any, **extra: Any) -> OpInfo:
    fn = getattr(F, name)
    return OpInfo(name, fn.apply, ref, BACK_CASES, domain=domain, function=name, **extra)
