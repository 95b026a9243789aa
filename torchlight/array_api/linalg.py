"""`torchlight.array_api.linalg`: the array API 2024.12 linalg extension over Tensors, differentiable.

The 23 functions with the standard's signatures (positional-only arrays, keyword-only options:
`axis`, `keepdims`, `offset`, `rtol`), over the same ops as `torchlight.linalg` (PyTorch's face).
Where the two faces differ, this one keeps the standard's rule: `solve(x1, x2)` takes a 1-d `x2` as
one vector for every matrix of the batch (PyTorch also takes a batch of vectors of shape
x1.shape[:-1]), `matrix_rank` and `pinv` take `rtol` only (default max(M, N) * eps of x's dtype),
`diagonal` and `trace` read the last two axes, and `trace`'s dtype follows the standard's sum. The
results of several arrays are the standard's named tuples (`EighResult`, `QRResult`,
`SlogdetResult`, `SVDResult`).

Example:
    >>> import torchlight as tl
    >>> import torchlight.array_api as xp
    >>> a = tl.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> x = xp.linalg.solve(a, xp.asarray([1.0, 1.0]))
    >>> xp.sum(x).backward()
    >>> [round(v, 4) for v in x.tolist()], a.grad.shape
    ([0.4, 0.2], (2, 2))
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from torchlight import linalg as _linalg
from torchlight.array_api._data_type_functions import result_type
from torchlight.array_api._helpers import pair, tensor_arg
from torchlight.array_api._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from torchlight.array_api._statistical import sum as _sum
from torchlight.ops import linear_algebra, norms
from torchlight.ops.decompositions import EighResult, QRResult, SlogdetResult, SVDResult
from torchlight.tensor import Tensor

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]

def _square(x: Tensor, fn: str) -> Tensor:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{fn}: x must be a square matrix or a stack of them (..., M, M), not shape {x.shape}")
    return x


def _matrices(x: Tensor, fn: str) -> Tensor:
    if x.ndim < 2:
        raise ValueError(f"{fn}: x must have at least 2 dimensions (a matrix or a stack of them), not shape {x.shape}")
    return x


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of a symmetric (Hermitian) positive-definite matrix or stack.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.cholesky(xp.asarray([[4.0, 2.0], [2.0, 2.0]]), upper=True).tolist()
        [[2.0, 1.0], [0.0, 1.0]]
    """
    return _linalg.cholesky(_square(tensor_arg(x, "linalg.cholesky"), "linalg.cholesky"), upper=upper)


def cross(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The cross product of the 3-vectors along `axis` (counted from the end; the other axes broadcast).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.cross(xp.asarray([0.0, 0.0, 1.0]), xp.asarray([1.0, 0.0, 0.0])).tolist()
        [0.0, 1.0, 0.0]
    """
    a, b = tensor_arg(x1, "linalg.cross", "x1"), tensor_arg(x2, "linalg.cross", "x2")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"linalg.cross: axis must be an int, not {axis!r}")
    n = min(a.ndim, b.ndim)
    if not -n <= axis < n:
        raise IndexError(f"linalg.cross: axis {axis} is out of range for x1 of shape {a.shape} and x2 of shape "
                         f"{b.shape}")
    if axis >= 0:  # counted from the front of the shorter array: the same axis from the end
        axis -= n
    return linear_algebra.cross(a, b, axis)


def det(x: Tensor, /) -> Tensor:
    """The determinant of a square matrix or stack.

    Example:
        >>> import torchlight.array_api as xp
        >>> round(xp.linalg.det(xp.asarray([[1.0, 2.0], [3.0, 4.0]])).item(), 6)
        -2.0
    """
    return _linalg.det(_square(tensor_arg(x, "linalg.det"), "linalg.det"))


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    """The diagonal `offset` of the last two axes.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.diagonal(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), offset=-1).tolist()
        [3.0]
    """
    return linear_algebra.diagonal(_matrices(tensor_arg(x, "linalg.diagonal"), "linalg.diagonal"), offset, -2, -1)


def eigh(x: Tensor, /) -> EighResult:
    """The eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix or stack.

    Example:
        >>> import torchlight.array_api as xp
        >>> w, v = xp.linalg.eigh(xp.asarray([[2.0, 0.0], [0.0, 1.0]]))
        >>> w.tolist()
        [1.0, 2.0]
    """
    return _linalg.eigh(_square(tensor_arg(x, "linalg.eigh"), "linalg.eigh"))


def eigvalsh(x: Tensor, /) -> Tensor:
    """The eigenvalues (ascending) of a symmetric (Hermitian) matrix or stack.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.eigvalsh(xp.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
        [1.0, 2.0]
    """
    return _linalg.eigvalsh(_square(tensor_arg(x, "linalg.eigvalsh"), "linalg.eigvalsh"))


def inv(x: Tensor, /) -> Tensor:
    """The inverse of a square matrix or stack.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.inv(xp.asarray([[2.0, 0.0], [0.0, 0.5]])).tolist()
        [[0.5, 0.0], [0.0, 2.0]]
    """
    return _linalg.inv(_square(tensor_arg(x, "linalg.inv"), "linalg.inv"))


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    """The matrix norm `ord` ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) of the last two axes.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.matrix_norm(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), ord=xp.inf).item()
        7.0
    """
    t = _matrices(tensor_arg(x, "linalg.matrix_norm"), "linalg.matrix_norm")
    return norms.matrix_norm(t, ord, (-2, -1), keepdims)


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    """The square matrix (or stack) to the integer power `n`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.matrix_power(xp.asarray([[2.0, 0.0], [0.0, 1.0]]), 3).tolist()
        [[8.0, 0.0], [0.0, 1.0]]
    """
    return linear_algebra.matrix_power(tensor_arg(x, "linalg.matrix_power"), n)


def _rtol(x: Tensor, rtol: Any, fn: str) -> Any:
    """The standard's rtol (None: max(M, N) * eps of x's real dtype) as PyTorch's keyword takes it."""
    if rtol is None or isinstance(rtol, Tensor):
        return rtol
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real):
        raise TypeError(f"{fn}: rtol must be None, a float or an array, not {rtol!r}")
    return float(rtol)


def matrix_rank(x: Tensor, /, *, rtol: float | Tensor | None = None) -> Tensor:
    """The number of singular values above rtol * the largest (the default integer dtype); no gradient.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.matrix_rank(xp.asarray([[1.0, 0.0], [0.0, 1e-20]])).item()
        1
    """
    t = tensor_arg(x, "linalg.matrix_rank")
    _matrices(t, "linalg.matrix_rank")
    return _linalg.matrix_rank(t, rtol=_rtol(t, rtol, "linalg.matrix_rank"))


def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The outer product of two vectors.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.outer(xp.asarray([1.0, 2.0]), xp.asarray([3.0])).tolist()
        [[3.0], [6.0]]
    """
    a, b = tensor_arg(x1, "linalg.outer", "x1"), tensor_arg(x2, "linalg.outer", "x2")
    return linear_algebra.outer(a, b)


def pinv(x: Tensor, /, *, rtol: float | Tensor | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values at or below rtol * the largest taken as 0).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.pinv(xp.asarray([[0.0, 2.0]])).tolist()
        [[0.0], [0.5]]
    """
    t = tensor_arg(x, "linalg.pinv")
    _matrices(t, "linalg.pinv")
    return _linalg.pinv(t, rtol=_rtol(t, rtol, "linalg.pinv"))


def qr(x: Tensor, /, *, mode: str = "reduced") -> QRResult:
    """The QR decomposition, `mode` "reduced" or "complete".

    Example:
        >>> import torchlight.array_api as xp
        >>> q, r = xp.linalg.qr(xp.asarray([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))
        >>> q.shape, r.shape
        ((3, 2), (2, 2))
    """
    t = tensor_arg(x, "linalg.qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', not {mode!r}")
    _matrices(t, "linalg.qr")
    return _linalg.qr(t, mode)


def slogdet(x: Tensor, /) -> SlogdetResult:
    """The sign and the natural log of the absolute value of the determinant.

    Example:
        >>> import torchlight.array_api as xp
        >>> sign, logabsdet = xp.linalg.slogdet(xp.asarray([[0.0, 1.0], [1.0, 0.0]]))
        >>> sign.item(), logabsdet.item()
        (-1.0, 0.0)
    """
    return _linalg.slogdet(_square(tensor_arg(x, "linalg.slogdet"), "linalg.slogdet"))


def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    """X with x1 @ X = x2. A 1-d x2 of shape (M,) is one vector for every matrix of x1 (the result has
    shape x1.shape[:-2] + (M,)); otherwise x2 is a (stack of) M x K matrices, the stacks broadcasting
    (the standard's rule; PyTorch's would also read a batch of vectors there).

    Example:
        >>> import torchlight.array_api as xp
        >>> a = xp.stack([xp.eye(2), 2 * xp.eye(2)])
        >>> xp.linalg.solve(a, xp.asarray([2.0, 4.0])).tolist()
        [[2.0, 4.0], [1.0, 2.0]]
    """
    a, b = pair(x1, x2, "linalg.solve", kinds=())
    _square(a, "linalg.solve")
    if a.dtype != b.dtype:  # the standard's type promotion (PyTorch's solve wants one dtype)
        dtype = result_type(a, b)
        a, b = a.astype(dtype), b.astype(dtype)
    m = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ValueError(f"linalg.solve: x2 of shape {b.shape} does not match x1 of shape {a.shape} "
                             f"(it needs {m} elements)")
        column = b.reshape(*((1,) * (a.ndim - 2)), m, 1)  # as many dims as x1: read as a matrix
        out = _linalg.solve(a, column)
        return out.reshape(*out.shape[:-1])
    if b.shape[-2] != m:
        raise ValueError(f"linalg.solve: x2 of shape {b.shape} does not match x1 of shape {a.shape} "
                         f"(its matrices need {m} rows)")
    if b.ndim < a.ndim:  # one more leading 1 than PyTorch's batch-of-vectors reading could take
        b = b.reshape(*((1,) * (a.ndim - b.ndim)), *b.shape)
    return _linalg.solve(a, b)


def svd(x: Tensor, /, *, full_matrices: bool = True) -> SVDResult:
    """x = U @ diag(S) @ Vh, S descending.

    Example:
        >>> import torchlight.array_api as xp
        >>> u, s, vh = xp.linalg.svd(xp.asarray([[0.0, 3.0], [2.0, 0.0]]))
        >>> [round(v, 6) for v in s.tolist()]
        [3.0, 2.0]
    """
    t = tensor_arg(x, "linalg.svd")
    _matrices(t, "linalg.svd")
    return _linalg.svd(t, full_matrices)


def svdvals(x: Tensor, /) -> Tensor:
    """The singular values, descending.

    Example:
        >>> import torchlight.array_api as xp
        >>> [round(v, 6) for v in xp.linalg.svdvals(xp.asarray([[0.0, 3.0], [2.0, 0.0]])).tolist()]
        [3.0, 2.0]
    """
    t = tensor_arg(x, "linalg.svdvals")
    _matrices(t, "linalg.svdvals")
    return _linalg.svdvals(t)


def trace(x: Tensor, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    """The sum of the diagonal `offset` of the last two axes, in `dtype` (the standard's sum rules:
    a small integer type sums in the default integer).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.trace(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), offset=1).item()
        2.0
    """
    d = linear_algebra.diagonal(_matrices(tensor_arg(x, "linalg.trace"), "linalg.trace"), offset, -2, -1)
    return _sum(d, axis=-1, dtype=dtype)


def vector_norm(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: Any = 2) -> Tensor:
    """The vector norm `ord` over `axis` (None: all elements as one vector).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linalg.vector_norm(xp.asarray([[3.0, 4.0], [0.0, 1.0]]), axis=1).tolist()
        [5.0, 1.0]
    """
    t = tensor_arg(x, "linalg.vector_norm")
    if isinstance(axis, Sequence) and not isinstance(axis, tuple):
        raise TypeError(f"linalg.vector_norm: axis must be None, an int or a tuple of ints, not {axis!r}")
    return norms.vector_norm(t, ord, axis, keepdims)
