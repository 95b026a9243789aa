"""The set entries: unique_values, unique_all, unique_counts, unique_inverse (Function UniqueValues), and
PyTorch's `unique` as a method and a free function.

A function that returns several arrays is checked through one Tensor: its
fields flattened, each scaled by its position, and joined (`joined`), so a
wrong value, index, inverse index or count, or a field out of place, shows;
the values part carries the gradient. Inputs are `distinct` (an index moves
when two elements swap places, a jump central differences would see); the reference is `np.unique` with
`equal_nan=False` (every NaN its own value, as the standard says). Ties
(`small_integers`) get the documented gradient: each value's split evenly
among its occurrences. The number of distinct values is data-dependent, so
Dask refuses them all (tests/ops/test_sets.py checks the refusal).

Example:
    >>> from conformance.ops.sets import OPS
    >>> sorted(op.name for op in OPS if op.method == "unique")
    ['unique']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from torchlight.ops import sets

#: why no entry here runs on Dask
LAZY = {"dask": "Dask: the number of distinct values is unknown until computed: torchlight raises a ValueError "
                "naming the function (tests/ops/test_sets.py)"}


def small_integers(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Whole numbers 0..3 (as floats): most values occur more than once."""
    return rng.integers(0, 4, shape).astype(np.float64)


WITH_NAN = D.fixed([[2.0, np.nan, -1.0], [np.nan, 2.0, 0.5]])


def joined(fields: Any) -> Any:
    """The fields of a result (a Tensor or a tuple of them), each flattened in the first one's dtype,
    times its position (1, 2, ...), joined into one Tensor (`tl.cat`, or `np.concatenate` for arrays)."""
    if not isinstance(fields, tuple):
        fields = (fields,)
    if isinstance(fields[0], np.ndarray):
        return np.concatenate([np.reshape(f, (-1,)).astype(np.float64) * (i + 1) for i, f in enumerate(fields)])
    dtype = fields[0].dtype
    return tl.cat([f.reshape(-1).astype(dtype) * float(i + 1) for i, f in enumerate(fields)])


def ref(x: np.ndarray, index: bool = False, inverse: bool = False, counts: bool = False) -> np.ndarray:
    """np.unique's fields (values first, then those asked for), joined; inverse indices shaped like x."""
    out = np.unique(x, return_index=index, return_inverse=inverse, return_counts=counts, equal_nan=False)
    return joined(out if isinstance(out, tuple) else (out,))


def spread(x: np.ndarray, **kwargs: Any) -> tuple[np.ndarray]:
    """The gradient of sum(values) for any ties: 1 / count at each element (its value's share)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
    return ((1.0 / counts)[np.reshape(inverse, x.shape)],)


def cases(**kwargs: Any) -> tuple[Case, ...]:
    """The cases every set entry runs (`kwargs` go to both sides)."""
    return (
        Case("1d", ((6,),), kwargs=kwargs),
        Case("2d", ((3, 4),), kwargs=kwargs, note="the input is flattened; inverse indices keep its shape"),
        Case("0d", ((),), kwargs=kwargs),
        Case("empty", ((0, 3),), kwargs=kwargs),
        Case("ties", ((3, 4),), domain=small_integers, kwargs=kwargs, grad_reference=spread, double_backward=False,
             note="each value's gradient split evenly among its occurrences (central differences would split "
                  "the value)"),
        Case("nan", ((2, 3),), domain=WITH_NAN, kwargs=kwargs, forward_only=True,
             note="each NaN a distinct value, sorted last"),
        Case("not_a_tensor", ((3,),), kwargs={**kwargs, "as_list": True}, raises=TypeError,
             match="expects a Tensor"),
    )


def entry(name: str, call: Any, fields: dict[str, bool], method: str | None = None,
          extra: tuple[Case, ...] = ()) -> OpInfo:
    """An entry whose call gives the joined fields of the set function `call(x, **kwargs)`."""
    def run(x: Any, as_list: bool = False, **kwargs: Any) -> Any:
        return joined(call(x.tolist() if as_list else x, **kwargs))

    def reference(x: np.ndarray, as_list: bool = False, **kwargs: Any) -> np.ndarray:
        return ref(x, **fields)

    return OpInfo(name, run, reference, cases() + extra, domain=D.distinct, method=method, function="UniqueValues",
                  skips=LAZY)


def unique_kwargs(fields: dict[str, bool]) -> dict[str, bool]:
    return {"return_inverse": fields.get("inverse", False), "return_counts": fields.get("counts", False)}


OPS: list[OpInfo] = [
    entry("unique_values", sets.unique_values, {}),
    entry("unique_all", lambda x: tuple(sets.unique_all(x)), {"index": True, "inverse": True, "counts": True}),
    entry("unique_counts", lambda x: tuple(sets.unique_counts(x)), {"counts": True}),
    entry("unique_inverse", lambda x: tuple(sets.unique_inverse(x)), {"inverse": True}),
    OpInfo("unique", lambda x, **kw: joined(x.unique(**kw)),
           lambda x, return_inverse=False, return_counts=False, **kw: ref(x, inverse=return_inverse,
                                                                         counts=return_counts), (
               Case("values", ((3, 4),)),
               Case("inverse_counts", ((3, 4),), domain=small_integers,
                    kwargs={"return_inverse": True, "return_counts": True}, grad_reference=spread,
                    double_backward=False),
               Case("counts", ((5,),), kwargs={"return_counts": True}),
               Case("sorted_false", ((5,),), kwargs={"sorted": False, "return_inverse": True},
                    note="sorted all the same (an order PyTorch allows)"),
               Case("dim", ((3, 4),), kwargs={"dim": 0}, raises=ValueError, match="unique: dim=0"),
           ), domain=D.distinct, method="unique", function="UniqueValues", skips=LAZY),
    OpInfo("tl.unique", lambda x, **kw: joined(tl.unique(x, **kw)),
           lambda x, return_inverse=False, return_counts=False: ref(x, inverse=return_inverse,
                                                                    counts=return_counts), (
               Case("1d", ((6,),), domain=small_integers, kwargs={"return_inverse": True}, grad_reference=spread,
                    double_backward=False),
               Case("distinct", ((2, 3),), kwargs={"return_counts": True}),
           ), domain=D.distinct, function="UniqueValues", skips=LAZY),
]
