"""The generic Backend: any library `array_api_compat` gives a namespace for.

`ArrayAPIBackend` takes the library's module name and uses only the array
API standard (the portable paths of `Backend`) plus the namespace's own
device list. The libraries torchlight knows subclass it, one module each
(`strict`, `torch`, `jax`, `dask`), for what they do better or differently;
any other library is served as it is:

Example:
    >>> from torchlight import backends
    >>> from torchlight.backends.generic import ArrayAPIBackend
    >>> be = ArrayAPIBackend("plain_numpy", library="numpy")
    >>> be.xp.__name__, be.device
    ('array_api_compat.numpy', 'cpu')
    >>> be.scatter_add((3,), be.xp.asarray([0, 0, 2]), be.xp.ones(3)).tolist()
    [2.0, 0.0, 1.0]
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from torchlight.backends.base import Backend, BackendError, BackendUnavailableError


def unusable_reason(library: str, install_hint: str = "") -> str | None:
    """Why the module `library` cannot be imported (with `install_hint`), or None."""
    try:
        importlib.import_module(library)
    except ImportError as exc:
        hint = install_hint or "install " + library.split(".")[0]
        return f"{library} is not installed ({exc}); {hint}"
    return None


class ArrayAPIBackend(Backend):
    """A Backend over the array-API namespace of the library `library` (portable paths throughout).

    `library` is the module whose `asarray` makes the library's arrays
    ("jax.numpy", "dask.array"); it defaults to the class attribute, and for
    this class to `name`. `install_hint` says what to install where it is
    missing (`BackendUnavailableError`).
    """

    #: the module to import: its `asarray([0.0])` gives the namespace, through `array_api_compat`
    library = ""
    #: what to install where `library` is missing
    install_hint = ""

    def __init__(self, name: str, library: str | None = None, install_hint: str | None = None) -> None:
        self.library = library or self.library or name
        self.install_hint = self.install_hint if install_hint is None else install_hint
        reason = unusable_reason(self.library, self.install_hint)
        if reason is not None:
            raise BackendUnavailableError(f"backend {name!r} is not usable: {reason}")
        import array_api_compat

        self._module = importlib.import_module(self.library)
        xp = array_api_compat.array_namespace(self._module.asarray([0.0]))
        info = xp.__array_namespace_info__()
        devices = [d for d in info.devices() if d is not None]
        default = info.default_device()
        super().__init__(name, xp, default if default is not None else (devices[0] if devices else None))
        self.devices = self._usable_devices(devices)
        self.multi_device = len(self.devices) > 1

    def _usable_devices(self, devices: list[Any]) -> list[Any]:
        """The namespace's devices that can hold values (all of them here)."""
        return devices

    def resolve_device(self, device: Any) -> Any:
        if device is None or device in self.devices:
            return device
        found = self._device_named(str(device))
        if found is None:
            raise BackendError(f"backend {self.name!r} has no device {device!r}; its devices: {self.devices}")
        return found

    def _device_named(self, text: str) -> Any:
        """The device whose `str` or `repr` is `text` ("cuda" finds "cuda:0"), or None."""
        for d in self.devices:
            if text in (str(d), repr(d)) or str(d) == f"{text}:0":
                return d
        return None

    def to_numpy(self, array: Any) -> np.ndarray:
        return np.asarray(array)
