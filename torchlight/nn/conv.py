"""`Conv2d`: a 2-d convolution layer (cross-correlation, as in every framework).

Example:
    >>> import torchlight as tl
    >>> conv = tl.nn.Conv2d(1, 4, kernel_size=3, padding=1)
    >>> conv(tl.zeros(2, 1, 8, 8)).shape
    (2, 4, 8, 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import add_weight_and_bias
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


def _pair(value: int | Sequence[int]) -> tuple[int, ...]:
    return (value, value) if isinstance(value, int) else tuple(value)


class Conv2d(Module):
    """weight (out_channels, in_channels / groups, kh, kw), bias (out_channels,).

    Initialised as PyTorch: kaiming_uniform_(a=sqrt(5)) for the weight and
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias, fan_in = in_channels / groups * kh * kw.
    `groups` must divide both channel counts, and `padding="same"` needs
    stride 1 (ValueError here, not at the first call).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, *,
                 backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"Conv2d: groups must be an int >= 1, not {groups!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2d: groups={groups} must divide both in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)  # "same" and "valid" stay words
        self.dilation = _pair(dilation)
        self.groups = groups
        F.conv_pads(self.padding, self.kernel_size, self.stride, self.dilation, "Conv2d")  # a bad padding fails here
        weight_shape = (out_channels, in_channels // groups) + self.kernel_size
        add_weight_and_bias(self, weight_shape, bias, backend, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"  # (a word unquoted, as PyTorch: padding=same)
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        return text + ("" if self.bias is not None else ", bias=False")
