"""Utility functions: all, any, diff."""

from __future__ import annotations

from torchlight.array_api._helpers import tensor_arg
from torchlight.tensor import Tensor

__all__ = ["all", "any", "diff"]


def all(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element along `axis` is true (non-zero)."""
    return tensor_arg(x, "all").all(dim=axis, keepdim=keepdims)  # type: ignore[no-any-return]


def any(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element along `axis` is true (non-zero)."""
    return tensor_arg(x, "any").any(dim=axis, keepdim=keepdims)  # type: ignore[no-any-return]


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along `axis`, after joining `prepend`/`append` to `x`."""
    x = tensor_arg(x, "diff")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, not {n}")
    return x.diff(n=n, dim=axis, prepend=prepend, append=append)  # type: ignore[no-any-return]
