"""`torchlight.special`: special functions with PyTorch's `torch.special` names and signatures, differentiable.

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

from typing import Any

from torchlight.ops.special import (
    entr,
    erf,
    erfc,
    erfcinv,
    erfinv,
    expit,
    log_ndtr,
    logit,
    ndtr,
    ndtri,
    sinc,
    xlog1py,
    xlogy,
)
from torchlight.tensor import Tensor

__all__ = ["entr", "erf", "erfc", "erfcinv", "erfinv", "expit", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "ndtr", "ndtri", "sinc", "softmax", "xlog1py", "xlogy"]


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
