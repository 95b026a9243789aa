"""Cases found by a differential hunt of the Tensor ops against PyTorch (a
discovery tool only): each test pins torchlight's answer against a float64
NumPy reference or a closed form, gradients against central differences.

Covered: Python ints with boolean tensors (NumPy 2's promotion).
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def leaf(values, backend="numpy", device=None):
    return tl.tensor(values, backend=backend, device=device, requires_grad=True)


# ------------------------------------------- Python ints with boolean tensors
MASK = np.array([True, False, True])


@pytest.mark.parametrize("op", [
    lambda m, n: m + n, lambda m, n: n + m, lambda m, n: m * n, lambda m, n: n * m,
    lambda m, n: m < n, lambda m, n: m > n, lambda m, n: m == n, lambda m, n: m != n, lambda m, n: m >= n,
])
@pytest.mark.parametrize("number", [2, -1, 0])
def test_an_int_with_a_boolean_tensor_promotes_as_numpy(op, number):
    # NumPy 2: bool array + Python int is an int64 array; the int is never squeezed into a bool
    got = op(tl.tensor(MASK), number)
    expected = op(MASK, number)
    assert got.numpy().dtype == expected.dtype
    np.testing.assert_array_equal(got.numpy(), expected)


def test_a_bool_with_a_boolean_tensor_stays_boolean():
    got = tl.tensor(MASK) == True  # noqa: E712  (the operator is what is under test)
    assert got.numpy().dtype == np.bool_
    assert got.tolist() == [True, False, True]
