"""The writes entries: `x[key] = v` (Function SetItem, or a `where` for a mask), the in-place
operators (`x += y`, ...) and methods (`add_`, `copy_`, `clamp_`).

Each call writes into a copy of its first input made in the graph (`x.clone()`: a leaf that requires
grad refuses writes), so the gradients checked are those through the write: to the old values outside
the key and to the value written.

Example:
    >>> from conformance.ops.writes import OPS
    >>> [op.name for op in OPS][:3]
    ['__setitem__', '__iadd__', '__isub__']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from conformance.opinfo import Case, OpInfo
from conformance.ops.indexing import DUPLICATES, LAZY_MASK, MASK, as_key


def set_item(x: Any, v: Any, *, key: Any) -> Any:
    y = x.clone()
    y[as_key(y, key)] = v
    return y


def set_item_ref(x: np.ndarray, v: np.ndarray, *, key: Any) -> np.ndarray:
    y = x.copy()
    y[key] = v  # (NumPy: the last of duplicate 1-d indices wins, the rule torchlight keeps everywhere)
    return y


SET_CASES = (
    Case("int", ((3, 4), (4,)), kwargs={"key": 1}),
    Case("slice", ((5, 2), (3, 2)), kwargs={"key": slice(1, 4)}),
    Case("broadcast_value", ((3, 4), (4,)), kwargs={"key": slice(0, 2)}, note="the value's gradient is summed back"),
    Case("number_like_0d", ((3, 4), ()), kwargs={"key": (slice(None), 1)}),
    Case("negative_step", ((5,), (3,)), kwargs={"key": slice(None, None, -2)}),
    Case("ellipsis", ((2, 3, 4), (2, 3)), kwargs={"key": (Ellipsis, 1)}),
    Case("new_axis", ((3, 4), (1, 4)), kwargs={"key": (None, 1)}),
    Case("int_array_duplicates", ((3, 4), (3, 4)), kwargs={"key": DUPLICATES},
         note="the last write of a repeated row wins; the earlier one gets no gradient"),
    Case("int_array_axis1", ((2, 4), (2, 4)), kwargs={"key": (slice(None), np.array([3, 1, 3, 0]))}),
    Case("mask_values", ((3, 4), (6,)), kwargs={"key": MASK}, skips=LAZY_MASK),
    Case("mask_0d", ((3, 4), ()), kwargs={"key": MASK}, note="a where: no count of the mask needed (Dask too)"),
    Case("mask_rows", ((3, 4), (4,)), kwargs={"key": np.array([True, False, True])}),
    Case("only_the_value", ((3, 4), (4,)), kwargs={"key": 2}, grad=(False, True),
         note="a constant written with a value that requires grad joins the graph"),
    Case("only_the_old_values", ((3, 4), (4,)), kwargs={"key": 2}, grad=(True, False)),
    Case("empty", ((4, 2), (0, 2)), kwargs={"key": slice(2, 2)}),
    Case("shape_mismatch", ((3, 4), (3,)), kwargs={"key": 1}, raises=ValueError,
         match="__setitem__: a value of shape (3,) cannot be broadcast to the shape (4,)"),
    Case("out_of_range", ((3, 4), (4,)), kwargs={"key": 5}, raises=IndexError, match="5"),
)


def in_place(symbol: str) -> Any:
    """The call `y = x.clone(); y <symbol>= other; return y`."""
    op = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
          "**": operator.ipow, "@": operator.imatmul}[symbol]

    def call(x: Any, other: Any = None, *, number: float | None = None) -> Any:
        y = x.clone()
        y = op(y, number if other is None else other)
        return y

    return call


def in_place_ref(symbol: str) -> Any:
    op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "**": operator.pow, "@": operator.matmul}[symbol]
    return lambda x, other=None, *, number=None: op(x, number if other is None else other)


def operator_entry(symbol: str, extra: tuple[Case, ...] = ()) -> OpInfo:
    name = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "**": "pow", "@": "matmul"}[symbol]
    return OpInfo(f"__i{name}__", in_place(symbol), in_place_ref(symbol), (
        Case("same_shape", ((3, 4), (3, 4))),
        Case("broadcast_other", ((3, 4), (4,)), note="the other side's gradient is summed back"),
        Case("number", ((3, 4),), kwargs={"number": 1.5}),
        Case("only_the_other", ((3, 4), (3, 4)), grad=(False, True)),
        Case("result_would_grow", ((3,), (2, 3)), raises=ValueError,
             match=f"{symbol}=: the result has shape (2, 3), but the tensor written in place has shape (3,)"),
        *extra,
    ) if symbol not in ("**", "@") else extra, method=f"__i{name}__")


def positive(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=shape)


OPS: list[OpInfo] = [
    OpInfo("__setitem__", set_item, set_item_ref, SET_CASES, method="__setitem__", function="SetItem"),
    operator_entry("+"),
    operator_entry("-"),
    operator_entry("*"),
    OpInfo("__itruediv__", in_place("/"), in_place_ref("/"), (
        Case("same_shape", ((3, 4), (3, 4))),
        Case("number", ((3, 4),), kwargs={"number": 1.5}),
    ), domain=positive, method="__itruediv__"),
    operator_entry("**", (Case("number", ((3, 4),), kwargs={"number": 2.0}),)),
    operator_entry("@", (Case("square", ((3, 4), (4, 4))),
                         Case("not_square", ((3, 4), (4, 2)), raises=ValueError,
                              match="@=: the result has shape (3, 2)"))),
    OpInfo("add_", lambda x, y, *, alpha: x.clone().add_(y, alpha=alpha),
           lambda x, y, *, alpha: x + alpha * y, (
               Case("alpha", ((3, 4), (4,)), kwargs={"alpha": -0.5}),
           ), method="add_"),
    OpInfo("copy_", lambda x, y: x.clone().copy_(y), lambda x, y: np.broadcast_to(y, x.shape).copy(), (
        Case("broadcast", ((3, 4), (4,)), note="the old values get no gradient, the source all of it"),
    ), method="copy_"),
    OpInfo("clamp_", lambda x, *, lo, hi: x.clone().clamp_(lo, hi), lambda x, *, lo, hi: np.clip(x, lo, hi), (
        Case("both", ((3, 4),), kwargs={"lo": -0.5, "hi": 0.5}),
    ), method="clamp_"),
]
