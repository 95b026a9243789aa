"""Activations with Tensor methods: sigmoid and relu (and their differentiable backward ops).

relu'(0) = 0 (as PyTorch); sigmoid never overflows (see `Sigmoid`).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0, 2.0], requires_grad=True)
    >>> (x.sigmoid() + x.relu()).sum().backward()
    >>> [round(v, 4) for v in x.grad.tolist()]
    [0.25, 1.105]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.engine import Context, Function
from torchlight.ops.common import _const, _exp_limit, raw_from_output
from torchlight.ops.complex_numbers import refuse_complex

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


class Sigmoid(Function):
    """1 / (1 + exp(-x)), computed without overflow for large |x| (a complex z: as written).

    The gradient is g * conj(y (1 - y)) (SigmoidBack for real x, composed for complex z).

    As e / (1 + e) with e = exp(min(x, L)), L = log(dtype max) - 1: e never
    overflows, and every x above L (87.7 in float32, 708.8 in float64) gives
    exactly 1, as the true value rounds to 1 already above 17 (float32) or
    37 (float64). Far in the negative tail e / (1 + e) is e itself, so the
    relative accuracy stays (sigmoid(-30) in float32 is 9.36e-14, not 0).
    One exp and three new arrays, the division in place; no `where` (a
    select over a random sign pattern costs NumPy about ten times an exp).
    """
    array_forward = True  # (its forward computes on the arrays alone)
    elementwise = True
    saves_output = True  # its backward reads ctx.output
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return _sigmoid(a.backend.xp, a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        y = ctx.output
        if g.backend.complex_of.get(g.data.dtype) is False:
            return SigmoidBack.apply(y, g)
        return g * (y * (1.0 - y)).conj()  # complex: composed (SigmoidBack is real)

    raw_backward = raw_from_output(lambda y, g, backend: _sigmoid_back(y, g))  # (complex: `backward` composes)


def _sigmoid(xp: Any, x: Any) -> Any:
    """Sigmoid's forward on an array of namespace `xp` (and a compiled program's array kernel)."""
    limit = _exp_limit(xp, x.dtype)
    if limit != limit:  # NaN: a complex dtype, which has no order to clip by
        return 1.0 / (xp.exp(-x) + 1.0)
    # (exp written into the clip's own array would save W3 an array, but costs a small array's
    # sigmoid a third more: NumPy's `out=` is slower to call than a new array is to make)
    e = xp.exp(xp.minimum(x, limit))
    e /= e + 1.0  # e is this op's own array: updated in place
    return e


def _sigmoid_back(y: Any, g: Any) -> Any:
    """g * y * (1 - y) on arrays: SigmoidBack's forward, and Sigmoid's backward when nothing records."""
    out = 1.0 - y  # then updated in place: one new array, not three
    out *= y
    out *= g
    return out


class SigmoidBack(Function):
    """g * y * (1 - y) for y = sigmoid(x)."""
    array_forward = True  # (its forward computes on the arrays alone)
    elementwise = True

    overwrites = (1,)

    @staticmethod
    def forward_into(ctx: Context, y: Tensor, g: Tensor) -> Any:
        # g's array is this op's to overwrite. (1 - y) y needs one new array, as in forward: the
        # products in forward's order, so that a compiled replay equals eager's and a blocked one's
        # to the bit (with y's array overwritten too, the order would have to change)
        out = g.data
        scale = 1.0 - y.data
        scale *= y.data
        out *= scale
        return out

    @staticmethod
    def forward(ctx: Context, y: Tensor, g: Tensor) -> Any:
        ctx.save_for_backward(y, g)
        return _sigmoid_back(y.data, g.data)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        y, g = ctx.saved_tensors
        gy = h * g * (1.0 - 2.0 * y) if ctx.needs_input_grad[0] else None
        return gy, (SigmoidBack.apply(y, h) if ctx.needs_input_grad[1] else None)


class ReLU(Function):
    """max(x, 0), with relu'(0) = 0 (set by ReluBack's strict a > 0); NaN stays NaN, as PyTorch.

    Forward and backward avoid `where`: a select over a random sign pattern
    costs NumPy about ten times `maximum` or a multiply by the mask.
    """
    array_forward = True  # (its forward computes on the arrays alone)
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.xp.maximum(a.data, 0)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        return ReluBack.apply(a, g)

    @staticmethod
    def raw_backward(ctx: Context, g: Any, backend: Any) -> Any:
        (a,) = ctx.saved_tensors
        return backend.masked(g, a.data > 0) if a.plain_data else NotImplemented  # (ReluBack's forward)


class ReluBack(Function):
    """g where a > 0, else 0 (g times the mask: a non-finite g where a <= 0
    gives NaN). Its derivative in a is 0 almost everywhere."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, g: Tensor) -> Any:
        ctx.save_for_backward(a)
        return a.backend.masked(g.data, a.data > 0)

    @staticmethod
    def backward(ctx: Context, h: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        need_a, need_g = ctx.needs_input_grad
        zero = _const(a, a.backend.xp.zeros_like(a.data)) if need_a else None  # connected: d/dx relu'(x) = 0
        return zero, (ReluBack.apply(a, h) if need_g else None)


class ActivationsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def sigmoid(self: Tensor) -> Tensor:
        return Sigmoid.apply(self)

    def relu(self: Tensor) -> Tensor:
        """max(x, 0); the gradient at 0 is 0 (as PyTorch); a complex input is refused (no order)."""
        refuse_complex("relu", self)
        return ReLU.apply(self)
