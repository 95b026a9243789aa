"""Bitwise ops (torchlight.ops.bitwise) where the conformance table cannot say it: the standard's dtype
rules (a Python int keeps the tensor's dtype, booleans stay boolean, shifts refuse booleans), PyTorch's
promotion of a mask beside integers, and the errors that name the op."""

from __future__ import annotations

import pytest

import torchlight as tl


def test_dtypes_follow_the_standard(backend, device):
    xp = backend.xp
    x = tl.tensor([1, 6, -3], backend=backend, device=device, dtype="int32")
    for out in (x & 3, 3 | x, x ^ x, ~x, x << 1, 1 << tl.tensor([0, 1, 2], backend=backend, device=device,
                                                                   dtype="int32"), x >> 1, tl.bitwise_not(x)):
        assert out.dtype == xp.int32 and out.history is None and out._device == x._device
    m = x > 0
    assert (m & True).dtype == xp.bool and (~m).tolist() == [False, False, True]
    assert (m ^ m).tolist() == [False, False, False]
    mixed = tl.bitwise_or(m, x)
    assert mixed.dtype == xp.int32 and mixed.tolist() == [1, 7, -3]
    assert (x >> 1).tolist() == [0, 3, -2]  # arithmetic: the sign stays


def test_float_operands_and_boolean_shifts_are_type_errors():
    x = tl.tensor([1, 2])
    with pytest.raises(TypeError, match="bitwise_and: a float operand"):
        x.bitwise_and(0.5)
    with pytest.raises(TypeError, match="__or__: the inputs must have an integer or boolean dtype, not float64"):
        x | tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="__rlshift__"):
        2.0 << x
    with pytest.raises(TypeError, match="bitwise_left_shift: the inputs must have an integer dtype, not bool"):
        tl.bitwise_left_shift(x > 0, 1)
    with pytest.raises(TypeError, match="__invert__"):
        ~tl.tensor([1.0])
    with pytest.raises(OverflowError):
        tl.tensor([1], dtype="uint8") & 300
    with pytest.raises(ValueError, match="__xor__: shapes"):
        x ^ tl.tensor([1, 2, 3])
