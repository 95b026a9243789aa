"""Cases found by a differential hunt of `x[key]` against NumPy 2.4 (what a
key selects) and PyTorch (gradients; a discovery tool only): each test pins
torchlight's answer against NumPy's `host[key]` and, for the gradient,
`np.add.at` (repeated indices add up), or against central differences.

Covered: NumPy integer scalars in a key, second derivatives through a gather.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradgradcheck


def leaf(values, backend, device):
    return tl.tensor(values, backend=backend, device=device, requires_grad=True)


def check_as_numpy(host, key, backend, device):
    """x[key] and its gradient (distinct weights) equal NumPy's host[key] and np.add.at."""
    x = leaf(host, backend, device)
    out = x[key]
    expected = np.asarray(host[key])
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.shape == expected.shape
    weights = np.arange(1.0, expected.size + 1).reshape(expected.shape)
    (out * tl.tensor(weights, backend=backend, device=device)).sum().backward()
    grad = np.zeros_like(host)
    np.add.at(grad, key, weights)
    np.testing.assert_array_equal(x.grad.numpy(), grad)


CUBE = np.arange(1.0, 25.0).reshape(2, 3, 4)


# ---------------------------------------------------- NumPy integer scalars
@pytest.mark.parametrize("key", [np.int64(1), np.uint8(1), np.int32(-1), (np.int64(0), np.int8(2)),
                                 (np.intp(1), slice(None), np.uint16(3)), (Ellipsis, np.int16(-2)),
                                 (np.int64(1), np.array([0, 2, 0]))])
def test_a_numpy_integer_scalar_indexes_as_the_int_it_holds(key, backend, device):
    # index_key made np.int64(0) a 0-d index array: array_api_strict refused two of them
    # ("the multi-axes index only specifies 2 dimensions"), and torch read a 0-d uint8 as a mask
    # (x[np.uint8(1)] gave shape (1, 2, 3, 4))
    check_as_numpy(CUBE, key, backend, device)


# ------------------------------------------------------ second derivatives
@pytest.mark.parametrize("key", [(np.array([0, 2, 0]), slice(None, None, -1)), (slice(None), [1, 1, -1]),
                                 (Ellipsis, None, 1), np.array([[True, False, True, True], [False] * 4,
                                                                [True, False, False, True]])])
def test_a_gather_with_repeats_or_a_mask_is_twice_differentiable(key, backend, device):
    if backend.name == "dask" and isinstance(key, np.ndarray):
        pytest.skip("a lazy mask selects an unknown count on Dask (tests/test_ops.py)")
    x = leaf(np.linspace(-1.0, 1.0, 12).reshape(3, 4), backend, device)
    key = tuple(tl.tensor(k, backend=backend, device=device) if isinstance(k, np.ndarray) else k
                for k in (key if isinstance(key, tuple) else (key,)))
    assert gradgradcheck(lambda t: t[key] ** 3, x)  # the Hessian goes back through GatherBack's Gather


# ------------------------------------------------- integer index dtypes
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32])
@pytest.mark.parametrize("tensor_key", [False, True])
def test_an_index_array_of_any_integer_dtype_indexes_as_numpy(dtype, tensor_key, backend, device):
    # torch read a uint8 index array as a mask (x[:, [1, 0, 1]] of a (2, 3, 4) tensor gave its
    # columns 0 and 2, shape (2, 2, 4), with a deprecation warning) and refused int8, int16, uint16, uint32
    index = np.array([1, 0, 1], dtype=dtype)
    key = tl.tensor(index, backend=backend, device=device) if tensor_key else index
    x = leaf(CUBE, backend, device)
    out = x[:, key]
    np.testing.assert_array_equal(out.numpy(), CUBE[:, index])
    out.sum().backward()
    grad = np.zeros_like(CUBE)
    np.add.at(grad, (slice(None), index), 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), grad)
