"""The comparison entries: < <= > >= == != and the mask operators & | ^ ~ (no Function: no gradient).

Each checks the value and its bool dtype only (`differentiable=False`).

Example:
    >>> from conformance.ops.comparisons import OPS
    >>> len(OPS), OPS[0].name, OPS[0].output_dtype
    (13, '__lt__', 'bool')
"""

from __future__ import annotations

import operator
from typing import Any

from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import UNARY

COMPARE_CASES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (4,))),
    Case("ties", ((4,), (4,)), domain=(D.fixed([1.0, 2.0, 3.0, 4.0]), D.fixed([1.0, 0.0, 3.0, 5.0]))),
    Case("number", ((3, 4),), kwargs={"number": 0.25}),
)


def comparison(name: str, fn: Any) -> OpInfo:
    errors = (Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="(2, 3) and (4,)"),)
    return OpInfo(name, lambda a, b=None, number=None: fn(a, b if number is None else number),
                  lambda a, b=None, number=None: fn(a, b if number is None else number),
                  COMPARE_CASES + errors, method=name, differentiable=False, output_dtype="bool")


def mask_op(name: str, fn: Any, right: bool = False) -> OpInfo:
    """`&`, `|`, `^` of masks made by comparisons (how tl.where's condition is built); `right`: the reflected dunder."""

    def masks(a: Any, b: Any = None, number: float | None = None) -> Any:
        left = a > 0.0
        other = b < 0.5 if number is None else number > 0.5  # a mask, or a Python bool
        if right:
            return fn(other, left) if number is not None else getattr(other, name)(left)
        return fn(left, other)

    return OpInfo(name, masks, masks, COMPARE_CASES, method=name, differentiable=False, output_dtype="bool")


COMPARISONS = [comparison(f"__{n}__", getattr(operator, n)) for n in ("lt", "le", "gt", "ge", "eq", "ne")]
COMPARISONS += [mask_op(f"__{r}{n}__", getattr(operator, f"{n}_" if n != "xor" else n), right=bool(r))
                for n in ("and", "or", "xor") for r in ("", "r")] + [
    OpInfo("__invert__", lambda x: ~(x > 0.0), lambda x: ~(x > 0.0), UNARY[:3], method="__invert__",
           differentiable=False, output_dtype="bool"),
]


OPS: list[OpInfo] = COMPARISONS
