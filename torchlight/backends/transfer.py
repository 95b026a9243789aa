"""Moving arrays between backends and devices: DLPack first, the host as fallback."""

from __future__ import annotations

from typing import Any


def move(array: Any, source: Any, target: Any, device: Any = None) -> Any:
    """`array` (of backend `source`) as an array of `target` on `device`.

    Same library: a device move with `asarray(..., device=)`. Another
    library: `from_dlpack` where both sides support it, else through a host
    NumPy copy. Always a copy unless the memory can be shared.
    """
    if source is target:
        return target.asarray(array, device=device, copy=True) if device is not None else array
    try:
        moved = target.xp.from_dlpack(array)
    except Exception:
        moved = target.asarray(source.to_numpy(array))
    if device is not None and target.device_of(moved) != device:
        moved = target.asarray(moved, device=device)
    return moved
