"""The fft functions on Dask stay lazy, forward and backward (nothing is computed until asked), with
inputs chunked along the transformed axes (dask.array.fft needs one chunk there: they are rechunked),
and give NumPy's values and gradients when computed."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl

da = pytest.importorskip("dask.array", reason="Dask is not installed")
dask = pytest.importorskip("dask")


def _refuse(*args, **kwargs):
    raise AssertionError("a Dask graph was computed")


def test_forward_and_backward_build_graphs_only_and_match_numpy():
    data = np.random.default_rng(0).standard_normal((4, 6))
    leaf = tl.tensor(da.from_array(data, chunks=(2, 3)), requires_grad=True)
    with dask.config.set(scheduler=_refuse):
        y = tl.fft.rfft2(leaf, s=(5, 8), norm="ortho")
        z = tl.fft.irfftn(y * y, s=(5, 8))
        w = tl.fft.fftshift(tl.fft.ifft(z, n=4, dim=0))
        loss = (w.real ** 2).sum() + tl.fft.hfft(y, dim=0).sum()
        loss.backward()
    assert isinstance(leaf.grad.data, da.Array)

    ref = tl.tensor(data, requires_grad=True)
    y = tl.fft.rfft2(ref, s=(5, 8), norm="ortho")
    z = tl.fft.irfftn(y * y, s=(5, 8))
    w = tl.fft.fftshift(tl.fft.ifft(z, n=4, dim=0))
    ((w.real ** 2).sum() + tl.fft.hfft(y, dim=0).sum()).backward()
    assert np.allclose(loss.numpy(), ((w.real ** 2).sum() + tl.fft.hfft(y, dim=0).sum()).numpy())
    assert np.allclose(leaf.grad.numpy(), ref.grad.numpy())


def test_fftfreq_on_dask_is_lazy_too():
    like = tl.tensor(da.zeros(3, chunks=1))
    with dask.config.set(scheduler=_refuse):
        f = tl.fft.fftfreq(5, d=0.1, device=like.device)
    assert isinstance(f.data, da.Array)
    assert np.allclose(f.numpy(), np.fft.fftfreq(5, 0.1))
