"""Shapes: permute and transpose, reshape, broadcast and its undoing (sum_to), concat and stack,
flip, roll, tile, split.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    >>> (x.T.reshape(3) * tl.tensor([1.0, 2.0, 3.0])).sum().backward()
    >>> x.grad.tolist()
    [[1.0, 2.0, 3.0]]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function, Variable
from torchlight.ops.common import _one_dim, broadcast_shapes, normalize_dims, resolve_shape
from torchlight.ops.indexing import Gather

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def sum_to(g: Any, shape: tuple[int, ...], op: str = "backward") -> Any:
    """Sum the gradient `g` down to `shape` (undoing a broadcast)."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        raise ValueError(f"{op}: a gradient of shape {gshape} does not reduce to the input shape {shape}")
    return SumTo.apply(g, tuple(shape))


def _split_axis(op: str, x: Tensor, dim: Any) -> int:
    """`dim` of `split`/`chunk` as a non-negative axis; a 0-d tensor has none to split (as PyTorch)."""
    if x.ndim == 0:
        raise ValueError(f"{op}: a 0-d tensor cannot be split; it needs at least one dimension")
    return _one_dim(op, x, dim)


class SumTo(Function):
    """Sum a broadcast array back down to `shape` (the engine's reduction)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, g: Tensor, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(g.shape)
        xp, data = g.backend.xp, g.data
        lead = data.ndim - len(shape)
        if lead:  # the leading axes go, the size-1 axes of `shape` stay: no reshape needed
            data = xp.sum(data, axis=tuple(range(lead)))
        dims = tuple(i for i, n in enumerate(shape) if n == 1 and data.shape[i] != 1)
        if dims:
            data = xp.sum(data, axis=dims, keepdims=True)
        return data

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        (shape,) = ctx.saved_tensors
        return BroadcastView.apply(h, shape), None


class Permute(Function):
    complex_grad = True
    @staticmethod
    def forward(ctx: Context, a: Tensor, axes: tuple[int, ...]) -> Any:
        ctx.save_for_backward(axes)
        return a.backend.xp.permute_dims(a.data, axes)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (axes,) = ctx.saved_tensors
        inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        return Permute.apply(g, inverse), None


class Reshape(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape)
        return a.backend.xp.reshape(a.data, shape)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (shape,) = ctx.saved_tensors
        return Reshape.apply(g, shape), None


class BroadcastView(Function):
    """`broadcast_to(a, shape)`; its backward sums back down (SumTo).

    `Tensor.expand` checks the shapes for the user; the backward formulas
    that call this directly broadcast a gradient back to the shape it came from.
    """
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape)
        return a.backend.xp.broadcast_to(a.data, tuple(shape))

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (shape,) = ctx.saved_tensors
        return SumTo.apply(g, shape), None


class Concat(Function):
    """`concat(parts, axis)`: `Concat.apply(*parts, axis)`, the axis last.

    `torchlight.ops.cat` checks the shapes for the user. The backward slices
    the gradient back into the parts along `axis`.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        *parts, axis = inputs
        axis %= parts[0].ndim
        ctx.save_for_backward(axis, tuple(p.shape[axis] for p in parts))
        return parts[0].backend.xp.concat([p.data for p in parts], axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        axis, sizes = ctx.saved_tensors
        grads, start = [], 0
        for n, need in zip(sizes, ctx.needs_input_grad):
            grads.append(Gather.apply(g, (slice(None),) * axis + (slice(start, start + n),)) if need else None)
            start += n
        return (*grads, None)


class Stack(Function):
    """`stack(parts, axis)` of same-shaped tensors: `Stack.apply(*parts, axis)`,
    the axis last; differentiable in each part.

    What `torchlight.ops.stack` calls (it checks the shapes for the user),
    and how `torchlight.func.jacobian` assembles its rows when they carry
    history (a Jacobian inside another transform); the backward hands
    slice i of the gradient along `axis` to part i.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        *parts, axis = inputs
        axis %= parts[0].ndim + 1
        ctx.save_for_backward(axis)
        return parts[0].backend.xp.stack([p.data for p in parts], axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (axis,) = ctx.saved_tensors
        lead = (slice(None),) * axis
        grads = [Gather.apply(g, lead + (i,)) if need else None for i, need in enumerate(ctx.needs_input_grad[:-1])]
        return (*grads, None)


class Flip(Function):
    """The order of the elements along `axes` reversed (the namespace's `flip`); its own backward."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, axes: tuple[int, ...]) -> Any:
        ctx.save_for_backward(axes)
        return a.backend.xp.flip(a.data, axis=axes)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (axes,) = ctx.saved_tensors
        return Flip.apply(g, axes), None


class Roll(Function):
    """The elements shifted by `shifts` along `axes`, wrapping around (the namespace's `roll`;
    `axes` None rolls the flattened tensor). The backward rolls back by `-shifts`."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, shifts: int | tuple[int, ...], axes: tuple[int, ...] | None) -> Any:
        ctx.save_for_backward(shifts, axes)
        return a.backend.xp.roll(a.data, shifts, axis=axes)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shifts, axes = ctx.saved_tensors
        back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
        return Roll.apply(g, back, axes), None, None


class Tile(Function):
    """`reps[i]` copies along each axis (the namespace's `tile`), `len(reps) >= a.ndim`.

    The backward sums the copies: the gradient seen as (r0, n0, r1, n1, ...)
    summed over the r axes (Reshape and Sum, so it is differentiable again).
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, reps: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape, reps)
        return a.backend.xp.tile(a.data, reps)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, reps = ctx.saved_tensors
        sizes = (1,) * (len(reps) - len(shape)) + tuple(shape)
        pairs = tuple(n for pair in zip(reps, sizes) for n in pair)
        copies = Reshape.apply(g, pairs).sum(tuple(range(0, len(pairs), 2)))
        return Reshape.apply(copies, tuple(shape)), None


def stack(tensors: Iterable[Tensor], dim: int = 0) -> Tensor:
    """Same-shaped tensors joined along a new dimension `dim` (-ndim - 1 <= dim <= ndim).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> tl.stack([a, a * 2.0], dim=1).tolist()
        [[1.0, 2.0], [2.0, 4.0]]
    """
    parts = _parts("stack", tensors)
    first = parts[0]
    for i, t in enumerate(parts[1:], 1):
        _check_backend("stack", first, t)
        if t.shape != first.shape:
            raise ValueError(f"stack: shapes {first.shape} and {t.shape} (tensors 0 and {i}) differ; "
                             "stack needs equal shapes")
    n, dim = first.ndim + 1, operator.index(dim)
    if not -n <= dim < n:
        raise IndexError(f"stack: dim {dim} is out of range for stacking tensors of shape {first.shape} "
                         f"(expected {-n} to {n - 1})")
    return Stack.apply(*parts, dim % n)


def cat(tensors: Iterable[Tensor], dim: int = 0) -> Tensor:
    """Tensors joined along their existing dimension `dim`; every other dimension must agree.

    `concat` is the same function under the array API standard's name.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, 2.0]], requires_grad=True)
        >>> b = tl.tensor([[3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        >>> out = tl.cat([a, b])
        >>> out.shape
        (3, 2)
        >>> (out * out).sum().backward()
        >>> a.grad.tolist()
        [[2.0, 4.0]]
    """
    parts = _parts("cat", tensors)
    first = parts[0]
    if first.ndim == 0:
        raise ValueError("cat: 0-d tensors (tensor 0 has shape ()) cannot be concatenated; use tl.stack")
    dim = operator.index(dim)
    if not -first.ndim <= dim < first.ndim:
        raise IndexError(f"cat: dim {dim} is out of range for tensors of shape {first.shape} "
                         f"(expected {-first.ndim} to {first.ndim - 1})")
    axis = dim % first.ndim
    for i, t in enumerate(parts[1:], 1):
        _check_backend("cat", first, t)
        if t.ndim != first.ndim or any(m != n for k, (m, n) in enumerate(zip(first.shape, t.shape)) if k != axis):
            raise ValueError(f"cat: shapes {first.shape} and {t.shape} (tensors 0 and {i}) differ "
                             f"outside dim {axis}")
    return Concat.apply(*parts, axis)


concat = cat


def _parts(op: str, tensors: Iterable[Tensor]) -> list[Tensor]:
    """`tensors` as a non-empty list of Tensors, or the error that says what is wrong."""
    if isinstance(tensors, Variable):
        raise TypeError(f"{op}: expects a sequence of Tensors, not one Tensor (wrap it in a list)")
    parts = list(tensors)
    if not parts:
        raise ValueError(f"{op}: expects a non-empty sequence of Tensors")
    for i, t in enumerate(parts):
        if not isinstance(t, Variable):
            raise TypeError(f"{op}: element {i} is a {type(t).__name__}, not a Tensor")
    return parts


def _check_backend(op: str, first: Tensor, t: Tensor) -> None:
    if t.backend is not first.backend or first.backend.multi_device:
        check_same_backend(op, first, t)


class ShapesMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def _sum_to(self: Tensor, shape: tuple[int, ...], op: str = "backward") -> Tensor:
        """The engine's hook (`Variable._sum_to`): this gradient summed back to `shape`."""
        return sum_to(self, shape, op)

    def permute(self: Tensor, *dims: int) -> Tensor:
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        axes = tuple(d % self.ndim for d in dims) if self.ndim else tuple(dims)
        if sorted(axes) != list(range(self.ndim)) or any(not -max(self.ndim, 1) <= d < max(self.ndim, 1)
                                                         for d in dims):
            raise ValueError(f"permute: dims {tuple(dims)} are not a permutation of the dimensions "
                             f"of a tensor of shape {self.shape}")
        return Permute.apply(self, axes)

    def transpose(self: Tensor, dim0: int | None = None, dim1: int | None = None) -> Tensor:
        """Swap two dimensions (a 0-d tensor accepts dims 0 and -1, as PyTorch); with no dims,
        reverse them all, as NumPy's `x.transpose()` (`x.T`; PyTorch requires the two dims)."""
        if dim0 is None and dim1 is None:
            return self.T
        if dim0 is None or dim1 is None:
            raise TypeError("transpose: give the two dims to swap, or none to reverse them all (as NumPy)")
        d0, d1 = _one_dim("transpose", self, dim0), _one_dim("transpose", self, dim1)
        axes = list(range(self.ndim))
        if self.ndim:
            axes[d0], axes[d1] = axes[d1], axes[d0]
        return Permute.apply(self, tuple(axes))

    @property
    def T(self: Tensor) -> Tensor:
        """All dimensions reversed."""
        return Permute.apply(self, tuple(reversed(range(self.ndim))))

    @property
    def mT(self: Tensor) -> Tensor:
        """The last two dimensions swapped (a batch of matrices transposed)."""
        n = self.data.ndim
        if n < 2:
            raise IndexError(f"mT: a batch of matrices needs 2 or more dimensions; this tensor has shape {self.shape}")
        return Permute.apply(self, (*range(n - 2), n - 1, n - 2))

    def reshape(self: Tensor, *shape: Any) -> Tensor:
        """This tensor's elements in another shape (ints, or one sequence of them; one may be -1)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return Reshape.apply(self, resolve_shape(shape, self.shape))

    view = reshape

    def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
        """Drop the size-1 dimensions: all of them, or those among `dim` (an int or a tuple).

        As PyTorch, a `dim` whose size is not 1 is left as it is (the array
        API's `squeeze` raises there); a `dim` out of range raises IndexError.
        """
        dims = normalize_dims(dim, self.ndim, "squeeze")
        return Reshape.apply(self, tuple(n for i, n in enumerate(self.shape) if n != 1 or i not in dims))

    def unsqueeze(self: Tensor, dim: int) -> Tensor:
        """A new size-1 dimension at `dim` (-ndim - 1 <= dim <= ndim, as PyTorch)."""
        n = self.ndim + 1
        if not -n <= dim < n:
            raise IndexError(f"unsqueeze: dim {dim} is out of range for a tensor of shape {self.shape} "
                             f"(expected {-n} to {n - 1})")
        d = dim % n
        return Reshape.apply(self, self.shape[:d] + (1,) + self.shape[d:])

    def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """The dimensions start_dim..end_dim (inclusive) merged into one; a 0-d tensor becomes 1-d."""
        start, end = _one_dim("flatten", self, start_dim), _one_dim("flatten", self, end_dim)
        if start > end:
            raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} "
                             f"for a tensor of shape {self.shape}")
        shape = self.shape
        return Reshape.apply(self, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])

    def expand(self: Tensor, *shape: int) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        lead = len(shape) - self.ndim
        if any(n < 0 for n in shape[:max(lead, 0)]) or any(n < -1 for n in shape):
            raise ValueError(f"expand: sizes {shape} for a tensor of shape {self.shape}: -1 keeps an existing "
                             "dimension (a new leading one has none to keep), and no size may be negative")
        shape = tuple(n if n != -1 else self.shape[i - lead] for i, n in enumerate(shape))
        if broadcast_shapes("expand", self.shape, shape) != shape:
            raise ValueError(f"expand: a tensor of shape {self.shape} cannot be expanded to {shape}")
        return BroadcastView.apply(self, shape)

    broadcast_to = expand

    def flip(self: Tensor, *dims: int) -> Tensor:
        """The order of the elements reversed along `dims` (ints, or one sequence); all dims when none is given.

        PyTorch's `x.flip(dims)`; with no dims NumPy's `np.flip(x)` (every axis).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).flip(1).tolist()
            [[2.0, 1.0], [4.0, 3.0]]
        """
        every = not dims
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return Flip.apply(self, normalize_dims(None if every else dims, self.ndim, "flip"))

    def roll(self: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
        """The elements shifted by `shifts` along `dims`, those pushed off the end coming back at the start.

        PyTorch's and NumPy's `roll`: `dims` None rolls the flattened tensor
        (then `shifts` is one int); otherwise one shift per dim, or one int
        for every dim (as NumPy).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0, 3.0, 4.0]).roll(1).tolist()
            [4.0, 1.0, 2.0, 3.0]
        """
        if dims is None:
            if not hasattr(shifts, "__index__"):
                raise ValueError(f"roll: shifts {shifts} without dims: give one int (the flattened tensor rolls)")
            return Roll.apply(self, operator.index(shifts), None)
        axes = (dims,) if hasattr(dims, "__index__") else tuple(dims)
        steps = (shifts,) * len(axes) if hasattr(shifts, "__index__") else tuple(shifts)
        if len(steps) != len(axes):
            raise ValueError(f"roll: {len(steps)} shifts {tuple(steps)} for {len(axes)} dims {axes}")
        for d in axes:
            normalize_dims(d, self.ndim, "roll")  # IndexError out of range
        if not axes or self.ndim == 0:  # nothing to move (the namespace's roll refuses no axes)
            return Roll.apply(self, 0, None)
        axes = tuple(operator.index(d) % self.ndim for d in axes)
        return Roll.apply(self, tuple(operator.index(s) for s in steps), axes)

    def tile(self: Tensor, *reps: int) -> Tensor:
        """`reps[i]` copies along each dim (`np.tile`, `torch.tile`); fewer reps than dims are padded with 1s
        in front, more add leading dims. The gradient sums the copies.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0]).tile(2).tolist()
            [1.0, 2.0, 1.0, 2.0]
        """
        if len(reps) == 1 and isinstance(reps[0], (tuple, list)):
            reps = tuple(reps[0])
        reps = tuple(operator.index(r) for r in reps)
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: repetitions {reps} must not be negative")
        return Tile.apply(self, (1,) * (self.ndim - len(reps)) + reps)

    def repeat(self: Tensor, *sizes: int) -> Tensor:
        """PyTorch's `repeat`: `sizes[i]` copies along each dim, at least one size per dim (as `tile`).

        NumPy's `x.repeat(n)` repeats each element instead (PyTorch's
        `repeat_interleave`): this is not it, hence fewer sizes than dims raise.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0]).repeat(2, 2).tolist()
            [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]]
        """
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        if len(sizes) < self.ndim:
            raise ValueError(f"repeat: {len(sizes)} sizes {tuple(sizes)} for a tensor of shape {self.shape}: "
                             "give one per dim (PyTorch's repeat is np.tile; NumPy's element-wise repeat is "
                             "not this)")
        return self.tile(*sizes)

    def split(self: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces along `dim`, as PyTorch's `split`: an int is the size of each piece (the last
        may be smaller), a sequence the sizes of the pieces (summing to the dim's size).

        NumPy's `np.split(x, n)` (n equal pieces) is `x.chunk(n)`; its split
        indices are the sizes' running sum. Each piece is a slice (one Gather
        node): the backward of k pieces scatters k gradients of the whole size.

        Example:
            >>> import torchlight as tl
            >>> [p.tolist() for p in tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0]).split(2)]
            [[1.0, 2.0], [3.0, 4.0], [5.0]]
        """
        axis = _split_axis("split", self, dim)
        n = self.shape[axis]
        if hasattr(split_size_or_sections, "__index__"):
            size = operator.index(split_size_or_sections)
            if size <= 0 and not (size == 0 and n == 0):
                raise ValueError(f"split: split_size {size} must be positive (0 only for an empty dim)")
            sizes = [min(size, n - start) for start in range(0, n, size)] if n else [0]
        else:
            sizes = [operator.index(s) for s in split_size_or_sections]
            if any(s < 0 for s in sizes) or sum(sizes) != n:
                raise ValueError(f"split: sizes {sizes} must be non-negative and sum to {n}, the size of dim "
                                 f"{dim} of a tensor of shape {self.shape}")
        lead, start, pieces = (slice(None),) * axis, 0, []
        for size in sizes:
            pieces.append(Gather.apply(self, lead + (slice(start, start + size),)))
            start += size
        return tuple(pieces)

    def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """`chunks` pieces along `dim` as PyTorch's `chunk`: each of size ceil(n / chunks), the last
        smaller, so there may be fewer than `chunks` (`np.array_split` balances the sizes instead).

        Example:
            >>> import torchlight as tl
            >>> [p.tolist() for p in tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0]).chunk(4)]
            [[1.0, 2.0], [3.0, 4.0], [5.0]]
        """
        axis = _split_axis("chunk", self, dim)
        chunks = operator.index(chunks)
        if chunks <= 0:
            raise ValueError(f"chunk: chunks must be positive, not {chunks}")
        n = self.shape[axis]
        if n == 0:
            return self.split([0] * chunks, axis)
        return self.split(-(-n // chunks), axis)

    def movedim(self: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
        """The dimensions `source` moved to the positions `destination` (ints, or sequences of one
        length), the others kept in their order (PyTorch's `movedim`; `moveaxis` is the same).

        Example:
            >>> import torchlight as tl
            >>> tl.zeros(2, 3, 4).movedim(0, -1).shape, tl.zeros(2, 3, 4).movedim((0, 1), (2, 0)).shape
            ((3, 4, 2), (3, 4, 2))
        """
        return Permute.apply(self, _moved_axes("movedim", self, source, destination))

    moveaxis = movedim

    def tril(self: Tensor, diagonal: int = 0) -> Tensor:
        """The lower triangle of each matrix (the last two dims): elements with column - row <=
        `diagonal` kept, the others 0; the gradient is masked the same way.

        Example:
            >>> import torchlight as tl
            >>> tl.ones(2, 3).tril().tolist(), tl.ones(2, 3).triu(1).tolist()
            ([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]], [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
        """
        return Triangle.apply(self, _diagonal("tril", self, diagonal), False)

    def triu(self: Tensor, diagonal: int = 0) -> Tensor:
        """The upper triangle of each matrix: elements with column - row >= `diagonal` kept, the others 0."""
        return Triangle.apply(self, _diagonal("triu", self, diagonal), True)

    def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along `dim`, that dim removed (PyTorch's `unbind`); each is an index of this tensor,
        so the gradients of the pieces come back to their places.

        Example:
            >>> import torchlight as tl
            >>> [p.tolist() for p in tl.tensor([[1.0, 2.0], [3.0, 4.0]]).unbind(1)]
            [[1.0, 3.0], [2.0, 4.0]]
        """
        if self.ndim == 0:
            raise ValueError("unbind: a 0-d tensor has no dimension to unbind")
        axis = _one_dim("unbind", self, dim)
        lead = (slice(None),) * axis
        return tuple(Gather.apply(self, lead + (i,)) for i in range(self.shape[axis]))


def _moved_axes(op: str, x: Tensor, source: Any, destination: Any) -> tuple[int, ...]:
    """The permutation that moves `source` to `destination` (the errors name `op` and the argument)."""
    src = (source,) if hasattr(source, "__index__") else tuple(source)
    dst = (destination,) if hasattr(destination, "__index__") else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"{op}: source {src} and destination {dst} must have the same number of dims")
    n = x.ndim
    for name, dims in (("source", src), ("destination", dst)):
        for d in dims:
            if not -max(n, 1) <= operator.index(d) < max(n, 1):
                raise IndexError(f"{op}: {name} dim {d} is out of range for a tensor with {n} dimension(s)")
    s = [operator.index(d) % max(n, 1) for d in src]
    t = [operator.index(d) % max(n, 1) for d in dst]
    for name, found, given in (("source", s, src), ("destination", t, dst)):
        if len(set(found)) != len(found):
            raise ValueError(f"{op}: {name} {given} names a dimension twice")
    if n == 0:
        return ()
    order: list[int | None] = [None] * n
    for a, b in zip(s, t):
        order[b] = a
    rest = iter(d for d in range(n) if d not in s)
    return tuple(d if d is not None else next(rest) for d in order)


def _diagonal(op: str, x: Tensor, diagonal: Any) -> int:
    if x.ndim < 2:
        raise ValueError(f"{op}: needs a matrix or a batch of them (2 or more dims), not a tensor of shape {x.shape}")
    if not hasattr(diagonal, "__index__") or isinstance(diagonal, bool):
        raise TypeError(f"{op}: diagonal must be an int, not {diagonal!r}")
    return operator.index(diagonal)


class Triangle(Function):
    """The lower (`upper` False: column - row <= k) or upper (column - row >= k) triangle of each
    matrix, the rest 0; linear, so the backward is the same triangle of g."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, k: int, upper: bool) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(k, upper)
        m, n = a.shape[-2:]
        device = a._device
        offset = xp.reshape(xp.arange(n, device=device), (1, n)) - xp.reshape(xp.arange(m, device=device), (m, 1))
        keep = offset >= k if upper else offset <= k
        return xp.where(keep, a.data, xp.zeros((), dtype=a.dtype, device=device))

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        k, upper = ctx.saved_tensors
        return Triangle.apply(g, k, upper), None, None


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (PyTorch's `broadcast_tensors`, the standard's
    `broadcast_arrays`); each result's gradient is summed back to its input's shape.

    Example:
        >>> import torchlight as tl
        >>> a, b = tl.broadcast_tensors(tl.tensor([[1.0], [2.0]]), tl.tensor([3.0, 4.0, 5.0]))
        >>> a.shape, b.tolist()
        ((2, 3), [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        return ()
    parts = _parts("broadcast_tensors", tensors)
    shape = parts[0].shape
    for t in parts[1:]:
        _check_backend("broadcast_tensors", parts[0], t)
        shape = broadcast_shapes("broadcast_tensors", shape, t.shape)
    return tuple(t if t.shape == shape else BroadcastView.apply(t, shape) for t in parts)


def meshgrid(*tensors: Tensor, indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-d tensors (PyTorch's `meshgrid`): with `indexing="ij"` (PyTorch's
    default) the i-th result varies along dim i; with "xy" (NumPy's and the standard's default) the
    first two dims are swapped. Each grid's gradient is summed back to its vector.

    Example:
        >>> import torchlight as tl
        >>> x, y = tl.meshgrid(tl.tensor([1.0, 2.0, 3.0]), tl.tensor([4.0, 5.0]), indexing="xy")
        >>> x.shape, x.tolist()[0], y.tolist()[0]
        ((2, 3), [1.0, 2.0, 3.0], [4.0, 4.0, 4.0])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', not {indexing!r}")
    if not tensors:
        return ()
    parts = _parts("meshgrid", tensors)
    for i, t in enumerate(parts):
        _check_backend("meshgrid", parts[0], t)
        if t.ndim > 1:
            raise ValueError(f"meshgrid: expects 0-d or 1-d tensors; tensor {i} has shape {t.shape}")
        if t.dtype != parts[0].dtype:
            raise TypeError(f"meshgrid: the tensors must have one dtype; tensor {i} is {t.dtype}, tensor 0 "
                            f"{parts[0].dtype}")
    sizes = [t.size for t in parts]
    axes = list(range(len(parts)))
    if indexing == "xy" and len(parts) > 1:
        axes[0], axes[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for t, axis in zip(parts, axes):
        view = [1] * len(parts)
        view[axis] = t.size
        out.append(BroadcastView.apply(Reshape.apply(t, tuple(view)), tuple(sizes)))
    return tuple(out)
