"""`torchlight.fft`: discrete Fourier transforms with PyTorch's `torch.fft` names and signatures, differentiable.

`fft, ifft, rfft, irfft, hfft, ihfft` (one dimension, `n`, `dim`), `fft2,
ifft2, rfft2, irfft2, hfft2, ihfft2` (two, `s`, `dim=(-2, -1)`), `fftn,
ifftn, rfftn, irfftn, hfftn, ihfftn` (any, `s`, `dim`), `fftfreq, rfftfreq` and `fftshift, ifftshift`.
`norm` is None (= "backward": the forward transform unscaled, the inverse
by 1/n), "ortho" (both by 1/sqrt(n)) or "forward" (the forward by 1/n).
Gradients, first order and higher, in PyTorch's convention for complex
numbers; a real input of a complex transform gets a real gradient. The
standard's spelling of the same functions is `torchlight.array_api.fft`;
both are described in docs/fft.md.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0, 1.0, 0.0, -1.0], requires_grad=True)
    >>> X = tl.fft.rfft(x)
    >>> [complex(v) for v in X.tolist()]
    [0j, -2j, 0j]
    >>> X.abs().sum().backward()
    >>> [round(v, 6) for v in x.grad.tolist()]
    [0.0, 1.0, 0.0, -1.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight import backends
from torchlight.backends import fft as library
from torchlight.creation import _backend_of_device
from torchlight.ops import fft as ops
from torchlight.tensor import Tensor

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_ONE = ("n", "dim")
_MANY = ("s", "dim")

Dims = int | Sequence[int] | None


def _one(s: int | None) -> tuple[int] | None:
    return None if s is None else (s,)


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional DFT along `dim`, over `n` points (the input zero-padded or trimmed to them).

    Example:
        >>> import torchlight as tl
        >>> [complex(v) for v in tl.fft.fft(tl.tensor([1.0, 1.0])).tolist()]
        [(2+0j), 0j]
    """
    return ops.fftn("fft", input, _one(n), (dim,), norm, arg="input", names=_ONE)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional inverse DFT along `dim` (by default scaled by 1/n).

    Example:
        >>> import torchlight as tl
        >>> [complex(v) for v in tl.fft.ifft(tl.tensor([2.0, 0.0])).tolist()]
        [(1+0j), (1+0j)]
    """
    return ops.ifftn("ifft", input, _one(n), (dim,), norm, arg="input", names=_ONE)


def fft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The two-dimensional DFT over `dim` (the last two by default).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.fft2(tl.ones(2, 2)).real.tolist()
        [[4.0, 0.0], [0.0, 0.0]]
    """
    return ops.fftn("fft2", input, s, dim, norm, arg="input", names=_MANY)


def ifft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The two-dimensional inverse DFT over `dim` (the last two by default).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ifft2(tl.fft.fft2(tl.ones(2, 2))).real.tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    return ops.ifftn("ifft2", input, s, dim, norm, arg="input", names=_MANY)


def fftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The n-dimensional DFT over `dim` (all dimensions by default; the last len(s) when only `s` is given).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.fftn(tl.ones(2, 3)).real.tolist()
        [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    return ops.fftn("fftn", input, s, dim, norm, arg="input", names=_MANY)


def ifftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The n-dimensional inverse DFT over `dim` (all dimensions by default).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ifftn(tl.fft.fftn(tl.ones(2, 3))).real.tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return ops.ifftn("ifftn", input, s, dim, norm, arg="input", names=_MANY)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The DFT of a real signal along `dim`: its n//2 + 1 non-negative frequencies.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.rfft(tl.tensor([1.0, 2.0, 3.0, 4.0])).shape
        (3,)
    """
    return ops.rfftn("rfft", input, _one(n), (dim,), norm, arg="input", names=_ONE)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `rfft`: n real points (default 2 (m - 1) for m frequencies) along `dim`.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0, 3.0])
        >>> [round(v, 6) for v in tl.fft.irfft(tl.fft.rfft(x), n=3).tolist()]
        [1.0, 2.0, 3.0]
    """
    return ops.irfftn("irfft", input, _one(n), (dim,), norm, arg="input", names=_ONE)


def rfft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The two-dimensional DFT of a real signal, the last of `dim` halved to s[-1]//2 + 1 frequencies.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.rfft2(tl.ones(4, 4)).shape
        (4, 3)
    """
    return ops.rfftn("rfft2", input, s, dim, norm, arg="input", names=_MANY)


def irfft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The inverse of `rfft2`.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.irfft2(tl.fft.rfft2(tl.ones(4, 4))).shape
        (4, 4)
    """
    return ops.irfftn("irfft2", input, s, dim, norm, arg="input", names=_MANY)


def rfftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The n-dimensional DFT of a real signal, the last of `dim` halved to s[-1]//2 + 1 frequencies.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.rfftn(tl.ones(2, 3, 4)).shape
        (2, 3, 3)
    """
    return ops.rfftn("rfftn", input, s, dim, norm, arg="input", names=_MANY)


def irfftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The inverse of `rfftn`: `s` are the output's sizes (default: the input's, and 2 (m - 1) along
    the last of `dim`).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.irfftn(tl.fft.rfftn(tl.ones(2, 3, 4))).shape
        (2, 3, 4)
    """
    return ops.irfftn("irfftn", input, s, dim, norm, arg="input", names=_MANY)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The DFT of a Hermitian-symmetric signal given by its first half: n real points
    (default 2 (m - 1)); `irfft` of the conjugate with the other normalisation.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.hfft(tl.tensor([1.0, 0.0, 0.0])).tolist()
        [1.0, 1.0, 1.0, 1.0]
    """
    return ops.hfft("hfft", input, n, dim, norm, arg="input", names=_ONE)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `hfft`: of a real signal, n//2 + 1 complex values.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ihfft(tl.tensor([1.0, 2.0, 1.0, 0.0])).real.tolist()
        [1.0, 0.0, 0.0]
    """
    return ops.ihfft("ihfft", input, n, dim, norm, arg="input", names=_ONE)


def hfft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The two-dimensional `hfftn`.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.hfft2(tl.ones(2, 3)).shape
        (2, 4)
    """
    return ops.hfftn("hfft2", input, s, dim, norm, arg="input", names=_MANY)


def ihfft2(input: Tensor, s: Sequence[int] | None = None, dim: Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """The two-dimensional `ihfftn`.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ihfft2(tl.ones(2, 4)).shape
        (2, 3)
    """
    return ops.ihfftn("ihfft2", input, s, dim, norm, arg="input", names=_MANY)


def hfftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The n-dimensional DFT of a signal Hermitian-symmetric along the last of `dim`, given by its
    first half there: a real result (`irfftn` of the conjugate, with the other normalisation).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.hfftn(tl.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])).tolist()
        [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return ops.hfftn("hfftn", input, s, dim, norm, arg="input", names=_MANY)


def ihfftn(input: Tensor, s: Sequence[int] | None = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    """The inverse of `hfftn`: of a real signal, the last of `dim` halved to s[-1]//2 + 1 frequencies.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ihfftn(tl.ones(2, 4)).real.tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    return ops.ihfftn("ihfftn", input, s, dim, norm, arg="input", names=_MANY)


def fftshift(input: Tensor, dim: Dims = None) -> Tensor:
    """The zero frequency moved to the centre: each of `dim` (all by default) rolled by n//2.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.fftshift(tl.fft.fftfreq(4)).tolist()
        [-0.5, -0.25, 0.0, 0.25]
    """
    return ops.fftshift("fftshift", input, dim, arg="input", name="dim")


def ifftshift(input: Tensor, dim: Dims = None) -> Tensor:
    """The inverse of `fftshift`: each of `dim` rolled by -(n//2).

    Example:
        >>> import torchlight as tl
        >>> tl.fft.ifftshift(tl.fft.fftshift(tl.fft.fftfreq(5))).tolist() == tl.fft.fftfreq(5).tolist()
        True
    """
    return ops.fftshift("ifftshift", input, dim, inverse=True, arg="input", name="dim")


def _frequencies(fn: str, n: int, d: float, dtype: Any, device: Any, backend: Any, onesided: bool) -> Tensor:
    be = backends.get(_backend_of_device(backend, device))
    n = ops.size_arg(fn, n, "n")
    raw = be.resolve_device(device)
    kind = be.resolve_dtype(be.default_float(raw) if dtype is None else dtype)
    if not be.is_floating(kind) or be.is_complex(kind):
        raise TypeError(f"{fn}: dtype must be a real floating-point dtype, not {dtype!r}")
    return Tensor(library.frequencies(be, n, float(d), kind, raw, onesided), be)


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None, backend: Any = None) -> Tensor:
    """The sample frequencies of an n-point DFT with sample spacing `d`: 0, 1, ..., then -(n//2), ..., -1,
    over n d (not differentiable: a constant, as a factory makes). `backend`/`device` as the factories take them.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.fftfreq(4, d=0.5).tolist()
        [0.0, 0.5, -1.0, -0.5]
    """
    return _frequencies("fftfreq", n, d, dtype, device, backend, False)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None, backend: Any = None) -> Tensor:
    """The non-negative sample frequencies of `rfft`: 0, 1, ..., n//2, over n d.

    Example:
        >>> import torchlight as tl
        >>> tl.fft.rfftfreq(5).tolist()
        [0.0, 0.2, 0.4]
    """
    return _frequencies("rfftfreq", n, d, dtype, device, backend, True)
