"""Bad input to the fft functions: the standard's exception, naming the function and the argument as the
face spells it (PyTorch's `input`/`dim`, the standard's `x`/`axis`), raised before anything is computed
or recorded."""

from __future__ import annotations

import pytest

import torchlight as tl
import torchlight.array_api as xp

x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
z = x.astype("complex128")

CASES = [
    (lambda: tl.fft.fft(tl.tensor([1, 2, 3])), TypeError, ["fft", "input", "floating-point", "int64"]),
    (lambda: xp.fft.fftn(xp.asarray([True, False])), TypeError, ["fftn", "x", "floating-point"]),
    (lambda: tl.fft.rfft(z), TypeError, ["rfft", "real floating-point", "complex128"]),
    (lambda: xp.fft.ihfft(z), TypeError, ["ihfft", "x", "real"]),
    (lambda: tl.fft.fft([1.0, 2.0]), TypeError, ["fft", "input must be a Tensor"]),
    (lambda: xp.fft.fft([1.0, 2.0]), TypeError, ["fft", "x must be an array"]),
    (lambda: tl.fft.fft(x, n=0), ValueError, ["fft", "n must be at least 1", "not 0"]),
    (lambda: xp.fft.rfft(x, n=-2), ValueError, ["rfft", "n must be at least 1"]),
    (lambda: tl.fft.fft(x, n=2.5), TypeError, ["fft", "n must be an int"]),
    (lambda: tl.fft.fftn(x, s=(2, 0)), ValueError, ["fftn", "s must be at least 1"]),
    (lambda: tl.fft.irfft(tl.tensor([1.0])), ValueError, ["irfft", "default n", "2 * (1 - 1)"]),
    (lambda: tl.fft.fft(x, dim=2), ValueError, ["fft", "dim 2 is out of range", "2 dimension(s)"]),
    (lambda: tl.fft.fft(x, dim=2), IndexError, ["fft", "dim 2"]),
    (lambda: xp.fft.fft(x, axis=-3), ValueError, ["fft", "axis -3 is out of range"]),
    (lambda: xp.fft.fftn(x, axes=(0, 0)), ValueError, ["fftn", "axes (0, 0) names a dimension twice"]),
    (lambda: xp.fft.fftn(x, s=(2,), axes=(0, 1)), ValueError, ["fftn", "s (2,) gives 1 size(s) for 2 axes"]),
    (lambda: tl.fft.fftshift(x, dim=5), ValueError, ["fftshift", "dim 5"]),
    (lambda: xp.fft.ifftshift(x, axes=(1, -1)), ValueError, ["ifftshift", "twice"]),
    (lambda: tl.fft.fft(x, norm="half"), ValueError, ["fft", "norm must be 'backward', 'ortho' or 'forward'"]),
    (lambda: xp.fft.irfftn(z, norm="Ortho"), ValueError, ["irfftn", "norm", "'Ortho'"]),
    (lambda: tl.fft.rfftn(x, dim=()), ValueError, ["rfftn", "dim must name at least one"]),
    (lambda: tl.fft.fft(tl.tensor(1.0)), ValueError, ["fft", "dim -1 is out of range", "0 dimension(s)"]),
    (lambda: tl.fft.fftfreq(0), ValueError, ["fftfreq", "n must be at least 1"]),
    (lambda: xp.fft.rfftfreq(4, dtype=xp.int32), TypeError, ["rfftfreq", "real floating-point"]),
    (lambda: xp.fft.fftfreq(4, dtype=xp.complex64), TypeError, ["fftfreq", "real floating-point"]),
]


@pytest.mark.parametrize("call,error,words", CASES)
def test_bad_input_raises_naming_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)


def test_a_refused_call_records_nothing():
    leaf = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(ValueError):
        tl.fft.fft(leaf, n=0)
    assert leaf.grad is None and leaf.is_leaf


def test_a_backend_without_an_fft_extension_is_named():
    from torchlight.backends import fft as library

    class NoFFT:
        __name__ = "bare_namespace"

    class Bare:
        name = "bare"
        xp = NoFFT()

    with pytest.raises(tl.BackendError, match="fftn: backend 'bare' has no fft extension"):
        library.c2c(Bare(), None, (0,), "backward", False)
