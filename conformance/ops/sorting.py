"""The sorting entries: sort's values (Function TakePermutation: the gradient goes back to where each
value came from) and indices, argsort (no gradient), as methods and free functions.

Example:
    >>> from conformance.ops.sorting import OPS
    >>> [op.name for op in OPS][:2]
    ['sort', 'tl.sort']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from torchlight.autograd import functions as F

SORT_CASES = (
    Case("1d", ((6,),)),
    Case("rows", ((3, 4),), kwargs={"dim": 1}),
    Case("columns_descending", ((3, 4),), kwargs={"dim": 0, "descending": True}),
    Case("batched", ((2, 3, 4),), kwargs={"dim": -2}),
    Case("0d", ((),)),
    Case("empty", ((0, 3),), kwargs={"dim": 0}),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
)


def sort_ref(x: np.ndarray, dim: int = -1, descending: bool = False) -> np.ndarray:
    if x.ndim == 0:
        return x.copy()
    out = np.sort(x, axis=dim)
    return np.flip(out, axis=dim) if descending else out


def argsort_ref(x: np.ndarray, dim: int = -1, descending: bool = False) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    return np.argsort(-x if descending else x, axis=dim, kind="stable")


TIES = Case("ties_stable", ((2, 4),), domain=D.fixed([[1.0, 0.5, 1.0, 0.5], [2.0, 2.0, -1.0, 2.0]]),
            kwargs={"dim": 1}, forward_only=True, note="equal values keep their order, ascending and descending")
TIES_DESCENDING = Case("ties_descending", ((2, 4),), domain=TIES.domain, kwargs={"dim": 1, "descending": True})
NANS = Case("nan_last", ((5,),), domain=D.fixed([1.0, np.nan, -2.0, np.nan, 0.0]), ieee=True, forward_only=True,
            note="NaNs sort last (the standard)")


def call(name: str, part: str | None, free: bool) -> Any:
    def run(x: Any, dim: int = -1, descending: bool = False) -> Any:
        out = getattr(tl, name)(x, dim, descending) if free else getattr(x, name)(dim, descending)
        return getattr(out, part) if part else out

    return run


OPS: list[OpInfo] = [
    OpInfo("sort", call("sort", "values", False), sort_ref, SORT_CASES + (TIES, NANS), domain=D.distinct,
           method="sort", function="TakePermutation"),
    OpInfo("tl.sort", call("sort", "values", True), sort_ref, SORT_CASES[:3], domain=D.distinct,
           function="TakePermutation"),
    OpInfo("sort.indices", call("sort", "indices", False), argsort_ref, SORT_CASES + (TIES, TIES_DESCENDING),
           domain=D.distinct, method="sort", differentiable=False, output_dtype="int"),
    OpInfo("argsort", call("argsort", None, False), argsort_ref, SORT_CASES + (TIES, TIES_DESCENDING),
           domain=D.distinct, method="argsort", differentiable=False, output_dtype="int"),
    OpInfo("tl.argsort", call("argsort", None, True), argsort_ref, SORT_CASES[:3], domain=D.distinct,
           differentiable=False, output_dtype="int"),
    OpInfo("TakePermutation", lambda x: F.TakePermutation.apply(x, *_reverse(x)), lambda x: x[::-1],
           (Case("reverse", ((5,),)),), function="TakePermutation"),
]


def _reverse(x: Any) -> tuple:
    n = x.shape[0]
    index = x.backend.asarray(np.arange(n - 1, -1, -1), device=x._device)
    return index, index, 0
