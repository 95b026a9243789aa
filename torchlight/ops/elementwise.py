"""Elementwise functions: exp and log, roots, rounding, sign and abs, clamp, maximum/minimum, logaddexp.

Conventions at kinks: abs'(0) = 0; where maximum's operands tie each gets
half the gradient (PyTorch); clamp passes the gradient where the bounds
themselves are hit; rounding and sign have gradient 0 everywhere.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 4.0], requires_grad=True)
    >>> (x.sqrt() + x.log()).sum().backward()
    >>> x.grad.tolist()
    [1.5, 0.5]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function, Variable
from torchlight.ops.activations import Sigmoid
from torchlight.ops.common import (
    _const,
    _int_side,
    _safe_reciprocal,
    binary,
    broadcast_shapes,
    raw_from_output,
    unary_op,
)
from torchlight.ops.complex_numbers import Conj, conj, is_complex, refuse_complex, refuse_complex_grad

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _check_floating_pair(op: str, a: Tensor, other: Any) -> None:
    """A TypeError unless `a` (and `other`, where it is a Tensor) is floating, as the standard's
    `hypot` and `copysign` ask (an integer tensor: cast it first, e.g. `x.astype("float64")`)."""
    for x in (a, other):
        if isinstance(x, Variable) and not x.backend.is_floating(x.dtype):
            raise TypeError(f"{op}: the inputs must have a floating-point dtype, not {x.dtype} "
                            "(cast with .astype first)")
    refuse_complex(op, a, other)


def _clamp_bound(x: Tensor, bound: Any, below: bool) -> Any:
    """A bound of `x.clamp` (the lower one when `below`) as Clamp takes it: None, a number, or a Tensor.

    A number that `x * bound` would promote (a float bound of an integer x, an
    int of a boolean x) goes in as a Tensor, so the result promotes alike; a
    NumPy float counts as the float it is. A Python int beyond an integer x's
    range clips nothing on one side (a lower bound below it, an upper one
    above it) and is dropped, as NumPy 2's clip (`uint8_x.clamp(-1, 5)`); on
    the other side it is NumPy's OverflowError (from `_lift`).
    """
    if bound is None:
        return None
    if isinstance(bound, float):
        bound = float(bound)  # np.float64: as x * it
    elif type(bound) is int and not x.backend.is_floating(x.dtype) and not x.backend.xp.isdtype(x.dtype, "bool") \
            and _int_side(x.backend, x.dtype, bound) == (-1 if below else 1):
        return None
    lifted = x._lift(bound)
    return bound if isinstance(bound, (int, float)) and lifted.dtype == x.dtype else lifted


class Exp(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    saves_output = True  # its backward reads ctx.output
    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.exp, a.data)

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.backend.xp.exp(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        y = ctx.output
        return g * y if g.backend.complex_of.get(g.data.dtype) is False else g * Conj.apply(y)

    raw_backward = raw_from_output(  # (complex: `backward` conjugates)
        lambda y, g, backend: backend.gradient_times(g, y) if backend.is_broadcast_one(g) else g * y)


class Log(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        return _log_backward(a, g)

    @staticmethod
    def raw_backward(ctx: Context, g: Any, backend: Any) -> Any:
        (a,) = ctx.saved_tensors
        if backend.complex_of.get(g.dtype) is not False or not a.plain_data:
            return NotImplemented
        return g / a.data  # (LogBack's forward)


def _log_backward(a: Tensor, g: Tensor) -> Tensor:
    """g / conj(a), the backward of log: LogBack for real a (differentiable in both), composed
    of Conj and Div for complex a (whose own backwards then give the second derivatives)."""
    return g / Conj.apply(a) if is_complex(a) else LogBack.apply(a, g)


class LogBack(Function):
    """g / a: the backward of Log, differentiable in both."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, g: Tensor) -> Any:
        ctx.save_for_backward(a, g)
        return g.data / a.data

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        a, g = ctx.saved_tensors
        ga = InvBack.apply(a, h * g) if ctx.needs_input_grad[0] else None
        return ga, (LogBack.apply(a, h) if ctx.needs_input_grad[1] else None)


class Inv(Function):
    complex_grad = True
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return 1.0 / a.data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        if is_complex(a):
            return -(g / Conj.apply(a * a))
        return InvBack.apply(a, g)


class InvBack(Function):
    """-g / a**2: the backward of Inv, differentiable in both."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, g: Tensor) -> Any:
        ctx.save_for_backward(a, g)
        return -g.data / (a.data * a.data)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        a, g = ctx.saved_tensors
        ga = h * g * 2.0 / (a * a * a) if ctx.needs_input_grad[0] else None
        return ga, (InvBack.apply(a, h) if ctx.needs_input_grad[1] else None)


class Sqrt(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.backend.xp.sqrt(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        y = ctx.output
        return g / (y * 2.0) if g.backend.complex_of.get(g.data.dtype) is False else g / Conj.apply(y * 2.0)

    raw_backward = raw_from_output(lambda y, g, backend: g / (y * 2.0))


class Abs(Function):
    """|x|, with abs'(0) = 0 (as PyTorch); of a complex z, the gradient is g z / |z| (0 at 0)."""
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.abs(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        if is_complex(a):  # z / |z|, in Tensor ops: differentiable again
            return g * (a * _safe_reciprocal(Abs.apply(a)))
        if grad_mode.is_grad_enabled():  # create_graph: sign(a) stays connected to a, with derivative 0 (as PyTorch)
            return g * PiecewiseConstant.apply(a, "sign")
        return g * _const(a, a.backend.xp.sign(a.data))


class Clamp(Function):
    """`min(max(x, lo), hi)`, either bound None (absent), a number or a Tensor.

    The gradient follows PyTorch: x gets g where lo <= x <= hi (the bounds
    included), lo gets it where x < lo < hi, hi where x > hi or hi < lo
    (with lo > hi every result is hi). Forward: the namespace's `clip` for
    number bounds (one pass); `maximum`/`minimum` for Tensor bounds, which
    broadcast as every binary op does, and for lo > hi.
    """
    elementwise = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, lo: Any, hi: Any) -> Any:
        xp = x.backend.xp
        ctx.save_for_backward(x, lo, hi)
        lo_data, hi_data = (getattr(b, "data", b) for b in (lo, hi))
        if not hasattr(lo, "data") and not hasattr(hi, "data") and (lo is None or hi is None or lo <= hi):
            return xp.clip(x.data, lo_data, hi_data)  # (array_api_strict's clip refuses min > max)
        out = x.data if lo is None else xp.maximum(x.data, lo_data)
        return out if hi is None else xp.minimum(out, hi_data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
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




# The uniform ops, one row each (see `unary_op`)
Log1p = unary_op("Log1p", "log1p", lambda g, x: _log_backward(x + 1.0, g),
                 "log(1 + x), accurate for small |x|; the gradient is g / (1 + x) (LogBack).", complex_grad=True)
Expm1 = unary_op("Expm1", "expm1", lambda g, y: g * conj(y + 1.0),
                 "exp(x) - 1, accurate for small |x|; its derivative expm1(x) + 1 is read from the output.",
                 of_output=True, complex_grad=True)
Square = unary_op("Square", "square", lambda g, x: g * conj(x * 2.0), "x * x; the gradient 2x.", complex_grad=True)


class Log2(Function):
    """log2(x); the gradient is g / (x ln 2) (LogBack, scaled). Log10 shares it."""
    complex_grad = True
    elementwise = True

    base = 2.0

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log2(a.data)

    @classmethod
    def backward(cls, ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return _log_backward(a, g) * (1.0 / math.log(cls.base))


class Log10(Log2):
    complex_grad = True
    elementwise = True
    base = 10.0

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.log10(a.data)



def _complex_sign(xp: Any, z: Any) -> Any:
    """z / |z|, and 0 at 0, without the 0/0 that array-api-compat's own `sign` computes there (a
    RuntimeWarning from NumPy for a correct result)."""
    zero = z == 0
    return xp.where(zero, xp.zeros_like(z), z / xp.abs(xp.where(zero, xp.ones_like(z), z)))


class PiecewiseConstant(Function):
    """`sign`, `floor`, `ceil`, `round` or `trunc` (the namespace function `name`): a step
    function, whose gradient is 0 everywhere, the steps included (as PyTorch)."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, name: str) -> Any:
        if name == "sign" and a.backend.is_complex(a.data.dtype):
            return _complex_sign(a.backend.xp, a.data)
        return getattr(a.backend.xp, name)(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return _const(g, g.backend.xp.zeros_like(g.data)), None


class Maximum(Function):
    """Elementwise `maximum(a, b)`, broadcasting; where a == b each side gets half
    the gradient (PyTorch's convention). A NaN is the result, and gets the
    gradient, whichever side it is on (two NaNs: half each), so that
    maximum(a, b) and maximum(b, a) agree."""
    elementwise = True

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
    elementwise = True

    pick = staticmethod(lambda xp, a, b: xp.minimum(a, b))


class LogAddExp(Function):
    """log(exp(a) + exp(b)) (the namespace's `logaddexp`: no overflow for large inputs).

    The gradients, sigmoid(a - b) for a and sigmoid(b - a) for b, are each
    made with `Sigmoid` (stable in both tails, and differentiable again),
    not as 1 - the other, which would round a tiny share to 0.
    """
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return a.backend.xp.logaddexp(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g * Sigmoid.apply(a - b) if need_a else None), (g * Sigmoid.apply(b - a) if need_b else None)


class Hypot(Function):
    """sqrt(a**2 + b**2) without overflow or underflow (the namespace's `hypot`), broadcasting.

    The gradients are a / h and b / h; at the origin, where h is 0, both
    are 0 (the convention of `norm` at an all-zero vector; PyTorch gives NaN there).
    """

    elementwise = True
    saves_output = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return a.backend.xp.hypot(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        scale = g * _safe_reciprocal(ctx.output)
        need_a, need_b = ctx.needs_input_grad
        return (scale * a if need_a else None), (scale * b if need_b else None)


class Copysign(Function):
    """|a| with the sign of b (the namespace's `copysign`: -0.0 and a NaN's sign bit count), broadcasting.

    The gradient in a is +-1 (1 where the sign is kept, -1 where it is
    flipped) and 0 where a is 0; in b it is 0 everywhere (PyTorch's conventions).
    """

    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        out = a.backend.xp.copysign(a.data, b.data)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b, out = ctx.saved_tensors
        xp = a.backend.xp
        zero = xp.zeros_like(a.data)
        flip = xp.where(a.data == zero, zero, out / xp.where(a.data == zero, xp.ones_like(a.data), a.data))
        need_a, need_b = ctx.needs_input_grad
        return (g * _const(a, flip) if need_a else None), (_const(b, xp.zeros_like(b.data)) if need_b else None)


class ElementwiseMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def __abs__(self: Tensor) -> Tensor:
        return Abs.apply(self)

    def abs(self: Tensor) -> Tensor:
        """|x|; the gradient at 0 is 0 (as PyTorch)."""
        return Abs.apply(self)

    def exp(self: Tensor) -> Tensor:
        return Exp.apply(self)

    def log(self: Tensor) -> Tensor:
        """Natural log; log(0) is -inf and its gradient inf, as NumPy."""
        return Log.apply(self)

    def sqrt(self: Tensor) -> Tensor:
        return Sqrt.apply(self)

    def inv(self: Tensor) -> Tensor:
        """1 / x."""
        return Inv.apply(self)

    def log1p(self: Tensor) -> Tensor:
        """log(1 + x), accurate where |x| is small."""
        return Log1p.apply(self)

    def expm1(self: Tensor) -> Tensor:
        """exp(x) - 1, accurate where |x| is small."""
        return Expm1.apply(self)

    def log2(self: Tensor) -> Tensor:
        return Log2.apply(self)

    def log10(self: Tensor) -> Tensor:
        return Log10.apply(self)

    def square(self: Tensor) -> Tensor:
        return Square.apply(self)

    def sign(self: Tensor) -> Tensor:
        """-1, 0 or 1 by the sign of each element; the gradient is 0 everywhere (as PyTorch). Of a
        complex z, z / |z| (the standard's), whose gradient is not implemented."""
        refuse_complex_grad("sign", self)
        return PiecewiseConstant.apply(self, "sign")

    def floor(self: Tensor) -> Tensor:
        """Rounded down; the gradient is 0 everywhere (as PyTorch); an integer tensor stays as it is."""
        refuse_complex("floor", self)
        return PiecewiseConstant.apply(self, "floor")

    def ceil(self: Tensor) -> Tensor:
        """Rounded up; the gradient is 0 everywhere (as PyTorch)."""
        refuse_complex("ceil", self)
        return PiecewiseConstant.apply(self, "ceil")

    def round(self: Tensor) -> Tensor:
        """Rounded to the nearest integer, halves to even (as NumPy and PyTorch); the gradient is 0."""
        refuse_complex_grad("round", self)
        return PiecewiseConstant.apply(self, "round")

    def trunc(self: Tensor) -> Tensor:
        """Rounded toward zero; the gradient is 0 everywhere (as PyTorch)."""
        refuse_complex("trunc", self)
        return PiecewiseConstant.apply(self, "trunc")

    def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
        """Each element limited to [min, max]; either bound None, a number or a Tensor (broadcasting).

        The gradient is 1 where min <= x <= max, the bounds included, and 0
        where the value was clamped (PyTorch's convention; a Tensor bound gets
        the gradient where it is the result). With min > max every element is max.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([-2.0, 0.5, 3.0], requires_grad=True)
            >>> x.clamp(-1.0, 1.0).sum().backward()
            >>> x.grad.tolist()
            [0.0, 1.0, 0.0]
        """
        if min is None and max is None:
            raise ValueError("clamp: give at least one of min and max")
        refuse_complex("clamp", self, min, max)
        lo, hi = _clamp_bound(self, min, below=True), _clamp_bound(self, max, below=False)
        for bound in (lo, hi):
            if isinstance(bound, Variable):
                check_same_backend("clamp", self, bound)
                broadcast_shapes("clamp", self.shape, bound.shape)
        return Clamp.apply(self, lo, hi)

    clip = clamp

    def maximum(self: Tensor, other: Any) -> Tensor:
        """The elementwise maximum with `other` (a Tensor, number or array), broadcasting as `+` does.

        Where the two are equal each gets half the gradient, as in PyTorch
        (NumPy code that uses `np.maximum(x, 0)` as a relu gets 0.5 at x == 0
        here, where `relu` gives 0). `tl.maximum(a, b)` calls this.

        Example:
            >>> import torchlight as tl
            >>> a = tl.tensor([1.0, 5.0, 2.0], requires_grad=True)
            >>> b = tl.tensor([3.0, 4.0, 2.0], requires_grad=True)
            >>> a.maximum(b).sum().backward()
            >>> a.grad.tolist(), b.grad.tolist()
            ([0.0, 1.0, 0.5], [1.0, 0.0, 0.5])
        """
        refuse_complex("maximum", self, other)
        return binary("maximum", Maximum, self, other)

    def minimum(self: Tensor, other: Any) -> Tensor:
        """The elementwise minimum with `other`; ties split the gradient as in `maximum`."""
        refuse_complex("minimum", self, other)
        return binary("minimum", Minimum, self, other)

    def logaddexp(self: Tensor, other: Any) -> Tensor:
        """log(exp(self) + exp(other)), broadcasting, without overflow for large inputs.

        The gradients are sigmoid(self - other) and sigmoid(other - self),
        each accurate in its tail. `tl.logaddexp(a, b)` calls this.

        Example:
            >>> import torchlight as tl
            >>> a = tl.tensor([1000.0, 0.0], requires_grad=True)
            >>> out = a.logaddexp(0.0)
            >>> [round(v, 4) for v in out.tolist()]    # 1000, and log 2
            [1000.0, 0.6931]
            >>> out.sum().backward()
            >>> a.grad.tolist()
            [1.0, 0.5]
        """
        refuse_complex("logaddexp", self, other)
        return binary("logaddexp", LogAddExp, self, other)

    def hypot(self: Tensor, other: Any) -> Tensor:
        """sqrt(self**2 + other**2), broadcasting, without overflow; the gradient at the origin is 0.

        Example:
            >>> import torchlight as tl
            >>> a = tl.tensor([3.0, 0.0], requires_grad=True)
            >>> out = a.hypot(tl.tensor([4.0, 0.0]))
            >>> out.sum().backward()
            >>> out.tolist(), [round(v, 12) for v in a.grad.tolist()]
            ([5.0, 0.0], [0.6, 0.0])
        """
        _check_floating_pair("hypot", self, other)
        return binary("hypot", Hypot, self, other)

    def copysign(self: Tensor, other: Any) -> Tensor:
        """|self| with the sign of `other` (a Tensor or a number; -0.0 counts as negative), broadcasting.

        Example:
            >>> import torchlight as tl
            >>> a = tl.tensor([2.0, -3.0, 0.0], requires_grad=True)
            >>> out = a.copysign(tl.tensor([-1.0, -0.0, 5.0]))
            >>> out.sum().backward()
            >>> out.tolist(), a.grad.tolist()
            ([-2.0, -3.0, 0.0], [-1.0, 1.0, 0.0])
        """
        _check_floating_pair("copysign", self, other)
        return binary("copysign", Copysign, self, other)

    def reciprocal(self: Tensor) -> Tensor:
        """1 / x (PyTorch's name for `inv`; an integer tensor's reciprocal is a float, as PyTorch's).

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([2.0, -4.0], requires_grad=True)
            >>> x.reciprocal().sum().backward()
            >>> x.grad.tolist()
            [-0.25, -0.0625]
        """
        if not self.backend.is_floating(self.dtype):
            return Inv.apply(self.astype(self.backend.default_float(self._device)))
        return Inv.apply(self)

    def nextafter(self: Tensor, other: Any) -> Tensor:
        """The next floating-point value after each element in the direction of `other`, broadcasting
        (real floating dtypes, as the standard's). A constant: PyTorch defines no gradient for it (its
        backward raises); here the result carries none.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([1.0])
            >>> (x.nextafter(2.0) - x).item() == 2.0 ** -52
            True
        """
        _check_floating_pair("nextafter", self, other)
        other = self._lift(other)
        check_same_backend("nextafter", self, other)
        if not self.backend.xp.isdtype(self.dtype, "real floating") or other.dtype != self.dtype:
            raise TypeError(f"nextafter: the inputs must have one real floating dtype, not {self.dtype} and "
                            f"{other.dtype}")
        broadcast_shapes("nextafter", self.shape, other.shape)
        return self._wrap(self.backend.xp.nextafter(self.data, other.data), self.backend)
