"""The set functions (torchlight.ops.sets) where the conformance table cannot say it: the standard's
named tuples, each NaN distinct, the gradient of a repeated value reaching every occurrence (and the
scatter-add of its double backward), PyTorch's tuple order for tl.unique, and the refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradgradcheck
from torchlight.ops.sets import unique_all, unique_counts, unique_inverse, unique_values


def test_named_tuples_and_nans(backend, device):
    x = tl.tensor([[2.0, math.nan], [2.0, math.nan]], backend=backend, device=device)
    out = unique_all(x)
    assert out._fields == ("values", "indices", "inverse_indices", "counts")
    assert np.array_equal(out.values.numpy(), [2.0, math.nan, math.nan], equal_nan=True)
    assert out.counts.tolist() == [2, 1, 1] and out.inverse_indices.shape == (2, 2)
    assert out.counts.dtype == backend.default_int(x._device) and not out.indices.requires_grad
    assert unique_counts(x)._fields == ("values", "counts")
    assert unique_inverse(x)._fields == ("values", "inverse_indices")


def test_every_occurrence_gets_its_values_gradient():
    x = tl.tensor([1.0, 3.0, 1.0, 1.0], requires_grad=True)
    (unique_values(x) * tl.tensor([2.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 5.0, 2.0, 2.0]
    assert gradgradcheck(lambda t: unique_values(t) ** 3, tl.tensor([0.5, -1.0, 2.0], requires_grad=True))


def test_torch_unique_order_and_refusals():
    values, inverse, counts = tl.tensor([3, 1, 3]).unique(return_inverse=True, return_counts=True)
    assert (values.tolist(), inverse.tolist(), counts.tolist()) == ([1, 3], [1, 0, 1], [1, 2])
    values, counts = tl.unique(tl.tensor([3, 1, 3]), return_counts=True)
    assert counts.tolist() == [1, 2]
    with pytest.raises(ValueError, match="unique: dim=1 is not supported"):
        tl.unique(tl.ones(2, 2), dim=1)
    with pytest.raises(TypeError, match="unique_values: expects a Tensor"):
        unique_values([1.0])
    try:
        lazy = tl.tensor([1.0, 1.0], backend="dask")
    except tl.BackendUnavailableError:
        return
    with pytest.raises(ValueError, match="unique_counts: the size of the result depends on the values"):
        unique_counts(lazy)
