"""Activation layers: `ReLU`, `Tanh`, `Sigmoid`, `Softmax`, `LogSoftmax`.

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
