"""Linear algebra: matrix multiplication (`@`) with the array API's shape rules, tensordot, vecdot,
cross, outer, diagonal, trace, matrix_power and multi_dot.

Example:
    >>> import torchlight as tl
    >>> a = tl.tensor([[1.0, 2.0]], requires_grad=True)
    >>> (a @ tl.tensor([[3.0], [4.0]])).sum().backward()
    >>> a.grad.tolist()
    [[3.0, 4.0]]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function
from torchlight.ops.common import broadcast_shapes
from torchlight.ops.complex_numbers import conj
from torchlight.ops.shapes import broadcast_tensors, stack, sum_to

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
    array_forward = True  # (its forward computes on the arrays alone)
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

    def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal `offset` of the matrices spanned by dims `dim1` and `dim2` (PyTorch's defaults,
        0 and 1), as the last dim of the result: `diagonal(self, offset, dim1, dim2)`.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).diagonal(1).tolist()
            [2.0]
        """
        return diagonal(self, offset, dim1, dim2)

    def trace(self: Tensor) -> Tensor:
        """The sum of the main diagonal of a matrix (2-d only, as PyTorch's `Tensor.trace`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).trace().item()
            5.0
        """
        if self.ndim != 2:
            raise ValueError(f"trace: expected a matrix (2 dims), not a tensor of shape {self.shape}; "
                             "torchlight.linalg.trace takes batches")
        return trace(self)

    def outer(self: Tensor, vec2: Any) -> Tensor:
        """The outer product with the vector `vec2` (both 1-d): `outer(self, vec2)`.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0]).outer(tl.tensor([3.0, 4.0])).tolist()
            [[3.0, 4.0], [6.0, 8.0]]
        """
        return outer(self, vec2)

    def cross(self: Tensor, other: Any, dim: int = -1) -> Tensor:
        """The cross product of 3-vectors along `dim`, broadcasting: `cross(self, other, dim)` (as
        `torch.linalg.cross`; PyTorch's method `Tensor.cross` defaults to the first size-3 dim, this one to -1).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 0.0, 0.0]).cross(tl.tensor([0.0, 1.0, 0.0])).tolist()
            [0.0, 0.0, 1.0]
        """
        return cross(self, other, dim)

    def matrix_power(self: Tensor, n: int) -> Tensor:
        """The matrix to the integer power `n`: `matrix_power(self, n)`.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 1.0], [0.0, 1.0]]).matrix_power(3).tolist()
            [[1.0, 3.0], [0.0, 1.0]]
        """
        return matrix_power(self, n)


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
    a, b = _lift_pair("tensordot", a, b)
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
    a, b = _lift_pair("vecdot", a, b)
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


def _lift_pair(op: str, a: Any, b: Any) -> tuple[Tensor, Tensor]:
    if not getattr(a, "_is_tensor", False):
        if not getattr(b, "_is_tensor", False):
            raise TypeError(f"{op}: at least one argument must be a Tensor, not {type(a).__name__} and "
                            f"{type(b).__name__}")
        a = b._lift(a)
    b = a._lift(b)
    check_same_backend(op, a, b)
    return a, b


def cross(a: Tensor, b: Tensor, dim: int = -1) -> Tensor:
    """The cross product of the 3-vectors along `dim` of `a` and `b`, the other dims broadcasting
    (`torch.linalg.cross`; `dim` names a dim of the broadcast shape, whose size must be 3 in both).
    Built from slices, products and a stack, so it is differentiable to any order (complex inputs
    included: no conjugation, as PyTorch).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> out = cross(a, tl.tensor([0.0, 0.0, 1.0]))
        >>> out.sum().backward()
        >>> out.tolist(), a.grad.tolist()
        ([2.0, -1.0, 0.0], [-1.0, 1.0, 0.0])
    """
    a, b = _lift_pair("cross", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"cross: shapes {a.shape} and {b.shape}: 0-d tensors have no vectors")
    n = max(a.ndim, b.ndim)
    if not hasattr(dim, "__index__") or isinstance(dim, bool) or not -n <= dim.__index__() < n:
        raise IndexError(f"cross: dim {dim!r} is out of range for the broadcast shape of {a.shape} and {b.shape}")
    d = dim.__index__() % n
    a = a.reshape(*((1,) * (n - a.ndim) + a.shape))
    b = b.reshape(*((1,) * (n - b.ndim) + b.shape))
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise ValueError(f"cross: shapes {a.shape} and {b.shape}: dim {dim} must have size 3 in both (3-vectors), "
                         f"not {a.shape[d]} and {b.shape[d]}")
    try:
        a, b = broadcast_tensors(a, b)
    except ValueError:
        raise ValueError(f"cross: shapes {a.shape} and {b.shape} cannot be broadcast together") from None
    a0, a1, a2 = (a[(slice(None),) * d + (i,)] for i in range(3))
    b0, b1, b2 = (b[(slice(None),) * d + (i,)] for i in range(3))
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim=d)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """The outer product a[i] * b[j] of two vectors (1-d; `torch.outer`, the standard's `linalg.outer`;
    no conjugation). Differentiable in both.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> outer(a, tl.tensor([3.0, 4.0, 5.0])).sum().backward()
        >>> a.grad.tolist()
        [12.0, 12.0]
    """
    a, b = _lift_pair("outer", a, b)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer: expected two vectors (1-d), not tensors of shapes {a.shape} and {b.shape}")
    return a.reshape(a.shape[0], 1) * b.reshape(1, b.shape[0])


def _diagonal_dims(op: str, x: Tensor, offset: Any, dim1: Any, dim2: Any) -> tuple[int, int, int]:
    if x.ndim < 2:
        raise ValueError(f"{op}: needs a matrix or a batch of them (2 or more dims), not a tensor of shape {x.shape}")
    if not hasattr(offset, "__index__") or isinstance(offset, bool):
        raise TypeError(f"{op}: offset must be an int, not {offset!r}")
    d1, d2 = _dim_of(op, x, dim1), _dim_of(op, x, dim2)
    if d1 == d2:
        raise ValueError(f"{op}: dim1 and dim2 must be two different dims, not both {d1}")
    return operator.index(offset), d1, d2


def _diagonal_geometry(n: int, m: int, k: int) -> tuple[int, int]:
    """(length, flat index of the first element) of the diagonal k of an n x m matrix."""
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    return length, (k if k >= 0 else -k * m)


class Diagonal(Function):
    """The diagonal `k` of the matrices spanned by dims d1 and d2, as the last dim (PyTorch's and the
    standard's layout): the matrix flattened and every (m + 1)-th element taken. Linear: its backward
    puts g back on that diagonal of zeros (DiagonalEmbed), whose backward is this op again."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, k: int, d1: int, d2: int) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a.shape, k, d1, d2)
        x = xp.moveaxis(a.data, (d1, d2), (-2, -1))
        n, m = x.shape[-2:]
        length, start = _diagonal_geometry(n, m, k)
        flat = xp.reshape(x, x.shape[:-2] + (n * m,))
        index = xp.arange(length, dtype=a.backend.default_int(a._device), device=a._device) * (m + 1) + start
        return xp.take(flat, index, axis=-1)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, k, d1, d2 = ctx.saved_tensors
        return DiagonalEmbed.apply(g, shape, k, d1, d2), None, None, None


class DiagonalEmbed(Function):
    """A tensor of `shape` that is 0 but for the diagonal k of dims d1, d2, which holds g's last dim
    (the backward of Diagonal; its own backward is Diagonal)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, g: Tensor, shape: tuple[int, ...], k: int, d1: int, d2: int) -> Any:
        xp = g.backend.xp
        ctx.save_for_backward(k, d1, d2)
        n, m = shape[d1], shape[d2]
        length = g.shape[-1]
        device, dtype = g._device, g.dtype
        rows = xp.reshape(xp.arange(n, device=device), (n, 1))
        cols = xp.reshape(xp.arange(m, device=device), (1, m))
        on = (cols - rows) == k
        batch = g.shape[:-1]
        if k >= 0:  # element (i, i + k) holds g[i]: g padded to n rows, spread along the columns
            pad = xp.zeros(batch + (n - length,), dtype=dtype, device=device)
            spread = xp.reshape(xp.concat([g.data, pad], axis=-1), batch + (n, 1))
        else:  # element (j - k, j) holds g[j]: g padded to m columns, spread along the rows
            pad = xp.zeros(batch + (m - length,), dtype=dtype, device=device)
            spread = xp.reshape(xp.concat([g.data, pad], axis=-1), batch + (1, m))
        out = xp.where(on, spread, xp.zeros((), dtype=dtype, device=device))
        return xp.moveaxis(out, (-2, -1), (d1, d2))

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        k, d1, d2 = ctx.saved_tensors
        return Diagonal.apply(h, k, d1, d2), None, None, None, None


def diagonal(x: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal `offset` (above the main one for offset > 0, below it for offset < 0) of the
    matrices spanned by dims `dim1` and `dim2`, as the last dim of the result
    (`torch.linalg.diagonal`'s defaults, the last two dims). Differentiable (the gradient lands on
    that diagonal, zeros elsewhere).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        >>> d = diagonal(x, offset=1)
        >>> d.sum().backward()
        >>> d.tolist(), x.grad.tolist()
        ([2.0, 6.0], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    k, d1, d2 = _diagonal_dims("diagonal", x, offset, dim1, dim2)
    return Diagonal.apply(x, k, d1, d2)


def trace(x: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The sum of the diagonal `offset` of the matrices spanned by `dim1` and `dim2` (the last two
    dims by default: a batch of traces). Integer and boolean inputs sum as `Tensor.sum` does.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
        >>> t = trace(x)
        >>> t.sum().backward()
        >>> t.tolist(), x.grad.tolist()
        ([5.0], [[[1.0, 0.0], [0.0, 1.0]]])
    """
    k, d1, d2 = _diagonal_dims("trace", x, offset, dim1, dim2)
    return Diagonal.apply(x, k, d1, d2).sum(-1)


def _square(op: str, x: Tensor) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{op}: expected a square matrix or a batch of them (..., n, n), not a tensor of shape "
                         f"{x.shape}")


class PowerZero(Function):
    """A^0: identity matrices of A's shape and dtype, in the graph with gradient 0 (PyTorch's)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a.shape)
        eye = xp.eye(a.shape[-1], dtype=a.dtype, device=a._device)
        return xp.broadcast_to(eye, a.shape) if a.ndim > 2 else eye

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (shape,) = ctx.saved_tensors
        return (type(g)._wrap(g.backend.xp.zeros(shape, dtype=g.dtype, device=g._device), g.backend),)


def matrix_power(x: Tensor, n: int) -> Tensor:
    """x @ x @ ... (n times) for square matrices (batched over the leading dims), by repeated
    squaring; n = 0 gives the identity (its gradient 0), n < 0 the power of the inverse
    (`torch.linalg.matrix_power`). Differentiable through the products (and the inverse).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[2.0, 0.0], [0.0, 3.0]], requires_grad=True)
        >>> matrix_power(a, 2).sum().backward()
        >>> a.grad.tolist(), matrix_power(a, -1).tolist()
        ([[4.0, 5.0], [5.0, 6.0]], [[0.5, 0.0], [0.0, 0.3333333333333333]])
    """
    if not hasattr(n, "__index__") or isinstance(n, bool):
        raise TypeError(f"matrix_power: n must be an int, not {n!r}")
    n = operator.index(n)
    _square("matrix_power", x)
    if n < 0:
        x, n = decompositions.inv(x), -n
    if n == 0:
        return PowerZero.apply(x)
    result: Tensor | None = None
    square = x
    while True:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if not n:
            return result  # type: ignore[return-value]
        square = matmul(square, square)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of two or more matrices in the cheapest order (the classic dynamic programme over
    the chain; `torch.linalg.multi_dot`): the first may be 1-d (a row vector) and the last 1-d (a
    column vector), the others 2-d. Differentiable in each.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> m = tl.tensor([[1.0, 0.0], [0.0, 2.0]])
        >>> out = multi_dot([a, m, tl.tensor([1.0, 1.0])])
        >>> out.backward()
        >>> out.item(), a.grad.tolist()
        (5.0, [1.0, 2.0])
    """
    try:
        parts = list(tensors)
    except TypeError:
        raise TypeError(f"multi_dot: expected a sequence of tensors, not {type(tensors).__name__}") from None
    if len(parts) < 2:
        raise ValueError(f"multi_dot: expected at least 2 tensors, not {len(parts)}")
    if not all(getattr(t, "_is_tensor", False) for t in parts):
        raise TypeError("multi_dot: every element must be a Tensor")
    for t in parts[1:]:
        check_same_backend("multi_dot", parts[0], t)
    first_vector, last_vector = parts[0].ndim == 1, parts[-1].ndim == 1
    if first_vector:
        parts[0] = parts[0].reshape(1, parts[0].shape[0])
    if last_vector:
        parts[-1] = parts[-1].reshape(parts[-1].shape[0], 1)
    for i, t in enumerate(parts):
        if t.ndim != 2:
            raise ValueError(f"multi_dot: tensor {i} has shape {tensors[i].shape}: the first and last must be "
                             "1-d or 2-d, the others 2-d")
        if i and parts[i - 1].shape[1] != t.shape[0]:
            raise ValueError(f"multi_dot: tensors {i - 1} and {i} have shapes {tensors[i - 1].shape} and "
                             f"{tensors[i].shape}, which cannot be multiplied")
    out = _chain(parts, _chain_order([parts[0].shape[0]] + [t.shape[1] for t in parts]), 0, len(parts) - 1)
    if first_vector and last_vector:
        return out.reshape()
    if first_vector:
        return out.reshape(out.shape[1])
    return out.reshape(out.shape[0]) if last_vector else out


def _chain_order(dims: list[int]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i..j splits (dims[i] x dims[i + 1] is matrix i)."""
    count = len(dims) - 1
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for span in range(1, count):
        for i in range(count - span):
            j = i + span
            cost[i][j], split[i][j] = min((cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1], s)
                                          for s in range(i, j))
    return split


def _chain(parts: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return parts[i]
    s = split[i][j]
    return matmul(_chain(parts, split, i, s), _chain(parts, split, s + 1, j))


# last, so that a decompositions module which imports this one finds it complete (matrix_power's
# negative powers call decompositions.inv at run time)
from torchlight.ops import decompositions  # noqa: E402
