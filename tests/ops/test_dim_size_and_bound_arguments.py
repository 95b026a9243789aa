"""The dim, size and bound arguments of the Tensor methods, as NumPy reads them: one int where an op
works along one dim, no float sizes, no dims as nothing (reductions) or all reversed (transpose),
and number bounds of clamp that promote as the operators do.

Found by a differential hunt against PyTorch (torch 2.13, CPU, float64); expected values are
NumPy's or central differences (gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck


# ------------------------------------------------ ops along one dimension
@pytest.mark.parametrize("op", [lambda x, d: x.softmax(d), lambda x, d: x.log_softmax(d), lambda x, d: x.cumsum(d),
                                lambda x, d: x.transpose(d, 0), lambda x, d: x.flatten(d), lambda x, d: x.split(1, d)])
@pytest.mark.parametrize("dim", [(0, 1), (1,), ()])
def test_an_op_along_one_dim_refuses_a_sequence_of_dims(op, dim):
    # softmax((0, 1)) normalized over dim 0 alone and cumsum(()) copied x, silently (PyTorch: TypeError)
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="one int"):
        op(x, dim)


def test_an_op_along_one_dim_still_takes_numpy_integers_and_0_d_tensors_dim_0_and_minus_1():
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(x.cumsum(np.int64(-1)).numpy(), np.cumsum(x.numpy(), axis=-1))
    s = tl.tensor(2.0)
    assert s.softmax(-1).item() == 1.0 and s.log_softmax(0).item() == 0.0 and s.cumsum(0).item() == 2.0


# ------------------------------------------------ clamp's number bounds promote as the operators do
def test_clamp_of_an_integer_tensor_by_a_float_bound_promotes_as_x_times_a_float_does():
    # it clipped with the bound cast to int32 (2.5 -> 2) and stayed int32; NumPy and PyTorch give floats
    n = np.array([1, 2, 3, 4, 5, 6], dtype=np.int32)
    t = tl.tensor(n)
    for got, want in [(t.clamp(2.5, 4), np.clip(n, 2.5, 4)), (t.clamp(max=3.7), np.clip(n, None, 3.7)),
                      (t.clamp(min=-0.5, max=4), np.clip(n, -0.5, 4)), (t.clamp(2, 4), np.clip(n, 2, 4))]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    mask = np.array([True, False])
    got, want = tl.tensor(mask).clamp(2, 4), np.clip(mask, 2, 4)  # the default integer, as mask + 2
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_reshape_refuses_a_float_size():
    # int() truncated it: reshape(2.9, 12) of 24 elements was (2, 12); NumPy and PyTorch raise TypeError
    x = tl.tensor(np.arange(24.0))
    for shape in [(2.5, -1), (2.9, 12), (2.0, 12)]:
        with pytest.raises(TypeError):
            x.reshape(*shape)
    assert x.reshape(np.int64(2), -1).shape == (2, 12)
    assert x.view((np.int32(4), 6)).shape == (4, 6)


@pytest.mark.parametrize("reduce", [lambda x: x.sum(()), lambda x: x.mean(()), lambda x: x.max(()),
                                    lambda x: x.prod(()), lambda x: x.var((), correction=0)])
def test_reducing_over_no_dims_reduces_nothing_as_numpy(reduce):
    # np.sum(x, axis=()) is x; PyTorch's x.sum(()) sums everything (docs/decisions.md)
    n = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    x = tl.tensor(n, requires_grad=True)
    out = reduce(x)
    assert out.shape == n.shape
    assert gradcheck(reduce, x)


def test_transpose_without_dims_reverses_them_all_as_numpy():
    # it swapped the last two (x.transpose() of a (2, 3, 4) was (2, 4, 3)); NumPy's is (4, 3, 2), PyTorch needs dims
    n = np.arange(24.0).reshape(2, 3, 4)
    x = tl.tensor(n, requires_grad=True)
    np.testing.assert_array_equal(x.transpose().numpy(), n.transpose())
    np.testing.assert_array_equal(x.transpose(0, -1).numpy(), np.swapaxes(n, 0, -1))
    assert gradcheck(lambda t: t.transpose() * t.transpose().exp(), x)
    with pytest.raises(TypeError, match="two dims"):
        x.transpose(1)
