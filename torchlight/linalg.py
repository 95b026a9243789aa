"""`torchlight.linalg`: linear algebra with PyTorch's `torch.linalg` names and signatures, differentiable
(first and second order), batched over the leading dims, on every backend (each uses its own
library's linalg). See docs/linalg.md for the gradients and where they are not defined.

The decompositions (cholesky, solve, eigh, svd, qr, ...) are `torchlight.ops.decompositions`; the
norms `torchlight.ops.norms`; cross, diagonal, matrix_power, multi_dot, vecdot
`torchlight.ops.linear_algebra`. The results of several arrays are named tuples with PyTorch's
field names (which are also the standard's): `eigh(A).eigenvalues`, `svd(A).Vh`, `slogdet(A).logabsdet`.

Example:
    >>> import torchlight as tl
    >>> a = tl.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> y = tl.linalg.vector_norm(tl.linalg.matrix_power(a, 2), dim=-1)
    >>> y.sum().backward()
    >>> [round(v, 4) for v in y.tolist()], a.grad.shape
    ([7.0711, 11.1803], (2, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight.array_functions import _tensor_of
from torchlight.ops import decompositions, linear_algebra, norms
from torchlight.ops.decompositions import EighResult, QRResult, SlogdetResult, SVDResult
from torchlight.tensor import Tensor

__all__ = ["EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv",
           "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "vecdot", "vector_norm"]


def cholesky(A: Any, *, upper: bool = False) -> Tensor:
    """The Cholesky factor L (A = L @ L^H) of a Hermitian positive-definite matrix or batch.

    With `upper=True`, U with A = U^H @ U. A matrix that is not positive-definite is a ValueError naming the batch
    element.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.cholesky(tl.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
        [[2.0, 0.0], [1.0, 1.0]]
    """
    return decompositions.cholesky(_tensor_of("linalg.cholesky", A), upper=upper)


def cross(input: Any, other: Any, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along `dim`, the other dims broadcasting.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.cross(tl.tensor([1.0, 0.0, 0.0]), tl.tensor([0.0, 1.0, 0.0])).tolist()
        [0.0, 0.0, 1.0]
    """
    return linear_algebra.cross(_tensor_of("linalg.cross", input), other, dim)


def det(A: Any) -> Tensor:
    """The determinant of a square matrix or batch.

    Its gradient det(A) A^-H is undefined where A is singular (the gradient there is computed through the inverse
    and is not finite).

    Example:
        >>> import torchlight as tl
        >>> round(tl.linalg.det(tl.tensor([[2.0, 1.0], [1.0, 3.0]])).item(), 6)
        5.0
    """
    return decompositions.det(_tensor_of("linalg.det", A))


def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal `offset` of the matrices spanned by `dim1` and `dim2`, as the last dim.

    `dim1` and `dim2` are the last two by default.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.diagonal(tl.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
        [1.0, 4.0]
    """
    return linear_algebra.diagonal(_tensor_of("linalg.diagonal", A), offset, dim1, dim2)


def eigh(A: Any, UPLO: str = "L") -> EighResult:
    """The eigenvalues (ascending) and orthonormal eigenvectors (columns) of a Hermitian matrix or batch.

    It reads the lower (`UPLO="L"`) or upper triangle. The eigenvectors' gradient is undefined where eigenvalues
    repeat, and each eigenvector is defined up to its sign (phase): a loss must not depend on it.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.linalg.eigh(tl.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()]
        [1.0, 3.0]
    """
    return decompositions.eigh(_tensor_of("linalg.eigh", A), UPLO=UPLO)


def eigvalsh(A: Any, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of a Hermitian matrix or batch.

    The gradient is defined everywhere the eigenvalues are distinct.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.linalg.eigvalsh(tl.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()]
        [1.0, 2.0]
    """
    return decompositions.eigvalsh(_tensor_of("linalg.eigvalsh", A), UPLO=UPLO)


def inv(A: Any) -> Tensor:
    """The inverse of a square matrix or batch; a singular one is a ValueError naming the batch element.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.inv(tl.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    return decompositions.inv(_tensor_of("linalg.inv", A))


def matmul(input: Any, other: Any) -> Tensor:
    """`input @ other` (NumPy's matmul rules).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.matmul(tl.tensor([[1.0, 2.0]]), tl.tensor([[3.0], [4.0]])).tolist()
        [[11.0]]
    """
    a = _tensor_of("linalg.matmul", input)
    return linear_algebra.matmul(a, a._lift(other))


def matrix_norm(A: Any, ord: float | str = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The matrix norm `ord` ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) over the dims `dim`.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.matrix_norm(tl.tensor([[3.0, 0.0], [0.0, -4.0]]), ord=1).item()
        4.0
    """
    return norms.matrix_norm(_tensor_of("linalg.matrix_norm", A), ord, dim, keepdim, dtype=dtype)


def matrix_power(A: Any, n: int) -> Tensor:
    """The square matrix (or batch) to the integer power `n` (n < 0: of its inverse).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.matrix_power(tl.tensor([[1.0, 1.0], [0.0, 1.0]]), 4).tolist()
        [[1.0, 4.0], [0.0, 1.0]]
    """
    return linear_algebra.matrix_power(_tensor_of("linalg.matrix_power", A), n)


def matrix_rank(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The number of singular values above max(atol, rtol * the largest); no gradient.

    PyTorch's defaults: rtol = eps * max(m, n) when both are None.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.matrix_rank(tl.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
        1
    """
    return decompositions.matrix_rank(_tensor_of("linalg.matrix_rank", A), atol=atol, rtol=rtol,
                                      hermitian=hermitian)


def multi_dot(tensors: Sequence[Any]) -> Tensor:
    """The product of a chain of matrices in the cheapest order (first and last may be 1-d).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.multi_dot([tl.ones(2), tl.ones(2, 3), tl.ones(3)]).item()
        6.0
    """
    if isinstance(tensors, Tensor):
        raise TypeError("linalg.multi_dot: expected a sequence of tensors, not one Tensor")
    return linear_algebra.multi_dot([_tensor_of("linalg.multi_dot", t) for t in tensors])


def norm(A: Any, ord: float | str | None = None, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:
    """A vector or matrix norm, chosen as `torch.linalg.norm` does (see `torchlight.ops.norms.norm`).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.norm(tl.tensor([3.0, 4.0])).item()
        5.0
    """
    return norms.norm(_tensor_of("linalg.norm", A), ord, dim, keepdim, dtype=dtype)


def pinv(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse.

    Singular values at or below max(atol, rtol * the largest) are taken as 0. Its gradient is undefined where the
    rank changes (a singular value at the cut).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.pinv(tl.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    return decompositions.pinv(_tensor_of("linalg.pinv", A), atol=atol, rtol=rtol,
                               hermitian=hermitian)


def qr(A: Any, mode: str = "reduced") -> QRResult:
    """The QR decomposition ("reduced", "complete" or "r"); the gradient needs full column rank.

    Example:
        >>> import torchlight as tl
        >>> q, r = tl.linalg.qr(tl.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> [round(abs(v), 4) for v in r.diagonal().tolist()]
        [5.0, 0.4]
    """
    return decompositions.qr(_tensor_of("linalg.qr", A), mode=mode)


def slogdet(A: Any) -> SlogdetResult:
    """The sign (phase, for complex) of the determinant and log |det|.

    logabsdet's gradient is A^-H, undefined at a singular A (where logabsdet is -inf).

    Example:
        >>> import torchlight as tl
        >>> sign, logabsdet = tl.linalg.slogdet(tl.tensor([[-2.0, 0.0], [0.0, 1.0]]))
        >>> sign.item(), round(logabsdet.item(), 6)
        (-1.0, 0.693147)
    """
    return decompositions.slogdet(_tensor_of("linalg.slogdet", A))


def solve(A: Any, B: Any, *, left: bool = True) -> Tensor:
    """X with A @ X = B (`left=False`: X @ A = B).

    PyTorch's rule for a vector B (B.ndim == 1, or a batch of vectors of shape `A.shape[:-1]`); the gradient goes
    through solves with A^H, not an inverse.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.solve(tl.tensor([[2.0, 0.0], [0.0, 4.0]]), tl.tensor([2.0, 2.0])).tolist()
        [1.0, 0.5]
    """
    a = _tensor_of("linalg.solve", A)
    return decompositions.solve(a, a._lift(B), left=left)


def solve_triangular(A: Any, B: Any, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A @ X = B for a triangular A, B a matrix or batch (`left=False`: X @ A = B).

    `upper` says which triangle is read; with `unitriangular`, its diagonal is taken as ones.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> tl.linalg.solve_triangular(a, tl.tensor([[2.0], [3.0]]), upper=False).tolist()
        [[1.0], [2.0]]
    """
    a = _tensor_of("linalg.solve_triangular", A)
    return decompositions.solve_triangular(a, a._lift(B), upper=upper, left=left,
                                           unitriangular=unitriangular)


def svd(A: Any, full_matrices: bool = True) -> SVDResult:
    """A = U @ diag(S) @ Vh, S descending.

    The gradient of U and Vh is undefined at repeated singular values (and, with full_matrices, for the columns
    beyond the rank), and each singular pair is defined up to a common sign (phase): a loss must not depend on it.

    Example:
        >>> import torchlight as tl
        >>> [round(s, 6) for s in tl.linalg.svd(tl.tensor([[3.0, 0.0], [0.0, -2.0]])).S.tolist()]
        [3.0, 2.0]
    """
    return decompositions.svd(_tensor_of("linalg.svd", A), full_matrices=full_matrices)


def svdvals(A: Any) -> Tensor:
    """The singular values, descending; their gradient U diag(g) Vh is defined where they are distinct.

    Example:
        >>> import torchlight as tl
        >>> [round(s, 6) for s in tl.linalg.svdvals(tl.tensor([[0.0, 2.0], [1.0, 0.0]])).tolist()]
        [2.0, 1.0]
    """
    return decompositions.svdvals(_tensor_of("linalg.svdvals", A))


def vecdot(x: Any, y: Any, *, dim: int = -1) -> Tensor:
    """sum(conj(x) * y) along `dim`, the other dims broadcasting.

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.vecdot(tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0])).item()
        11.0
    """
    return linear_algebra.vecdot(_tensor_of("linalg.vecdot", x), y, dim)


def vector_norm(x: Any, ord: float = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The vector `ord`-norm over `dim` (None: all elements); every real ord, inf and -inf, 0 (a count).

    Example:
        >>> import torchlight as tl
        >>> tl.linalg.vector_norm(tl.tensor([[3.0, 4.0], [6.0, 8.0]]), dim=1).tolist()
        [5.0, 10.0]
    """
    return norms.vector_norm(_tensor_of("linalg.vector_norm", x), ord, dim, keepdim, dtype=dtype)
