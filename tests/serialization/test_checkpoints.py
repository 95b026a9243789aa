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


# ------------------------------------------------------------------ the four defects of issue 24


def test_the_reserved_metadata_name_is_refused_at_save_time(tmp_path):
    path = tmp_path / "m.safetensors"
    with pytest.raises(ValueError, match="'__metadata__' is reserved"):
        tl.save({"__metadata__": tl.tensor([1.0])}, path)
    assert not path.exists()
    # inside a tree the array is stored under another name, and the key comes back as it was
    tl.save({"__metadata__": tl.tensor([1.0]), "epoch": 2}, path)
    run = tl.load(path)
    assert run["__metadata__"].tolist() == [1.0] and run["epoch"] == 2


def test_saving_into_a_missing_directory_is_an_oserror_naming_it(tmp_path):
    path = tmp_path / "nowhere" / "m.safetensors"
    with pytest.raises(FileNotFoundError, match="nowhere"):
        tl.save({"a": tl.tensor([1.0])}, path)
    assert not (tmp_path / "nowhere").exists()
    assert list(tmp_path.iterdir()) == []


def file_with_tree(tmp_path, tree, arrays=None):
    """A safetensors file with the given 'tree' metadata (a string, or JSON-dumped) and arrays."""
    import json

    from safetensors.numpy import save_file

    path = tmp_path / "crafted.safetensors"
    text = tree if isinstance(tree, str) else json.dumps(tree)
    save_file(arrays if arrays is not None else {"w": np.zeros(2)}, str(path),
              metadata={"format": "torchlight", "tree": text})
    return path


W = {"array": "w"}
MALFORMED = {
    "not JSON": ("{not json", "is not JSON"),
    "a list at the top": ({"list": [W]}, "the top is a dict node"),
    "a bare number at the top": (3, "the top is a dict node"),
    "a node with two keys": ({"dict": [["a", {"array": "w", "value": 1}]]}, "at 'a': a node is an object with one key"),
    "a node that is not an object": ({"dict": [["a", 5]]}, "at 'a': a node is an object"),
    "an unknown kind (loaded as junk before)": ({"dict": [["a", {"bogus": 5}], ["b", W]]},
                                                "at 'a': unknown node kind 'bogus'"),
    "a missing array": ({"dict": [["a", {"array": "nope"}], ["b", W]]}, "the array 'nope' is not in the file"),
    "an array name that is not a string": ({"dict": [["a", {"array": 3}]]}, "holds an array's name"),
    "dict content not a list": ({"dict": {"a": W}}, "a dict node holds a list of \\[key, node\\] pairs"),
    "a dict entry not a pair": ({"dict": [["a", W, 3]]}, "a dict entry is a \\[key, node\\] pair"),
    "a dict entry that is a string": ({"dict": ["ab"]}, "a dict entry is a \\[key, node\\] pair"),
    "a key of a wrong type": ({"dict": [[1.5, W]]}, "a dict key is a string or an int"),
    "list content not a list": ({"dict": [["a", {"list": "abc"}], ["b", W]]}, "a list node holds a list of nodes"),
    "a value that is an object": ({"dict": [["a", {"value": {"x": 1}}], ["b", W]]}, "a value node holds a number"),
    "a nested malformed node": ({"dict": [["opt", {"list": [{"tuple": [{"value": []}]}]}], ["b", W]]},
                                "at 'opt/0/0': a value node"),
    "an array the tree does not place": ({"dict": [["a", {"value": 1}]]}, "arrays the tree does not place: 'w'"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_every_malformed_tree_is_a_checkpoint_error_naming_what_is_wrong(tmp_path, case):
    tree, message = MALFORMED[case]
    path = file_with_tree(tmp_path, tree)
    with pytest.raises(CheckpointError, match=message) as info:
        tl.load(path)
    assert "crafted.safetensors" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_well_formed_crafted_tree_still_loads(tmp_path):
    path = file_with_tree(tmp_path, {"dict": [["a", {"tuple": [W, {"value": None}]}], [3, {"value": "x"}]]})
    run = tl.load(path)
    assert run[3] == "x" and run["a"][1] is None and run["a"][0].tolist() == [0.0, 0.0]


def test_checkpoint_error_is_exported():
    assert tl.CheckpointError is CheckpointError and issubclass(CheckpointError, ValueError)


def test_bfloat16_of_the_torch_backend_is_saved_and_loaded(tmp_path):
    torch = pytest.importorskip("torch", reason="bfloat16 tensors live on the torch backend")
    from safetensors import safe_open

    w = tl.tensor(torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16))
    path = tmp_path / "bf16.safetensors"
    tl.save({"w": w, "b": tl.tensor([1.0, 2.0], backend="torch"), "i": np.arange(3)}, path)
    with safe_open(str(path), "np") as f:
        assert f.get_slice("w").get_dtype() == "BF16" and f.get_slice("b").get_dtype() == "F64"
    state = tl.load(path, backend="torch")
    assert state["w"].dtype == torch.bfloat16 and torch.equal(state["w"].data, w.data)
    assert state["b"].tolist() == [1.0, 2.0] and state["i"].tolist() == [0, 1, 2]
    # inside a tree too (an optimizer's state of a bfloat16 model)
    tl.save({"model": {"w": w}, "step": 1}, path)
    assert tl.load(path, backend="torch")["model"]["w"].dtype == torch.bfloat16
    # elsewhere: a clear error, on saving and on loading
    with pytest.raises(TypeError, match="bfloat16, which only the torch backend holds"):
        tl.load(path, backend="numpy")


def test_bfloat16_from_another_backend_is_refused_at_save_time(tmp_path):
    jnp = pytest.importorskip("jax.numpy", reason="a bfloat16 array of another backend needs JAX")
    with pytest.raises(TypeError, match="bfloat16 is saved from the torch backend only"):
        tl.save({"w": jnp.zeros(2, dtype=jnp.bfloat16)}, tmp_path / "x.safetensors")
