"""The searching entries: searchsorted and nonzero (no Function: integer results, no gradient).

Sequences are drawn sorted along their last dim (`ascending`); values hit
them exactly in the `ties` cases, where left and right differ. `nonzero`'s
result size depends on the values, so it is not run on Dask (it raises
there, tests/ops/test_sort_search_nonzero.py).

Example:
    >>> from conformance.ops.searching import OPS
    >>> [op.name for op in OPS]
    ['tl.searchsorted', 'nonzero', 'nonzero.as_tuple', 'tl.nonzero']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo


def ascending(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return np.sort(rng.standard_normal(shape), axis=-1)


def sparse(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.standard_normal(shape) * rng.integers(0, 2, shape)


SEQ = D.fixed([-1.0, 0.0, 0.0, 0.5, 2.0])
HITS = D.fixed([[0.0, 0.5, -3.0], [2.0, 3.0, -1.0]])


def searchsorted_call(seq: Any, values: Any = None, number: float | None = None, right: bool = False,
                      side: str | None = None, sorter: Any = None) -> Any:
    if sorter is not None:
        sorter = seq.backend.asarray(np.asarray(sorter), device=seq._device)
    return tl.searchsorted(seq, number if values is None else values, right=right, side=side, sorter=sorter)


def searchsorted_ref(seq: np.ndarray, values: Any = None, number: float | None = None, right: bool = False,
                     side: str | None = None, sorter: Any = None) -> np.ndarray:
    values = number if values is None else values
    if sorter is not None:
        seq = seq[np.asarray(sorter)]
    where = "right" if right or side == "right" else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=where)
    return np.stack([np.searchsorted(s, v, side=where) for s, v in zip(seq, values)])


def nonzero_ref(x: np.ndarray) -> np.ndarray:
    return np.argwhere(x)


LAZY = {"dask": "Dask: the result's size depends on the values; nonzero raises (tests/ops/test_sort_search_nonzero.py)"}

OPS: list[OpInfo] = [
    OpInfo("tl.searchsorted", searchsorted_call, searchsorted_ref, (
        Case("1d", ((6,), (3, 4)), domain=(ascending, D.normal)),
        Case("ties_left", ((5,), (2, 3)), domain=(SEQ, HITS)),
        Case("ties_right", ((5,), (2, 3)), domain=(SEQ, HITS), kwargs={"right": True}),
        Case("side_right", ((5,), (2, 3)), domain=(SEQ, HITS), kwargs={"side": "right"}),
        Case("number", ((5,),), domain=SEQ, kwargs={"number": 0.0}),
        Case("batched", ((2, 5), (2, 3)), domain=(ascending, D.normal)),
        Case("sorter", ((5,), (2, 3)), domain=(D.fixed([0.0, 0.5, 2.0, -1.0, 0.0]), HITS),
             kwargs={"sorter": np.array([3, 0, 4, 1, 2])},
             note="the sequence given unsorted, with the indices that sort it"),
        Case("empty_values", ((5,), (0,)), domain=(SEQ, D.normal)),
        Case("side_conflict", ((5,), (3,)), kwargs={"right": True, "side": "left"}, raises=ValueError,
             match="searchsorted: right=True and side='left'"),
        Case("leading_mismatch", ((2, 5), (3, 3)), raises=ValueError, match="searchsorted: values of shape (3, 3)"),
    ), differentiable=False, output_dtype="int"),
    OpInfo("nonzero", lambda x: x.nonzero(), nonzero_ref, (
        Case("1d", ((6,),), domain=sparse),
        Case("2d", ((3, 4),), domain=sparse),
        Case("3d", ((2, 3, 4),), domain=sparse),
        Case("none", ((3,),), domain=D.fixed([0.0, 0.0, -0.0])),
        Case("nan_is_nonzero", ((3,),), domain=D.fixed([0.0, np.nan, 0.0]), ieee=True),
    ), method="nonzero", differentiable=False, output_dtype="int", skips=LAZY),
    OpInfo("nonzero.as_tuple", lambda x: tl.stack(list(x.nonzero(as_tuple=True))),
           lambda x: np.stack(np.nonzero(x)), (Case("2d", ((3, 4),), domain=sparse),),
           method="nonzero", differentiable=False, output_dtype="int", skips=LAZY),
    OpInfo("tl.nonzero", lambda x: tl.nonzero(x), nonzero_ref, (Case("2d", ((3, 4),), domain=sparse),),
           differentiable=False, output_dtype="int", skips=LAZY),
]
