"""Engine semantics: a seed that requires grad keeps its link (grad, backward, jvp, vjp), the .grad a
create_graph backward leaves, the errors naming a user Function's bad forward or backward, and an
input reached only through a zero derivative.

Found by a differential hunt against PyTorch's autograd and torch.func.

Each test pins one discrepancy that was a bug here; the expected values are
closed forms (or central differences through gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import Function, grad, gradcheck


def _leaf(values):
    return tl.tensor(values, requires_grad=True)


# ------------------------------------------- a seed that requires grad keeps its link
@pytest.mark.parametrize("f", [lambda a: a, lambda a: a + 1.0, lambda a: a - 1.0, lambda a: a.clone(),
                               lambda a: a * 1.0])
def test_jvp_of_a_function_whose_vjp_passes_the_cotangent_unchanged(f):
    # J = I for every f here, so J @ t = t (it was zeros where the vjp handed the cotangent on as it is)
    x, t = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    _, product = func.jvp(f, (x,), (t,))
    np.testing.assert_allclose(product, t)


def test_jvp_of_a_sum_of_two_primals():
    x, t1, t2 = np.array([0.5, -1.0]), np.array([2.0, 3.0]), np.array([-1.0, 4.0])
    _, product = func.jvp(lambda a, b: a + b, (x, x), (t1, t2))
    np.testing.assert_allclose(product, t1 + t2)


@pytest.mark.parametrize("make", [lambda x: x, lambda x: x * 2.0])
def test_grad_with_create_graph_is_differentiable_in_a_leaf_seed(make):
    # d/du <u, d y/d y> = 1: the result is the seed itself, so it must keep the seed's graph
    x, u = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    y = make(x)
    (g,) = grad(y, y, u, create_graph=True)
    np.testing.assert_allclose(g.data, [3.0, 4.0])
    assert g.data is not u.data
    (dg,) = grad((g * g).sum(), u)  # d/du sum(u^2) = 2u
    np.testing.assert_allclose(dg.data, [6.0, 8.0])


@pytest.mark.parametrize("make", [lambda x: x, lambda x: x + 0.0])
def test_backward_with_create_graph_keeps_a_leaf_seed_in_dot_grad(make):
    x, u = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    make(x).backward(u, create_graph=True)
    assert x.grad.data is not u.data
    (dg,) = grad((x.grad * x.grad).sum(), u)
    np.testing.assert_allclose(dg.data, [6.0, 8.0])


def test_a_seed_with_history_without_create_graph_comes_back_detached_and_unshared():
    x, u = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    v = u * 1.0
    (g,) = grad(x, x, v)
    np.testing.assert_allclose(g.data, [3.0, 4.0])
    assert not g.requires_grad and g.data is not v.data


def test_grad_results_with_create_graph_never_share_an_array():
    # Add hands one gradient (made with history under create_graph) to both inputs
    a, b, w = _leaf([1.0, 2.0]), _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    p, q = a * 1.0, b * 1.0
    gp, gq = grad(((p + q) * w).sum(), [p, q], create_graph=True)
    assert gp is not gq and gp.data is not gq.data
    np.testing.assert_allclose(gp.data, [3.0, 4.0])
    (dw,) = grad((gp + gq).sum(), w)  # d/dw sum(2 w) = 2
    np.testing.assert_allclose(dw.data, [2.0, 2.0])


def test_vjp_fn_is_differentiable_in_its_cotangent_for_the_identity():
    u = _leaf([1.0, -2.0])
    _, vjp_fn = func.vjp(lambda a: a + 0.0, np.array([0.5, 1.5]))
    assert gradcheck(lambda c: vjp_fn(c)[0] * c, u)


# ------------------------------------------------------------ clear errors
def _doubling(backward, name="Doubling"):
    """The Function `name` computing 2a, whose backward returns `backward(g)` (the right one: g * 2)."""
    return type(name, (Function,), {"forward": staticmethod(lambda ctx, a: a.data * 2),
                                     "backward": staticmethod(lambda ctx, g: backward(g))})


def test_a_backward_that_returns_a_number_is_named_in_the_error():
    x = _leaf([1.0, 2.0])
    with pytest.raises(TypeError, match="_ReturnsFloat.backward returned a float"):
        _doubling(lambda g: 2.0, "_ReturnsFloat").apply(x).sum().backward()
    assert x.grad is None


def test_a_backward_may_return_extra_trailing_nones_but_not_extra_gradients():
    x = _leaf([1.0, 2.0])
    _doubling(lambda g: (g * 2, None)).apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0])
    with pytest.raises(RuntimeError, match="Doubling.backward returned 2 gradient"):
        _doubling(lambda g: (g * 2, g)).apply(_leaf([1.0])).sum().backward()


class _MaskedNoGrad(Function):
    """g where a > 0, whose backward gives a no gradient (None): a derivative 0 by design."""

    @staticmethod
    def forward(ctx, a, g):
        ctx.save_for_backward(a)
        return g.data * (a.data > 0)

    @staticmethod
    def backward(ctx, h):
        return None, _MaskedNoGrad.apply(ctx.saved_tensors[0], h)


def test_an_input_reached_only_through_a_zero_derivative_is_named_as_such():
    # the error must not claim that x does not influence the outputs, and materialize_grads gives the zeros
    x = _leaf([1.0, -2.0])
    g = _MaskedNoGrad.apply(x, tl.ones_like(x))
    with pytest.raises(RuntimeError, match="no gradient reaches it"):
        grad(g.sum(), x, retain_graph=True)
    (h,) = grad(g.sum(), x, materialize_grads=True)
    np.testing.assert_array_equal(h.data, [0.0, 0.0])
    # relu's gradient is piecewise constant: its own derivative in x is 0, returned as zeros (as PyTorch)
    (g,) = grad(x.relu().sum(), x, create_graph=True)
    np.testing.assert_array_equal(grad(g.sum(), x)[0].data, [0.0, 0.0])
    with pytest.raises(RuntimeError, match="does not influence the outputs"):
        grad((x * 2).sum(), [x, _leaf([1.0])])


# ------------------------------------------------ .grad across backward calls
def test_a_plain_backward_keeps_the_history_of_a_grad_made_with_create_graph():
    # the sum was made with grad mode off, so x.grad lost the graph of its 3 x^2 part (PyTorch keeps it)
    n = np.array([0.5, -1.2, 2.0])
    x = tl.tensor(n, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (x ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * n ** 2 + 2 * n)
    (h,) = tl.autograd.grad(x.grad.sum(), x)  # d/dx of 3 x^2; the plain 2 x is a constant
    np.testing.assert_allclose(h.numpy(), 6 * n)
