"""torchlight.nn Modules: registration, traversal, modes, state, placement, layers, init."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.nn import functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(3, 4)
        self.second = nn.Linear(4, 2, bias=False)
        self.scale = nn.Parameter(tl.ones(2))
        self.register_buffer("steps", tl.zeros(1))
        self.note = "not a parameter"

    def forward(self, x):
        return self.second(self.first(x).tanh()) * self.scale


def test_parameters_are_found_by_attribute_in_order():
    block = Block()
    names = [name for name, _ in block.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias", "second.weight"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf for p in block.parameters())
    assert [name for name, _ in block.named_buffers()] == ["steps"]
    assert [name for name, _ in block.named_modules()] == ["", "first", "second"]
    assert list(block.state_dict()) == ["scale", "steps", "first.weight", "first.bias", "second.weight"]
    assert block.note == "not a parameter"
    assert block.second.bias is None


def test_shared_parameters_come_once_and_reassignment_replaces():
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2
    layer.bias = None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    with pytest.raises(TypeError, match=r"parameter 'weight': wrap it in nn.Parameter"):
        layer.weight = tl.zeros(2, 2)
    del layer.weight
    assert list(layer.named_parameters()) == []


def test_backward_reaches_every_parameter_and_zero_grad_clears():
    tl.manual_seed(0)
    block = Block()
    block(tl.randn(5, 3)).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in block.parameters())
    block.zero_grad(set_to_none=False)
    assert all(not p.grad.numpy().any() for p in block.parameters())
    block.zero_grad()
    assert all(p.grad is None for p in block.parameters())


def test_train_eval_reach_every_submodule():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    assert model.training and model[1].training
    assert model.eval() is model
    assert not model.training and not model[1].training
    x = tl.ones(4, 2)
    np.testing.assert_array_equal(model(x).numpy(), model(x).numpy())
    model.train()
    assert model[1].training


def test_state_dict_round_trip_and_mismatch_errors():
    tl.manual_seed(0)
    source, target = Block(), Block()
    source.steps = tl.full((1,), 7.0)
    target.load_state_dict(source.state_dict())
    for (name, a), (_, b) in zip(source.state_dict().items(), target.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    state = source.state_dict()
    state["first.weight"] = tl.zeros(5, 3)
    del state["scale"]
    state["extra"] = tl.zeros(1)
    before = target.first.weight.numpy().copy()
    with pytest.raises(ValueError) as info:
        target.load_state_dict(state)
    message = str(info.value)
    assert "missing entries: scale" in message and "unexpected entries: extra" in message
    assert "first.weight: shape (5, 3) in the state dict, (4, 3) in the model" in message
    np.testing.assert_array_equal(target.first.weight.numpy(), before)  # nothing changed
    state["first.weight"] = tl.zeros(4, 3, dtype="float32")
    with pytest.raises(ValueError, match="first.weight: dtype float32 in the state dict, float64 in the model"):
        target.load_state_dict(state, strict=False)


def test_to_moves_parameters_in_place(backend):
    tl.manual_seed(0)
    model = Block()
    weight = model.first.weight
    optimizer = tl.optim.SGD(model.parameters(), lr=0.1)
    x = np.random.default_rng(0).standard_normal((2, 3))
    expected = model(tl.tensor(x)).numpy()
    assert model.to(backend=backend) is model
    assert model.first.weight is weight and weight.backend is backend
    assert all(t.backend is backend for t in [*model.parameters(), *model.buffers()])
    out = model(tl.tensor(x, backend=backend))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    out.sum().backward()
    optimizer.step()
    assert weight.backend is backend and weight.grad.backend is backend


def test_repr_is_readable():
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Dropout(0.1), nn.Linear(32, 10), nn.LayerNorm(10), nn.Embedding(5, 2))
    text = repr(model)
    assert text.splitlines()[0] == "Sequential("
    assert "(0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))" in text
    assert "(5): Linear(in_features=32, out_features=10, bias=True)" in text
    assert "(4): Dropout(p=0.1)" in text and "(7): Embedding(5, 2)" in text
    assert repr(nn.Parameter(tl.zeros(1))).startswith("Parameter containing:\ntensor(")


def test_layers_agree_with_functional(backend):
    tl.manual_seed(0)
    x = tl.tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6)), backend=backend)
    conv = nn.Conv2d(3, 4, (3, 2), stride=2, padding=1).to(backend=backend)
    np.testing.assert_array_equal(conv(x).numpy(), F.conv2d(x, conv.weight, conv.bias, 2, 1).numpy())
    np.testing.assert_array_equal(nn.MaxPool2d(2)(x).numpy(), F.max_pool2d(x, 2).numpy())
    np.testing.assert_array_equal(nn.AvgPool2d(3, 1, 1)(x).numpy(), F.avg_pool2d(x, 3, 1, 1).numpy())
    assert nn.Flatten()(x).shape == (2, 108)
    assert nn.Flatten(0, 1)(x).shape == (6, 6, 6)
    norm = nn.LayerNorm((6, 6)).to(backend=backend)
    out = norm(x).numpy()
    np.testing.assert_allclose(out.mean(axis=(2, 3)), 0.0, atol=1e-12)
    for act, ref in [(nn.ReLU(), lambda a: np.maximum(a, 0)), (nn.Tanh(), np.tanh),
                     (nn.Sigmoid(), lambda a: 1 / (1 + np.exp(-a)))]:
        np.testing.assert_allclose(act(x).numpy(), ref(x.numpy()), rtol=1e-12)


def test_linear_rejects_a_wrong_input_width():
    layer = nn.Linear(4, 2)
    with pytest.raises(ValueError, match=r"Linear\(in_features=4, out_features=2\): the input of shape "
                                         r"\(3, 5\) has width 5, expected 4"):
        layer(tl.zeros(3, 5))


def test_module_misuse_errors():
    class Forgot(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="call super"):
        Forgot()
    with pytest.raises(NotImplementedError, match="must define forward"):
        nn.Module()(1)
    with pytest.raises(TypeError, match="not a Module"):
        nn.Sequential(nn.ReLU(), "relu")
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        getattr(nn.Linear(1, 1), "missing")  # noqa: B009
    with pytest.raises(ValueError, match=r"Dropout: p must be in \[0, 1\]"):
        nn.Dropout(-0.1)


def test_initialisation_follows_pytorch():
    tl.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = layer.weight.numpy(), layer.bias.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound  # uniform(-a, a) has std a / sqrt(3)
    assert np.abs(b).max() <= bound
    conv = nn.Conv2d(16, 8, 3, dtype="float32")
    assert conv.weight.dtype == np.float32
    assert np.abs(conv.weight.numpy()).max() <= 1 / math.sqrt(16 * 9)
    table = nn.Embedding(1000, 20).weight.numpy()
    assert abs(table.mean()) < 0.02 and abs(table.std() - 1) < 0.02
    norm = nn.LayerNorm(4)
    assert norm.weight.tolist() == [1.0] * 4 and norm.bias.tolist() == [0.0] * 4
    tl.manual_seed(3)
    first = nn.Linear(3, 3).weight.numpy()
    tl.manual_seed(3)
    np.testing.assert_array_equal(nn.Linear(3, 3).weight.numpy(), first)
    w = nn.Parameter(tl.zeros(200, 100))
    nn.init.xavier_uniform_(w)
    assert np.abs(w.numpy()).max() <= math.sqrt(6 / 300)
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.numpy().std() - math.sqrt(2 / 100)) < 0.01
    with pytest.raises(ValueError, match="unknown nonlinearity"):
        nn.init.calculate_gain("swish")


NN_MODULES = ["torchlight.nn", "torchlight.nn.module", "torchlight.nn.parameter", "torchlight.nn.init",
              "torchlight.nn.functional", "torchlight.nn.linear", "torchlight.nn.activation",
              "torchlight.nn.container", "torchlight.nn.dropout", "torchlight.nn.embedding",
              "torchlight.nn.normalization", "torchlight.nn.conv", "torchlight.nn.pooling", "torchlight.optim",
              "torchlight.serialization"]


@pytest.mark.parametrize("name", NN_MODULES)
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0
