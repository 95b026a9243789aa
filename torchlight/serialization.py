"""Checkpoints: `tl.save` and `tl.load` in the safetensors format (never pickle).

A checkpoint is a flat mapping name -> array, stored as safetensors: a
JSON header (names, dtypes, shapes, offsets) and raw bytes, so loading
one can never run code. `tl.load` gives back Tensors; a model takes them
with `load_state_dict`, which checks every name, shape and dtype.

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

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

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


def _as_state(obj: Any) -> Mapping[str, Any]:
    if hasattr(obj, "state_dict") and callable(obj.state_dict):
        return obj.state_dict()
    if isinstance(obj, Mapping):
        return obj
    raise TypeError(f"tl.save: expected a Module or a mapping of names to Tensors, got {type(obj).__name__}")


def _host_array(name: Any, value: Any) -> np.ndarray:
    if not isinstance(name, str):
        raise TypeError(f"tl.save: checkpoint names must be strings, got {name!r}")
    # np.asarray(order="C"), not np.ascontiguousarray: that one makes a 0-d array 1-d
    if isinstance(value, Tensor):
        return np.asarray(value.numpy(), order="C")
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        from torchlight import backends

        return np.asarray(backends.of(value).to_numpy(value), order="C")
    raise TypeError(f"tl.save: entry {name!r} is a {type(value).__name__}, not a Tensor or an array")


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write a Module's `state_dict()` (or a mapping name -> Tensor/array) to `path`.

    Every tensor is copied to the host; the file records names, dtypes and
    shapes, and metadata {"format": "torchlight"}.
    """
    st = _safetensors_numpy()
    arrays = {name: _host_array(name, value) for name, value in _as_state(obj).items()}
    st.save_file(arrays, os.fspath(path), metadata={"format": FORMAT})


def load(path: str | os.PathLike, *, backend: Any = None, device: Any = None) -> dict[str, Tensor]:
    """Read a safetensors checkpoint into a dict name -> Tensor on `backend`/`device`.

    Raises FileNotFoundError for a missing file and CheckpointError for a
    file that is truncated, corrupt or not safetensors at all.
    """
    st = _safetensors_numpy()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tl.load: no checkpoint file at {path!r}")
    try:
        arrays = st.load_file(path)
    except Exception as exc:  # safetensors raises its own SafetensorError (and OSError, ValueError)
        raise CheckpointError(
            f"tl.load: {path!r} is not a valid safetensors checkpoint (truncated, corrupt, "
            f"or another format): {exc}"
        ) from exc
    from torchlight.creation import tensor

    return {name: tensor(array, backend=backend, device=device) for name, array in arrays.items()}
