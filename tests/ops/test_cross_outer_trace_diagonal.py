"""cross, outer, diagonal, trace, matrix_power and multi_dot beyond the conformance entries: first and
second order on each backend, values and gradients against PyTorch, the faces' defaults (the method's
and tl.diagonal's dims 0 and 1, tl.linalg's last two), multi_dot's order, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.ops.linear_algebra import _chain_order, cross, diagonal, matrix_power, multi_dot, outer, trace


def _t(backend, rng, *shape):
    return tl.tensor(rng.standard_normal(shape), backend=backend.name, requires_grad=True)


@pytest.mark.parametrize("fn,shapes", [
    (lambda x: diagonal(x, 1), [(3, 4)]),
    (lambda x: diagonal(x, -1, 0, 2), [(3, 2, 4)]),
    (lambda x: trace(x, 0), [(2, 3, 3)]),
    (lambda x: matrix_power(x, 3), [(2, 3, 3)]),
    (lambda x: matrix_power(x, 0), [(3, 3)]),
    (cross, [(2, 3), (1, 3)]),
    (outer, [(3,), (2,)]),
    (lambda a, m, b: multi_dot([a, m, b]), [(3,), (3, 2), (2,)]),
], ids=["diagonal", "diagonal_dims", "trace", "matrix_power", "matrix_power_0", "cross", "outer", "multi_dot"])
def test_first_and_second_order(backend, fn, shapes):
    rng = np.random.default_rng(0)
    inputs = [_t(backend, rng, *s) for s in shapes]
    # squared, so that the second derivative of the linear ones is not zero
    assert gradcheck(lambda *xs: fn(*xs) ** 2, *inputs)
    assert gradgradcheck(lambda *xs: fn(*xs) ** 2, *inputs)


def test_values_and_gradients_agree_with_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here")
    rng = np.random.default_rng(1)
    a, b, m = rng.standard_normal((2, 4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((3, 3)) * 0.5
    cases = [
        (lambda x, y: cross(x, y), lambda x, y: torch.linalg.cross(x, y.expand(2, 4, 3)), (a, b)),
        (lambda x: diagonal(x, 1, 0, 2), lambda x: torch.diagonal(x, 1, 0, 2), (a,)),
        (lambda x: x.diagonal(-1), lambda x: x.diagonal(-1), (a,)),
        (lambda x: tl.linalg.diagonal(x, offset=1), lambda x: torch.linalg.diagonal(x, offset=1), (a,)),
        (lambda x: x.trace(), lambda x: x.trace(), (m,)),
        (lambda x: tl.matrix_power(x, 4), lambda x: torch.linalg.matrix_power(x, 4), (m,)),
        (lambda x, y: tl.outer(x, y), lambda x, y: torch.outer(x, y), (a[0, 0], b[1])),
        (lambda x, y: tl.linalg.multi_dot([x, y, x]), lambda x, y: torch.linalg.multi_dot([x, y, x]), (m, m.T)),
    ]
    for ours, theirs, arrays in cases:
        ts = [tl.tensor(x, requires_grad=True) for x in arrays]
        ps = [torch.tensor(x, requires_grad=True) for x in arrays]
        out, ref = ours(*ts), theirs(*ps)
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
        w = rng.standard_normal(ref.shape)
        (out * tl.tensor(w)).sum().backward()
        (ref * torch.tensor(w)).sum().backward()
        for t, p in zip(ts, ps):
            np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_complex_gradients_follow_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    b = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    for ours, theirs in [(lambda x, y: cross(x, y), lambda x, y: torch.linalg.cross(x, y)),
                         (lambda x, y: diagonal(x * y.conj(), 1).abs(),
                          lambda x, y: torch.diagonal(x * y.conj(), 1).abs())]:
        ts = [tl.tensor(x, requires_grad=True) for x in (a, b)]
        ps = [torch.tensor(x, requires_grad=True) for x in (a, b)]
        ours(*ts).abs().sum().backward()
        theirs(*ps).abs().sum().backward()
        for t, p in zip(ts, ps):
            np.testing.assert_allclose(t.grad.numpy(), p.grad.resolve_conj().numpy(), rtol=1e-10)


def test_the_faces_defaults():
    x = tl.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert x.diagonal().shape == (4, 2) and tl.diagonal(x).shape == (4, 2)    # dims 0 and 1, as torch
    assert tl.linalg.diagonal(x).shape == (2, 3)                               # the last two
    np.testing.assert_array_equal(trace(x).numpy(), np.trace(x.numpy(), axis1=-2, axis2=-1))
    assert tl.cross(tl.ones(2, 3), tl.ones(3)).shape == (2, 3)


def test_multi_dot_picks_the_cheapest_order():
    # (10x100)(100x5)(5x50): (AB)C costs 5000 + 2500, A(BC) 25000 + 50000
    split = _chain_order([10, 100, 5, 50])
    assert split[0][2] == 1
    split = _chain_order([50, 5, 100, 10])   # the mirror: A(BC) is cheaper
    assert split[0][2] == 0


@pytest.mark.parametrize("call,error,words", [
    (lambda: cross(tl.ones(3), tl.ones(4)), ValueError, ["cross", "size 3"]),
    (lambda: cross(tl.ones(2, 3), tl.ones(4, 3)), ValueError, ["cross", "broadcast"]),
    (lambda: cross(tl.ones(3), tl.ones(3), dim=2), IndexError, ["cross", "dim 2"]),
    (lambda: outer(tl.ones(2, 2), tl.ones(2)), ValueError, ["outer", "vectors"]),
    (lambda: diagonal(tl.ones(3)), ValueError, ["diagonal", "matrix"]),
    (lambda: diagonal(tl.ones(3, 3), 0, 1, 1), ValueError, ["diagonal", "dim1 and dim2"]),
    (lambda: diagonal(tl.ones(3, 3), 0.5), TypeError, ["diagonal", "offset"]),
    (lambda: tl.ones(2, 2, 2).trace(), ValueError, ["trace", "matrix"]),
    (lambda: matrix_power(tl.ones(2, 3), 2), ValueError, ["matrix_power", "square"]),
    (lambda: matrix_power(tl.ones(2, 2), 2.0), TypeError, ["matrix_power", "int"]),
    (lambda: multi_dot([tl.ones(2, 2)]), ValueError, ["multi_dot", "at least 2"]),
    (lambda: multi_dot([tl.ones(2, 3), tl.ones(2, 3)]), ValueError, ["multi_dot", "tensors 0 and 1"]),
    (lambda: cross(tl.ones(3), tl.tensor([1.0, 2.0, 3.0], backend="array_api_strict")), tl.BackendError,
     ["cross", "array_api_strict"]),
])
def test_bad_input_names_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)
