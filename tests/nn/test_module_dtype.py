"""`Module.to(dtype)`, `float()`, `double()`, `half()`: PyTorch's casts of a model's floating state."""

from __future__ import annotations

import pytest

import torchlight as tl


def test_to_dtype_casts_floating_parameters_buffers_and_grads_in_place():
    model = tl.nn.Sequential(tl.nn.Linear(3, 2), tl.nn.LayerNorm(2))
    weight = model[0].weight
    (model(tl.ones(4, 3)).sum()).backward()
    model.float()
    assert model[0].weight is weight and weight.dtype == tl.float32 and weight.grad.dtype == tl.float32
    assert all(p.dtype == tl.float32 for p in model.parameters())
    out = model(tl.ones(4, 3, dtype="float32"))
    assert out.dtype == tl.float32
    assert model.double()[0].bias.dtype == tl.float64
    assert str(model.half()[0].weight.dtype) == "float16"


def test_to_dtype_refuses_a_non_floating_dtype():
    with pytest.raises(TypeError, match="floating"):
        tl.nn.Linear(2, 2).to(dtype="int64")


def test_to_dtype_matches_pytorch_parameter_values():
    torch = pytest.importorskip("torch", reason="torch is not installed: the cast is not compared")
    layer = tl.nn.Linear(3, 2)
    reference = torch.nn.Linear(3, 2).double()
    reference.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    layer.float()
    reference.float()
    assert layer.weight.numpy().tolist() == reference.weight.detach().numpy().tolist()


def test_a_float32_batch_into_a_float64_layer_is_refused_as_pytorch():
    layer = tl.nn.Linear(3, 2)  # float64 by default
    with pytest.raises(TypeError, match="linear: the input is float32 but the weight is float64"):
        layer(tl.ones(4, 3, dtype="float32"))
    assert layer.float()(tl.ones(4, 3, dtype="float32")).dtype == tl.float32


def test_randn_in_float16_draws_and_casts():
    assert str(tl.randn(3, dtype="float16").dtype) == "float16"


@pytest.mark.parametrize("layer, shape", [(lambda: tl.nn.Conv2d(1, 2, 3), (1, 1, 5, 5)),
                                          (lambda: tl.nn.LayerNorm(3), (4, 3)), (lambda: tl.nn.Linear(3, 2), (4, 3))])
def test_every_weighted_layer_refuses_an_input_of_another_dtype(layer, shape):
    with pytest.raises(TypeError, match="the input is float32 but the weight is float64"):
        layer()(tl.ones(*shape, dtype="float32"))
