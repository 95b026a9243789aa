"""gradcheck and gradgradcheck on inputs that are no tensors and on functions of several or constant outputs.

Found by a differential hunt against torch.autograd (torch 2.13, CPU, float64); expected values are
closed forms, never PyTorch.
"""

from __future__ import annotations

import pytest

import torchlight as tl
from torchlight.autograd import Function, GradcheckError, gradcheck, gradgradcheck


class _ScaledSin(Function):
    """sin(a) * k for a number k."""

    @staticmethod
    def forward(ctx, a, k):
        ctx.save_for_backward(a)
        ctx.k = k
        return a.backend.xp.sin(a.data) * k

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.cos() * g * ctx.k, None


class _ForgetfulScaledSin(_ScaledSin):
    """A wrong gradient to catch: the backward forgets k."""

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.cos() * g, None


def test_gradcheck_holds_a_non_tensor_input_fixed():
    # torch.autograd.gradcheck passes numbers and tuples through; here they raised AttributeError
    x = tl.tensor([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda a, n: a ** n, x, 3)
    assert gradgradcheck(lambda a, n: a ** n, x, 3)
    assert gradcheck(lambda a, shape: a.reshape(shape).exp(), x, (2, 1))
    assert gradcheck(_ScaledSin.apply, x, 3.0)
    with pytest.raises(GradcheckError):
        gradcheck(_ForgetfulScaledSin.apply, x, 3.0)


def test_gradcheck_of_a_function_returning_a_tuple_checks_every_output():
    x = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    two = lambda a: (a.sin(), (a * a).sum())  # noqa: E731
    assert gradcheck(two, x)
    assert gradgradcheck(two, x)
    assert gradcheck(lambda a: (a.exp(), a.argmax()), x)  # an integer output has no gradient to check
    with pytest.raises(GradcheckError):
        gradcheck(lambda a: (a.sin(), _ForgetfulScaledSin.apply(a, 3.0)), x)


def test_gradgradcheck_of_a_constant_output_passes_as_gradcheck_does():
    # the gradient is 0 and so is its derivative (it raised: autograd.grad of an output without history)
    x = tl.tensor([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda a: tl.tensor([1.0, 2.0]), x)
    assert gradgradcheck(lambda a: tl.tensor([1.0, 2.0]), x)
