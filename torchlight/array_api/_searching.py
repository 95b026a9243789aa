"""Searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where."""

from __future__ import annotations

from typing import Any

from torchlight import array_functions
from torchlight.array_api._helpers import SCALARS, axis_tuple, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def argmax(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first maximum along `axis` (of the flattened array when None).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.argmax(xp.asarray([[1, 5, 5], [7, 0, 2]]), axis=1)
        tensor([1, 0])
    """
    return tensor_arg(x, "argmax").argmax(dim=axis, keepdim=keepdims)


def argmin(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first minimum along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.argmin(xp.asarray([3.0, 1.0, 1.0, 2.0]))
        tensor(1)
    """
    return tensor_arg(x, "argmin").argmin(dim=axis, keepdim=keepdims)


def count_nonzero(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """How many elements are not zero (not False) along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[0, 1, 2], [0, 0, 3]])
        >>> xp.count_nonzero(x), xp.count_nonzero(x, axis=1)
        (tensor(3), tensor([2, 1]))
    """
    x = tensor_arg(x, "count_nonzero")
    axes = axis_tuple(axis, x.ndim, "count_nonzero")
    out = x.count_nonzero(dim=axes)
    if keepdims:
        out = out.reshape(tuple(1 if d in axes else s for d, s in enumerate(x.shape)))
    return out  # type: ignore[no-any-return]


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    """The indices of the non-zero elements, one integer array per axis (a data-dependent shape:
    refused on a lazy backend).

    Example:
        >>> import torchlight.array_api as xp
        >>> rows, cols = xp.nonzero(xp.asarray([[0, 1], [2, 0]]))
        >>> rows, cols
        (tensor([0, 1]), tensor([1, 0]))
    """
    x = tensor_arg(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-d array has no indices (the standard leaves it undefined)")
    return tuple(x.nonzero(as_tuple=True))


def searchsorted(x1: Tensor, x2: Tensor, /, *, side: str = "left", sorter: Tensor | None = None) -> Tensor:
    """Where each of `x2` goes in the sorted 1-d `x1` ("left": before equal values, "right": after).

    Example:
        >>> import torchlight.array_api as xp
        >>> x1 = xp.asarray([1.0, 2.0, 2.0, 3.0])
        >>> xp.searchsorted(x1, xp.asarray([2.0, 2.5])), xp.searchsorted(x1, xp.asarray([2.0, 2.5]), side="right")
        (tensor([1, 3]), tensor([3, 3]))
    """
    x1, x2 = tensor_arg(x1, "searchsorted", "x1"), tensor_arg(x2, "searchsorted", "x2")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    return array_functions.searchsorted(x1, x2, side=side, sorter=sorter)  # type: ignore[no-any-return]


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    """`x1` where `condition` holds, else `x2` (scalars allowed on either side), differentiable in both.

    Example:
        >>> import torchlight.array_api as xp
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = xp.where(x > 1.5, x, 0.0)
        >>> xp.sum(y).backward()
        >>> y.tolist(), x.grad.tolist()
        ([0.0, 2.0, 3.0], [0.0, 1.0, 1.0])
    """
    condition = tensor_arg(condition, "where", "condition")
    if isinstance(x1, SCALARS) and isinstance(x2, SCALARS):
        raise TypeError("where: at least one of x1 and x2 must be an array, not two Python scalars")
    return array_functions.where(condition, x1, x2)
