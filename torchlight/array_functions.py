"""Free functions over tensors, with PyTorch's names: where, stack, cat (alias concat), maximum,
minimum, atan2 (alias arctan2), logaddexp, hypot, copysign; real, imag, conj, angle; lgamma, digamma,
polygamma, mvlgamma, i0 (the gamma and Bessel functions, `torchlight.ops.special_gamma`).

Each lifts its arguments and calls the Tensor method that does the work
(`tl.maximum(a, b)` is `a.maximum(b)`, with a number or array on either
side lifted first); `stack` and `cat`, which have no method, are the
shapes category's (`torchlight.ops.shapes`). The values are the array API
standard's (`xp.where`, `xp.stack`, `xp.concat`, `xp.maximum`, ...), and
the gradient of each input comes back in its own shape.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([-1.0, 2.0], requires_grad=True)
    >>> y = tl.cat([tl.where(x > 0, x, 0.0), tl.stack([x, x * 3.0], dim=1).sum(1)])
    >>> y.sum().backward()
    >>> x.grad.tolist()
    [4.0, 5.0]
"""

from __future__ import annotations

from typing import Any

from torchlight.creation import tensor
from torchlight.ops import decompositions, sets, special
from torchlight.ops import einsum as _einsum
from torchlight.ops.linear_algebra import tensordot
from torchlight.ops.searching import searchsorted
from torchlight.ops.shapes import broadcast_tensors, cat, concat, meshgrid, stack
from torchlight.ops.sorting import SortResult
from torchlight.tensor import Tensor

__all__ = ["arctan2", "atan2", "cat", "concat", "copysign", "hypot", "logaddexp", "maximum", "minimum", "stack",
           "where"]
__all__ += ["all", "any", "count_nonzero", "isfinite", "isin", "isinf", "isnan", "logical_and", "logical_not",
            "logical_or", "logical_xor", "signbit"]
__all__ += ["bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor"]
__all__ += ["floor_divide", "nextafter", "positive", "reciprocal", "remainder"]
__all__ += ["broadcast_tensors", "meshgrid", "moveaxis", "movedim", "tril", "triu", "unbind"]
__all__ += ["index_select", "take", "take_along_dim"]
__all__ += ["angle", "conj", "imag", "real"]
__all__ += ["cumprod", "cumsum", "diff"]
__all__ += ["einsum", "tensordot"]
__all__ += ["argsort", "nonzero", "searchsorted", "sort"]
__all__ += ["unique"]
__all__ += ["cross", "diagonal", "matrix_power", "outer", "trace"]


__all__ += ["erf", "erfc", "erfinv", "logit", "sinc", "xlogy"]
__all__ += ["digamma", "i0", "lgamma", "mvlgamma", "polygamma"]


def where(condition: Any, input: Any, other: Any) -> Tensor:
    """`input` where `condition` holds, else `other`, broadcasting all three: `input.where(condition, other)`.

    `condition` is a boolean Tensor or array (no gradient); `input` and
    `other` are Tensors, arrays or Python numbers (a number takes the dtype
    of the Tensor on the other side; with two numbers, the backend's default
    float if either is a float). Each side's gradient is the incoming one
    where it was chosen, 0 elsewhere, summed back to its shape.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        >>> b = tl.tensor([10.0, 20.0], requires_grad=True)
        >>> tl.where(x > 0, x, b).sum().backward()
        >>> x.grad.tolist(), b.grad.tolist()
        ([[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0])
    """
    if isinstance(input, Tensor):
        return input.where(condition, other)
    if isinstance(other, Tensor):
        return other._lift(input).where(condition, other)
    cond = condition if isinstance(condition, Tensor) else tensor(condition)
    backend, device = cond.backend, cond._device
    floats = isinstance(input, float) or isinstance(other, float)
    dtype = backend.default_float(device) if floats else None
    a, b = (Tensor._wrap(backend.asarray(v, dtype=dtype if isinstance(v, (int, float)) else None, device=device),
                         backend) for v in (input, other))
    return a.where(cond, b)


def _pair(op: str, input: Any, other: Any) -> tuple[Tensor, Any]:
    """(the Tensor to call the method on, the other argument): `input` if it is a Tensor, else
    `other`'s lift of it; a TypeError naming `op` when neither is a Tensor."""
    if isinstance(input, Tensor):
        return input, other
    if isinstance(other, Tensor):
        return other._lift(input), other
    raise TypeError(f"{op}: expects at least one Tensor, got {type(input).__name__} and {type(other).__name__}")


def maximum(input: Any, other: Any) -> Tensor:
    """The elementwise maximum of `input` and `other`: `input.maximum(other)` (ties split the gradient).

    Example:
        >>> import torchlight as tl
        >>> tl.maximum(tl.tensor([1.0, 5.0]), 3.0).tolist()
        [3.0, 5.0]
    """
    a, b = _pair("maximum", input, other)
    return a.maximum(b)


def minimum(input: Any, other: Any) -> Tensor:
    """The elementwise minimum of `input` and `other`: `input.minimum(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.minimum(2.0, tl.tensor([1.0, 5.0])).tolist()
        [1.0, 2.0]
    """
    a, b = _pair("minimum", input, other)
    return a.minimum(b)


def atan2(input: Any, other: Any) -> Tensor:
    """The angle of the point (other, input): `input.atan2(other)`; `arctan2` is the same function.

    Example:
        >>> import torchlight as tl
        >>> round(tl.atan2(tl.tensor(1.0), 1.0).item(), 4)
        0.7854
    """
    a, b = _pair("atan2", input, other)
    return a.atan2(b)


arctan2 = atan2


def logaddexp(input: Any, other: Any) -> Tensor:
    """log(exp(input) + exp(other)) without overflow: `input.logaddexp(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.logaddexp(tl.tensor([1000.0]), 1000.0).tolist()
        [1000.6931471805599]
    """
    a, b = _pair("logaddexp", input, other)
    return a.logaddexp(b)


def hypot(input: Any, other: Any) -> Tensor:
    """sqrt(input**2 + other**2) without overflow: `input.hypot(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.hypot(tl.tensor([3.0]), 4.0).tolist()
        [5.0]
    """
    a, b = _pair("hypot", input, other)
    return a.hypot(b)


def copysign(input: Any, other: Any) -> Tensor:
    """|input| with the sign of `other`: `input.copysign(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.copysign(tl.tensor([2.0, -3.0]), -1.0).tolist()
        [-2.0, -3.0]
    """
    a, b = _pair("copysign", input, other)
    return a.copysign(b)


# ------------------------------------------------------------ tests of values (torchlight.ops.logical)
def _tensor_of(op: str, input: Any) -> Tensor:
    """`input` as a Tensor (a Tensor itself; an array or Python data wrapped), or a TypeError naming `op`."""
    if isinstance(input, Tensor):
        return input
    try:
        return tensor(input)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{op}: expects a Tensor, not {type(input).__name__}") from exc


def isnan(input: Any) -> Tensor:
    """True where `input` is NaN: `input.isnan()` (no gradient).

    Example:
        >>> import torchlight as tl
        >>> tl.isnan(tl.tensor([1.0, float("nan")])).tolist()
        [False, True]
    """
    return _tensor_of("isnan", input).isnan()


def isinf(input: Any) -> Tensor:
    """True where `input` is infinite: `input.isinf()`.

    Example:
        >>> import torchlight as tl
        >>> tl.isinf(tl.tensor([1.0, float("-inf")])).tolist()
        [False, True]
    """
    return _tensor_of("isinf", input).isinf()


def isfinite(input: Any) -> Tensor:
    """True where `input` is finite: `input.isfinite()`.

    Example:
        >>> import torchlight as tl
        >>> tl.isfinite(tl.tensor([1.0, float("inf")])).tolist()
        [True, False]
    """
    return _tensor_of("isfinite", input).isfinite()


def signbit(input: Any) -> Tensor:
    """True where the sign bit of `input` is set: `input.signbit()`.

    Example:
        >>> import torchlight as tl
        >>> tl.signbit(tl.tensor([-1.0, 0.0, -0.0])).tolist()
        [True, False, True]
    """
    return _tensor_of("signbit", input).signbit()


def logical_and(input: Any, other: Any) -> Tensor:
    """`input and other` elementwise (nonzero is True): `input.logical_and(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.logical_and(tl.tensor([True, False]), True).tolist()
        [True, False]
    """
    a, b = _pair("logical_and", input, other)
    return a.logical_and(b)


def logical_or(input: Any, other: Any) -> Tensor:
    """`input or other` elementwise: `input.logical_or(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.logical_or(tl.tensor([True, False]), tl.tensor([False, False])).tolist()
        [True, False]
    """
    a, b = _pair("logical_or", input, other)
    return a.logical_or(b)


def logical_xor(input: Any, other: Any) -> Tensor:
    """Exactly one of `input` and `other` is true, elementwise: `input.logical_xor(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.logical_xor(tl.tensor([True, True]), tl.tensor([True, False])).tolist()
        [False, True]
    """
    a, b = _pair("logical_xor", input, other)
    return a.logical_xor(b)


def logical_not(input: Any) -> Tensor:
    """`not input` elementwise: `input.logical_not()`.

    Example:
        >>> import torchlight as tl
        >>> tl.logical_not(tl.tensor([0.0, 2.0])).tolist()
        [True, False]
    """
    return _tensor_of("logical_not", input).logical_not()


def any(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether any element of `input` over `dim` is true: `input.any(dim, keepdim)`.

    Example:
        >>> import torchlight as tl
        >>> tl.any(tl.tensor([[0, 1], [0, 0]]), dim=1).tolist()
        [True, False]
    """
    return _tensor_of("any", input).any(dim, keepdim)


def all(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether every element of `input` over `dim` is true: `input.all(dim, keepdim)`.

    Example:
        >>> import torchlight as tl
        >>> tl.all(tl.tensor([[1, 1], [0, 1]]), dim=1).tolist()
        [True, False]
    """
    return _tensor_of("all", input).all(dim, keepdim)


def count_nonzero(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    """How many elements of `input` over `dim` are nonzero: `input.count_nonzero(dim, keepdim)`.

    Example:
        >>> import torchlight as tl
        >>> tl.count_nonzero(tl.tensor([0.0, 3.0, -1.0])).item()
        2
    """
    return _tensor_of("count_nonzero", input).count_nonzero(dim, keepdim)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of `elements` is one of `test_elements`: `elements.isin(test_elements,
    invert=invert)` (PyTorch's signature; `assume_unique` changes nothing here).

    Example:
        >>> import torchlight as tl
        >>> tl.isin(tl.tensor([1, 2, 3]), tl.tensor([3, 1]), invert=True).tolist()
        [False, True, False]
    """
    if not isinstance(elements, Tensor) and isinstance(test_elements, Tensor):
        elements = test_elements._lift(elements)
    return _tensor_of("isin", elements).isin(test_elements, invert=invert)


# ------------------------------------------------------------- bitwise (torchlight.ops.bitwise)
def bitwise_and(input: Any, other: Any) -> Tensor:
    """`input & other` of integer or boolean tensors (or a Python int on one side): `input.bitwise_and(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_and(tl.tensor([6, 5]), 3).tolist()
        [2, 1]
    """
    a, b = _pair("bitwise_and", input, other)
    return a.bitwise_and(b)


def bitwise_or(input: Any, other: Any) -> Tensor:
    """`input | other`: `input.bitwise_or(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_or(4, tl.tensor([1, 2])).tolist()
        [5, 6]
    """
    a, b = _pair("bitwise_or", input, other)
    return a.bitwise_or(b)


def bitwise_xor(input: Any, other: Any) -> Tensor:
    """`input ^ other`: `input.bitwise_xor(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_xor(tl.tensor([True, False]), tl.tensor([True, True])).tolist()
        [False, True]
    """
    a, b = _pair("bitwise_xor", input, other)
    return a.bitwise_xor(b)


def bitwise_not(input: Any) -> Tensor:
    """`~input`: `input.bitwise_not()`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_not(tl.tensor([0, 1])).tolist()
        [-1, -2]
    """
    return _tensor_of("bitwise_not", input).bitwise_not()


def bitwise_left_shift(input: Any, other: Any) -> Tensor:
    """`input << other` of integer tensors: `input.bitwise_left_shift(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_left_shift(tl.tensor([1, 3]), 2).tolist()
        [4, 12]
    """
    a, b = _pair("bitwise_left_shift", input, other)
    return a.bitwise_left_shift(b)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:
    """`input >> other` of integer tensors (arithmetic: the sign is kept): `input.bitwise_right_shift(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.bitwise_right_shift(tl.tensor([8, -8]), 2).tolist()
        [2, -2]
    """
    a, b = _pair("bitwise_right_shift", input, other)
    return a.bitwise_right_shift(b)


# -------------------------------------------------- elementwise (ops.arithmetic, ops.elementwise)
def reciprocal(input: Any) -> Tensor:
    """1 / input: `input.reciprocal()`.

    Example:
        >>> import torchlight as tl
        >>> tl.reciprocal(tl.tensor([4.0])).tolist()
        [0.25]
    """
    return _tensor_of("reciprocal", input).reciprocal()


def positive(input: Any) -> Tensor:
    """`+input`: the tensor itself, as `torch.positive`.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0])
        >>> tl.positive(x) is x
        True
    """
    return _tensor_of("positive", input).positive()


def nextafter(input: Any, other: Any) -> Tensor:
    """The next float after `input` toward `other`: `input.nextafter(other)` (no gradient).

    Example:
        >>> import torchlight as tl
        >>> tl.nextafter(tl.tensor([0.0]), 1.0).item() > 0.0
        True
    """
    a, b = _pair("nextafter", input, other)
    return a.nextafter(b)


def remainder(input: Any, other: Any) -> Tensor:
    """`input % other`, with the sign of `other`: `input.remainder(other)`, a number on either side.

    Example:
        >>> import torchlight as tl
        >>> tl.remainder(tl.tensor([-3.0, 3.0]), 2.0).tolist(), tl.remainder(5.0, tl.tensor([3.0])).tolist()
        ([1.0, 1.0], [2.0])
    """
    a, b = _pair("remainder", input, other)
    return a.remainder(b)


def floor_divide(input: Any, other: Any) -> Tensor:
    """`input // other`, rounded down: `input.floor_divide(other)` (gradient 0).

    Example:
        >>> import torchlight as tl
        >>> tl.floor_divide(tl.tensor([-3.0, 3.0]), 2.0).tolist()
        [-2.0, 1.0]
    """
    a, b = _pair("floor_divide", input, other)
    return a.floor_divide(b)


# ----------------------------------------------------------------- shapes (torchlight.ops.shapes)
def movedim(input: Any, source: Any, destination: Any) -> Tensor:
    """`input` with the dims `source` moved to `destination`: `input.movedim(source, destination)`;
    `moveaxis` is the same function.

    Example:
        >>> import torchlight as tl
        >>> tl.movedim(tl.zeros(2, 3, 4), 2, 0).shape
        (4, 2, 3)
    """
    return _tensor_of("movedim", input).movedim(source, destination)


moveaxis = movedim


def tril(input: Any, diagonal: int = 0) -> Tensor:
    """The lower triangle of each matrix of `input`: `input.tril(diagonal)`.

    Example:
        >>> import torchlight as tl
        >>> tl.tril(tl.ones(2, 2)).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    return _tensor_of("tril", input).tril(diagonal)


def triu(input: Any, diagonal: int = 0) -> Tensor:
    """The upper triangle of each matrix of `input`: `input.triu(diagonal)`.

    Example:
        >>> import torchlight as tl
        >>> tl.triu(tl.ones(2, 2)).tolist()
        [[1.0, 1.0], [0.0, 1.0]]
    """
    return _tensor_of("triu", input).triu(diagonal)


def unbind(input: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of `input` along `dim`: `input.unbind(dim)`.

    Example:
        >>> import torchlight as tl
        >>> [t.tolist() for t in tl.unbind(tl.tensor([[1.0, 2.0], [3.0, 4.0]]))]
        [[1.0, 2.0], [3.0, 4.0]]
    """
    return _tensor_of("unbind", input).unbind(dim)


# ----------------------------------------------------------- gathering (torchlight.ops.indexing)
def index_select(input: Any, dim: int, index: Any) -> Tensor:
    """The entries of `input` at `index` along `dim`: `input.index_select(dim, index)`.

    Example:
        >>> import torchlight as tl
        >>> tl.index_select(tl.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, tl.tensor([1, 1])).tolist()
        [[3.0, 4.0], [3.0, 4.0]]
    """
    return _tensor_of("index_select", input).index_select(dim, index)


def take(input: Any, index: Any) -> Tensor:
    """The entries of the flattened `input` at `index`: `input.take(index)`.

    Example:
        >>> import torchlight as tl
        >>> tl.take(tl.tensor([[1.0, 2.0], [3.0, 4.0]]), tl.tensor([3, 0])).tolist()
        [4.0, 1.0]
    """
    return _tensor_of("take", input).take(index)


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Tensor:
    """The entries of `input` at `indices` along `dim`: `input.take_along_dim(indices, dim)`.

    Example:
        >>> import torchlight as tl
        >>> tl.take_along_dim(tl.tensor([[1.0, 2.0], [3.0, 4.0]]), tl.tensor([[1], [0]]), dim=1).tolist()
        [[2.0], [3.0]]
    """
    return _tensor_of("take_along_dim", input).take_along_dim(indices, dim)
def _as_tensor(input: Any) -> Tensor:
    """`input` as a Tensor (a Python number or list, an array); a Tensor as it is."""
    return input if isinstance(input, Tensor) else tensor(input)


def real(input: Any) -> Tensor:
    """The real part: `input.real` (a real tensor is returned as it is).

    Example:
        >>> import torchlight as tl
        >>> tl.real(tl.tensor([1 + 2j, 3.0])).tolist()
        [1.0, 3.0]
    """
    return _as_tensor(input).real


def imag(input: Any) -> Tensor:
    """The imaginary part: `input.imag` (zeros for a real tensor, as the array API standard).

    Example:
        >>> import torchlight as tl
        >>> tl.imag(tl.tensor([1 + 2j, 3.0])).tolist()
        [2.0, 0.0]
    """
    return _as_tensor(input).imag


def conj(input: Any) -> Tensor:
    """The complex conjugate: `input.conj()` (a real tensor is returned as it is).

    Example:
        >>> import torchlight as tl
        >>> tl.conj(tl.tensor([1 + 2j])).tolist()
        [(1-2j)]
    """
    return _as_tensor(input).conj()


def angle(input: Any) -> Tensor:
    """The argument in radians, in (-pi, pi]: `input.angle()` (0 or pi for a real tensor, as PyTorch).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.angle(tl.tensor([1j, -1.0])).tolist()]
        [1.5708, 3.1416]
    """
    return _as_tensor(input).angle()


# ------------------------------------------------------ cumulative (torchlight.ops.reductions)
def cumsum(input: Any, dim: int, *, dtype: Any = None) -> Tensor:
    """The running sum of `input` along `dim`: `input.cumsum(dim, dtype=dtype)`.

    Example:
        >>> import torchlight as tl
        >>> tl.cumsum(tl.tensor([1.0, 2.0, 3.0]), 0).tolist()
        [1.0, 3.0, 6.0]
    """
    return _tensor_of("cumsum", input).cumsum(dim, dtype=dtype)


def cumprod(input: Any, dim: int, *, dtype: Any = None) -> Tensor:
    """The running product of `input` along `dim`: `input.cumprod(dim, dtype=dtype)`.

    Example:
        >>> import torchlight as tl
        >>> tl.cumprod(tl.tensor([1.0, 2.0, 3.0]), 0).tolist()
        [1.0, 2.0, 6.0]
    """
    return _tensor_of("cumprod", input).cumprod(dim, dtype=dtype)


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """The n-th forward difference of `input` along `dim`: `input.diff(n, dim, prepend, append)`.

    Example:
        >>> import torchlight as tl
        >>> tl.diff(tl.tensor([1.0, 4.0, 9.0]), append=tl.tensor([16.0])).tolist()
        [3.0, 5.0, 7.0]
    """
    return _tensor_of("diff", input).diff(n, dim, prepend, append)


# --------------------------------------------- sorting and searching (ops.sorting, ops.searching)
def sort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> SortResult:
    """(values, indices) of `input` sorted along `dim`: `input.sort(dim, descending, stable)`.

    Example:
        >>> import torchlight as tl
        >>> tl.sort(tl.tensor([2.0, 1.0])).values.tolist()
        [1.0, 2.0]
    """
    return _tensor_of("sort", input).sort(dim, descending, stable)


def argsort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort `input` along `dim`: `input.argsort(dim, descending, stable)`.

    Example:
        >>> import torchlight as tl
        >>> tl.argsort(tl.tensor([2.0, 1.0]), descending=True).tolist()
        [0, 1]
    """
    return _tensor_of("argsort", input).argsort(dim, descending, stable)


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements of `input`: `input.nonzero(as_tuple=as_tuple)`.

    Example:
        >>> import torchlight as tl
        >>> tl.nonzero(tl.tensor([0.0, 2.0, 3.0])).tolist()
        [[1], [2]]
    """
    return _tensor_of("nonzero", input).nonzero(as_tuple=as_tuple)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
    """The distinct values of `input`, sorted, with the inverse indices and the counts when asked
    (PyTorch's `torch.unique`; `input.unique(...)`). The values carry gradients, each value's split
    evenly among its occurrences; `dim` other than None is a ValueError; on a lazy backend (Dask),
    whose count of values is unknown until computed, a ValueError.

    Example:
        >>> import torchlight as tl
        >>> values, counts = tl.unique(tl.tensor([3, 1, 3]), return_counts=True)
        >>> values.tolist(), counts.tolist()
        ([1, 3], [1, 2])
    """
    return sets.unique(input if isinstance(input, Tensor) else tensor(input), sorted, return_inverse,
                       return_counts, dim)


def trace(input: Any) -> Tensor:
    """The sum of the main diagonal of a matrix (2-d only, as `torch.trace`; `tl.linalg.trace`
    takes batches and offsets): `input.trace()`.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> tl.trace(x).backward()
        >>> x.grad.tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return _tensor_of("trace", input).trace()


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal `offset` of the matrices spanned by `dim1` and `dim2` (`torch.diagonal`'s
    defaults 0 and 1; `tl.linalg.diagonal` defaults to the last two), as the last dim.

    Example:
        >>> import torchlight as tl
        >>> tl.diagonal(tl.tensor([[1.0, 2.0], [3.0, 4.0]]), -1).tolist()
        [3.0]
    """
    return _tensor_of("diagonal", input).diagonal(offset, dim1, dim2)


def outer(input: Any, vec2: Any) -> Tensor:
    """The outer product of two vectors: `input.outer(vec2)` (`torch.outer`).

    Example:
        >>> import torchlight as tl
        >>> tl.outer(tl.tensor([1.0, 2.0]), tl.tensor([1.0, -1.0])).tolist()
        [[1.0, -1.0], [2.0, -2.0]]
    """
    return _tensor_of("outer", input).outer(vec2)


def cross(input: Any, other: Any, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along `dim`, broadcasting (`torch.linalg.cross`'s default dim -1).

    Example:
        >>> import torchlight as tl
        >>> tl.cross(tl.tensor([0.0, 1.0, 0.0]), tl.tensor([0.0, 0.0, 1.0])).tolist()
        [1.0, 0.0, 0.0]
    """
    return _tensor_of("cross", input).cross(other, dim)


def matrix_power(input: Any, n: int) -> Tensor:
    """The square matrix (or batch) to the integer power `n`: `input.matrix_power(n)`.

    Example:
        >>> import torchlight as tl
        >>> tl.matrix_power(tl.tensor([[0.0, 1.0], [1.0, 0.0]]), 2).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return _tensor_of("matrix_power", input).matrix_power(n)

# ---------------------------------------------------------------- decompositions (PyTorch's top-level names)
__all__ += ["cholesky_solve", "det", "inverse", "logdet", "pinverse", "slogdet"]


def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix (PyTorch's `torch.det`; `torch.linalg.det`).

    Example:
        >>> import torchlight as tl
        >>> tl.det(tl.tensor([[2.0, 0.0], [0.0, 3.0]])).item()
        6.0
    """
    return decompositions.det(input)


def slogdet(input: Tensor) -> decompositions.SlogdetResult:
    """(sign, logabsdet) of each square matrix (PyTorch's `torch.slogdet`).

    Example:
        >>> import torchlight as tl
        >>> tl.slogdet(tl.tensor([[-1.0, 0.0], [0.0, 1.0]])).sign.item()
        -1.0
    """
    return decompositions.slogdet(input)


def logdet(input: Tensor) -> Tensor:
    """log(det) of each square matrix: NaN for a negative real determinant (PyTorch's `torch.logdet`).

    Example:
        >>> import torchlight as tl
        >>> tl.logdet(tl.tensor([[1.0, 0.0], [0.0, 1.0]])).item()
        0.0
    """
    return decompositions.logdet(input)


def inverse(input: Tensor) -> Tensor:
    """The inverse of each square matrix (PyTorch's `torch.inverse`; `torch.linalg.inv`).

    Example:
        >>> import torchlight as tl
        >>> tl.inverse(tl.tensor([[4.0]])).tolist()
        [[0.25]]
    """
    return decompositions.inv(input)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """X with A X = B for A = L L^H given its Cholesky factor (PyTorch's `torch.cholesky_solve`, its
    argument order).

    Example:
        >>> import torchlight as tl
        >>> tl.cholesky_solve(tl.tensor([[4.0]]), tl.tensor([[2.0]])).tolist()
        [[1.0]]
    """
    return decompositions.cholesky_solve(B, L, upper)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudoinverse, singular values up to rcond times the largest dropped (PyTorch's `torch.pinverse`).

    Example:
        >>> import torchlight as tl
        >>> tl.pinverse(tl.tensor([[2.0, 0.0]])).tolist()
        [[0.5], [0.0]]
    """
    return decompositions.pinv(input, rtol=rcond)


# ------------------------------------------------------------------ einsum (torchlight.ops.einsum)
def einsum(*args: Any, optimize: Any = "auto") -> Tensor:
    """Einstein summation, in NumPy's and PyTorch's spelling: `einsum("ij,jk->ik", a, b)`, the operands
    as one list (`einsum("ij,jk", [a, b])`), or the sublist form `einsum(a, [0, 1], b, [1, 2], [0, 2])`.

    Without `->` the output is the ellipsis's dims, then the letters that appear once, in sorted order;
    a repeated letter in one operand takes its diagonal (`"ii->i"`); an ellipsis's dims and size-1 dims
    broadcast as NumPy's; an ellipsis left out of an explicit output is summed, as PyTorch. The operands
    are contracted two at a time in the order opt_einsum's path optimiser `optimize` chooses ("auto",
    "greedy", "optimal", ...; False for left to right, or an explicit path), each pair a batched matmul,
    so the gradients (of every order, complex ones included) are those of matmul, permute, reshape and
    sum. Arrays and numbers are lifted beside the first Tensor (docs/einsum.md).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> v = tl.tensor([1.0, 10.0])
        >>> out = tl.einsum("ij,j->i", a, v)
        >>> out.sum().backward()
        >>> out.tolist(), a.grad.tolist(), tl.einsum("ii", a).item()
        ([21.0, 43.0], [[1.0, 10.0], [1.0, 10.0]], 5.0)
    """
    subscripts, raw = _einsum.split_arguments(args)
    first = next((x for x in raw if isinstance(x, Tensor)), None)
    operands = []
    for i, x in enumerate(raw):
        if not isinstance(x, Tensor):
            try:
                x = tensor(x) if first is None else first._lift(x)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"einsum: operand {i} is a {type(x).__name__}, not a Tensor, array or number") from exc
            first = x if first is None else first
            if not x.backend.xp.isdtype(x.dtype, ("numeric", "bool")):
                raise TypeError(f"einsum: operand {i} is a {type(raw[i]).__name__} of dtype {x.dtype}, not numbers")
        operands.append(x)
    return _einsum.einsum(subscripts, operands, optimize)


def erf(input: Any) -> Tensor:
    """The error function of `input`: `input.erf()` (torch.erf; also `tl.special.erf`).

    Example:
        >>> import torchlight as tl
        >>> round(tl.erf(tl.tensor(0.5)).item(), 12)
        0.520499877813
    """
    return _tensor_of("erf", input).erf()


def erfc(input: Any) -> Tensor:
    """1 - erf(input), accurate where it is tiny: `input.erfc()` (torch.erfc).

    Example:
        >>> import torchlight as tl
        >>> [f"{v:.4g}" for v in tl.erfc(tl.tensor([0.0, 1.0, 10.0])).tolist()]
        ['1', '0.1573', '2.088e-45']
    """
    return _tensor_of("erfc", input).erfc()


def erfinv(input: Any) -> Tensor:
    """erf's inverse on `[-1, 1]`: `input.erfinv()` (torch.erfinv).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.erfinv(tl.tensor([0.0, 0.5, 1.0])).tolist()]
        [0.0, 0.476936, inf]
    """
    return _tensor_of("erfinv", input).erfinv()


def logit(input: Any, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), x clamped to `[eps, 1 - eps]` first where `eps` is given: `input.logit(eps)` (torch.logit).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.logit(tl.tensor([0.25, 0.5])).tolist()]
        [-1.098612, 0.0]
        >>> round(tl.logit(tl.tensor([0.0]), eps=1e-6).item(), 4)
        -13.8155
    """
    return _tensor_of("logit", input).logit(eps)


def sinc(input: Any) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0: `input.sinc()` (torch.sinc).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.sinc(tl.tensor([0.0, 0.5, 1.0])).tolist()]
        [1.0, 0.63662, 0.0]
    """
    return _tensor_of("sinc", input).sinc()


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), 0 where input == 0; a number on either side (torch.xlogy).

    Example:
        >>> import torchlight as tl
        >>> tl.xlogy(0.0, tl.tensor([0.0, 2.0])).tolist()
        [0.0, 0.0]
    """
    return special.xlogy(input, other)
def lgamma(input: Any) -> Tensor:
    """log|Gamma(input)|: `input.lgamma()` (`torch.lgamma`; scipy's gammaln); the gradient is digamma.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 12) for v in tl.lgamma(tl.tensor([0.5, 3.0])).tolist()]   # log sqrt(pi), log 2
        [0.572364942925, 0.69314718056]
    """
    return _tensor_of("lgamma", input).lgamma()


def digamma(input: Any) -> Tensor:
    """psi(input), the derivative of lgamma: `input.digamma()` (`torch.digamma`).

    Example:
        >>> import torchlight as tl
        >>> round(tl.digamma(tl.tensor(1.0)).item(), 12)    # -Euler's gamma
        -0.577215664902
    """
    return _tensor_of("digamma", input).digamma()


def polygamma(n: int, input: Any) -> Tensor:
    """The n-th derivative of digamma at `input`: `input.polygamma(n)` (`torch.polygamma(n, input)`).

    Example:
        >>> import torchlight as tl
        >>> round(tl.polygamma(1, tl.tensor(1.0)).item(), 12)    # pi**2 / 6
        1.644934066848
    """
    return _tensor_of("polygamma", input).polygamma(n)


def mvlgamma(input: Any, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension p: `input.mvlgamma(p)` (`torch.mvlgamma`;
    scipy's multigammaln); every element must exceed (p - 1)/2 (a ValueError otherwise).

    Example:
        >>> import torchlight as tl
        >>> round(tl.mvlgamma(tl.tensor(3.0), 3).item(), 12)
        2.694924879807
    """
    return _tensor_of("mvlgamma", input).mvlgamma(p)


def i0(input: Any) -> Tensor:
    """The modified Bessel function of the first kind of order 0: `input.i0()` (`torch.i0`).

    Example:
        >>> import torchlight as tl
        >>> round(tl.i0(tl.tensor(1.0)).item(), 12)
        1.266065877752
    """
    return _tensor_of("i0", input).i0()
