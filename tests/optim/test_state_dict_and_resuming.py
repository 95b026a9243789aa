"""Resuming training: an optimizer's `state_dict`, and checkpoints that hold a whole run.

A run stopped halfway and resumed from a checkpoint must continue exactly
as the run that never stopped: the parameters after the last step are
compared bit for bit with an uninterrupted run's.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn

OPTIMIZERS = {
    "sgd-momentum": lambda params: tl.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True),
    "adam": lambda params: tl.optim.Adam(params, lr=0.02, betas=(0.8, 0.99), weight_decay=0.01),
    "adamw": lambda params: tl.optim.AdamW(params, lr=0.02),
}


def _data(backend):
    rng = np.random.default_rng(3)
    x = tl.tensor(rng.standard_normal((16, 3)), backend=backend)
    y = tl.tensor(rng.standard_normal((16, 1)), backend=backend)
    return x, y


def _model(backend):
    tl.manual_seed(7)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(backend=backend)


def _train(model, optimizer, data, steps):
    x, y = data
    for _ in range(steps):
        optimizer.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        optimizer.step()


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_a_run_resumed_from_a_checkpoint_ends_where_the_unbroken_run_does(kind, backend, tmp_path):
    data = _data(backend)
    whole = _model(backend)
    _train(whole, OPTIMIZERS[kind](whole.parameters()), data, 8)

    first = _model(backend)
    first_opt = OPTIMIZERS[kind](first.parameters())
    _train(first, first_opt, data, 4)
    path = tmp_path / "run.safetensors"
    tl.save({"model": first, "optimizer": first_opt, "steps": 4}, path)

    run = tl.load(path, backend=backend)
    resumed = _model(backend)
    resumed_opt = OPTIMIZERS[kind](resumed.parameters())
    resumed.load_state_dict(run["model"])
    resumed_opt.load_state_dict(run["optimizer"])
    assert run["steps"] == 4
    _train(resumed, resumed_opt, data, 4)
    for name, value in whole.state_dict().items():
        np.testing.assert_array_equal(resumed.state_dict()[name].numpy(), value.numpy(), err_msg=name)


def test_state_dict_numbers_the_parameters_across_groups_as_pytorch():
    a, b, c = (nn.Parameter(tl.tensor([1.0, 2.0])) for _ in range(3))
    opt = tl.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, c):
        (p * p).sum().backward()
    opt.step()
    state = opt.state_dict()
    assert [g["params"] for g in state["param_groups"]] == [[0, 1], [2]]
    assert [g["lr"] for g in state["param_groups"]] == [0.1, 0.5]
    assert sorted(state["state"]) == [0, 2]  # b had no gradient: no state, as PyTorch
    np.testing.assert_array_equal(state["state"][2]["momentum_buffer"].numpy(), [2.0, 4.0])


def test_load_state_dict_takes_the_saved_hyper_parameters_and_copies_the_arrays():
    w = nn.Parameter(tl.tensor([1.0, -1.0]))
    opt = tl.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    saved = opt.state_dict()
    saved["param_groups"][0]["lr"] = 0.25
    other = nn.Parameter(tl.tensor([3.0, 3.0]))
    fresh = tl.optim.Adam([other], lr=0.1)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == 0.25 and fresh.state[other]["step"] == 1
    assert fresh.state[other]["exp_avg"] is not saved["state"][0]["exp_avg"].data
    np.testing.assert_array_equal(fresh.state[other]["exp_avg"], saved["state"][0]["exp_avg"].numpy())


def test_state_moves_to_each_parameters_backend_and_dtype(backend):
    source = nn.Parameter(tl.tensor([1.0, 2.0]))  # NumPy, float64
    opt = tl.optim.SGD([source], lr=0.1, momentum=0.9)
    (source * source).sum().backward()
    opt.step()
    target = nn.Parameter(tl.tensor(np.float32([0.0, 0.0]), backend=backend))
    resumed = tl.optim.SGD([target], lr=0.1, momentum=0.9)
    resumed.load_state_dict(opt.state_dict())
    buffer = resumed.state[target]["momentum_buffer"]
    assert tl.backends.of(buffer) is backend and buffer.dtype == target.dtype


@pytest.mark.parametrize("groups, message", [
    (lambda p, q: [p, q], r"groups of \[1\] parameters, this optimizer \[2\]"),
    (lambda p, q: [{"params": [p]}, {"params": [q]}], r"groups of \[1\] parameters, this optimizer \[1, 1\]"),
])
def test_load_state_dict_refuses_other_groups(groups, message):
    p, q = nn.Parameter(tl.ones(2)), nn.Parameter(tl.ones(2))
    saved = tl.optim.SGD([p], lr=0.1).state_dict()
    with pytest.raises(ValueError, match=message):
        tl.optim.SGD(groups(p, q), lr=0.1).load_state_dict(saved)


def test_load_state_dict_refuses_a_wrong_shape_and_changes_nothing():
    p = nn.Parameter(tl.ones(2))
    opt = tl.optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    saved = opt.state_dict()
    other = nn.Parameter(tl.ones(3))
    fresh = tl.optim.SGD([other], lr=0.3, momentum=0.9)
    with pytest.raises(ValueError, match=r"state\[0\]\['momentum_buffer'\] has shape \(2,\), its parameter \(3,\)"):
        fresh.load_state_dict(saved)
    assert fresh.state == {} and fresh.param_groups[0]["lr"] == 0.3


def test_a_tree_keeps_its_structure_and_a_flat_state_dict_stays_flat(tmp_path):
    tree = {"epoch": 3, "lr": np.float64(0.5), "name": "run", "none": None, "betas": (0.9, 0.99),
            "sizes": [1, 2], 7: {"deep": tl.tensor([1.0, 2.0]), "a/b": tl.tensor(1.0)}, "a": {"b": tl.tensor(2.0)}}
    tl.save(tree, tmp_path / "tree.safetensors")
    back = tl.load(tmp_path / "tree.safetensors")
    plain = {k: back[k] for k in ("epoch", "lr", "name", "none", "betas", "sizes")}
    assert not any(isinstance(v, tl.Tensor) for v in plain.values())  # (a 0-d Tensor == 0.5 is truthy too)
    assert plain == {"epoch": 3, "lr": 0.5, "name": "run", "none": None, "betas": (0.9, 0.99), "sizes": [1, 2]}
    assert type(plain["lr"]) is float
    assert back[7]["deep"].tolist() == [1.0, 2.0] and back[7]["a/b"].item() == 1.0 and back["a"]["b"].item() == 2.0
    model = nn.Linear(2, 2)
    tl.save(model, tmp_path / "flat.safetensors")
    import safetensors.numpy

    assert sorted(safetensors.numpy.load_file(tmp_path / "flat.safetensors")) == ["bias", "weight"]


def test_the_state_of_a_parameter_is_empty_before_its_first_step_as_pytorch():
    p = nn.Parameter(tl.ones(2))
    opt = tl.optim.Adam([p])
    assert opt.state[p] == {}
    (p * p).sum().backward()
    opt.step()
    assert opt.state[p]["step"] == 1 and opt.state_dict()["state"][0]["step"] == 1


def test_load_state_dict_refuses_another_kind_of_optimizers_state():
    p = nn.Parameter(tl.ones(2))
    adam = tl.optim.Adam([p]).state_dict()
    with pytest.raises(ValueError, match=r"lack SGD's \['dampening', 'momentum', 'nesterov'\]"):
        tl.optim.SGD([p], lr=0.1).load_state_dict(adam)
    tl.optim.AdamW([p]).load_state_dict(adam)  # the same hyper-parameters: taken, as PyTorch


def test_two_keys_whose_paths_read_alike_keep_their_own_arrays(tmp_path):
    # "a/b" at the top and "b" inside "a" are both stored under the path "a/b": the second must not overwrite
    tl.save({"a/b": tl.tensor([1.0]), "a": {"b": tl.tensor([2.0])}}, tmp_path / "alike.safetensors")
    back = tl.load(tmp_path / "alike.safetensors")
    assert back["a/b"].tolist() == [1.0] and back["a"]["b"].tolist() == [2.0]
