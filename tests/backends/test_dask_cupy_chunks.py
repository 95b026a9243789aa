"""Dask arrays of CuPy chunks (docs/distributed.md, "Several GPUs"): a Dask tensor whose chunks live on a
GPU, its gradient computed there and equal to NumPy's. Needs a CUDA device; skipped with the reason
otherwise (never passed)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.backends import cupy as cupy_backend

REASON = cupy_backend.unusable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"Dask arrays of CuPy chunks need a CUDA device: {REASON}")


def test_a_gradient_over_cupy_chunks_is_computed_on_the_gpu_and_is_numpys():
    da = pytest.importorskip("dask.array", reason="needs Dask (pip install 'dask[array]')")
    import cupy

    rng = np.random.default_rng(3)
    a, b, w0 = rng.standard_normal((64, 4)), rng.standard_normal(64), rng.standard_normal(4)
    X = tl.tensor(da.from_array(cupy.asarray(a), chunks=(16, 4), asarray=False))
    y = tl.tensor(da.from_array(cupy.asarray(b), chunks=16, asarray=False))
    w = tl.tensor(da.from_array(cupy.asarray(w0), chunks=4, asarray=False), requires_grad=True)
    assert X.backend.name == "dask" and isinstance(X.data._meta, cupy.ndarray)
    r = X @ w - y
    loss = (r * r).mean() / 2
    loss.backward()
    value, grad = tl.compute(loss, w.grad)
    chunk = value.data.compute(scheduler="sync"), grad.data.compute(scheduler="sync")
    assert all(isinstance(c, cupy.ndarray) for c in chunk)  # computed on the GPU, and kept there
    ra = a @ w0 - b
    np.testing.assert_allclose(float(chunk[0]), ra @ ra / 128, rtol=1e-12)
    np.testing.assert_allclose(cupy.asnumpy(chunk[1]), a.T @ ra / 64, rtol=1e-12)
