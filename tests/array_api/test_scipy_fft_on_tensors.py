"""scipy.fft on Tensors: with SCIPY_ARRAY_API=1 scipy finds `torchlight.array_api.fft` through the
namespace, so its transforms return Tensors with gradients (scipy's own values on NumPy arrays, and
gradients against central differences)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # (tests/conftest.py sets it before scipy is first imported)
sf = pytest.importorskip("scipy.fft", reason="scipy is in torchlight's test extra")

CALLS = [
    ("fft", lambda m, x: m.fft(x, n=6)),
    ("rfft", lambda m, x: m.rfft(x, norm="ortho")),
    ("irfft", lambda m, x: m.irfft(x, n=7)),
    ("fftn", lambda m, x: m.fftn(x, axes=(0,))),
    ("hfft", lambda m, x: m.hfft(x)),
    ("ihfft", lambda m, x: m.ihfft(x)),
    ("fftshift", lambda m, x: m.fftshift(x)),
]


def _real(y):
    return tl.stack([y.real, y.imag], dim=-1) if y.backend.is_complex(y.dtype) else y


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_scipy_fft_gives_tensors_with_its_own_values_and_gradients(name, call):
    data = np.random.default_rng(0).standard_normal((5,))
    x = tl.tensor(data, requires_grad=True)
    out = call(sf, x)
    if not isinstance(out, tl.Tensor):
        pytest.skip(f"this scipy ({sf.__name__}) does not dispatch {name} to the array's namespace")
    assert np.allclose(out.numpy(), call(sf, data))
    assert gradcheck(lambda t: _real(call(sf, t)), x)
