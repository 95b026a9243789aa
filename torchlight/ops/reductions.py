"""Reductions: sum, mean, var, std, prod, norm, max/min (and arg-), cumsum, logsumexp, softmax.

Ties of max and min share the gradient evenly; prod's gradient is right
with zeros in the input; var and std take PyTorch's `correction`.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.sum(1).max().backward()
    >>> x.grad.tolist()
    [[0.0, 0.0], [1.0, 1.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from torchlight import grad_mode
from torchlight.engine import Context, Function
from torchlight.ops.common import _const, _one_dim, _safe_reciprocal, mean_scale, normalize_dims
from torchlight.ops.complex_numbers import conj, refuse_complex
from torchlight.ops.indexing import Where
from torchlight.ops.shapes import BroadcastView, Concat, Permute, Reshape

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _kept_shape(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with the reduced `dims` kept as size 1 (the shape of a keepdims reduction)."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _reduced(a: Any, data: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    """`data`, reduced over `dims` with keepdims, reshaped to drop them unless `keepdim`."""
    return data if keepdim else a.backend.xp.reshape(data, tuple(n for i, n in enumerate(a.shape) if i not in dims))


def _extreme(ctx: Context, a: Any, reduce: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    """`reduce` (the namespace's max or min) over `dims`, saving what Max's backward reads."""
    top = reduce(a.data, axis=dims, keepdims=True)
    ctx.save_for_backward(a, top, dims)
    return _reduced(a, top, dims, keepdim)


def _dof_scale(count: int, correction: float) -> float:
    """1 / (count - correction): NaN when there are no degrees of freedom (as PyTorch)."""
    dof = count - correction
    return 1.0 / dof if dof > 0 else math.nan


def _moments(ctx: Context, a: Any, dims: tuple[int, ...], correction: float) -> Any:
    """The variance over `dims` (keepdims) with `correction`; NaN without degrees of freedom,
    made without NumPy's warning. Saves what Var's and Std's backward read."""
    xp = a.backend.xp
    count = math.prod(a.shape[d] for d in dims)
    ctx.save_for_backward(a, dims, _dof_scale(count, correction))
    if count - correction > 0 and 0 not in a.shape:  # (torch's var warns of an empty result)
        return xp.var(a.data, axis=dims, correction=correction, keepdims=True)
    return xp.full(_kept_shape(a.shape, dims), math.nan, dtype=a.dtype, device=a._device)


def _var_backward(ctx: Context, g: Any) -> Any:
    """g * 2 (a - mean(a)) / (count - correction), with g of the kept-dims shape."""
    a, dims, scale = ctx.saved_tensors
    return g.reshape(_kept_shape(a.shape, dims)) * (a - a.mean(dims, keepdim=True)) * (2.0 * scale)


def _prod_of_others_array(a: Any, dims: tuple[int, ...]) -> Any:
    """prod over `dims` of every element but the one at each position, as an array of `a`'s shape.

    What `_prod_of_others` gives, also where a slice holds zeros, infinities or
    NaN: the finite nonzero elements are divided out of their own product, and
    the product of the other special elements is read from their counts (a NaN,
    or a zero with an inf: NaN; else a zero: 0; else infs: inf with their sign;
    none: 1). Dividing the whole product instead gave inf / inf = NaN for the
    gradient of the inf in [inf, 2, 3], where the others' product is 6.
    """
    xp, x = a.backend.xp, a.data

    def const(value: float) -> Any:
        return xp.asarray(value, dtype=x.dtype, device=a._device)

    zero, inf, nan = x == 0, xp.isinf(x), xp.isnan(x)
    regular = xp.where(xp.logical_or(zero, xp.logical_or(inf, nan)), const(1.0), x)
    rest = xp.prod(regular, axis=dims, keepdims=True) / regular

    counts = xp.real(x).dtype if a.backend.is_complex(x.dtype) else x.dtype  # (counts: a real dtype)

    def others(mask: Any) -> Any:  # how many of the other elements of each slice are in `mask`
        m = xp.astype(mask, counts)
        return xp.sum(m, axis=dims, keepdims=True) - m

    zeros, infs, nans, negative = others(zero), others(inf), others(nan), others(x == -math.inf)
    signed_inf = xp.where(negative % 2 == 1, const(-math.inf), const(math.inf))
    special = xp.where(infs > 0, signed_inf, const(1.0))
    special = xp.where(zeros > 0, xp.where(infs > 0, const(math.nan), const(0.0)), special)
    return rest * xp.where(nans > 0, const(math.nan), special)


def _prod_of_others(a: Any, dims: tuple[int, ...]) -> Any:
    """As `_prod_of_others_array`, as differentiable Tensor ops: the reduced dims moved last and
    flattened to n, each element masked to 1 in turn ((..., n, n)), and Prod over the last axis."""
    xp = a.backend.xp
    rest = tuple(i for i in range(a.ndim) if i not in dims)
    lead, sizes = tuple(a.shape[i] for i in rest), tuple(a.shape[i] for i in dims)
    n = math.prod(sizes)
    rows = Reshape.apply(Permute.apply(a, rest + dims), lead + (1, n))
    eye = _const(a, xp.eye(n, dtype=a.dtype, device=a._device) != 0)
    masked = Where.apply(eye, _const(a, xp.ones((), dtype=a.dtype, device=a._device)), rows)
    others = Reshape.apply(Prod.apply(masked, (len(lead) + 1,), False), lead + sizes)
    order = rest + dims
    return Permute.apply(others, tuple(sorted(range(a.ndim), key=order.__getitem__)))


def _floating(x: Tensor) -> Tensor:
    """`x`, or an integer or boolean `x` cast to the default float: what mean, var and std reduce
    (NumPy's rule; the namespace's `var` refuses integers on array_api_strict and torch)."""
    return x if x.backend.is_floating(x.dtype) else x.astype(x.backend.default_float(x._device))


def _check_floating(op: str, x: Tensor) -> None:
    """A TypeError unless `x` is real floating: an integer x - max wraps around (uint8: 0 - 1 = 255),
    and a complex one has no max to shift by."""
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: the input must have a floating-point dtype, not {x.dtype}")
    refuse_complex(op, x)


def _extreme_dims(op: str, x: Tensor, dim: Any) -> tuple[int, ...]:
    """`dim` normalized for max/min; a ValueError when one of them is empty (no identity).

    An empty tensor reduced over non-empty dims is fine: `zeros(2, 0).max(0)` has shape (0,).
    """
    refuse_complex(op, x)
    dims = normalize_dims(dim, x.ndim, op)
    empty = next((d for d in dims if x.shape[d] == 0), None)
    if empty is not None:
        raise ValueError(f"{op}: the tensor of shape {x.shape} is empty along dim {empty} ({op} has no identity)")
    return dims


def _norm_order(p: Any) -> float:
    """`norm`'s p as a float: "fro" is 2; anything but a positive number (or -inf) is a ValueError."""
    if p == "fro":
        return 2.0
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (float(p) > 0 or p == -math.inf):
        raise ValueError(f"norm: p must be a positive number, math.inf, -math.inf or 'fro', not {p!r} "
                         "(p = 0, a count of nonzeros, and negative p are not supported)")
    return float(p)


class Sum(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        ctx.save_for_backward(a.shape, dims, keepdim)
        return a.backend.xp.sum(a.data, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        shape, dims, keepdim = ctx.saved_tensors
        if not keepdim and g.ndim:  # (a 0-d gradient broadcasts as it is)
            g = g.reshape(_kept_shape(shape, dims))
        return BroadcastView.apply(g, shape), None, None


class Max(Function):
    """The maximum over `dims`; tied maxima share the gradient evenly."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        return _extreme(ctx, a, a.backend.xp.max, dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, top, dims = ctx.saved_tensors
        xp = a.backend.xp
        hit = xp.astype(a.data == top, a.dtype)
        share = hit / xp.sum(hit, axis=dims, keepdims=True)
        return g.reshape(top.shape) * _const(a, share), None, None


class Softmax(Function):
    """exp(x - max) / sum(exp(x - max)) along `dim`, with one backward formula."""
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Any:
        xp = a.backend.xp
        ctx.dim = dim
        if 0 in a.shape:  # an empty result (and no max of an empty axis to shift by)
            return xp.zeros_like(a.data)
        e = xp.exp(a.data - xp.max(a.data, axis=dim, keepdims=True))
        return e / xp.sum(e, axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        y = ctx.output
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Function):
    """x - logsumexp(x) along `dim`, stable for large |x|."""
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Any:
        xp = a.backend.xp
        ctx.dim = dim
        if 0 in a.shape:  # an empty result (and no max of an empty axis to shift by)
            return xp.zeros_like(a.data)
        shifted = a.data - xp.max(a.data, axis=dim, keepdims=True)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return g - ctx.output.exp() * g.sum(ctx.dim, keepdim=True), None


class LogSumExp(Function):
    """log(sum(exp(x))) over `dims`, shifted by the max so that it neither
    overflows nor underflows; the gradient is softmax(x) times g. Over an
    empty dim it is log(0) = -inf (the identity of logaddexp, as PyTorch)."""
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a, dims)
        if any(a.shape[d] == 0 for d in dims):  # no max to shift by; log of an empty sum
            out = xp.full(_kept_shape(a.shape, dims), -math.inf, dtype=a.dtype, device=a._device)
        else:
            top = xp.max(a.data, axis=dims, keepdims=True)
            top = xp.where(xp.isfinite(top), top, xp.zeros_like(top))  # an all -inf slice gives -inf, not NaN
            out = xp.log(xp.sum(xp.exp(a.data - top), axis=dims, keepdims=True)) + top
        return _reduced(a, out, dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, dims = ctx.saved_tensors
        kept = _kept_shape(a.shape, dims)
        return g.reshape(kept) * (a - ctx.output.reshape(kept)).exp(), None, None


class Min(Max):
    """The minimum over `dims`: Max's forward with the namespace's `min`, and
    Max's backward (tied minima share the gradient evenly)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        return _extreme(ctx, a, a.backend.xp.min, dims, keepdim)


class Var(Function):
    """The variance over `dims` with `correction` (1: unbiased, as PyTorch's default)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: float) -> Any:
        return _reduced(a, _moments(ctx, a, dims, correction), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return _var_backward(ctx, g), None, None, None


class Std(Function):
    """sqrt(var) over `dims`. Where the deviation is 0 the gradient is 0 (PyTorch's
    convention: the true one is infinite), written so that the second derivative
    is 0 there too rather than NaN."""
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool, correction: float) -> Any:
        return _reduced(a, a.backend.xp.sqrt(_moments(ctx, a, dims, correction)), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return _var_backward(ctx, g * _safe_reciprocal(ctx.output) * 0.5), None, None, None


class Prod(Function):
    """The product over `dims`; the gradient is the product of the other elements,
    right with zeros in the input (one zero: only it gets a gradient; two: none).

    A first-order backward computes it from the product of the finite nonzero
    elements and the counts of zeros, infs and NaNs (no division by zero or by
    inf). With
    `create_graph` it is made differentiable instead: each element replaced
    by 1 in turn (an n x n mask per reduced slice of n elements) and Prod
    again over the last axis, so second derivatives are right at zeros too,
    at n times the memory of the slice.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, dims: tuple[int, ...], keepdim: bool) -> Any:
        ctx.save_for_backward(a, dims)
        return _reduced(a, a.backend.xp.prod(a.data, axis=dims, keepdims=True), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, dims = ctx.saved_tensors
        g = g.reshape(_kept_shape(a.shape, dims))
        others = _prod_of_others(a, dims) if grad_mode.is_grad_enabled() else _const(a, _prod_of_others_array(a, dims))
        return g * conj(others), None, None


class Cumsum(Function):
    """The running sum along `axis`; the backward is the reversed running sum of g."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, axis: int) -> Any:
        ctx.axis = axis
        return a.backend.xp.cumulative_sum(a.data, axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return ReverseCumsum.apply(g, ctx.axis), None


class ReverseCumsum(Function):
    """The running sum along `axis` from the end (Cumsum's backward; its own backward is Cumsum)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, g: Tensor, axis: int) -> Any:
        xp = g.backend.xp
        ctx.axis = axis
        return xp.flip(xp.cumulative_sum(xp.flip(g.data, axis=axis), axis=axis), axis=axis)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        return Cumsum.apply(h, ctx.axis), None


class Norm(Function):
    """sum(|x|**p)**(1/p) over `dims`, for a positive finite `p` (p = 1 and +-inf are
    composed from Abs, Sum, Max and Min by `Tensor.norm`).

    The gradient is sign(x) (|x| / norm)**(p - 1) times g, and 0 where x is 0
    or the norm is 0 (PyTorch's convention: at an all-zero slice, p = 2's true
    gradient has no limit, and for p < 1 the one at a zero element is
    infinite). It is written in Tensor ops with those points masked, so the
    second derivative there is 0 rather than NaN (PyTorch's NaN).
    """
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, p: float, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        x = a.data
        powers = x * x if p == 2 else xp.abs(x) ** p
        total = xp.sum(powers, axis=dims, keepdims=True)
        ctx.save_for_backward(a, p, dims)
        return _reduced(a, xp.sqrt(total) if p == 2 else total ** (1.0 / p), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, p, dims = ctx.saved_tensors
        kept = _kept_shape(a.shape, dims)
        g, y = g.reshape(kept), ctx.output.reshape(kept)
        if p == 2:
            return a * (g * _safe_reciprocal(y)), None, None, None
        xp = a.backend.xp
        nonzero, y_nonzero = xp.astype(a.data != 0, a.dtype), xp.astype(y.data != 0, a.dtype)
        magnitude = a.abs() + _const(a, 1.0 - nonzero)  # 1 at zeros: no 0 ** (p - 1), inf for p < 1
        ratio = (magnitude / (y + _const(y, 1.0 - y_nonzero))) ** (p - 1.0)
        return g * ratio * _const(a, xp.sign(a.data) * nonzero * y_nonzero), None, None, None


class ExtremeResult(NamedTuple):
    """What `max(dim)` and `min(dim)` return (PyTorch's `torch.return_types.max`): the values and
    the indices of one of the extremes (the first, as argmax) along `dim`."""

    values: Any
    indices: Any


class ReductionsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def sum(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return Sum.apply(self, normalize_dims(dim, self.ndim, "sum"), keepdim)

    def mean(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The mean over `dim` (all dims when None); an integer tensor's mean is a float (as NumPy)."""
        dims = normalize_dims(dim, self.ndim, "mean")
        count = math.prod(self.shape[d] for d in dims)
        return Sum.apply(_floating(self), dims, keepdim) * mean_scale(count)

    def var(self: Tensor, dim: int | Sequence[int] | None = None, *, keepdim: bool = False,
            correction: float = 1) -> Tensor:
        """The variance over `dim` (all dims when None): sum((x - mean)**2) / (N - correction).

        `correction=1` (the default, as PyTorch) is the unbiased estimate,
        `correction=0` NumPy's default. `keepdim` and `correction` are
        keyword-only: PyTorch's positional `var(dim, unbiased)` would
        otherwise be read silently as `keepdim`. With N - correction <= 0 the
        result and its gradient are NaN (as PyTorch, without its warning). An
        integer tensor's variance is a float, as its mean (NumPy; PyTorch raises).

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([1.0, 2.0, 4.0], requires_grad=True)
            >>> x.var(correction=0).backward()
            >>> round(float(x.var()), 4), [round(v, 4) for v in x.grad.tolist()]
            (2.3333, [-0.8889, -0.2222, 1.1111])
        """
        refuse_complex("var", self)
        return Var.apply(_floating(self), normalize_dims(dim, self.ndim, "var"), keepdim, correction)

    def prod(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The product over `dim` (all dims when None); the gradient is right with zeros in the input.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([2.0, 0.0, 3.0], requires_grad=True)
            >>> x.prod().backward()
            >>> x.grad.tolist()
            [0.0, 6.0, 0.0]
        """
        return Prod.apply(self, normalize_dims(dim, self.ndim, "prod"), keepdim)

    def std(self: Tensor, dim: int | Sequence[int] | None = None, *, keepdim: bool = False,
            correction: float = 1) -> Tensor:
        """sqrt(var(dim, keepdim=keepdim, correction=correction)); where all the values are
        equal (std 0) the gradient is 0, as PyTorch; an integer tensor's std is a float, as var's."""
        refuse_complex("std", self)
        return Std.apply(_floating(self), normalize_dims(dim, self.ndim, "std"), keepdim, correction)

    def logsumexp(self: Tensor, dim: int | Sequence[int] | None, keepdim: bool = False) -> Tensor:
        """log(sum(exp(x))) over `dim` (None: all dims), shifted by the max so that it does not overflow.

        `dim` is required, as in PyTorch; `torchlight.nn.functional.logsumexp` calls this.

        Example:
            >>> import torchlight as tl
            >>> round(tl.tensor([1000.0, 1000.0]).logsumexp(0).item(), 4)    # 1000 + log 2
            1000.6931
        """
        _check_floating("logsumexp", self)
        return LogSumExp.apply(self, normalize_dims(dim, self.ndim, "logsumexp"), keepdim)

    def norm(self: Tensor, p: float | str = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The vector p-norm over `dim` (None: all elements, flattened): sum(|x|**p)**(1/p).

        `p` is 2 (the default; "fro" is the same), 1, `math.inf` (max |x|),
        `-math.inf` (min |x|) or any other positive number. Where x is 0 the
        gradient is 0, also for p = 2 at an all-zero vector (PyTorch's
        convention); ties of the inf norms split the gradient evenly (as max).

        Example:
            >>> import math
            >>> import torchlight as tl
            >>> x = tl.tensor([[3.0, -4.0], [0.0, 0.0]], requires_grad=True)
            >>> x.norm(dim=1).sum().backward()
            >>> [[round(v, 4) for v in row] for row in x.grad.tolist()], x.norm(p=math.inf).item()
            ([[0.6, -0.8], [0.0, 0.0]], 4.0)
        """
        p = _norm_order(p)
        if self.backend.is_complex(self.dtype):  # the norm of the moduli (their gradients are Abs's)
            return self.abs().norm(p, dim, keepdim)
        _check_floating("norm", self)
        dims = normalize_dims(dim, self.ndim, "norm")
        if p == 1:
            return self.abs().sum(dims, keepdim)
        if math.isinf(p):
            if any(self.shape[d] == 0 for d in dims):
                raise ValueError(f"norm: the {p} norm of an empty dimension of a tensor of shape {self.shape} "
                                 "is undefined (max and min have no identity)")
            return self.abs().amax(dims, keepdim) if p > 0 else self.abs().amin(dims, keepdim)
        return Norm.apply(self, p, dims, keepdim)

    def max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        """PyTorch's max: with no `dim`, the largest value (0-d); with an int `dim`, `(values,
        indices)` along it (an `ExtremeResult`); with a Tensor, the elementwise `maximum`. Ties share
        the gradient evenly. Reducing an empty dimension raises ValueError (no identity). Several
        dims at once (values only): `amax`.

        Example:
            >>> import torchlight as tl
            >>> values, indices = tl.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1)
            >>> values.tolist(), indices.tolist()
            ([5.0, 7.0], [1, 0])
        """
        if getattr(dim, "_is_tensor", False):
            return self.maximum(dim)
        if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
            return ExtremeResult(self.amax(int(dim), keepdim), self.argmax(int(dim), keepdim))
        return self.amax(dim, keepdim)

    def amax(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The maximum values over `dim` (an int, a tuple, or None: all); ties share the gradient
        evenly; see argmax. Reducing an empty dimension raises ValueError, as NumPy and PyTorch."""
        return Max.apply(self, _extreme_dims("max", self, dim), keepdim)

    def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Indices of the maxima (no gradient); an empty dimension raises ValueError, as max."""
        _extreme_dims("argmax", self, dim)
        return self._wrap(self.backend.xp.argmax(self.data, axis=dim, keepdims=keepdim), self.backend)

    def min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        """PyTorch's min: as `max` (the smallest value; `(values, indices)` along an int `dim`; the
        elementwise `minimum` with a Tensor). Several dims at once: `amin`."""
        if getattr(dim, "_is_tensor", False):
            return self.minimum(dim)
        if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
            return ExtremeResult(self.amin(int(dim), keepdim), self.argmin(int(dim), keepdim))
        return self.amin(dim, keepdim)

    def amin(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The minimum values over `dim` (ties share the gradient evenly, as in amax); see argmin."""
        return Min.apply(self, _extreme_dims("min", self, dim), keepdim)

    def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Indices of the minima (no gradient); an empty dimension raises ValueError, as min."""
        _extreme_dims("argmin", self, dim)
        return self._wrap(self.backend.xp.argmin(self.data, axis=dim, keepdims=keepdim), self.backend)

    def cumsum(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        """The running sum along `dim` (the array API's `cumulative_sum`); a 0-d tensor stays as it is.
        `dtype` casts the input first (PyTorch's); a boolean input sums in the default integer."""
        axis = _one_dim("cumsum", self, dim)
        x = _cumulative_input(self, dtype)
        if x.ndim == 0:
            return x.clone()
        return Cumsum.apply(x, axis)

    def softmax(self: Tensor, dim: int = -1) -> Tensor:
        """exp(x) / sum(exp(x)) along `dim`; a floating-point input only (as PyTorch, and logsumexp)."""
        _check_floating("softmax", self)
        return Softmax.apply(self, _one_dim("softmax", self, dim))

    def log_softmax(self: Tensor, dim: int = -1) -> Tensor:
        """x - logsumexp(x) along `dim`; a floating-point input only."""
        _check_floating("log_softmax", self)
        return LogSoftmax.apply(self, _one_dim("log_softmax", self, dim))

    def mse_loss(self: Tensor, target: Any) -> Tensor:
        """Mean of the squared differences to `target`."""
        target = self._lift(target)
        if target.shape != self.shape:
            raise ValueError(f"mse_loss: input shape {self.shape} and target shape {target.shape} differ")
        diff = self - target
        return (diff * diff).mean()

    def cumprod(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        """The running product along `dim` (the standard's `cumulative_prod`; `dtype` casts the input
        first). The gradient is right with zeros in the input, to second order (see `Cumprod`).

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([2.0, 0.0, 3.0], requires_grad=True)
            >>> y = x.cumprod(0)
            >>> y.sum().backward()
            >>> y.tolist(), x.grad.tolist()
            ([2.0, 0.0, 0.0], [1.0, 8.0, 0.0])
        """
        axis = _one_dim("cumprod", self, dim)
        x = _cumulative_input(self, dtype)
        if x.ndim == 0:
            return x.clone()
        return Cumprod.apply(x, axis)

    def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
        """The n-th forward difference along `dim` (x[i + 1] - x[i], n times), after joining `prepend` and
        `append` (Tensors, or numbers broadcast to one slice) at the ends, as PyTorch's and NumPy's
        `diff`; differentiable. A boolean tensor's difference is `!=` (as both), with no gradient.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([1.0, 4.0, 9.0], requires_grad=True)
            >>> x.diff(prepend=0.0).tolist(), x.diff(n=2).tolist()
            ([1.0, 3.0, 5.0], [2.0])
        """
        if self.ndim == 0:
            raise ValueError("diff: a 0-d tensor has no dimension to difference")
        if not hasattr(n, "__index__") or isinstance(n, bool) or n.__index__() < 0:
            raise ValueError(f"diff: n must be a non-negative int, not {n!r}")
        axis = _one_dim("diff", self, dim)
        parts: list[Tensor | None] = []
        for name, extra in (("prepend", prepend), ("append", append)):
            if extra is None:
                parts.append(None)
                continue
            t = self._lift(extra)
            if t.ndim == 0:
                t = t.expand(*(1 if i == axis else m for i, m in enumerate(self.shape)))
            if t.ndim != self.ndim or any(m != k for i, (m, k) in enumerate(zip(t.shape, self.shape)) if i != axis):
                raise ValueError(f"diff: {name} of shape {t.shape} must match the input's shape {self.shape} "
                                 f"outside dim {axis}")
            parts.append(t)
        x = self
        if parts[0] is not None or parts[1] is not None:
            pieces = [p for p in (parts[0], self, parts[1]) if p is not None]
            if len({p.dtype for p in pieces}) > 1:
                dtype = _promoted(pieces)
                pieces = [p if p.dtype == dtype else p.astype(dtype) for p in pieces]
            x = Concat.apply(*pieces, axis)
        boolean = x.backend.xp.isdtype(x.dtype, "bool")
        lead = (slice(None),) * axis
        for _ in range(n.__index__()):
            if x.shape[axis] == 0:
                break
            later, earlier = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
            x = later != earlier if boolean else later - earlier
        return x


def _cumulative_input(x: Tensor, dtype: Any) -> Tensor:
    """What cumsum and cumprod run over: `x` cast to `dtype` when given, a boolean `x` to the default integer."""
    if dtype is not None:
        wanted = x.backend.resolve_dtype(dtype)
        return x if x.dtype == wanted else x.astype(wanted)
    if x.backend.xp.isdtype(x.dtype, "bool"):
        return x.astype(x.backend.default_int(x._device))
    return x


def _promoted(pieces: list) -> Any:
    """The dtype the pieces of a diff join in (the library's promotion of their arrays)."""
    first = pieces[0]
    xp = first.backend.xp
    try:
        return xp.result_type(*(p.data for p in pieces))
    except TypeError:  # an integer beside a float on array_api_strict: the float
        floats = [p.dtype for p in pieces if first.backend.is_floating(p.dtype)]
        return floats[0] if floats else first.dtype


class Cumprod(Function):
    """The running product along `axis`.

    The gradient of y_j = x_0 ... x_j is right with zeros in the input. A
    first-order backward divides by x only before a slice's first zero and
    gives the first zero the running product of the others (each masked
    where it applies, PyTorch's cumprod_backward); with `create_graph` it is
    made differentiable instead, as Prod's: each element replaced by 1 in
    turn (an n x n mask per slice of n elements) and Cumprod again, so second
    derivatives are right at zeros too, at n times the memory of the slice.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, axis: int) -> Any:
        ctx.save_for_backward(a, axis)
        return a.backend.xp.cumulative_prod(a.data, axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, axis = ctx.saved_tensors
        if grad_mode.is_grad_enabled():
            return _cumprod_grad_graph(a, g, axis), None
        return _const(a, _cumprod_grad_array(a.data, g.data, axis, a)), None


def _cumprod_grad_array(x: Any, g: Any, axis: int, like: Any) -> Any:
    """Cumprod's first-order gradient as arrays (see `Cumprod`)."""
    xp = like.backend.xp
    device = like._device
    zero = x == xp.zeros((), dtype=x.dtype, device=device)
    one = xp.ones((), dtype=x.dtype, device=device)
    nought = xp.zeros((), dtype=x.dtype, device=device)
    zeros_so_far = xp.cumulative_sum(xp.astype(zero, xp.int32), axis=axis)
    safe = xp.where(zero, one, x)
    running = xp.cumulative_prod(safe, axis=axis)  # the product of the nonzero elements so far

    def reverse_cumsum(v: Any) -> Any:
        return xp.flip(xp.cumulative_sum(xp.flip(v, axis=axis), axis=axis), axis=axis)

    before = zeros_so_far == 0
    first = zeros_so_far == 1
    before_zero = reverse_cumsum(xp.where(before, g * running, nought)) / safe
    at_zero = reverse_cumsum(xp.where(first, g * running, nought))
    return xp.where(before, before_zero, xp.where(zero & first, at_zero, nought))


def _cumprod_grad_graph(a: Tensor, g: Tensor, axis: int) -> Tensor:
    """Cumprod's gradient as Tensor ops that differentiate again (see `Cumprod`)."""
    xp = a.backend.xp
    device = a._device
    n = a.shape[axis]
    x = a.movedim(axis, -1)
    gm = g.movedim(axis, -1)
    rows = xp.reshape(xp.arange(n, device=device), (n, 1))
    cols = xp.reshape(xp.arange(n, device=device), (1, n))
    ones = _const(a, xp.ones((), dtype=a.dtype, device=device))
    replaced = Where.apply(_const(a, rows == cols), ones, x.unsqueeze(-2))  # row i: x with x_i := 1
    later = _const(a, xp.astype(cols >= rows, a.dtype))  # y_j depends on x_i for j >= i
    grad = (Cumprod.apply(replaced, replaced.ndim - 1) * later * gm.unsqueeze(-2)).sum(-1)
    return grad.movedim(-1, axis)
