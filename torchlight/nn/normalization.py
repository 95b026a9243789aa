"""`LayerNorm`: normalise over the last axes, then scale and shift.

Example:
    >>> import torchlight as tl
    >>> norm = tl.nn.LayerNorm(4)
    >>> y = norm(tl.tensor([[1.0, 2.0, 3.0, 4.0]]))
    >>> round(y.mean().item(), 6)
    0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import new_parameter
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class LayerNorm(Module):
    """(x - mean) / sqrt(var + eps) * weight + bias over `normalized_shape` (weight 1, bias 0 at first)."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = new_parameter(shape, backend, device, dtype)
            self.bias = new_parameter(shape, backend, device, dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
