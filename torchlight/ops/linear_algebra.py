"""Linear algebra: matrix multiplication (`@`) with the array API's shape rules.

Example:
    >>> import torchlight as tl
    >>> a = tl.tensor([[1.0, 2.0]], requires_grad=True)
    >>> (a @ tl.tensor([[3.0], [4.0]])).sum().backward()
    >>> a.grad.tolist()
    [[3.0, 4.0]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function
from torchlight.ops.common import broadcast_shapes
from torchlight.ops.complex_numbers import conj
from torchlight.ops.shapes import sum_to

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def matmul(a: Any, b: Any) -> Any:
    """`a @ b` with its shapes checked first (names both on a mismatch)."""
    if a.backend is not b.backend or a.backend.multi_device:
        check_same_backend("MatMul", a, b)
    sa, sb = a.data.shape, b.data.shape
    if not sa or not sb:
        raise ValueError(f"MatMul: shapes {a.shape} and {b.shape}: 0-d tensors cannot be matrix-multiplied")
    k_a = sa[-1]
    k_b = sb[0] if len(sb) == 1 else sb[-2]
    if k_a != k_b:
        raise ValueError(f"MatMul: shapes {a.shape} and {b.shape}: inner dimensions {k_a} and {k_b} differ")
    if len(sa) > 2 and len(sb) > 2 and sa[:-2] != sb[:-2]:
        try:
            broadcast_shapes("MatMul", a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise ValueError(f"MatMul: shapes {a.shape} and {b.shape}: batch dimensions {a.shape[:-2]} and "
                             f"{b.shape[:-2]} cannot be broadcast together") from None
    return MatMul.apply(a, b)


class MatMul(Function):
    """`a @ b` with the array-API shape rules (1-d operands included)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return a.data @ b.data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a, b = conj(a), conj(b)  # (the identity for real tensors: g @ conj(b).mT, conj(a).mT @ g)
        if a.ndim == 1 and b.ndim == 1:
            return (g * b if need_a else None), (g * a if need_b else None)
        if a.ndim == 1:
            ga = sum_to(g.reshape(g.shape[:-1] + (1, g.shape[-1])) @ b.mT, a.shape, "MatMul") if need_a else None
            gb = (a.reshape((a.shape[0], 1)) @ g.reshape(g.shape[:-1] + (1, g.shape[-1]))) if need_b else None
            return ga, gb
        if b.ndim == 1:
            ga = g.reshape(g.shape + (1,)) @ b.reshape((1, b.shape[0])) if need_a else None
            gb = (a.mT @ g.reshape(g.shape + (1,))).reshape(a.shape[:-2] + (a.shape[-1],)) if need_b else None
            return ga, gb
        return (g @ b.mT if need_a else None), (a.mT @ g if need_b else None)


class LinearAlgebraMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def __matmul__(self: Tensor, other: Any) -> Tensor:
        return matmul(self, self._lift(other))

    def __rmatmul__(self: Tensor, other: Any) -> Tensor:
        return matmul(self._lift(other), self)
