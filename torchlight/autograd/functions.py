"""The built-in ops: one `Function` each, forward in the array API, backward in Tensor ops.

Forward receives Tensors and computes on their `.data` with the namespace
`xp = tensor.backend.xp` (or array operators). Backward is written with
Tensor ops (and the `*Back` Functions below, which are differentiable in
turn), so `backward(create_graph=True)` yields correct higher derivatives.
The engine, not these functions, sums a broadcast gradient back to its
input's shape and casts it to the input's dtype.

Conventions at kinks, where a choice is needed: relu'(0) = 0, abs'(0) = 0
(as PyTorch), max splits the gradient evenly among tied maxima, and
d(x**p)/dx is 0 where p == 0 (PyTorch's convention at x = 0).

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd.functions import Mul
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> Mul.apply(x, x).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0]
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from typing import Any

import array_api_compat

from torchlight import grad_mode
from torchlight.autograd.function import Context, Function


# ------------------------------------------------------------------ helpers
def normalize_dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """`dim` as a sorted tuple of non-negative axes (all axes when None)."""
    if dim is None:
        return tuple(range(ndim))
    # an int, or anything with __index__ (a NumPy integer, as NumPy and PyTorch take), or a sequence of those
    dims = (operator.index(dim),) if hasattr(dim, "__index__") else tuple(operator.index(d) for d in dim)
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dimension(s)")
        out.append(d % ndim if ndim else 0)
    if len(set(out)) != len(out):  # (0, -2) of a matrix: NumPy and PyTorch raise too
        raise ValueError(f"dim {tuple(dims)} names a dimension twice (a tensor with {ndim} dimension(s))")
    return tuple(sorted(out)) if ndim else ()


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
        return like.backend.xp.arange(0, dtype=like.backend.default_int(like.device), device=like.device)
    if isinstance(key, list) or (hasattr(key, "dtype") and hasattr(key, "shape")):
        if isinstance(key, numbers.Integral):  # a NumPy integer scalar (it has a dtype and a shape)
            return int(key)
        return like.backend.index_array(like.backend.asarray(key, device=like.device))
    return key


def sum_to(g: Any, shape: tuple[int, ...], op: str = "backward") -> Any:
    """Sum the gradient `g` down to `shape` (undoing a broadcast)."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        raise ValueError(f"{op}: a gradient of shape {gshape} does not reduce to the input shape {shape}")
    return SumTo.apply(g, tuple(shape))


def matmul(a: Any, b: Any) -> Any:
    """`a @ b` with its shapes checked first (names both on a mismatch)."""
    if a.backend is not b.backend or a.backend.multi_device:
        from torchlight.tensor import check_same_backend

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


def _const(like: Any, array: Any) -> Any:
    """An array as a history-free Tensor of `like`'s backend."""
    return type(like)._wrap(array, like.backend)


# ------------------------------------------------------------- arithmetic
class Add(Function):
    elementwise = True
    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.add)  # the array op; the Tensor operator calls it directly when nothing records

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any, b: Any) -> Any:
        out = a.data
        out += b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return Add.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return g, g


class Sub(Function):
    elementwise = True
    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.sub)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any, b: Any) -> Any:
        out = a.data
        out -= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return Sub.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return g, (-g if ctx.needs_input_grad[1] else None)


class Mul(Function):
    elementwise = True
    kernel = staticmethod(operator.mul)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any, b: Any) -> Any:
        out = a.data
        out *= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return Mul.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g * b if need_a else None), (g * a if need_b else None)


class Div(Function):
    elementwise = True
    kernel = staticmethod(operator.truediv)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any, b: Any) -> Any:
        out = a.data
        out /= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(b)
        return Div.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (b,) = ctx.saved_tensors
        ga = g / b
        return (ga if ctx.needs_input_grad[0] else None), (-(ga * ctx.output) if ctx.needs_input_grad[1] else None)


class Neg(Function):
    elementwise = True
    _shares_context = True  # its backward reads no saved value

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.negative, a.data)

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return -a.data

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return -g


class Pow(Function):
    """`a ** p`, p a Python number or a Tensor.

    Negative bases follow NumPy (NaN for a fractional p); the gradient in the
    base is 0 where p == 0, and in the exponent 0 where a == 0 (PyTorch).
    """

    @staticmethod
    def forward(ctx: Context, a: Any, p: Any) -> Any:
        ctx.save_for_backward(a, p)
        return a.data ** (p.data if getattr(p, "_is_tensor", False) else p)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, p = ctx.saved_tensors
        ga = gp = None
        if ctx.needs_input_grad[0]:
            if not getattr(p, "_is_tensor", False):  # (a NumPy scalar has a .data too)
                ga = g * 0.0 if p == 0 else g * (a ** (p - 1) * p)
            else:  # p * a ** (p - 1) with the exponent 1 where p == 0: 0 there, and no 0 ** -1
                xp = p.backend.xp
                nonzero = _const(p, p.data != xp.zeros_like(p.data))
                safe_p = Where.apply(nonzero, p, _const(p, xp.ones_like(p.data)))
                ga = g * (a ** (safe_p - 1.0) * p)
        if getattr(p, "_is_tensor", False) and ctx.needs_input_grad[1]:
            xp = a.backend.xp
            positive = a.data > 0
            safe_a = Where.apply(_const(a, positive), a, _const(a, xp.ones_like(a.data)))
            fill = xp.where(a.data < 0, xp.asarray(math.nan, dtype=a.dtype, device=a.device),
                            xp.zeros_like(a.data))
            gp = g * Where.apply(_const(a, positive), ctx.output * safe_a.log(), _const(a, fill))
        return ga, gp


class MatMul(Function):
    """`a @ b` with the array-API shape rules (1-d operands included)."""

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return a.data @ b.data

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
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


# ----------------------------------------------------------- reductions
def _kept_shape(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with the reduced `dims` kept as size 1 (the shape of a keepdims reduction)."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _reduced(a: Any, data: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    """`data`, reduced over `dims` with keepdims, reshaped to drop them unless `keepdim`."""
    return data if keepdim else a.backend.xp.reshape(data, tuple(n for i, n in enumerate(a.shape) if i not in dims))


class Sum(Function):
    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
        ctx.save_for_backward(a.shape, dims, keepdim)
        return a.backend.xp.sum(a.data, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, dims, keepdim = ctx.saved_tensors
        if not keepdim and g.ndim:  # (a 0-d gradient broadcasts as it is)
            g = g.reshape(_kept_shape(shape, dims))
        return BroadcastView.apply(g, shape), None, None


class SumTo(Function):
    """Sum a broadcast array back down to `shape` (the engine's reduction)."""

    @staticmethod
    def forward(ctx: Context, g: Any, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(g.shape)
        xp, data = g.backend.xp, g.data
        lead = data.ndim - len(shape)
        if lead:  # the leading axes go, the size-1 axes of `shape` stay: no reshape needed
            data = xp.sum(data, axis=tuple(range(lead)))
        dims = tuple(i for i, n in enumerate(shape) if n == 1 and data.shape[i] != 1)
        if dims:
            data = xp.sum(data, axis=dims, keepdims=True)
        return data

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        (shape,) = ctx.saved_tensors
        return BroadcastView.apply(h, shape), None


class Max(Function):
    """The maximum over `dims`; tied maxima share the gradient evenly."""

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
        return _extreme(ctx, a, a.backend.xp.max, dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, top, dims = ctx.saved_tensors
        xp = a.backend.xp
        hit = xp.astype(a.data == top, a.dtype)
        share = hit / xp.sum(hit, axis=dims, keepdims=True)
        return g.reshape(top.shape) * _const(a, share), None, None


def _extreme(ctx: Context, a: Any, reduce: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    """`reduce` (the namespace's max or min) over `dims`, saving what Max's backward reads."""
    top = reduce(a.data, axis=dims, keepdims=True)
    ctx.save_for_backward(a, top, dims)
    return _reduced(a, top, dims, keepdim)


# --------------------------------------------------------- elementwise
class Map(Function):
    """A scalar function of `torchlight.scalar` applied elementwise."""

    @staticmethod
    def forward(ctx: Context, a: Any, fn: Any) -> Any:
        from torchlight.backends.elementwise import map_array

        ctx.save_for_backward(a, fn)
        return map_array(a.backend, fn, a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, fn = ctx.saved_tensors
        return g * _partial(fn, 0, (a,)), None


class Zip(Function):
    """A binary scalar function of `torchlight.scalar` applied elementwise."""

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any, fn: Any) -> Any:
        from torchlight.backends.elementwise import zip_array

        ctx.save_for_backward(a, b, fn)
        return zip_array(a.backend, fn, a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b, fn = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        ga = g * _partial(fn, 0, (a, b)) if need_a else None
        gb = g * _partial(fn, 1, (a, b)) if need_b else None
        return ga, gb, None


def _partial(fn: Any, i: int, args: tuple) -> Any:
    """d fn / d args[i] as a Tensor; by the scalar engine for a plain callable."""
    from torchlight.scalar import Value

    partials = getattr(fn, "partials", None)
    if partials is not None:
        return partials[i](*args)

    def derivative(*xs: float) -> float:
        values = [Value(x) for x in xs]
        out = fn(*values)
        if not isinstance(out, Value):  # a constant, or math.sin(v), which reads v as a float: no graph
            raise TypeError(f"map/zip: {getattr(fn, '__name__', fn)!r} returned {type(out).__name__}, not a Value, "
                            "when called with Values, so its derivative is unknown; write it with torchlight.scalar's "
                            "functions (math functions read a Value as a plain float)")
        out.backward()
        return values[i].grad

    like = args[0]
    backend = like.backend
    arrays = [x.data for x in args]
    if len(arrays) == 1:
        values = _const(like, backend.map(derivative)(arrays[0]))
    else:
        values = _const(like, backend.zip(derivative)(*arrays))
    if grad_mode.is_grad_enabled():  # create_graph: g * values stays differentiable in g
        return PlainPartial.apply(values, fn, *args)
    return values


class PlainPartial(Function):
    """A plain function's derivative at `args`, as numbers the scalar engine found.

    Under `create_graph` a map/zip backward is `g * PlainPartial(...)`: linear
    in `g`, so `func.jvp` and the like work, while a derivative in the
    arguments (a second derivative of the plain function) raises, since no
    formula for it is known.
    """

    @staticmethod
    def forward(ctx: Context, values: Any, fn: Any, *args: Any) -> Any:
        ctx.save_for_backward(fn)
        return values.data

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (fn,) = ctx.saved_tensors
        raise NotImplementedError(
            f"second derivatives of map/zip over the plain function {getattr(fn, '__name__', fn)!r}: "
            "write it with torchlight.scalar functions (which know their derivatives) instead"
        )


class Exp(Function):
    elementwise = True
    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.exp, a.data)

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.xp.exp(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return g * ctx.output


class Log(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return LogBack.apply(a, g)


class LogBack(Function):
    """g / a: the backward of Log, differentiable in both."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any, g: Any) -> Any:
        ctx.save_for_backward(a, g)
        return g.data / a.data

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        a, g = ctx.saved_tensors
        ga = InvBack.apply(a, h * g) if ctx.needs_input_grad[0] else None
        return ga, (LogBack.apply(a, h) if ctx.needs_input_grad[1] else None)


class Inv(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return 1.0 / a.data

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return InvBack.apply(a, g)


class InvBack(Function):
    """-g / a**2: the backward of Inv, differentiable in both."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any, g: Any) -> Any:
        ctx.save_for_backward(a, g)
        return -g.data / (a.data * a.data)

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        a, g = ctx.saved_tensors
        ga = h * g * 2.0 / (a * a * a) if ctx.needs_input_grad[0] else None
        return ga, (InvBack.apply(a, h) if ctx.needs_input_grad[1] else None)


class Sqrt(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.xp.sqrt(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return g / (ctx.output * 2.0)


_EXP_LIMITS: dict[Any, float] = {}


def _exp_limit(xp: Any, dtype: Any) -> float:
    """log(the largest finite value of `dtype`) - 1: exp of anything up to it is finite.

    An integer dtype (whose exp is float32 or float64) gets float32's limit,
    which is safe and large enough for both. Cached per (namespace, dtype):
    dtypes of different libraries must not meet in one comparison.
    """
    key = (xp, dtype)
    limit = _EXP_LIMITS.get(key)
    if limit is None:
        floating = xp.isdtype(dtype, "real floating")
        limit = math.log(float(xp.finfo(dtype if floating else xp.float32).max)) - 1.0
        _EXP_LIMITS[key] = limit
    return limit


class Sigmoid(Function):
    """1 / (1 + exp(-x)), computed without overflow for large |x|.

    As e / (1 + e) with e = exp(min(x, L)), L = log(dtype max) - 1: e never
    overflows, and every x above L (87.7 in float32, 708.8 in float64) gives
    exactly 1, as the true value rounds to 1 already above 17 (float32) or
    37 (float64). Far in the negative tail e / (1 + e) is e itself, so the
    relative accuracy stays (sigmoid(-30) in float32 is 9.36e-14, not 0).
    One exp and three new arrays, the division in place; no `where` (a
    select over a random sign pattern costs NumPy about ten times an exp).
    """
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        xp = a.backend.xp
        x = a.data
        e = xp.exp(xp.minimum(x, _exp_limit(xp, x.dtype)))
        e /= e + 1.0  # e is this op's own array: updated in place
        return e

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return SigmoidBack.apply(ctx.output, g)


class SigmoidBack(Function):
    """g * y * (1 - y) for y = sigmoid(x)."""
    elementwise = True

    overwrites = (0, 1)

    @staticmethod
    def forward_into(ctx: Context, y: Any, g: Any) -> Any:
        out, data = g.data, y.data  # both arrays are this op's to overwrite: no new array
        out *= data  # (g y)(1 - y): forward's product in another order, equal to the last bit or so
        out *= y.backend.call_into(data, y.backend.xp.subtract, 1.0, data)
        return out

    @staticmethod
    def forward(ctx: Context, y: Any, g: Any) -> Any:
        ctx.save_for_backward(y, g)
        out = 1.0 - y.data  # then updated in place: one new array, not three
        out *= y.data
        out *= g.data
        return out

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        y, g = ctx.saved_tensors
        gy = h * g * (1.0 - 2.0 * y) if ctx.needs_input_grad[0] else None
        return gy, (SigmoidBack.apply(y, h) if ctx.needs_input_grad[1] else None)


class Tanh(Function):
    elementwise = True
    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Any) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.tanh, a.data)

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.xp.tanh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return TanhBack.apply(ctx.output, g)


class TanhBack(Function):
    """g * (1 - y**2) for y = tanh(x)."""
    elementwise = True

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, y: Any, g: Any) -> Any:
        out = y.data  # y's own array, which nothing else reads: no new array
        out *= out
        out = y.backend.call_into(out, y.backend.xp.subtract, 1.0, out)
        out *= g.data
        return out

    @staticmethod
    def forward(ctx: Context, y: Any, g: Any) -> Any:
        ctx.save_for_backward(y, g)
        out = y.data * y.data  # then updated in place: one new array, not three
        out -= 1.0
        out *= g.data
        out *= -1.0
        return out

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        y, g = ctx.saved_tensors
        gy = h * g * y * -2.0 if ctx.needs_input_grad[0] else None
        return gy, (TanhBack.apply(y, h) if ctx.needs_input_grad[1] else None)


class ReLU(Function):
    """max(x, 0), with relu'(0) = 0 (set by ReluBack's strict a > 0); NaN stays NaN, as PyTorch.

    Forward and backward avoid `where`: a select over a random sign pattern
    costs NumPy about ten times `maximum` or a multiply by the mask.
    """
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.maximum(a.data, 0)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return ReluBack.apply(a, g)


class ReluBack(Function):
    """g where a > 0, else 0 (g times the mask: a non-finite g where a <= 0
    gives NaN). Its derivative in a is 0 almost everywhere."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any, g: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.masked(g.data, a.data > 0)

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        (a,) = ctx.saved_tensors
        need_a, need_g = ctx.needs_input_grad
        zero = _const(a, a.backend.xp.zeros_like(a.data)) if need_a else None  # connected: d/dx relu'(x) = 0
        return zero, (ReluBack.apply(a, h) if need_g else None)


class Abs(Function):
    """|x|, with abs'(0) = 0 (as PyTorch)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.abs(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        if grad_mode.is_grad_enabled():  # create_graph: sign(a) stays connected to a, with derivative 0 (as PyTorch)
            return g * PiecewiseConstant.apply(a, "sign")
        return g * _const(a, a.backend.xp.sign(a.data))


class Where(Function):
    """`where(cond, a, b)`: the gradient goes to a where cond, else to b."""

    @staticmethod
    def forward(ctx: Context, cond: Any, a: Any, b: Any) -> Any:
        ctx.save_for_backward(cond)
        return a.backend.xp.where(cond.data, a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (cond,) = ctx.saved_tensors
        zero = _const(g, g.backend.xp.zeros_like(g.data))
        ga = Where.apply(cond, g, zero) if ctx.needs_input_grad[1] else None
        gb = Where.apply(cond, zero, g) if ctx.needs_input_grad[2] else None
        return None, ga, gb


class Softmax(Function):
    """exp(x - max) / sum(exp(x - max)) along `dim`, with one backward formula."""

    @staticmethod
    def forward(ctx: Context, a: Any, dim: int) -> Any:
        xp = a.backend.xp
        ctx.dim = dim
        if 0 in a.shape:  # an empty result (and no max of an empty axis to shift by)
            return xp.zeros_like(a.data)
        e = xp.exp(a.data - xp.max(a.data, axis=dim, keepdims=True))
        return e / xp.sum(e, axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        y = ctx.output
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Function):
    """x - logsumexp(x) along `dim`, stable for large |x|."""

    @staticmethod
    def forward(ctx: Context, a: Any, dim: int) -> Any:
        xp = a.backend.xp
        ctx.dim = dim
        if 0 in a.shape:  # an empty result (and no max of an empty axis to shift by)
            return xp.zeros_like(a.data)
        shifted = a.data - xp.max(a.data, axis=dim, keepdims=True)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return g - ctx.output.exp() * g.sum(ctx.dim, keepdim=True), None


# -------------------------------------------------------------- shapes
class Permute(Function):
    @staticmethod
    def forward(ctx: Context, a: Any, axes: tuple[int, ...]) -> Any:
        ctx.save_for_backward(axes)
        return a.backend.xp.permute_dims(a.data, axes)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (axes,) = ctx.saved_tensors
        inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        return Permute.apply(g, inverse), None


class Reshape(Function):
    @staticmethod
    def forward(ctx: Context, a: Any, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape)
        return a.backend.xp.reshape(a.data, shape)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (shape,) = ctx.saved_tensors
        return Reshape.apply(g, shape), None


class BroadcastView(Function):
    """`broadcast_to(a, shape)`; its backward sums back down (SumTo).

    `Tensor.expand` checks the shapes for the user; the backward formulas
    that call this directly broadcast a gradient back to the shape it came from.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, shape: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape)
        return a.backend.xp.broadcast_to(a.data, tuple(shape))

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (shape,) = ctx.saved_tensors
        return SumTo.apply(g, shape), None


class Gather(Function):
    """`a[key]`: slices, negative steps, integer arrays, boolean masks.

    The backward scatters into zeros and sums repeated indices (through the
    backend's `scatter_add`: `np.add.at` on NumPy, a portable sort-based
    segment sum elsewhere).
    """

    @staticmethod
    def forward(ctx: Context, a: Any, key: Any) -> Any:
        ctx.save_for_backward(a.shape, key)
        return a.backend.take_key(a.data, key)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, key = ctx.saved_tensors
        return GatherBack.apply(g, shape, key), None


class GatherBack(Function):
    """zeros(shape) with g added at `key`: the transpose of Gather."""

    @staticmethod
    def forward(ctx: Context, g: Any, shape: tuple[int, ...], key: Any) -> Any:
        ctx.save_for_backward(key)
        return g.backend.scatter_add(shape, key, g.data)

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        (key,) = ctx.saved_tensors
        return Gather.apply(h, key), None, None


# ---------------------------------------------------------- copies, moves
class Clone(Function):
    _shares_context = True  # its backward reads no saved value

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.copy(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return g


class AsType(Function):
    @staticmethod
    def forward(ctx: Context, a: Any, dtype: Any) -> Any:
        ctx.save_for_backward(a.dtype)
        return a.backend.xp.astype(a.data, dtype)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (dtype,) = ctx.saved_tensors
        return AsType.apply(g, dtype), None


class To(Function):
    """Move to another backend and/or device (DLPack where possible)."""

    @staticmethod
    def forward(ctx: Context, a: Any, backend: Any, device: Any) -> Any:
        from torchlight.backends.transfer import move

        ctx.save_for_backward(a.backend, a.device)
        return type(a)._wrap(move(a.data, a.backend, backend, device), backend)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        backend, device = ctx.saved_tensors
        return To.apply(g, backend, device), None, None


# ------------------------------------------------- nn ops (torchlight.nn)
class Linear(Function):
    """`x @ weight.mT + bias` as one node, weight (out_features, in_features), bias optional
    and broadcasting to the product's shape (`nn.functional.linear` sees to that).

    The bias is added in place into the product, which the forward has just
    made (one pass and one array fewer than `@` then `+`, as PyTorch's addmm).
    The backward: g @ weight for x, g^T x (over every leading axis) for the
    weight, g for the bias (the engine sums it down to the bias's shape).
    """

    @staticmethod
    def forward(ctx: Context, x: Any, weight: Any, bias: Any) -> Any:
        ctx.save_for_backward(x, weight)
        out = x.data @ x.backend.xp.matrix_transpose(weight.data)  # (CuPy arrays have no .mT)
        if bias is None:
            return out
        if bias.dtype != out.dtype:
            return out + bias.data
        out += bias.data  # the product is this op's own array (the bias fits in it: see nn.functional.linear)
        return out

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        gw = None
        if need_w:
            rows_g, rows_x = (g, x) if g.ndim == 2 else (g.reshape((-1, g.shape[-1])), x.reshape((-1, x.shape[-1])))
            gw = rows_g.mT @ rows_x
        return (g @ weight if need_x else None), gw, (g if need_b else None)


class LogSumExp(Function):
    """log(sum(exp(x))) over `dims`, shifted by the max so that it neither
    overflows nor underflows; the gradient is softmax(x) times g. Over an
    empty dim it is log(0) = -inf (the identity of logaddexp, as PyTorch)."""

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a, dims)
        if any(a.shape[d] == 0 for d in dims):  # no max to shift by; log of an empty sum
            out = xp.full(_kept_shape(a.shape, dims), -math.inf, dtype=a.dtype, device=a.device)
        else:
            top = xp.max(a.data, axis=dims, keepdims=True)
            top = xp.where(xp.isfinite(top), top, xp.zeros_like(top))  # an all -inf slice gives -inf, not NaN
            out = xp.log(xp.sum(xp.exp(a.data - top), axis=dims, keepdims=True)) + top
        return _reduced(a, out, dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, dims = ctx.saved_tensors
        kept = _kept_shape(a.shape, dims)
        return g.reshape(kept) * (a - ctx.output.reshape(kept)).exp(), None, None


class Softplus(Function):
    """log(1 + exp(x)) written as max(x, 0) + log1p(exp(-|x|)) (no overflow);
    its derivative is sigmoid(x), exact at 0 as well."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a)
        return xp.where(a.data > 0, a.data, xp.zeros_like(a.data)) + xp.log1p(xp.exp(-xp.abs(a.data)))

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * Sigmoid.apply(a)


class TakeAlongAxis(Function):
    """`take_along_axis(a, index, axis)` (index: an integer array of `a`'s ndim).

    The backward adds g back through a one-hot mask (index == arange), a
    product and a sum, so it needs no scatter and is differentiable again.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, index: Any, axis: int) -> Any:
        ctx.save_for_backward(a.shape, index, axis)
        return a.backend.take_along_axis(a.data, index, axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, index, axis = ctx.saved_tensors
        mask = one_hot(g.backend.xp.expand_dims(index, axis=axis + 1), shape[axis], axis + 1, g)
        spread = g.reshape(g.shape[: axis + 1] + (1,) + g.shape[axis + 1:]) * mask
        return spread.sum(axis), None, None


def one_hot(index: Any, n: int, axis: int, like: Any) -> Any:
    """`index == arange(n)` along `axis` (where `index` has size 1), as a constant of `like`'s dtype."""
    backend = like.backend
    return _const(like, backend.xp.astype(backend.index_mask(index, n, axis), like.dtype))


class Dropout(Function):
    """x * mask / (1 - p), each element of the mask kept with probability 1 - p.

    The mask is drawn in the forward (from `generator`, or the backend's own
    stream), so that a compiled program draws a new one on every call.
    """

    @staticmethod
    def forward(ctx: Context, x: Any, p: float, generator: Any) -> Any:
        xp = x.backend.xp
        noise = x.backend.random("rand", x.shape, None, x.device, generator)  # default float: one stream per seed
        mask = xp.astype(noise >= p, x.dtype) / (1.0 - p)
        ctx.save_for_backward(mask)
        return x.data * mask

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (mask,) = ctx.saved_tensors
        return g * _const(g, mask), None, None


class CrossEntropy(Function):
    """Softmax cross-entropy of class labels along `axis`: logsumexp(z) - z[label], reduced.

    `labels` is the integer Tensor of the labels (the scores' shape without
    `axis`); `reduction` is "none", "sum" or "mean". One node instead
    of log_softmax, a gather, a negation and a reduction, and one backward
    formula, (softmax(z) - one_hot(label)) * g (g / N for the mean). The
    forward keeps the softmax it computes on the way; with `create_graph`
    the backward makes it again with `Softmax`, so that it is differentiable.

    `cross_entropy` takes this path only when every label is in [0, C) and
    none equals `ignore_index`; the forward checks it again (where the library
    is not lazy) because a compiled program replays this node with new labels.
    """

    @staticmethod
    def forward(ctx: Context, z: Any, labels: Any, axis: int, reduction: str, ignore_index: int = -100) -> Any:
        xp = z.backend.xp
        index = _label_index(labels, axis, z.shape[axis], ignore_index)
        shifted = z.data - xp.max(z.data, axis=axis, keepdims=True)
        e = xp.exp(shifted)
        total = xp.sum(e, axis=axis, keepdims=True)
        loss = xp.squeeze(xp.log(total) - z.backend.take_along_axis(shifted, index, axis), axis=axis)
        scale = None if reduction == "none" else 1.0 if reduction == "sum" else mean_scale(math.prod(loss.shape))
        ctx.save_for_backward(z, index, axis, e / total, scale)
        return loss if scale is None else xp.sum(loss) * scale

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        z, index, axis, softmax, scale = ctx.saved_tensors
        p = Softmax.apply(z, axis) if grad_mode.is_grad_enabled() else _const(z, softmax)
        if scale is None:  # one loss per label: g has the labels' shape
            g = g.reshape(g.shape[:axis] + (1,) + g.shape[axis:])
        elif scale != 1.0:
            g = g * scale
        return (p - one_hot(index, z.shape[axis], axis, z)) * g, None, None, None, None


def _label_index(labels: Any, axis: int, classes: int, ignore_index: int) -> Any:
    """The labels as `take_along_axis` wants them (int64, a size-1 `axis`), each checked to be a class."""
    xp, data = labels.backend.xp, labels.data
    info = xp.iinfo(data.dtype)

    def bad(d: Any) -> Any:
        out = d < 0
        if classes <= info.max:  # (a label of uint8 is below 300 classes, and 300 no uint8 to compare with)
            out = out | (d >= classes)
        if info.min <= ignore_index <= info.max:
            out = out | (d == ignore_index)
        return out

    error = ValueError(f"cross_entropy: a label outside [0, {classes - 1}] or equal to ignore_index="
                       f"{ignore_index} reached the path for labels that are all classes (a compiled "
                       f"function takes the path of its first call: call it without compile)")
    index = xp.expand_dims(labels.backend.checked(data, bad, error), axis=axis)
    return index if index.dtype == xp.int64 else xp.astype(index, xp.int64)


class BinaryCrossEntropyLog(Function):
    """log(q) clamped at -100: each log of `binary_cross_entropy`, with PyTorch's gradient for the loss.

    Its derivative, (1 - q) / max(q (1 - q), 1e-12), is 1 / q wherever
    q (1 - q) >= 1e-12, and makes the gradient of -(t log p + (1 - t) log(1 - p))
    PyTorch's (p - t) / max(p (1 - p), 1e-12): finite and of the right sign at
    p = 0 or 1, where a clamped log has a zero derivative (so a confidently wrong
    p = 0 for t = 1 learnt nothing, and t = 0.5 pushed p = 0 further down).
    """

    FLOOR = math.exp(-100.0)

    @staticmethod
    def forward(ctx: Context, q: Any) -> Any:
        xp = q.backend.xp
        ctx.save_for_backward(q)
        keep = q.data > BinaryCrossEntropyLog.FLOOR
        safe = xp.where(keep, q.data, xp.ones_like(q.data))  # log(0) would warn
        return xp.where(keep, xp.log(safe), xp.full_like(q.data, -100.0))

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (q,) = ctx.saved_tensors
        rest = 1.0 - q
        return g * rest / (q * rest).clamp(min=1e-12)


def _pad_axis(xp: Any, data: Any, axis: int, before: int, after: int, value: float) -> Any:
    """`data` with `before`/`after` entries of `value` concatenated along `axis`."""
    if not before and not after:
        return data
    parts = []
    for n in (before, after):
        shape = list(data.shape)
        shape[axis] = n
        parts.append(xp.full(tuple(shape), value, dtype=data.dtype, device=data.device))
    return xp.concat([parts[0], data, parts[1]], axis=axis)


def _writeable(array: Any) -> bool:
    """Whether `array[key] = ...` works (not on JAX): then padding and folding write into one array."""
    return array_api_compat.is_writeable_array(array)


class Pad(Function):
    """Padding with `value` of the last `len(pads)` axes; `pads` is ((before, after), ...).

    The input is written into a `full` array of the padded shape where the
    library's arrays are writeable, else (JAX) built by concatenation; the
    backward slices the padding off again.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, pads: tuple[tuple[int, int], ...], value: float) -> Any:
        xp = a.backend.xp
        data = a.data
        lead = a.ndim - len(pads)
        ctx.save_for_backward(a.shape, pads)
        if _writeable(data):  # (a read-only NumPy view takes the concatenation too: correct, a little slower)
            shape = a.shape[:lead] + tuple(n + b + e for n, (b, e) in zip(a.shape[lead:], pads))
            out = xp.full(shape, value, dtype=data.dtype, device=a.device)
            out[(...,) + tuple(slice(b, b + n) for (b, _), n in zip(pads, a.shape[lead:]))] = data
            return out
        for k, (before, after) in enumerate(pads):
            data = _pad_axis(xp, data, lead + k, before, after, value)
        return data

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, pads = ctx.saved_tensors
        lead = len(shape) - len(pads)
        key = (slice(None),) * lead + tuple(slice(b, b + n) for (b, _), n in zip(pads, shape[lead:]))
        return Gather.apply(g, key), None, None


def _window_slices(kernel: tuple[int, int], stride: tuple[int, int], out: tuple[int, int],
                   dilation: tuple[int, int] = (1, 1)) -> list:
    """One (rows, cols) slice pair per kernel offset, in row-major order (offset i sits at i * dilation)."""
    (kh, kw), (sh, sw), (ho, wo), (dh, dw) = kernel, stride, out, dilation
    return [(slice(i * dh, i * dh + sh * (ho - 1) + 1, sh), slice(j * dw, j * dw + sw * (wo - 1) + 1, sw))
            for i in range(kh) for j in range(kw)]


def window_count(size: int, kernel: int, stride: int, dilation: int = 1) -> int:
    """How many windows of `kernel` taps, `dilation` apart, fit in `size` at `stride` (PyTorch's formula)."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


class Unfold(Function):
    """The sliding (kh, kw) windows of an (N, C, H, W) array, the kh*kw offsets on `window_axis`.

    `window_axis` -1 gives (N, C, Ho, Wo, kh*kw), as a convolution's matmul
    wants it; 0 gives (kh*kw, N, C, Ho, Wo), as pooling wants it (a max or
    mean over a short last axis costs NumPy several times one over a
    leading one). Gathered as kh*kw strided slices stacked on that axis
    (array API only, no copies per output pixel); the backward is Fold.
    `dilation` spaces the taps of a window apart (offset i starts at
    i * dilation): a dilated window is just another set of strided slices.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, kernel: tuple[int, int], stride: tuple[int, int], window_axis: int,
                dilation: tuple[int, int]) -> Any:
        out = tuple(window_count(n, k, s, d) for n, k, s, d in zip(a.shape[-2:], kernel, stride, dilation))
        ctx.save_for_backward(a.shape, kernel, stride, window_axis, dilation)
        patches = [a.data[..., rows, cols] for rows, cols in _window_slices(kernel, stride, out, dilation)]
        return a.backend.xp.stack(patches, axis=window_axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, kernel, stride, window_axis, dilation = ctx.saved_tensors
        return Fold.apply(g, shape, kernel, stride, window_axis, dilation), None, None, None, None


def _dilate(xp: Any, data: Any, axis: int, step: int) -> Any:
    """Insert step - 1 zeros between the entries of `data` along `axis`."""
    if step == 1:
        return data
    n = data.shape[axis]
    zeros = xp.zeros_like(data)
    woven = xp.stack([data] + [zeros] * (step - 1), axis=axis + 1)
    shape = tuple(data.shape[:axis]) + (n * step,) + tuple(data.shape[axis + 1:])
    key = (slice(None),) * axis + (slice(0, (n - 1) * step + 1), Ellipsis)
    return xp.reshape(woven, shape)[key]


class Fold(Function):
    """The transpose of Unfold: every window's values added back at its place
    in an (N, C, H, W) array of `shape` (overlapping windows sum).

    Where the library's arrays are writeable, each offset's values are added
    in place into its strided slice of one zeros array; else (JAX) each is
    dilated by the stride, padded to `shape` and summed. `dilation` as Unfold's.
    """

    @staticmethod
    def forward(ctx: Context, g: Any, shape: tuple[int, ...], kernel: tuple[int, int],
                stride: tuple[int, int], window_axis: int, dilation: tuple[int, int]) -> Any:
        xp = g.backend.xp
        ctx.save_for_backward(kernel, stride, window_axis, dilation)
        spatial = g.ndim - 2 if window_axis == 0 else g.ndim - 3  # the axis of Ho in g
        out = (g.shape[spatial], g.shape[spatial + 1])
        parts = [g.data[k, ...] if window_axis == 0 else g.data[..., k] for k in range(kernel[0] * kernel[1])]
        total = xp.zeros(shape, dtype=g.dtype, device=g.device)
        slices = _window_slices(kernel, stride, out, dilation)
        if _writeable(total):
            for part, (rows, cols) in zip(parts, slices):
                total[..., rows, cols] += part
            return total
        h, w = shape[-2:]
        for part, (rows, cols) in zip(parts, slices):
            part = _dilate(xp, _dilate(xp, part, part.ndim - 2, stride[0]), part.ndim - 1, stride[1])
            part = _pad_axis(xp, part, part.ndim - 2, rows.start, h - rows.start - part.shape[-2], 0.0)
            part = _pad_axis(xp, part, part.ndim - 1, cols.start, w - cols.start - part.shape[-1], 0.0)
            total = total + part
        return total

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        kernel, stride, window_axis, dilation = ctx.saved_tensors
        return Unfold.apply(h, kernel, stride, window_axis, dilation), None, None, None, None, None


# -------------------------------------- array ops (torchlight.ops, Tensor methods)
class Min(Max):
    """The minimum over `dims`: Max's forward with the namespace's `min`, and
    Max's backward (tied minima share the gradient evenly)."""

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
        return _extreme(ctx, a, a.backend.xp.min, dims, keepdim)


class Concat(Function):
    """`concat(parts, axis)`: `Concat.apply(*parts, axis)`, the axis last.

    `torchlight.ops.cat` checks the shapes for the user. The backward slices
    the gradient back into the parts along `axis`.
    """

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        *parts, axis = inputs
        axis %= parts[0].ndim
        ctx.save_for_backward(axis, tuple(p.shape[axis] for p in parts))
        return parts[0].backend.xp.concat([p.data for p in parts], axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        axis, sizes = ctx.saved_tensors
        grads, start = [], 0
        for n, need in zip(sizes, ctx.needs_input_grad):
            grads.append(Gather.apply(g, (slice(None),) * axis + (slice(start, start + n),)) if need else None)
            start += n
        return (*grads, None)


class Clamp(Function):
    """`min(max(x, lo), hi)`, either bound None (absent), a number or a Tensor.

    The gradient follows PyTorch: x gets g where lo <= x <= hi (the bounds
    included), lo gets it where x < lo < hi, hi where x > hi or hi < lo
    (with lo > hi every result is hi). Forward: the namespace's `clip` for
    number bounds (one pass); `maximum`/`minimum` for Tensor bounds, which
    broadcast as every binary op does, and for lo > hi.
    """

    @staticmethod
    def forward(ctx: Context, x: Any, lo: Any, hi: Any) -> Any:
        xp = x.backend.xp
        ctx.save_for_backward(x, lo, hi)
        lo_data, hi_data = (getattr(b, "data", b) for b in (lo, hi))
        if not hasattr(lo, "data") and not hasattr(hi, "data") and (lo is None or hi is None or lo <= hi):
            return xp.clip(x.data, lo_data, hi_data)  # (array_api_strict's clip refuses min > max)
        out = x.data if lo is None else xp.maximum(x.data, lo_data)
        return out if hi is None else xp.minimum(out, hi_data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        x, lo, hi = ctx.saved_tensors
        xp = x.backend.xp
        x_data, lo_data, hi_data = (getattr(b, "data", b) for b in (x, lo, hi))
        need_x, need_lo, need_hi = ctx.needs_input_grad

        def masked(mask: Any) -> Any:  # g where mask, else 0
            return g * _const(g, xp.astype(mask, g.dtype))

        gx = glo = ghi = None
        if need_x:
            inside = [m for m in (None if lo is None else x_data >= lo_data,
                                  None if hi is None else x_data <= hi_data) if m is not None]
            gx = g if not inside else masked(inside[0] if len(inside) == 1 else xp.logical_and(*inside))
        if need_lo:
            below = x_data < lo_data
            glo = masked(below if hi is None else xp.logical_and(below, lo_data < hi_data))
        if need_hi:
            above = x_data > hi_data
            ghi = masked(above if lo is None else xp.logical_or(above, hi_data < lo_data))
        return gx, glo, ghi


# ------------------------------------- functional transforms (torchlight.func)
class Stack(Function):
    """`stack(parts, axis)` of same-shaped tensors: `Stack.apply(*parts, axis)`,
    the axis last; differentiable in each part.

    What `torchlight.ops.stack` calls (it checks the shapes for the user),
    and how `torchlight.func.jacobian` assembles its rows when they carry
    history (a Jacobian inside another transform); the backward hands
    slice i of the gradient along `axis` to part i.
    """

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        *parts, axis = inputs
        axis %= parts[0].ndim + 1
        ctx.save_for_backward(axis)
        return parts[0].backend.xp.stack([p.data for p in parts], axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (axis,) = ctx.saved_tensors
        lead = (slice(None),) * axis
        grads = [Gather.apply(g, lead + (i,)) if need else None for i, need in enumerate(ctx.needs_input_grad[:-1])]
        return (*grads, None)


# ------------------------------------------ elementwise math and statistics
class Sin(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.sin(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * Cos.apply(a)


class Cos(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.cos(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return -(g * Sin.apply(a))


class Tan(Function):
    """tan(x); its derivative 1 + tan(x)**2 is read from the output."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.xp.tan(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        y = ctx.output
        return g * (y * y + 1.0)


class Sinh(Function):
    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.sinh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * Cosh.apply(a)


class Cosh(Function):
    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.cosh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * Sinh.apply(a)


class Log1p(Function):
    """log(1 + x), accurate for small |x|; the gradient is g / (1 + x) (LogBack)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log1p(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return LogBack.apply(a + 1.0, g)


class Expm1(Function):
    """exp(x) - 1, accurate for small |x|; its derivative expm1(x) + 1 is read from the output."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        return a.backend.xp.expm1(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        return g * (ctx.output + 1.0)


class Log2(Function):
    """log2(x); the gradient is g / (x ln 2) (LogBack, scaled). Log10 shares it."""

    base = 2.0

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log2(a.data)

    @classmethod
    def backward(cls, ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return LogBack.apply(a, g) * (1.0 / math.log(cls.base))


class Log10(Log2):
    base = 10.0

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log10(a.data)


class Square(Function):
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.square(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * (a * 2.0)


class PiecewiseConstant(Function):
    """`sign`, `floor`, `ceil`, `round` or `trunc` (the namespace function `name`): a step
    function, whose gradient is 0 everywhere, the steps included (as PyTorch)."""

    @staticmethod
    def forward(ctx: Context, a: Any, name: str) -> Any:
        return getattr(a.backend.xp, name)(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return _const(g, g.backend.xp.zeros_like(g.data)), None


class Maximum(Function):
    """Elementwise `maximum(a, b)`, broadcasting; where a == b each side gets half
    the gradient (PyTorch's convention). A NaN is the result, and gets the
    gradient, whichever side it is on (two NaNs: half each), so that
    maximum(a, b) and maximum(b, a) agree."""

    pick = staticmethod(lambda xp, a, b: xp.maximum(a, b))

    @classmethod
    def forward(cls, ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return cls.pick(a.backend.xp, a.data, b.data)

    @classmethod
    def backward(cls, ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        xp = g.backend.xp
        nan_a, nan_b = xp.isnan(a.data), xp.isnan(b.data)
        won = xp.logical_or(cls.pick(xp, a.data, b.data) == a.data, nan_a)  # where a is the result
        tie = xp.logical_or(a.data == b.data, xp.logical_and(nan_a, nan_b))
        share_a = xp.astype(won, g.dtype) - xp.astype(tie, g.dtype) * 0.5  # a tie: half each
        need_a, need_b = ctx.needs_input_grad
        return (g * _const(g, share_a) if need_a else None), (g * _const(g, 1.0 - share_a) if need_b else None)


class Minimum(Maximum):
    """Elementwise `minimum(a, b)`: Maximum's backward with the namespace's `minimum`."""

    pick = staticmethod(lambda xp, a, b: xp.minimum(a, b))


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
    return xp.full(_kept_shape(a.shape, dims), math.nan, dtype=a.dtype, device=a.device)


def _var_backward(ctx: Context, g: Any) -> Any:
    """g * 2 (a - mean(a)) / (count - correction), with g of the kept-dims shape."""
    a, dims, scale = ctx.saved_tensors
    return g.reshape(_kept_shape(a.shape, dims)) * (a - a.mean(dims, keepdim=True)) * (2.0 * scale)


class Var(Function):
    """The variance over `dims` with `correction` (1: unbiased, as PyTorch's default)."""

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool, correction: float) -> Any:
        return _reduced(a, _moments(ctx, a, dims, correction), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return _var_backward(ctx, g), None, None, None


def _safe_reciprocal(d: Any) -> Any:
    """1 / d where d != 0, else 0, as Tensor ops (differentiable where d != 0): PyTorch's
    convention where a derivative's denominator vanishes (std at zero deviation, atan2 at the
    origin, norm at 0)."""
    xp = d.backend.xp
    nonzero = xp.astype(d.data != 0, d.dtype)  # (NaN counts as nonzero: it stays NaN)
    return _const(d, nonzero) / (d + _const(d, 1.0 - nonzero))


class Std(Function):
    """sqrt(var) over `dims`. Where the deviation is 0 the gradient is 0 (PyTorch's
    convention: the true one is infinite), written so that the second derivative
    is 0 there too rather than NaN."""

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool, correction: float) -> Any:
        return _reduced(a, a.backend.xp.sqrt(_moments(ctx, a, dims, correction)), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
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

    @staticmethod
    def forward(ctx: Context, a: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
        ctx.save_for_backward(a, dims)
        return _reduced(a, a.backend.xp.prod(a.data, axis=dims, keepdims=True), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, dims = ctx.saved_tensors
        g = g.reshape(_kept_shape(a.shape, dims))
        others = _prod_of_others(a, dims) if grad_mode.is_grad_enabled() else _const(a, _prod_of_others_array(a, dims))
        return g * others, None, None


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
        return xp.asarray(value, dtype=x.dtype, device=a.device)

    zero, inf, nan = x == 0, xp.isinf(x), xp.isnan(x)
    regular = xp.where(xp.logical_or(zero, xp.logical_or(inf, nan)), const(1.0), x)
    rest = xp.prod(regular, axis=dims, keepdims=True) / regular

    def others(mask: Any) -> Any:  # how many of the other elements of each slice are in `mask`
        m = xp.astype(mask, x.dtype)
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
    eye = _const(a, xp.eye(n, dtype=a.dtype, device=a.device) != 0)
    masked = Where.apply(eye, _const(a, xp.ones((), dtype=a.dtype, device=a.device)), rows)
    others = Reshape.apply(Prod.apply(masked, (len(lead) + 1,), False), lead + sizes)
    order = rest + dims
    return Permute.apply(others, tuple(sorted(range(a.ndim), key=order.__getitem__)))


class Cumsum(Function):
    """The running sum along `axis`; the backward is the reversed running sum of g."""

    @staticmethod
    def forward(ctx: Context, a: Any, axis: int) -> Any:
        ctx.axis = axis
        return a.backend.xp.cumulative_sum(a.data, axis=axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return ReverseCumsum.apply(g, ctx.axis), None


class ReverseCumsum(Function):
    """The running sum along `axis` from the end (Cumsum's backward; its own backward is Cumsum)."""

    @staticmethod
    def forward(ctx: Context, g: Any, axis: int) -> Any:
        xp = g.backend.xp
        ctx.axis = axis
        return xp.flip(xp.cumulative_sum(xp.flip(g.data, axis=axis), axis=axis), axis=axis)

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        return Cumsum.apply(h, ctx.axis), None


def _rsqrt_of(factor_a: Any, factor_b: Any, g: Any) -> Any:
    """g / sqrt(factor_a * factor_b) in Tensor ops (the derivatives of asin, acos, acosh)."""
    return g / (factor_a * factor_b).sqrt()


class Asin(Function):
    """arcsin(x) on [-1, 1]; the gradient 1 / sqrt((1 - x)(1 + x)) (factored: accurate near +-1)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.asin(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return _rsqrt_of(1.0 - a, 1.0 + a, g)


class Acos(Function):
    """arccos(x) on [-1, 1]; the gradient is minus asin's."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.acos(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return -_rsqrt_of(1.0 - a, 1.0 + a, g)


class Atan(Function):
    """arctan(x); the gradient 1 / (1 + x**2)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.atan(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g / (a * a + 1.0)


class Asinh(Function):
    """arsinh(x); the gradient 1 / sqrt(x**2 + 1)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.asinh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g / (a * a + 1.0).sqrt()


class Acosh(Function):
    """arcosh(x) for x >= 1; the gradient 1 / sqrt((x - 1)(x + 1)) (factored: accurate near 1)."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.acosh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return _rsqrt_of(a - 1.0, a + 1.0, g)


class Atanh(Function):
    """artanh(x) on (-1, 1); the gradient 1 / ((1 - x)(1 + x))."""

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.atanh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g / ((1.0 - a) * (1.0 + a))


class Atan2(Function):
    """atan2(a, b), the angle of the point (b, a) (a is y, b is x, as PyTorch and the standard).

    The gradient is (b, -a) / (a**2 + b**2), and 0 at the origin (PyTorch's
    convention, where the angle has no limit).
    """

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return a.backend.xp.atan2(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        scale = g * _safe_reciprocal(a * a + b * b)
        need_a, need_b = ctx.needs_input_grad
        return (scale * b if need_a else None), (-(scale * a) if need_b else None)


class LogAddExp(Function):
    """log(exp(a) + exp(b)) (the namespace's `logaddexp`: no overflow for large inputs).

    The gradients, sigmoid(a - b) for a and sigmoid(b - a) for b, are each
    made with `Sigmoid` (stable in both tails, and differentiable again),
    not as 1 - the other, which would round a tiny share to 0.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return a.backend.xp.logaddexp(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g * Sigmoid.apply(a - b) if need_a else None), (g * Sigmoid.apply(b - a) if need_b else None)


class Norm(Function):
    """sum(|x|**p)**(1/p) over `dims`, for a positive finite `p` (p = 1 and +-inf are
    composed from Abs, Sum, Max and Min by `Tensor.norm`).

    The gradient is sign(x) (|x| / norm)**(p - 1) times g, and 0 where x is 0
    or the norm is 0 (PyTorch's convention: at an all-zero slice, p = 2's true
    gradient has no limit, and for p < 1 the one at a zero element is
    infinite). It is written in Tensor ops with those points masked, so the
    second derivative there is 0 rather than NaN (PyTorch's NaN).
    """

    @staticmethod
    def forward(ctx: Context, a: Any, p: float, dims: tuple[int, ...], keepdim: bool) -> Any:
        xp = a.backend.xp
        x = a.data
        powers = x * x if p == 2 else xp.abs(x) ** p
        total = xp.sum(powers, axis=dims, keepdims=True)
        ctx.save_for_backward(a, p, dims)
        return _reduced(a, xp.sqrt(total) if p == 2 else total ** (1.0 / p), dims, keepdim)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
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


# ------------------------- flip, roll, tile, %, // (Tensor methods and operators)
class Flip(Function):
    """The order of the elements along `axes` reversed (the namespace's `flip`); its own backward."""

    @staticmethod
    def forward(ctx: Context, a: Any, axes: tuple[int, ...]) -> Any:
        ctx.save_for_backward(axes)
        return a.backend.xp.flip(a.data, axis=axes)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (axes,) = ctx.saved_tensors
        return Flip.apply(g, axes), None


class Roll(Function):
    """The elements shifted by `shifts` along `axes`, wrapping around (the namespace's `roll`;
    `axes` None rolls the flattened tensor). The backward rolls back by `-shifts`."""

    @staticmethod
    def forward(ctx: Context, a: Any, shifts: int | tuple[int, ...], axes: tuple[int, ...] | None) -> Any:
        ctx.save_for_backward(shifts, axes)
        return a.backend.xp.roll(a.data, shifts, axis=axes)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shifts, axes = ctx.saved_tensors
        back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
        return Roll.apply(g, back, axes), None, None


class Tile(Function):
    """`reps[i]` copies along each axis (the namespace's `tile`), `len(reps) >= a.ndim`.

    The backward sums the copies: the gradient seen as (r0, n0, r1, n1, ...)
    summed over the r axes (Reshape and Sum, so it is differentiable again).
    """

    @staticmethod
    def forward(ctx: Context, a: Any, reps: tuple[int, ...]) -> Any:
        ctx.save_for_backward(a.shape, reps)
        return a.backend.xp.tile(a.data, reps)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, reps = ctx.saved_tensors
        sizes = (1,) * (len(reps) - len(shape)) + tuple(shape)
        pairs = tuple(n for pair in zip(reps, sizes) for n in pair)
        copies = Sum.apply(Reshape.apply(g, pairs), tuple(range(0, len(pairs), 2)), False)
        return Reshape.apply(copies, tuple(shape)), None


class FloorDivide(Function):
    """`a // b`, floor(a / b) computed exactly (the arrays' `//`: the standard's `floor_divide`), broadcasting.

    A step function, as `floor`: the gradient is 0 for both inputs (as
    `torch.div(a, b, rounding_mode="floor")` and JAX; PyTorch's `//` raises
    at backward instead). Remainder's backward uses it for the quotient.
    """

    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.floordiv)

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return FloorDivide.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        xp = g.backend.xp
        return tuple(_const(g, xp.zeros_like(g.data)) if need else None for need in ctx.needs_input_grad)


class Remainder(Function):
    """`a % b` with the sign of b (the arrays' `%`: the standard's, NumPy's and PyTorch's
    `remainder`, Python's `%`), broadcasting: a - b * floor(a / b).

    d/da = 1 and d/db = -floor(a / b) (PyTorch's); the quotient is
    FloorDivide's, so under `create_graph` the gradient of b stays
    connected to a and b, with derivative 0.
    """

    kernel = staticmethod(operator.mod)

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        ctx.save_for_backward(a, b)
        return Remainder.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g if need_a else None), (-(g * FloorDivide.apply(a, b)) if need_b else None)
