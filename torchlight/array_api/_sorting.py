"""Sorting functions: sort (values, differentiable) and argsort (indices)."""

from __future__ import annotations

from torchlight.array_api._helpers import tensor_arg
from torchlight.tensor import Tensor

__all__ = ["argsort", "sort"]


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """`x` sorted along `axis` (the values; the gradient goes back to where each came from)."""
    values, _ = tensor_arg(x, "sort").sort(dim=axis, descending=descending, stable=stable)
    return values  # type: ignore[no-any-return]


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The indices that sort `x` along `axis`."""
    return tensor_arg(x, "argsort").argsort(  # type: ignore[no-any-return]
        dim=axis, descending=descending, stable=stable)
