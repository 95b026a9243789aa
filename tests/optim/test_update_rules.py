"""torchlight.optim against the update rules written out in NumPy (PyTorch's documented algorithms)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn

W0 = np.array([[0.5, -1.5], [2.0, 0.25]])
TARGET = np.array([[1.0, 0.0], [0.0, -1.0]])


def grad_of(w):
    """d/dw of sum((w - TARGET)**2 * w) = (w - T)**2 + 2 (w - T) w."""
    return (w - TARGET) ** 2 + 2 * (w - TARGET) * w


def run_optimizer(backend, make, steps=4):
    w = nn.Parameter(tl.tensor(W0.copy(), backend=backend))
    optimizer = make([w])
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((w - tl.tensor(TARGET, backend=backend)) ** 2 * w).sum()
        loss.backward()
        before = w.data
        optimizer.step()
        assert w.data is not before  # replaced, not written in place
        assert w.history is None and w.is_leaf
    return w.numpy()


def ref_sgd(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, steps=4):
    w, buf = W0.copy(), None
    for _ in range(steps):
        g = grad_of(w) + weight_decay * w
        if momentum:
            buf = g if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        w = w - lr * g
    return w


def ref_adam(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False, steps=4):
    w, m, v = W0.copy(), 0.0, 0.0
    for t in range(1, steps + 1):
        g = grad_of(w)
        if decoupled:
            w = w * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * w
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        w = w - lr * (m / (1 - betas[0] ** t)) / (np.sqrt(v / (1 - betas[1] ** t)) + eps)
    return w


@pytest.mark.parametrize("kwargs", [
    {"lr": 0.05},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.5, "weight_decay": 0.1},
    {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.01},
])
def test_sgd_matches_reference(backend, kwargs):
    out = run_optimizer(backend, lambda p: tl.optim.SGD(p, **kwargs))
    np.testing.assert_allclose(out, ref_sgd(**kwargs), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{"lr": 0.1}, {"lr": 0.1, "betas": (0.8, 0.9), "weight_decay": 0.1}])
def test_adam_matches_reference(backend, kwargs):
    out = run_optimizer(backend, lambda p: tl.optim.Adam(p, **kwargs))
    np.testing.assert_allclose(out, ref_adam(**kwargs), rtol=1e-12)


def test_adamw_decouples_weight_decay(backend):
    out = run_optimizer(backend, lambda p: tl.optim.AdamW(p, lr=0.1, weight_decay=0.5))
    np.testing.assert_allclose(out, ref_adam(0.1, weight_decay=0.5, decoupled=True), rtol=1e-12)
    assert not np.allclose(out, ref_adam(0.1, weight_decay=0.5))


def test_param_groups_and_zero_grad():
    a, b = nn.Parameter(tl.tensor([1.0])), nn.Parameter(tl.tensor([1.0]))
    optimizer = tl.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (a * 2.0 + b * 2.0).sum().backward()
    optimizer.step()
    assert a.tolist() == [0.8] and b.tolist() == [0.0]
    optimizer.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0]
    optimizer.zero_grad()
    assert a.grad is None and b.grad is None
    optimizer.step()  # parameters without gradients are skipped
    assert a.tolist() == [0.8]


def test_step_records_no_history_and_training_converges():
    tl.manual_seed(0)
    x = tl.randn(64, 3)
    y = x @ tl.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = nn.Linear(3, 1)
    optimizer = tl.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(300):
        optimizer.zero_grad()
        loss = model(x).mse_loss(y)
        loss.backward()
        optimizer.step()
    assert loss.item() < 1e-6
    np.testing.assert_allclose(model.weight.numpy(), [[1.0, -2.0, 0.5]], atol=1e-3)
    assert all(p.is_leaf and p.requires_grad for p in model.parameters())


def test_bad_arguments():
    w = nn.Parameter(tl.zeros(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        tl.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="invalid lr"):
        tl.optim.SGD([w], lr=-1.0)
    with pytest.raises(ValueError, match="Nesterov momentum needs momentum > 0"):
        tl.optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="invalid beta2"):
        tl.optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="leaf tensors with requires_grad=True"):
        tl.optim.Adam([tl.zeros(2)])
    with pytest.raises(ValueError, match="leaf tensors"):
        tl.optim.Adam([w * 2.0])
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        tl.optim.SGD([1.0], lr=0.1)
    with pytest.raises(ValueError, match="appears in two groups"):
        tl.optim.SGD([w, w], lr=0.1)
    with pytest.raises(TypeError, match="unknown hyper-parameter"):
        tl.optim.SGD([{"params": [w], "betas": (0.9, 0.9)}], lr=0.1)
