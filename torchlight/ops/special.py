"""Special functions: the error functions, the logistic functions, xlogy and friends, sinc (torch.special's names).

Each forward runs the backend's own library where it has the function
(scipy.special for NumPy, torch.special, jax.scipy.special, cupyx, a
`map_blocks` of scipy's for Dask) and a portable array-API formula
otherwise (`torchlight.backends.special_formulas`); each backward is
written in Tensor ops, so second derivatives work. Integer and boolean
inputs are promoted to the backend's default float (as torch promotes
to its default dtype); complex inputs are refused. Outside a domain the
value is SciPy's (NaN, or +-inf at its ends), never an error.

Conventions: d erf = 2/sqrt(pi) exp(-x**2); d erfinv = sqrt(pi)/2
exp(erfinv(x)**2); d log_ndtr = exp(-x**2/2 - log_ndtr(x)) / sqrt(2 pi),
finite far into the lower tail; xlogy's gradient in x is log(y), 0 where
x == 0 and y <= 0 (PyTorch's), in y it is x / y; entr's is -(log x + 1);
sinc's is 0 at 0 (a series near 0, not the cancelling quotient).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0, 0.5], requires_grad=True)
    >>> x.erf().sum().backward()
    >>> [round(v, 6) for v in x.grad.tolist()]    # 2/sqrt(pi) exp(-x**2)
    [1.128379, 0.878783]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.backends.special_formulas import evaluate
from torchlight.engine import Context, Function
from torchlight.ops.activations import Sigmoid
from torchlight.ops.common import broadcast_shapes
from torchlight.ops.complex_numbers import refuse_complex

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def special_op(name: str, function: str, vjp: Callable[..., Any], doc: str, *,
               of_output: bool = False) -> type[Function]:
    """A unary special function as one table row: the Function `name` computes `function` (a name of
    `torchlight.backends.special_formulas`) on the backend's library, and its backward is
    `vjp(g, x, y)` in Tensor ops of the incoming gradient, the input and (with `of_output`) the result."""

    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.save_for_backward(a)
        return evaluate(a.backend, function, a.data)

    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        return vjp(g, a, ctx.output if of_output else None)

    module = sys._getframe(1).f_globals.get("__name__", __name__)
    namespace = {"__doc__": doc, "__module__": module, "__qualname__": name, "elementwise": True,
                 "saves_output": of_output, "forward": staticmethod(forward), "backward": staticmethod(backward)}
    return type(name, (Function,), namespace)


def _gauss(x: Tensor, scale: float) -> Tensor:
    """scale * exp(-x**2) as Tensor ops."""
    return (-(x * x)).exp() * scale


Erf = special_op("Erf", "erf", lambda g, x, y: g * _gauss(x, _TWO_OVER_SQRT_PI),
                 "erf(x); the gradient 2/sqrt(pi) exp(-x**2).")
Erfc = special_op("Erfc", "erfc", lambda g, x, y: g * _gauss(x, -_TWO_OVER_SQRT_PI),
                  "erfc(x) = 1 - erf(x), accurate where it is small; the gradient -2/sqrt(pi) exp(-x**2).")
Erfinv = special_op("Erfinv", "erfinv", lambda g, x, y: g * ((y * y).exp() * _HALF_SQRT_PI),
                    "erfinv(x) on [-1, 1] (+-inf at +-1, NaN outside); the gradient sqrt(pi)/2 exp(y**2), "
                    "from the result y.", of_output=True)
Erfcinv = special_op("Erfcinv", "erfcinv", lambda g, x, y: g * ((y * y).exp() * -_HALF_SQRT_PI),
                     "erfcinv(x) on [0, 2] (erfc's inverse, accurate for x near 0); the gradient "
                     "-sqrt(pi)/2 exp(y**2).", of_output=True)
Ndtr = special_op("Ndtr", "ndtr", lambda g, x, y: g * ((x * x * -0.5).exp() * _INV_SQRT_2PI),
                  "The standard normal CDF; the gradient is the density exp(-x**2/2)/sqrt(2 pi).")
Ndtri = special_op("Ndtri", "ndtri", lambda g, x, y: g * ((y * y * 0.5).exp() * _SQRT_2PI),
                   "The normal CDF's inverse on [0, 1]; the gradient sqrt(2 pi) exp(y**2/2).", of_output=True)
LogNdtr = special_op("LogNdtr", "log_ndtr", lambda g, x, y: g * ((x * x * -0.5 - y).exp() * _INV_SQRT_2PI),
                     "log of the normal CDF, accurate in both tails; the gradient exp(-x**2/2 - log_ndtr(x)) / "
                     "sqrt(2 pi), which stays finite (about -x) far into the lower tail.", of_output=True)
Logit = special_op("Logit", "logit", lambda g, x, y: g / (x * (1.0 - x)),
                   "log(p / (1 - p)) on [0, 1] (+-inf at the ends, NaN outside); the gradient 1 / (p (1 - p)).")
Entr = special_op("Entr", "entr", lambda g, x, y: g * -(x.log() + 1.0),
                  "-x log x for x > 0, 0 at 0, -inf below; the gradient -(log x + 1).")


def _sinc_slope(x: Tensor) -> Tensor:
    """d/dx sin(pi x) / (pi x) as Tensor ops: pi (t cos t - sin t) / t**2 (t = pi x), and where
    |t| < 0.2, where that quotient cancels, its Taylor series (0 at 0; its own derivative there is
    -pi**2 / 3, so a second derivative at 0 is right too)."""
    xp = x.backend.xp
    t = x * math.pi
    small = xp.abs(t.data) < 0.2
    ts = t.where(small, 0.0)
    t2 = ts * ts
    series = ts * (t2 * (t2 * (t2 * (t2 * (-1.0 / 3991680.0) + 1.0 / 45360.0) - 1.0 / 840.0) + 1.0 / 30.0)
                   - 1.0 / 3.0)
    tb = t.where(xp.logical_not(small), 1.0)
    quotient = (tb * tb.cos() - tb.sin()) / (tb * tb)
    return series.where(small, quotient) * math.pi


Sinc = special_op("Sinc", "sinc", lambda g, x, y: g * _sinc_slope(x),
                  "sin(pi x) / (pi x), 1 at 0 (the normalised sinc); the gradient is 0 at 0.")


class Xlogy(Function):
    """x log(y), 0 where x == 0 (unless y is NaN), broadcasting.

    The gradients are PyTorch's: in x, log(y) (as `xlogy(g, y)`), which is
    the true derivative at x == 0 too, but 0 where x == 0 and y <= 0 (where
    the function is 0 along x = 0); in y, x / y (NaN at x == y == 0).
    """
    elementwise = True
    function = "xlogy"
    pole = 0.0  # log(y) is -inf here and NaN below

    @classmethod
    def forward(cls, ctx: Context, a: Tensor, b: Tensor) -> Any:
        ctx.save_for_backward(a, b)
        return evaluate(a.backend, cls.function, a.data, b.data)

    @classmethod
    def backward(cls, ctx: Context, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = gb = None
        if need_a:
            xp = a.backend.xp
            off = xp.logical_and(a.data == 0, b.data <= cls.pole)  # (PyTorch's masked_fill)
            ga = cls.apply(g, b).where(xp.logical_not(off), 0.0)
        if need_b:
            gb = g * a / cls.divisor(b)
        return ga, gb

    @staticmethod
    def divisor(b: Tensor) -> Tensor:
        return b


class Xlog1py(Xlogy):
    """x log1p(y), 0 where x == 0 (unless y is NaN); the gradients log1p(y) (0 where x == 0 and y <= -1)
    and x / (1 + y), PyTorch's."""
    elementwise = True
    function = "xlog1py"
    pole = -1.0

    @staticmethod
    def divisor(b: Tensor) -> Tensor:
        return b + 1.0


# ------------------------------------------------------------------ the functions (Tensors in, Tensor out)
def _floating(op: str, x: Tensor) -> Tensor:
    """`x`, an integer or boolean one cast to the backend's default float (as torch casts to its
    default dtype); a complex one is a TypeError naming `op`."""
    refuse_complex(op, x)
    if not x.backend.is_floating(x.dtype):
        return x.astype(x.backend.default_float(x._device))
    return x


def _pair(op: str, a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Two operands, a Python number on either side lifted beside the Tensor, both floating."""
    if not getattr(a, "_is_tensor", False):
        if not getattr(b, "_is_tensor", False):
            raise TypeError(f"{op}: at least one of the arguments must be a Tensor, not {type(a).__name__} "
                            f"and {type(b).__name__}")
        a = b._lift(a)
    b = a._lift(b)
    check_same_backend(op, a, b)
    broadcast_shapes(op, a.shape, b.shape)
    return _floating(op, a), _floating(op, b)


def erf(x: Tensor) -> Tensor:
    """The error function 2/sqrt(pi) * integral of exp(-t**2) from 0 to x.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special import erf
        >>> round(erf(tl.tensor(1.0)).item(), 12)
        0.84270079295
    """
    return Erf.apply(_floating("erf", x))


def erfc(x: Tensor) -> Tensor:
    """1 - erf(x), accurate where it is tiny (erfc(10) is 2.1e-45, not 0)."""
    return Erfc.apply(_floating("erfc", x))


def erfinv(x: Tensor) -> Tensor:
    """The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside."""
    return Erfinv.apply(_floating("erfinv", x))


def erfcinv(x: Tensor) -> Tensor:
    """The inverse of erfc on [0, 2]: inf at 0, -inf at 2, NaN outside (accurate for tiny x)."""
    return Erfcinv.apply(_floating("erfcinv", x))


def ndtr(x: Tensor) -> Tensor:
    """The standard normal CDF (1 + erf(x / sqrt 2)) / 2."""
    return Ndtr.apply(_floating("ndtr", x))


def ndtri(x: Tensor) -> Tensor:
    """The inverse of ndtr on [0, 1]: -inf at 0, inf at 1, NaN outside."""
    return Ndtri.apply(_floating("ndtri", x))


def log_ndtr(x: Tensor) -> Tensor:
    """log(ndtr(x)), accurate in both tails (about -x**2/2 far below 0, -ndtr(-x) far above).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special import log_ndtr
        >>> x = tl.tensor([-40.0], requires_grad=True)
        >>> out = log_ndtr(x)
        >>> out.backward(tl.ones_like(out))
        >>> round(out.item(), 6), round(x.grad.item(), 6)    # the gradient is about -x
        (-804.608442, 40.024969)
    """
    return LogNdtr.apply(_floating("log_ndtr", x))


def expit(x: Tensor) -> Tensor:
    """1 / (1 + exp(-x)): the logistic sigmoid (the same op as `x.sigmoid()`)."""
    return Sigmoid.apply(_floating("expit", x))


def logit(x: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)); with `eps`, x is first clamped to [eps, 1 - eps], so the gradient is 0 outside
    (PyTorch's). Without it: -inf at 0, inf at 1, NaN outside [0, 1].

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special import logit
        >>> x = tl.tensor([0.25, 0.0], requires_grad=True)
        >>> out = logit(x, eps=1e-6)
        >>> out.sum().backward()
        >>> [round(v, 4) for v in out.tolist()], round(x.grad.tolist()[0], 4)
        ([-1.0986, -13.8155], 5.3333)
    """
    x = _floating("logit", x)
    if eps is not None:
        x = x.clamp(eps, 1.0 - eps)
    return Logit.apply(x)


def entr(x: Tensor) -> Tensor:
    """-x log x for x > 0, 0 at 0, -inf for x < 0 (SciPy's and PyTorch's); the gradient -(log x + 1)."""
    return Entr.apply(_floating("entr", x))


def sinc(x: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (NumPy's and PyTorch's normalised sinc)."""
    return Sinc.apply(_floating("sinc", x))


def xlogy(x: Any, y: Any) -> Tensor:
    """x * log(y), 0 where x == 0 (unless y is NaN), broadcasting; either may be a Python number.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special import xlogy
        >>> x = tl.tensor([0.0, 2.0], requires_grad=True)
        >>> out = xlogy(x, tl.tensor([0.0, 1.0]))
        >>> out.sum().backward()
        >>> out.tolist(), x.grad.tolist()
        ([0.0, 0.0], [0.0, 0.0])
    """
    return Xlogy.apply(*_pair("xlogy", x, y))


def xlog1py(x: Any, y: Any) -> Tensor:
    """x * log1p(y), 0 where x == 0 (unless y is NaN), broadcasting; either may be a Python number."""
    return Xlog1py.apply(*_pair("xlog1py", x, y))


class SpecialMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def erf(self: Tensor) -> Tensor:
        """The error function; the gradient 2/sqrt(pi) exp(-x**2). An integer tensor becomes the default float."""
        return erf(self)

    def erfc(self: Tensor) -> Tensor:
        """1 - erf(x), accurate where it is tiny."""
        return erfc(self)

    def erfinv(self: Tensor) -> Tensor:
        """erf's inverse on [-1, 1] (+-inf at +-1, NaN outside); the gradient sqrt(pi)/2 exp(erfinv(x)**2)."""
        return erfinv(self)

    def logit(self: Tensor, eps: float | None = None) -> Tensor:
        """log(x / (1 - x)), x first clamped to [eps, 1 - eps] where `eps` is given (PyTorch's)."""
        return logit(self, eps)

    def sinc(self: Tensor) -> Tensor:
        """sin(pi x) / (pi x), 1 at 0; the gradient 0 at 0."""
        return sinc(self)

    def xlogy(self: Tensor, other: Any) -> Tensor:
        """self * log(other), 0 where self == 0; `other` a Tensor or a number, broadcasting."""
        return xlogy(self, other)
