"""Linear algebra: matrix multiplication (`@`) with the array API's shape rules.

Example:
    >>> import torchlight as tl
    >>> a = tl.tensor([[1.0, 2.0]], requires_grad=True)
    >>> (a @ tl.tensor([[3.0], [4.0]])).sum().backward()
    >>> a.grad.tolist()
    [[3.0, 4.0]]
"""

from __future__ import annotations

import math
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
        if g.backend.complex_of.get(g.data.dtype) is not False:  # complex: g @ conj(b).mT, conj(a).mT @ g
            a, b = conj(a), conj(b)
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


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """The sum of products of `a` and `b` over the dims `dims` names (PyTorch's `tensordot`): an int n
    (a's last n with b's first n), or a pair of sequences (a's dims, b's dims, paired in order). The
    result has a's other dims then b's; differentiable in both (a permute, a reshape and a matmul).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> out = tl.tensordot(a, tl.tensor([1.0, 10.0]), dims=([1], [0]))
        >>> out.sum().backward()
        >>> out.tolist(), a.grad.tolist()
        ([21.0, 43.0], [[1.0, 10.0], [1.0, 10.0]])
    """
    if not getattr(a, "_is_tensor", False):
        a = b._lift(a)
    b = a._lift(b)
    check_same_backend("tensordot", a, b)
    if hasattr(dims, "__index__"):
        n = dims.__index__()
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(f"tensordot: dims={n} for tensors of shapes {a.shape} and {b.shape} (it must be "
                             "between 0 and both of their numbers of dims)")
        da, db = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        try:
            first, second = dims
        except (TypeError, ValueError):
            raise TypeError(f"tensordot: dims must be an int or a pair of sequences of dims, not {dims!r}") from None
        first = [first] if hasattr(first, "__index__") else list(first)
        second = [second] if hasattr(second, "__index__") else list(second)
        if len(first) != len(second):
            raise ValueError(f"tensordot: dims {dims!r} pair {len(first)} dims of a with {len(second)} of b")
        da = [_dim_of("tensordot", a, d) for d in first]
        db = [_dim_of("tensordot", b, d) for d in second]
        for name, found in (("a", da), ("b", db)):
            if len(set(found)) != len(found):
                raise ValueError(f"tensordot: dims {dims!r} name a dim of {name} twice")
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shapes {a.shape} and {b.shape}: dim {i} of a (size {a.shape[i]}) and dim "
                             f"{j} of b (size {b.shape[j]}) differ")
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [j for j in range(b.ndim) if j not in db]
    k = math.prod(a.shape[i] for i in da)
    left = a.permute(*free_a, *da).reshape(math.prod(a.shape[i] for i in free_a), k)
    right = b.permute(*db, *free_b).reshape(k, math.prod(b.shape[j] for j in free_b))
    out = matmul(left, right)
    return out.reshape(*(a.shape[i] for i in free_a), *(b.shape[j] for j in free_b))


def vecdot(a: Tensor, b: Tensor, dim: int = -1) -> Tensor:
    """The dot product of the vectors along `dim`, sum(conj(a) * b), the other dims broadcasting (the
    standard's `vecdot`, PyTorch's `torch.linalg.vecdot`); `dim` names a dim of the broadcast shape,
    and both sizes along it must agree. Differentiable in both.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.linear_algebra import vecdot
        >>> a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> out = vecdot(a, tl.tensor([1.0, 10.0]))
        >>> out.sum().backward()
        >>> out.tolist(), a.grad.tolist()
        ([21.0, 43.0], [[1.0, 10.0], [1.0, 10.0]])
    """
    if not getattr(a, "_is_tensor", False):
        a = b._lift(a)
    b = a._lift(b)
    check_same_backend("vecdot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"vecdot: shapes {a.shape} and {b.shape}: 0-d tensors have no vectors")
    n = max(a.ndim, b.ndim)
    if not hasattr(dim, "__index__") or not -n <= dim.__index__() < n:
        raise IndexError(f"vecdot: dim {dim!r} is out of range for the broadcast shape of {a.shape} and {b.shape}")
    d = dim.__index__() % n
    a = a.reshape(*((1,) * (n - a.ndim) + a.shape))
    b = b.reshape(*((1,) * (n - b.ndim) + b.shape))
    if a.shape[d] != b.shape[d]:
        raise ValueError(f"vecdot: shapes {a.shape} and {b.shape}: the sizes along dim {dim} ({a.shape[d]} and "
                         f"{b.shape[d]}) differ")
    try:
        broadcast_shapes("vecdot", a.shape, b.shape)
    except ValueError:
        raise ValueError(f"vecdot: shapes {a.shape} and {b.shape} cannot be broadcast together") from None
    if a.backend.xp.isdtype(a.dtype, "complex floating"):
        conj = getattr(a, "conj", None)
        if conj is None:
            raise TypeError("vecdot: complex inputs need conj, which this build has not got")
        a = conj()
    out = matmul(a.movedim(d, -1).unsqueeze(-2), b.movedim(d, -1).unsqueeze(-1))
    return out.reshape(*out.shape[:-2])


def _dim_of(op: str, x: Tensor, d: Any) -> int:
    if not hasattr(d, "__index__") or not -max(x.ndim, 1) <= d.__index__() < max(x.ndim, 1):
        raise IndexError(f"{op}: dim {d!r} is out of range for a tensor of shape {x.shape}")
    return d.__index__() % max(x.ndim, 1)
