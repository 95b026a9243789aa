"""tensordot and vecdot where the conformance table cannot say it: PyTorch's forms of `dims` (an int,
a pair of ints, a pair of sequences), second order in both inputs, vecdot's `dim` of the broadcast
shape, and their errors."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradgradcheck
from torchlight.ops.linear_algebra import vecdot


def test_dims_forms_agree_with_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    for dims in (([2], [0]), (2, 0), ([1, 2], [1, 0])):
        np.testing.assert_allclose(tl.tensordot(tl.tensor(a), tl.tensor(b), dims).numpy(), np.tensordot(a, b, dims))


def test_second_order_in_both():
    rng = np.random.default_rng(1)
    a = tl.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = tl.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert gradgradcheck(lambda x, y: tl.tensordot(x, y, 1) ** 2, a, b)
    assert gradgradcheck(lambda x, y: vecdot(x, y) ** 2, a, b.T)


def test_errors():
    with pytest.raises(TypeError, match="tensordot: dims must be an int or a pair"):
        tl.tensordot(tl.ones(2), tl.ones(2), dims="x")
    with pytest.raises(ValueError, match="vecdot: shapes"):
        vecdot(tl.ones(2, 3), tl.ones(4, 3))
    with pytest.raises(tl.BackendError, match="tensordot"):
        tl.tensordot(tl.ones(2), tl.tensor([1.0, 2.0], backend="array_api_strict"), 1)
