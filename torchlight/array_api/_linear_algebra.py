"""Linear algebra functions of the main namespace: matmul, matrix_transpose, tensordot, vecdot."""

from __future__ import annotations

from collections.abc import Sequence

from torchlight.array_api._helpers import tensor_arg
from torchlight.ops import linear_algebra
from torchlight.tensor import Tensor

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    """`x1 @ x2` (NumPy's matmul rules: 1-d operands are vectors, batches broadcast).

    Example:
        >>> import torchlight.array_api as xp
        >>> a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> xp.matmul(a, xp.asarray([1.0, 1.0]))
        tensor([3., 7.])
        >>> xp.matmul(xp.ones((5, 2, 3)), xp.ones((3, 4))).shape
        (5, 2, 4)
    """
    return tensor_arg(x1, "matmul", "x1") @ tensor_arg(x2, "matmul", "x2")


def matrix_transpose(x: Tensor, /) -> Tensor:
    """The transpose of the last two axes (`x.mT`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.matrix_transpose(xp.asarray([[1, 2, 3], [4, 5, 6]]))
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
    """
    x = tensor_arg(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, not {x.ndim}")
    return x.mT


def tensordot(x1: Tensor, x2: Tensor, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Tensor:
    """The sum of products over the last `axes` axes of x1 and the first of x2 (or over the given pairs).

    Example:
        >>> import torchlight.array_api as xp
        >>> a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> xp.tensordot(a, xp.eye(2))
        tensor(5.)
        >>> xp.tensordot(xp.ones((2, 3)), xp.ones((3, 4)), axes=1).shape
        (2, 4)
        >>> xp.tensordot(xp.ones((3, 2)), xp.ones((3, 4)), axes=((0,), (0,))).shape
        (2, 4)
    """
    a, b = tensor_arg(x1, "tensordot", "x1"), tensor_arg(x2, "tensordot", "x2")
    return linear_algebra.tensordot(a, b, dims=axes)  # type: ignore[no-any-return]


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The dot product along `axis` (conjugating x1 where it is complex), broadcasting the rest.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, -1.0]))
        tensor([-1., -1.])
        >>> xp.vecdot(xp.asarray([1j]), xp.asarray([1j]))
        tensor(1.+0.j)
    """
    a, b = tensor_arg(x1, "vecdot", "x1"), tensor_arg(x2, "vecdot", "x2")
    return linear_algebra.vecdot(a, b, dim=axis)  # type: ignore[no-any-return]
