"""Searching: searchsorted and nonzero (PyTorch's), integer results, no gradient.

`nonzero`'s result has a shape that depends on the values, so on a lazy
backend (Dask) it raises rather than computing the values early.

Example:
    >>> import torchlight as tl
    >>> tl.searchsorted(tl.tensor([1.0, 2.0, 3.0]), tl.tensor([2.0, 2.5])).tolist()
    [1, 2]
    >>> tl.tensor([[0.0, 1.0], [2.0, 0.0]]).nonzero().tolist()
    [[0, 1], [1, 0]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.engine import Variable
from torchlight.ops.logical import _truth, common_dtype

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def lazy_refusal(op: str, x: Tensor) -> None:
    """A ValueError naming `op` on a lazy backend, whose result shape would need the values computed."""
    if x.backend.lazy:
        raise ValueError(f"{op}: the size of the result depends on the values, which the {x.backend.name!r} "
                         "backend has not computed (it is lazy); compute the input first (e.g. with "
                         ".to('numpy')), or keep the shape with tl.where")


def searchsorted(sorted_sequence: Tensor, values: Any, *, right: bool = False, side: str | None = None,
                 sorter: Any = None) -> Tensor:
    """Where each of `values` would go in `sorted_sequence` to keep it sorted (PyTorch's
    `searchsorted`): the first such place, or the last with `right=True` or `side="right"`. A 1-d
    sequence serves every value; an n-d one is searched along its last dim, its leading dims matching
    the values'. `sorter` gives indices that sort the sequence. The result is in the default integer
    dtype (int64 on NumPy, as PyTorch), no gradient.

    Example:
        >>> import torchlight as tl
        >>> tl.searchsorted(tl.tensor([1.0, 2.0, 2.0, 3.0]), 2.0, side="right").item()
        3
    """
    seq = sorted_sequence
    if not isinstance(seq, Variable):
        raise TypeError(f"searchsorted: sorted_sequence must be a Tensor, not {type(seq).__name__}")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True and side='left' disagree")
        right = side == "right"
    scalar = not isinstance(values, Variable) and isinstance(values, (bool, int, float))
    v = seq._lift(values)
    check_same_backend("searchsorted", seq, v)
    if seq.ndim == 0:
        raise ValueError("searchsorted: sorted_sequence must have at least one dimension")
    xp = seq.backend.xp
    backend = seq.backend
    data = seq.data
    if sorter is not None:
        order = sorter.data if isinstance(sorter, Variable) else backend.asarray(sorter, device=seq._device)
        if tuple(order.shape) != seq.shape:
            raise ValueError(f"searchsorted: sorter of shape {tuple(order.shape)} for a sequence of shape {seq.shape}")
        data = backend.take_along_axis(data, order, -1)
    a, b = common_dtype("searchsorted", seq._wrap(data, backend), v)
    index_dtype = backend.default_int(seq._device)
    if seq.ndim == 1:
        flat = xp.reshape(b, (-1,))
        out = xp.reshape(xp.searchsorted(a, flat, side="right" if right else "left"), v.shape)
    else:
        if v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]:
            raise ValueError(f"searchsorted: values of shape {v.shape} for a sorted_sequence of shape {seq.shape}: "
                             "the leading dims must match (or give a 1-d sequence)")
        before = xp.expand_dims(a, axis=-2) <= xp.expand_dims(b, axis=-1) if right else \
            xp.expand_dims(a, axis=-2) < xp.expand_dims(b, axis=-1)
        out = xp.sum(xp.astype(before, index_dtype), axis=-1)
    out = xp.astype(out, index_dtype)
    result = seq._wrap(out, backend)
    return result.reshape(()) if scalar else result


class SearchingMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def nonzero(self: Tensor, *, as_tuple: bool = False) -> Any:
        """The indices of the nonzero (true) elements, in row-major order (PyTorch's `nonzero`): a
        (count, ndim) integer tensor, or with `as_tuple=True` a tuple of one 1-d tensor per dim (the
        standard's `nonzero`, what `x[mask]` reads). No gradient. On a lazy backend it raises, naming
        itself: the count is not known until the values are computed.

        Example:
            >>> import torchlight as tl
            >>> rows, cols = tl.tensor([[0, 3], [4, 0]]).nonzero(as_tuple=True)
            >>> rows.tolist(), cols.tolist()
            ([0, 1], [1, 0])
        """
        lazy_refusal("nonzero", self)
        xp = self.backend.xp
        truth = _truth(self)
        zero_d = self.ndim == 0
        if zero_d:
            truth = xp.reshape(truth, (1,))
        index_dtype = self.backend.default_int(self._device)
        parts = tuple(xp.astype(p, index_dtype) for p in xp.nonzero(truth))
        if as_tuple:
            return tuple(self._wrap(p, self.backend) for p in parts)
        if zero_d:
            count = parts[0].shape[0]
            return self._wrap(xp.zeros((count, 0), dtype=index_dtype, device=self._device), self.backend)
        return self._wrap(xp.stack(parts, axis=1), self.backend)
