"""Vector and matrix norms: vector_norm, matrix_norm and norm (torch.linalg's, which the array API's
`linalg.vector_norm`/`linalg.matrix_norm` call), differentiable to second order.

The vector norms are sum(|x|**p)**(1/p) (the existing Norm Function, which masks the points where
the gradient has no limit: 0 there, PyTorch's subgradient), max/min |x| for p = +-inf (ties split
the gradient evenly, as max), and the count of nonzeros for p = 0 (a step function: gradient 0).
The spectral and nuclear matrix norms come from the singular values (`decompositions.svdvals`).
Complex inputs are taken by modulus first (`abs`, whose gradient follows PyTorch's convention).

Example:
    >>> import torchlight as tl
    >>> from torchlight.ops.norms import vector_norm
    >>> x = tl.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
    >>> vector_norm(x, dim=-1).sum().backward()
    >>> [[round(v, 4) for v in row] for row in x.grad.tolist()]
    [[0.6, 0.8], [0.0, 0.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from torchlight.engine import Context, Function
from torchlight.ops import decompositions
from torchlight.ops.common import _const, normalize_dims
from torchlight.ops.reductions import Norm

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

#: the matrix norms' orders (PyTorch's and the standard's)
MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


class CountNonzero(Function):
    """The number of nonzero elements over `dims`, in x's float dtype: the vector "0-norm". A step
    function of x: its gradient is 0 everywhere (as PyTorch's)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a.shape)
        nonzero = xp.astype(a.data != 0, a.dtype)
        return xp.sum(nonzero, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (shape,) = ctx.saved_tensors
        xp = g.backend.xp
        return _const(g, xp.zeros(shape, dtype=g.dtype, device=g._device)), None, None


class NegativeNorm(Norm):
    """sum(|x|**p)**(1/p) for p < 0: 0 for a vector holding a 0 (|0|**p is inf), computed with the
    zeros replaced by 1 before the power (no division by 0 runs). The backward is Norm's, which masks
    those points: the gradient is 0 there."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, p: float, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        zero = a.data == 0
        one = xp.ones((), dtype=a.dtype, device=a._device)
        safe = xp.where(zero, one, xp.abs(a.data))
        out = xp.sum(safe ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
        ctx.save_for_backward(a, p, dims)
        return xp.where(xp.any(zero, axis=dims, keepdims=keepdim), xp.zeros_like(out), out)


def _floating_input(op: str, x: Any, dtype: Any) -> Tensor:
    if not getattr(x, "_is_tensor", False):
        raise TypeError(f"{op}: x must be a Tensor, not {type(x).__name__}")
    if dtype is not None:
        x = x.astype(dtype)
    if not (x.backend.is_floating(x.dtype) or x.backend.is_complex(x.dtype)):
        raise TypeError(f"{op}: expected a floating-point or complex input, not dtype {x.dtype} "
                        "(cast it, or pass dtype=)")
    return x


def _order(op: str, ord: Any) -> float:
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real) or math.isnan(float(ord)):
        raise ValueError(f"{op}: ord must be a real number (math.inf and -math.inf included), not {ord!r}")
    return float(ord)


def vector_norm(x: Tensor, ord: float = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The vector `ord`-norm of `x` over `dim` (None: every element, as one vector), as
    `torch.linalg.vector_norm`: sum(|x|**ord)**(1/ord) for any real ord but 0 and +-inf (negative
    ones included), max |x| for inf, min |x| for -inf and the count of nonzeros for 0. `dtype`
    casts x first. Complex x: the norm of |x|, a real result.

    Gradients: 0 where x is 0 for ord 2 at an all-zero vector and for ord < 1 (PyTorch's
    subgradient), ties of +-inf split evenly, 0 for ord 0.

    Example:
        >>> import math
        >>> import torchlight as tl
        >>> x = tl.tensor([3.0, -4.0])
        >>> [vector_norm(x, p).item() for p in (2, 1, math.inf, -math.inf, 0)]
        [5.0, 7.0, 4.0, 3.0, 2.0]
    """
    x = _floating_input("vector_norm", x, dtype)
    p = _order("vector_norm", ord)
    if isinstance(dim, bool) or not (dim is None or hasattr(dim, "__index__") or isinstance(dim, (tuple, list))):
        raise TypeError(f"vector_norm: dim must be None, an int or a sequence of ints, not {dim!r}")
    if x.backend.is_complex(x.dtype):
        x = x.abs()
    dims = normalize_dims(dim, x.ndim, "vector_norm")
    if p == 0:
        return CountNonzero.apply(x, dims, keepdim)
    if p == 1:
        return x.abs().sum(dims, keepdim)
    if math.isinf(p):
        if any(x.shape[d] == 0 for d in dims):
            raise ValueError(f"vector_norm: the {ord} norm of an empty dimension (shape {x.shape}) is undefined "
                             "(max and min have no identity)")
        return x.abs().amax(dims, keepdim) if p > 0 else x.abs().amin(dims, keepdim)
    if p < 0:
        return NegativeNorm.apply(x, p, dims, keepdim)
    return Norm.apply(x, p, dims, keepdim)


def _matrix_dims(op: str, x: Tensor, dim: Any) -> tuple[int, int]:
    try:
        d0, d1 = dim
    except (TypeError, ValueError):
        raise TypeError(f"{op}: dim must be a pair of ints, not {dim!r}") from None
    if x.ndim < 2:
        raise ValueError(f"{op}: needs a matrix or a batch of them (2 or more dims), not a tensor of shape {x.shape}")
    normalize_dims((d0, d1), x.ndim, op)
    return d0 % x.ndim, d1 % x.ndim


def matrix_norm(x: Tensor, ord: float | str = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The matrix `ord`-norm of the matrices spanned by the dims `dim`, as `torch.linalg.matrix_norm`:
    'fro' (Frobenius), 'nuc' (sum of singular values), 2 / -2 (largest / smallest singular value),
    1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum of |x|).

    Gradients: those of the pieces (vector_norm, max/min, svdvals); the singular-value norms'
    gradients are undefined where the singular values they pick repeat or (nuc, -2) one is 0.

    Example:
        >>> import math
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        >>> [matrix_norm(a, p).item() for p in (1, math.inf, -1)]
        [6.0, 7.0, 4.0]
        >>> matrix_norm(a).backward()
        >>> [[round(v, 4) for v in row] for row in a.grad.tolist()]
        [[0.1826, -0.3651], [0.5477, 0.7303]]
    """
    x = _floating_input("matrix_norm", x, dtype)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, not {ord!r}")
    elif isinstance(ord, bool) or not isinstance(ord, numbers.Real) or float(ord) not in MATRIX_ORDS:
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, not {ord!r}")
    d0, d1 = _matrix_dims("matrix_norm", x, dim)
    if ord == "fro":
        return vector_norm(x, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        return _unreduce(_singular_norm(x.movedim((d0, d1), (-2, -1)), ord), (d0, d1), keepdim)
    if any(x.shape[d] == 0 for d in (d0, d1)):
        raise ValueError(f"matrix_norm: the {ord} norm of an empty matrix (shape {x.shape}) is undefined")
    p = float(ord)  # type: ignore[arg-type]
    # 1: max over columns (d1) of the sums down each column (over d0); inf: the same with rows and columns swapped
    summed, other = (d0, d1) if abs(p) == 1 else (d1, d0)
    sums = x.abs().sum(summed, True)
    out = sums.amax(other, True) if p > 0 else sums.amin(other, True)
    return out if keepdim else out.reshape(*(s for i, s in enumerate(out.shape) if i not in (d0, d1)))


def _singular_norm(x: Tensor, ord: Any) -> Tensor:
    s = decompositions.svdvals(x)
    if ord == "nuc":
        return s.sum(-1)
    if s.shape[-1] == 0:
        raise ValueError(f"matrix_norm: the {ord} norm of an empty matrix (shape {x.shape}) is undefined")
    return s[..., 0] if ord == 2 else s[..., -1]  # svdvals are in descending order


def _unreduce(out: Tensor, dims: tuple[int, int], keepdim: bool) -> Tensor:
    if not keepdim:
        return out
    shape = list(out.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return out.reshape(*shape)


def norm(x: Tensor, ord: float | str | None = None, dim: int | Sequence[int] | None = None, keepdim: bool = False,
         *, dtype: Any = None) -> Tensor:
    """`torch.linalg.norm`: a vector norm when `dim` is an int (or x is 1-d and dim None), a matrix
    norm when `dim` is a pair (or x is 2-d and dim None); with `ord` None, the 2-norm of x
    flattened (dim None) or of the vectors (int dim), or the Frobenius norm (a pair of dims).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, -2.0], [3.0, 4.0]])
        >>> round(norm(a).item(), 4), norm(a, 1).item(), norm(a, 1, dim=1).tolist()
        (5.4772, 6.0, [3.0, 7.0])
    """
    if not getattr(x, "_is_tensor", False):
        raise TypeError(f"norm: x must be a Tensor, not {type(x).__name__}")
    if dim is not None and not hasattr(dim, "__index__"):
        try:
            dims = tuple(dim)
        except TypeError:
            raise TypeError(f"norm: dim must be None, an int or a pair of ints, not {dim!r}") from None
        if len(dims) == 1:
            dim = dims[0]
        elif len(dims) == 2:
            return matrix_norm(x, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)  # type: ignore[arg-type]
        else:
            raise ValueError(f"norm: dim must name one or two dims, not {len(dims)}: {dim!r}")
    if isinstance(ord, str) and (dim is not None or x.ndim != 2):
        raise ValueError(f"norm: ord {ord!r} is a matrix norm: it needs a 2-d input or a pair of dims, "
                         f"not shape {x.shape} with dim {dim!r}")
    if ord is None:
        return vector_norm(x, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if x.ndim == 2:
            return matrix_norm(x, ord, (-2, -1), keepdim, dtype=dtype)
        if x.ndim != 1:
            raise ValueError(f"norm: with ord {ord!r} and dim None the input must be 1-d or 2-d, not shape {x.shape} "
                             "(pass dim, or use vector_norm)")
    return vector_norm(x, ord, dim, keepdim, dtype=dtype)  # type: ignore[arg-type]


class NormsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
