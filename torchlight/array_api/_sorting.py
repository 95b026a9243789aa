"""Sorting functions: sort (values, differentiable) and argsort (indices)."""

from __future__ import annotations

from torchlight.array_api._helpers import tensor_arg
from torchlight.tensor import Tensor

__all__ = ["argsort", "sort"]


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """`x` sorted along `axis` (the values; the gradient goes back to where each came from).

    Example:
        >>> import torchlight.array_api as xp
        >>> import torchlight as tl
        >>> x = tl.tensor([3.0, 1.0, 2.0], requires_grad=True)
        >>> y = xp.sort(x, descending=True)
        >>> xp.sum(y * xp.asarray([1.0, 2.0, 3.0])).backward()
        >>> y.tolist(), x.grad.tolist()
        ([3.0, 2.0, 1.0], [1.0, 3.0, 2.0])
    """
    values, _ = tensor_arg(x, "sort").sort(dim=axis, descending=descending, stable=stable)
    return values  # type: ignore[no-any-return]


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The indices that sort `x` along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.argsort(xp.asarray([3.0, 1.0, 2.0]))
        tensor([1, 2, 0])
        >>> xp.argsort(xp.asarray([3.0, 1.0, 2.0]), descending=True)
        tensor([0, 2, 1])
    """
    return tensor_arg(x, "argsort").argsort(  # type: ignore[no-any-return]
        dim=axis, descending=descending, stable=stable)
