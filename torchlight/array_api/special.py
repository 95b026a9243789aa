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

import numpy as np

from torchlight import special as _special
from torchlight.array_api._helpers import pair, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["digamma", "entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "gammaln", "i0", "i0e", "i1", "i1e",
           "log_ndtr", "logit", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "rel_entr", "sinc", "xlog1py",
           "xlogy"]


def erf(z: Any, /) -> Tensor:
    """The error function (scipy.special.erf).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.erf(xp.asarray([0.0, 0.5, 3.0]))
        tensor([0.        , 0.52049988, 0.99997791])
        >>> import torchlight as tl
        >>> x = tl.tensor([0.0, 1.0], requires_grad=True)
        >>> xp.sum(xp.special.erf(x)).backward()
        >>> x.grad                                       # 2 / sqrt(pi) * exp(-x**2)
        tensor([1.12837917, 0.4151075 ])
    """
    return _special.erf(tensor_arg(z, "erf", "z"))


def erfc(x: Any, /) -> Tensor:
    """1 - erf(x), accurate where it is tiny (scipy.special.erfc).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.erfc(xp.asarray([10.0])), 1 - xp.special.erf(xp.asarray([10.0]))
        (tensor([2.08848758e-45]), tensor([0.]))
    """
    return _special.erfc(tensor_arg(x, "erfc"))


def erfinv(y: Any, /) -> Tensor:
    """erf's inverse on [-1, 1] (scipy.special.erfinv).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.erfinv(xp.asarray([0.0, 0.5]))
        tensor([0.        , 0.47693628])
        >>> xp.special.erfinv(xp.special.erf(xp.asarray([0.25, 1.5])))
        tensor([0.25, 1.5 ])
    """
    return _special.erfinv(tensor_arg(y, "erfinv", "y"))


def erfcinv(y: Any, /) -> Tensor:
    """erfc's inverse on [0, 2] (scipy.special.erfcinv; scipy itself does not dispatch it).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.erfcinv(xp.asarray([0.5, 1.5]))
        tensor([ 0.47693628, -0.47693628])
        >>> xp.special.erfcinv(xp.special.erfc(xp.asarray([0.25, 1.5])))
        tensor([0.25, 1.5 ])
    """
    return _special.erfcinv(tensor_arg(y, "erfcinv", "y"))


def expit(x: Any, /) -> Tensor:
    """The logistic sigmoid 1 / (1 + exp(-x)) (scipy.special.expit).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.expit(xp.asarray([0.0, 2.0, -800.0]))
        tensor([0.5       , 0.88079708, 0.        ])
    """
    return _special.expit(tensor_arg(x, "expit"))


def logit(x: Any, /) -> Tensor:
    """log(x / (1 - x)) (scipy.special.logit: no eps).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.logit(xp.asarray([0.5, 0.75]))
        tensor([0.        , 1.09861229])
        >>> xp.special.expit(xp.special.logit(xp.asarray([0.1, 0.9])))
        tensor([0.1, 0.9])
    """
    return _special.logit(tensor_arg(x, "logit"))


def ndtr(x: Any, /) -> Tensor:
    """The standard normal CDF (scipy.special.ndtr).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.ndtr(xp.asarray([0.0, 1.96]))
        tensor([0.5      , 0.9750021])
    """
    return _special.ndtr(tensor_arg(x, "ndtr"))


def ndtri(y: Any, /) -> Tensor:
    """ndtr's inverse on [0, 1] (scipy.special.ndtri).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.ndtri(xp.asarray([0.5, 0.975]))
        tensor([0.        , 1.95996398])
    """
    return _special.ndtri(tensor_arg(y, "ndtri", "y"))


def log_ndtr(x: Any, /) -> Tensor:
    """log(ndtr(x)), accurate in both tails (scipy.special.log_ndtr).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.log_ndtr(xp.asarray([-40.0])), xp.special.ndtr(xp.asarray([-40.0]))   # ndtr underflows
        (tensor([-804.60844201]), tensor([0.]))
    """
    return _special.log_ndtr(tensor_arg(x, "log_ndtr"))


def entr(x: Any, /) -> Tensor:
    """-x log x for x > 0, 0 at 0, -inf below (scipy.special.entr).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.entr(xp.asarray([0.0, 0.5, 2.0]))
        tensor([ 0.        ,  0.34657359, -1.38629436])
    """
    return _special.entr(tensor_arg(x, "entr"))


def sinc(x: Any, /) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (scipy.special.sinc).

    Example:
        >>> import torchlight.array_api as xp
        >>> [round(v, 12) for v in xp.special.sinc(xp.asarray([0.0, 0.5, 1.0])).tolist()]
        [1.0, 0.636619772368, 0.0]
    """
    return _special.sinc(tensor_arg(x, "sinc"))


def xlogy(x: Any, y: Any, /) -> Tensor:
    """x log(y), 0 where x == 0 (scipy.special.xlogy); a Python number on either side.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.xlogy(xp.asarray([0.0, 2.0]), xp.asarray([0.0, xp.e]))
        tensor([0., 2.])
    """
    return _special.xlogy(*pair(x, y, "xlogy"))


def xlog1py(x: Any, y: Any, /) -> Tensor:
    """x log1p(y), 0 where x == 0 (scipy.special.xlog1py); a Python number on either side.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.xlog1py(xp.asarray([0.0, 2.0]), xp.asarray([-1.0, xp.e - 1]))
        tensor([0., 2.])
    """
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


def gammaln(x: Any, /) -> Tensor:
    """log|Gamma(x)| (scipy.special.gammaln); its gradient is digamma(x).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.array_api as xp
        >>> x = tl.tensor([4.0], requires_grad=True)
        >>> xp.special.gammaln(x).sum().backward()
        >>> round(x.grad.item(), 12)    # digamma(4) = 1 + 1/2 + 1/3 - Euler's gamma
        1.256117668432
    """
    return _special.gammaln(tensor_arg(x, "gammaln"))


def psi(z: Any, /) -> Tensor:
    """The digamma function (scipy.special.psi, alias digamma); its gradient is polygamma(1, z).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.psi(xp.asarray([1.0, 2.0]))       # -Euler's gamma, 1 - Euler's gamma
        tensor([-0.57721566,  0.42278434])
        >>> xp.special.digamma is xp.special.psi
        True
    """
    return _special.digamma(tensor_arg(z, "psi", "z"))


digamma = psi


def polygamma(n: Any, x: Any, /) -> Tensor:
    """The n-th derivative of digamma (scipy.special.polygamma(n, x)), n a non-negative int.

    Example:
        >>> import torchlight.array_api as xp
        >>> round(xp.special.polygamma(1, xp.asarray([1.0])).item(), 12), round(xp.pi ** 2 / 6, 12)
        (1.644934066848, 1.644934066848)
    """
    if hasattr(n, "shape") and not isinstance(n, (int, np.integer)):  # an array of orders: one order only
        orders = np.unique(n.detach().numpy() if isinstance(n, Tensor) else np.asarray(n))
        if orders.size != 1:
            raise TypeError(f"polygamma: n must be one order (an int), not the orders {orders.tolist()}")
        n = orders.item()
    return _special.polygamma(n, tensor_arg(x, "polygamma"))


def multigammaln(a: Any, d: int, /) -> Tensor:
    """The log of the multivariate gamma function of dimension d (scipy.special.multigammaln(a, d)).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.multigammaln(xp.asarray([3.0]), 2)   # log(sqrt(pi) * Gamma(3) * Gamma(2.5))
        tensor([1.55019499])
    """
    return _special.multigammaln(tensor_arg(a, "multigammaln", "a"), d)


def i0(x: Any, /) -> Tensor:
    """The modified Bessel function of order 0 (scipy.special.i0).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.i0(xp.asarray([0.0, 1.0]))
        tensor([1.        , 1.26606588])
    """
    return _special.i0(tensor_arg(x, "i0"))


def i0e(x: Any, /) -> Tensor:
    """exp(-|x|) i0(x) (scipy.special.i0e).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.i0e(xp.asarray([0.0, 1.0, 1000.0]))     # finite where i0 overflows
        tensor([1.        , 0.46575961, 0.01261724])
    """
    return _special.i0e(tensor_arg(x, "i0e"))


def i1(x: Any, /) -> Tensor:
    """The modified Bessel function of order 1 (scipy.special.i1).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.i1(xp.asarray([0.0, 1.0]))
        tensor([0.       , 0.5651591])
    """
    return _special.i1(tensor_arg(x, "i1"))


def i1e(x: Any, /) -> Tensor:
    """exp(-|x|) i1(x) (scipy.special.i1e).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.special.i1e(xp.asarray([0.0, 1.0, 1000.0]))
        tensor([0.        , 0.20791042, 0.01261093])
    """
    return _special.i1e(tensor_arg(x, "i1e"))
