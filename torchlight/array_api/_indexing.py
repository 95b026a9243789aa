"""Indexing functions: take and take_along_axis (gradients scatter back to the picked places)."""

from __future__ import annotations

from torchlight.array_api._helpers import axis_tuple, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["take", "take_along_axis"]


def take(x: Tensor, indices: Tensor, /, *, axis: int | None = None) -> Tensor:
    """The elements of `x` at `indices` (1-d integers) along `axis` (optional for a 1-d `x`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.take(xp.asarray([10, 20, 30]), xp.asarray([2, 0, 2]))
        tensor([30, 10, 30])
        >>> xp.take(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1]), axis=1)
        tensor([[2],
                [4]])
    """
    x = tensor_arg(x, "take")
    indices = tensor_arg(indices, "take", "indices")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    (axis,) = axis_tuple(axis, x.ndim, "take")
    return x.index_select(axis, indices)


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    """The elements of `x` at `indices` (of x's rank) along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[3.0, 1.0], [2.0, 4.0]])
        >>> xp.take_along_axis(x, xp.argsort(x, axis=1), axis=1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    x = tensor_arg(x, "take_along_axis")
    indices = tensor_arg(indices, "take_along_axis", "indices")
    return x.take_along_dim(indices, dim=axis)
