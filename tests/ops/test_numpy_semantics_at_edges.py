"""Cases found by a differential hunt of the Tensor ops against PyTorch (a
discovery tool only): each test pins torchlight's answer against a float64
NumPy reference or a closed form, gradients against central differences.

Covered: Python ints with boolean tensors (NumPy 2's promotion), max/min of an
empty tensor whose result is not empty, logsumexp and softmax over an empty
axis, softmax of integers, expand's -1 in a new leading dimension, an empty
index list, slice bounds past an axis's ends (array_api_strict refused them), a
dim named twice, an index array with integers apart from it (x[0, :, idx]),
`full`'s dtype from its fill value, NumPy scalars as exponents and dims, the
bitwise operators that combine masks.
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


# ------------------------------------------------------------- max and min
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_of_an_empty_tensor_over_a_nonempty_axis_give_an_empty_result(name, backend, device):
    # as np.max(np.zeros((2, 0)), axis=0); only reducing the empty axis itself has no answer
    x = tl.zeros(2, 0, backend=backend, device=device, requires_grad=True)
    out = getattr(x, "a" + name)(0, keepdim=True)  # (amax/amin: max(0) would also want an argmax)
    assert out.shape == np.max(np.zeros((2, 0)), axis=0, keepdims=True).shape == (1, 0)
    out.sum().backward()
    assert x.grad.shape == (2, 0)
    for dim in (1, None, (0, 1)):
        with pytest.raises(ValueError, match=f"{name}: the tensor of shape \\(2, 0\\) is empty along dim 1"):
            getattr(x, name)(dim)


# ----------------------------------------------- logsumexp and softmax, empty
@pytest.mark.parametrize("shape, dim, out_shape", [((0,), 0, ()), ((2, 0), 1, (2,)), ((2, 0), (0, 1), ()),
                                                   ((0, 3), 0, (3,)), ((0, 3), None, ())])
def test_logsumexp_over_an_empty_axis_is_minus_inf(shape, dim, out_shape, backend, device):
    # log(sum of no exp) = log(0) = -inf, the identity of logaddexp (PyTorch and scipy agree)
    x = tl.zeros(*shape, backend=backend, device=device, requires_grad=True)
    out = x.logsumexp(dim)
    assert out.shape == out_shape
    assert np.all(out.numpy() == -np.inf)
    out.clip(-1.0, 1.0).sum().backward()
    assert x.grad.shape == shape


def test_logsumexp_over_a_nonempty_axis_of_an_empty_tensor_is_empty():
    x = tl.zeros(0, 3, requires_grad=True)
    out = x.logsumexp(1, keepdim=True)
    assert out.shape == (0, 1)
    out.sum().backward()
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((2, 0), 0), ((0, 3), 0), ((0, 3), 1)])
def test_softmax_of_an_empty_tensor_is_empty(name, shape, dim, backend, device):
    x = tl.zeros(*shape, backend=backend, device=device, requires_grad=True)
    out = getattr(x, name)(dim)
    assert out.shape == shape
    out.sum().backward()
    assert x.grad.shape == shape


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_an_integer_tensor_raises_as_logsumexp(name):
    # it used to wrap around in x - max for uint8 (0 - 1 = 255, then NaN) and give float16 for int8
    with pytest.raises(TypeError, match=f"{name}: the input must have a floating-point dtype"):
        getattr(tl.tensor(np.array([1, 0, 1], dtype=np.uint8)), name)(0)


# -------------------------------------------------------------------- expand
@pytest.mark.parametrize("shape", [(-1, 2, 3), (-1, -1, 3), (4, -1, 2, 3), (2, -2), (-2, 2, 3)])
def test_expand_refuses_minus_one_in_a_new_leading_dimension(shape):
    # -1 keeps an existing dimension; (2, 3).expand(-1, 2, 3) used to read the size of
    # another axis by a negative index and silently gave shape (3, 2, 3)
    with pytest.raises(ValueError, match="expand: sizes"):
        tl.zeros(2, 3).expand(*shape)


def test_expand_keeps_an_existing_dimension_for_minus_one(backend, device):
    host = np.arange(3.0).reshape(3, 1)
    x = leaf(host, backend, device)
    out = x.expand(2, -1, 4)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(host, (2, 3, 4)))
    out.sum().backward()
    assert x.grad.tolist() == [[8.0], [8.0], [8.0]]


# ------------------------------------------------------------------ indexing
@pytest.mark.parametrize("key", [[], (slice(None), [])])
def test_an_empty_index_list_selects_nothing(key, backend, device):
    # NumPy reads [] as an empty integer index; it used to become a float64 array and fail
    host = np.arange(12.0).reshape(4, 3)
    x = leaf(host, backend, device)
    out = x[key]
    assert out.shape == host[key].shape
    out.sum().backward()
    assert x.grad.tolist() == np.zeros((4, 3)).tolist()


@pytest.mark.parametrize("key", [slice(10, 20), slice(-10, 2), slice(1, 99), slice(-99, -2), slice(None, -99),
                                 slice(99, None, -1), slice(-99, None, -1), slice(2, -99, -2), slice(None, None, 9),
                                 (slice(None), slice(5, 10)), (0, slice(-10, 10, 2)), (Ellipsis, slice(-5, None))])
def test_slice_bounds_past_the_ends_are_clipped_as_numpy(key, backend, device):
    _check_as_numpy(np.arange(12.0).reshape(4, 3), key, backend, device)


def _check_as_numpy(host, key, backend, device):
    """x[key] and its gradient (for distinct weights) equal NumPy's host[key] and its scatter-add."""
    x = leaf(host, backend, device)
    out = x[key]
    np.testing.assert_array_equal(out.numpy(), host[key])
    weights = np.arange(1.0, host[key].size + 1).reshape(host[key].shape)
    (out * tl.tensor(weights, backend=backend, device=device)).sum().backward()
    expected = np.zeros_like(host)
    np.add.at(expected, key, weights)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


# ------------------------------------------------------------ repeated dims
@pytest.mark.parametrize("op", [lambda x, d: x.sum(d), lambda x, d: x.mean(d), lambda x, d: x.max(d),
                                lambda x, d: x.var(d), lambda x, d: x.logsumexp(d), lambda x, d: x.squeeze(d)])
@pytest.mark.parametrize("dims", [(0, 0), (1, -1), (0, 1, -2)])
def test_a_dim_named_twice_raises_as_numpy(op, dims):
    # np.sum(x, axis=(0, 0)): "duplicate value in 'axis'"; it used to reduce the dim once, silently
    with pytest.raises(ValueError, match="names a dimension twice"):
        op(tl.ones(2, 1, requires_grad=True), dims)


@pytest.mark.parametrize("key", [(0, slice(None), [0, 1]), (0, Ellipsis, [1, 0]), (0, None, [0, 1]),
                                 (slice(1, 3), 0, slice(None), [[1], [0]]), (0, slice(None, None, -1), [2, 0]),
                                 (0, slice(None), [0, 2], 1), (1, slice(None), slice(None), [1]),
                                 ([2], slice(None), 1), (0, 1, [0, 2]), (slice(None), [0, 1], 0, None)])
def test_an_index_array_apart_from_integers_puts_its_dims_first_as_numpy(key, backend, device):
    # NumPy's rule: integers and an index array not next to each other send the array's dims
    # first (x[0, :, [0, 1]] is (2, 5)); the rewrite for array_api_strict (and torch's own
    # indexing) kept them in place, (5, 2), so the shape depended on the backend
    _check_as_numpy(np.arange(120.0).reshape(4, 5, 3, 2), key, backend, device)


# ---------------------------------------------------------------------- full
@pytest.mark.parametrize("value", [7, -1, True, False, 2.5])
def test_full_takes_its_dtype_from_the_fill_value_as_numpy(value, backend, device):
    # np.full((2,), 7) is int64, np.full((2,), True) bool (PyTorch and the standard agree);
    # both used to be the default float
    out = tl.full((2,), value, backend=backend, device=device)
    expected = np.full((2,), value)
    assert str(out.numpy().dtype) == str(expected.dtype)
    assert out.tolist() == expected.tolist()


@pytest.mark.parametrize("value", [np.int64(7), np.int32(-1), np.bool_(True)])
def test_full_of_a_numpy_scalar_takes_its_kind(value, backend, device):
    # an integer or boolean NumPy scalar is an int or a bool, as a Python one (it was the default float)
    kind = "bool" if isinstance(value, np.bool_) else "int64"
    out = tl.full((2,), value, backend=backend, device=device)
    assert str(out.numpy().dtype) == kind and out.tolist() == [value.item()] * 2


def test_full_keeps_an_explicit_dtype_and_floats_default_to_float64():
    assert str(tl.full((2,), 7, dtype="float32").dtype) == "float32"
    assert str(tl.full((2,), 0.5).dtype) == "float64"
    with pytest.raises(TypeError, match="floating-point"):
        tl.full((2,), 1, requires_grad=True)


# ------------------------------------------------------------- NumPy scalars
@pytest.mark.parametrize("exponent", [np.float64(2.0), np.float32(0.5), np.float64(-1.0)])
def test_a_numpy_scalar_exponent_differentiates(exponent, backend, device):
    # np.float64 is a float with a .data attribute: Pow's backward took it for a Tensor
    host = np.array([1.0, 2.0, 3.0])
    x = leaf(host, backend, device)
    out = x ** exponent
    np.testing.assert_allclose(out.numpy(), host ** float(exponent), rtol=1e-15)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), float(exponent) * host ** (float(exponent) - 1.0), rtol=1e-14)


@pytest.mark.parametrize("call", [lambda x, d: x.sum(d), lambda x, d: x.mean([d]), lambda x, d: x.amax(d),
                                  lambda x, d: x.cumsum(d), lambda x, d: x.softmax(d), lambda x, d: x.logsumexp(d)])
def test_a_numpy_integer_dim_is_accepted_as_numpy(call):
    # np.sum(x, axis=np.int64(1)) works, as torch's x.sum(np.int64(1)); it was "not iterable"
    host = np.arange(6.0).reshape(2, 3)
    expected = call(leaf(host), 1)
    x = leaf(host)
    out = call(x, np.int64(1))
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
    out.sum().backward()
    assert x.grad.shape == (2, 3)


# ------------------------------------------------------------------- masks
def test_masks_combine_with_the_bitwise_operators_as_numpy(backend, device):
    host = np.array([-1.0, 0.5, 2.0, 0.0])
    x = leaf(host, backend, device)
    pos, small = x > 0, x < 1
    for got, expected in [(pos & small, (host > 0) & (host < 1)), (pos | small, (host > 0) | (host < 1)),
                          (pos ^ small, (host > 0) ^ (host < 1)), (~pos, ~(host > 0)),
                          (True & pos, True & (host > 0)), (False | pos, False | (host > 0))]:
        assert not got.requires_grad
        np.testing.assert_array_equal(got.numpy(), expected)
    tl.where(pos & small, x * 3.0, x).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 1.0, 1.0]


def test_bitwise_operators_on_integers_and_not_on_floats():
    ints = np.array([6, 3, -2])
    assert (tl.tensor(ints) & 5).tolist() == (ints & 5).tolist()
    assert (~tl.tensor(ints)).tolist() == (~ints).tolist()
    with pytest.raises(TypeError):
        tl.tensor([1.0]) & tl.tensor([1.0])
