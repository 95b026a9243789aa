"""The set entries: unique_values / unique_all / tl.unique / x.unique values (Function UniqueValues:
each occurrence gets its value's gradient) and the indices, inverse indices and counts (no gradient).

The differentiable cases draw distinct values (a repeat is a tie, where
central differences are meaningless); the `repeats` and `nans` cases check
the values alone. None runs on Dask: the number of values depends on the
data, and the functions raise there (tests/ops/test_unique.py).

Example:
    >>> from conformance.ops.sets import OPS
    >>> OPS[0].name, OPS[0].function
    ('unique_values', 'UniqueValues')
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from torchlight.ops import sets

LAZY = {"dask": "Dask: the number of unique values depends on the data; these raise (tests/ops/test_unique.py)"}

REPEATS = D.fixed([[2.0, -1.0, 2.0, 0.0], [-0.0, 3.5, -1.0, 2.0]])
NANS = D.fixed([np.nan, 1.0, np.nan, 1.0, -2.0])

VALUE_CASES = (
    Case("1d", ((6,),)),
    Case("2d", ((3, 4),)),
    Case("0d", ((),)),
    Case("empty", ((0, 3),)),
    Case("repeats", ((2, 4),), domain=REPEATS, forward_only=True, note="-0.0 and 0.0 are one value"),
    Case("nans", ((5,),), domain=NANS, ieee=True, forward_only=True, note="each NaN is its own value"),
)

INDEX_CASES = (
    Case("2d", ((3, 4),)),
    Case("repeats", ((2, 4),), domain=REPEATS),
    Case("nans", ((5,),), domain=NANS, ieee=True),
    Case("empty", ((0, 3),)),
)


def np_unique(x: np.ndarray) -> tuple:
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)


def part(call: Any, index: int) -> Any:
    return lambda x: call(x)[index]


def ref(index: int, shaped: bool = False) -> Any:
    def reference(x: np.ndarray) -> np.ndarray:
        out = np_unique(x)[index]
        return np.reshape(out, x.shape) if shaped else out

    return reference


def free_unique(x: Any) -> Any:
    return tl.unique(x, return_inverse=True, return_counts=True)


OPS: list[OpInfo] = [
    OpInfo("unique_values", sets.unique_values, ref(0), VALUE_CASES, domain=D.distinct, function="UniqueValues",
           skips=LAZY),
    OpInfo("unique_all.values", part(sets.unique_all, 0), ref(0), VALUE_CASES[:2], domain=D.distinct,
           function="UniqueValues", skips=LAZY),
    OpInfo("unique_all.indices", part(sets.unique_all, 1), ref(1), INDEX_CASES, differentiable=False,
           output_dtype="int", skips=LAZY),
    OpInfo("unique_all.inverse_indices", part(sets.unique_all, 2), ref(2, shaped=True), INDEX_CASES,
           differentiable=False, output_dtype="int", skips=LAZY),
    OpInfo("unique_all.counts", part(sets.unique_all, 3), ref(3), INDEX_CASES, differentiable=False,
           output_dtype="int", skips=LAZY),
    OpInfo("unique_counts.counts", part(sets.unique_counts, 1), ref(3), INDEX_CASES[:2], differentiable=False,
           output_dtype="int", skips=LAZY),
    OpInfo("unique_inverse.inverse_indices", part(sets.unique_inverse, 1), ref(2, shaped=True), INDEX_CASES[:2],
           differentiable=False, output_dtype="int", skips=LAZY),
    OpInfo("tl.unique", lambda x: tl.unique(x), ref(0), VALUE_CASES[:2] + VALUE_CASES[4:], domain=D.distinct,
           function="UniqueValues", skips=LAZY),
    OpInfo("tl.unique.inverse", part(free_unique, 1), ref(2, shaped=True), INDEX_CASES[:2], differentiable=False,
           output_dtype="int", skips=LAZY),
    OpInfo("tl.unique.counts", part(free_unique, 2), ref(3), INDEX_CASES[:2], differentiable=False,
           output_dtype="int", skips=LAZY),
    OpInfo("unique", lambda x, dim=None: x.unique(dim=dim), lambda x, dim=None: ref(0)(x), VALUE_CASES[:2] + (
        Case("dim", ((3, 4),), kwargs={"dim": 0}, raises=ValueError, match="unique: dim=0 is not supported"),),
        domain=D.distinct,
        method="unique", function="UniqueValues", skips=LAZY),
]
