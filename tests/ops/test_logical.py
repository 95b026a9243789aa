"""The tests of values (torchlight.ops.logical) where the conformance table cannot say it: the result
dtypes (bool; count_nonzero in the default integer), that nothing carries a gradient even from a leaf
that requires grad, PyTorch's reading of numbers as truth values, and the errors."""

from __future__ import annotations

import math

import pytest

import torchlight as tl


def test_results_are_constants_of_the_standard_dtypes(backend, device):
    x = tl.tensor([[0.0, math.nan], [2.0, -math.inf]], backend=backend, device=device, requires_grad=True)
    xp = backend.xp
    for out in (x.isnan(), x.isinf(), x.isfinite(), x.signbit(), x.logical_not(), x.any(), x.all(1),
                x.isin([2.0]), x.logical_and(x > 1.0)):
        assert xp.isdtype(out.dtype, "bool") and not out.requires_grad and out.history is None
        assert out._device == x._device
    count = x.count_nonzero(dim=0)
    assert count.dtype == backend.default_int(x._device) and count.tolist() == [1, 2]


def test_integer_and_boolean_inputs(backend, device):
    ints = tl.tensor([-2, 0, 3], backend=backend, device=device, dtype="int32")
    assert ints.isnan().tolist() == [False, False, False] and ints.isfinite().tolist() == [True] * 3
    assert ints.signbit().tolist() == [True, False, False]
    assert tl.tensor([True, False], backend=backend, device=device).signbit().tolist() == [False, False]
    assert ints.logical_or(False).tolist() == [True, False, True]
    assert ints.isin([3.5, 3.0]).tolist() == [False, False, True]  # an int beside floats compares as floats


def test_any_all_of_empty_and_tuple_dims(backend, device):
    empty = tl.tensor([[]], backend=backend, device=device)
    assert empty.any().item() is False and empty.all().item() is True and empty.count_nonzero().item() == 0
    x = tl.tensor([[[0.0, 1.0]], [[0.0, 0.0]]], backend=backend, device=device)
    assert x.any(dim=(1, 2)).tolist() == [True, False]
    assert tl.all(x, dim=(0, 1), keepdim=True).shape == (1, 1, 2)


def test_bad_inputs_name_the_op():
    with pytest.raises(ValueError, match="logical_and: shapes"):
        tl.tensor([1.0, 2.0]).logical_and(tl.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(tl.BackendError, match="logical_xor"):
        tl.tensor([1.0]).logical_xor(tl.tensor([1.0], backend="array_api_strict"))
    with pytest.raises(TypeError, match="signbit"):
        tl.tensor([1 + 1j]).signbit()
    with pytest.raises(IndexError, match="out of range"):
        tl.tensor([1.0]).any(dim=1)
    with pytest.raises(TypeError, match="isnan"):
        tl.isnan(object())
