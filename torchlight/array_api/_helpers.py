"""What every namespace function shares: its array arguments as Tensors, a `device=` as a backend
and the library's device, and the errors that name the function and the argument."""

from __future__ import annotations

from typing import Any

from torchlight import backends
from torchlight.backends import Backend
from torchlight.backends.devices import Device
from torchlight.creation import _is_array
from torchlight.tensor import Tensor

SCALARS = (bool, int, float, complex)


def tensor_arg(x: Any, fn: str, arg: str = "x") -> Tensor:
    """`x` as a Tensor: a Tensor as it is, an array of any backend wrapped without a copy; anything
    else (a list, a number where the standard wants an array) a TypeError naming `fn` and `arg`."""
    if isinstance(x, Tensor):
        return x
    if _is_array(x):
        return Tensor(x, backends.of(x))
    raise TypeError(f"{fn}: {arg} must be an array (a Tensor), not {type(x).__name__} "
                    f"(make one with torchlight.array_api.asarray)")


def pair(x1: Any, x2: Any, fn: str, kinds: tuple[type, ...] = SCALARS) -> tuple[Tensor, Tensor]:
    """Two operands of a binary function as Tensors: a Python scalar (of `kinds`) beside an array
    takes the array's backend and dtype (the standard's rule), as the Tensor operators lift it."""
    if isinstance(x1, Tensor):
        if isinstance(x2, Tensor):
            return x1, x2
        if isinstance(x2, kinds):
            return x1, x1._lift(x2)
        return x1, tensor_arg(x2, fn, "x2")
    if isinstance(x1, kinds):
        if isinstance(x2, kinds):
            raise TypeError(f"{fn}: at least one of x1 and x2 must be an array, not two Python scalars")
        t2 = tensor_arg(x2, fn, "x2")
        return t2._lift(x1), t2
    t1 = tensor_arg(x1, fn, "x1")
    return pair(t1, x2, fn, kinds)


def place(device: Any, fn: str) -> tuple[Backend, Any]:
    """The backend and the library's device for a `device=` argument: a `Device` (a Tensor's
    `.device`) names both; anything else (None, "cpu", a library's device) is a device of the
    default backend. A device that backend lacks is a ValueError naming `fn`."""
    if isinstance(device, Device):
        return device.backend, device.raw
    backend = backends.get()
    if device is None:
        return backend, None
    try:
        return backend, backend.resolve_device(device)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{fn}: device {device!r} is not a device of the default backend "
                         f"{backend.name!r} ({exc}); pass a Tensor's .device to name another backend") from None


def dtype_arg(backend: Backend, dtype: Any, fn: str) -> Any:
    """`dtype` as `backend`'s own dtype; one the backend lacks is a TypeError naming `fn`."""
    try:
        return backend.resolve_dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{fn}: dtype {dtype!r} is not a dtype of backend {backend.name!r} ({exc})") from None


def axis_tuple(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """`axis` (None, an int or a tuple of ints) as non-negative axes; out of range is an IndexError
    naming `fn`, a repeated axis a ValueError."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{fn}: axis must be an int or a tuple of ints, not {axis!r}")
        if not -ndim <= a < ndim:
            raise IndexError(f"{fn}: axis {a} is out of range for an array of {ndim} dimension(s)")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axis {axis!r} names a dimension twice")
    return tuple(out)
