"""torchlight.nn's Modules (registration, reassignment, state dicts, Sequential, Flatten) and losses
at their edges: regressions found by comparing them with PyTorch (CPU, float64).

PyTorch was only the discovery tool: each test pins the behaviour with a
closed form, a float64 NumPy reference or a central-difference gradcheck.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.nn import functional as F


class Scaled(nn.Module):
    """A 0-d parameter and a 0-d buffer (a temperature, a step counter)."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(tl.tensor(2.5))
        self.register_buffer("steps", tl.tensor(np.array(7, dtype=np.int64)))


# ----------------------------------------------------------------- Module
class Tied(nn.Module):
    """An encoder whose Linear is also registered as the decoder (weight tying by module)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.decoder = self.encoder
        self.head = nn.Linear(3, 1)


def test_reassigning_a_parameter_module_or_buffer_keeps_its_place():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1), nn.Linear(1, 1))
    model[0].weight = nn.Parameter(tl.ones(3, 2))  # re-initialised by hand, as PyTorch users do
    model[1].register_parameter("weight", nn.Parameter(tl.ones(1, 3)))
    model.add_module("0", nn.Linear(2, 3))
    setattr(model, "1", nn.Linear(3, 1))
    model[2].weight = None
    model[2].weight = nn.Parameter(tl.ones(1, 1))
    assert [name for name, _ in model.named_children()] == ["0", "1", "2"]
    names = ["0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"]
    assert [name for name, _ in model.named_parameters()] == names
    assert list(model.state_dict()) == names
    holder = Scaled()
    holder.register_buffer("extra", tl.zeros(1))
    holder.register_buffer("steps", tl.tensor(np.array(0, dtype=np.int64)))
    assert [name for name, _ in holder.named_buffers()] == ["steps", "extra"]


def test_a_shared_submodule_is_in_the_state_dict_under_every_name(tmp_path):
    model = Tied()
    names = ["encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias", "head.weight", "head.bias"]
    assert list(model.state_dict()) == names
    assert model.state_dict()["decoder.weight"].data is model.encoder.weight.data
    assert [name for name, _ in model.named_parameters()] == ["encoder.weight", "encoder.bias", "head.weight",
                                                             "head.bias"]
    assert [name for name, _ in model.named_modules()] == ["", "encoder", "act", "head"]
    assert [name for name, _ in model.named_children()] == ["encoder", "act", "head"]
    path = tmp_path / "tied.safetensors"
    tl.save(model, path)
    fresh = Tied()
    assert fresh.load_state_dict(tl.load(path)) == ([], [])  # strict: every name is expected
    np.testing.assert_array_equal(fresh.decoder.weight.numpy(), model.encoder.weight.numpy())
    assert fresh.decoder is fresh.encoder
    assert "(decoder): Linear" in repr(model)


def test_sequential_applies_a_repeated_module_each_time():
    double = nn.Linear(1, 1, bias=False)
    double.weight = nn.Parameter(tl.tensor([[2.0]]))
    model = nn.Sequential(double, nn.ReLU(), double)
    assert len(model) == 3 and len(list(model.children())) == 2
    assert model(tl.tensor([[1.5]])).item() == 6.0


def test_load_state_dict_copies_the_values(backend):
    source = nn.Linear(2, 2).to(backend=backend)
    target = nn.Linear(2, 2).to(backend=backend)
    target.load_state_dict(source.state_dict())
    assert target.weight.data is not source.weight.data
    np.testing.assert_array_equal(target.weight.numpy(), source.weight.numpy())
    arrays = {"weight": np.ones((2, 2)), "bias": np.zeros(2)}
    host = nn.Linear(2, 2)
    host.load_state_dict(arrays)
    arrays["weight"][0, 0] = 5.0  # the caller reuses its array: the model keeps what it loaded
    assert host.weight.numpy()[0, 0] == 1.0


def test_flatten_refuses_dims_out_of_range_instead_of_wrapping_them():
    x = tl.ones(4, 5)
    assert nn.Flatten()(x).shape == (4, 5) and nn.Flatten(0)(x).shape == (20,)
    assert nn.Flatten(-2, -1)(tl.ones(2, 3, 4)).shape == (2, 12)
    for start, end in [(2, -1), (0, 5), (-4, -1)]:  # 2 % 2 == 0 flattened the batch axis away
        with pytest.raises(IndexError, match="out of range"):
            nn.Flatten(start, end)(x if start == 2 else tl.ones(2, 3, 4))
    assert nn.Flatten(0)(tl.tensor(1.0)).shape == (1,)  # a 0-d tensor has dims 0 and -1, as PyTorch


def test_registering_refuses_names_that_state_dict_could_not_tell_apart():
    model = nn.Sequential(nn.Linear(2, 2))
    for register, value in [(model.register_parameter, nn.Parameter(tl.zeros(1))),
                            (model.register_buffer, tl.zeros(1)), (model.add_module, nn.ReLU())]:
        with pytest.raises(KeyError, match="'0.weight'"):  # would collide with layer 0's weight
            register("0.weight", value)
        with pytest.raises(KeyError, match="empty"):
            register("", value)
    with pytest.raises(KeyError, match="'0' already exists"):
        model.register_buffer("0", tl.zeros(1))  # the layer would silently become a buffer
    layer = model[0]
    with pytest.raises(KeyError, match="'weight' already exists"):
        layer.register_buffer("weight", tl.zeros(2, 2))  # and the weight would leave the optimizer's list
    layer.note = 1.0
    with pytest.raises(KeyError, match="'note' already exists"):
        layer.register_parameter("note", nn.Parameter(tl.zeros(1)))
    layer.register_parameter("bias", None)  # re-registering an entry of the same kind is fine
    assert [name for name, _ in model.named_parameters()] == ["0.weight"]
    with pytest.raises(ValueError, match="boolean"):
        model.train("no")


# ----------------------------------------------------------------- losses
def test_binary_cross_entropy_gradient_at_p_0_and_1_is_finite_and_points_the_right_way(backend):
    p = tl.tensor([0.0, 1.0, 0.0, 1.0, 0.25, 0.0], backend=backend, requires_grad=True)
    t = tl.tensor([1.0, 0.0, 0.5, 0.5, 1.0, 0.0], backend=backend, requires_grad=True)
    loss = F.binary_cross_entropy(p, t, reduction="sum")
    np.testing.assert_allclose(loss.item(), 100 + 100 + 50 + 50 + np.log(4.0), rtol=1e-12)  # logs clamped at -100
    loss.backward()
    # (p - t) / max(p (1 - p), 1e-12), as PyTorch; the clamped log gave 0 (and +0.5 at p = 0, t = 0.5:
    # the loss falls as p rises from 0, so the gradient must be negative)
    np.testing.assert_allclose(p.grad.numpy(), [-1e12, 1e12, -0.5e12, 0.5e12, -4.0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), [100.0, -100.0, 100.0, -100.0, np.log(3.0), 100.0], rtol=1e-12)
    rng = np.random.default_rng(0)
    inside = tl.tensor(rng.uniform(0.05, 0.95, (3, 4)), backend=backend, requires_grad=True)
    soft = tl.tensor(rng.uniform(0.0, 1.0, (3, 4)), backend=backend, requires_grad=True)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b), inside, soft)
    assert gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b, reduction="sum"), inside, soft)


def test_load_state_dict_names_a_value_that_is_no_array():
    layer = nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"weight: a list in the state dict, not a Tensor or an array; bias: a float"):
        layer.load_state_dict({"weight": [[1.0, 2.0], [3.0, 4.0]], "bias": 0.0})  # was "shape () ... (2, 2)"


def test_layer_norm_wants_weight_and_bias_of_the_normalized_shape():
    x = tl.tensor(np.arange(8.0).reshape(2, 4))
    for weight, bias in [(tl.ones(1), None), (tl.ones(2, 4), None), (None, tl.zeros(1))]:  # would broadcast silently
        with pytest.raises(ValueError, match=r"layer_norm: .* of shape \((1|2, 4),?\) .* normalized_shape \(4,\)"):
            F.layer_norm(x, 4, weight, bias)
    row = np.arange(4.0)
    expected = (row - row.mean()) / np.sqrt(row.var() + 1e-5) * 2.0 + 1.0
    out = F.layer_norm(x, 4, tl.full((4,), 2.0), tl.ones(4))
    np.testing.assert_allclose(out.numpy(), [expected, expected], rtol=1e-12)
