"""Arithmetic: `+ - * / ** // %` and negation, and the Tensor operators that record them.

Each operator lifts a number or an array on the other side to a Tensor of
this backend and, when nothing is recorded, calls the op's array `kernel`
directly. The in-place operators (`x op= y`) are writes: `torchlight.ops.writes`.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x + 3.0 / x).sum().backward()
    >>> x.grad.tolist()
    [-1.0, 3.25]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.engine import Context, Function, record_pair
from torchlight.ops.common import _const, broadcast_shapes
from torchlight.ops.complex_numbers import conj, is_complex, refuse_complex
from torchlight.ops.indexing import Where

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _operator(fn: type[Function], reverse: bool = False) -> Callable[[Tensor, Any], Tensor]:
    """The Tensor operator applying `fn` to (self, other), or to (other, self) when `reverse`.

    A number or an array on the other side is lifted to a Tensor of this
    backend first; a shape mismatch is a ValueError naming the op and both
    shapes, raised in place of the library's own error (the shapes are
    looked at only then: on the way through they cost a small op a tenth
    of its time). When nothing is recorded (no_grad, a backward without
    create_graph, constants) and `fn` has an array `kernel`, the operator
    calls it directly: the same result as `fn.apply`, without its
    bookkeeping (half the cost of a small `g * y` in a backward).
    """
    kernel = getattr(fn, "kernel", None)
    state = grad_mode._state

    def operator(self: Tensor, other: Any) -> Tensor:
        if type(other) is not type(self):  # (a Tensor beside a Tensor: one comparison)
            other = self._lift(other)
        a, b = (other, self) if reverse else (self, other)
        backend = a.backend
        try:
            if b.backend is backend and not backend.multi_device:
                if state.enabled and (a.requires_grad or b.requires_grad):
                    return record_pair(fn, a, b)
                if kernel is not None:
                    return self._wrap(kernel(a.data, b.data), backend)
            return fn.apply(a, b)
        except Exception:
            _explain_shapes(fn.__name__, a, b)
            raise

    return operator


def _explain_shapes(op: str, a: Tensor, b: Tensor) -> None:
    """After an op of `a` and `b` failed: the ValueError naming `op` and both shapes, if they do not broadcast."""
    try:
        broadcast_shapes(op, a.shape, b.shape)
    except ValueError as clear:
        raise clear from None



class Add(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.add)  # the array op; the Tensor operator calls it directly when nothing records

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor, b: Tensor) -> Any:
        out = a.data
        out += b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        return Add.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return g, g


class Sub(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.sub)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor, b: Tensor) -> Any:
        out = a.data
        out -= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        return Sub.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        return g, (-g if ctx.needs_input_grad[1] else None)


class Mul(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    kernel = staticmethod(operator.mul)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor, b: Tensor) -> Any:
        out = a.data
        out *= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return Mul.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        if g.backend.complex_of.get(g.data.dtype) is not False:  # complex: g * conj(b), g * conj(a)
            a, b = conj(a), conj(b)
        return (g * b if need_a else None), (g * a if need_b else None)

    @staticmethod
    def raw_backward(ctx: Context, g: Any, backend: Any) -> Any:
        a, b = ctx.saved_tensors
        if backend.complex_of.get(g.dtype) is not False or not (a.plain_data and b.plain_data):
            return NotImplemented
        need_a, need_b = ctx.needs_input_grad
        if backend.is_broadcast_one(g):  # (a sum's backward of ones: the other factor as it is)
            times = backend.gradient_times
            return (times(g, b.data) if need_a else None), (times(g, a.data) if need_b else None)
        return (g * b.data if need_a else None), (g * a.data if need_b else None)


class Div(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    saves_output = True  # its backward reads ctx.output
    kernel = staticmethod(operator.truediv)

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor, b: Tensor) -> Any:
        out = a.data
        out /= b.data
        return out

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(b)
        return Div.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (b,) = ctx.saved_tensors
        if g.backend.complex_of.get(g.data.dtype) is False:
            ga = g / b
            gb = -(ga * ctx.output) if ctx.needs_input_grad[1] else None
        else:  # complex: g / conj(b), -g conj(a / b**2)
            ga = g / conj(b)
            gb = -(ga * conj(ctx.output)) if ctx.needs_input_grad[1] else None
        return (ga if ctx.needs_input_grad[0] else None), gb

    @staticmethod
    def raw_backward(ctx: Context, g: Any, backend: Any) -> Any:
        (b,) = ctx.saved_tensors
        y = ctx._output_data
        if y is None or backend.complex_of.get(g.dtype) is not False or not b.plain_data:
            return NotImplemented
        ga = g / b.data
        return (ga if ctx.needs_input_grad[0] else None), (-(ga * y) if ctx.needs_input_grad[1] else None)


class Neg(Function):
    array_forward = True  # (its forward computes on the arrays alone)
    complex_grad = True
    elementwise = True
    _shares_context = True  # its backward reads no saved value

    overwrites = (0,)

    @staticmethod
    def forward_into(ctx: Context, a: Tensor) -> Any:
        return a.backend.call_into(a.data, a.backend.xp.negative, a.data)

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return -a.data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        return -g

    @staticmethod
    def raw_backward(ctx: Context, g: Any, backend: Any) -> Any:
        return -g


class Pow(Function):
    """`a ** p`, p a Python number or a Tensor.

    Negative bases follow NumPy (NaN for a fractional p); the gradient in the
    base is 0 where p == 0, and in the exponent 0 where a == 0 (PyTorch).
    """
    complex_grad = True
    elementwise = True
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Tensor, p: Any) -> Any:
        ctx.save_for_backward(a, p)
        return a.data ** (p.data if getattr(p, "_is_tensor", False) else p)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, p = ctx.saved_tensors
        if is_complex(a) or (getattr(p, "_is_tensor", False) and is_complex(p)):
            return _complex_pow_backward(ctx, g, a, p)
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
            fill = xp.where(a.data < 0, xp.asarray(math.nan, dtype=a.dtype, device=a._device),
                            xp.zeros_like(a.data))
            gp = g * Where.apply(_const(a, positive), ctx.output * safe_a.log(), _const(a, fill))
        return ga, gp


def _complex_pow_backward(ctx: Context, g: Tensor, a: Any, p: Any) -> tuple:
    """Pow's gradients where the result is complex (PyTorch's): g * conj(p a**(p - 1)) for the base
    (0 where p == 0), g * conj(a**p log a) for the exponent (0 where a == 0)."""
    ga = gp = None
    tensor_p = getattr(p, "_is_tensor", False)
    if ctx.needs_input_grad[0]:
        if not tensor_p:
            ga = g * 0.0 if p == 0 else g * conj(a ** (p - 1) * p)
        else:
            xp = p.backend.xp
            nonzero = _const(p, p.data != xp.zeros_like(p.data))
            safe_p = Where.apply(nonzero, p, _const(p, xp.ones_like(p.data)))
            ga = g * conj(a ** (safe_p - 1.0) * p)
    if tensor_p and ctx.needs_input_grad[1]:
        xp = a.backend.xp
        out = ctx.output
        z = a if is_complex(a) else a.astype(out.dtype)  # (the complex log of a negative base)
        nonzero = _const(z, z.data != xp.zeros_like(z.data))
        safe = Where.apply(nonzero, z, _const(z, xp.ones_like(z.data)))
        gp = g * conj(out * safe.log())
    return ga, gp


class FloorDivide(Function):
    """`a // b`, floor(a / b) computed exactly (the arrays' `//`: the standard's `floor_divide`), broadcasting.

    A step function, as `floor`: the gradient is 0 for both inputs (as
    `torch.div(a, b, rounding_mode="floor")` and JAX; PyTorch's `//` raises
    at backward instead). Remainder's backward uses it for the quotient.
    """
    elementwise = True

    _shares_context = True  # its backward reads no saved value
    kernel = staticmethod(operator.floordiv)

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        refuse_complex("floor_divide", a, b)
        return FloorDivide.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        xp = g.backend.xp
        return tuple(_const(g, xp.zeros_like(g.data)) if need else None for need in ctx.needs_input_grad)


class Remainder(Function):
    """`a % b` with the sign of b (the arrays' `%`: the standard's, NumPy's and PyTorch's
    `remainder`, Python's `%`), broadcasting: a - b * floor(a / b).

    d/da = 1 and d/db = -floor(a / b) (PyTorch's); the quotient is
    FloorDivide's, so under `create_graph` the gradient of b stays
    connected to a and b, with derivative 0.
    """
    elementwise = True

    kernel = staticmethod(operator.mod)

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Any:
        refuse_complex("remainder", a, b)
        ctx.save_for_backward(a, b)
        return Remainder.kernel(a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g if need_a else None), (-(g * FloorDivide.apply(a, b)) if need_b else None)


# `x ** tensor`: the Pow operator (`__pow__` takes this path for a Tensor exponent)
_power = _operator(Pow)


class ArithmeticMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    # (made by `_operator`: one frame per `a * b` rather than a method calling a helper)
    __add__ = _operator(Add)

    __radd__ = _operator(Add, reverse=True)

    __sub__ = _operator(Sub)

    __rsub__ = _operator(Sub, reverse=True)

    __mul__ = _operator(Mul)

    __rmul__ = _operator(Mul, reverse=True)

    __truediv__ = _operator(Div)

    __rtruediv__ = _operator(Div, reverse=True)

    __rpow__ = _operator(Pow, reverse=True)

    # `//` and `%` as Python, NumPy and PyTorch: floor division, and the remainder with the sign of
    # the divisor; `//` is a step function (gradient 0), `%` has d/da = 1, d/db = -(a // b)
    __floordiv__ = _operator(FloorDivide)

    __rfloordiv__ = _operator(FloorDivide, reverse=True)

    __mod__ = _operator(Remainder)

    __rmod__ = _operator(Remainder, reverse=True)

    def __pow__(self: Tensor, exponent: Any) -> Tensor:
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
            if type(exponent) is not int and type(exponent) is not float:  # np.float64 ** a float32 array
                exponent = float(exponent)  # would be float64: a Python float keeps the tensor's dtype
            return Pow.apply(self, exponent)
        return _power(self, exponent)

    def pow(self: Tensor, exponent: Any) -> Tensor:
        """`self ** exponent` (PyTorch's pow)."""
        return self ** exponent

    def __neg__(self: Tensor) -> Tensor:
        return Neg.apply(self)

    def __pos__(self: Tensor) -> Tensor:
        return self

    def neg(self: Tensor) -> Tensor:
        return Neg.apply(self)

    def positive(self: Tensor) -> Tensor:
        """`+x`: the tensor itself, as PyTorch's `positive` (and `__pos__`) give it."""
        return self

    def remainder(self: Tensor, other: Any) -> Tensor:
        """`self % other` with the sign of `other` (PyTorch's and the standard's remainder); d/dself = 1,
        d/dother = -floor(self / other).

        Example:
            >>> import torchlight as tl
            >>> a = tl.tensor([5.5, -5.5], requires_grad=True)
            >>> out = a.remainder(2.0)
            >>> out.sum().backward()
            >>> out.tolist(), a.grad.tolist()
            ([1.5, 0.5], [1.0, 1.0])
        """
        return self.__mod__(other)

    def floor_divide(self: Tensor, other: Any) -> Tensor:
        """`self // other`, rounded down (PyTorch's `floor_divide` since 1.13, the standard's); a step
        function, so the gradient is 0."""
        return self.__floordiv__(other)
