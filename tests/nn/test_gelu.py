"""The exact GELU (x * Phi(x)) and its tanh approximation: values and gradients against PyTorch's,
gradcheck and gradgradcheck on each backend, the layer, a bad `approximate`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F
from torchlight.autograd import gradcheck, gradgradcheck

VALUES = [-9.0, -2.5, -0.3, 0.0, 0.7, 3.0]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradients_match_central_differences(backend: Any, approximate: str) -> None:
    x = tl.tensor(np.array(VALUES[1:5]), backend=backend, requires_grad=True)
    assert gradcheck(lambda t: F.gelu(t, approximate), x)
    assert gradgradcheck(lambda t: F.gelu(t, approximate), x)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_pytorch(approximate: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its GELU where it is installed")
    ours = tl.tensor(VALUES, requires_grad=True)
    theirs = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    out = F.gelu(ours, approximate)
    expected = torch.nn.functional.gelu(theirs, approximate=approximate)
    # (at -9, PyTorch's 0.5 x (1 + erf(x / sqrt 2)) cancels; ours is x * ndtr(x): compare absolutely there)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_gelu_layer_and_a_bad_approximate() -> None:
    layer = tl.nn.GELU(approximate="tanh")
    x = tl.tensor([1.0, -1.0])
    np.testing.assert_array_equal(layer(x).numpy(), F.gelu(x, "tanh").numpy())
    assert "approximate='tanh'" in repr(layer)
    with pytest.raises(ValueError, match="gelu: approximate must be 'none' or 'tanh'"):
        F.gelu(x, "erf")
    with pytest.raises(ValueError, match="GELU: approximate"):
        tl.nn.GELU("fast")
