"""tl.save / tl.load: safetensors checkpoints, round trips across backends, and every failure mode.

That a 0-d tensor stays 0-d through a checkpoint was found by comparing with PyTorch.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.serialization import CheckpointError


def small_model(dtype="float64"):
    return nn.Sequential(nn.Conv2d(1, 2, 3, dtype=dtype), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3, dtype=dtype))


def test_round_trip_preserves_values_exactly(backend, tmp_path):
    tl.manual_seed(0)
    model = small_model("float32").to(backend=backend)
    path = tmp_path / "model.safetensors"
    tl.save(model, path)
    state = tl.load(path, backend=backend)
    assert sorted(state) == sorted(model.state_dict())
    assert all(t.backend is backend and t.dtype == model.state_dict()[n].dtype for n, t in state.items())
    tl.manual_seed(1)
    fresh = small_model("float32").to(backend=backend)
    fresh.load_state_dict(state)
    x = tl.tensor(np.random.default_rng(0).standard_normal((4, 1, 4, 4)).astype(np.float32), backend=backend)
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())


def test_a_state_dict_or_plain_arrays_can_be_saved(tmp_path):
    path = tmp_path / "state.safetensors"
    tl.save({"a": tl.tensor([1.0, 2.0]), "b": np.arange(3, dtype=np.int32)}, path)
    state = tl.load(path)
    assert state["a"].tolist() == [1.0, 2.0] and state["b"].tolist() == [0, 1, 2]
    assert state["b"].dtype == np.int32


def test_the_file_is_safetensors_not_pickle(tmp_path):
    from safetensors import safe_open

    path = tmp_path / "m.safetensors"
    tl.save(nn.Linear(2, 2), path)
    with safe_open(str(path), "np") as f:
        assert f.metadata() == {"format": "torchlight"}
        assert sorted(f.keys()) == ["bias", "weight"]
    assert not path.read_bytes().startswith(b"\x80")  # no pickle protocol header


def test_mismatches_are_named(tmp_path):
    path = tmp_path / "m.safetensors"
    tl.save(small_model(), path)
    wider = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 4))
    with pytest.raises(ValueError, match=r"3.weight: shape \(3, 8\) in the state dict, \(4, 8\) in the model"):
        wider.load_state_dict(tl.load(path))
    with pytest.raises(ValueError, match="0.weight: dtype float64 in the state dict, float32 in the model"):
        small_model("float32").load_state_dict(tl.load(path))
    with pytest.raises(ValueError, match="missing entries: 0.weight, 0.bias, 1.weight, 1.bias"):
        nn.Sequential(nn.Linear(1, 1), nn.Conv2d(1, 1, 1)).load_state_dict({})


def test_truncated_corrupt_and_foreign_files(tmp_path):
    path = tmp_path / "m.safetensors"
    tl.save(small_model(), path)
    data = path.read_bytes()
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(data[: len(data) - 7])
    with pytest.raises(CheckpointError, match="not a valid safetensors checkpoint"):
        tl.load(truncated)
    text = tmp_path / "notes.txt"
    text.write_text("these are not the weights you are looking for")
    with pytest.raises(CheckpointError, match="notes.txt"):
        tl.load(text)
    empty = tmp_path / "empty.safetensors"
    empty.write_bytes(b"")
    with pytest.raises(CheckpointError):
        tl.load(empty)
    with pytest.raises(FileNotFoundError, match="no checkpoint file"):
        tl.load(tmp_path / "missing.safetensors")


def test_bad_objects_to_save(tmp_path):
    with pytest.raises(TypeError, match="expected a Module, an optimizer or a mapping"):
        tl.save([1, 2], tmp_path / "x.safetensors")
    with pytest.raises(TypeError, match="'run/w' is of type object"):
        tl.save({"run": {"w": object()}}, tmp_path / "x.safetensors")
    with pytest.raises(TypeError, match="key 1.5 at 'run'"):
        tl.save({"run": {1.5: 2}}, tmp_path / "x.safetensors")


def test_missing_safetensors_gives_install_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    with pytest.raises(ImportError, match="pip install safetensors"):
        tl.save(nn.Linear(1, 1), tmp_path / "x.safetensors")


class Scaled(nn.Module):
    """A 0-d parameter and a 0-d buffer (a temperature, a step counter)."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(tl.tensor(2.5))
        self.register_buffer("steps", tl.tensor(np.array(7, dtype=np.int64)))


def test_a_0d_tensor_stays_0d_through_save_and_load(backend, tmp_path):
    path = tmp_path / "scalar.safetensors"
    tl.save({"s": tl.tensor(3.5, backend=backend), "v": tl.tensor([1.0, 2.0], backend=backend)}, path)
    state = tl.load(path, backend=backend)
    assert state["s"].shape == () and state["s"].item() == 3.5
    assert state["v"].shape == (2,)
    model = Scaled()
    tl.save(model, path)
    fresh = Scaled()
    fresh.scale = nn.Parameter(tl.tensor(0.0))
    fresh.load_state_dict(tl.load(path))
    assert fresh.scale.shape == () and fresh.scale.item() == 2.5 and fresh.steps.item() == 7
