"""The discrete Fourier transforms on raw arrays: each backend's own fft library, chosen by name.

Three transforms serve every function of the fft extension (the ops in
`torchlight.ops.fft` pad or trim their input first, so none of these is
given a size): `c2c` (complex to complex, forward or inverse, over several
axes), `r2c` (real to complex, the last axis halved to n//2 + 1) and `c2r`
(its inverse, told the size of the last axis). `frequencies` makes
`fftfreq`/`rfftfreq` in standard functions.

- numpy: `numpy.fft` (whose NumPy < 2 computes complex128 for complex64
  input: the result is cast back to the input's precision, as the standard
  requires); cupy: `cupy.fft`, imported only when a CuPy array arrives;
- torch: `torch.fft` (`dim=`); jax: `jax.numpy.fft`;
- array_api_strict: its own fft extension (the namespace's `fft`);
- dask: `dask.array.fft`, which transforms only along an axis held in one
  chunk: those axes are rechunked (lazily; nothing is computed here);
- any other array-API library: its namespace's `fft` extension, or a
  BackendError naming the function and the backend.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight.backends import fft
    >>> be = tl.backends.get("numpy")
    >>> fft.c2c(be, np.ones(4, dtype=np.complex64), (0,), "backward", False).tolist()
    [(4+0j), 0j, 0j, 0j]
    >>> fft.c2r(be, np.array([4.0 + 0j, 0, 0]), (0,), "backward", (4,)).tolist()
    [1.0, 1.0, 1.0, 1.0]
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from torchlight.backends.base import Backend
from torchlight.backends.errors import BackendError

#: the three normalisation modes of the standard (torch's None is "backward")
NORMS = ("backward", "ortho", "forward")

#: the mode whose scale the adjoint of a transform carries: the adjoint of `fft(norm=m)` is
#: `ifft(norm=DUAL[m])` (the same factor, 1, 1/sqrt(n) or 1/n, on the conjugate kernel)
DUAL = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


#: each built-in backend's own fft module (imported when its first array arrives) and how it names the axes
LIBRARIES = {"numpy": ("numpy.fft", "axes"), "torch": ("torch.fft", "dim"), "jax": ("jax.numpy.fft", "axes"),
             "cupy": ("cupy.fft", "axes"), "dask": ("dask.array.fft", "axes")}


def _module(backend: Backend, fn: str) -> tuple[Any, str]:
    """The fft module of `backend`'s library and how it names the axes ("axes" or "dim")."""
    known = LIBRARIES.get(backend.name)
    if known is not None:
        return importlib.import_module(known[0]), known[1]
    found = getattr(backend.xp, "fft", None)  # array_api_strict's extension, or another library's
    if found is None or not hasattr(found, fn):
        raise BackendError(f"{fn}: backend {backend.name!r} has no fft extension ({backend.xp.__name__}.fft."
                           f"{fn} is missing); move the tensor to a backend that has one (.to('numpy'))")
    return found, "axes"


def _whole_along(backend: Backend, a: Any, axes: Sequence[int]) -> Any:
    """`a` with each of `axes` in one chunk (Dask transforms only such axes, lazily rechunked); the
    arrays of an eager library as they are."""
    chunks = getattr(a, "chunks", None) if backend.lazy else None
    if chunks is None or all(len(chunks[ax]) <= 1 for ax in axes):
        return a
    return a.rechunk({ax: -1 for ax in axes})


def _precision(backend: Backend, out: Any, like: Any, complex_out: bool) -> Any:
    """`out` in the precision of `like` (complex or real as `complex_out` says): NumPy < 2 computes
    complex128 and float64 whatever it is given."""
    want = (complex_dtype if complex_out else real_dtype)(backend, like.dtype)
    return out if out.dtype == want else backend.xp.astype(out, want)


def complex_dtype(backend: Backend, dtype: Any) -> Any:
    """The complex dtype of `dtype`'s precision (complex64 for float32 or complex64, else complex128)."""
    name = backend.numpy_dtype(dtype).name
    return backend.resolve_dtype("complex64" if name in ("float32", "complex64") else "complex128")


def real_dtype(backend: Backend, dtype: Any) -> Any:
    """The real dtype of `dtype`'s precision (float32 for complex64 or float32, else float64)."""
    name = backend.numpy_dtype(dtype).name
    return backend.resolve_dtype("float32" if name in ("float32", "complex64") else "float64")


def c2c(backend: Backend, a: Any, axes: tuple[int, ...], norm: str, inverse: bool) -> Any:
    """The n-dimensional DFT of the complex `a` over `axes` (its inverse when `inverse`), in `a`'s precision."""
    fn = "ifftn" if inverse else "fftn"
    module, axes_name = _module(backend, fn)
    out = getattr(module, fn)(_whole_along(backend, a, axes), **{axes_name: axes}, norm=norm)
    return _precision(backend, out, a, True)


def r2c(backend: Backend, a: Any, axes: tuple[int, ...], norm: str) -> Any:
    """The n-dimensional DFT of the real `a` over `axes`, the last of them keeping its n//2 + 1
    non-negative frequencies."""
    module, axes_name = _module(backend, "rfftn")
    out = module.rfftn(_whole_along(backend, a, axes), **{axes_name: axes}, norm=norm)
    return _precision(backend, out, a, True)


def c2r(backend: Backend, a: Any, axes: tuple[int, ...], norm: str, sizes: tuple[int, ...]) -> Any:
    """The real inverse of `r2c`: `a` holds the n//2 + 1 non-negative frequencies along `axes[-1]`
    and `sizes` are the output's sizes along `axes` (those of `a`, but n for the last)."""
    module, axes_name = _module(backend, "irfftn")
    out = module.irfftn(_whole_along(backend, a, axes), s=sizes, **{axes_name: axes}, norm=norm)
    return _precision(backend, out, a, False)


def frequencies(backend: Backend, n: int, d: float, dtype: Any, device: Any, onesided: bool) -> Any:
    """`fftfreq(n, d)` (`rfftfreq` when `onesided`) in `dtype` on `device`, as NumPy computes it:
    the integer frequencies 0, 1, ..., then -(n//2), ..., -1 (for `fftfreq`), times 1 / (n d)."""
    xp = backend.xp
    scale = 1.0 / (n * d)
    if onesided:
        k = xp.arange(n // 2 + 1, dtype=dtype, device=device)
        return k * scale
    k = xp.arange(n, dtype=dtype, device=device)
    wrapped = xp.astype(k >= (n + 1) // 2, dtype) * float(n)  # the second half counts down from -(n//2)
    return (k - wrapped) * scale
