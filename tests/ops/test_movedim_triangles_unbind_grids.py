"""movedim, tril/triu, unbind, broadcast_tensors and meshgrid where the conformance table cannot say it:
the tuples they return (each piece with its own gradient), PyTorch's defaults (meshgrid "ij"), the
list form of the arguments, and integer tensors kept in their dtype."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def test_unbind_pieces_carry_their_own_gradients():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    first, second = x.unbind(0)
    (first * 2.0 + second * 3.0).sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [3.0, 3.0]]
    assert tl.unbind(tl.zeros(0, 2)) == ()


def test_meshgrid_defaults_to_ij_and_takes_a_list():
    a, b = tl.tensor([1.0, 2.0, 3.0], requires_grad=True), tl.tensor([4.0, 5.0])
    x, y = tl.meshgrid([a, b])
    assert x.shape == (3, 2) and y.tolist() == [[4.0, 5.0]] * 3
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="meshgrid: the tensors must have one dtype"):
        tl.meshgrid(a, tl.tensor([1, 2]))


def test_broadcast_tensors_returns_a_tuple_and_keeps_dtypes(backend, device):
    ints = tl.tensor([[1], [2]], backend=backend, device=device, dtype="int32")
    floats = tl.tensor([0.5, 1.5, 2.5], backend=backend, device=device)
    out = tl.broadcast_tensors(ints, floats)
    assert isinstance(out, tuple) and [t.shape for t in out] == [(2, 3), (2, 3)]
    assert out[0].dtype == ints.dtype and out[0]._device == ints._device
    assert tl.broadcast_tensors() == ()


def test_triangles_of_integers_and_movedim_errors(backend, device):
    m = tl.tensor(np.arange(9).reshape(3, 3), backend=backend, device=device)
    assert m.tril().dtype == m.dtype and m.triu(1).tolist() == [[0, 1, 2], [0, 0, 5], [0, 0, 0]]
    with pytest.raises(TypeError, match="tril: diagonal must be an int"):
        m.tril(1.5)
    with pytest.raises(IndexError, match="movedim: destination dim 3 is out of range"):
        m.movedim(0, 3)
