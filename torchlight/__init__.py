"""torchlight: reverse-mode autograd over the Python array API standard.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([2.0, 3.0], requires_grad=True)
    >>> y = (x ** 2).sum()
    >>> y.backward()
    >>> x.grad.tolist()
    [4.0, 6.0]
"""

from torchlight import autograd, backends, func, nn, optim, scalar  # noqa: E402  (after Tensor: they use it)
from torchlight.backends import (
    BackendError,
    BackendUnavailableError,
    get_default_backend,
    manual_seed,
    set_default_backend,
)
from torchlight.compile import CompileError, compile  # noqa: A004 (torch.compile's name; the function over the package)
from torchlight.creation import arange, full, ones, ones_like, rand, randn, tensor, zeros, zeros_like
from torchlight.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from torchlight.ops import arctan2, atan2, cat, concat, logaddexp, maximum, minimum, stack, where
from torchlight.serialization import load, save
from torchlight.tensor import Tensor

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "BackendUnavailableError",
    "CompileError",
    "Tensor",
    "arange",
    "arctan2",
    "atan2",
    "autograd",
    "backends",
    "cat",
    "compile",
    "concat",
    "enable_grad",
    "func",
    "full",
    "get_default_backend",
    "is_grad_enabled",
    "load",
    "logaddexp",
    "manual_seed",
    "maximum",
    "minimum",
    "nn",
    "no_grad",
    "ones",
    "ones_like",
    "optim",
    "rand",
    "randn",
    "save",
    "scalar",
    "set_default_backend",
    "set_grad_enabled",
    "stack",
    "tensor",
    "where",
    "zeros",
    "zeros_like",
]
