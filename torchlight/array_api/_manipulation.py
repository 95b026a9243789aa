"""Manipulation functions: the shape ops with the standard's names and signatures."""

from __future__ import annotations

import math
from typing import Any

from torchlight.array_api._helpers import axis_tuple, tensor_arg
from torchlight.ops.common import broadcast_shapes
from torchlight.ops.shapes import concat as _concat
from torchlight.ops.shapes import stack as _stack
from torchlight.tensor import Tensor

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims",
           "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"]


def _tensors(arrays: Any, fn: str) -> list[Tensor]:
    if isinstance(arrays, Tensor) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{fn}: arrays must be a tuple or list of arrays, not {type(arrays).__name__}")
    return [tensor_arg(a, fn, "each array") for a in arrays]


def broadcast_arrays(*arrays: Tensor) -> list[Tensor]:
    """The arrays broadcast against each other (views, differentiable).

    Example:
        >>> import torchlight.array_api as xp
        >>> a, b = xp.broadcast_arrays(xp.asarray([1, 2, 3]), xp.asarray([[10], [20]]))
        >>> a.shape, b.shape
        ((2, 3), (2, 3))
        >>> b
        tensor([[10, 10, 10],
                [20, 20, 20]])
    """
    tensors = [tensor_arg(a, "broadcast_arrays", "each array") for a in arrays]
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_shapes("broadcast_arrays", shape, t.shape)
    return [t if t.shape == shape else t.broadcast_to(*shape) for t in tensors]


def broadcast_to(x: Tensor, /, shape: tuple[int, ...]) -> Tensor:
    """`x` broadcast to `shape`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.broadcast_to(xp.asarray([1, 2, 3]), (2, 3))
        tensor([[1, 2, 3],
                [1, 2, 3]])
    """
    return tensor_arg(x, "broadcast_to").broadcast_to(*tuple(shape))


def concat(arrays: tuple[Tensor, ...] | list[Tensor], /, *, axis: int | None = 0) -> Tensor:
    """The arrays joined along `axis`; `axis=None` flattens each first.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.concat([xp.ones((1, 2)), xp.zeros((1, 1))], axis=None).tolist()
        [1.0, 1.0, 0.0]
    """
    tensors = _tensors(arrays, "concat")
    if axis is None:
        return _concat([t.reshape(-1) for t in tensors], dim=0)
    return _concat(tensors, dim=axis)


def expand_dims(x: Tensor, /, axis: int) -> Tensor:
    """`x` with a new axis of size 1 at `axis` (-ndim - 1 <= axis <= ndim).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([1, 2, 3])
        >>> xp.expand_dims(x, axis=0).shape, xp.expand_dims(x, axis=-1).shape
        ((1, 3), (3, 1))
    """
    x = tensor_arg(x, "expand_dims")
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims: axis {axis} is out of range for an array of {x.ndim} dimension(s)")
    return x.unsqueeze(axis)


def flip(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None) -> Tensor:
    """`x` reversed along `axis` (all axes when None).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[1, 2], [3, 4]])
        >>> xp.flip(x, axis=1)
        tensor([[2, 1],
                [4, 3]])
        >>> xp.flip(x)
        tensor([[4, 3],
                [2, 1]])
    """
    x = tensor_arg(x, "flip")
    return x.flip(*axis_tuple(axis, x.ndim, "flip"))


def moveaxis(x: Tensor, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Tensor:
    """`x` with the axes `source` moved to `destination` (`x.movedim`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.moveaxis(xp.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    return tensor_arg(x, "moveaxis").movedim(source, destination)


def permute_dims(x: Tensor, /, axes: tuple[int, ...]) -> Tensor:
    """`x` with its axes permuted.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.permute_dims(xp.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    return tensor_arg(x, "permute_dims").permute(*axes)


def repeat(x: Tensor, repeats: int | Tensor, /, *, axis: int | None = None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (NumPy's `repeat`; `axis=None` flattens
    first). The PyTorch face's `Tensor.repeat` is a tile; this one is PyTorch's
    `repeat_interleave`. It gathers with an index array, so the gradient sums the copies.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.repeat(xp.asarray([1.0, 2.0]), 2).tolist()
        [1.0, 1.0, 2.0, 2.0]
    """
    x = tensor_arg(x, "repeat")
    if axis is None:
        x, axis = x.reshape(-1), 0
    (axis,) = axis_tuple(axis, x.ndim, "repeat")
    xp, device = x.backend.xp, x._device
    n = x.shape[axis]
    if isinstance(repeats, int):
        if repeats < 0:
            raise ValueError(f"repeat: repeats must be non-negative, not {repeats}")
        counts: Any = repeats
    else:
        counts = tensor_arg(repeats, "repeat", "repeats")
        if x.backend.lazy:
            raise ValueError("repeat: an array of repeats gives a data-dependent shape, which the lazy backend "
                             f"{x.backend.name!r} does not compute early; pass an int")
        if counts.shape not in ((n,), (1,)):
            raise ValueError(f"repeat: repeats of shape {counts.shape} for an axis of size {n}")
        counts = counts.data
    index = xp.repeat(xp.arange(n, device=device), counts)
    return x[(slice(None),) * axis + (Tensor(index, x.backend),)]


def reshape(x: Tensor, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Tensor:
    """`x` with a new shape (one size may be -1); `copy=True` gives a copy (in the graph).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.reshape(xp.arange(6), (2, -1))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    x = tensor_arg(x, "reshape")
    shape = tuple(shape)
    known = math.prod(s for s in shape if s != -1)
    if shape.count(-1) > 1 or (shape.count(-1) == 0 and known != x.size) or (known and x.size % known):
        raise ValueError(f"reshape: cannot reshape an array of shape {x.shape} to {shape}")
    out = x.reshape(shape)
    return out.clone() if copy else out


def roll(x: Tensor, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None) -> Tensor:
    """`x` rolled by `shift` along `axis` (flattened when None).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.roll(xp.asarray([1, 2, 3, 4]), 1)
        tensor([4, 1, 2, 3])
        >>> xp.roll(xp.asarray([[1, 2], [3, 4]]), -1, axis=0)
        tensor([[3, 4],
                [1, 2]])
    """
    return tensor_arg(x, "roll").roll(shift, axis)


def squeeze(x: Tensor, /, axis: int | tuple[int, ...]) -> Tensor:
    """`x` without the size-1 axes `axis`; an axis of another size is a ValueError.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.squeeze(xp.zeros((1, 3, 1)), axis=(0, 2)).shape
        (3,)
    """
    x = tensor_arg(x, "squeeze")
    axes = axis_tuple(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return x.squeeze(axes) if axes else x


def stack(arrays: tuple[Tensor, ...] | list[Tensor], /, *, axis: int = 0) -> Tensor:
    """The same-shaped arrays joined along a new axis.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.stack([xp.asarray([1, 2]), xp.asarray([3, 4])])
        tensor([[1, 2],
                [3, 4]])
        >>> xp.stack([xp.asarray([1, 2]), xp.asarray([3, 4])], axis=1)
        tensor([[1, 3],
                [2, 4]])
    """
    return _stack(_tensors(arrays, "stack"), dim=axis)


def tile(x: Tensor, repetitions: tuple[int, ...], /) -> Tensor:
    """`x` tiled `repetitions` times along each axis.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.tile(xp.asarray([1, 2]), (2, 2))
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
    """
    return tensor_arg(x, "tile").tile(*repetitions)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of `x` along `axis` (`x.unbind`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.unstack(xp.asarray([[1, 2], [3, 4]]), axis=1)
        (tensor([1, 3]), tensor([2, 4]))
    """
    x = tensor_arg(x, "unstack")
    (axis,) = axis_tuple(axis, x.ndim, "unstack")
    return tuple(x.unbind(axis))
