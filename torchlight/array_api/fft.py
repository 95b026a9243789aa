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
    """The one-dimensional DFT along `axis` over `n` points (zero-padded or trimmed); a real `x` is made complex.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.fft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> energy = xp.sum(xp.abs(xp.fft.fft(x)) ** 2)    # Parseval: 3 * sum(x**2)
        >>> energy.backward()
        >>> round(energy.item(), 10), [round(g, 10) for g in x.grad.tolist()]
        (42.0, [6.0, 12.0, 18.0])
    """
    return ops.fftn("fft", tensor_arg(x, "fft"), _one(n), (axis,), norm, names=_ONE)


def ifft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The one-dimensional inverse DFT along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> X = xp.asarray([10.0 + 0j, -2.0 + 2.0j, -2.0, -2.0 - 2.0j])
        >>> xp.real(xp.fft.ifft(X))
        tensor([1., 2., 3., 4.])
    """
    return ops.ifftn("ifft", tensor_arg(x, "ifft"), _one(n), (axis,), norm, names=_ONE)


def fftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: Norm = "backward") -> Tensor:
    """The n-dimensional DFT over `axes` (all by default).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.real(xp.fft.fftn(xp.asarray([[1.0, 2.0], [3.0, 4.0]])))
        tensor([[10., -2.],
                [-4.,  0.]])
    """
    return ops.fftn("fftn", tensor_arg(x, "fftn"), s, axes, norm, names=_MANY)


def ifftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional inverse DFT over `axes` (all by default).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> xp.real(xp.fft.ifftn(xp.fft.fftn(x)))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return ops.ifftn("ifftn", tensor_arg(x, "ifftn"), s, axes, norm, names=_MANY)


def rfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The DFT of a real `x` along `axis`: n//2 + 1 frequencies, complex of `x`'s precision.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    return ops.rfftn("rfft", tensor_arg(x, "rfft"), _one(n), (axis,), norm, names=_ONE)


def irfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of `rfft`: n real points (default 2 (m - 1)) along `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.irfft(xp.asarray([10.0 + 0j, -2.0 + 2.0j, -2.0]))
        tensor([1., 2., 3., 4.])
        >>> xp.fft.irfft(xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0, 5.0])), n=5)     # an odd length needs n
        tensor([1., 2., 3., 4., 5.])
    """
    return ops.irfftn("irfft", tensor_arg(x, "irfft"), _one(n), (axis,), norm, names=_ONE)


def rfftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional DFT of a real `x`, the last of `axes` halved to s[-1]//2 + 1 frequencies.

    Example:
        >>> import torchlight.array_api as xp
        >>> X = xp.fft.rfftn(xp.asarray([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]]))
        >>> X.shape
        (2, 3)
        >>> xp.real(X)
        tensor([[10., -2., -2.],
                [10., -2., -2.]])
    """
    return ops.rfftn("rfftn", tensor_arg(x, "rfftn"), s, axes, norm, names=_MANY)


def irfftn(x: Tensor, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Norm = "backward") -> Tensor:
    """The inverse of `rfftn`: `s` are the output's sizes (default: the input's, 2 (m - 1) on the last axis).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> xp.fft.irfftn(xp.fft.rfftn(x))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return ops.irfftn("irfftn", tensor_arg(x, "irfftn"), s, axes, norm, names=_MANY)


def hfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The DFT of a Hermitian-symmetric signal given by its first half: n real points (default 2 (m - 1)).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.hfft(xp.asarray([1.0 + 0j, 2.0, 3.0]))     # the first half of the signal [1, 2, 3, 2]
        tensor([ 8., -2.,  0., -2.])
    """
    return ops.hfft("hfft", tensor_arg(x, "hfft"), n, axis, norm, names=_ONE)


def ihfft(x: Tensor, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of `hfft`: of a real `x`, n//2 + 1 complex values.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([1.0, 2.0, 3.0, 4.0])
        >>> xp.fft.ihfft(x).shape
        (3,)
        >>> xp.fft.hfft(xp.fft.ihfft(x), n=4)
        tensor([1., 2., 3., 4.])
    """
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
    """The non-negative sample frequencies of `rfft`: 0, 1, ..., n//2 over n d.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.rfftfreq(8)
        tensor([0.   , 0.125, 0.25 , 0.375, 0.5  ])
        >>> xp.fft.rfftfreq(4, d=0.1)
        tensor([0. , 2.5, 5. ])
    """
    return _frequencies("rfftfreq", n, d, dtype, device, True)


def fftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """The zero frequency moved to the centre: each of `axes` (all by default) rolled by n//2.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.fftshift(xp.fft.fftfreq(5))
        tensor([-0.4, -0.2,  0. ,  0.2,  0.4])
    """
    return ops.fftshift("fftshift", tensor_arg(x, "fftshift"), axes)


def ifftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of `fftshift`: each of `axes` rolled by -(n//2).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.fft.ifftshift(xp.asarray([0, 1, 2, 3, 4]))
        tensor([2, 3, 4, 0, 1])
        >>> xp.fft.ifftshift(xp.fft.fftshift(xp.asarray([0, 1, 2, 3, 4])))
        tensor([0, 1, 2, 3, 4])
    """
    return ops.fftshift("ifftshift", tensor_arg(x, "ifftshift"), axes, inverse=True)
