"""flip, roll, tile, repeat, split, chunk, // and %: what the conformance database does not pin.

The database checks values and gradients of float inputs on every backend;
these tests pin integer tensors under `//` and `%`, that `//` records a zero
gradient and `%`'s second derivatives stay connected, the shapes of the
pieces and their count, the errors that tell NumPy's meaning from
PyTorch's, and agreement with PyTorch itself where it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def t(backend, values, requires_grad=False, dtype=np.float64):
    return tl.tensor(backend.asarray(np.asarray(values, dtype=dtype)), requires_grad=requires_grad)


# ------------------------------------------------------------------ // and %
def test_integer_floor_division_and_remainder_are_numpys(backend):
    a, b = np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -2, 3])
    x, y = t(backend, a, dtype=np.int64), t(backend, b, dtype=np.int64)
    for got, want in ((x // y, a // b), (x % y, a % b), (x // 2, a // 2), (x % 3, a % 3), (-7 // y, -7 // b),
                      (-7 % y, -7 % b)):
        assert "int" in str(got.dtype)
        np.testing.assert_array_equal(got.numpy(), want)


def test_floor_division_records_a_zero_gradient_as_floor_does(backend):
    a = t(backend, [5.5, -3.2, 7.0], requires_grad=True)
    b = t(backend, [2.0, 2.0, -3.0], requires_grad=True)
    q = a // b
    assert q.requires_grad and q.history is not None
    np.testing.assert_array_equal(q.numpy(), np.floor_divide([5.5, -3.2, 7.0], [2.0, 2.0, -3.0]))
    (q * 3.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(3))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))


def test_remainder_gradient_of_the_divisor_stays_connected(backend):
    values, divisors = np.array([5.5, -3.2, 7.0]), np.array([2.0, 2.0, -3.0])
    a, b = t(backend, values, requires_grad=True), t(backend, divisors, requires_grad=True)
    ga, gb = tl.autograd.grad((a % b).sum(), [a, b], create_graph=True)
    np.testing.assert_array_equal(ga.numpy(), np.ones(3))
    np.testing.assert_array_equal(gb.numpy(), -np.floor_divide(values, divisors))
    assert gb.requires_grad
    second = tl.autograd.grad(gb.sum(), [a, b])  # no allow_unused needed: the graph reaches both
    for g in second:
        np.testing.assert_array_equal(g.numpy(), np.zeros(3))


# ------------------------------------------------------------ split, chunk
def test_split_and_chunk_give_tuples_of_pytorch_sized_pieces(backend):
    x = t(backend, np.arange(10.0).reshape(5, 2))
    cases = ((x.split(2), [2, 2, 1]), (x.split([1, 4]), [1, 4]), (x.chunk(4), [2, 2, 1]), (x.chunk(5), [1] * 5),
             (x.chunk(2, dim=1), [1, 1]), (x.split(1, dim=-1), [1, 1]))
    for pieces, sizes in cases:
        assert isinstance(pieces, tuple) and all(isinstance(p, tl.Tensor) for p in pieces)
        assert [p.shape[0] if p.shape[1] == 2 else p.shape[1] for p in pieces] == sizes
    np.testing.assert_array_equal(tl.cat(x.split([1, 4])).numpy(), x.numpy())


def test_pieces_of_a_split_sum_their_gradients(backend):
    x = t(backend, np.arange(6.0), requires_grad=True)
    first, second, third = x.chunk(3)
    (first * 1.0 + second * 2.0 + third * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat([1.0, 2.0, 3.0], 2))


def test_numpy_meanings_raise_saying_so():
    x = tl.zeros((2, 3))
    with pytest.raises(ValueError, match="PyTorch's repeat is np.tile"):
        x.repeat(2)  # NumPy: each element twice; PyTorch raises too
    with pytest.raises(ValueError, match="sum to 3"):
        x.split([1, 1], dim=1)
    with pytest.raises(ValueError, match="roll: shifts"):
        x.roll((1, 2))


def test_flip_with_no_dims_flips_every_dim_and_an_empty_sequence_none():
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x.flip().numpy(), np.flip(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(x.flip(()).numpy(), x.numpy())
    np.testing.assert_array_equal(x.flip([1]).numpy(), x.flip(1).numpy())


# ------------------------------------------------------ PyTorch agreement
CALLS = (("flip", ((0, 1),)), ("flip", ((1,),)), ("roll", (2,)), ("roll", ((1, -1), (0, 1))), ("roll", (-1, 1)),
         ("repeat", (2, 1, 3)), ("tile", ((2,),)), ("split", (1,)), ("split", ([2, 1], 1)), ("chunk", (2, 1)),
         ("__floordiv__", (0.7,)), ("__mod__", (0.7,)), ("__rmod__", (2.5,)))


@pytest.mark.parametrize(("method", "args"), CALLS, ids=[f"{m}{a}" for m, a in CALLS])
def test_values_and_gradients_match_pytorch(method, args):
    torch = pytest.importorskip("torch")
    values = np.array([[-2.05, -1.1, 0.3], [1.2, 0.45, 2.15]])  # no element, nor 2.5 / it, a multiple of 0.7
    ours = tl.tensor(values.copy(), requires_grad=True)
    theirs = torch.tensor(values.copy(), requires_grad=True)
    out_ours, out_theirs = getattr(ours, method)(*args), getattr(theirs, method)(*args)
    if method == "__rmod__":  # torch's number % x raises at backward: its tensor % x gives the same gradient
        out_theirs = torch.full_like(theirs, args[0]) % theirs
    if isinstance(out_theirs, tuple):
        assert isinstance(out_ours, tuple) and len(out_ours) == len(out_theirs)
        out_ours = tl.cat([p.reshape(-1) * float(i + 1) for i, p in enumerate(out_ours)])
        out_theirs = torch.cat([p.reshape(-1) * float(i + 1) for i, p in enumerate(out_theirs)])
    np.testing.assert_allclose(out_ours.numpy(), out_theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    weights = np.arange(1.0, 1.0 + out_ours.size).reshape(out_ours.shape)
    (out_ours * weights).sum().backward()
    if method == "__floordiv__":  # torch's // raises at backward; torchlight's is 0, as floor
        np.testing.assert_array_equal(ours.grad.numpy(), np.zeros_like(values))
        return
    (out_theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)
