"""LeakyReLU, SiLU, ELU, Mish, Softplus (beta, threshold), Hardtanh and GELU: values and input gradients
against PyTorch float64 (kinks included), gradcheck on each backend without PyTorch, the Modules'
options, repr and bad arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F
from torchlight.autograd import gradcheck, gradgradcheck

# the kinks (0, +-1, the threshold) and both tails
VALUES = [-30.0, -2.5, -1.0, -0.3, 0.0, 0.7, 1.0, 3.0, 10.0, 25.0]
SMOOTH = [-2.5, -0.3, 0.7, 3.0]  # away from every kink: central differences hold

CASES = {
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), lambda tf, x: tf.leaky_relu(x, 0.2)),
    "silu": (F.silu, lambda tf, x: tf.silu(x)),
    "elu": (lambda t: F.elu(t, 0.5), lambda tf, x: tf.elu(x, 0.5)),
    "mish": (F.mish, lambda tf, x: tf.mish(x)),
    "softplus": (F.softplus, lambda tf, x: tf.softplus(x)),
    "softplus_beta": (lambda t: F.softplus(t, beta=2.0, threshold=5.0),
                      lambda tf, x: tf.softplus(x, beta=2.0, threshold=5.0)),
    "hardtanh": (F.hardtanh, lambda tf, x: tf.hardtanh(x)),
    "hardtanh_range": (lambda t: F.hardtanh(t, -0.5, 2.0), lambda tf, x: tf.hardtanh(x, -0.5, 2.0)),
    "gelu_tanh": (lambda t: F.gelu(t, "tanh"), lambda tf, x: tf.gelu(x, approximate="tanh")),
}

MODULES = {
    "LeakyReLU": ((0.2,), "leaky_relu"), "SiLU": ((), "silu"), "ELU": ((0.5,), "elu"), "Mish": ((), "mish"),
    "Softplus": ((2.0, 5.0), "softplus_beta"), "Hardtanh": ((-0.5, 2.0), "hardtanh_range"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_activation_matches_pytorch_values_and_gradients(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its activations where it is installed")
    ours_fn, theirs_fn = CASES[name]
    ours = tl.tensor(VALUES, requires_grad=True)
    theirs = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    out, expected = ours_fn(ours), theirs_fn(torch.nn.functional, theirs)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-13, atol=1e-15)
    weights = np.linspace(0.5, 1.5, len(VALUES))
    (out * tl.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", list(MODULES))
def test_activation_module_matches_pytorch_module(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its activation Modules")
    args, case = MODULES[name]
    ours, theirs = getattr(tl.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    x = np.array(VALUES)
    np.testing.assert_allclose(ours(tl.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(ours(tl.tensor(x)).numpy(), CASES[case][0](tl.tensor(x)).numpy())


@pytest.mark.parametrize("name", list(CASES))
def test_activation_gradients_match_central_differences(backend: Any, name: str) -> None:
    x = tl.tensor(np.array(SMOOTH), backend=backend, requires_grad=True)
    assert gradcheck(CASES[name][0], x)
    if not name.startswith("hardtanh") and name != "leaky_relu":  # (piecewise linear: no second derivative)
        assert gradgradcheck(CASES[name][0], x)


def test_activation_values_on_numpy_formulas(backend: Any) -> None:
    x = np.array(VALUES)
    t = tl.tensor(x, backend=backend)
    sig = 1.0 / (1.0 + np.exp(-x))
    soft = np.logaddexp(0.0, x)
    expected = {
        "leaky_relu": np.where(x > 0, x, 0.2 * x), "silu": x * sig, "elu": np.where(x > 0, x, 0.5 * np.expm1(x)),
        "mish": x * np.tanh(soft), "softplus": np.where(x > 20, x, soft), "hardtanh": np.clip(x, -1, 1),
        "softplus_beta": np.where(2 * x > 5, x, np.logaddexp(0.0, 2 * x) / 2),
    }
    for name, values in expected.items():
        np.testing.assert_allclose(CASES[name][0](t).numpy(), values, rtol=1e-13, atol=1e-15, err_msg=name)


def test_activation_kink_gradients_follow_pytorch_conventions() -> None:
    x = tl.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    F.hardtanh(x).sum().backward()  # 0 at both edges (PyTorch's hardtanh_backward)
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    for fn, at_zero in ((lambda t: F.leaky_relu(t, 0.1), 0.1), (lambda t: F.elu(t, 2.0), 2.0)):
        z = tl.tensor([0.0], requires_grad=True)
        fn(z).sum().backward()
        assert z.grad.tolist() == [at_zero]


def test_elu_does_not_overflow_in_the_branch_it_does_not_take() -> None:
    x = tl.tensor([800.0, -800.0], requires_grad=True)
    y = F.elu(x)
    y.sum().backward()
    assert y.tolist() == [800.0, -1.0]
    assert x.grad.tolist() == [1.0, 0.0]


def test_activation_modules_repr_and_bad_arguments() -> None:
    assert repr(tl.nn.LeakyReLU(0.1, inplace=True)) == "LeakyReLU(negative_slope=0.1, inplace=True)"
    assert repr(tl.nn.SiLU()) == "SiLU()"
    with pytest.raises(ValueError, match="Hardtanh: min_val=2 must be at most max_val=1"):
        tl.nn.Hardtanh(2, 1)
    with pytest.raises(ValueError, match="hardtanh: min_val"):
        F.hardtanh(tl.zeros(2), 1.0, 0.0)
    with pytest.raises(TypeError, match="ELU: inplace must be a bool"):
        tl.nn.ELU(1.0, "yes")
    with pytest.raises(TypeError, match="silu: the input must be a Tensor"):
        F.silu([1.0])
    with pytest.raises(TypeError, match="leaky_relu: the input must have a floating-point dtype"):
        F.leaky_relu(tl.tensor([1, 2]))
