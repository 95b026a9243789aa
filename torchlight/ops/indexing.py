"""Indexing: `x[key]` (slices, integer arrays, masks), take_along_axis, where, and their scatters.

The gradient of a gather scatters back with duplicate indices summed
(`Backend.scatter_add`); `x[key] = v` is a write (`torchlight.ops.writes`).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> x[[0, 0, 2]].sum().backward()
    >>> x.grad.tolist()
    [2.0, 0.0, 1.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function, Variable
from torchlight.ops.common import _const, broadcast_shapes, index_key

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def one_hot(index: Any, n: int, axis: int, like: Any) -> Any:
    """`index == arange(n)` along `axis` (where `index` has size 1), as a constant of `like`'s dtype."""
    backend = like.backend
    return _const(like, backend.xp.astype(backend.index_mask(index, n, axis), like.dtype))


class Where(Function):
    """`where(cond, a, b)`: the gradient goes to a where cond, else to b."""

    @staticmethod
    def forward(ctx: Context, cond: Tensor, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(cond)
        return a.backend.xp.where(cond.data, a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (cond,) = ctx.saved_tensors
        zero = _const(g, g.backend.xp.zeros_like(g.data))
        ga = Where.apply(cond, g, zero) if ctx.needs_input_grad[1] else None
        gb = Where.apply(cond, zero, g) if ctx.needs_input_grad[2] else None
        return None, ga, gb


class Gather(Function):
    """`a[key]`: slices, negative steps, integer arrays, boolean masks.

    The backward scatters into zeros and sums repeated indices (through the
    backend's `scatter_add`: `np.add.at` on NumPy, a portable sort-based
    segment sum elsewhere).
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, key: Any) -> Any:
        ctx.save_for_backward(a.shape, key)
        return a.backend.take_key(a.data, key)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, key = ctx.saved_tensors
        return GatherBack.apply(g, shape, key), None


class GatherBack(Function):
    """zeros(shape) with g added at `key`: the transpose of Gather."""

    @staticmethod
    def forward(ctx: Context, g: Tensor, shape: tuple[int, ...], key: Any) -> Any:
        ctx.save_for_backward(key)
        return g.backend.scatter_add(shape, key, g.data)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        (key,) = ctx.saved_tensors
        return Gather.apply(h, key), None, None


class TakeAlongAxis(Function):
    """`take_along_axis(a, index, axis)` (index: an integer array of `a`'s ndim).

    The backward adds g back through a one-hot mask (index == arange), a
    product and a sum, so it needs no scatter and is differentiable again.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, index: Any, axis: int) -> Any:
        ctx.save_for_backward(a.shape, index, axis)
        return a.backend.take_along_axis(a.data, index, axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, index, axis = ctx.saved_tensors
        mask = one_hot(g.backend.xp.expand_dims(index, axis=axis + 1), shape[axis], axis + 1, g)
        spread = g.reshape(g.shape[: axis + 1] + (1,) + g.shape[axis + 1:]) * mask
        return spread.sum(axis), None, None


class IndexingMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def __getitem__(self: Tensor, key: Any) -> Tensor:
        return Gather.apply(self, index_key(key, self))

    def where(self: Tensor, condition: Any, other: Any) -> Tensor:
        """This tensor where `condition` holds, else `other`, broadcasting all three (PyTorch's
        `x.where(condition, y)`; `tl.where(condition, x, y)` calls it).

        `condition` is a boolean Tensor or array (no gradient); `other` a
        Tensor, an array or a Python number (which takes this tensor's dtype).
        Each side's gradient is the incoming one where it was chosen, 0
        elsewhere, summed back to its shape.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
            >>> b = tl.tensor([10.0, 20.0], requires_grad=True)
            >>> x.where(x > 0, b).sum().backward()
            >>> x.grad.tolist(), b.grad.tolist()
            ([[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0])
        """
        cond = condition if isinstance(condition, Variable) else self._lift(condition)
        if not cond.backend.xp.isdtype(cond.dtype, "bool"):
            raise TypeError(f"where: the condition must be boolean, not {cond.dtype} (compare first, e.g. x > 0)")
        other = self._lift(other)
        for t in (self, other):
            if t.backend is not cond.backend or cond.backend.multi_device:
                check_same_backend("where", cond, t)
        try:
            broadcast_shapes("where", cond.shape, broadcast_shapes("where", self.shape, other.shape))
        except ValueError:
            raise ValueError(f"where: the shapes of condition {cond.shape}, input {self.shape} and other "
                             f"{other.shape} cannot be broadcast together") from None
        return Where.apply(cond, self, other)
