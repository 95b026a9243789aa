"""reciprocal, positive, nextafter, remainder and floor_divide (PyTorch's names) where the conformance
table cannot say it: an integer's reciprocal is a float, nextafter moves one unit in the last place of
the tensor's own dtype and carries no gradient, remainder's gradient in the divisor is -floor(a / b)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def test_reciprocal_of_integers_is_float(backend, device):
    out = tl.tensor([2, 4], backend=backend, device=device).reciprocal()
    assert backend.xp.isdtype(out.dtype, "real floating") and out.tolist() == [0.5, 0.25]


def test_nextafter_moves_one_ulp_of_its_dtype_and_is_a_constant(backend, device):
    x = tl.tensor(np.array([1.0, -2.0], dtype=np.float32), backend=backend, device=device, requires_grad=True)
    out = x.nextafter(tl.tensor(np.array([2.0, -3.0], dtype=np.float32), backend=backend, device=device))
    assert out.history is None and not out.requires_grad and out.dtype == x.dtype
    np.testing.assert_array_equal(out.numpy(), np.nextafter(np.float32([1.0, -2.0]), np.float32([2.0, -3.0])))
    with pytest.raises(TypeError, match="nextafter"):
        tl.tensor([1, 2]).nextafter(3)


def test_remainder_gradients_and_positive():
    a = tl.tensor([5.5, -5.5], requires_grad=True)
    b = tl.tensor([2.0, 2.0], requires_grad=True)
    tl.remainder(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [-2.0, 3.0]
    assert tl.floor_divide(a, 2.0).tolist() == [2.0, -3.0]
    assert a.positive() is a and tl.positive(a) is a
