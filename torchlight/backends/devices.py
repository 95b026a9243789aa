"""`Device`: where a Tensor lives, naming both its array library and the library's own device.

A Tensor's `.device` is one of these, so that array-API code written as
`xp.zeros(3, device=x.device)` lands on x's backend and device (numpy's cpu,
cupy's GPU 0, array_api_strict's device1, torch's cpu, ...), and
`tl.tensor(data, device=x.device)` does too. It compares equal to another
Device of the same backend and library device, and to the library's own
device object (or its name), so code that compares `x.device` with
`"cpu"` or a `torch.device` keeps working.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0])
    >>> x.device
    Device(backend='numpy', device='cpu')
    >>> x.device == "cpu", str(x.device)
    (True, 'numpy:cpu')
    >>> tl.tensor([3.0], device=x.device).device == x.device
    True
"""

from __future__ import annotations

from typing import Any

from torchlight.backends.errors import BackendError

__all__ = ["Device", "has_device", "pytorch_device", "unwrap"]


class Device:
    """A backend and one of its library's devices (`raw`), as `Tensor.device` gives them."""

    __slots__ = ("backend", "raw")

    def __init__(self, backend: Any, raw: Any) -> None:
        self.backend = backend
        self.raw = raw

    @property
    def type(self) -> str:
        """"cpu" for host memory, else the library's kind of device ("cuda" for CuPy), as PyTorch's `device.type`."""
        raw = self.raw
        kind = getattr(raw, "type", None)
        if isinstance(kind, str):
            return kind
        return "cuda" if hasattr(raw, "id") and hasattr(raw, "compute_capability") else "cpu"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return other.backend is self.backend and _same(self.raw, other.raw)
        if isinstance(other, str):
            return _same(self.raw, other) or other == str(self.raw) or other == str(self)
        return _same(self.raw, other)

    def __hash__(self) -> int:
        try:
            return hash(self.raw)
        except TypeError:
            return hash(str(self.raw))

    def __repr__(self) -> str:
        return f"Device(backend={self.backend.name!r}, device={_name(self.raw)!r})"

    def __str__(self) -> str:
        return f"{self.backend.name}:{_name(self.raw)}"

    def __reduce__(self) -> tuple:
        return Device, (self.backend, self.raw)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # a library's device refusing a comparison with another kind of object
        return False


def _name(raw: Any) -> Any:
    """The library device as a short name: "cpu", "device1", "cuda:0", "TFRT_CPU_0", ..."""
    if isinstance(raw, str):
        return raw
    text = str(raw)
    if text.startswith("array_api_strict.Device('"):  # array_api_strict's Device('device1')
        return text.split("'")[1]
    if hasattr(raw, "id") and hasattr(raw, "compute_capability"):  # a cupy.cuda.Device
        return f"cuda:{raw.id}"
    return text


def unwrap(backend: Any, device: Any, what: str = "device") -> Any:
    """The library device `device` stands for on `backend`: a Device's own `raw` (a BackendError
    when it belongs to another backend), anything else as given."""
    if isinstance(device, Device):
        if device.backend is not backend:
            raise BackendError(f"{what}: {device} is a device of backend {device.backend.name!r}, "
                               f"not of {backend.name!r}")
        return device.raw
    return device


def pytorch_device(device: Any) -> tuple[str, Any] | None:
    """(backend name, device) for PyTorch's device strings given without a backend: "cpu" is the
    NumPy backend, "cuda" and "cuda:N" CuPy's device 0 or N; None for anything else.

    Example:
        >>> from torchlight.backends.devices import pytorch_device
        >>> pytorch_device("cpu"), pytorch_device("cuda:1"), pytorch_device("device1")
        (('numpy', None), ('cupy', 1), None)
    """
    if not isinstance(device, str):
        return None
    if device == "cpu":
        return "numpy", None
    if device == "cuda":
        return "cupy", 0
    if device.startswith("cuda:") and device[5:].isdigit():
        return "cupy", int(device[5:])
    return None


def has_device(backend: Any, device: Any) -> bool:
    """Whether `backend` takes `device` as one of its own (its `resolve_device` accepts it)."""
    try:
        backend.resolve_device(device)
    except (ValueError, TypeError, RuntimeError):
        return False
    return True
