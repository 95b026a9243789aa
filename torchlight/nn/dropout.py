"""`Dropout`: zeroes activations at random while training.

Example:
    >>> import torchlight as tl
    >>> drop = tl.nn.Dropout(0.5).eval()
    >>> drop(tl.ones(3)).tolist()          # the identity in eval mode
    [1.0, 1.0, 1.0]
"""

from __future__ import annotations

from torchlight.nn import functional as F
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class Dropout(Module):
    """In training mode, zero each element with probability p and scale the rest by 1/(1-p)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], not {p!r}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
