"""Moving arrays between backends and devices: DLPack first, the host as fallback.

Example:
    >>> import numpy as np
    >>> import array_api_strict as xp
    >>> from torchlight import backends
    >>> from torchlight.backends.transfer import move
    >>> a = np.arange(3.0)
    >>> moved = move(a, backends.get("numpy"), backends.get("array_api_strict"), "device1")
    >>> moved.device
    array_api_strict.Device('device1')
"""

from __future__ import annotations

from typing import Any


def move(array: Any, source: Any, target: Any, device: Any = None) -> Any:
    """`array` (of backend `source`) as an array of `target` on `device`.

    Same library: a device move with `asarray(..., device=)` (a copy).
    Another library: `from_dlpack` where both sides support it (no copy
    between CPU libraries: the result may share memory with `array`, as
    `torch.from_numpy` does), else a copy through the host.
    """
    device = target.resolve_device(device)
    if source is target:
        if device is None or source.device_of(array) == device:
            return array
        return target.asarray(array, device=device, copy=True)
    try:
        moved = target.xp.from_dlpack(array)
    except Exception:  # no DLPack path between these two (e.g. GPU -> NumPy)
        moved = target.asarray(source.to_numpy(array), device=device)
    if device is not None and target.device_of(moved) != device:
        moved = target.asarray(moved, device=device)
    return moved
