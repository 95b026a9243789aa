"""Utility functions: all, any, diff."""

from __future__ import annotations

from torchlight.array_api._helpers import tensor_arg
from torchlight.tensor import Tensor

__all__ = ["all", "any", "diff"]


def all(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element along `axis` is true (non-zero).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[True, False], [True, True]])
        >>> xp.all(x), xp.all(x, axis=1)
        (tensor(False), tensor([False,  True]))
    """
    return tensor_arg(x, "all").all(dim=axis, keepdim=keepdims)  # type: ignore[no-any-return]


def any(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element along `axis` is true (non-zero).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[1, 0], [0, 0]])
        >>> xp.any(x), xp.any(x, axis=1)
        (tensor(True), tensor([ True, False]))
    """
    return tensor_arg(x, "any").any(dim=axis, keepdim=keepdims)  # type: ignore[no-any-return]


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along `axis`, after joining `prepend`/`append` to `x`.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([1, 4, 9, 16])
        >>> xp.diff(x), xp.diff(x, n=2)
        (tensor([3, 5, 7]), tensor([2, 2]))
        >>> xp.diff(x, prepend=xp.asarray([0]))
        tensor([1, 3, 5, 7])
    """
    x = tensor_arg(x, "diff")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, not {n}")
    return x.diff(n=n, dim=axis, prepend=prepend, append=append)  # type: ignore[no-any-return]
