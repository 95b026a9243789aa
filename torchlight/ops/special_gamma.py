"""Special functions of the gamma and Bessel families: gammaln, digamma, polygamma, multigammaln, i0, i0e, i1, i1e.

Each derivative is another function of the family, called here as a Tensor
function, so gradients of every order come from the same few Functions:
d gammaln = digamma, d digamma = polygamma(1), d polygamma(n) = polygamma(n + 1),
d multigammaln(a, p) = sum_j digamma(a - j/2), d i0 = i1, d i1 = i0 - i1 / x
(1/2 at x = 0), d i0e = i1e - sign(x) i0e, d i1e = i0e - i1e (sign(x) + 1 / x)
(1/2 at x = 0). The values come from each backend's library, or the portable
formulas of `torchlight.backends.special_gamma`; at the poles and other edges
they are SciPy's (NaN or +-inf, never an exception), and so are the
gradients there (digamma at a pole of gammaln is NaN or +-inf as SciPy gives it).

Integer and boolean inputs are promoted to the backend's default float (as
PyTorch's `torch.lgamma` of an integer tensor); complex inputs are a
TypeError (SciPy's gammaln and PyTorch's lgamma are real functions).
float32 stays float32.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.5, 3.0], requires_grad=True)
    >>> x.lgamma().sum().backward()                  # the gradient is digamma(x)
    >>> [round(v, 6) for v in x.grad.tolist()]
    [-1.96351, 0.922784]
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any

from torchlight.backends import special_gamma as kernels
from torchlight.engine import Context, Function

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _real_float(op: str, x: Any) -> Tensor:
    """`x` as a real floating Tensor: integers and booleans promoted to the default float (as
    PyTorch), a complex dtype a TypeError, anything but a Tensor a TypeError."""
    if not getattr(x, "_is_tensor", False):
        raise TypeError(f"{op}: the input must be a Tensor, not {type(x).__name__} (make one with tl.tensor)")
    backend = x.backend
    if backend.is_complex(x.dtype):
        raise TypeError(f"{op}: complex inputs are not supported (dtype {x.dtype}): {op} is a real function")
    if not backend.is_floating(x.dtype):
        return x.astype(backend.default_float(x._device))
    return x


def _order(op: str, name: str, value: Any, least: int) -> int:
    """A Python int argument (`n` of polygamma, `p` of multigammaln) of at least `least`."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{op}: {name} must be an int, not {value!r}")
    value = operator.index(value)
    if value < least:
        raise ValueError(f"{op}: {name} must be at least {least}, not {value}")
    return value


class Gammaln(Function):
    """log|Gamma(x)| (scipy's gammaln, PyTorch's lgamma); the gradient is digamma(x)."""

    elementwise = True

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return kernels.gammaln(x.backend, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return g * digamma(x)


class Polygamma(Function):
    """The n-th derivative of digamma (n = 0: digamma itself); the gradient is polygamma(n + 1, x)."""

    elementwise = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, n: int) -> Any:
        ctx.save_for_backward(x)
        ctx.n = n
        return kernels.polygamma(x.backend, n, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return g * polygamma(ctx.n + 1, x), None


class Multigammaln(Function):
    """log of the multivariate gamma function of dimension p: p(p - 1)/4 log(pi) + sum_j gammaln(a - j/2),
    j = 0..p-1 (scipy's multigammaln, PyTorch's mvlgamma); the gradient is sum_j digamma(a - j/2).

    a <= (p - 1)/2 is a ValueError, as SciPy's and PyTorch's, through the backend's check (a lazy
    backend's raises when the value is computed).
    """

    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, p: int) -> Any:
        ctx.save_for_backward(a)
        ctx.p = p
        backend = a.backend
        bound = (p - 1) / 2.0
        error = ValueError(f"multigammaln: every element of a must be greater than (p - 1)/2 = {bound} (p = {p})")
        data = backend.checked(a.data, lambda v: v <= bound, error)
        out = kernels.gammaln(backend, data)
        for j in range(1, p):
            out = out + kernels.gammaln(backend, data - j / 2.0)
        return out + p * (p - 1) / 4.0 * math.log(math.pi)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        total = digamma(a)
        for j in range(1, ctx.p):
            total = total + digamma(a - j / 2.0)
        return g * total, None


class I0(Function):
    """The modified Bessel function of the first kind of order 0; the gradient is i1(x)."""

    elementwise = True

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return kernels.i0(x.backend, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return g * i1(x)


class I0e(Function):
    """exp(-|x|) i0(x); the gradient is i1e(x) - sign(x) i0e(x) (sign(0) = 0: i0e's kink at 0 gets 0)."""

    elementwise = True
    saves_output = True

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return kernels.i0e(x.backend, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return g * (i1e(x) - x.sign() * ctx.output)


def _over_x(x: Tensor, y: Tensor) -> Tensor:
    """y / x where x != 0 and 1/2 at 0, as Tensor ops: i1(x)/x and i1e(x)/x with their limit at 0
    (so i1'(0) = i0(0) - 1/2 = 1/2, and the second derivative there is the constant branch's 0)."""
    nonzero = x.data != 0
    return (y / x.where(nonzero, 1.0)).where(nonzero, 0.5)


class I1(Function):
    """The modified Bessel function of the first kind of order 1; the gradient is i0(x) - i1(x)/x,
    1/2 at x = 0."""

    elementwise = True
    saves_output = True

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return kernels.i1(x.backend, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return g * (i0(x) - _over_x(x, ctx.output))


class I1e(Function):
    """exp(-|x|) i1(x); the gradient is i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at x = 0."""

    elementwise = True
    saves_output = True

    @staticmethod
    def forward(ctx: Context, x: Tensor) -> Any:
        ctx.save_for_backward(x)
        return kernels.i1e(x.backend, x.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        y = ctx.output
        return g * (i0e(x) - x.sign() * y - _over_x(x, y))


# ------------------------------------------------------------------ Tensor functions (the public modules wrap these)
def gammaln(x: Tensor) -> Tensor:
    """log|Gamma(x)| (scipy.special.gammaln, torch.special.gammaln): +inf at 0 and the negative integers.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import gammaln
        >>> [round(v, 12) for v in gammaln(tl.tensor([1.0, 4.0, -0.5])).tolist()]
        [0.0, 1.791759469228, 1.265512123485]
    """
    return Gammaln.apply(_real_float("gammaln", x))


def digamma(x: Tensor) -> Tensor:
    """psi(x) = d/dx log Gamma(x) (scipy.special.digamma): -inf at +0, +inf at -0, NaN at the negative
    integers and -inf (SciPy's values).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import digamma
        >>> [round(v, 12) for v in digamma(tl.tensor([1.0, 0.5])).tolist()]   # -Euler's gamma, -gamma - 2 log 2
        [-0.577215664902, -1.963510026021]
    """
    return Polygamma.apply(_real_float("digamma", x), 0)


def polygamma(n: int, x: Tensor) -> Tensor:
    """The n-th derivative of digamma, n a non-negative int (polygamma(0, x) is digamma(x)):
    (-1)**(n + 1) n! zeta(n + 1, x), (-1)**(n + 1) inf at the poles (SciPy's values).

    Example:
        >>> import math
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import polygamma
        >>> abs(polygamma(1, tl.tensor([1.0])).item() - math.pi ** 2 / 6) < 1e-15
        True
    """
    n = _order("polygamma", "n", n, 0)
    return Polygamma.apply(_real_float("polygamma", x), n)


def multigammaln(a: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension p (scipy.special.multigammaln,
    torch.special.multigammaln): p(p - 1)/4 log(pi) + sum_{j=0}^{p-1} gammaln(a - j/2). Every
    element of a must be greater than (p - 1)/2: a ValueError otherwise, as SciPy's (on Dask, when
    the value is computed).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import multigammaln
        >>> round(multigammaln(tl.tensor([3.0]), 3).item(), 12)
        2.694924879807
    """
    p = _order("multigammaln", "p", p, 1)
    return Multigammaln.apply(_real_float("multigammaln", a), p)


def i0(x: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (scipy.special.i0); NaN at +-inf as SciPy.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import i0
        >>> [round(v, 12) for v in i0(tl.tensor([0.0, 1.0])).tolist()]
        [1.0, 1.266065877752]
    """
    return I0.apply(_real_float("i0", x))


def i0e(x: Tensor) -> Tensor:
    """exp(-|x|) i0(x) (scipy.special.i0e), finite everywhere but at NaN.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import i0e
        >>> [round(v, 12) for v in i0e(tl.tensor([0.0, -1.0])).tolist()]
        [1.0, 0.465759607594]
    """
    return I0e.apply(_real_float("i0e", x))


def i1(x: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (scipy.special.i1), odd in x.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import i1
        >>> [round(v, 12) for v in i1(tl.tensor([0.0, -1.0])).tolist()]
        [0.0, -0.565159103992]
    """
    return I1.apply(_real_float("i1", x))


def i1e(x: Tensor) -> Tensor:
    """exp(-|x|) i1(x) (scipy.special.i1e), odd in x.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.special_gamma import i1e
        >>> [round(v, 12) for v in i1e(tl.tensor([1.0])).tolist()]
        [0.20791041535]
    """
    return I1e.apply(_real_float("i1e", x))


class SpecialGammaMethods:
    """The Tensor methods of this category (`Tensor` inherits them): PyTorch's names."""

    __slots__ = ()

    def lgamma(self: Tensor) -> Tensor:
        """log|Gamma(x)| (`torch.lgamma`); the gradient is digamma(x). +inf at the poles.

        Example:
            >>> import torchlight as tl
            >>> round(tl.tensor(5.0).lgamma().item(), 12)    # log 4!
            3.178053830348
        """
        return gammaln(self)

    def digamma(self: Tensor) -> Tensor:
        """psi(x), the derivative of lgamma (`torch.digamma`); its gradient is polygamma(1, x)."""
        return digamma(self)

    def polygamma(self: Tensor, n: int) -> Tensor:
        """The n-th derivative of digamma (`x.polygamma(n)` as PyTorch's Tensor method).

        Example:
            >>> import torchlight as tl
            >>> round(tl.tensor(1.0).polygamma(2).item(), 12)    # -2 zeta(3)
            -2.404113806319
        """
        return polygamma(n, self)

    def mvlgamma(self: Tensor, p: int) -> Tensor:
        """The multivariate log-gamma function of dimension p (`torch.mvlgamma`); see `multigammaln`."""
        return multigammaln(self, p)

    def i0(self: Tensor) -> Tensor:
        """The modified Bessel function of the first kind of order 0 (`torch.i0`); its gradient is i1(x)."""
        return i0(self)
