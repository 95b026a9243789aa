"""Checks that the operands of one op live together: one library, one device.

Example:
    >>> import torchlight as tl
    >>> from torchlight.backends.checks import check_same_backend
    >>> check_same_backend("add", tl.tensor([1.0]), tl.tensor([2.0]))  # same backend: nothing happens
"""

from __future__ import annotations

from typing import Any

from torchlight.backends.base import BackendError


def check_same_backend(op: str, a: Any, b: Any) -> None:
    """Raise when two operands of `op` (anything with `.backend` and `.device`) live in different
    libraries or on different devices; the message names both and suggests `.to`."""
    if a.backend is not b.backend:
        raise BackendError(
            f"{op}: tensors on two backends, {a.backend.name!r} and {b.backend.name!r}; "
            f"move one with .to(backend={a.backend.name!r}) first"
        )
    da, db = a._device, b._device
    if da != db:
        raise BackendError(
            f"{op}: tensors on two devices, {da} and {db} (backend {a.backend.name!r}); "
            f"move one with .to(device=...) first"
        )
