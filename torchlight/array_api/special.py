"""`torchlight.array_api.special`: special functions with scipy.special's names and signatures, for
scipy's array-API dispatch (it looks up `xp.special.<name>` on the namespace first).

With `SCIPY_ARRAY_API=1`, `scipy.special.erf(t)` of a Tensor `t` finds this
module through `t.__array_namespace__()` and calls `erf` here, so the result
is a Tensor in the graph and differentiates (without it scipy would convert
to NumPy, which a Tensor that requires grad refuses). Each function is the
one of `torchlight.special` (the same Functions, forwards and gradients);
arrays of any backend are wrapped, and the pairs take a Python number on
either side. See docs/special.md.

Example:
    >>> import torchlight as tl
    >>> import torchlight.array_api as xp
    >>> x = tl.tensor([0.5, 1.5], requires_grad=True)
    >>> xp.special.entr(x).sum().backward()
    >>> [round(v, 6) for v in x.grad.tolist()]    # -(log x + 1)
    [-0.306853, -1.405465]
"""

from __future__ import annotations

from typing import Any

from torchlight import special as _special
from torchlight.array_api._helpers import pair, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "log_ndtr", "logit", "ndtr", "ndtri", "rel_entr",
           "sinc", "xlog1py", "xlogy"]


def erf(z: Any, /) -> Tensor:
    """The error function (scipy.special.erf)."""
    return _special.erf(tensor_arg(z, "erf", "z"))


def erfc(x: Any, /) -> Tensor:
    """1 - erf(x), accurate where it is tiny (scipy.special.erfc)."""
    return _special.erfc(tensor_arg(x, "erfc"))


def erfinv(y: Any, /) -> Tensor:
    """erf's inverse on [-1, 1] (scipy.special.erfinv)."""
    return _special.erfinv(tensor_arg(y, "erfinv", "y"))


def erfcinv(y: Any, /) -> Tensor:
    """erfc's inverse on [0, 2] (scipy.special.erfcinv; scipy itself does not dispatch it)."""
    return _special.erfcinv(tensor_arg(y, "erfcinv", "y"))


def expit(x: Any, /) -> Tensor:
    """The logistic sigmoid 1 / (1 + exp(-x)) (scipy.special.expit)."""
    return _special.expit(tensor_arg(x, "expit"))


def logit(x: Any, /) -> Tensor:
    """log(x / (1 - x)) (scipy.special.logit: no eps)."""
    return _special.logit(tensor_arg(x, "logit"))


def ndtr(x: Any, /) -> Tensor:
    """The standard normal CDF (scipy.special.ndtr)."""
    return _special.ndtr(tensor_arg(x, "ndtr"))


def ndtri(y: Any, /) -> Tensor:
    """ndtr's inverse on [0, 1] (scipy.special.ndtri)."""
    return _special.ndtri(tensor_arg(y, "ndtri", "y"))


def log_ndtr(x: Any, /) -> Tensor:
    """log(ndtr(x)), accurate in both tails (scipy.special.log_ndtr)."""
    return _special.log_ndtr(tensor_arg(x, "log_ndtr"))


def entr(x: Any, /) -> Tensor:
    """-x log x for x > 0, 0 at 0, -inf below (scipy.special.entr)."""
    return _special.entr(tensor_arg(x, "entr"))


def sinc(x: Any, /) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (scipy.special.sinc)."""
    return _special.sinc(tensor_arg(x, "sinc"))


def xlogy(x: Any, y: Any, /) -> Tensor:
    """x log(y), 0 where x == 0 (scipy.special.xlogy); a Python number on either side."""
    return _special.xlogy(*pair(x, y, "xlogy"))


def xlog1py(x: Any, y: Any, /) -> Tensor:
    """x log1p(y), 0 where x == 0 (scipy.special.xlog1py); a Python number on either side."""
    return _special.xlog1py(*pair(x, y, "xlog1py"))


def rel_entr(x: Any, y: Any, /) -> Tensor:
    """x log(x / y) for x, y > 0; 0 for x == 0 and y >= 0; inf otherwise; NaN for NaN (scipy.special.rel_entr).

    The gradients where x, y > 0 are log(x / y) + 1 and -x / y, and 0 elsewhere.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.array_api as xp
        >>> x = tl.tensor([0.5, 0.0, 1.0], requires_grad=True)
        >>> out = xp.special.rel_entr(x, tl.tensor([0.5, 2.0, -1.0]))
        >>> out.sum().backward()
        >>> out.tolist(), x.grad.tolist()
        ([0.0, 0.0, inf], [1.0, 0.0, 0.0])
    """
    a, b = pair(x, y, "rel_entr")
    a, b = (t if t.backend.is_floating(t.dtype) else t.astype(t.backend.default_float(t._device)) for t in (a, b))
    bxp = a.backend.xp
    positive = bxp.logical_and(a.data > 0, b.data > 0)
    a_safe, b_safe = a.where(positive, 1.0), b.where(positive, 1.0)
    body = a_safe * (a_safe / b_safe).log()
    zero = bxp.logical_and(a.data == 0, b.data >= 0)
    nan = bxp.logical_or(bxp.isnan(a.data), bxp.isnan(b.data))
    rest = bxp.where(nan, bxp.nan, bxp.where(zero, 0.0, bxp.full_like(body.data, bxp.inf)))
    return body.where(positive, Tensor._wrap(bxp.astype(rest, body.dtype), body.backend))
