"""The array-api-strict backend: the standard's reference implementation, with fake devices.

array_api_strict has no fast paths to offer; what it has is devices that
make device bugs visible without a GPU ("device1", "no_float64"), and a
refusal of `__array__` off its CPU device, so this backend resolves their
names and moves to the CPU through DLPack.

Example:
    >>> from torchlight import backends
    >>> be = backends.get("array_api_strict")
    >>> be.resolve_device("device1")
    array_api_strict.Device('device1')
    >>> a = be.asarray([1.0, 2.0], device="device1")
    >>> be.is_host(a), be.to_numpy(a).tolist()
    (False, [1.0, 2.0])
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from torchlight.backends.generic import ArrayAPIBackend


class StrictBackend(ArrayAPIBackend):
    """array_api_strict arrays: every device by name, the host copy through DLPack."""

    library = "array_api_strict"
    install_hint = "run `pip install array-api-strict`"

    def __init__(self, name: str = "array_api_strict") -> None:
        super().__init__(name)

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """An array_api_strict array (never imports array_api_strict)."""
        strict = sys.modules.get("array_api_strict")
        return strict is not None and isinstance(array, type(strict.asarray(0)))

    def _device_named(self, text: str) -> Any:
        found = super()._device_named(text)
        if found is not None:
            return found
        try:  # a device the namespace does not list (strict makes any of its names)
            return self.xp.Device(text)
        except ValueError:
            return None

    def is_host(self, array: Any) -> bool:
        return self.device_of(array) == self.xp.Device("CPU_DEVICE")

    def to_numpy(self, array: Any) -> np.ndarray:
        # strict refuses __array__ off its CPU_DEVICE: moved there first
        return np.from_dlpack(self.xp.asarray(array, device=self.xp.Device("CPU_DEVICE")))
