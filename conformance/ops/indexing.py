"""The indexing entries: `x[key]` (Function Gather), `GatherBack` called directly, and `where`.

Index arrays and masks are NumPy arrays in the case kwargs; `as_key` moves
them to the input's backend and device.

Example:
    >>> from conformance.ops.indexing import OPS
    >>> sorted(op.name for op in OPS if op.function == "Where")
    ['Where', 'tl.where', 'where']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins
from torchlight.autograd import functions as F


def as_key(x: Any, key: Any) -> Any:
    """An index with its NumPy arrays moved to `x`'s backend and device."""
    if isinstance(key, tuple):
        return tuple(as_key(x, k) for k in key)
    if isinstance(key, np.ndarray):
        return x.backend.asarray(key, device=x._device)
    return key


def scatter_ref(g: np.ndarray, shape: tuple, key: Any) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, key, g)
    return out


DUPLICATES = np.array([0, 2, 0])


MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


#: a lazy mask selects an unknown number of elements (torchlight raises, see DaskBackend.take_key)
LAZY_MASK = {"dask": "Dask: a boolean mask's count is unknown until computed (a nan shape): torchlight "
                     "raises an IndexError that says what to do instead (tests/test_ops.py)"}


INDEX_CASES = (
    Case("int", ((3, 4),), kwargs={"key": 1}),
    Case("slice", ((5, 2),), kwargs={"key": slice(1, 4)}),
    Case("negative_step", ((5,),), kwargs={"key": slice(None, None, -2)}),
    Case("int_and_slice", ((3, 4),), kwargs={"key": (slice(None), 2)}),
    Case("element_0d", ((3, 4),), kwargs={"key": (1, 2)}),
    Case("ellipsis", ((2, 3, 4),), kwargs={"key": (Ellipsis, 1)}),
    Case("int_array_duplicates", ((3, 4),), kwargs={"key": DUPLICATES}, note="repeated rows sum their gradients"),
    Case("int_array_axis1", ((2, 4),), kwargs={"key": (slice(None), np.array([3, 1, 3, 0]))}),
    Case("mask", ((3, 4),), kwargs={"key": MASK}, skips=LAZY_MASK),
    Case("empty_slice", ((4, 2),), kwargs={"key": slice(2, 2)}),
    Case("out_of_range", ((3, 4),), kwargs={"key": 5}, raises=IndexError, match="5"),
)


def where_call(a: Any, b: Any, cond: np.ndarray) -> Any:
    return F.Where.apply(tl.tensor(a.backend.asarray(cond, device=a._device)), a, b)


COND = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


COND_ROW = np.array([True, False, False, True])


def where_free(a: Any, b: Any = None, *, cond: np.ndarray, number: float | None = None,
               as_tensor: bool = False) -> Any:
    """`tl.where(cond, a, b)` with `cond` on `a`'s backend (a Tensor when `as_tensor`, else an array)."""
    c = a.backend.asarray(cond, device=a._device)
    return tl.where(tl.tensor(c) if as_tensor else c, a, number if b is None else b)


def where_ref(a: np.ndarray, b: np.ndarray | None = None, *, cond: np.ndarray, number: float | None = None,
              as_tensor: bool = False) -> np.ndarray:
    return np.where(cond, a, number if b is None else b)


OPS: list[OpInfo] = [
    OpInfo("__getitem__", lambda x, key: x[as_key(x, key)], lambda x, key: x[key], INDEX_CASES,
           method="__getitem__", function="Gather"),
    OpInfo("GatherBack", lambda g, shape, key: F.GatherBack.apply(g, shape, as_key(g, key)), scatter_ref, (
        Case("int_array_duplicates", ((3, 4),), kwargs={"shape": (3, 4), "key": DUPLICATES}),
        Case("slice", ((2, 4),), kwargs={"shape": (5, 4), "key": slice(1, 3)}),
        Case("mask", ((6,),), kwargs={"shape": (3, 4), "key": MASK}, skips=LAZY_MASK),
    ), function="GatherBack"),
    OpInfo("Where", where_call, lambda a, b, cond: np.where(cond, a, b), (
        Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": MASK}),
        Case("broadcast", ((3, 1), (4,)), kwargs={"cond": MASK}),
        Case("one_side_grad", ((3, 4), (3, 4)), kwargs={"cond": MASK}, grad=(False, True)),
    ), function="Where"),
    OpInfo("tl.where", where_free, where_ref, (
        Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": COND}),
        Case("broadcast", ((3, 1), (4,)), kwargs={"cond": COND}, note="each side's gradient is summed back"),
        Case("condition_broadcasts", ((3, 4), (3, 4)), kwargs={"cond": COND_ROW}),
        Case("condition_tensor", ((3, 4), (3, 4)), kwargs={"cond": COND, "as_tensor": True}),
        Case("number", ((3, 4),), kwargs={"cond": COND, "number": 0.5}),
        Case("0d", ((), ()), kwargs={"cond": np.array(True)}),
        Case("empty", ((0, 3), (3,)), kwargs={"cond": np.zeros((0, 3), dtype=bool)}),
        Case("one_side_grad", ((3, 4), (3, 4)), kwargs={"cond": COND}, grad=(False, True)),
        Case("shape_mismatch", ((3, 4), (3, 4)), kwargs={"cond": COND_ROW[:3]}, raises=ValueError,
             match="where: the shapes of condition (3,), input (3, 4) and other (3, 4)"),
        Case("float_condition", ((3,), (3,)), kwargs={"cond": np.array([1.0, 0.0, 1.0], dtype=np.float32)},
             raises=TypeError, match="where: the condition must be boolean",
             note="float32: the no_float64 device holds it too"),
        Case("two_backends", ((3,), (3,)), kwargs={"cond": COND_ROW[:3]}, raises=tl.BackendError,
             match="where: tensors on two backends", other_backend=1),
    ), method=None, function="Where"),
    OpInfo("where", lambda a, b=None, *, cond, number=None: a.where(a.backend.asarray(cond, device=a._device),
                                                                    number if b is None else b),
           lambda a, b=None, *, cond, number=None: np.where(cond, a, number if b is None else b), (
               Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": COND}),
               Case("broadcast", ((3, 1), (4,)), kwargs={"cond": COND}),
               Case("number", ((3, 4),), kwargs={"cond": COND, "number": -1.0}),
           ), method="where", function="Where"),
]


def _index(x: Any, index: Any) -> Any:
    """A NumPy index moved to `x`'s backend and device; a float one is passed as it is (the op
    refuses it, and a device without float64, no_float64, could not hold the copy)."""
    if isinstance(index, np.ndarray) and index.dtype.kind in "iub":
        return x.backend.asarray(index, device=x._device)
    return index


def index_select_ref(x: np.ndarray, dim: int, index: Any) -> np.ndarray:
    return np.take(x, np.reshape(np.asarray(index), (-1,)), axis=dim)


#: an index's range is checked when a lazy value is computed, not at the call
LAZY_INDEX_CHECK = {"dask": "Dask: the range check runs when the value is computed "
                            "(tests/ops/test_index_select_take.py)"}

INDEX_SELECT_CASES = (
    Case("rows", ((3, 4),), kwargs={"dim": 0, "index": np.array([2, 0])}),
    Case("duplicates", ((3, 4),), kwargs={"dim": 1, "index": np.array([3, 1, 3, 3])},
         note="repeated indices sum their gradients"),
    Case("negative", ((2, 3, 4),), kwargs={"dim": -1, "index": np.array([-1, 0])}),
    Case("0d_index", ((3, 4),), kwargs={"dim": 0, "index": np.array(1)}),
    Case("list", ((3, 4),), kwargs={"dim": 1, "index": [0, 0]}),
    Case("empty_index", ((3, 4),), kwargs={"dim": 0, "index": np.zeros(0, dtype=np.int64)}),
    Case("out_of_range", ((3, 4),), kwargs={"dim": 0, "index": np.array([3])}, raises=IndexError,
         match="index_select: an index is out of range", skips=LAZY_INDEX_CHECK),
    Case("2d_index", ((3, 4),), kwargs={"dim": 0, "index": np.array([[0]])}, raises=IndexError, match="1-d"),
    Case("float_index", ((3, 4),), kwargs={"dim": 0, "index": np.array([0.0])}, raises=IndexError,
         match="integer dtype"),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2, "index": np.array([0])}, raises=IndexError, match="out of range"),
)

TAKE_CASES = (
    Case("flat", ((3, 4),), kwargs={"index": np.array([0, 11, 5, 5])}),
    Case("2d_index", ((3, 4),), kwargs={"index": np.array([[1, -1], [2, 2]])}),
    Case("0d", ((),), kwargs={"index": np.array(0)}),
    Case("out_of_range", ((2, 2),), kwargs={"index": np.array([4])}, raises=IndexError, match="take: an index",
         skips=LAZY_INDEX_CHECK),
)


def take_along_ref(x: np.ndarray, indices: np.ndarray, dim: Any = None) -> np.ndarray:
    if dim is None:
        return np.take_along_axis(x.reshape(-1), indices.reshape(-1), 0)
    shape = list(np.broadcast_shapes(*[tuple(np.delete(s, dim % x.ndim)) for s in (x.shape, indices.shape)]))
    xs = shape[:dim % x.ndim] + [x.shape[dim]] + shape[dim % x.ndim:]
    ix = shape[:dim % x.ndim] + [indices.shape[dim]] + shape[dim % x.ndim:]
    return np.take_along_axis(np.broadcast_to(x, xs), np.broadcast_to(indices, ix), dim)


TAKE_ALONG_CASES = (
    Case("last", ((3, 4),), kwargs={"indices": np.array([[1], [0], [3]]), "dim": 1}),
    Case("duplicates", ((3, 4),), kwargs={"indices": np.array([[0, 0, 2, 0]] * 2), "dim": 0}),
    Case("negative", ((3, 4),), kwargs={"indices": np.array([[-1], [0], [-4]]), "dim": -1}),
    Case("broadcast_input", ((1, 4),), kwargs={"indices": np.array([[1, 2], [0, 3], [3, 3]]), "dim": 1},
         note="the input's size-1 dim broadcasts against the indices (the standard's rule)"),
    Case("broadcast_indices", ((3, 4),), kwargs={"indices": np.array([[2, 0]]), "dim": 1}),
    Case("flat", ((3, 4),), kwargs={"indices": np.array([11, 0, 4])}),
    Case("ndim_mismatch", ((3, 4),), kwargs={"indices": np.array([1]), "dim": 1}, raises=ValueError,
         match="take_along_dim: indices of shape (1,) and input of shape (3, 4)"),
    Case("out_of_range", ((3, 4),), kwargs={"indices": np.array([[4]]), "dim": 1}, raises=IndexError,
         match="take_along_dim: an index", skips=LAZY_INDEX_CHECK),
)

OPS += [
    OpInfo("index_select", lambda x, dim, index: x.index_select(dim, _index(x, index)), index_select_ref,
           INDEX_SELECT_CASES, method="index_select", function="Gather"),
    OpInfo("tl.index_select", lambda x, dim, index: tl.index_select(x, dim, tl.tensor(_index(x, index))),
           index_select_ref, INDEX_SELECT_CASES[:3], function="Gather"),
    OpInfo("take", lambda x, index: x.take(_index(x, index)), lambda x, index: np.take(x, index), TAKE_CASES,
           method="take", function="Gather"),
    OpInfo("tl.take", lambda x, index: tl.take(x, tl.tensor(_index(x, index))), lambda x, index: np.take(x, index),
           TAKE_CASES[:2], function="Gather"),
    OpInfo("take_along_dim", lambda x, indices, dim=None: x.take_along_dim(_index(x, indices), dim), take_along_ref,
           TAKE_ALONG_CASES, method="take_along_dim", function="TakeAlongAxis"),
    OpInfo("tl.take_along_dim",
           lambda x, indices, dim=None: tl.take_along_dim(x, tl.tensor(_index(x, indices)), dim), take_along_ref,
           TAKE_ALONG_CASES[:4], function="TakeAlongAxis"),
]
# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"__getitem__"})
