"""torchlight: reverse-mode autograd over the Python array API standard.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([2.0, 3.0], requires_grad=True)
    >>> y = (x ** 2).sum()
    >>> y.backward()
    >>> x.grad.tolist()
    [4.0, 6.0]
"""

from torchlight import (
    array_api,
    array_functions,
    autograd,
    backends,
    fft,
    func,
    linalg,
    nn,
    optim,
    random,
    scalar,
    special,
    torch_functions,
    utils,
)
from torchlight.array_functions import *  # noqa: F403  (every free function: its __all__ is the list)
from torchlight.backends import (
    BackendError,
    BackendUnavailableError,
    get_default_backend,
    manual_seed,
    set_default_backend,
)
from torchlight.backends.dtypes import DTYPES as _DTYPES
from torchlight.backends.dtypes import get_default_dtype, set_default_dtype
from torchlight.compile import CompileError, compile  # noqa: A004 (torch.compile's name; the function over the package)
from torchlight.computing import compute, persist
from torchlight.creation import (
    arange,
    device,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from torchlight.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from torchlight.random import Generator, get_rng_state, initial_seed, seed, set_rng_state
from torchlight.serialization import CheckpointError, load, save
from torchlight.tensor import Tensor
from torchlight.torch_functions import *  # noqa: F403  (torch's free functions over the methods: tl.sin, tl.sum, ...)

# the standard's dtypes, as `tl.float32` (the same objects as `torchlight.array_api.float32`)
bool = _DTYPES["bool"]  # noqa: A001
int8, int16, int32, int64 = (_DTYPES[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_DTYPES[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = _DTYPES["float32"], _DTYPES["float64"]
complex64, complex128 = _DTYPES["complex64"], _DTYPES["complex128"]
# PyTorch's other names of the same dtypes (torch.float is float32, torch.long int64, ...)
float, double, long, int = float32, float64, int64, int32  # noqa: A001
cfloat, cdouble = complex64, complex128

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "BackendUnavailableError",
    "CompileError",
    "Tensor",
    "arange",
    "array_api",
    "autograd",
    "backends",
    "compile",
    "enable_grad",
    "fft",
    "func",
    "full",
    "get_default_backend",
    "get_default_dtype",
    "is_grad_enabled",
    "linalg",
    "load",
    "manual_seed",
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
    "set_default_dtype",
    "set_grad_enabled",
    "special",
    "tensor",
    "utils",
    "zeros",
    "zeros_like",
]
__all__ += array_functions.__all__
__all__ += torch_functions.__all__
__all__ += ["cdouble", "cfloat", "device", "double", "float", "int", "long"]
__all__ += ["empty", "empty_like", "eye", "full_like", "linspace", "logspace", "rand_like", "randn_like"]
__all__ += list(_DTYPES)
__all__ += ["CheckpointError", "Generator", "get_rng_state", "initial_seed", "random", "seed", "set_rng_state"]
__all__ += ["compute", "persist"]
