"""Checkpoints: `tl.save` and `tl.load` in the safetensors format (never pickle).

A checkpoint is a flat mapping name -> array, stored as safetensors: a
JSON header (names, dtypes, shapes, offsets) and raw bytes, so loading
one can never run code. `tl.load` gives back Tensors; a model takes them
with `load_state_dict`, which checks every name, shape and dtype.

Anything else that `tl.save` is given (an optimizer's `state_dict()`, or
a dict such as {"model": model, "optimizer": opt, "epoch": 3}) is kept
as a tree: its arrays are stored under their paths ("optimizer/state/0/
exp_avg"), and the tree itself (dicts, lists, tuples, numbers, strings,
None, and where each array goes) as JSON in the header's metadata, so
`tl.load` gives the same structure back, still without running code.

Example:
    >>> import os, tempfile
    >>> import torchlight as tl
    >>> model = tl.nn.Linear(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "linear.safetensors")
    >>> tl.save(model, path)
    >>> state = tl.load(path)
    >>> sorted(state), state["weight"].shape
    (['bias', 'weight'], (2, 3))
    >>> _ = tl.nn.Linear(3, 2).load_state_dict(state)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from torchlight import backends
from torchlight.creation import tensor
from torchlight.tensor import Tensor

__all__ = ["CheckpointError", "load", "save"]

FORMAT = "torchlight"


class CheckpointError(ValueError):
    """A file that is not a readable safetensors checkpoint (truncated, corrupt, or another format)."""


def _safetensors_numpy() -> Any:
    try:
        import safetensors.numpy
    except ImportError as exc:
        raise ImportError(
            "tl.save / tl.load need the safetensors package: pip install safetensors "
            "(or the 'examples' / 'test' extra of torchlight)"
        ) from exc
    return safetensors.numpy


def _as_state(obj: Any) -> Any:
    if hasattr(obj, "state_dict") and callable(obj.state_dict):
        return obj.state_dict()
    if isinstance(obj, Mapping):
        return obj
    raise TypeError(f"tl.save: expected a Module, an optimizer or a mapping, got {type(obj).__name__}")


def _is_array(value: Any) -> bool:
    """A Tensor or an array; a NumPy scalar (it has a shape and a dtype too) is a number."""
    return isinstance(value, Tensor) or (hasattr(value, "shape") and hasattr(value, "dtype")
                                         and not isinstance(value, np.generic))


def _is_flat(state: Mapping[Any, Any]) -> bool:
    """A mapping of names to arrays (a model's state dict): stored as it is, with no tree."""
    return all(isinstance(k, str) and _is_array(v) for k, v in state.items())


def _encode(value: Any, path: str, arrays: dict[str, np.ndarray]) -> Any:
    """The JSON tree of `value`, its arrays put in `arrays` under their paths."""
    if hasattr(value, "state_dict") and callable(value.state_dict):
        value = value.state_dict()
    if _is_array(value):
        name = path
        while name in arrays:  # a key holding "/" may name a path twice
            name += "+"
        arrays[name] = _host_array(name, value)
        return {"array": name}
    if isinstance(value, Mapping):
        bad = next((k for k in value if not isinstance(k, (str, int)) or isinstance(k, bool)), None)
        if bad is not None:
            raise TypeError(f"tl.save: key {bad!r} at {path or 'the top'!r} is not a string or an int")
        return {"dict": [[k, _encode(v, f"{path}/{k}" if path else str(k), arrays)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [_encode(v, f"{path}/{i}", arrays) for i, v in enumerate(value)]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, np.generic):  # a NumPy scalar (an lr from a schedule)
        return {"value": value.item()}
    raise TypeError(f"tl.save: {path or 'the top'!r} is of type {type(value).__name__}; a checkpoint holds tensors, "
                    "arrays, numbers, strings, None, and dicts, lists and tuples of them")


def _decode(node: dict[str, Any], arrays: Mapping[str, Any], make: Any) -> Any:
    """The value `_encode` made `node` from, with each array made a Tensor by `make`."""
    (kind, content), = node.items()
    if kind == "array":
        return make(arrays[content])
    if kind == "dict":
        return {key: _decode(value, arrays, make) for key, value in content}
    if kind in ("list", "tuple"):
        items = [_decode(value, arrays, make) for value in content]
        return items if kind == "list" else tuple(items)
    return content


def _host_array(name: Any, value: Any) -> np.ndarray:
    if not isinstance(name, str):
        raise TypeError(f"tl.save: checkpoint names must be strings, got {name!r}")
    # np.asarray(order="C"), not np.ascontiguousarray: that one makes a 0-d array 1-d
    if isinstance(value, Tensor):
        return np.asarray(value.numpy(), order="C")
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return np.asarray(backends.of(value).to_numpy(value), order="C")
    raise TypeError(f"tl.save: entry {name!r} is a {type(value).__name__}, not a Tensor or an array")


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write a Module's `state_dict()` (or a mapping name -> Tensor/array) to `path`.

    Every tensor is copied to the host; the file records names, dtypes and
    shapes, and metadata {"format": "torchlight"}. An optimizer, or a dict
    holding modules, optimizers, numbers and the like, is saved as a tree
    (see the module docstring) that `tl.load` gives back.

    Example:
        >>> import os, tempfile
        >>> import torchlight as tl
        >>> model = tl.nn.Linear(2, 1)
        >>> opt = tl.optim.Adam(model.parameters(), lr=0.01)
        >>> path = os.path.join(tempfile.mkdtemp(), "run.safetensors")
        >>> tl.save({"model": model, "optimizer": opt, "epoch": 3}, path)
        >>> run = tl.load(path)
        >>> run["epoch"], sorted(run["model"]), run["optimizer"]["param_groups"][0]["betas"]
        (3, ['bias', 'weight'], (0.9, 0.999))
        >>> _ = model.load_state_dict(run["model"]); opt.load_state_dict(run["optimizer"])
    """
    st = _safetensors_numpy()
    state = _as_state(obj)
    metadata = {"format": FORMAT}
    if isinstance(state, Mapping) and _is_flat(state):
        arrays = {name: _host_array(name, value) for name, value in state.items()}
    else:
        arrays = {}
        metadata["tree"] = json.dumps(_encode(state, "", arrays))
    st.save_file(arrays, os.fspath(path), metadata=metadata)


def load(path: str | os.PathLike, *, backend: Any = None, device: Any = None) -> dict[Any, Any]:
    """Read a safetensors checkpoint into a dict name -> Tensor on `backend`/`device`
    (or into the tree that was saved: an optimizer's state dict, a dict of several).

    Raises FileNotFoundError for a missing file and CheckpointError for a
    file that is truncated, corrupt or not safetensors at all.
    """
    st = _safetensors_numpy()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tl.load: no checkpoint file at {path!r}")
    try:
        with st.safe_open(path, framework="numpy") as f:
            arrays = {name: f.get_tensor(name) for name in f.keys()}
            tree = (f.metadata() or {}).get("tree")
        tree = None if tree is None else json.loads(tree)
    except Exception as exc:  # safetensors raises its own SafetensorError (and OSError, ValueError)
        raise CheckpointError(
            f"tl.load: {path!r} is not a valid safetensors checkpoint (truncated, corrupt, "
            f"or another format): {exc}"
        ) from exc
    def make(array: Any) -> Tensor:
        return tensor(array, backend=backend, device=device)

    if tree is not None:
        return _decode(tree, arrays, make)
    return {name: make(array) for name, array in arrays.items()}
