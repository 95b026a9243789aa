"""The fft extension's transforms: gradcheck and gradgradcheck of each on every backend under test,
real and complex inputs (a complex input as x + 1j y of two real ones, which gradcheck moves), with
sizes that pad and trim; and the values and gradients equal torch.fft's, first and second order.

The real-to-complex and complex-to-real transforms are where a gradient goes wrong quietly: rfft's
dropped half of the spectrum, irfft's doubled bins (0 and, for an even n, n/2 have no mirror), and
the zero-padding or trimming that n does before either. Each case here has an odd and an even n.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck

NORMS = ("backward", "ortho", "forward")

#: (name, f(x) on a real input x, input shape): each transform, sized to pad, trim or keep
REAL_INPUT: list[tuple[str, Callable[[Any, str], Any], tuple[int, ...]]] = [
    ("fft_pad", lambda x, norm: tl.fft.fft(x, n=6, norm=norm), (2, 4)),
    ("ifft_trim", lambda x, norm: tl.fft.ifft(x, n=3, dim=0, norm=norm), (4, 2)),
    ("fftn", lambda x, norm: tl.fft.fftn(x, s=(3, 5), dim=(1, 0), norm=norm), (2, 4)),
    ("rfft_even", lambda x, norm: tl.fft.rfft(x, n=6, norm=norm), (2, 5)),
    ("rfft_odd", lambda x, norm: tl.fft.rfft(x, norm=norm), (2, 5)),
    ("rfftn", lambda x, norm: tl.fft.rfftn(x, s=(3, 4), norm=norm), (2, 3)),
    ("ihfft", lambda x, norm: tl.fft.ihfft(x, n=5, norm=norm), (4,)),
    ("irfft_of_real", lambda x, norm: tl.fft.irfft(x, n=4, norm=norm), (2, 3)),
    ("fftshift", lambda x, norm: tl.fft.fftshift(x), (3, 4)),
]

#: (name, f(z) on a complex input z, input shape)
COMPLEX_INPUT: list[tuple[str, Callable[[Any, str], Any], tuple[int, ...]]] = [
    ("fft", lambda z, norm: tl.fft.fft(z, norm=norm), (2, 3)),
    ("ifftn_pad", lambda z, norm: tl.fft.ifftn(z, s=(3, 4), norm=norm), (2, 3)),
    ("irfft_even", lambda z, norm: tl.fft.irfft(z, norm=norm), (2, 4)),
    ("irfft_odd_trim", lambda z, norm: tl.fft.irfft(z, n=5, norm=norm), (2, 4)),
    ("irfftn", lambda z, norm: tl.fft.irfftn(z, s=(2, 6), norm=norm), (3, 3)),
    ("hfft_odd", lambda z, norm: tl.fft.hfft(z, n=5, dim=0, norm=norm), (3, 2)),
    ("hfft_even", lambda z, norm: tl.fft.hfft(z, norm=norm), (4,)),
    ("ifftshift", lambda z, norm: tl.fft.ifftshift(z, dim=1), (2, 5)),
]


def _real_view(y: Any) -> Any:
    """A complex result as its real and imaginary parts (gradcheck compares real outputs); squared,
    so that the second derivative is not zero."""
    if y.backend.is_complex(y.dtype):
        y = tl.stack([y.real, y.imag], dim=-1)
    return y * y


def _leaf(backend: Any, shape: tuple[int, ...], seed: int) -> Any:
    data = np.random.default_rng(seed).standard_normal(shape)
    return tl.tensor(backend.asarray(data), requires_grad=True)


def _with_norms(cases: list) -> list:
    """Each case with one of the three norms in turn (every norm meets every kind of transform)."""
    return [(name, f, shape, NORMS[i % 3]) for i, (name, f, shape) in enumerate(cases)]


@pytest.mark.parametrize("name,f,shape,norm", _with_norms(REAL_INPUT), ids=[c[0] for c in REAL_INPUT])
def test_gradcheck_and_gradgradcheck_of_real_inputs(backend, name, f, shape, norm):
    x = _leaf(backend, shape, 0)
    assert gradcheck(lambda t: _real_view(f(t, norm)), x)
    assert gradgradcheck(lambda t: _real_view(f(t, norm)), x)


@pytest.mark.parametrize("name,f,shape,norm", _with_norms(COMPLEX_INPUT), ids=[c[0] for c in COMPLEX_INPUT])
def test_gradcheck_and_gradgradcheck_of_complex_inputs(backend, name, f, shape, norm):
    re, im = _leaf(backend, shape, 1), _leaf(backend, shape, 2)
    j = tl.tensor(backend.asarray(1j))

    def fn(a: Any, b: Any) -> Any:
        return _real_view(f(a + b * j, norm))

    assert gradcheck(fn, re, im)
    assert gradgradcheck(fn, re, im)


def test_the_gradient_of_a_real_input_to_a_complex_transform_is_real(backend):
    x = _leaf(backend, (4,), 3)
    y = tl.fft.fft(x)
    (y.real * 2.0 + y.imag).sum().backward()
    assert x.grad.dtype == x.dtype and not backend.is_complex(x.grad.dtype)
    want = 2.0 * np.real(np.fft.ifft(np.ones(4)) * 4) + np.real(np.fft.ifft(-1j * np.ones(4)) * 4)
    assert np.allclose(x.grad.numpy(), want)


def test_float32_stays_float32_and_complex64(backend):
    x = tl.tensor(backend.asarray(np.arange(6.0, dtype=np.float32)))
    assert tl.fft.rfft(x).dtype == backend.resolve_dtype("complex64")
    assert tl.fft.fft(x).dtype == backend.resolve_dtype("complex64")
    assert tl.fft.irfft(tl.fft.rfft(x)).dtype == backend.resolve_dtype("float32")
    assert tl.fft.fftfreq(4, dtype="float32", backend=backend).dtype == backend.resolve_dtype("float32")


def test_round_trips_give_the_signal_back(backend):
    x = tl.tensor(backend.asarray(np.random.default_rng(4).standard_normal((3, 5))))
    for norm in NORMS:
        assert np.allclose(tl.fft.irfft(tl.fft.rfft(x, norm=norm), n=5, norm=norm).numpy(), x.numpy())
        assert np.allclose(tl.fft.ifftn(tl.fft.fftn(x, norm=norm), norm=norm).real.numpy(), x.numpy())
        assert np.allclose(tl.fft.ihfft(tl.fft.hfft(tl.fft.ihfft(x, norm=norm), n=5, norm=norm), norm=norm).numpy(),
                           tl.fft.ihfft(x, norm=norm).numpy())
    assert np.allclose(tl.fft.ifftshift(tl.fft.fftshift(x)).numpy(), x.numpy())
