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
from torchlight.nn._factory import add_weight_and_bias, new_parameter
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

    Example:
        >>> import torchlight as tl
        >>> conv = tl.nn.Conv2d(3, 8, kernel_size=3, padding=1)
        >>> conv.weight.shape, conv.bias.shape
        ((8, 3, 3, 3), (8,))
        >>> conv(tl.zeros(2, 3, 5, 5)).shape
        (2, 8, 5, 5)
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


def _one(value: int | Sequence[int]) -> tuple[int]:
    return (value,) if isinstance(value, int) else (tuple(value)[0],)


class Conv1d(Module):
    """weight (out_channels, in_channels / groups, kernel_size), bias (out_channels,): `F.conv1d`.

    Initialised as Conv2d (PyTorch's default), fan_in = in_channels / groups * kernel_size.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.Conv1d(2, 4, 3, padding=1)(tl.zeros(5, 2, 10)).shape
        (5, 4, 10)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, *,
                 backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_groups("Conv1d", groups, in_channels, out_channels)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _one(kernel_size)
        self.stride = _one(stride)
        self.padding = padding if isinstance(padding, str) else _one(padding)
        self.dilation = _one(dilation)
        self.groups = groups
        F.conv_pads(padding if isinstance(padding, str) else (0, _one(padding)[0]), (1,) + self.kernel_size,
                    (1,) + self.stride, (1,) + self.dilation, "Conv1d")  # a bad padding fails here
        add_weight_and_bias(self, (out_channels, in_channels // groups) + self.kernel_size, bias, backend, device,
                            dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        return _conv_repr(self, (0,), (1,))


class ConvTranspose2d(Module):
    """weight (in_channels, out_channels / groups, kh, kw), bias (out_channels,): `F.conv_transpose2d`.

    PyTorch's layout and initialisation (kaiming_uniform_(a=sqrt(5)) with
    fan_in = out_channels / groups * kh * kw, the bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).

    Example:
        >>> import torchlight as tl
        >>> up = tl.nn.ConvTranspose2d(4, 2, kernel_size=3, stride=2, padding=1, output_padding=1)
        >>> up(tl.zeros(1, 4, 5, 5)).shape          # twice the size
        (1, 2, 10, 10)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, *, backend: Any = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_groups("ConvTranspose2d", groups, in_channels, out_channels)
        if isinstance(padding, str):
            raise ValueError(f"ConvTranspose2d: padding must be an int or a pair of ints, not {padding!r} "
                             f"(as PyTorch: no 'same' or 'valid' for a transposed convolution)")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.output_padding = _pair(output_padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        if any(o >= s and o >= d for o, s, d in zip(self.output_padding, self.stride, self.dilation)):
            raise ValueError(f"ConvTranspose2d: output_padding {self.output_padding} must be smaller than either "
                             f"stride {self.stride} or dilation {self.dilation}")
        add_weight_and_bias(self, (in_channels, out_channels // groups) + self.kernel_size, False, backend, device,
                            dtype)
        if bias:
            self.bias = new_parameter((out_channels,), backend, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, x: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        """`output_size` ((H, W), or the whole shape) picks the output_padding that gives it, as PyTorch."""
        padding = self.output_padding if output_size is None else self._output_padding(x, output_size)
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, padding, self.groups,
                                  self.dilation)

    def _output_padding(self, x: Tensor, output_size: Sequence[int]) -> tuple[int, ...]:
        size = tuple(output_size)[-2:]
        if len(size) != 2 or x.ndim < 2:
            raise ValueError(f"ConvTranspose2d: output_size must end in (H, W), not {tuple(output_size)}")
        smallest = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in
                         zip(x.shape[-2:], self.stride, self.padding, self.dilation, self.kernel_size))
        largest = tuple(m + max(s, d) - 1 for m, s, d in zip(smallest, self.stride, self.dilation))
        if not all(lo <= n <= hi for n, lo, hi in zip(size, smallest, largest)):
            raise ValueError(f"ConvTranspose2d: requested an output size of {size}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {tuple(x.shape[-2:])})")
        return tuple(n - lo for n, lo in zip(size, smallest))

    def extra_repr(self) -> str:
        return _conv_repr(self, (0, 0), (1, 1), self.output_padding)


def _check_groups(op: str, groups: int, in_channels: int, out_channels: int) -> None:
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be an int >= 1, not {groups!r}")
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{op}: groups={groups} must divide both in_channels={in_channels} "
                         f"and out_channels={out_channels}")


def _conv_repr(conv: Any, no_padding: tuple, no_dilation: tuple, output_padding: tuple = (0, 0)) -> str:
    text = f"{conv.in_channels}, {conv.out_channels}, kernel_size={conv.kernel_size}, stride={conv.stride}"
    if conv.padding != no_padding:
        text += f", padding={conv.padding}"
    if output_padding != (0, 0):
        text += f", output_padding={output_padding}"
    if conv.dilation != no_dilation:
        text += f", dilation={conv.dilation}"
    if conv.groups != 1:
        text += f", groups={conv.groups}"
    return text + ("" if conv.bias is not None else ", bias=False")
