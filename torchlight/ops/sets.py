"""Sets: the array API's `unique_values`, `unique_counts`, `unique_inverse`, `unique_all`, and PyTorch's
`unique` built on them.

Each returns the standard's named tuple of Tensors (`UniqueAllResult`,
`UniqueCountsResult`, `UniqueInverseResult`; `unique_values` the values
alone): the distinct values of the flattened input, sorted ascending (NaNs
last, each NaN a value of its own, as the standard says, since NaN != NaN;
-0.0 and 0.0 are one value). `indices` (the first occurrence of each value
in the flattened input), `inverse_indices` (shaped like the input: the
position of each element's value) and `counts` are constants of the
backend's default integer dtype.

The values carry gradients. Each distinct value stands for all of its
occurrences, so its gradient is split evenly among them (the convention of
`max` at ties): moving every copy of a value by t moves the value by t, so
the occurrences' gradients sum to the value's. Written as Tensor ops (the
value's gradient divided by its count, gathered by the inverse indices; the
gather's backward is a scatter-add by them), so it differentiates again.

The number of distinct values is only known from the data, so a lazy
backend (Dask) raises a ValueError naming the function instead of
computing early (the standard's "data-dependent shapes" capability).

Example:
    >>> import torchlight as tl
    >>> from torchlight.ops.sets import unique_counts
    >>> x = tl.tensor([3.0, 1.0, 3.0, 3.0], requires_grad=True)
    >>> values, counts = unique_counts(x)
    >>> values.tolist(), counts.tolist()
    ([1.0, 3.0], [1, 3])
    >>> (values * tl.tensor([1.0, 6.0])).sum().backward()
    >>> x.grad.tolist()
    [2.0, 1.0, 2.0, 2.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from torchlight.engine import Context, Function
from torchlight.ops.common import _const
from torchlight.ops.indexing import Gather

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

__all__ = ["UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult", "UniqueValues", "unique",
           "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    """`unique_all`'s result (the standard's field names)."""

    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    """`unique_counts`'s result."""

    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    """`unique_inverse`'s result."""

    values: Tensor
    inverse_indices: Tensor


class UniqueValues(Function):
    """The distinct values of `x` (computed by `unique_all`, passed in as `values`).

    The backward gives each element its value's gradient divided by the
    value's count (`inverse` and `counts` are `x`'s flat inverse indices and
    the counts): a gather by the inverse indices, whose own backward is the
    scatter-add by them.
    """

    @staticmethod
    def forward(ctx: Context, x: Tensor, values: Any, inverse: Any, counts: Any) -> Any:
        ctx.save_for_backward(x.shape, inverse, counts)
        return values

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, inverse, counts = ctx.saved_tensors
        share = g / _const(g, g.backend.xp.astype(counts, g.dtype))
        return Gather.apply(share, inverse).reshape(shape), None, None, None


def _arrays(fn: str, x: Tensor) -> tuple[Any, Any, Any, Any]:
    """(values, indices, inverse_indices, counts) of `x`'s data: the library's `unique_all`, or the
    portable one where it has none; the integer arrays in the default integer dtype."""
    if not getattr(x, "_is_tensor", False):
        raise TypeError(f"{fn}: expects a Tensor, not {type(x).__name__}")
    backend = x.backend
    if backend.lazy:
        raise ValueError(
            f"{fn}: the number of distinct values is data-dependent, which the lazy backend "
            f"{backend.name!r} does not compute early (torchlight needs known shapes to route gradients); "
            "compute the values first (x.numpy()) and make a tensor of them")
    xp = backend.xp
    flat = xp.reshape(x.data, (-1,))
    try:
        values, indices, inverse, counts = xp.unique_all(flat)
    except (AttributeError, NotImplementedError):  # (torch through array_api_compat has none)
        if xp.isdtype(x.dtype, "complex floating"):
            raise TypeError(f"{fn}: complex values on the {backend.name!r} backend: its library has no "
                            "unique_all, and the standard's sort (what the portable one uses) takes real "
                            "values only") from None
        values, indices, inverse, counts = portable_unique_all(xp, flat)
    index = backend.default_int(x._device)
    indices, inverse, counts = (a if a.dtype == index else xp.astype(a, index) for a in (indices, inverse, counts))
    return values, indices, xp.reshape(inverse, (-1,)), counts


def portable_unique_all(xp: Any, flat: Any) -> tuple[Any, Any, Any, Any]:
    """`unique_all` of the 1-d `flat` in standard functions: a stable sort, a mark where each run
    of equal values starts (NaN != NaN, so every NaN starts its own), and the runs' starts.

    Example:
        >>> import numpy as np
        >>> import array_api_strict as xp
        >>> v, i, inv, c = portable_unique_all(xp, xp.asarray([2.0, 1.0, 2.0]))
        >>> [np.asarray(a).tolist() for a in (v, i, inv, c)]
        [[1.0, 2.0], [1, 0], [1, 0, 1], [1, 2]]
    """
    n = flat.shape[0]
    device = flat.device
    if n == 0:
        empty = xp.zeros((0,), dtype=xp.int64, device=device)
        return flat, empty, empty, empty
    order = xp.argsort(flat, stable=True)
    ordered = xp.take(flat, order)
    starts_run = xp.concat([xp.ones((1,), dtype=xp.bool, device=device), ordered[1:] != ordered[:-1]])
    (starts,) = xp.nonzero(starts_run)
    starts = xp.astype(starts, order.dtype)
    ends = xp.concat([starts[1:], xp.asarray([n], dtype=starts.dtype, device=device)])
    group = xp.cumulative_sum(xp.astype(starts_run, order.dtype)) - 1
    inverse = xp.take(group, xp.argsort(order, stable=True))  # (argsort of a permutation: its inverse)
    return xp.take(ordered, starts), xp.take(order, starts), inverse, ends - starts


def _values(x: Tensor, values: Any, inverse: Any, counts: Any) -> Tensor:
    return UniqueValues.apply(x, values, inverse, counts)  # type: ignore[no-any-return]


def unique_all(x: Tensor) -> UniqueAllResult:
    """The distinct values of `x` (sorted, differentiable), the index of each one's first occurrence
    in the flattened `x`, the inverse indices (shaped like `x`) and the counts.

    Example:
        >>> import torchlight as tl
        >>> r = unique_all(tl.tensor([[2.0, 1.0], [2.0, 5.0]]))
        >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
        ([1.0, 2.0, 5.0], [1, 0, 3], [[1, 0], [1, 2]], [1, 2, 1])
    """
    values, indices, inverse, counts = _arrays("unique_all", x)
    backend = x.backend
    return UniqueAllResult(_values(x, values, inverse, counts), _const(x, indices),
                           _const(x, backend.xp.reshape(inverse, x.shape)), _const(x, counts))


def unique_counts(x: Tensor) -> UniqueCountsResult:
    """The distinct values of `x` (sorted, differentiable) and how often each occurs.

    Example:
        >>> import torchlight as tl
        >>> unique_counts(tl.tensor([2, 2, 7])).counts.tolist()
        [2, 1]
    """
    values, _, inverse, counts = _arrays("unique_counts", x)
    return UniqueCountsResult(_values(x, values, inverse, counts), _const(x, counts))


def unique_inverse(x: Tensor) -> UniqueInverseResult:
    """The distinct values of `x` (sorted, differentiable) and, for each element of `x`, the index of
    its value (shaped like `x`): `values[inverse_indices]` is `x`.

    Example:
        >>> import torchlight as tl
        >>> unique_inverse(tl.tensor([5.0, 4.0, 5.0])).inverse_indices.tolist()
        [1, 0, 1]
    """
    values, _, inverse, counts = _arrays("unique_inverse", x)
    return UniqueInverseResult(_values(x, values, inverse, counts),
                               _const(x, x.backend.xp.reshape(inverse, x.shape)))


def unique_values(x: Tensor) -> Tensor:
    """The distinct values of `x`, flattened and sorted (each NaN its own), differentiable: each
    value's gradient is split evenly among its occurrences.

    Example:
        >>> import torchlight as tl
        >>> unique_values(tl.tensor([3.0, float("nan"), 3.0, float("nan")])).tolist()
        [3.0, nan, nan]
    """
    values, _, inverse, counts = _arrays("unique_values", x)
    return _values(x, values, inverse, counts)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
    """PyTorch's `torch.unique`: the distinct values (sorted; `sorted=False` gives them sorted too, an
    order PyTorch allows), with the inverse indices (shaped like `input`) and the counts when asked,
    in that order. `dim` other than None (unique slices) is refused with a ValueError.

    Example:
        >>> import torchlight as tl
        >>> values, inverse = unique(tl.tensor([4, 1, 4]), return_inverse=True)
        >>> values.tolist(), inverse.tolist()
        ([1, 4], [1, 0, 1])
    """
    if dim is not None:
        raise ValueError(f"unique: dim={dim!r} (the distinct slices along a dimension) is not supported; "
                         "only dim=None, the distinct values of the flattened tensor")
    values, _, inverse, counts = _arrays("unique", input)
    out = _values(input, values, inverse, counts)
    if not (return_inverse or return_counts):
        return out
    extra = []
    if return_inverse:
        extra.append(_const(input, input.backend.xp.reshape(inverse, input.shape)))
    if return_counts:
        extra.append(_const(input, counts))
    return (out, *extra)


class SetsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def unique(self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
               dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
        """The distinct values of this tensor (PyTorch's `x.unique`; see `torchlight.unique`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([2.0, 2.0, 1.0]).unique(return_counts=True)[1].tolist()
            [1, 2]
        """
        return unique(self, sorted, return_inverse, return_counts, dim)
