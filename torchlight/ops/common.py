"""What the op categories share: dims and shapes normalised, indices unwrapped, numbers' ranges.

Example:
    >>> from torchlight.ops.common import broadcast_shapes, normalize_dims
    >>> broadcast_shapes("add", (3, 1), (4,)), normalize_dims(-1, 2)
    ((3, 4), (1,))
"""

from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from torchlight.backends import Backend
from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def normalize_dims(dim: int | Sequence[int] | None, ndim: int, op: str | None = None) -> tuple[int, ...]:
    """`dim` as a sorted tuple of non-negative axes (all axes when None); an error names `op`, if given."""
    if dim is None:
        return tuple(range(ndim))
    # an int, or anything with __index__ (a NumPy integer, as NumPy and PyTorch take), or a sequence of those
    try:
        dims = (operator.index(dim),) if hasattr(dim, "__index__") else tuple(operator.index(d) for d in dim)
    except TypeError:
        if op is None:
            raise
        raise TypeError(f"{op}: dim must be None, an int or a sequence of ints, not {dim!r}") from None
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"{_named(op)}dim {d} is out of range for a tensor with {ndim} dimension(s)")
        out.append(d % ndim if ndim else 0)
    if len(set(out)) != len(out):  # (0, -2) of a matrix: NumPy and PyTorch raise too
        raise ValueError(f"{_named(op)}dim {tuple(dims)} names a dimension twice (a tensor with {ndim} dimension(s))")
    return tuple(sorted(out)) if ndim else ()


def _named(op: str | None) -> str:
    """The prefix naming `op` in an error (none without one): made only when raising."""
    return "" if op is None else f"{op}: "


def resolve_shape(shape: Sequence[int], old: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with one -1 filled in; a ValueError when sizes differ."""
    shape = tuple(operator.index(n) for n in shape)  # a float size is a TypeError (int() would truncate 2.9)
    size = math.prod(old)
    if shape.count(-1) == 1:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"Reshape: cannot reshape a tensor of shape {old} into {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size:
        raise ValueError(f"Reshape: cannot reshape a tensor of shape {old} into {shape}")
    return shape


def broadcast_shapes(op: str, a: tuple, b: tuple) -> tuple:
    """The broadcast shape of `a` and `b`, or a ValueError naming `op` and both."""
    ndim = max(len(a), len(b))
    a1 = (1,) * (ndim - len(a)) + tuple(a)
    b1 = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for m, n in zip(a1, b1):
        if m != n and m != 1 and n != 1:
            raise ValueError(f"{op}: shapes {tuple(a)} and {tuple(b)} cannot be broadcast together")
        out.append(n if m == 1 else m)
    return tuple(out)


def mean_scale(count: int) -> float:
    """1 / count, the factor of a mean; NaN for no elements (as NumPy's mean, without its 0/0 warning)."""
    return 1.0 / count if count else math.nan


def index_key(key: Any, like: Any) -> Any:
    """An index with Tensors unwrapped and lists made arrays of `like`'s backend
    (an empty list an empty integer array, as NumPy: `x[[]]` selects nothing).

    A NumPy integer scalar (`np.int64(1)`) is the Python int it holds, as
    NumPy reads it: made an array, it became a 0-d index array, which
    array_api_strict refuses beside another and torch reads as a mask when uint8.
    """
    if isinstance(key, tuple):
        return tuple(index_key(k, like) for k in key)
    if getattr(key, "_is_tensor", False):
        return like.backend.index_array(key.data)
    if isinstance(key, list) and not key:
        return like.backend.xp.arange(0, dtype=like.backend.default_int(like._device), device=like._device)
    if isinstance(key, list) or (hasattr(key, "dtype") and hasattr(key, "shape")):
        if isinstance(key, numbers.Integral):  # a NumPy integer scalar (it has a dtype and a shape)
            return int(key)
        return like.backend.index_array(like.backend.asarray(key, device=like._device))
    return key


def _const(like: Any, array: Any) -> Any:
    """An array as a history-free Tensor of `like`'s backend."""
    return type(like)._wrap(array, like.backend)


_EXP_LIMITS: dict[Any, float] = {}


def _exp_limit(xp: Any, dtype: Any) -> float:
    """log(the largest finite value of `dtype`) - 1: exp of anything up to it is finite.

    An integer dtype (whose exp is float32 or float64) gets float32's limit,
    which is safe and large enough for both; a complex dtype gets NaN (it
    has no order to clip by: the caller takes another formula). Cached per
    (namespace, dtype): dtypes of different libraries must not meet in one
    comparison.
    """
    key = (xp, dtype)
    limit = _EXP_LIMITS.get(key)
    if limit is None:
        if xp.isdtype(dtype, "complex floating"):
            limit = math.nan
        else:
            floating = xp.isdtype(dtype, "real floating")
            limit = math.log(float(xp.finfo(dtype if floating else xp.float32).max)) - 1.0
        _EXP_LIMITS[key] = limit
    return limit


def raw_from_output(formula: Callable[[Any, Any, Backend], Any]) -> Any:
    """A `raw_backward` (see `Function`) for a real op whose derivative is read from its result:
    `formula(y, g, backend)` on arrays, the same operations as its Tensor `backward`; a complex dtype (or a
    result not kept) falls back to that `backward`."""

    def raw_backward(ctx: Context, g: Any, backend: Backend) -> Any:
        y = ctx._output_data
        if y is None or backend.complex_of.get(g.dtype) is not False:
            return NotImplemented
        return formula(y, g, backend)

    return staticmethod(raw_backward)


def _safe_reciprocal(d: Any) -> Any:
    """1 / d where d != 0, else 0, as Tensor ops (differentiable where d != 0): PyTorch's
    convention where a derivative's denominator vanishes (std at zero deviation, atan2 at the
    origin, norm at 0)."""
    xp = d.backend.xp
    nonzero = xp.astype(d.data != 0, d.dtype)  # (NaN counts as nonzero: it stays NaN)
    return _const(d, nonzero) / (d + _const(d, 1.0 - nonzero))


_INT_RANGES: dict[tuple, tuple[int, int]] = {}


def _int_side(backend: Backend, dtype: Any, value: int) -> int:
    """1 if the Python int `value` is above the range of the integer `dtype`, -1 below, 0 inside."""
    key = (backend, dtype)
    bounds = _INT_RANGES.get(key)
    if bounds is None:
        info = backend.xp.iinfo(dtype)
        bounds = _INT_RANGES[key] = (int(info.min), int(info.max))
    return 1 if value > bounds[1] else -1 if value < bounds[0] else 0


def _one_dim(op: str, x: Tensor, dim: Any) -> int:
    """The one `dim` of an op along a single dimension, as a non-negative axis (0 for a 0-d
    tensor, which takes 0 and -1); IndexError out of range. A sequence is a TypeError (as
    PyTorch): taking its first entry would silently work along one dim of several."""
    if not hasattr(dim, "__index__"):
        raise TypeError(f"{op}: dim must be one int, not {dim!r} (it works along one dimension)")
    return (normalize_dims(dim, x.ndim, op) or (0,))[0]


def binary(op: str, fn: Any, a: Tensor, other: Any) -> Tensor:
    """`fn.apply(a, other)` after the checks a binary operator makes: `other` lifted (a number or
    an array beside `a`), one backend and device, shapes that broadcast (the error names `op`)."""
    other = a._lift(other)
    check_same_backend(op, a, other)
    broadcast_shapes(op, a.shape, other.shape)
    return fn.apply(a, other)


def unary_op(name: str, array_name: str, vjp: Callable[[Any, Any], Any], doc: str, *,
             of_output: bool = False, complex_grad: bool = False) -> type[Function]:
    """A uniform elementwise op as one table row (JAX's `standard_unop` with its derivative rule):
    the Function `name` runs the namespace's `array_name` and its backward is `vjp(g, x)`, written
    in Tensor ops of the incoming gradient `g` and the op's input `x` (or, with `of_output`, its
    result `y`, which the context then keeps), so that the backward is differentiable in turn.
    `complex_grad` says the vjp is right for complex inputs too (`g * conj(f'(z))`: see
    `torchlight.ops.complex_numbers`).

    The class is defined in the module whose table holds the row (as `collections.namedtuple` does),
    so it is found, named and pickled there like a hand-written one.

    Example:
        >>> import torchlight as tl
        >>> Sin = unary_op("Sin", "sin", lambda g, x: g * x.cos(), "sin(x)")
        >>> x = tl.tensor([0.0], requires_grad=True)
        >>> Sin.apply(x).sum().backward()
        >>> x.grad.tolist(), Sin.elementwise
        ([1.0], True)
    """
    if of_output:
        def forward(ctx: Context, a: Tensor) -> Any:
            return getattr(a.backend.xp, array_name)(a.data)

        def backward(ctx: Context, g: Tensor) -> Any:
            return vjp(g, ctx.output)
    else:
        def forward(ctx: Context, a: Tensor) -> Any:
            ctx.save_for_backward(a)
            return getattr(a.backend.xp, array_name)(a.data)

        def backward(ctx: Context, g: Tensor) -> Any:
            (a,) = ctx.saved_tensors
            return vjp(g, a)

    module = sys._getframe(1).f_globals.get("__name__", __name__)
    # `array_name`: a compiled program's straight-line replay calls the namespace's function itself
    namespace = {"__doc__": doc, "__module__": module, "__qualname__": name, "elementwise": True,
                 "array_name": array_name, "array_forward": True,
                 "saves_output": of_output, "complex_grad": complex_grad, "forward": staticmethod(forward),
                 "backward": staticmethod(backward)}
    return type(name, (Function,), namespace)
