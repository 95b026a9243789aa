"""Trigonometric and hyperbolic functions and their inverses, atan2.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0], requires_grad=True)
    >>> (x.sin() + x.tanh()).sum().backward()
    >>> x.grad.tolist()
    [2.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.engine import Context, Function
from torchlight.ops.common import _safe_reciprocal, binary, raw_from_output, unary_op
from torchlight.ops.complex_numbers import conj, is_complex, refuse_complex

if TYPE_CHECKING:
    from torchlight.backends import Backend
    from torchlight.tensor import Tensor


def _rsqrt_of(factor_a: Any, factor_b: Any, g: Any) -> Any:
    """g / conj(sqrt(factor_a * factor_b)) in Tensor ops (the derivatives of asin, acos)."""
    return g / conj((factor_a * factor_b).sqrt())


def _acosh_backward(g: Any, x: Any) -> Any:
    """g / sqrt((x - 1)(x + 1)); of a complex z, g / conj(sqrt(z - 1) sqrt(z + 1)) (the principal branch)."""
    if is_complex(x):
        return g / conj((x - 1.0).sqrt() * (x + 1.0).sqrt())
    return _rsqrt_of(x - 1.0, x + 1.0, g)


def _tanh_back(y: Any, g: Any, backend: Backend) -> Any:
    """g * (1 - y**2) on arrays of `backend`: TanhBack's forward, and Tanh's backward when nothing records."""
    out = y * y  # then updated in place: one new array, not three
    out = backend.call_into(out, backend.xp.subtract, 1.0, out)  # (in out's memory where the library can)
    out *= g
    return out


class Tanh(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    saves_output = True  # its backward reads ctx.output
    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.tanh, a.data)

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.backend.xp.tanh(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        y = ctx.output
        if g.backend.complex_of.get(g.data.dtype) is False:
            return TanhBack.apply(y, g)
        return g * conj(1.0 - y * y)  # complex: composed (TanhBack is real)

    raw_backward = raw_from_output(_tanh_back)  # (complex: `backward` composes)


class TanhBack(Function):
    """g * (1 - y**2) for y = tanh(x)."""
    array_forward = True  # (its forward computes on the arrays alone)
    elementwise = True

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, y: Tensor, g: Tensor) -> Any:
        out = y.data  # y's own array, which nothing else reads: no new array
        out *= out
        out = y.backend.call_into(out, y.backend.xp.subtract, 1.0, out)
        out *= g.data
        return out

    @staticmethod
    def forward(ctx: Context, y: Tensor, g: Tensor) -> Any:
        ctx.save_for_backward(y, g)
        return _tanh_back(y.data, g.data, y.backend)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        y, g = ctx.saved_tensors
        gy = h * g * y * -2.0 if ctx.needs_input_grad[0] else None
        return gy, (TanhBack.apply(y, h) if ctx.needs_input_grad[1] else None)













# The uniform ops, one row each: the namespace function, and the gradient in Tensor ops of
# the incoming gradient g and the input x (or the result y), so that it is differentiable again.
# Each is right for complex inputs too (`complex_grad`): the derivative conjugated (`conj`, the
# identity for real x), and acosh's as 1 / (sqrt(z - 1) sqrt(z + 1)), the derivative of the
# principal branch (1 / sqrt(z**2 - 1) has the wrong sign where Re z < 0).
Sin = unary_op("Sin", "sin", lambda g, x: g * conj(x.cos()), "sin(x); the gradient cos(x).", complex_grad=True)
Cos = unary_op("Cos", "cos", lambda g, x: -(g * conj(x.sin())), "cos(x); the gradient -sin(x).", complex_grad=True)
Tan = unary_op("Tan", "tan", lambda g, y: g * conj(y * y + 1.0),
               "tan(x); its derivative 1 + tan(x)**2 is read from the output.", of_output=True, complex_grad=True)
Sinh = unary_op("Sinh", "sinh", lambda g, x: g * conj(x.cosh()), "sinh(x); the gradient cosh(x).", complex_grad=True)
Cosh = unary_op("Cosh", "cosh", lambda g, x: g * conj(x.sinh()), "cosh(x); the gradient sinh(x).", complex_grad=True)
Asin = unary_op("Asin", "asin", lambda g, x: _rsqrt_of(1.0 - x, 1.0 + x, g),
                "arcsin(x) on [-1, 1]; the gradient 1 / sqrt((1 - x)(1 + x)) (factored: accurate near +-1).",
                complex_grad=True)
Acos = unary_op("Acos", "acos", lambda g, x: -_rsqrt_of(1.0 - x, 1.0 + x, g),
                "arccos(x) on [-1, 1]; the gradient is minus asin's.", complex_grad=True)
Atan = unary_op("Atan", "atan", lambda g, x: g / conj(x * x + 1.0), "arctan(x); the gradient 1 / (1 + x**2).",
                complex_grad=True)
Asinh = unary_op("Asinh", "asinh", lambda g, x: g / conj((x * x + 1.0).sqrt()),
                 "arsinh(x); the gradient 1 / sqrt(x**2 + 1).", complex_grad=True)
Acosh = unary_op("Acosh", "acosh", lambda g, x: _acosh_backward(g, x),
                 "arcosh(x) for x >= 1; the gradient 1 / sqrt((x - 1)(x + 1)) (factored: accurate near 1).",
                 complex_grad=True)
Atanh = unary_op("Atanh", "atanh", lambda g, x: g / conj((1.0 - x) * (1.0 + x)),
                 "artanh(x) on (-1, 1); the gradient 1 / ((1 - x)(1 + x)).", complex_grad=True)


class Atan2(Function):
    """atan2(a, b), the angle of the point (b, a) (a is y, b is x, as PyTorch and the standard).

    The gradient is (b, -a) / (a**2 + b**2), and 0 at the origin (PyTorch's
    convention, where the angle has no limit).
    """
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return a.backend.xp.atan2(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        scale = g * _safe_reciprocal(a * a + b * b)
        need_a, need_b = ctx.needs_input_grad
        return (scale * b if need_a else None), (-(scale * a) if need_b else None)


class TrigonometricMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def tanh(self: Tensor) -> Tensor:
        return Tanh.apply(self)

    def sin(self: Tensor) -> Tensor:
        return Sin.apply(self)

    def cos(self: Tensor) -> Tensor:
        return Cos.apply(self)

    def tan(self: Tensor) -> Tensor:
        return Tan.apply(self)

    def sinh(self: Tensor) -> Tensor:
        return Sinh.apply(self)

    def cosh(self: Tensor) -> Tensor:
        return Cosh.apply(self)

    def asin(self: Tensor) -> Tensor:
        """arcsin, on [-1, 1] (NaN outside, as NumPy); `arcsin` is the same method."""
        return Asin.apply(self)

    def acos(self: Tensor) -> Tensor:
        """arccos, on [-1, 1] (NaN outside, as NumPy); `arccos` is the same method."""
        return Acos.apply(self)

    def atan(self: Tensor) -> Tensor:
        """arctan; `arctan` is the same method."""
        return Atan.apply(self)

    def asinh(self: Tensor) -> Tensor:
        """The inverse hyperbolic sine; `arcsinh` is the same method."""
        return Asinh.apply(self)

    def acosh(self: Tensor) -> Tensor:
        """The inverse hyperbolic cosine, for x >= 1; `arccosh` is the same method."""
        return Acosh.apply(self)

    def atanh(self: Tensor) -> Tensor:
        """The inverse hyperbolic tangent, on (-1, 1); `arctanh` is the same method."""
        return Atanh.apply(self)

    arcsin, arccos, arctan = asin, acos, atan

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def atan2(self: Tensor, other: Any) -> Tensor:
        """The angle of the point (other, self) in radians, in [-pi, pi]: `np.arctan2(self, other)`.

        `self` is the y coordinate and `other` the x one (as PyTorch, NumPy
        and the standard); both broadcast, and `other` may be a number. The
        gradient is (other, -self) / (self**2 + other**2), and 0 at the
        origin (as PyTorch). `arctan2` is the same method; `tl.atan2` calls it.

        Example:
            >>> import torchlight as tl
            >>> y = tl.tensor([1.0, 0.0], requires_grad=True)
            >>> x = tl.tensor([1.0, -2.0], requires_grad=True)
            >>> y.atan2(x).sum().backward()
            >>> y.grad.tolist(), x.grad.tolist()
            ([0.5, -0.5], [-0.5, -0.0])
        """
        refuse_complex("atan2", self, other)
        return binary("atan2", Atan2, self, other)

    arctan2 = atan2
