"""gradcheck and gradgradcheck catch what PyTorch's do, and relu/abs have connected second derivatives.

Each wrong backward below is right almost everywhere, wrong in one way that a
weaker checker lets through: a backward not differentiable in its incoming
gradient (func.jvp, reverse-over-reverse, then returns zero), one element
of a 100-element gradient off by 1e-3, a check with nothing to check.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import Function, GradcheckError, gradcheck, gradgradcheck


class DetachedIncoming(Function):
    """sin, whose backward detaches g: first derivative right, jvp (double vjp) zero."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.backend.xp.sin(a.data)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.cos() * g.detach()


class OneElementOff(Function):
    """x * x, whose gradient is `ERROR` too large (relatively) at flat index `BAD`."""

    BAD, ERROR = 37, 1e-3

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.data * a.data

    @classmethod
    def backward(cls, ctx, g):
        (a,) = ctx.saved_tensors
        scale = np.ones(a.shape)
        scale.reshape(-1)[cls.BAD] += cls.ERROR
        return g * a * 2.0 * tl.tensor(scale, backend=a.backend, device=a.device, dtype="float64")


def _x(backend, device, host, requires_grad=True):
    return tl.tensor(np.asarray(host, dtype=np.float64), backend=backend, device=device,
                     dtype="float64", requires_grad=requires_grad)


def _away_from_zero(n, seed=0):
    """n values with |x| in [0.5, 2]: no kink of relu/abs within a difference step."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)


def test_gradgradcheck_catches_a_backward_not_differentiable_in_its_incoming_gradient(backend, device):
    x = _x(backend, device, _away_from_zero(5))
    assert gradcheck(DetachedIncoming.apply, x)
    with pytest.raises(GradcheckError, match="grad_output"):
        gradgradcheck(DetachedIncoming.apply, x)
    _, tangent = tl.func.jvp(DetachedIncoming.apply, (x.detach(),), (tl.ones_like(x.detach()),))
    assert np.all(tangent.numpy() == 0.0)  # what the check protects: jvp silently zero
    assert gradgradcheck(lambda t: t.sin(), x)


@pytest.mark.parametrize("shape", [(100,), (4, 25)])
def test_gradcheck_catches_one_wrong_element_among_100(backend, device, shape):
    x = _x(backend, device, _away_from_zero(100, seed=1).reshape(shape))
    with pytest.raises(GradcheckError, match=f"element {OneElementOff.BAD}"):
        gradcheck(OneElementOff.apply, x)
    assert gradcheck(lambda t: t * t, x)


class FarOff(OneElementOff):
    ERROR = 5e-2


def test_gradcheck_checks_every_part_of_a_large_input(backend, device):
    """Beyond full_jacobian_max elements every element is still in a checked group (here 64
    groups of about 16: an error must stand out of a sum of 16, so 5e-2 rather than 1e-3)."""
    x = _x(backend, device, _away_from_zero(1000, seed=2))
    with pytest.raises(GradcheckError, match=f"elements .*{FarOff.BAD}"):
        gradcheck(FarOff.apply, x, full_jacobian_max=64)
    assert gradcheck(lambda t: t * t, x, full_jacobian_max=64)


def test_gradcheck_and_gradgradcheck_refuse_inputs_that_do_not_require_grad(backend, device):
    x = _x(backend, device, [0.5, -1.0], requires_grad=False)
    with pytest.raises(ValueError, match="requires_grad"):
        gradcheck(lambda t: t.exp(), x)
    with pytest.raises(ValueError, match="requires_grad"):
        gradgradcheck(lambda t: t.exp(), x)


@pytest.mark.parametrize("name", ["relu", "abs"])
def test_second_derivative_of_relu_and_abs_is_connected_and_zero(backend, device, name):
    """As PyTorch: d/dx of relu'(x) and abs'(x) is 0, not an error or a disconnected graph."""
    x = _x(backend, device, [0.5, -1.0, 2.0, 0.0])
    (g,) = tl.autograd.grad(getattr(x, name)().sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(h.numpy(), np.zeros(4))


def test_second_derivatives_through_relu_and_abs_match_closed_forms(backend, device):
    host = _away_from_zero(6, seed=3)
    x = _x(backend, device, host)
    # f = sum(relu(x) * x): f' = 2 relu(x), f'' = 2 [x > 0]
    (g,) = tl.autograd.grad((x.relu() * x).sum(), x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 2.0 * (host > 0), rtol=1e-12)
    # f = sum(|x| * x): f' = 2 |x|, f'' = 2 sign(x)
    (g,) = tl.autograd.grad((x.abs() * x).sum(), x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 2.0 * np.sign(host), rtol=1e-12)
    # the 1-norm: d/dx sign(x) = 0
    (g,) = tl.autograd.grad(x.norm(1), x, create_graph=True)
    (h,) = tl.autograd.grad((g * x).sum(), x)
    np.testing.assert_allclose(h.numpy(), np.sign(host), rtol=1e-12)


@pytest.mark.parametrize("name", ["relu", "abs"])
def test_relu_and_abs_pass_gradgradcheck_and_jvp(backend, device, name):
    host = _away_from_zero(20, seed=4)
    x = _x(backend, device, host)
    assert gradgradcheck(lambda t: getattr(t, name)() * t.exp(), x)
    tangent = np.linspace(-1.0, 1.0, 20)
    _, jvp = tl.func.jvp(lambda t: getattr(t, name)(), (x.detach(),), (_x(backend, device, tangent, False),))
    slope = (host > 0) * 1.0 if name == "relu" else np.sign(host)
    np.testing.assert_allclose(jvp.numpy(), slope * tangent, rtol=1e-12)
