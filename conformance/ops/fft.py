"""The fft entries (torchlight/ops/fft.py): the transforms of `torchlight.fft` and `torchlight.array_api.fft`
against `numpy.fft` in float64/complex128, backward by central differences, double backward.

A complex result of a real input (fft of a float tensor, rfft, ihfft) is
compared as its real and imaginary parts stacked on a last axis, so the
harness's real checks see a real function of real inputs; the entries
marked `complex=True` run their first cases again with complex inputs,
whose gradients are checked in PyTorch's convention. `fftfreq`/`rfftfreq`
make constants (no gradient): their value, dtype and device are checked.

Example:
    >>> from conformance.ops.fft import OPS
    >>> [op.name for op in OPS][:4]
    ['tl.fft.fft', 'tl.fft.ifft', 'tl.fft.fft2', 'tl.fft.ifft2']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
import torchlight.array_api as xp
from conformance.opinfo import Case, OpInfo

NORMS = (Case("ortho", ((3, 5),), kwargs={"norm": "ortho"}), Case("forward", ((3, 5),), kwargs={"norm": "forward"}))


def _bad(fn: str, size: str, dim: str) -> tuple[Case, ...]:
    """The bad arguments every one-dimensional transform refuses with a ValueError naming them."""
    return (
        Case("bad_n", ((4,),), kwargs={size: 0}, raises=ValueError, match=f"{fn}: {size} must be at least 1"),
        Case("bad_dim", ((4,),), kwargs={dim: 1}, raises=ValueError, match=f"{fn}: {dim} 1 is out of range"),
        Case("bad_norm", ((4,),), kwargs={"norm": "half"}, raises=ValueError, match=f"{fn}: norm must be"),
    )


def _pair(y: Any, x: Any) -> Any:
    """A complex result of a real input as its real and imaginary parts on a last axis (else itself)."""
    if y.backend.is_complex(y.dtype) and not x.backend.is_complex(x.dtype):
        return tl.stack([y.real, y.imag], dim=-1)
    return y


def _np_pair(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(y) and not np.iscomplexobj(x):
        return np.stack([y.real, y.imag], axis=-1)
    return y


def transform(name: str, np_fn: Any, function: tuple[str, ...], cases: tuple[Case, ...], *, face: str = "tl",
              complex: bool = False, many: bool = False) -> OpInfo:
    """The entry of `tl.fft.<name>` (torch's `dim`) or `xp.fft.<name>` (the standard's `axis`/`axes`),
    against `np_fn` (`numpy.fft`, which spells them `axis`/`axes`)."""
    fn = getattr(tl.fft if face == "tl" else xp.fft, name)

    def call(x: Any, **kwargs: Any) -> Any:
        return _pair(fn(x, **kwargs), x)

    def reference(x: np.ndarray, **kwargs: Any) -> np.ndarray:
        if "dim" in kwargs:
            kwargs["axes" if many else "axis"] = kwargs.pop("dim")
        return _np_pair(np_fn(x, **kwargs), x)

    return OpInfo(f"{face}.fft.{name}", call, reference, cases, function=function, complex=complex)


def frequencies(name: str, np_fn: Any, cases: tuple[Case, ...]) -> OpInfo:
    """`tl.fft.fftfreq(n, d)` made beside the case's input (its n, dtype and device)."""
    fn = getattr(tl.fft, name)

    def call(x: Any, d: float = 1.0) -> Any:
        return fn(x.shape[0], d, dtype=x.dtype, device=x.device)

    def reference(x: np.ndarray, d: float = 1.0) -> np.ndarray:
        return np_fn(x.shape[0], d)

    return OpInfo(f"tl.fft.{name}", call, reference, cases, differentiable=False)


ONE = (
    Case("1d", ((5,),)),
    Case("pad", ((3, 5),), kwargs={"n": 8}, note="zero-padded to n"),
    Case("trim", ((3, 5),), kwargs={"n": 3}, note="trimmed to n"),
    Case("dim0", ((4, 3),), kwargs={"dim": 0}),
    Case("batched", ((2, 3, 4),), kwargs={"dim": 1}),
    *NORMS,
)

MANY = (
    Case("all", ((3, 4),)),
    Case("s_dims", ((3, 5),), kwargs={"s": (4, 6), "dim": (1, 0)}, note="padded and trimmed, axes out of order"),
    Case("some_dims", ((2, 3, 4),), kwargs={"dim": (0, 2)}),
    Case("ortho", ((3, 4),), kwargs={"norm": "ortho"}),
    Case("forward", ((2, 3),), kwargs={"s": (3, 2), "dim": (0, 1), "norm": "forward"}),
)

HALF = (  # irfft's and hfft's inputs: m frequencies of a real signal of n points
    Case("1d", ((5,),), note="n = 2 (m - 1) = 8"),
    Case("odd_n", ((3, 5),), kwargs={"n": 9}),
    Case("trim", ((3, 5),), kwargs={"n": 4}, note="the input trimmed to n//2 + 1 = 3"),
    Case("pad", ((3, 4),), kwargs={"n": 10}, note="the input padded to n//2 + 1 = 6"),
    Case("dim0", ((4, 3),), kwargs={"dim": 0}),
    *NORMS,
)

SHIFT = (
    Case("1d_odd", ((5,),)),
    Case("2d", ((4, 5),)),
    Case("dim", ((3, 4),), kwargs={"dim": 0}),
    Case("dims", ((2, 3, 4),), kwargs={"dim": (0, 2)}),
)

OPS: list[OpInfo] = [
    transform("fft", np.fft.fft, ("FFT", "FFTResize"), (*ONE, *_bad("fft", "n", "dim")), complex=True),
    transform("ifft", np.fft.ifft, ("FFT", "FFTResize"), (*ONE, *_bad("ifft", "n", "dim")), complex=True),
    transform("fft2", np.fft.fft2, ("FFT", "FFTResize"), (Case("2d", ((3, 4),)), Case("s", ((2, 3, 4),),
              kwargs={"s": (4, 2)})), complex=True, many=True),
    transform("ifft2", np.fft.ifft2, ("FFT",), (Case("2d", ((3, 4),)),), complex=True, many=True),
    transform("fftn", np.fft.fftn, ("FFT", "FFTResize"), MANY, complex=True, many=True),
    transform("ifftn", np.fft.ifftn, ("FFT", "FFTResize"), MANY, complex=True, many=True),
    transform("rfft", np.fft.rfft, ("RFFT", "FFTResize"), (
        Case("even", ((6,),)),
        Case("odd", ((5,),)),
        *ONE[1:],
        *_bad("rfft", "n", "dim"),
    )),
    transform("irfft", np.fft.irfft, ("IRFFT", "FFTResize"), (*HALF, *_bad("irfft", "n", "dim")), complex=True),
    transform("rfft2", np.fft.rfft2, ("RFFT",), (Case("2d", ((3, 4),)),), many=True),
    transform("irfft2", np.fft.irfft2, ("IRFFT",), (Case("2d", ((3, 4),)),), complex=True, many=True),
    transform("rfftn", np.fft.rfftn, ("RFFT", "FFTResize"), MANY, many=True),
    transform("irfftn", np.fft.irfftn, ("IRFFT", "FFTResize"), MANY, complex=True, many=True),
    transform("hfft", np.fft.hfft, ("IRFFT", "FFTResize"), (*HALF, *_bad("hfft", "n", "dim")), complex=True),
    transform("ihfft", np.fft.ihfft, ("RFFT", "FFTResize"), (*ONE, *_bad("ihfft", "n", "dim"))),
    transform("hfftn", lambda x, s=None, axes=None, norm=None: np.fft.irfftn(np.conj(x), s, axes, norm={
        None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}[norm]),
              ("IRFFT", "FFTResize", "Conj"), MANY, complex=True, many=True),
    transform("ihfft2", lambda x, s=None, axes=(-2, -1), norm=None: np.conj(np.fft.rfftn(x, s, axes, norm={
        None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}[norm])),
              ("RFFT", "FFTResize", "Conj"), (Case("2d", ((3, 4),)), Case("s", ((2, 3, 4),), kwargs={"s": (4, 5)})),
              many=True),
    transform("fftshift", np.fft.fftshift, ("FFTShift",), SHIFT, complex=True, many=True),
    transform("ifftshift", np.fft.ifftshift, ("FFTShift",), SHIFT, complex=True, many=True),
    # the standard's spelling: keyword-only n/s, axis/axes
    transform("fft", np.fft.fft, ("FFT", "FFTResize"), (
        Case("axis", ((3, 4),), kwargs={"n": 6, "axis": 0, "norm": "ortho"}),
        Case("bad_axis", ((4,),), kwargs={"axis": -2}, raises=ValueError, match="fft: axis -2 is out of range"),
    ), face="xp", complex=True),
    transform("rfftn", np.fft.rfftn, ("RFFT", "FFTResize"), (
        Case("axes", ((3, 4, 2),), kwargs={"s": (5, 3), "axes": (2, 0)}),
        Case("bad_s", ((3, 4),), kwargs={"s": (3,), "axes": (0, 1)}, raises=ValueError, match="rfftn: s (3,)"),
    ), face="xp"),
    transform("irfftn", np.fft.irfftn, ("IRFFT", "FFTResize"), (
        Case("axes", ((3, 4),), kwargs={"s": (4, 5), "axes": (0, 1), "norm": "forward"}),
    ), face="xp", complex=True),
    transform("hfft", np.fft.hfft, ("IRFFT",), (Case("axis", ((4, 3),), kwargs={"axis": 0}),), face="xp",
              complex=True),
    transform("ifftshift", np.fft.ifftshift, ("FFTShift",), (Case("axes", ((3, 4),), kwargs={"axes": -1}),),
              face="xp"),
    frequencies("fftfreq", np.fft.fftfreq, (Case("even", ((6,),), kwargs={"d": 0.5}), Case("odd", ((5,),)))),
    frequencies("rfftfreq", np.fft.rfftfreq, (Case("even", ((6,),)), Case("odd", ((7,),), kwargs={"d": 2.0}))),
]
