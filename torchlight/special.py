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


def _unary(function: Callable[[Tensor], Tensor], example: str = "") -> Callable[[Tensor], Tensor]:
    """`function` under torch.special's signature `(input)` (the ops' own take `x`), with the op's
    docstring and, where the op's has none, an `example` in this module's names."""
    def special_function(input: Tensor) -> Tensor:
        return function(input)

    special_function.__name__ = special_function.__qualname__ = function.__name__
    doc = function.__doc__ or ""
    if example:
        doc = f"{doc.rstrip()}\n\n    Example:\n" + "".join(f"        {line}\n" for line in example.splitlines())
    special_function.__doc__ = doc
    return special_function


erf = _unary(_ops.erf)
erfc = _unary(_ops.erfc, """>>> import torchlight as tl
>>> [f"{v:.4g}" for v in tl.special.erfc(tl.tensor([0.0, 1.0, 10.0])).tolist()]
['1', '0.1573', '2.088e-45']""")
erfinv = _unary(_ops.erfinv, """>>> import torchlight as tl
>>> [round(v, 6) for v in tl.special.erfinv(tl.tensor([0.0, 0.5, 1.0])).tolist()]
[0.0, 0.476936, inf]""")
erfcinv = _unary(_ops.erfcinv, """>>> import torchlight as tl
>>> [round(v, 6) for v in tl.special.erfcinv(tl.tensor([0.5, 0.0, 3.0])).tolist()]
[0.476936, inf, nan]""")
expit = _unary(_ops.expit, """>>> import torchlight as tl
>>> x = tl.tensor([0.0, 2.0], requires_grad=True)
>>> y = tl.special.expit(x)
>>> y.sum().backward()
>>> [round(v, 6) for v in y.tolist()], [round(v, 6) for v in x.grad.tolist()]
([0.5, 0.880797], [0.25, 0.104994])""")
ndtr = _unary(_ops.ndtr, """>>> import torchlight as tl
>>> [round(v, 6) for v in tl.special.ndtr(tl.tensor([0.0, 1.96])).tolist()]
[0.5, 0.975002]""")
ndtri = _unary(_ops.ndtri, """>>> import torchlight as tl
>>> [round(v, 6) for v in tl.special.ndtri(tl.tensor([0.5, 0.975, 1.0])).tolist()]
[0.0, 1.959964, inf]""")
log_ndtr = _unary(_ops.log_ndtr)
entr = _unary(_ops.entr, """>>> import torchlight as tl
>>> x = tl.tensor([0.5, 1.0], requires_grad=True)
>>> y = tl.special.entr(x)
>>> y.sum().backward()
>>> [round(v, 6) for v in y.tolist()], [round(v, 6) for v in x.grad.tolist()]
([0.346574, -0.0], [-0.306853, -1.0])""")
sinc = _unary(_ops.sinc, """>>> import torchlight as tl
>>> [round(v, 6) for v in tl.special.sinc(tl.tensor([0.0, 0.5, 1.0])).tolist()]
[1.0, 0.63662, 0.0]""")
gammaln = _unary(_gamma.gammaln)
digamma = _unary(_gamma.digamma)
i0 = _unary(_gamma.i0)
i0e = _unary(_gamma.i0e)
i1 = _unary(_gamma.i1)
i1e = _unary(_gamma.i1e)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), x first clamped to `[eps, 1 - eps]` where `eps` is given (the gradient 0 outside).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([0.25, 0.5], requires_grad=True)
        >>> y = tl.special.logit(x)
        >>> y.sum().backward()
        >>> [round(v, 6) for v in y.tolist()], [round(v, 6) for v in x.grad.tolist()]
        ([-1.098612, 0.0], [5.333333, 4.0])
        >>> [round(v, 4) for v in tl.special.logit(tl.tensor([0.0, 1.0]), eps=1e-6).tolist()]
        [-13.8155, 13.8155]
    """
    return _ops.logit(input, eps)


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), 0 where input == 0 (unless other is NaN); a Python number on either side.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.special.xlogy(tl.tensor([0.0, 2.0]), tl.tensor([0.0, 3.0])).tolist()]
        [0.0, 2.197225]
        >>> [round(v, 6) for v in tl.special.xlogy(2.0, tl.tensor([3.0])).tolist()]
        [2.197225]
    """
    return _ops.xlogy(input, other)


def xlog1py(input: Any, other: Any) -> Tensor:
    """input * log1p(other), 0 where input == 0 (unless other is NaN); a Python number on either side.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.special.xlog1py(tl.tensor([0.0, 2.0]), tl.tensor([-1.0, 1.0])).tolist()]
        [0.0, 1.386294]
    """
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
    """The log of the multivariate gamma function of dimension p (torch.special.multigammaln).

    Every element of `input` must be greater than (p - 1)/2 (a ValueError otherwise, as SciPy's).

    Example:
        >>> import torchlight as tl
        >>> round(tl.special.multigammaln(tl.tensor([3.0]), 3).item(), 12)
        2.694924879807
    """
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
    """x - logsumexp(x) along `dim`; `dtype` casts the input first (PyTorch's).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.special.log_softmax(tl.tensor([0.0, 0.0]), 0).tolist()]
        [-0.693147, -0.693147]
    """
    return _cast(input, dtype).log_softmax(dim)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over `dim` (an int or a tuple), without overflow.

    Example:
        >>> import torchlight as tl
        >>> round(tl.special.logsumexp(tl.tensor([1000.0, 1000.0]), 0).item(), 6)
        1000.693147
        >>> [round(v, 6) for v in tl.special.logsumexp(tl.tensor([[0.0, 0.0], [1.0, 1.0]]), 1).tolist()]
        [0.693147, 1.693147]
    """
    return input.logsumexp(dim, keepdim)
