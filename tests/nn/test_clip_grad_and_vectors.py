"""torchlight.nn.utils: clip_grad_norm_ (2, inf, other norms; the total norm returned), get_total_norm,
clip_grads_with_norm_, clip_grad_value_, parameters_to_vector and vector_to_parameters, against PyTorch
float64 over 10 steps of a small model, NumPy references on each backend, and bad input (a non-finite
norm with error_if_nonfinite=True raises before any gradient changes)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from torchlight.nn import utils


def _model_pair():
    torch = pytest.importorskip("torch", reason="PyTorch's nn.utils is the oracle where it is installed")
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    ours = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.Tanh(), tl.nn.Linear(4, 2))
    ours.load_state_dict(theirs.state_dict())
    return torch, ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf, "inf"])
def test_clip_grad_norm_matches_pytorch_over_ten_steps(norm_type: Any) -> None:
    torch, ours, theirs = _model_pair()
    rng = np.random.default_rng(0)
    for step in range(10):
        x, y = rng.normal(size=(5, 3)) * (step + 1), rng.normal(size=(5, 2))
        ours.zero_grad()
        theirs.zero_grad()
        tl.nn.functional.mse_loss(ours(tl.tensor(x)), tl.tensor(y)).backward()
        torch.nn.functional.mse_loss(theirs(torch.tensor(x)), torch.tensor(y)).backward()
        total = utils.clip_grad_norm_(ours.parameters(), 0.5, norm_type=norm_type)
        expected = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5, norm_type=norm_type)
        np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-12)
        for p, q in zip(ours.parameters(), theirs.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-15)
            with torch.no_grad():
                q -= 0.1 * q.grad
            with tl.no_grad():
                p.sub_(0.1 * p.grad)
    np.testing.assert_allclose(utils.parameters_to_vector(ours.parameters()).detach().numpy(),
                               torch.nn.utils.parameters_to_vector(theirs.parameters()).detach().numpy(), rtol=1e-12)


def test_clip_grad_value_and_vectors_match_pytorch() -> None:
    torch, ours, theirs = _model_pair()
    x = np.random.default_rng(1).normal(size=(4, 3)) * 5
    ours(tl.tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    assert utils.clip_grad_value_(ours.parameters(), 0.3) is None
    torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.3)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    vec = np.arange(sum(p.numel() for p in theirs.parameters()), dtype=np.float64)
    utils.vector_to_parameters(tl.tensor(vec), ours.parameters())
    torch.nn.utils.vector_to_parameters(torch.tensor(vec), theirs.parameters())
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())


def test_clipping_on_numpy(backend: Any) -> None:
    a = tl.nn.Parameter(tl.zeros(2, backend=backend))
    b = tl.nn.Parameter(tl.zeros(3, backend=backend))
    unused = tl.nn.Parameter(tl.zeros(1, backend=backend))  # no gradient: skipped
    a.grad = tl.tensor([3.0, 0.0], backend=backend)
    b.grad = tl.tensor([0.0, -4.0, 12.0], backend=backend)
    total = utils.clip_grad_norm_([a, b, unused], max_norm=6.5)
    assert total.item() == pytest.approx(13.0, rel=1e-15)
    np.testing.assert_allclose(a.grad.numpy(), [1.5 * 13 / (13 + 1e-6), 0.0], rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), np.array([0.0, -4.0, 12.0]) * 6.5 / (13 + 1e-6), rtol=1e-12)
    assert unused.grad is None
    assert utils.get_total_norm([a.grad, b.grad], norm_type=math.inf).item() == pytest.approx(6.0, rel=1e-6)
    assert utils.get_total_norm([a.grad, b.grad], norm_type=1).item() == pytest.approx(9.5, rel=1e-6)
    # norm 0 counts non-zeros, the total the tensors with one (as PyTorch: the 0-norm of the norms)
    zero = tl.tensor([0.0, 0.0], backend=backend)
    assert utils.get_total_norm([tl.tensor([0.0, 2.0, 3.0], backend=backend), zero], norm_type=0).item() == 1.0
    assert utils.clip_grad_norm_([unused], 1.0).item() == 0.0  # no gradients: norm 0, as PyTorch
    a.grad = tl.tensor([3.0, -7.0], backend=backend)
    utils.clip_grad_value_(a, 5)
    assert a.grad.tolist() == [3.0, -5.0]
    small = tl.nn.Parameter(tl.zeros(1, backend=backend))
    small.grad = tl.tensor([0.1], backend=backend)
    assert utils.clip_grad_norm_(small, 1.0).item() == pytest.approx(0.1)
    assert small.grad.item() == pytest.approx(0.1, rel=1e-12)  # below max_norm: (nearly) unchanged


def test_parameters_to_vector_round_trip_and_gradient(backend: Any) -> None:
    w = tl.nn.Parameter(tl.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend))
    b = tl.nn.Parameter(tl.tensor([5.0], backend=backend))
    vec = utils.parameters_to_vector([w, b])
    assert vec.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    (vec * tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0], backend=backend)).sum().backward()
    assert w.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]] and b.grad.tolist() == [5.0]  # differentiable
    new = tl.tensor([9.0, 8.0, 7.0, 6.0, 5.0], backend=backend)
    utils.vector_to_parameters(new, [w, b])
    assert w.tolist() == [[9.0, 8.0], [7.0, 6.0]] and b.tolist() == [5.0]
    assert w.requires_grad and isinstance(w, tl.nn.Parameter)


def test_nonfinite_norm_and_bad_input() -> None:
    w = tl.nn.Parameter(tl.zeros(2))
    w.grad = tl.tensor([1.0, math.inf])
    with pytest.raises(RuntimeError, match="clip_grad_norm_: the total norm of order 2.0 .* is non-finite"):
        utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
    assert w.grad.tolist() == [1.0, math.inf]  # nothing changed
    w.grad = tl.tensor([1.0, math.nan])
    assert math.isnan(utils.clip_grad_norm_(w, 1.0).item())  # without the flag: scaled by NaN, as PyTorch
    assert np.isnan(w.grad.numpy()).all()
    with pytest.raises(TypeError, match="clip_grad_norm_: parameters must be a Tensor or an iterable"):
        utils.clip_grad_norm_(3.0, 1.0)
    with pytest.raises(TypeError, match="clip_grad_value_: parameters entry 0 is a float"):
        utils.clip_grad_value_([1.0], 1.0)
    with pytest.raises(TypeError, match="clip_grad_norm_: norm_type must be a number"):
        utils.clip_grad_norm_(w, 1.0, norm_type="two")
    with pytest.raises(ValueError, match="vector_to_parameters: vec has 3 entries, the parameters 2"):
        utils.vector_to_parameters(tl.zeros(3), [w])
    with pytest.raises(ValueError, match=r"vector_to_parameters: vec must be 1-d, not of shape \(1, 2\)"):
        utils.vector_to_parameters(tl.zeros(1, 2), [w])
    with pytest.raises(TypeError, match="vector_to_parameters: expected a Tensor, but got list"):
        utils.vector_to_parameters([0.0, 1.0], [w])
    with pytest.raises(ValueError, match="parameters_to_vector: no parameters given"):
        utils.parameters_to_vector([])
