"""sort, argsort, searchsorted and nonzero where the conformance table cannot say it: sort's named
tuple, the gradient of the values going back to where they came from (to second order), the integer
dtypes, nonzero's forms and its refusal on a lazy backend."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradgradcheck


def test_sort_returns_a_named_tuple_whose_values_differentiate(backend, device):
    x = tl.tensor([[3.0, 1.0, 2.0]], backend=backend, device=device, requires_grad=True)
    out = x.sort(dim=1)
    values, indices = out
    assert out.values is values and out.indices is indices and not indices.requires_grad
    assert indices.dtype == backend.xp.argsort(x.data).dtype
    (values * tl.tensor([[1.0, 2.0, 3.0]], backend=backend, device=device)).sum().backward()
    assert x.grad.tolist() == [[3.0, 1.0, 2.0]]
    assert gradgradcheck(lambda t: tl.sort(t, descending=True).values ** 3,
                         tl.tensor(np.array([0.3, -1.2, 2.0]), requires_grad=True))


def test_searchsorted_dtype_and_errors(backend, device):
    seq = tl.tensor([1.0, 2.0, 3.0], backend=backend, device=device)
    out = tl.searchsorted(seq, tl.tensor([2.0], backend=backend, device=device))
    assert out.dtype == backend.default_int(seq._device) and out.tolist() == [1]
    ints = tl.tensor([1, 2, 3], backend=backend, device=device)
    assert tl.searchsorted(ints, 2.5).item() == 2  # integers beside a float compare as floats
    with pytest.raises(ValueError, match="searchsorted: side must be"):
        tl.searchsorted(seq, 1.0, side="middle")
    with pytest.raises(TypeError, match="searchsorted: sorted_sequence must be a Tensor"):
        tl.searchsorted([1.0, 2.0], seq)


def test_nonzero_forms():
    x = tl.tensor([[0.0, 1.0], [2.0, 0.0]], requires_grad=True)
    assert x.nonzero().shape == (2, 2) and not x.nonzero().requires_grad
    rows, cols = tl.nonzero(x, as_tuple=True)
    assert x[rows, cols].tolist() == [1.0, 2.0]  # what x[mask] reads
    assert tl.tensor(0.0).nonzero().shape == (0, 0) and tl.tensor(2.0).nonzero(as_tuple=True)[0].tolist() == [0]


def test_nonzero_refuses_a_lazy_backend():
    try:
        x = tl.tensor([1.0, 0.0], backend="dask")
    except tl.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    with pytest.raises(ValueError, match="nonzero: the size of the result depends on the values"):
        x.nonzero()
    assert x.sort().values.tolist() == [0.0, 1.0]  # a sort's shape is known: it stays lazy and works
