"""Sets: the standard's unique_values, unique_counts, unique_inverse and unique_all (their named
tuples of Tensors) and PyTorch's `unique`, built on them.

The values come sorted, each NaN distinct (as the standard says: NaN equals
nothing), -0.0 and 0.0 one value. The values differentiate: every
occurrence of a value gets that value's gradient (a gather by the inverse
indices, the transpose of summing the occurrences into their value, a
scatter-add by the inverse indices, which is the double backward); where
the input has no repeats this is the gradient of a sort. Indices, inverse
indices and counts are constants in the default integer dtype. The number
of values depends on the data, so on a lazy backend (Dask) these raise,
naming the function, rather than computing the input early.

Example:
    >>> import torchlight as tl
    >>> from torchlight.ops.sets import unique_counts
    >>> x = tl.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
    >>> values, counts = unique_counts(x)
    >>> (values * tl.tensor([1.0, 10.0, 100.0])).sum().backward()
    >>> values.tolist(), counts.tolist(), x.grad.tolist()
    ([1.0, 2.0, 3.0], [1, 1, 2], [100.0, 1.0, 100.0, 10.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from torchlight.engine import Context, Function, Variable
from torchlight.ops.indexing import Gather
from torchlight.ops.searching import lazy_refusal

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


class UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


class UniqueValues(Function):
    """The unique values (computed by `_unique`), as a function of the input: the backward gathers
    the incoming gradient at each element's inverse index (Gather, whose backward is the scatter-add)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, values: Any, inverse: Any) -> Any:
        ctx.save_for_backward(a.shape, inverse)
        return values

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, inverse = ctx.saved_tensors
        return Gather.apply(g, (inverse,)).reshape(shape), None, None


def _unique(op: str, x: Any) -> tuple[Tensor, Any, Any, Any]:
    """(the values Tensor, first indices, flat inverse indices, counts) as arrays but the first."""
    if not isinstance(x, Variable):
        raise TypeError(f"{op}: expects a Tensor, not {type(x).__name__}")
    x = cast("Tensor", x)
    lazy_refusal(op, x)
    backend = x.backend
    xp = backend.xp
    device = x._device
    index_dtype = backend.default_int(device)
    flat = xp.reshape(x.data, (-1,))
    n = flat.shape[0]
    order = xp.argsort(flat, stable=True)
    ordered = xp.take(flat, order)
    if n:
        new = xp.concat([xp.ones((1,), dtype=xp.bool, device=device), ordered[1:] != ordered[:-1]])
    else:
        new = xp.zeros((0,), dtype=xp.bool, device=device)
    (starts,) = xp.nonzero(new)
    starts = xp.astype(starts, index_dtype)
    group = xp.cumulative_sum(xp.astype(new, index_dtype)) - 1
    inverse = xp.take(group, xp.argsort(order, stable=True)) if n else xp.astype(order, index_dtype)
    if n:
        counts = xp.concat([starts[1:], xp.asarray([n], dtype=index_dtype, device=device)]) - starts
    else:
        counts = starts
    first = xp.astype(xp.take(order, starts), index_dtype)
    values = UniqueValues.apply(x, xp.take(ordered, starts), backend.index_array(inverse))
    return values, first, inverse, counts


def unique_values(x: Tensor) -> Tensor:
    """The unique elements of `x`, sorted, as a 1-d tensor (the standard's `unique_values`).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.sets import unique_values
        >>> unique_values(tl.tensor([[2.0, 1.0], [2.0, float("nan")]])).tolist()
        [1.0, 2.0, nan]
    """
    return _unique("unique_values", x)[0]


def unique_counts(x: Tensor) -> UniqueCountsResult:
    """(values, counts): the unique elements and how often each occurs (the standard's `unique_counts`)."""
    values, _, _, counts = _unique("unique_counts", x)
    return UniqueCountsResult(values, x._wrap(counts, x.backend))


def unique_inverse(x: Tensor) -> UniqueInverseResult:
    """(values, inverse_indices): the unique elements, and for each element of `x` (in `x`'s shape) the
    index of its value, so that `values[inverse_indices]` is `x` (the standard's `unique_inverse`)."""
    values, _, inverse, _ = _unique("unique_inverse", x)
    return UniqueInverseResult(values, x._wrap(x.backend.xp.reshape(inverse, x.shape), x.backend))


def unique_all(x: Tensor) -> UniqueAllResult:
    """(values, indices, inverse_indices, counts), `indices` the first occurrence of each value in the
    flattened `x` (the standard's `unique_all`).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.sets import unique_all
        >>> out = unique_all(tl.tensor([5, 3, 5]))
        >>> out.values.tolist(), out.indices.tolist(), out.inverse_indices.tolist(), out.counts.tolist()
        ([3, 5], [1, 0], [1, 0, 1], [1, 2])
    """
    values, first, inverse, counts = _unique("unique_all", x)
    wrap = x._wrap
    return UniqueAllResult(values, wrap(first, x.backend), wrap(x.backend.xp.reshape(inverse, x.shape), x.backend),
                           wrap(counts, x.backend))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """PyTorch's `unique`: the sorted unique elements (always sorted: `sorted=False` allows any order),
    with the inverse indices (in the input's shape) and the counts when asked, as a tuple in that
    order. Only `dim=None` (the flattened input) is supported.

    Example:
        >>> import torchlight as tl
        >>> values, inverse = tl.unique(tl.tensor([2, 1, 2]), return_inverse=True)
        >>> values.tolist(), inverse.tolist()
        ([1, 2], [1, 0, 1])
    """
    if dim is not None:
        raise ValueError(f"unique: dim={dim!r} is not supported; only dim=None (the unique elements of the "
                         "flattened tensor)")
    values, _, inverse, counts = _unique("unique", input)
    if not return_inverse and not return_counts:
        return values
    out = [values]
    if return_inverse:
        out.append(input._wrap(input.backend.xp.reshape(inverse, input.shape), input.backend))
    if return_counts:
        out.append(input._wrap(counts, input.backend))
    return tuple(out)


class SetsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def unique(self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
               dim: int | None = None) -> Any:
        """PyTorch's `x.unique(...)`: `tl.unique(x, ...)` (see `torchlight.ops.sets.unique`)."""
        return unique(self, sorted, return_inverse, return_counts, dim)
