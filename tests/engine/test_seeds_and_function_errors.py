"""Engine semantics found by a differential hunt against PyTorch's autograd and torch.func.

Each test pins one discrepancy that was a bug here; the expected values are
closed forms (or central differences through gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func, scalar
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


# ------------------------------------------------------------ grad mode
def test_set_grad_enabled_as_a_function_a_context_manager_and_a_decorator():
    x = _leaf([1.0])
    tl.set_grad_enabled(False)
    assert not tl.is_grad_enabled()
    tl.set_grad_enabled(True)
    with tl.set_grad_enabled(False):
        assert not tl.is_grad_enabled() and not (x * 2).requires_grad
        with tl.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()

    @tl.set_grad_enabled(False)
    def quiet(t):
        return t * 2

    assert tl.is_grad_enabled()  # decorating does not change the mode
    assert not quiet(x).requires_grad and tl.is_grad_enabled()


@pytest.mark.parametrize("mode", [tl.no_grad, tl.enable_grad])
def test_a_decorated_generator_runs_each_step_in_its_mode(mode):
    x = _leaf([1.0])

    @mode()
    def steps():
        for _ in range(2):
            yield tl.is_grad_enabled(), (x * 2).requires_grad

    outside = not mode.mode
    with tl.set_grad_enabled(outside):
        seen = list(steps())
        assert tl.is_grad_enabled() is outside
    assert seen == [(mode.mode, mode.mode)] * 2


# ------------------------------------------------------------ scalar engine
def test_scalar_pow_exponent_gradient_is_zero_at_base_zero():
    # the Tensor engine's (and PyTorch's) convention: d(a ** b)/db = 0 where a == 0, b == 0 included
    for b0 in (0.0, 2.0):
        a, b = scalar.variable(0.0), scalar.variable(b0)
        (a ** b).backward()
        assert b.grad == 0.0
        x, p = _leaf(0.0), _leaf(b0)
        (x ** p).backward()
        assert p.grad.item() == b.grad


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


class _ReturnsPair(Function):
    @staticmethod
    def forward(ctx, a):
        return a.data, a.data * 2

    @staticmethod
    def backward(ctx, g):
        return g


def test_a_forward_that_returns_a_tuple_is_named_in_the_error():
    with pytest.raises(TypeError, match="_ReturnsPair.forward returned a tuple"):
        _ReturnsPair.apply(_leaf([1.0, 2.0]))


def test_scalar_relu_of_nan_is_nan_in_every_form():
    # as the Tensor op (and PyTorch): a NaN is carried forward, never hidden as 0
    nan = float("nan")
    assert np.isnan(scalar.relu(nan))
    assert np.isnan(scalar.variable(nan).relu().data)
    t = tl.tensor([nan, -1.0, 2.0])
    np.testing.assert_array_equal(t.backend.map(scalar.relu)(t).data, t.relu().data)


def test_scalar_max_carries_a_nan_from_either_side():
    # as its own vectorised form (the namespace's maximum) and PyTorch's maximum
    nan = float("nan")
    assert np.isnan(scalar.max(nan, 1.0)) and np.isnan(scalar.max(1.0, nan))
    assert np.isnan(scalar.max(scalar.variable(nan), 1.0).data)
    assert scalar.max(2.0, 1.0) == 2.0 and scalar.max(1.0, 2.0) == 2.0


def test_a_backward_may_return_extra_trailing_nones_but_not_extra_gradients():
    x = _leaf([1.0, 2.0])
    _doubling(lambda g: (g * 2, None)).apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0])
    with pytest.raises(RuntimeError, match="Doubling.backward returned 2 gradient"):
        _doubling(lambda g: (g * 2, g)).apply(_leaf([1.0])).sum().backward()


# ------------------------------------------------------------ torchlight.func
def test_transformed_functions_pass_keyword_arguments_through_undifferentiated():
    # as torch.func.grad and jax.grad: keywords go to f as they are (arrays as constant Tensors)
    def f(a, *, scale=1.0, shift=None):
        return ((a * a).sum() + (a * shift).sum()) * scale

    x, shift = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(func.grad(f)(x, scale=3.0, shift=shift), 3.0 * (2 * x + shift))
    value, g = func.value_and_grad(f)(x, scale=2.0, shift=shift)
    np.testing.assert_allclose([value, *g], [2.0 * (5.0 - 1.5), *(2.0 * (2 * x + shift))])
    np.testing.assert_allclose(func.hessian(f)(x, scale=3.0, shift=shift), 6.0 * np.eye(2))
    np.testing.assert_allclose(func.jacobian(lambda a, *, k: a * k)(x, k=shift), np.diag(shift))


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
