"""`Parameter`: a leaf Tensor that a Module registers as one of its weights.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.zeros(2, 3))
    >>> w.requires_grad, w.is_leaf
    (True, True)
"""

from __future__ import annotations

from typing import Any

from torchlight.creation import tensor
from torchlight.tensor import Tensor


class Parameter(Tensor):
    """A leaf Tensor with `requires_grad=True` (by default) that Modules collect.

    Made from a Tensor, it shares that tensor's array (no copy); made from
    anything else, it goes through `tl.tensor`. Ops on a Parameter return
    plain Tensors.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([1.0, 2.0]))
        >>> w.requires_grad, w.is_leaf
        (True, True)
        >>> type(w * 2).__name__  # ops on a Parameter give plain Tensors
        'Tensor'
    """

    __slots__ = ()

    def __init__(self, data: Any, requires_grad: bool = True) -> None:
        if not isinstance(data, Tensor):
            data = tensor(data)
        super().__init__(data.data, data.backend, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
