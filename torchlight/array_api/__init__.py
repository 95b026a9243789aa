"""`torchlight.array_api`: an array API 2024.12 namespace over torchlight's Tensors, differentiable.

Code written the portable way runs on Tensors and carries gradients:
`array_api_compat.array_namespace(t)` (or `t.__array_namespace__()`) is this
module, and each function is a thin wrapper of the Tensor method or op that
does the work (`xp.sum(x, axis=0)` is `x.sum(dim=0)`). The Tensor and the
top-level `torchlight` module keep PyTorch's names and signatures; this
namespace keeps the standard's (`axis`, `keepdims`, `xp.max` giving values,
`xp.concat`). The dtypes are torchlight's (`xp.float32 is tl.float32`), equal
to every backend's dtype of the same name; a Tensor's `.device` names its
backend, so `xp.zeros(3, device=x.device)` lands where `x` is, and without
`device=` arrays are made on the default backend. See docs/array-api.md.

Example:
    >>> import array_api_compat
    >>> import torchlight as tl
    >>> t = tl.tensor([0.0, 1.0], requires_grad=True)
    >>> xp = array_api_compat.array_namespace(t)
    >>> xp.__name__, xp.__array_api_version__
    ('torchlight.array_api', '2024.12')
    >>> xp.sum(xp.exp(t)).backward()
    >>> t.grad                    # exp's derivative, exp(t)
    tensor([1.        , 2.71828183])
"""

from __future__ import annotations

import math

from torchlight.array_api import (
           fft,
           linalg,
           special,  # noqa: F401  (scipy's, not the standard's: outside __all__)
)
from torchlight.array_api._creation import *  # noqa: F403
from torchlight.array_api._creation import __all__ as _creation
from torchlight.array_api._data_type_functions import *  # noqa: F403
from torchlight.array_api._data_type_functions import __all__ as _data_types
from torchlight.array_api._dtypes import *  # noqa: F403
from torchlight.array_api._dtypes import __all__ as _dtypes
from torchlight.array_api._elementwise import *  # noqa: F403
from torchlight.array_api._elementwise import __all__ as _elementwise
from torchlight.array_api._indexing import *  # noqa: F403
from torchlight.array_api._indexing import __all__ as _indexing
from torchlight.array_api._info import __array_namespace_info__
from torchlight.array_api._linear_algebra import *  # noqa: F403
from torchlight.array_api._linear_algebra import __all__ as _linear_algebra
from torchlight.array_api._manipulation import *  # noqa: F403
from torchlight.array_api._manipulation import __all__ as _manipulation
from torchlight.array_api._searching import *  # noqa: F403
from torchlight.array_api._searching import __all__ as _searching
from torchlight.array_api._sets import *  # noqa: F403
from torchlight.array_api._sets import __all__ as _sets
from torchlight.array_api._sorting import *  # noqa: F403
from torchlight.array_api._sorting import __all__ as _sorting
from torchlight.array_api._statistical import *  # noqa: F403
from torchlight.array_api._statistical import __all__ as _statistical
from torchlight.array_api._utility import *  # noqa: F403
from torchlight.array_api._utility import __all__ as _utility

__array_api_version__ = "2024.12"

#: the versions `Tensor.__array_namespace__(api_version=...)` accepts (this namespace serves both)
SUPPORTED_VERSIONS = ("2023.12", "2024.12")

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

__all__ = ["__array_api_version__", "__array_namespace_info__", "e", "fft", "inf", "linalg", "nan", "newaxis", "pi",
           *_creation, *_data_types, *_dtypes, *_elementwise, *_indexing, *_linear_algebra, *_manipulation,
           *_searching, *_sets, *_sorting, *_statistical, *_utility]
__all__.remove("DType")
