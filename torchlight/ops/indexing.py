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
    complex_grad = True

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
    complex_grad = True

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
    complex_grad = True

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

    def index_select(self: Tensor, dim: int, index: Any) -> Tensor:
        """The entries at `index` (a 1-d integer tensor, array or list; 0-d counts as one entry) along
        `dim` (PyTorch's `index_select`, the standard's `take(x, indices, axis=dim)`); repeated indices
        sum their gradients.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
            >>> x.index_select(1, tl.tensor([2, 0, 2])).sum().backward()
            >>> x.grad.tolist()
            [[1.0, 0.0, 2.0], [1.0, 0.0, 2.0]]
        """
        axis = _axis_of("index_select", self, dim)
        idx = _integer_index("index_select", self, index)
        if idx.ndim > 1:
            raise IndexError(f"index_select: index must be 1-d (or 0-d), not of shape {tuple(idx.shape)}")
        idx = self.backend.xp.reshape(idx, (-1,))
        return Gather.apply(self, (slice(None),) * axis + (_checked_index("index_select", self, idx,
                                                                          self.shape[axis]),))

    def take(self: Tensor, index: Any) -> Tensor:
        """The entries of the flattened tensor at `index` (integers of any shape, which the result takes;
        PyTorch's `take`); repeated indices sum their gradients.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).take(tl.tensor([[0, 3], [3, 1]])).tolist()
            [[1.0, 4.0], [4.0, 2.0]]
        """
        idx = _integer_index("take", self, index)
        flat = self.reshape(-1)
        return Gather.apply(flat, _checked_index("take", self, idx, flat.shape[0]))

    def take_along_dim(self: Tensor, indices: Any, dim: int | None = None) -> Tensor:
        """The entries at `indices` along `dim` (PyTorch's `take_along_dim`, the standard's
        `take_along_axis`): `indices` has this tensor's number of dims, and the other dims broadcast
        against each other. With `dim=None`, both are flattened first. The gradient adds back into
        the places taken from (repeated indices sum).

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]], requires_grad=True)
            >>> top = x.take_along_dim(tl.tensor([[1], [0]]), dim=1)
            >>> top.sum().backward()
            >>> top.tolist(), x.grad.tolist()
            ([[30.0], [60.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
        """
        xp = self.backend.xp
        idx = _integer_index("take_along_dim", self, indices)
        if dim is None:
            return self.reshape(-1).take_along_dim(xp.reshape(idx, (-1,)), 0)
        if idx.ndim != self.ndim:
            raise ValueError(f"take_along_dim: indices of shape {tuple(idx.shape)} and input of shape {self.shape} "
                             "must have the same number of dims")
        axis = _axis_of("take_along_dim", self, dim)
        if self.ndim == 0:
            return self.reshape(1).take_along_dim(xp.reshape(idx, (1,)), 0).reshape(())
        try:
            others = [broadcast_shapes("take_along_dim", (m,), (n,))[0]
                      for i, (m, n) in enumerate(zip(self.shape, idx.shape)) if i != axis]
        except ValueError:
            raise ValueError(f"take_along_dim: indices of shape {tuple(idx.shape)} and input of shape {self.shape} "
                             f"cannot be broadcast together outside dim {axis}") from None
        source = tuple(others[:axis]) + (self.shape[axis],) + tuple(others[axis:])
        wanted = tuple(others[:axis]) + (idx.shape[axis],) + tuple(others[axis:])
        idx = _checked_index("take_along_dim", self, idx, self.shape[axis])
        if tuple(idx.shape) != wanted:
            idx = xp.broadcast_to(idx, wanted)
        x = self if self.shape == source else self.expand(*source)
        return TakeAlongAxis.apply(x, idx, axis)


def _axis_of(op: str, x: Tensor, dim: Any) -> int:
    if not hasattr(dim, "__index__"):
        raise TypeError(f"{op}: dim must be an int, not {dim!r}")
    n = x.ndim
    d = dim.__index__()
    if not -max(n, 1) <= d < max(n, 1):
        raise IndexError(f"{op}: dim {d} is out of range for a tensor with {n} dimension(s)")
    return d % max(n, 1)


def _integer_index(op: str, x: Tensor, index: Any) -> Any:
    """`index` (a Tensor, an array, a list, an int) as an integer array of `x`'s backend and device."""
    backend = x.backend
    if isinstance(index, Variable):
        check_same_backend(op, x, index)
        data = index.data
    else:
        kind = getattr(getattr(index, "dtype", None), "kind", None)  # a NumPy array's: refused before a
        if kind is not None and kind not in "iu":  # float64 copy the device may not hold (no_float64)
            raise IndexError(f"{op}: the index must have an integer dtype, not {index.dtype}")
        data = backend.asarray(index, device=x._device)
    if not backend.xp.isdtype(data.dtype, "integral"):
        raise IndexError(f"{op}: the index must have an integer dtype, not {data.dtype}")
    return data


def _checked_index(op: str, x: Tensor, index: Any, n: int) -> Any:
    """`index` with negative entries counted from the end, after an IndexError if any is outside
    [-n, n) (checked when computed on a lazy backend; JAX would clamp it silently)."""
    xp = x.backend.xp
    if index.shape == () or 0 not in index.shape:
        error = IndexError(f"{op}: an index is out of range for a dimension of size {n}")
        index = x.backend.checked(index, lambda a: (a < -n) | (a >= n), error)
    if xp.isdtype(index.dtype, "signed integer"):
        index = xp.where(index < 0, index + n, index)
    return x.backend.index_array(index)
