"""Set functions: unique_all, unique_counts, unique_inverse, unique_values (data-dependent shapes:
refused on a lazy backend); the values carry gradients, each value's split evenly among its
occurrences (so that their sum is the value's)."""

from __future__ import annotations

from typing import Any

from torchlight.array_api._helpers import tensor_arg
from torchlight.ops import sets as _sets
from torchlight.tensor import Tensor

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]


def _call(fn: str, x: Any) -> Any:
    return getattr(_sets, fn)(tensor_arg(x, fn))


def unique_values(x: Tensor, /) -> Tensor:
    """The distinct values of `x`, flattened."""
    return _call("unique_values", x)  # type: ignore[no-any-return]


def unique_counts(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, counts): the distinct values and how often each occurs."""
    return _call("unique_counts", x)  # type: ignore[no-any-return]  # (the standard's named tuple)


def unique_inverse(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, inverse_indices): the distinct values and, per element of `x`, the index of its value."""
    return _call("unique_inverse", x)  # type: ignore[no-any-return]  # (the standard's named tuple)


def unique_all(x: Tensor, /) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(values, indices, inverse_indices, counts)."""
    return _call("unique_all", x)  # type: ignore[no-any-return]  # (the standard's named tuple)
