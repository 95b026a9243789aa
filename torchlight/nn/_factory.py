"""Making a layer's Parameters on the backend, device and dtype it was asked for."""

from __future__ import annotations

from typing import Any

from torchlight.creation import zeros
from torchlight.nn.parameter import Parameter


def new_parameter(shape: tuple[int, ...], backend: Any, device: Any, dtype: Any) -> Parameter:
    """A zero Parameter of `shape` (the layer's `reset_parameters` then fills it)."""
    return Parameter(zeros(shape, backend=backend, device=device, dtype=dtype))
