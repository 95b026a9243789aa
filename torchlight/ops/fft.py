"""Discrete Fourier transforms: the array API's fft extension, with gradients.

Four Functions carry every transform: `FFT` (complex to complex, over
several axes, forward or inverse), `RFFT` (real to complex, the last axis
keeping its n//2 + 1 non-negative frequencies), `IRFFT` (its inverse,
complex to real) and `FFTShift` (a roll by half of each axis). A size
`n`/`s` other than the input's pads with zeros or trims first, as its own
op (`FFTResize`), so the transforms themselves see their logical size.
`hfft` is `irfft` of the conjugate and `ihfft` the conjugate of `rfft`, with
the other normalisation (NumPy's definitions).

Gradients follow PyTorch's convention (conjugate Wirtinger; see
`torchlight.ops.complex_numbers`). A transform is linear, so its gradient
is its adjoint applied to the incoming gradient, and the adjoint is another
transform (so it differentiates again, to any order):

- `fft(norm=m)` -> `ifft(norm=DUAL[m])` (the conjugate kernel with the same
  scale: "backward" <-> "forward", "ortho" itself), and the other way round;
- `rfft` -> the real part of the inverse complex transform of the gradient
  zero-padded to all n frequencies (the dropped half had no gradient);
- `irfft` -> `rfft` of the gradient with the bins 1 .. n - (n//2 + 1)
  doubled: each stands for itself and its conjugate mirror in the full
  spectrum (the 0 bin, and the n/2 bin of an even n, have no mirror; their
  imaginary parts, which the transform ignores, get no gradient);
- padding <-> trimming; fftshift <-> ifftshift.

A real input of a complex transform (`fft` of a float tensor) is cast to the
complex dtype of its precision, whose gradient is the real part (the
engine's rule). Integer inputs are a TypeError naming the function; a bad
size, axis or norm a ValueError naming the argument (an axis out of range is
also an IndexError, as NumPy's AxisError), raised before anything is computed.

Example:
    >>> import torchlight as tl
    >>> from torchlight.ops import fft
    >>> x = tl.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    >>> y = fft.fftn("fft", x, (4,), (-1,))
    >>> [complex(v) for v in y.tolist()]
    [(10+0j), (-2+2j), (-2+0j), (-2-2j)]
    >>> (y.real ** 2).sum().backward()
    >>> x.grad.tolist()
    [8.0, 24.0, 24.0, 24.0]
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from torchlight.backends import fft as library
from torchlight.backends.fft import DUAL, NORMS
from torchlight.engine import Context, Function
from torchlight.ops.common import _const
from torchlight.ops.complex_numbers import Real, conj

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

__all__ = ["FFT", "IRFFT", "RFFT", "FFTAxisError", "FFTResize", "FFTShift", "fftn", "fftshift", "hfft", "hfftn",
           "ifftn", "ihfft", "ihfftn", "irfftn", "rfftn", "size_arg"]


class FFTAxisError(ValueError, IndexError):
    """An axis out of range for an fft function: a ValueError (the standard's word for a bad argument)
    and an IndexError (PyTorch's for a dim out of range), as NumPy's AxisError is both."""


# ------------------------------------------------------------------ the Functions
class FFT(Function):
    """The DFT of a complex tensor over `axes` (its inverse when `inverse`), normalised by `norm`;
    the backward is the adjoint, the transform the other way with the dual normalisation."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, axes: tuple[int, ...], norm: str, inverse: bool) -> Any:
        ctx.save_for_backward(axes, norm, inverse)
        data = x.data
        backend = x.backend
        if not backend.is_complex(data.dtype):  # (a real incoming gradient, in a backward)
            data = backend.xp.astype(data, library.complex_dtype(backend, data.dtype))
        return library.c2c(backend, data, axes, norm, inverse)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        axes, norm, inverse = ctx.saved_tensors
        return FFT.apply(g, axes, DUAL[norm], not inverse), None, None, None


class RFFT(Function):
    """The DFT of a real tensor over `axes`, the last axis halved to n//2 + 1 frequencies; the
    backward is the real part of the inverse transform (dual normalisation) of the gradient
    zero-padded to all n frequencies."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, axes: tuple[int, ...], norm: str) -> Any:
        ctx.save_for_backward(axes, norm, x.shape[axes[-1]])
        return library.r2c(x.backend, x.data, axes, norm)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        axes, norm, n = ctx.saved_tensors
        full = FFTResize.apply(g, ((axes[-1], n),))
        return Real.apply(FFT.apply(full, axes, DUAL[norm], True)), None, None


class IRFFT(Function):
    """The real inverse of `RFFT`: a complex tensor holding n//2 + 1 frequencies along `axes[-1]`
    to the real signal of the `sizes` along `axes`. The backward is `RFFT` of the gradient (dual
    normalisation) with the frequencies that stand for a conjugate mirror too doubled."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, axes: tuple[int, ...], norm: str, sizes: tuple[int, ...]) -> Any:
        ctx.save_for_backward(axes, norm, sizes[-1])
        return library.c2r(x.backend, x.data, axes, norm, sizes)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        axes, norm, n = ctx.saved_tensors
        half = RFFT.apply(g, axes, DUAL[norm])
        return half * _mirror_weights(half, axes[-1], n), None, None, None


class FFTShift(Function):
    """Each of `axes` rolled by half its length: by n//2 (fftshift) or -(n//2) (`inverse`,
    ifftshift); the backward is the other shift."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, axes: tuple[int, ...], inverse: bool) -> Any:
        ctx.save_for_backward(axes, inverse)
        xp = x.backend.xp
        if not axes:
            return xp.asarray(x.data, copy=True)
        shifts = tuple(-(x.shape[a] // 2) if inverse else x.shape[a] // 2 for a in axes)
        return xp.roll(x.data, shifts, axis=axes)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        axes, inverse = ctx.saved_tensors
        return FFTShift.apply(g, axes, not inverse), None, None


class FFTResize(Function):
    """Each (axis, size) of `sizes`: the tensor trimmed to `size` along `axis`, or zero-padded to it
    at the end (what `n` and `s` of the transforms do); the backward resizes back to the input's sizes
    (trimming's adjoint is zero-padding, and the other way round)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Tensor, sizes: tuple[tuple[int, int], ...]) -> Any:
        ctx.save_for_backward(tuple((axis, x.shape[axis]) for axis, _ in sizes))
        xp, data, device = x.backend.xp, x.data, x._device
        for axis, n in sizes:
            m = data.shape[axis]
            if n < m:
                data = data[(slice(None),) * axis + (slice(0, n), Ellipsis)]
            elif n > m:
                shape = tuple(n - m if i == axis else k for i, k in enumerate(data.shape))
                data = xp.concat([data, xp.zeros(shape, dtype=data.dtype, device=device)], axis=axis)
        return data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (original,) = ctx.saved_tensors
        return FFTResize.apply(g, original), None


def _mirror_weights(half: Tensor, axis: int, n: int) -> Tensor:
    """1 for the frequencies 0 and (for an even n) n/2, 2 for 1 .. n - (n//2 + 1): a real constant
    shaped to broadcast along `axis` of `half` (the n//2 + 1 frequencies of a length-n signal)."""
    backend = half.backend
    xp, dtype = backend.xp, library.real_dtype(backend, half.dtype)
    m = n // 2 + 1
    k = xp.arange(m, dtype=dtype, device=half._device)
    weights = xp.astype((k >= 1.0) & (k <= float(n - m)), dtype) + 1.0
    return _const(half, xp.reshape(weights, tuple(m if i == axis else 1 for i in range(half.ndim))))


# ------------------------------------------------------------------ arguments
def _tensor(fn: str, x: Any, arg: str) -> Tensor:
    if not getattr(x, "_is_tensor", False):
        raise TypeError(f"{fn}: {arg} must be a Tensor, not {type(x).__name__}")
    return x  # type: ignore[no-any-return]


def _norm(fn: str, norm: Any) -> str:
    if norm is None:
        return "backward"
    if not isinstance(norm, str) or norm not in NORMS:
        raise ValueError(f"{fn}: norm must be 'backward', 'ortho' or 'forward' (or None), not {norm!r}")
    return norm


def _floating(fn: str, x: Tensor, arg: str, real: bool = False) -> None:
    """A TypeError naming `fn` unless `x` is floating (real floating when `real`)."""
    backend = x.backend
    if not backend.is_floating(x.dtype):
        raise TypeError(f"{fn}: {arg} must have a floating-point dtype (real or complex), not {x.dtype}; "
                        "cast it first (.astype(float64))")
    if real and backend.is_complex(x.dtype):
        raise TypeError(f"{fn}: {arg} must have a real floating-point dtype, not {x.dtype} "
                        f"(the transform of a complex signal is fft/fftn)")


def _axes(fn: str, x: Tensor, axes: Any, arg: str) -> tuple[int, ...]:
    """`axes` (an int or a sequence of ints, in the order given) as non-negative axes of `x`."""
    given = (axes,) if hasattr(axes, "__index__") else tuple(axes)
    out = []
    for a in given:
        try:
            a = operator.index(a)
        except TypeError:
            raise TypeError(f"{fn}: {arg} must be an int or a sequence of ints, not {axes!r}") from None
        if not -x.ndim <= a < x.ndim:
            raise FFTAxisError(f"{fn}: {arg} {a} is out of range for a tensor of {x.ndim} dimension(s)")
        out.append(a % x.ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: {arg} {axes!r} names a dimension twice")
    return tuple(out)


def size_arg(fn: str, n: Any, arg: str) -> int:
    """A number of points `n` (the argument `arg` of `fn`): an int of at least 1, else a TypeError or
    a ValueError naming both."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{fn}: {arg} must be an int (a number of points), not {n!r}") from None
    if n < 1:
        raise ValueError(f"{fn}: {arg} must be at least 1 (a number of points), not {n}")
    return n  # type: ignore[no-any-return]


def _plan(fn: str, x: Tensor, s: Any, axes: Any, names: tuple[str, str], halved: bool = False,
          ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes and the logical sizes along them. Without `axes`: every axis, or the last len(s)
    when `s` is given (PyTorch's reading; NumPy 2 deprecates it, the standard requires axes then).
    A size of -1 (or `s` None) takes the input's, or 2 (m - 1) for the last axis of a `halved`
    input (irfft's m = n//2 + 1 frequencies)."""
    size_name, axes_name = names
    if s is not None:
        s = (s,) if hasattr(s, "__index__") else tuple(s)
    if axes is None:
        resolved = tuple(range(x.ndim)) if s is None else _axes(fn, x, tuple(range(-len(s), 0)), size_name)
    else:
        resolved = _axes(fn, x, axes, axes_name)
    if s is not None and len(s) != len(resolved):
        raise ValueError(f"{fn}: {size_name} {s!r} gives {len(s)} size(s) for {len(resolved)} {axes_name}")
    sizes = []
    for i, axis in enumerate(resolved):
        m = x.shape[axis]
        default = 2 * (m - 1) if halved and i == len(resolved) - 1 else m
        given = None if s is None or s[i] == -1 else s[i]
        if given is None:
            if default < 1:
                what = f"of {m} frequencies, 2 * ({m} - 1)" if halved and i == len(resolved) - 1 else f"size {m}"
                raise ValueError(f"{fn}: the default {size_name} along dimension {axis} ({what}) is not a "
                                 f"valid number of points; give {size_name} (at least 1)")
            sizes.append(default)
        else:
            sizes.append(size_arg(fn, given, size_name))
    return resolved, tuple(sizes)


def _resized(x: Tensor, axes: tuple[int, ...], sizes: tuple[int, ...]) -> Tensor:
    """`x` padded or trimmed to `sizes` along `axes` (itself when it has them already)."""
    change = tuple((a, n) for a, n in zip(axes, sizes) if x.shape[a] != n)
    return FFTResize.apply(x, change) if change else x


def _as_complex(x: Tensor) -> Tensor:
    backend = x.backend
    return x if backend.is_complex(x.dtype) else x.astype(library.complex_dtype(backend, x.dtype))


# ------------------------------------------------------------------ the transforms
def fftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, inverse: bool = False,
         arg: str = "x", names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The n-dimensional DFT (`fn` names it in errors; `arg` and `names` the input, size and axes
    arguments as the caller spells them): `x` padded or trimmed to `s` along `axes`, a real `x`
    made complex, transformed (its inverse when `inverse`) with normalisation `norm`."""
    x = _tensor(fn, x, arg)
    _floating(fn, x, arg)
    norm = _norm(fn, norm)
    axes, sizes = _plan(fn, x, s, axes, names)
    x = _as_complex(_resized(x, axes, sizes))
    if not axes:
        return x.clone()
    return FFT.apply(x, axes, norm, inverse)  # type: ignore[no-any-return]


def ifftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, arg: str = "x",
          names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The n-dimensional inverse DFT (see `fftn`)."""
    return fftn(fn, x, s, axes, norm, inverse=True, arg=arg, names=names)


def rfftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, arg: str = "x",
          names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The n-dimensional DFT of a real `x`, the last of `axes` keeping s[-1]//2 + 1 frequencies."""
    x = _tensor(fn, x, arg)
    _floating(fn, x, arg, real=True)
    norm = _norm(fn, norm)
    axes, sizes = _plan(fn, x, s, axes, names)
    if not axes:
        raise ValueError(f"{fn}: {names[1]} must name at least one dimension (the transform halves the last)")
    return RFFT.apply(_resized(x, axes, sizes), axes, norm)  # type: ignore[no-any-return]


def irfftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, arg: str = "x",
           names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The real inverse of `rfftn`: `s` are the output's sizes (default: the input's, and 2 (m - 1)
    along the last axis of m frequencies); the input is padded or trimmed to s, and s[-1]//2 + 1."""
    x = _tensor(fn, x, arg)
    _floating(fn, x, arg)
    norm = _norm(fn, norm)
    axes, sizes = _plan(fn, x, s, axes, names, halved=True)
    if not axes:
        raise ValueError(f"{fn}: {names[1]} must name at least one dimension (the transform doubles the last)")
    kept = sizes[:-1] + (sizes[-1] // 2 + 1,)
    x = _as_complex(_resized(x, axes, kept))
    return IRFFT.apply(x, axes, norm, sizes)  # type: ignore[no-any-return]


def hfftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, arg: str = "x",
          names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The DFT of a Hermitian-symmetric signal given by its first half along the last of `axes`:
    irfftn of conj(x) with the other normalisation (NumPy's `hfft`, PyTorch's `hfftn`), a real result
    of the sizes `s` (default: the input's, and 2 (m - 1) along the last axis)."""
    x = _tensor(fn, x, arg)
    _floating(fn, x, arg)
    return irfftn(fn, conj(x), s, axes, DUAL[_norm(fn, norm)], arg=arg, names=names)


def ihfftn(fn: str, x: Any, s: Any = None, axes: Any = None, norm: Any = None, *, arg: str = "x",
           names: tuple[str, str] = ("s", "axes")) -> Tensor:
    """The inverse of `hfftn`: conj(rfftn(x)) with the other normalisation, of a real `x`."""
    x = _tensor(fn, x, arg)
    _floating(fn, x, arg, real=True)
    return conj(rfftn(fn, x, s, axes, DUAL[_norm(fn, norm)], arg=arg, names=names))  # type: ignore[no-any-return]


def hfft(fn: str, x: Any, n: Any = None, axis: Any = -1, norm: Any = None, *, arg: str = "x",
         names: tuple[str, str] = ("n", "axis")) -> Tensor:
    """The one-dimensional `hfftn`: n real points (default 2 (m - 1)) along `axis`."""
    return hfftn(fn, x, None if n is None else (n,), (axis,), norm, arg=arg, names=names)


def ihfft(fn: str, x: Any, n: Any = None, axis: Any = -1, norm: Any = None, *, arg: str = "x",
          names: tuple[str, str] = ("n", "axis")) -> Tensor:
    """The one-dimensional `ihfftn`: n//2 + 1 frequencies along `axis`."""
    return ihfftn(fn, x, None if n is None else (n,), (axis,), norm, arg=arg, names=names)


def fftshift(fn: str, x: Any, axes: Any = None, *, inverse: bool = False, arg: str = "x",
             name: str = "axes") -> Tensor:
    """`x` rolled by half of each of `axes` (all when None): the zero frequency to the centre
    (fftshift), or back (`inverse`, ifftshift)."""
    x = _tensor(fn, x, arg)
    resolved = tuple(range(x.ndim)) if axes is None else _axes(fn, x, axes, name)
    return FFTShift.apply(x, resolved, inverse)  # type: ignore[no-any-return]


class FFTMethods:
    """The Tensor methods of this category (`Tensor` inherits them): none, as PyTorch's Tensor
    has none (the transforms are `torchlight.fft` and `torchlight.array_api.fft`)."""

    __slots__ = ()
