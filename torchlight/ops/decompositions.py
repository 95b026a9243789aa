"""Matrix decompositions and what is computed through them: cholesky, qr, eigh, svd, solve,
solve_triangular, cholesky_solve, inv, det, slogdet, pinv, matrix_rank (batched over leading dims).

PyTorch's `torch.linalg` semantics and keyword names. Each forward calls the
backend's own library (torchlight/backends/linalg.py says which); each
backward is written in Tensor ops with the standard formulas (PyTorch's
FunctionsManual.cpp and JAX's lax.linalg are the references), so it is
differentiable again (second order).

- `cholesky` and `solve` backward through triangular solves and solves,
  never an explicit inverse. Functions of a Hermitian matrix (cholesky,
  eigh) read one triangle of it but give the symmetric (Hermitian) gradient,
  as PyTorch: the derivative for the matrix taken as Hermitian.
- Several results (eigh, svd, qr, slogdet) come from one Function whose
  forward packs them into one array; each result is a view of it, so the
  backward gets them all at once and `ctx.output` (the packed result, in the
  graph) makes the backward differentiable again.
- `eigh` and `svd`: the gradient is defined for distinct eigenvalues
  (singular values); the terms 1 / (lambda_j - lambda_i) of a repeated pair
  are taken as 0 (so functions of the eigenvalues or singular values alone
  stay right there, where the eigenvectors' terms are undefined). The
  eigenvectors' (singular vectors') gradient is defined only for losses
  invariant to their sign (phase, for complex ones). `svd` with
  `full_matrices=True` ignores the gradient of the extra columns of U (rows of
  Vh), as PyTorch (they are any basis of the complement). `qr`: differentiable
  in every mode and shape; with "complete" and m > n the extra columns of Q
  get no gradient, as svd's (PyTorch raises there).
- `det` at a singular matrix: the gradient (the adjugate) is not computed;
  the backward's solve raises there (PyTorch switches to an SVD formula).

Example:
    >>> import torchlight as tl
    >>> from torchlight.ops.decompositions import cholesky, solve
    >>> A = tl.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> x = solve(A, tl.tensor([2.0, 2.0]))
    >>> x.tolist()
    [1.0, 0.5]
    >>> x.sum().backward()
    >>> A.grad.tolist()
    [[-0.5, -0.25], [-0.25, -0.125]]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from torchlight import grad_mode
from torchlight.backends import linalg
from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function
from torchlight.ops.common import _const, _safe_reciprocal, broadcast_shapes
from torchlight.ops.complex_numbers import conj
from torchlight.ops.shapes import cat

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

__all__ = ["EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cholesky_solve", "det", "eigh",
           "eigvalsh", "inv", "logdet", "matrix_rank", "pinv", "qr", "slogdet", "solve", "solve_triangular",
           "svd", "svdvals"]


class SlogdetResult(NamedTuple):
    """`slogdet`'s result: the sign (a unit complex number for complex input) and log |det|.

    Example:
        >>> import torchlight as tl
        >>> sign, logabsdet = tl.linalg.slogdet(tl.tensor([[2.0, 0.0], [0.0, -3.0]]))
        >>> sign.item(), round(logabsdet.item(), 6)  # det = -6
        (-1.0, 1.791759)
    """

    sign: Tensor
    logabsdet: Tensor


class EighResult(NamedTuple):
    """`eigh`'s result: eigenvalues ascending, eigenvectors as the columns.

    Example:
        >>> import torchlight as tl
        >>> result = tl.linalg.eigh(tl.tensor([[2.0, 1.0], [1.0, 2.0]]))
        >>> [round(v, 6) for v in result.eigenvalues.tolist()]
        [1.0, 3.0]
        >>> result.eigenvectors.shape
        (2, 2)
    """

    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    """`svd`'s result: A = U @ diag(S) @ Vh, S descending.

    Example:
        >>> import torchlight as tl
        >>> A = tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> U, S, Vh = tl.linalg.svd(A, full_matrices=False)
        >>> U.shape, S.shape, Vh.shape
        ((3, 2), (2,), (2, 2))
        >>> bool(((U * S @ Vh - A).abs() < 1e-12).all())
        True
    """

    U: Tensor
    S: Tensor
    Vh: Tensor


class QRResult(NamedTuple):
    """`qr`'s result: A = Q @ R, Q with orthonormal columns, R upper triangular.

    Example:
        >>> import torchlight as tl
        >>> A = tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> result = tl.linalg.qr(A)
        >>> result.Q.shape, result.R.shape
        ((3, 2), (2, 2))
        >>> bool(((result.Q @ result.R - A).abs() < 1e-12).all())
        True
    """

    Q: Tensor
    R: Tensor


# ------------------------------------------------------------------------ checks and small helpers
def _matrix(fn: str, a: Any, name: str = "A", square: bool = True) -> None:
    """TypeError/ValueError for what `fn` cannot take as `name`: a non-Tensor, fewer than 2 dims, a
    non-square matrix where a square one is needed, an integer or boolean dtype."""
    if not getattr(a, "_is_tensor", False):
        raise TypeError(f"{fn}: {name} must be a Tensor, not {type(a).__name__}")
    if a.ndim < 2:
        raise ValueError(f"{fn}: {name} must be a matrix or a batch of matrices (2 or more dims); it has "
                         f"shape {a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{fn}: {name} must be a square matrix or a batch of them; it has shape {a.shape}")
    if not a.backend.is_floating(a.data.dtype):
        raise TypeError(f"{fn}: {name} has dtype {a.dtype}; it takes floating-point or complex matrices "
                        "(convert first, e.g. A.astype(tl.float64))")


def _pair(fn: str, a: Tensor, b: Any, name: str = "B") -> Tensor:
    """`b` lifted beside `a`, on its backend and device, of its dtype (TypeError otherwise)."""
    b = a._lift(b)
    check_same_backend(fn, a, b)
    if not b.backend.is_floating(b.data.dtype):
        raise TypeError(f"{fn}: {name} has dtype {b.dtype}; it takes floating-point or complex values")
    if b.data.dtype != a.data.dtype:
        raise TypeError(f"{fn}: A and {name} must have one dtype; they have {a.dtype} and {b.dtype}")
    return b


def _batch(fn: str, a: Tensor, b: Tensor) -> tuple[int, ...]:
    try:
        return broadcast_shapes(fn, a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"{fn}: the batch dims of A {a.shape} and B {b.shape} ({a.shape[:-2]} and "
                         f"{b.shape[:-2]}) cannot be broadcast together") from None


def _broadcast(a: Tensor, b: Tensor) -> tuple[Any, Any]:
    """The arrays of `a` and `b` with their batch dims broadcast to one shape."""
    xp = a.backend.xp
    batch = broadcast_shapes("linalg", a.shape[:-2], b.shape[:-2])
    ad = a.data if a.shape[:-2] == batch else xp.broadcast_to(a.data, batch + a.shape[-2:])
    bd = b.data if b.shape[:-2] == batch else xp.broadcast_to(b.data, batch + b.shape[-2:])
    return ad, bd


def _swap(xp: Any, x: Any) -> Any:
    return xp.permute_dims(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _mH(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix."""
    return conj(x).mT


def _eye(like: Tensor, n: int) -> Tensor:
    return _const(like, like.backend.xp.eye(n, dtype=like.data.dtype, device=like._device))


def _diag(x: Tensor) -> Tensor:
    """The diagonal of each square matrix, differentiably."""
    return (x * _eye(x, x.shape[-1])).sum(-1)


def _diag_embed(v: Tensor) -> Tensor:
    """Each vector as a diagonal matrix, differentiably."""
    return v.unsqueeze(-2) * _eye(v, v.shape[-1])


def _triangle(x: Tensor, k: int, upper: bool) -> Tensor:
    """tril(x, k) (triu with `upper`) as a product with a constant mask: differentiable for complex
    gradients too."""
    xp = x.backend.xp
    ones = xp.ones(tuple(x.shape[-2:]), dtype=xp.bool, device=x._device)  # (Dask's tril of complex warns)
    mask = xp.triu(ones, k=k) if upper else xp.tril(ones, k=k)
    return x * _const(x, xp.astype(mask, x.data.dtype))


def _pack(xp: Any, batch: tuple[int, ...], arrays: list[Any]) -> Any:
    """Several results (each batch + its own shape, one dtype) as one array batch + (total,)."""
    flat = [xp.reshape(x, batch + (math.prod(x.shape[len(batch):]),)) for x in arrays]
    return xp.concat(flat, axis=-1)


def _unpack(packed: Tensor, batch: tuple[int, ...], shapes: tuple[tuple[int, ...], ...]) -> list[Tensor]:
    """The results `_pack` packed, as differentiable views of `packed`."""
    out, start = [], 0
    for shape in shapes:
        n = math.prod(shape)
        out.append(packed[..., start:start + n].reshape(batch + shape))
        start += n
    return out


def _i(like: Tensor, dtype: Any) -> Tensor:
    """The imaginary unit as a 0-d Tensor of the complex `dtype` (a Python 1j would promote complex64)."""
    return _const(like, like.backend.xp.asarray(1j, dtype=dtype, device=like._device))


def _uplo(fn: str, uplo: Any) -> str:
    if uplo not in ("L", "U"):
        raise ValueError(f"{fn}: UPLO must be 'L' or 'U', not {uplo!r}")
    return uplo  # type: ignore[no-any-return]


def _recording(*tensors: Any) -> bool:
    return grad_mode.is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in tensors)


# ------------------------------------------------------------------------------------------ cholesky
class Cholesky(Function):
    """The Cholesky factor L (A = L L^H), or U with `upper` (A = U^H U).

    Backward (Murray 2016, PyTorch's form): gA = L^{-H} Phi L^{-1} with Phi
    the Hermitian part of tril(L^H gL) whose diagonal is halved, by two
    triangular solves; the gradient is Hermitian (that of A taken as Hermitian).
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, upper: bool) -> Any:
        ctx.upper = upper
        return linalg.cholesky(a.backend, a.data, upper)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        factor = ctx.output
        if ctx.upper:
            factor, g = _mH(factor), _mH(g)
        phi = _triangle(_mH(factor) @ g, 0, False)
        phi = (phi + _mH(_triangle(phi, -1, False))) * 0.5
        ga = SolveTriangular.apply(_mH(factor), phi, True, True, False)
        return SolveTriangular.apply(factor, ga, False, False, False), None


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of each Hermitian positive-definite matrix of `A`: lower triangular L with
    A = L @ L^H, or with `upper` the upper triangular U = L^H (A = U^H @ U). Only the lower (upper)
    triangle of A is read; the gradient is Hermitian (A taken as Hermitian), as PyTorch's.

    A matrix that is not positive-definite raises `LinAlgError` (a ValueError) naming the batch element
    (on Dask: when the result is computed).

    Example:
        >>> import torchlight as tl
        >>> cholesky(tl.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
        [[2.0, 0.0], [1.0, 1.0]]
    """
    _matrix("cholesky", A)
    return Cholesky.apply(A, bool(upper))  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ solve_triangular
class SolveTriangular(Function):
    """X with A X = B (`left`) or X A = B, A triangular (its `upper` or lower triangle is read; its
    diagonal taken as ones with `unitriangular`).

    Backward (PyTorch's): gB = solve_triangular(A^H, g) (the other triangle),
    gA = -gB X^H (left; -X^H gB right), kept to A's triangle (strictly, with
    `unitriangular`): the triangle is the space A moves in.
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, upper: bool, left: bool, unitriangular: bool) -> Any:
        ctx.save_for_backward(a)
        ctx.flags = (upper, left, unitriangular)
        ad, bd = _broadcast(a, b)
        return linalg.solve_triangular(a.backend, ad, bd, upper, left, unitriangular)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        upper, left, unit = ctx.flags
        need_a, need_b = ctx.needs_input_grad[:2]
        gb = SolveTriangular.apply(_mH(a), g, not upper, left, unit)
        ga = None
        if need_a:
            x = ctx.output
            ga = -(gb @ _mH(x)) if left else -(_mH(x) @ gb)
            ga = _triangle(ga, int(unit), True) if upper else _triangle(ga, -int(unit), False)
        return ga, (gb if need_b else None), None, None, None


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A @ X = B (`left`, B of shape (..., n, k)) or X @ A = B (B of shape (..., k, n)), for
    triangular A: only its upper (`upper=True`) or lower triangle is read, and with `unitriangular` its
    diagonal is taken as ones. The batch dims broadcast. Differentiable in A (its triangle) and B.

    A zero on the diagonal raises `LinAlgError` (on NumPy, torch, JAX; array_api_strict solves the
    triangle as a general matrix, since its standard has no triangular solve).

    Example:
        >>> import torchlight as tl
        >>> A = tl.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> solve_triangular(A, tl.tensor([[2.0], [3.0]]), upper=False).tolist()
        [[1.0], [2.0]]
    """
    fn = "solve_triangular"
    _matrix(fn, A)
    B = _pair(fn, A, B)
    if B.ndim < 2:
        raise ValueError(f"{fn}: B must be a matrix or a batch of them (2 or more dims); it has shape {B.shape}")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        side = "rows" if left else "columns"
        raise ValueError(f"{fn}: A {A.shape} and B {B.shape}: B must have {n} {side} (left={bool(left)})")
    _batch(fn, A, B)
    return SolveTriangular.apply(A, B, bool(upper), bool(left), bool(unitriangular))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------- solve
class Solve(Function):
    """X with A X = B (`left`) or X A = B, B a batch of matrices.

    Backward (PyTorch's): gB = solve(A^H, g) (left; g A^{-H} right), gA = -gB X^H
    (left; -X^H gB right): a solve, never an explicit inverse.
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, left: bool) -> Any:
        ctx.save_for_backward(a)
        ctx.left = left
        ad, bd = _broadcast(a, b)
        if left:
            return linalg.solve(a.backend, ad, bd)
        xp = a.backend.xp
        return _swap(xp, linalg.solve(a.backend, _swap(xp, ad), _swap(xp, bd)))

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        left = ctx.left
        need_a, need_b = ctx.needs_input_grad[:2]
        gb = Solve.apply(_mH(a), g, left)
        ga = None
        if need_a:
            x = ctx.output
            ga = -(gb @ _mH(x)) if left else -(_mH(x) @ gb)
        return ga, (gb if need_b else None), None


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A @ X = B (or X @ A = B with `left=False`) for square A, batched. B is a batch of vectors
    when it has one dim, or one dim fewer than A with A's shape but its last (PyTorch's rule); else a
    batch of matrices (..., n, k) ((..., k, n) with `left=False`). Batch dims broadcast. Differentiable
    in A and B (the backward solves with A^H).

    A singular matrix raises `LinAlgError` (a ValueError) naming the batch element (Dask: on compute).

    Example:
        >>> import torchlight as tl
        >>> solve(tl.tensor([[2.0, 0.0], [0.0, 4.0]]), tl.tensor([2.0, 2.0])).tolist()
        [1.0, 0.5]
    """
    fn = "solve"
    _matrix(fn, A)
    B = _pair(fn, A, B)
    n = A.shape[-1]
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    if B.ndim == 0:
        raise ValueError(f"{fn}: B must be a vector or a matrix (or a batch of them); it has shape ()")
    if vector:
        if B.shape[-1] != n:
            raise ValueError(f"{fn}: A {A.shape} and B {B.shape}: the vector B must have {n} entries")
        B = B.unsqueeze(-1) if left else B.unsqueeze(-2)
    elif (B.shape[-2] if left else B.shape[-1]) != n:
        side = "rows" if left else "columns"
        raise ValueError(f"{fn}: A {A.shape} and B {B.shape}: B must have {n} {side} (left={bool(left)})")
    _batch(fn, A, B)
    x = Solve.apply(A, B, bool(left))
    if vector:
        x = x.squeeze(-1) if left else x.squeeze(-2)
    return x  # type: ignore[no-any-return]


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """X with A @ X = B for A = L @ L^H given its Cholesky factor L (or A = U^H @ U, `upper`):
    `torch.cholesky_solve`'s argument order. Two triangular solves, so differentiable in B and in the
    triangle of L that is read (the gradient of the other triangle is 0; PyTorch's formula also fills
    that triangle, which its forward does not read).

    Example:
        >>> import torchlight as tl
        >>> L = tl.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> cholesky_solve(tl.tensor([[4.0], [2.0]]), L).tolist()
        [[1.0], [0.0]]
    """
    fn = "cholesky_solve"
    _matrix(fn, L, "L")
    B = _pair(fn, L, B)
    if B.ndim < 2:
        raise ValueError(f"{fn}: B must be a matrix or a batch of them (2 or more dims); it has shape {B.shape}")
    if B.shape[-2] != L.shape[-1]:
        raise ValueError(f"{fn}: B {B.shape} and L {L.shape}: B must have {L.shape[-1]} rows")
    _batch(fn, L, B)
    if upper:
        y = SolveTriangular.apply(_mH(L), B, False, True, False)
        return SolveTriangular.apply(L, y, True, True, False)  # type: ignore[no-any-return]
    y = SolveTriangular.apply(L, B, False, True, False)
    return SolveTriangular.apply(_mH(L), y, True, True, False)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------ inv
class Inverse(Function):
    """The inverse Y of each matrix; backward -Y^H g Y^H (of its own result, so twice differentiable)."""
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return linalg.inv(a.backend, a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        y = _mH(ctx.output)
        return -(y @ g @ y)


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix of `A`; a singular one raises `LinAlgError` (a ValueError).

    Example:
        >>> import torchlight as tl
        >>> inv(tl.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    _matrix("inv", A)
    return Inverse.apply(A)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------ det, slogdet
class Det(Function):
    """The determinant; backward g conj(det) A^{-H}, by a solve with A^H (not defined where A is
    singular: the solve raises there)."""
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return linalg.det(a.backend, a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        scale = g * conj(ctx.output)
        return Solve.apply(_mH(a), scale.unsqueeze(-1).unsqueeze(-1) * _eye(a, a.shape[-1]), True)


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix of `A`. Differentiable where A is invertible (the gradient
    det(A) A^{-T}); at a singular matrix the backward raises `LinAlgError`.

    Example:
        >>> import torchlight as tl
        >>> A = tl.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
        >>> d = det(A)
        >>> d.backward()
        >>> round(d.item(), 6), [[round(v, 6) for v in row] for row in A.grad.tolist()]
        (5.0, [[3.0, -1.0], [-1.0, 2.0]])
    """
    _matrix("det", A)
    return Det.apply(A)  # type: ignore[no-any-return]


class Slogdet(Function):
    """(sign, log |det|) packed as the last dim (sign first, log|det| in A's dtype).

    Backward (PyTorch's): (g_logabsdet - i Im(conj(g_sign) sign)) A^{-H}, by a
    solve with A^H; for real A the sign's gradient is 0. Not defined where A is
    singular (log|det| is -inf there).
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        xp = a.backend.xp
        sign, logabs = linalg.slogdet(a.backend, a.data)
        return xp.stack([sign, xp.astype(logabs, sign.dtype)], axis=-1)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        scale = g[..., 1]
        if a.backend.is_complex(a.data.dtype):
            sign = ctx.output[..., 0]
            scale = scale.real - (conj(g[..., 0]) * sign).imag * _i(a, a.data.dtype)
        return Solve.apply(_mH(a), scale.unsqueeze(-1).unsqueeze(-1) * _eye(a, a.shape[-1]), True)


def slogdet(A: Tensor) -> SlogdetResult:
    """(sign, logabsdet) of each square matrix of `A`: det = sign * exp(logabsdet), computed without
    overflow. For real A the sign is -1, 0 or 1 (its gradient 0); for complex A a unit complex number.
    A singular matrix gives sign 0 and logabsdet -inf (no error); its gradient is not defined.

    Example:
        >>> import torchlight as tl
        >>> sign, logabsdet = slogdet(tl.tensor([[0.0, 2.0], [3.0, 0.0]]))
        >>> sign.item(), round(logabsdet.item(), 6)
        (-1.0, 1.791759)
    """
    _matrix("slogdet", A)
    packed = Slogdet.apply(A)
    sign, logabs = packed[..., 0], packed[..., 1]
    if A.backend.is_complex(A.data.dtype):
        logabs = logabs.real
    return SlogdetResult(sign, logabs)


class LogDet(Function):
    """log(det) of real matrices: NaN where det < 0, -inf where det = 0 (PyTorch's logdet); backward
    g A^{-T} by a solve with A^T, defined where det > 0."""
    complex_grad = False

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        xp = a.backend.xp
        sign, logabs = linalg.slogdet(a.backend, a.data)
        like = {"dtype": logabs.dtype, "device": a._device}
        other = xp.where(sign == 0, xp.asarray(-math.inf, **like), xp.asarray(math.nan, **like))
        return xp.where(sign > 0, logabs, other)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        return Solve.apply(a.mT, g.unsqueeze(-1).unsqueeze(-1) * _eye(a, a.shape[-1]), True)


def logdet(A: Tensor) -> Tensor:
    """log(det(A)) of each square matrix (PyTorch's `logdet`): for real A, NaN where det < 0 and -inf
    where det = 0; for complex A, log|det| + i angle(det). Differentiable where det != 0 (real: > 0).

    Example:
        >>> import torchlight as tl
        >>> round(logdet(tl.tensor([[2.0, 0.0], [0.0, 3.0]])).item(), 6)
        1.791759
    """
    _matrix("logdet", A)
    if A.backend.is_complex(A.data.dtype):
        sign, logabs = slogdet(A)
        return logabs + sign.log()  # (log of the unit complex sign: i angle(det), no constant made)
    return LogDet.apply(A)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------ eigh
class Eigh(Function):
    """Eigenvalues and eigenvectors of each Hermitian matrix, packed as (..., n + 1, n): the eigenvalues
    the first row (in A's dtype), the eigenvectors below.

    Backward (PyTorch's): gA = V (skew(V^H gV) / E + diag(gw)) V^H, skew(X) =
    (X - X^H) / 2, E_ij = w_j - w_i; the terms of repeated eigenvalues (E = 0)
    are taken as 0. Eigenvectors' gradients are defined for losses invariant to
    each eigenvector's sign (phase).
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, uplo: str) -> Any:
        xp = a.backend.xp
        w, v = linalg.eigh(a.backend, a.data, uplo)
        return xp.concat([xp.expand_dims(xp.astype(w, v.dtype), axis=-2), v], axis=-2)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        packed = ctx.output
        w, v = packed[..., 0, :], packed[..., 1:, :]
        gw, gv = g[..., 0, :], g[..., 1:, :]
        if v.backend.is_complex(v.data.dtype):  # the eigenvalues are real: so are their gradients
            w, gw = w.real, gw.real
        vhgv = _mH(v) @ gv
        vhgv = (vhgv - _mH(vhgv)) * 0.5
        gaps = w.unsqueeze(-2) - w.unsqueeze(-1)
        inner = vhgv * _safe_reciprocal(gaps) + _diag_embed(gw)
        return v @ inner @ _mH(v), None


def _eigh_packed(fn: str, A: Tensor, UPLO: str) -> tuple[Tensor, Tensor]:
    _matrix(fn, A)
    packed = Eigh.apply(A, _uplo(fn, UPLO))
    w, v = packed[..., 0, :], packed[..., 1:, :]
    if A.backend.is_complex(A.data.dtype):
        w = w.real
    return w, v


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """The eigenvalues (ascending, real) and eigenvectors (the columns, orthonormal) of each Hermitian
    matrix of `A`, read from its lower triangle (`UPLO="U"`: the upper one).

    Gradients: correct for distinct eigenvalues (terms of a repeated pair, 1 / 0, are taken as 0); the
    eigenvectors' part is defined only for losses invariant to each eigenvector's sign (phase); the
    gradient is Hermitian (A taken as Hermitian).

    Example:
        >>> import torchlight as tl
        >>> w, V = eigh(tl.tensor([[2.0, 0.0], [0.0, 1.0]]))
        >>> w.tolist(), (V * V).tolist()
        ([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])
    """
    return EighResult(*_eigh_packed("eigh", A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending, real) of each Hermitian matrix of `A` (its `UPLO` triangle). With a
    gradient to record, through `eigh` (the eigenvalues' gradient V diag(g) V^H).

    Example:
        >>> import torchlight as tl
        >>> eigvalsh(tl.tensor([[2.0, 1.0], [1.0, 2.0]])).tolist()
        [1.0, 3.0]
    """
    fn = "eigvalsh"
    if _recording(A):
        return _eigh_packed(fn, A, UPLO)[0]
    _matrix(fn, A)
    return _const(A, linalg.eigvalsh(A.backend, A.data, _uplo(fn, UPLO)))  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------- svd
class Svd(Function):
    """U, S, Vh of each matrix, packed flat along the last dim (S in A's dtype).

    Backward (PyTorch's svd_backward, J. Townsend's notes): with E_jk = S_k^2 -
    S_j^2 (terms of repeated singular values taken as 0) and skew(X) = X - X^H,
    gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] Vh, plus the
    complement terms for m != n ((I - U U^H) gU S^{-1} Vh, U S^{-1} gVh (I - V
    V^H)); for complex A the diagonal term i Im(diag(U^H gU)) / S. The extra
    columns of U (rows of Vh) of `full_matrices` get no gradient.
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, full_matrices: bool) -> Any:
        xp = a.backend.xp
        u, s, vh = linalg.svd(a.backend, a.data, full_matrices)
        batch = tuple(a.shape[:-2])
        ctx.layout = (batch, (tuple(u.shape[-2:]), (s.shape[-1],), tuple(vh.shape[-2:])))
        return _pack(xp, batch, [u, xp.astype(s, u.dtype), vh])

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        batch, shapes = ctx.layout
        u, s, vh = _unpack(ctx.output, batch, shapes)
        gu, gs, gvh = _unpack(g, batch, shapes)
        if u.backend.is_complex(u.data.dtype):  # S is real: so are its value and its gradient
            s, gs = s.real, gs.real
        m, n = shapes[0][0], shapes[2][1]
        k = shapes[1][0]
        if u.shape[-1] != k:  # full_matrices: the extra columns of U are any basis of the rest
            u, gu = u[..., :, :k], gu[..., :, :k]
        if vh.shape[-2] != k:
            vh, gvh = vh[..., :k, :], gvh[..., :k, :]
        uhgu = _mH(u) @ gu
        uhgu = uhgu - _mH(uhgu)
        vhgv = vh @ _mH(gvh)
        vhgv = vhgv - _mH(vhgv)
        s2 = s * s
        inverse_gaps = _safe_reciprocal(s2.unsqueeze(-2) - s2.unsqueeze(-1))
        inner = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) * inverse_gaps + _diag_embed(gs)
        s_inv = _safe_reciprocal(s)
        if u.backend.is_complex(u.data.dtype):
            inner = inner + _diag_embed(_diag(uhgu) * s_inv * 0.5)
        if m > n:
            gus = gu * s_inv.unsqueeze(-2)
            return (u @ inner + gus - u @ (_mH(u) @ gus)) @ vh, None
        if m < n:
            sgvh = gvh * s_inv.unsqueeze(-1)
            return u @ (inner @ vh + sgvh - (sgvh @ _mH(vh)) @ vh), None
        return u @ inner @ vh, None


def _svd_parts(fn: str, A: Tensor, full_matrices: bool) -> list[Tensor]:
    _matrix(fn, A, square=False)
    packed = Svd.apply(A, bool(full_matrices))
    m, n = A.shape[-2:]
    k = min(m, n)
    mu, nv = (m, n) if full_matrices else (k, k)
    u, s, vh = _unpack(packed, tuple(A.shape[:-2]), ((m, mu), (k,), (nv, n)))
    if A.backend.is_complex(A.data.dtype):
        s = s.real
    return [u, s, vh]


def svd(A: Tensor, full_matrices: bool = True) -> SVDResult:
    """U, S, Vh with A = U @ diag(S) @ Vh for each matrix of `A` (m x n, k = min(m, n)): S descending
    (real), U m x m and Vh n x n with `full_matrices`, else m x k and k x n.

    Gradients: correct for distinct non-zero singular values (terms of a repeated pair taken as 0); the
    singular vectors' part is defined only for losses invariant to the sign (phase) of each pair of
    singular vectors; with `full_matrices`, the extra columns of U and rows of Vh get no gradient.

    Example:
        >>> import torchlight as tl
        >>> U, S, Vh = svd(tl.tensor([[3.0, 0.0], [0.0, -2.0]]))
        >>> S.tolist(), (U @ Vh).abs().tolist()
        ([3.0, 2.0], [[1.0, 0.0], [0.0, 1.0]])
    """
    return SVDResult(*_svd_parts("svd", A, full_matrices))


def svdvals(A: Tensor) -> Tensor:
    """The singular values (descending, real) of each matrix of `A`. With a gradient to record, through
    `svd` (the gradient U diag(g) Vh).

    Example:
        >>> import torchlight as tl
        >>> svdvals(tl.tensor([[0.0, 2.0], [1.0, 0.0]])).tolist()
        [2.0, 1.0]
    """
    fn = "svdvals"
    if _recording(A):
        return _svd_parts(fn, A, False)[1]
    _matrix(fn, A, square=False)
    return _const(A, linalg.svdvals(A.backend, A.data))  # type: ignore[no-any-return]


# -------------------------------------------------------------------------------------------- qr
class Qr(Function):
    """Q and R of each matrix, packed flat along the last dim.

    Backward (PyTorch's linalg_qr_backward): with M = R gR^H - gQ^H Q, for m >= n
    gA = (gQ + Q copyltu(M)) R^{-H} by a triangular solve; for m < n the square
    part R_1 gets Q trilImInv*(Q^H gQ - gR R^H) R_1^{-H}, and gA += Q gR. Mode
    "complete" with m > n: Q's extra columns (any basis of the complement, not
    determined by A) get no gradient, as svd's with `full_matrices`.
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, mode: str) -> Any:
        q, r = linalg.qr(a.backend, a.data, mode)
        batch = tuple(a.shape[:-2])
        ctx.layout = (batch, (tuple(q.shape[-2:]), tuple(r.shape[-2:])))
        return _pack(a.backend.xp, batch, [q, r])

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        batch, shapes = ctx.layout
        q, r = _unpack(ctx.output, batch, shapes)
        gq, gr = _unpack(g, batch, shapes)
        m, n = shapes[0][0], shapes[1][1]
        if shapes[0][1] == m and m > n:  # complete: Q's extra columns (any basis of the rest) get nothing
            q, gq, r, gr = q[..., :, :n], gq[..., :, :n], r[..., :n, :], gr[..., :n, :]
        ga = gr @ _mH(r) - _mH(q) @ gq
        if m >= n:
            t = _triangle(ga, 0, True)
            sym = t + _mH(t)
            sym = sym - _diag_embed(_diag(sym)) * 0.5
            ga = q @ sym + gq
            return SolveTriangular.apply(_mH(r), ga, False, False, False), None
        z = _triangle(_mH(ga) - ga, 0, False)
        z = z - _diag_embed(_diag(z)) * 0.5  # (the diagonal of a skew matrix: i Im, halved)
        ga = q @ z
        ga = SolveTriangular.apply(_mH(r[..., :, :m]), ga, False, False, False)
        zeros = _const(ga, ga.backend.xp.zeros(batch + (m, n - m), dtype=ga.data.dtype, device=ga._device))
        return cat([ga, zeros], -1) + q @ gr, None


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    """Q, R with A = Q @ R for each matrix of `A` (m x n, k = min(m, n)): mode "reduced" (Q m x k,
    R k x n), "complete" (Q m x m, R m x n) or "r" (R of "reduced", and an empty Q, as PyTorch).

    Gradients: modes "reduced" and "r" for any shape (R of "r" is differentiable here, where PyTorch
    refuses), "complete" for m <= n; with "complete" and m > n the extra columns of Q (any basis of
    the complement) get no gradient, as `svd`'s with `full_matrices` (PyTorch raises). Defined where R's
    diagonal has no zeros (A of full rank).

    Example:
        >>> import torchlight as tl
        >>> Q, R = qr(tl.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> [[round(abs(v), 6) for v in row] for row in R.tolist()]
        [[5.0, 2.2], [0.0, 0.4]]
    """
    fn = "qr"
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"{fn}: mode must be 'reduced', 'complete' or 'r', not {mode!r}")
    _matrix(fn, A, square=False)
    m, n = A.shape[-2:]
    k = min(m, n)
    qcols = m if mode == "complete" else k
    packed = Qr.apply(A, "complete" if mode == "complete" else "reduced")
    q, r = _unpack(packed, tuple(A.shape[:-2]), ((m, qcols), (qcols, n)))
    if mode == "r":
        q = _const(A, A.backend.xp.zeros((0,), dtype=A.data.dtype, device=A._device))
    return QRResult(q, r)


# ------------------------------------------------------------------------------- pinv, matrix_rank
def _tolerance(fn: str, A: Tensor, atol: Any, rtol: Any) -> tuple[Any, Any]:
    """(atol, rtol) as PyTorch takes them: both None -> rtol = eps * max(m, n); atol > 0 alone -> rtol 0."""
    for name, value in (("atol", atol), ("rtol", rtol)):
        if value is not None and not isinstance(value, (int, float)) and not getattr(value, "_is_tensor", False):
            raise TypeError(f"{fn}: {name} must be a number or a Tensor, not {type(value).__name__}")
    xp = A.backend.xp
    real = A.data.dtype
    if A.backend.is_complex(real):
        real = xp.real(A.data[..., :0, :0]).dtype
    if rtol is None:
        rtol = float(xp.finfo(real).eps) * max(A.shape[-2:]) if atol is None or (
            isinstance(atol, (int, float)) and atol <= 0) else 0.0
    return (0.0 if atol is None else atol), rtol


def _cutoff(A: Tensor, s: Any, atol: Any, rtol: Any) -> Any:
    """max(atol, rtol * largest singular value), per matrix, keeping a trailing dim of 1."""
    xp = A.backend.xp
    real = s.dtype
    like = {"dtype": real, "device": A._device}
    top = xp.max(s, axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,), **like)

    def raw(v: Any) -> Any:
        if getattr(v, "_is_tensor", False):
            return xp.expand_dims(xp.astype(v.data, real), axis=-1)
        return xp.asarray(float(v), **like)

    return xp.maximum(raw(atol), raw(rtol) * top)


def _pinv_array(A: Tensor, atol: Any, rtol: Any, hermitian: bool) -> Any:
    xp = A.backend.xp
    be = A.backend
    if hermitian:
        w, v = linalg.eigh(be, A.data, "L")
        s = xp.abs(w)
        keep = s > _cutoff(A, s, atol, rtol)
        scale = xp.where(keep, 1.0 / xp.where(keep, w, xp.ones_like(w)), xp.zeros_like(w))
        return (v * xp.expand_dims(xp.astype(scale, v.dtype), axis=-2)) @ xp.conj(_swap(xp, v))
    u, s, vh = linalg.svd(be, A.data, False)
    keep = s > _cutoff(A, s, atol, rtol)
    scale = xp.where(keep, 1.0 / xp.where(keep, s, xp.ones_like(s)), xp.zeros_like(s))
    return (xp.conj(_swap(xp, vh)) * xp.expand_dims(xp.astype(scale, u.dtype), axis=-2)) @ xp.conj(_swap(xp, u))


class Pinv(Function):
    """The pseudoinverse of each matrix (through the SVD, or `eigh` with `hermitian`).

    Backward (Golub and Pereyra; PyTorch's pinv_backward), for A of locally
    constant rank: with P = pinv(A), gA = -P^H g P^H + (I - A P) g^H P P^H +
    P^H P g^H (I - P A), grouped to keep the products small; written with P
    (the result) and A, so differentiable again.
    """
    saves_output = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, atol: Any, rtol: Any, hermitian: bool) -> Any:
        ctx.save_for_backward(a)
        return _pinv_array(a, atol, rtol, hermitian)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        p = ctx.output
        m, n = a.shape[-2:]
        ph, gh = _mH(p), _mH(g)
        if m <= n:
            k = gh @ p
            kph = k @ ph
            ga = -_mH(p @ k) + kph - (a @ p) @ kph + (ph @ p) @ (gh - k @ a)
        else:
            k = p @ gh
            phk = ph @ k
            ga = -_mH(k @ p) + (gh - a @ k) @ p @ ph + phk - phk @ p @ a
        return ga, None, None, None, None


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudoinverse of each matrix of `A` (m x n -> n x m): singular values at most
    max(atol, rtol * the largest) are taken as zero (PyTorch's defaults: with neither given, rtol =
    eps * max(m, n); with atol > 0 alone, rtol = 0). `hermitian` reads A as Hermitian (its lower
    triangle) and uses `eigh`. Differentiable where the rank is locally constant.

    Example:
        >>> import torchlight as tl
        >>> pinv(tl.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    fn = "pinv"
    _matrix(fn, A, square=bool(hermitian))
    atol, rtol = _tolerance(fn, A, atol, rtol)
    return Pinv.apply(A, atol, rtol, bool(hermitian))  # type: ignore[no-any-return]


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The number of singular values of each matrix above max(atol, rtol * the largest) (PyTorch's
    tolerances, as `pinv`), in the default integer dtype; not differentiable (an integer).

    Example:
        >>> import torchlight as tl
        >>> matrix_rank(tl.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
        1
    """
    fn = "matrix_rank"
    _matrix(fn, A, square=bool(hermitian))
    atol, rtol = _tolerance(fn, A, atol, rtol)
    xp = A.backend.xp
    if hermitian:
        s = xp.abs(linalg.eigvalsh(A.backend, A.data, "L"))
    else:
        s = linalg.svdvals(A.backend, A.data)
    count = xp.sum(xp.astype(s > _cutoff(A, s, atol, rtol), A.backend.default_int(A._device)), axis=-1)
    return _const(A, count)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------- Tensor methods
class DecompositionsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def det(self: Tensor) -> Tensor:
        """The determinant of each matrix (`torchlight.ops.decompositions.det`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).det().item()
            -2.0...
        """
        return det(self)

    def slogdet(self: Tensor) -> SlogdetResult:
        """(sign, logabsdet) of each matrix (`slogdet`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[-2.0, 0.0], [0.0, 1.0]]).slogdet().sign.item()
            -1.0
        """
        return slogdet(self)

    def logdet(self: Tensor) -> Tensor:
        """log(det) of each matrix (`logdet`: NaN for a negative real determinant).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 0.0], [0.0, 1.0]]).logdet().item()
            0.0
        """
        return logdet(self)

    def inverse(self: Tensor) -> Tensor:
        """The inverse of each matrix (PyTorch's `x.inverse()`, `torch.linalg.inv`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse().tolist()
            [[0.5, 0.0], [0.0, 0.25]]
        """
        return inv(self)

    def cholesky_solve(self: Tensor, L: Tensor, upper: bool = False) -> Tensor:
        """X with A X = self for A = L L^H (PyTorch's `B.cholesky_solve(L)`; see `cholesky_solve`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[8.0]]).cholesky_solve(tl.tensor([[2.0]])).tolist()
            [[2.0]]
        """
        return cholesky_solve(self, L, upper)

    def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
        """The pseudoinverse, singular values below rcond * the largest dropped (PyTorch's `pinverse`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[0.0, 4.0]]).pinverse().tolist()
            [[0.0], [0.25]]
        """
        return pinv(self, rtol=rcond)

