"""Cases found by a differential hunt of `x[key]` against NumPy 2.4 (what a
key selects) and PyTorch (gradients; a discovery tool only): each test pins
torchlight's answer against NumPy's `host[key]` and, for the gradient,
`np.add.at` (repeated indices add up), or against central differences.

Covered: NumPy integer scalars in a key, second derivatives through a gather,
index arrays of every integer dtype (torch), keys NumPy refuses (floats,
strings: an IndexError naming the key on every backend), index arrays with
entries out of range (Dask took them silently), two Ellipses (torch took
them), Python bools (Dask read True as the index 1), and the keys
array_api_strict and Dask refuse (docs/decisions.md).
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
        pytest.skip("a lazy mask selects an unknown count on Dask (tests/ops/test_ops.py)")
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


# ------------------------------------------------- keys NumPy refuses
@pytest.mark.parametrize("key", [1.0, (0, 1.5), np.array([0.0, 1.0]), [1.0], (slice(None), np.array([0.5])), "a",
                                 (Ellipsis, np.array([1j]))])
@pytest.mark.parametrize("shape", [(3, 4), (0, 3), (2, 0, 3)])
def test_a_key_numpy_refuses_raises_an_index_error_that_names_it(key, shape, backend, device):
    # the rewrite for libraries that refuse a key let the failure of its own xp.take out: a
    # TypeError ("Cannot cast array data from dtype('float64')") on NumPy, a RuntimeError from
    # torch's index_select, a ValueError on JAX, an AttributeError on Dask, none naming the key;
    # Dask read x[1.0] as x[1] and indexed with float arrays, silently
    host = np.zeros(shape)
    with pytest.raises(IndexError):
        host[key]
    x = leaf(host, backend, device)
    with pytest.raises(IndexError, match="Gather: index|out of bounds"):  # (x[0, 1.5] of a (0, 3) tensor)
        x[key]


# ------------------------------------------------------ out-of-range arrays
@pytest.mark.parametrize("key", [(slice(None), [0, 3]), np.array([2, 0]), (np.array([-3, 1]), slice(None, None, -1)),
                                 (0, slice(None), np.array([[4]])), (Ellipsis, [1, -5])])
def test_an_index_array_out_of_range_raises_as_numpy(key, backend, device):
    # Dask took a lazy index array's out-of-range entries silently (x[:, [0, 3]] of 3 columns
    # gave column 0 twice); the error comes when the result is computed, as Dask's own errors do
    host = CUBE
    with pytest.raises(IndexError):
        host[key]
    x = leaf(host, backend, device)
    with pytest.raises(IndexError, match="out of .*bounds|out of range"):  # (torch: "out of DATA bounds")
        x[key].numpy()


@pytest.mark.parametrize("key", [(Ellipsis, Ellipsis), (0, Ellipsis, Ellipsis), (Ellipsis, None, Ellipsis)])
def test_two_ellipses_raise_as_numpy(key, backend, device):
    # torch took x[..., ...] (as x[...]) where NumPy raises
    with pytest.raises(IndexError, match="single ellipsis"):
        CUBE[key]
    with pytest.raises(IndexError, match=r"more than one Ellipsis"):
        leaf(CUBE, backend, device)[key]


# -------------------------------------- keys a library takes or refuses
@pytest.mark.parametrize("key", [(np.array([0, 1, 1]), np.array([2, 0, 2])), (np.array([[1], [0]]), 0, [0, 3]),
                                 (slice(None), np.array([True, False, True])), (np.array(False), 0),
                                 (np.array([1, 0]), slice(None), np.array([[3], [1]]))])
def test_several_index_arrays_or_a_mask_beside_others_are_numpys_answer_or_refused(key, backend, device):
    # docs/decisions.md: NumPy, torch and JAX take these; array_api_strict and Dask refuse them
    # with an IndexError naming the key, never with another answer
    try:
        check_as_numpy(CUBE, key, backend, device)
    except IndexError as exc:
        assert backend.name in ("array_api_strict", "dask") and str(exc).startswith("Gather: ")


@pytest.mark.parametrize("key", [True, False, (0, True), (Ellipsis, False, 1)])
def test_a_python_bool_in_a_key_is_a_new_axis_or_refused(key, backend, device):
    # NumPy reads True as a new axis of length 1 (False: of length 0); Dask read it as the index 1
    # (x[True] of a (3, 4) tensor gave row 1); array_api_strict refuses it
    try:
        check_as_numpy(CUBE[0], key, backend, device)
    except IndexError as exc:
        assert backend.name in ("array_api_strict", "dask") and str(exc).startswith("Gather: ")
