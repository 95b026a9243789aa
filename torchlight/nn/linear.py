"""`Linear`, `Flatten` and `Identity`: the layers of a multilayer perceptron.

Example:
    >>> import torchlight as tl
    >>> layer = tl.nn.Linear(4, 2)
    >>> layer
    Linear(in_features=4, out_features=2, bias=True)
    >>> layer(tl.ones(3, 4)).shape
    (3, 2)
"""

from __future__ import annotations

from typing import Any

from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import add_weight_and_bias
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features).

    Initialised as PyTorch: weight by kaiming_uniform_(a=sqrt(5)), i.e.
    U(-1/sqrt(in), 1/sqrt(in)), and bias by U(-1/sqrt(in), 1/sqrt(in)).
    An input whose last axis is not `in_features` raises ValueError.

    Example:
        >>> import torchlight as tl
        >>> layer = tl.nn.Linear(3, 2)
        >>> layer
        Linear(in_features=3, out_features=2, bias=True)
        >>> layer.weight.shape, layer.bias.shape
        ((2, 3), (2,))
        >>> layer(tl.ones(4, 3)).shape
        (4, 2)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, backend: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        add_weight_and_bias(self, (out_features, in_features), bias, backend, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise ValueError(f"Linear(in_features={self.in_features}, out_features={self.out_features}): "
                             f"the input of shape {x.shape} has width {x.shape[-1] if x.ndim else None}, "
                             f"expected {self.in_features}")
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    """Merge the axes `start_dim` ... `end_dim` into one (default: all but the batch axis).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.Flatten()(tl.zeros(2, 3, 4)).shape
        (2, 12)
        >>> tl.nn.Flatten(start_dim=0)(tl.zeros(2, 3, 4)).shape
        (24,)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, x: Tensor) -> Tensor:
        """`x.flatten(start_dim, end_dim)`: a dim out of range is an IndexError (as PyTorch), never wrapped."""
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """Returns its input unchanged (a placeholder layer).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0])
        >>> tl.nn.Identity()(x) is x
        True
    """

    def forward(self, x: Tensor) -> Tensor:
        return x
