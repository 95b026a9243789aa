"""Set functions: unique_all, unique_counts, unique_inverse, unique_values (data-dependent shapes:
refused on a lazy backend); the values carry gradients, each the sum over its occurrences."""

from __future__ import annotations

from typing import Any

from torchlight.array_api._helpers import tensor_arg
from torchlight.tensor import Tensor

try:
    from torchlight.ops import sets as _sets  # type: ignore[attr-defined]
except ImportError:  # the sets category is not there yet: the functions raise when called
    _sets = None

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]


def _call(fn: str, x: Any) -> Any:
    x = tensor_arg(x, fn)
    if _sets is None:
        raise NotImplementedError(f"{fn}: torchlight.ops.sets is not available in this build")
    return getattr(_sets, fn)(x)


def unique_values(x: Tensor, /) -> Tensor:
    """The distinct values of `x`, flattened."""
    return _call("unique_values", x)  # type: ignore[no-any-return]


def unique_counts(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, counts): the distinct values and how often each occurs."""
    return tuple(_call("unique_counts", x))  # type: ignore[return-value]


def unique_inverse(x: Tensor, /) -> tuple[Tensor, Tensor]:
    """(values, inverse_indices): the distinct values and, per element of `x`, the index of its value."""
    return tuple(_call("unique_inverse", x))  # type: ignore[return-value]


def unique_all(x: Tensor, /) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(values, indices, inverse_indices, counts)."""
    return tuple(_call("unique_all", x))  # type: ignore[return-value]
