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
    """The distinct values of `x`, flattened.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.unique_values(xp.asarray([3, 1, 3, 2, 1]))
        tensor([1, 2, 3])
    """
    return _call("unique_values", x)  # type: ignore[no-any-return]


def unique_counts(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, counts): the distinct values and how often each occurs.

    Example:
        >>> import torchlight.array_api as xp
        >>> values, counts = xp.unique_counts(xp.asarray([3, 1, 3, 2, 1]))
        >>> values, counts
        (tensor([1, 2, 3]), tensor([2, 1, 2]))
    """
    return _call("unique_counts", x)  # type: ignore[no-any-return]  # (the standard's named tuple)


def unique_inverse(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, inverse_indices): the distinct values and, per element of `x`, the index of its value.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([3, 1, 3, 2, 1])
        >>> values, inverse = xp.unique_inverse(x)
        >>> inverse
        tensor([2, 0, 2, 1, 0])
        >>> bool(xp.all(xp.take(values, inverse) == x))
        True
    """
    return _call("unique_inverse", x)  # type: ignore[no-any-return]  # (the standard's named tuple)


def unique_all(x: Tensor, /) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(values, indices, inverse_indices, counts).

    Example:
        >>> import torchlight.array_api as xp
        >>> import torchlight as tl
        >>> x = tl.tensor([3.0, 1.0, 3.0], requires_grad=True)
        >>> result = xp.unique_all(x)
        >>> result.values.tolist(), result.indices.tolist(), result.inverse_indices.tolist(), result.counts.tolist()
        ([1.0, 3.0], [1, 0], [1, 0, 1], [1, 2])
        >>> xp.sum(result.values).backward()
        >>> x.grad.tolist()
        [0.5, 1.0, 0.5]
    """
    return _call("unique_all", x)  # type: ignore[no-any-return]  # (the standard's named tuple)
