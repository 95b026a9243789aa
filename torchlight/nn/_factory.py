"""Making a layer's Parameters on the backend, device and dtype it was asked for."""

from __future__ import annotations

from typing import Any

from torchlight.creation import zeros
from torchlight.nn.parameter import Parameter


def new_parameter(shape: tuple[int, ...], backend: Any, device: Any, dtype: Any) -> Parameter:
    """A zero Parameter of `shape` (the layer's `reset_parameters` then fills it)."""
    return Parameter(zeros(shape, backend=backend, device=device, dtype=dtype))


def add_weight_and_bias(module: Any, weight_shape: tuple[int, ...], bias: bool, backend: Any, device: Any,
                        dtype: Any) -> None:
    """`module.weight` of `weight_shape` and `module.bias` of (weight_shape[0],), or a None bias."""
    module.weight = new_parameter(weight_shape, backend, device, dtype)
    if bias:
        module.bias = new_parameter((weight_shape[0],), backend, device, dtype)
    else:
        module.register_parameter("bias", None)
