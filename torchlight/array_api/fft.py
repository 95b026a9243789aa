"""`torchlight.array_api.fft`: the array API 2024.12 fft extension over Tensors, differentiable.

The standard's fourteen functions with its signatures (positional-only
array, keyword-only `n`/`s`, `axis`/`axes`, `norm="backward"`); each is the
`torchlight.fft` function of the same name (the same Functions, the same
gradients) under the standard's argument names. Arrays of any supported
library are taken as they are (wrapped without a copy). What the standard
leaves open, and how torchlight chose, is in docs/fft.md.

Example:
    >>> import torchlight.array_api as xp
    >>> x = xp.asarray([1.0 + 0j, 2.0, 3.0])
    >>> [round(abs(v), 6) for v in xp.fft.ifft(xp.fft.fft(x)).tolist()]
    [1.0, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from torchlight.array_api._helpers import dtype_arg, place, tensor_arg
from torchlight.backends import fft as library
from torchlight.ops import fft as ops
from torchlight.tensor import Tensor

__all__ = ["fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft", "irfft", "irfftn",
           "rfft", "rfftfreq", "rfftn"]

Norm = Literal["backward", "ortho", "forward"]
_ONE = ("n", "axis")
_MANY = ("s", "axes")


def _one(n: int | None) -> tuple[int] | None:
    return None if n is None else (n,)


def fft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The one-dimensional DFT along `axis` over `n` points (zero-padded or trimmed); a real `x` is made complex."""
    return ops.fftn("fft", tensor_arg(x, "fft"), _one(n), (axis,), norm, names=_ONE)


def ifft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The one-dimensional inverse DFT along `axis`."""
    return ops.ifftn("ifft", tensor_arg(x, "ifft"), _one(n), (axis,), norm, names=_ONE)


def fftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: Norm = "backward") -> Tensor:
    """The n-dimensional DFT over `axes` (all by default)."""
    return ops.fftn("fftn", tensor_arg(x, "fftn"), s, axes, norm, names=_MANY)


def ifftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional inverse DFT over `axes` (all by default)."""
    return ops.ifftn("ifftn", tensor_arg(x, "ifftn"), s, axes, norm, names=_MANY)


def rfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The DFT of a real `x` along `axis`: n//2 + 1 frequencies, complex of `x`'s precision."""
    return ops.rfftn("rfft", tensor_arg(x, "rfft"), _one(n), (axis,), norm, names=_ONE)


def irfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of `rfft`: n real points (default 2 (m - 1)) along `axis`."""
    return ops.irfftn("irfft", tensor_arg(x, "irfft"), _one(n), (axis,), norm, names=_ONE)


def rfftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional DFT of a real `x`, the last of `axes` halved to s[-1]//2 + 1 frequencies."""
    return ops.rfftn("rfftn", tensor_arg(x, "rfftn"), s, axes, norm, names=_MANY)


def irfftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Norm = "backward") -> Tensor:
    """The inverse of `rfftn`: `s` are the output's sizes (default: the input's, 2 (m - 1) on the last axis)."""
    return ops.irfftn("irfftn", tensor_arg(x, "irfftn"), s, axes, norm, names=_MANY)


def hfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The DFT of a Hermitian-symmetric signal given by its first half: n real points (default 2 (m - 1))."""
    return ops.hfft("hfft", tensor_arg(x, "hfft"), n, axis, norm, names=_ONE)


def ihfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of `hfft`: of a real `x`, n//2 + 1 complex values."""
    return ops.ihfft("ihfft", tensor_arg(x, "ihfft"), n, axis, norm, names=_ONE)


def _frequencies(fn: str, n: int, d: float, dtype: Any, device: Any, onesided: bool) -> Tensor:
    backend, raw = place(device, fn)
    n = ops.size_arg(fn, n, "n")
    kind = dtype_arg(backend, backend.default_float(raw) if dtype is None else dtype, fn)
    if not backend.is_floating(kind) or backend.is_complex(kind):
        raise TypeError(f"{fn}: dtype must be a real floating-point dtype, not {dtype!r}")
    return Tensor(library.frequencies(backend, n, float(d), kind, raw, onesided), backend)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies of an n-point DFT with spacing `d` (the default float dtype; a constant).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.fftfreq(5).tolist()
        [0.0, 0.2, 0.4, -0.4, -0.2]
    """
    return _frequencies("fftfreq", n, d, dtype, device, False)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The non-negative sample frequencies of `rfft`: 0, 1, ..., n//2 over n d."""
    return _frequencies("rfftfreq", n, d, dtype, device, True)


def fftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """The zero frequency moved to the centre: each of `axes` (all by default) rolled by n//2."""
    return ops.fftshift("fftshift", tensor_arg(x, "fftshift"), axes)


def ifftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of `fftshift`: each of `axes` rolled by -(n//2)."""
    return ops.fftshift("ifftshift", tensor_arg(x, "ifftshift"), axes, inverse=True)
