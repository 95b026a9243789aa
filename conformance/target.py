"""Where a conformance run happens: a backend, one of its devices, and why not.

`resolve(backend_name, device_name)` returns a `Target`, or raises
`Unusable` with the reason (library missing, no such device) so the run is
reported as skipped, never as passed.

Example:
    >>> from conformance.target import resolve
    >>> t = resolve("numpy", "cpu")
    >>> t.label, t.has_dtype("float64")
    ('numpy/cpu', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import torchlight as tl


class Unusable(Exception):
    """This backend or device cannot run here; the message says why."""


@dataclass(frozen=True)
class Target:
    """A usable backend and device."""

    backend: Any
    device: Any
    device_name: str
    _dtypes: dict[str, bool] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def label(self) -> str:
        return f"{self.backend.name}/{self.device_name}"

    def has_dtype(self, dtype: str) -> bool:
        """Whether arrays of `dtype` can live on this device (no_float64 devices)."""
        known = self._dtypes.get(dtype)
        if known is None:
            try:
                info = self.backend.xp.__array_namespace_info__()
                known = dtype in info.dtypes(device=self.device, kind=("real floating", "complex floating"))
            except Exception:  # a namespace without device-aware dtypes: assume yes
                known = True
            self._dtypes[dtype] = known
        return known

    def array(self, host: np.ndarray, dtype: str | None = None) -> Any:
        """A fresh copy of a host array on this backend and device (cast to `dtype`)."""
        host = np.array(host, dtype=None if dtype is None else np.dtype(dtype), copy=True)
        return self.backend.asarray(host, device=self.device)

    def tensor(self, host: np.ndarray, dtype: str, requires_grad: bool = False) -> Any:
        return tl.tensor(self.array(host, dtype), requires_grad=requires_grad)


def resolve(backend_name: str, device_name: str | None = None) -> Target:
    """The Target for a backend and device name, or `Unusable` with the reason."""
    if backend_name == "jax":
        _enable_jax_float64()
    try:
        backend = tl.backends.get(backend_name)
    except tl.BackendUnavailableError as exc:
        raise Unusable(str(exc)) from exc
    except tl.BackendError as exc:
        raise Unusable(str(exc)) from exc
    device = _device(backend, device_name)
    label = device_name if device_name is not None else _device_label(device)
    return Target(backend, device, label)


def _enable_jax_float64() -> None:
    """The suite checks gradients in float64, which JAX has only with x64 on
    (a process-wide JAX setting: the runner owns its process)."""
    try:
        import jax
    except ImportError:
        return
    jax.config.update("jax_enable_x64", True)


def _device_label(device: Any) -> str:
    text = str(device)
    if "Device(" in text and "'" in text:  # array_api_strict.Device('CPU_DEVICE')
        text = text.split("'")[1]
    return text


def _device(backend: Any, name: str | None) -> Any:
    """The device object called `name` on `backend` (its default when None)."""
    if name is None:
        return backend.device
    if backend.name == "numpy":
        if name.lower() != "cpu":
            raise Unusable(f"device {name!r} is not available on backend 'numpy': NumPy arrays live on the cpu")
        return backend.device
    if backend.name == "cupy":
        return _cupy_device(backend, name)
    if backend.name == "array_api_strict":
        if name.lower() == "cpu":
            return backend.device
        try:
            return backend.xp.Device(name)
        except ValueError as exc:
            raise Unusable(f"device {name!r} is not available on backend 'array_api_strict': {exc}") from exc
    return _generic_device(backend, name)


def _cupy_device(backend: Any, name: str) -> Any:
    label = name.lower().removeprefix("cuda:").removeprefix("gpu:")
    if not label.isdigit():
        raise Unusable(f"device {name!r} is not a CUDA device of backend 'cupy': give its number, e.g. 0")
    count = backend._cupy.cuda.runtime.getDeviceCount()
    if int(label) >= count:
        raise Unusable(f"CUDA device {label} is not visible ({count} device(s) found)")
    return backend._cupy.cuda.Device(int(label))


def _generic_device(backend: Any, name: str) -> Any:
    info = backend.xp.__array_namespace_info__()
    devices = list(info.devices())
    for device in devices:
        if str(device).lower() == name.lower():
            return device
    if name.lower() == "cpu" and "cpu" in str(backend.device).lower():
        return backend.device
    raise Unusable(f"device {name!r} is not available on backend {backend.name!r}; "
                   f"it has {', '.join(str(d) for d in devices)}")
