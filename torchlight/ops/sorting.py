"""Sorting: sort (values and indices, as PyTorch's named tuple) and argsort.

The sorted values differentiate: each gradient goes back to the position
its value came from (a gather by the sorting permutation, whose backward
is the gather by the inverse permutation, and so on to any order). The
indices carry no gradient.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([3.0, 1.0, 2.0], requires_grad=True)
    >>> values, indices = x.sort(descending=True)
    >>> (values * tl.tensor([1.0, 10.0, 100.0])).sum().backward()
    >>> values.tolist(), indices.tolist(), x.grad.tolist()
    ([3.0, 2.0, 1.0], [0, 2, 1], [1.0, 100.0, 10.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from torchlight.engine import Context, Function
from torchlight.ops.common import _one_dim

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


class SortResult(NamedTuple):
    """What `sort` returns (PyTorch's `torch.return_types.sort`): the sorted values and where they came from."""

    values: Any
    indices: Any


class TakePermutation(Function):
    """a's entries at `index` along `axis`, where `index` is a permutation of each slice and `inverse`
    its inverse: the backward takes g at `inverse` (no scatter, no one-hot mask), and its own backward
    takes at `index` again."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, index: Any, inverse: Any, axis: int) -> Any:
        ctx.save_for_backward(index, inverse, axis)
        return a.backend.take_along_axis(a.data, index, axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        index, inverse, axis = ctx.saved_tensors
        return TakePermutation.apply(g, inverse, index, axis), None, None, None


def _order(op: str, x: Tensor, dim: Any, descending: bool, stable: bool) -> tuple[Any, int]:
    """(the sorting indices along `dim`, the axis); a 0-d tensor sorts as one element."""
    if x.backend.xp.isdtype(x.dtype, "complex floating"):
        raise TypeError(f"{op}: complex numbers have no order (sort the real part, or abs)")
    axis = _one_dim(op, x, dim)
    data = x.data if x.ndim else x.backend.xp.reshape(x.data, (1,))
    return x.backend.xp.argsort(data, axis=axis, descending=bool(descending), stable=True), axis


class SortingMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def sort(self: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> SortResult:
        """(values, indices) sorted along `dim`, ascending unless `descending`, as PyTorch's `sort`. The
        sort is always stable (ties keep their order, which `stable=False` allows too); NaNs sort last
        (first when descending), as the standard says. The values differentiate (see the module)."""
        index, axis = _order("sort", self, dim, descending, stable)
        xp = self.backend.xp
        if self.ndim == 0:
            return SortResult(self.clone(), self._wrap(xp.reshape(index, ()), self.backend))
        inverse = xp.argsort(index, axis=axis, stable=True)
        values = TakePermutation.apply(self, index, inverse, axis)
        return SortResult(values, self._wrap(index, self.backend))

    def argsort(self: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        """The indices that sort the tensor along `dim` (`sort`'s indices; no gradient).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[3.0, 1.0, 2.0]]).argsort(dim=1).tolist()
            [[1, 2, 0]]
        """
        index, _ = _order("argsort", self, dim, descending, stable)
        xp = self.backend.xp
        return self._wrap(index if self.ndim else xp.reshape(index, ()), self.backend)
