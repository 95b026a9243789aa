"""Searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where."""

from __future__ import annotations

from typing import Any

from torchlight import array_functions
from torchlight.array_api._helpers import SCALARS, axis_tuple, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def argmax(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first maximum along `axis` (of the flattened array when None)."""
    return tensor_arg(x, "argmax").argmax(dim=axis, keepdim=keepdims)


def argmin(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first minimum along `axis`."""
    return tensor_arg(x, "argmin").argmin(dim=axis, keepdim=keepdims)


def count_nonzero(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """How many elements are not zero (not False) along `axis`."""
    x = tensor_arg(x, "count_nonzero")
    axes = axis_tuple(axis, x.ndim, "count_nonzero")
    out = x.count_nonzero(dim=axes)
    if keepdims:
        out = out.reshape(tuple(1 if d in axes else s for d, s in enumerate(x.shape)))
    return out  # type: ignore[no-any-return]


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    """The indices of the non-zero elements, one integer array per axis (a data-dependent shape:
    refused on a lazy backend)."""
    x = tensor_arg(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-d array has no indices (the standard leaves it undefined)")
    return tuple(x.nonzero(as_tuple=True))


def searchsorted(x1: Tensor, x2: Tensor, /, *, side: str = "left", sorter: Tensor | None = None) -> Tensor:
    """Where each of `x2` goes in the sorted 1-d `x1` ("left": before equal values, "right": after)."""
    x1, x2 = tensor_arg(x1, "searchsorted", "x1"), tensor_arg(x2, "searchsorted", "x2")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    return array_functions.searchsorted(x1, x2, side=side, sorter=sorter)  # type: ignore[no-any-return]


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    """`x1` where `condition` holds, else `x2` (scalars allowed on either side), differentiable in both."""
    condition = tensor_arg(condition, "where", "condition")
    if isinstance(x1, SCALARS) and isinstance(x2, SCALARS):
        raise TypeError("where: at least one of x1 and x2 must be an array, not two Python scalars")
    return array_functions.where(condition, x1, x2)
