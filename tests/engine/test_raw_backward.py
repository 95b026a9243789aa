"""A backward that records nothing runs an op's `raw_backward` on arrays (where it has one), and that
gives what its `backward` in Tensor ops gives, to the bit: the same operations in the same order.

Each op's gradients are taken twice, without `create_graph` (the raw path: `backward` is not called)
and with it (the Tensor path, which a second derivative needs), and compared exactly, in float32
and float64, broadcasting where the op is binary. A complex input takes `backward`, composed.
"""

from __future__ import annotations

import numpy as np
import pytest
from library_functions import library_functions

import torchlight as tl

# op name: (the call, the shapes of its Tensor inputs, the values' domain)
CASES = {
    "Mul": (lambda a, b: a * b, [(3, 4), (4,)], "any"),
    "Div": (lambda a, b: a / b, [(3, 4), (3, 1)], "positive"),
    "Neg": (lambda a: -a, [(5,)], "any"),
    "Exp": (lambda a: a.exp(), [(2, 3)], "any"),
    "Log": (lambda a: a.log(), [(2, 3)], "positive"),
    "Sqrt": (lambda a: a.sqrt(), [(6,)], "positive"),
    "Tanh": (lambda a: a.tanh(), [(2, 3)], "any"),
    "Sigmoid": (lambda a: a.sigmoid(), [(2, 3)], "any"),
    "ReLU": (lambda a: a.relu(), [(7,)], "any"),
}


RAW = {fn.__name__: fn for fn in library_functions() if fn.__dict__.get("raw_backward") is not None}


def test_every_op_with_a_raw_backward_has_a_case():
    assert set(RAW) == set(CASES)


def inputs(shapes, domain, dtype, backend, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) if domain == "positive" else rng.normal(size=s) for s in shapes]
    return [tl.tensor(backend.asarray(a.astype(dtype)), requires_grad=True) for a in arrays]


@pytest.fixture
def counted(monkeypatch):
    """Counts the calls of each op's Tensor-op `backward`."""
    calls = dict.fromkeys(RAW, 0)
    for name, cls in RAW.items():
        original = cls.backward

        def spy(ctx, g, _original=original, _name=name):
            calls[_name] += 1
            return _original(ctx, g)

        monkeypatch.setattr(cls, "backward", staticmethod(spy))
    return calls


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_raw_backward_gives_the_tensor_backwards_gradients_to_the_bit(name, dtype, backend, counted):
    call, shapes, domain = CASES[name]
    xs = inputs(shapes, domain, dtype, backend)
    out = call(*xs)
    seed = tl.tensor(backend.asarray(np.linspace(-1.0, 1.5, int(np.prod(out.shape))).reshape(out.shape)
                                     .astype(dtype)))
    raw = tl.autograd.grad(out, xs, seed, retain_graph=True)
    assert counted[name] == 0  # the arrays' path: no Tensor op ran for this node
    composed = tl.autograd.grad(out, xs, seed, create_graph=True)
    assert counted[name] == 1
    for r, c, x in zip(raw, composed, xs):
        assert r.dtype == c.dtype == x.dtype and r.shape == x.shape and r.backend is x.backend
        np.testing.assert_array_equal(np.asarray(r.numpy()), np.asarray(c.detach().numpy()))


def test_a_complex_input_takes_the_tensor_backward(counted):
    z = tl.tensor(np.array([1 + 2j, -0.5 + 0.25j]), requires_grad=True)
    loss = (z * z.conj()).real.sum() + z.exp().abs().sum() + z.tanh().abs().sum()
    (g,) = tl.autograd.grad(loss, [z])
    assert counted["Mul"] == 1 and counted["Exp"] == 1 and counted["Tanh"] == 1
    torch = pytest.importorskip("torch", reason="torch is not installed: the complex gradient is not compared")
    t = torch.tensor([1 + 2j, -0.5 + 0.25j], dtype=torch.complex128, requires_grad=True)
    ((t * t.conj()).real.sum() + t.exp().abs().sum() + t.tanh().abs().sum()).backward()
    np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=1e-12)


def test_a_saved_tensor_replaced_since_the_forward_still_raises_on_the_raw_path():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([3.0, 4.0], requires_grad=True)
    out = (a * b).sum()
    with tl.no_grad():
        b -= 1.0  # replaced under no_grad: the product's backward would read the new values
    with pytest.raises(RuntimeError, match="modified|replaced"):
        out.backward()
    assert a.grad is None and b.grad is None
