"""`jacfwd`, `jacrev` and `linearize` against `torch.func` and central differences."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import Function

RNG = np.random.default_rng(5)
A = RNG.standard_normal((4, 3))


def f(x, y):
    return ((tl.tensor(A) @ x).sin() * y[0], (x * y.sum()).exp())


def central(g, x, eps=1e-6):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e.reshape(-1)[j] = eps
        cols.append(((g(x + e) - g(x - e)) / (2 * eps)).reshape(-1))
    return np.stack(cols, -1)


def test_jacfwd_agrees_with_jacrev_and_central_differences():
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    fwd = func.jacfwd(f, argnums=(0, 1))(x, y)
    rev = func.jacrev(f, argnums=(0, 1))(x, y)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(fwd[i][j], rev[i][j], rtol=1e-12, atol=1e-14)
    numeric = central(lambda v: f(tl.tensor(v), tl.tensor(y))[0].numpy(), x)
    np.testing.assert_allclose(fwd[0][0], numeric, rtol=1e-6, atol=1e-8)


# (torch.func's forward mode scripts a helper the first time, which warns in this PyTorch)
@pytest.mark.filterwarnings("ignore:.*torch.jit.script:DeprecationWarning")
def test_jacfwd_jacrev_linearize_agree_with_torch_func():
    torch = pytest.importorskip("torch", reason="torch.func is the reference")
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    tA = torch.tensor(A)

    def tf(x, y):
        return ((tA @ x).sin() * y[0], (x * y.sum()).exp())

    tx, ty = torch.tensor(x), torch.tensor(y)
    for ours, theirs in [(func.jacfwd, torch.func.jacfwd), (func.jacrev, torch.func.jacrev)]:
        got = ours(f, argnums=(0, 1))(x, y)
        want = theirs(tf, argnums=(0, 1))(tx, ty)
        for i in range(2):
            for j in range(2):
                np.testing.assert_allclose(got[i][j], want[i][j].numpy(), rtol=1e-12, atol=1e-14)
    value, jvp_fn = func.linearize(f, x, y)
    # (against torch.func.jvp, what torch.func.linearize computes: its own traces through torch.jit and FX,
    # which warn in this PyTorch)
    for _ in range(2):  # jvp_fn can be called again
        t1, t2 = RNG.standard_normal(3), RNG.standard_normal(3)
        tvalue, want = torch.func.jvp(tf, (tx, ty), (torch.tensor(t1), torch.tensor(t2)))
        np.testing.assert_allclose(value[1], tvalue[1].numpy(), rtol=1e-12)
        got = jvp_fn(t1, t2)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-12, atol=1e-14)


def test_jacfwd_over_a_pytree_and_with_aux():
    p = {"w": RNG.standard_normal(2), "s": np.array(2.0)}
    J, aux = func.jacfwd(lambda p: (p["w"] * p["s"], p["w"].sum()), has_aux=True)(p)
    np.testing.assert_allclose(J["w"], 2.0 * np.eye(2))
    np.testing.assert_allclose(J["s"], p["w"])
    np.testing.assert_allclose(aux, p["w"].sum())


def test_jacfwd_hessian_forward_over_reverse():
    x = RNG.standard_normal(3)
    g = lambda v: (v ** 3).sum() * v[0]  # noqa: E731
    np.testing.assert_allclose(func.jacfwd(func.grad(g))(x), func.hessian(g)(x), rtol=1e-10, atol=1e-12)


class RawSquare(Function):
    """x ** 2 whose backward works on raw arrays (not differentiable in its gradient)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.detach())
        return x.data ** 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return tl.tensor(2 * x.numpy() * g.detach().numpy())


def test_jacfwd_through_a_backward_on_raw_arrays_goes_by_rows_and_is_right():
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(func.jacfwd(lambda v: RawSquare.apply(v))(x), np.diag(2 * x))


def test_bad_arguments():
    with pytest.raises(ValueError, match="linearize: jvp_fn takes 2 tangent"):
        func.linearize(f, np.ones(3), np.ones(3))[1](np.ones(3))
    with pytest.raises(ValueError, match="jacrev: chunk_size"):
        func.jacrev(f, chunk_size=0)
    with pytest.raises(ValueError, match="jacfwd: randomness"):
        func.jacfwd(f, randomness="maybe")
