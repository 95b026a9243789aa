"""`torchlight.special`: special functions with PyTorch's `torch.special` names and signatures, differentiable.

The error-function and logistic half comes from `torchlight.ops.special`, the gamma and Bessel family
(gammaln, digamma/psi, polygamma, multigammaln, i0, i0e, i1, i1e) from `torchlight.ops.special_gamma`.

Each takes a Tensor (the pairs `xlogy`, `xlog1py` also a Python number
on either side) and returns a Tensor of the same backend and device;
first and second derivatives work on every backend. An integer input is
promoted to the backend's default float (torch promotes to its default
dtype); a float32 input stays float32; a complex input is a TypeError.
Outside a function's domain the value is SciPy's (NaN, or +-inf at its
ends). See docs/special.md.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.5, 2.0], requires_grad=True)
    >>> y = tl.special.erf(x) + tl.special.log_ndtr(x)
    >>> y.sum().backward()
    >>> [round(v, 6) for v in x.grad.tolist()]
    [1.387943, 0.075915]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchlight.ops import special as _ops
from torchlight.ops import special_gamma as _gamma
from torchlight.tensor import Tensor

__all__ = ["digamma", "entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "gammaln", "i0", "i0e", "i1", "i1e",
           "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi",
           "sinc", "softmax", "xlog1py", "xlogy"]


def _unary(function: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """`function` under torch.special's signature `(input)` (the ops' own take `x`)."""
    def special_function(input: Tensor) -> Tensor:
        return function(input)

    special_function.__name__ = special_function.__qualname__ = function.__name__
    special_function.__doc__ = function.__doc__
    return special_function


erf = _unary(_ops.erf)
erfc = _unary(_ops.erfc)
erfinv = _unary(_ops.erfinv)
erfcinv = _unary(_ops.erfcinv)
expit = _unary(_ops.expit)
ndtr = _unary(_ops.ndtr)
ndtri = _unary(_ops.ndtri)
log_ndtr = _unary(_ops.log_ndtr)
entr = _unary(_ops.entr)
sinc = _unary(_ops.sinc)
gammaln = _unary(_gamma.gammaln)
digamma = _unary(_gamma.digamma)
i0 = _unary(_gamma.i0)
i0e = _unary(_gamma.i0e)
i1 = _unary(_gamma.i1)
i1e = _unary(_gamma.i1e)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] where `eps` is given (the gradient 0 outside)."""
    return _ops.logit(input, eps)


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), 0 where input == 0 (unless other is NaN); a Python number on either side."""
    return _ops.xlogy(input, other)


def xlog1py(input: Any, other: Any) -> Tensor:
    """input * log1p(other), 0 where input == 0 (unless other is NaN); a Python number on either side."""
    return _ops.xlog1py(input, other)


#: torch.special.psi is digamma
psi = digamma


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma (torch.special.polygamma(n, input)); its gradient is polygamma(n + 1).

    Example:
        >>> import math
        >>> import torchlight as tl
        >>> abs(tl.special.polygamma(1, tl.tensor(1.0)).item() - math.pi ** 2 / 6) < 1e-15
        True
    """
    return _gamma.polygamma(n, input)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension p (torch.special.multigammaln)."""
    return _gamma.multigammaln(input, p)


def _cast(input: Tensor, dtype: Any) -> Tensor:
    return input if dtype is None else input.astype(dtype)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim`; `dtype` casts the input first (PyTorch's).

    Example:
        >>> import torchlight as tl
        >>> tl.special.softmax(tl.tensor([0.0, 0.0]), 0).tolist()
        [0.5, 0.5]
    """
    return _cast(input, dtype).softmax(dim)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """x - logsumexp(x) along `dim`; `dtype` casts the input first (PyTorch's)."""
    return _cast(input, dtype).log_softmax(dim)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over `dim` (an int or a tuple), without overflow."""
    return input.logsumexp(dim, keepdim)
