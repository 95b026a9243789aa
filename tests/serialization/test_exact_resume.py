"""A run with dropout and a shuffling DataLoader, checkpointed (model, optimizer, random state) and
resumed into freshly made objects, gives bit for bit the parameters of the uninterrupted run."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.utils.data import DataLoader, TensorDataset

RNG = np.random.default_rng(0)
X, Y = RNG.normal(size=(24, 4)), RNG.normal(size=(24, 1))


def setup(backend, seed):
    tl.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Dropout(0.5), nn.Linear(16, 1)).to(backend=backend)
    opt = tl.optim.Adam(model.parameters(), lr=0.01)
    loader = DataLoader(TensorDataset(tl.tensor(X, backend=backend), tl.tensor(Y, backend=backend)),
                        batch_size=8, shuffle=True)
    return model, opt, loader


def train(model, opt, loader, epochs):
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            ((model(xb) - yb) ** 2).mean().backward()
            opt.step()


def test_a_resumed_run_with_dropout_is_bit_exact(backend, tmp_path):
    model, opt, loader = setup(backend, seed=0)
    train(model, opt, loader, epochs=2)
    try:
        backend.get_rng_state()
    except RuntimeError as exc:  # CuPy's generators give no state once they have drawn (docs/nn.md)
        pytest.skip(f"the {backend.name} backend cannot save its random state after drawing: {exc}")
    path = tmp_path / "run.safetensors"
    tl.save({"model": model, "optimizer": opt, "rng": tl.get_rng_state()}, path)
    train(model, opt, loader, epochs=2)
    uninterrupted = [p.numpy().copy() for p in model.parameters()]

    model, opt, loader = setup(backend, seed=123)  # other weights, other streams
    tl.rand(7, backend=backend)
    run = tl.load(path, backend=backend)
    model.load_state_dict(run["model"])
    opt.load_state_dict(run["optimizer"])
    tl.set_rng_state(run["rng"])
    train(model, opt, loader, epochs=2)
    for got, want in zip(model.parameters(), uninterrupted):
        np.testing.assert_array_equal(got.numpy(), want)


def test_without_the_random_state_the_resume_differs(tmp_path):
    model, opt, loader = setup("numpy", seed=0)
    train(model, opt, loader, epochs=1)
    tl.save({"model": model, "optimizer": opt}, tmp_path / "run.safetensors")
    train(model, opt, loader, epochs=1)
    uninterrupted = [p.numpy().copy() for p in model.parameters()]
    model, opt, loader = setup("numpy", seed=123)
    run = tl.load(tmp_path / "run.safetensors")
    model.load_state_dict(run["model"])
    opt.load_state_dict(run["optimizer"])
    train(model, opt, loader, epochs=1)
    assert any(not np.array_equal(p.numpy(), u) for p, u in zip(model.parameters(), uninterrupted))
