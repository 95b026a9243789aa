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
    """In training mode, zero each element with probability p and scale the rest by 1/(1-p).

    Example:
        >>> import torchlight as tl
        >>> _ = tl.manual_seed(0)
        >>> drop = tl.nn.Dropout(p=0.5)
        >>> sorted(set(drop(tl.ones(8)).tolist()))  # kept elements are scaled by 1 / (1 - p)
        [0.0, 2.0]
        >>> drop.eval()(tl.ones(3)).tolist()  # evaluation mode: the identity
        [1.0, 1.0, 1.0]
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], not {p!r}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
