"""Activation layers: `ReLU`, `Tanh`, `Sigmoid`, `GELU`, `Softmax`, `LogSoftmax`.

Example:
    >>> import torchlight as tl
    >>> tl.nn.ReLU()(tl.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
"""

from __future__ import annotations

from torchlight.nn import functional as F
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class ReLU(Module):
    """max(x, 0); relu'(0) = 0."""

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class GELU(Module):
    """x * Phi(x) (`approximate="tanh"`: PyTorch's tanh form); see `torchlight.nn.functional.gelu`."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', not {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)
