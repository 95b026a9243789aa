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

`tl.load` checks that tree node by node: a file it cannot read, or whose
tree `tl.save` could not have written, is a CheckpointError naming the
file, the place in the tree and what is wrong. bfloat16 (which NumPy lacks)
goes through safetensors' torch side, from and to the torch backend only.

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
RESERVED = "__metadata__"  # the safetensors header's own entry: no array may take the name
NODES = ("array", "dict", "list", "tuple", "value")


class CheckpointError(ValueError):
    """A file that is not a readable checkpoint: truncated, corrupt, another format, or a
    tree (the metadata `tl.save` writes for nested state) that is malformed.

    Example:
        >>> import os, tempfile
        >>> import torchlight as tl
        >>> path = os.path.join(tempfile.mkdtemp(), "notes.safetensors")
        >>> with open(path, "w") as f:
        ...     _ = f.write("not weights")
        >>> try:
        ...     tl.load(path)
        ... except tl.CheckpointError as exc:
        ...     print("not a valid safetensors checkpoint" in str(exc))
        True
    """


class _Bfloat16:
    """A torch bfloat16 array bound for the file (NumPy has no bfloat16: written through torch)."""

    def __init__(self, array: Any) -> None:
        self.array = array.detach().cpu().contiguous().clone()


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
        while name in arrays or name == RESERVED:  # a key holding "/" may name a path twice
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


def _decode(node: Any, arrays: Mapping[str, Any], make: Any, where: str, used: set[str]) -> Any:
    """The value `_encode` made `node` from, with each array made a Tensor by `make`;
    a node `_encode` could not have made is a CheckpointError naming where it is."""
    def bad(what: str) -> CheckpointError:
        return CheckpointError(f"malformed 'tree' metadata at {where or 'the top'!r}: {what}")

    if not isinstance(node, dict) or len(node) != 1:
        raise bad(f"a node is an object with one key ({', '.join(NODES)}), got {_shown(node)}")
    (kind, content), = node.items()
    if kind == "array":
        if not isinstance(content, str):
            raise bad(f"an array node holds an array's name (a string), got {_shown(content)}")
        if content not in arrays:
            raise bad(f"the array {content!r} is not in the file")
        used.add(content)
        return make(arrays[content])
    if kind == "dict":
        if not isinstance(content, list):
            raise bad(f"a dict node holds a list of [key, node] pairs, got {_shown(content)}")
        out = {}
        for item in content:
            if not isinstance(item, list) or len(item) != 2:
                raise bad(f"a dict entry is a [key, node] pair, got {_shown(item)}")
            key, value = item
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise bad(f"a dict key is a string or an int, got {_shown(key)}")
            out[key] = _decode(value, arrays, make, f"{where}/{key}" if where else str(key), used)
        return out
    if kind in ("list", "tuple"):
        if not isinstance(content, list):
            raise bad(f"a {kind} node holds a list of nodes, got {_shown(content)}")
        items = [_decode(value, arrays, make, f"{where}/{i}", used) for i, value in enumerate(content)]
        return items if kind == "list" else tuple(items)
    if kind == "value":
        if content is not None and not isinstance(content, (bool, int, float, str)):
            raise bad(f"a value node holds a number, a string, true, false or null, got {_shown(content)}")
        return content
    raise bad(f"unknown node kind {kind!r} (expected one of {', '.join(NODES)})")


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _host_array(name: Any, value: Any) -> np.ndarray:
    if not isinstance(name, str):
        raise TypeError(f"tl.save: checkpoint names must be strings, got {name!r}")
    if not (isinstance(value, Tensor) or (hasattr(value, "shape") and hasattr(value, "dtype"))):
        raise TypeError(f"tl.save: entry {name!r} is a {type(value).__name__}, not a Tensor or an array")
    # np.asarray(order="C"), not np.ascontiguousarray: that one makes a 0-d array 1-d
    if "bfloat16" in str(value.dtype):
        source = value.backend if isinstance(value, Tensor) else backends.of(value)
        if not source.torch_tensors:  # (written by safetensors' torch side, see _save_with_torch)
            raise TypeError(f"tl.save: entry {name!r} is bfloat16 on the {source.name} backend; bfloat16 is saved "
                            "from the torch backend only (cast it to float32, or move it to backend='torch')")
        return _Bfloat16(value.data if isinstance(value, Tensor) else value)  # type: ignore[return-value]
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
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"tl.save: the directory {directory!r} does not exist (saving to {path!r}); "
                                "create it first")
    state = _as_state(obj)
    metadata = {"format": FORMAT}
    if isinstance(state, Mapping) and _is_flat(state):
        if RESERVED in state:
            raise ValueError(f"tl.save: the name {RESERVED!r} is reserved by the safetensors format (its header "
                             "keeps the file's metadata under it); rename that entry")
        arrays = {name: _host_array(name, value) for name, value in state.items()}
    else:
        arrays = {}
        metadata["tree"] = json.dumps(_encode(state, "", arrays))
    if any(isinstance(a, _Bfloat16) for a in arrays.values()):
        _save_with_torch(arrays, path, metadata)
    else:
        st.save_file(arrays, path, metadata=metadata)


def _save_with_torch(arrays: Mapping[str, Any], path: str, metadata: dict[str, str]) -> None:
    """The same file, written by safetensors' torch side: it knows bfloat16 (only a torch tensor holds one)."""
    import safetensors.torch
    import torch

    tensors = {name: a.array if isinstance(a, _Bfloat16) else torch.from_numpy(np.array(a, copy=True))
               for name, a in arrays.items()}
    safetensors.torch.save_file(tensors, path, metadata=metadata)


def load(path: str | os.PathLike, *, backend: Any = None, device: Any = None) -> dict[Any, Any]:
    """Read a safetensors checkpoint into a dict name -> Tensor on `backend`/`device`
    (or into the tree that was saved: an optimizer's state dict, a dict of several).

    Raises FileNotFoundError for a missing file and CheckpointError for a
    file that is truncated, corrupt or not safetensors at all, or whose tree
    (see the module docstring) is malformed. A bfloat16 entry loads on the
    torch backend only (NumPy has no bfloat16): elsewhere a TypeError.

    Example:
        >>> import os, tempfile
        >>> import torchlight as tl
        >>> path = os.path.join(tempfile.mkdtemp(), "state.safetensors")
        >>> tl.save({"w": tl.tensor([1.0, 2.0]), "step": 3}, path)
        >>> tl.load(path)
        {'w': tensor([1., 2.]), 'step': 3}
        >>> tl.load(path, backend="array_api_strict")["w"]
        tensor([1., 2.], backend='array_api_strict')
        >>> tl.load(os.path.join(tempfile.mkdtemp(), "missing.safetensors"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: tl.load: no checkpoint file at '...missing.safetensors'
    """
    st = _safetensors_numpy()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tl.load: no checkpoint file at {path!r}")
    try:
        with st.safe_open(path, framework="numpy") as f:
            names = list(f.keys())
            bf16 = [name for name in names if f.get_slice(name).get_dtype() == "BF16"]
            if bf16:
                _check_bfloat16_target(bf16[0], backend, device)
            arrays = {name: f.get_tensor(name) for name in names if name not in bf16}
            tree = (f.metadata() or {}).get("tree")
        if bf16:
            arrays.update(_read_with_torch(path, bf16))
    except _Refused:
        raise
    except Exception as exc:  # safetensors raises its own SafetensorError (and OSError, ValueError)
        raise CheckpointError(
            f"tl.load: {path!r} is not a valid safetensors checkpoint (truncated, corrupt, "
            f"or another format): {exc}"
        ) from exc

    def make(array: Any) -> Tensor:
        return tensor(array, backend=backend, device=device)

    if tree is None:
        return {name: make(array) for name, array in arrays.items()}
    try:
        root = json.loads(tree)
        if not isinstance(root, dict) or next(iter(root), None) != "dict":
            raise CheckpointError(f"malformed 'tree' metadata: the top is a dict node, got {_shown(root)}")
        used: set[str] = set()
        out = _decode(root, arrays, make, "", used)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"tl.load: {path!r}: its 'tree' metadata is not JSON ({exc})") from exc
    except RecursionError as exc:
        raise CheckpointError(f"tl.load: {path!r}: its 'tree' metadata is nested too deeply") from exc
    except CheckpointError as exc:
        raise CheckpointError(f"tl.load: {path!r}: {exc}") from None
    stray = [name for name in arrays if name not in used]
    if stray:
        raise CheckpointError(f"tl.load: {path!r}: malformed 'tree' metadata: the file holds arrays the tree does "
                              f"not place: {', '.join(map(repr, stray[:5]))}")
    return out  # type: ignore[no-any-return]


def _check_bfloat16_target(name: str, backend: Any, device: Any) -> None:
    if backend is None and device is not None and hasattr(device, "backend"):
        backend = device.backend
    target = backends.get(backend)
    if not target.torch_tensors:  # (read by safetensors' torch side, see _read_with_torch)
        raise _Refused(f"tl.load: entry {name!r} is bfloat16, which only the torch backend holds (NumPy has no "
                       f"bfloat16); load with backend='torch', not the {target.name} backend")


class _Refused(TypeError):
    """A bfloat16 entry bound for a backend without bfloat16 (raised through load's CheckpointError guard)."""


def _read_with_torch(path: str, names: list[str]) -> dict[str, Any]:
    with _safetensors_numpy().safe_open(path, framework="pt") as f:
        return {name: f.get_tensor(name) for name in names}
