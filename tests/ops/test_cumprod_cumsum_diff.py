"""cumprod, cumsum's dtype and diff where the conformance table cannot say it: cumprod's gradient at
zeros against the closed form (first order by masks, second order by the n x n path), the dtypes of
integer and boolean inputs, and diff of booleans."""

from __future__ import annotations

import numpy as np

import torchlight as tl
from torchlight.autograd import gradgradcheck


def cumprod_grad_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_j w_j d(x_0 ... x_j)/dx_i, the products written out (no division)."""
    n = len(x)
    return np.array([sum(w[j] * np.prod([x[k] for k in range(j + 1) if k != i]) for j in range(i, n))
                     for i in range(n)])


def test_cumprod_gradient_at_zeros(backend, device):
    host = np.array([1.5, 0.0, 2.0, 0.0, -3.0])
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.0])
    x = tl.tensor(host, backend=backend, device=device, requires_grad=True)
    x.cumprod(0).backward(tl.tensor(w, backend=backend, device=device))
    np.testing.assert_allclose(x.grad.numpy(), cumprod_grad_reference(host, w))


def test_cumprod_second_order_at_a_zero():
    x = tl.tensor([[2.0, 0.0, 3.0, -1.0]], requires_grad=True)
    assert gradgradcheck(lambda t: t.cumprod(1), x)


def test_dtypes_of_cumulative_ops(backend, device):
    mask = tl.tensor([True, False, True], backend=backend, device=device)
    assert mask.cumsum(0).tolist() == [1, 1, 2] and mask.cumsum(0).dtype == backend.default_int(mask._device)
    assert mask.diff().tolist() == [True, True] and backend.xp.isdtype(mask.diff().dtype, "bool")
    ints = tl.tensor([1, 2, 3], backend=backend, device=device, dtype="int32")
    assert tl.cumprod(ints, 0, dtype="float64").dtype == backend.resolve_dtype("float64")
    assert ints.diff(prepend=0).tolist() == [1, 1, 1]
