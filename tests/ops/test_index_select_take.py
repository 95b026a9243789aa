"""index_select, take and take_along_dim where the conformance table cannot say it: repeated indices
accumulate their gradients, also under create_graph; an out-of-range index raises on every backend
(JAX would clamp it; on Dask the check runs when the value is computed, not at the call)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradgradcheck


def test_duplicate_indices_accumulate(backend, device):
    x = tl.tensor([1.0, 2.0, 3.0], backend=backend, device=device, requires_grad=True)
    index = tl.tensor(np.array([2, 2, 0, 2]), backend=backend, device=device)
    (x.index_select(0, index) * x.take(index)).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 18.0]  # the gradient of 3 x2**2 + x0**2


def test_second_order_through_take_along_dim():
    x = tl.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    idx = np.array([[0, 0], [3, 1], [2, 2]])
    assert gradgradcheck(lambda t: t.take_along_dim(tl.tensor(idx), 1) ** 3, x)


@pytest.mark.parametrize("name", ["numpy", "jax", "dask"])
def test_out_of_range_raises(name):
    try:
        x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], backend=name)
    except tl.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    bad = tl.tensor(np.array([2]), backend=name)
    out = None
    with pytest.raises(IndexError, match="index_select: an index is out of range for a dimension of size 2"):
        out = x.index_select(0, bad)
        out.tolist()  # a lazy backend raises here, when computed
    if name == "dask":
        assert out is not None  # the call itself computed nothing
