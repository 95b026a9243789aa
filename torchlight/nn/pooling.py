"""`MaxPool2d` and `AvgPool2d`: downsampling by windows.

Example:
    >>> import torchlight as tl
    >>> pool = tl.nn.MaxPool2d(2)
    >>> pool(tl.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

from collections.abc import Sequence

from torchlight.nn import functional as F
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class _Pool2d(Module):
    """What the pools share: the window's size, stride (the kernel size by default) and padding."""

    def __init__(self, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
                 padding: int | Sequence[int] = 0) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_Pool2d):
    """The maximum of each kernel_size window (stride defaults to kernel_size; taps `dilation` apart).

    Example:
        >>> import torchlight as tl
        >>> x = tl.arange(16.0).reshape(1, 1, 4, 4)
        >>> tl.nn.MaxPool2d(2)(x).tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
    """

    def __init__(self, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
                 padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1) -> None:
        super().__init__(kernel_size, stride, padding)
        self.dilation = dilation

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation)

    def extra_repr(self) -> str:
        return super().extra_repr() + ("" if self.dilation == 1 else f", dilation={self.dilation}")


class AvgPool2d(_Pool2d):
    """The mean of each kernel_size window (zero padding counts in the mean).

    Example:
        >>> import torchlight as tl
        >>> x = tl.arange(16.0).reshape(1, 1, 4, 4)
        >>> tl.nn.AvgPool2d(2)(x).tolist()
        [[[[2.5, 4.5], [10.5, 12.5]]]]
        >>> tl.nn.AvgPool2d(2, stride=1, padding=1)(x).shape
        (1, 1, 5, 5)
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)
