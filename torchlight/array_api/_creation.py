"""Creation functions. Without `device=`, arrays are made on the default backend
(`tl.get_default_backend()`); a `Device` (a Tensor's `.device`) names its backend and device, so
`zeros(3, device=x.device)` lands where `x` is; `*_like` functions follow their argument."""

from __future__ import annotations

import builtins
from typing import Any

from torchlight import array_functions, backends
from torchlight.array_api._helpers import SCALARS, dtype_arg, place, tensor_arg
from torchlight.backends import Backend
from torchlight.backends.devices import Device
from torchlight.backends.dtypes import DEFAULT_FLOAT
from torchlight.creation import _is_array
from torchlight.creation import tensor as _tensor
from torchlight.tensor import Tensor

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]


def _shape(shape: Any, fn: str) -> tuple[int, ...]:
    if isinstance(shape, int) and not isinstance(shape, builtins.bool):
        shape = (shape,)
    try:
        out = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"{fn}: shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{fn}: shape {out} has a negative size")
    return out


def _kwargs(backend: Backend, dtype: Any, device: Any, fn: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if dtype is not None:
        out["dtype"] = dtype_arg(backend, dtype, fn)
    if device is not None:
        out["device"] = device
    return out


def _default_for(backend: Backend, value: Any, device: Any) -> Any:
    """The standard's default dtype for a fill value: bool, the default integer, float, or complex."""
    if isinstance(value, builtins.bool):
        return backend.xp.bool
    if isinstance(value, int):
        return backend.default_int(device)
    if isinstance(value, complex):
        info = backend.xp.__array_namespace_info__()
        return info.default_dtypes(device=device)["complex floating"]
    return backend.default_float(device)


def _filled(fn: str, shape: Any, fill: str, dtype: Any, device: Any, value: Any = None) -> Tensor:
    backend, raw = place(device, fn)
    kwargs = _kwargs(backend, dtype, raw, fn)
    if "dtype" not in kwargs:
        kwargs["dtype"] = _default_for(backend, value if fill == "full" else 0.0, raw)
    size = _shape(shape, fn)
    xp = backend.xp
    array = xp.full(size, value, **kwargs) if fill == "full" else getattr(xp, fill)(size, **kwargs)
    return Tensor(array, backend)


def zeros(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> Tensor:
    """Zeros (the default float dtype).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([1.0, 2.0])
        >>> xp.zeros(3, device=x.device).device == x.device
        True
    """
    return _filled("zeros", shape, "zeros", dtype, device)


def ones(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> Tensor:
    """Ones (the default float dtype).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.ones(3)
        tensor([1., 1., 1.])
        >>> xp.ones((2, 2), dtype=xp.int32)
        tensor([[1, 1],
                [1, 1]])
    """
    return _filled("ones", shape, "ones", dtype, device)


def empty(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> Tensor:
    """An uninitialised array (the default float dtype).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.empty((2, 3))
        >>> x.shape, x.dtype == xp.float64
        ((2, 3), True)
    """
    return _filled("empty", shape, "empty", dtype, device)


def full(shape: int | tuple[int, ...], fill_value: bool | int | float | complex, *, dtype: Any = None,
         device: Any = None) -> Tensor:
    """`fill_value` everywhere; without `dtype`, of the value's kind (bool, the default integer,
    float or complex).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.full((2,), 7), xp.full((2,), 0.5), xp.full((2,), True)
        (tensor([7, 7]), tensor([0.5, 0.5]), tensor([ True,  True]))
    """
    if not isinstance(fill_value, SCALARS):
        fill_value = _scalar(fill_value, "full")
    return _filled("full", shape, "full", dtype, device, fill_value)


def _scalar(value: Any, fn: str) -> Any:
    """A 0-d array or NumPy scalar given as a fill value, as the Python number it holds."""
    if hasattr(value, "item") and getattr(value, "ndim", 0) == 0:
        return value.item()
    raise TypeError(f"{fn}: fill_value must be a Python bool, int, float or complex, not {type(value).__name__}")


def _like(fn: str, x: Any, fill: str, dtype: Any, device: Any, value: Any = None) -> Tensor:
    x = tensor_arg(x, fn)
    if device is None:
        device = x.device
    backend, raw = place(device, fn)
    kwargs = {"dtype": x.dtype if dtype is None and backend is x.backend else dtype_arg(
        backend, x.dtype if dtype is None else dtype, fn)}
    if raw is not None:
        kwargs["device"] = raw
    xp = backend.xp
    size = x.shape
    array = xp.full(size, value, **kwargs) if fill == "full" else getattr(xp, fill)(size, **kwargs)
    return Tensor(array, backend)


def zeros_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Zeros of `x`'s shape, dtype, backend and device (unless told otherwise).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.zeros_like(xp.asarray([1.5, 2.5]))
        tensor([0., 0.])
        >>> xp.zeros_like(xp.asarray([1.5, 2.5]), dtype=xp.int64)
        tensor([0, 0])
    """
    return _like("zeros_like", x, "zeros", dtype, device)


def ones_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Ones of `x`'s shape, dtype, backend and device.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.ones_like(xp.asarray([[1, 2, 3]]))
        tensor([[1, 1, 1]])
    """
    return _like("ones_like", x, "ones", dtype, device)


def empty_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An uninitialised array of `x`'s shape, dtype, backend and device.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.empty_like(xp.asarray([[1.0], [2.0]]))
        >>> x.shape, x.dtype == xp.float64
        ((2, 1), True)
    """
    return _like("empty_like", x, "empty", dtype, device)


def full_like(x: Tensor, /, fill_value: bool | int | float | complex, *, dtype: Any = None,
              device: Any = None) -> Tensor:
    """`fill_value` in `x`'s shape, dtype, backend and device.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.full_like(xp.asarray([1, 2, 3]), 9)
        tensor([9, 9, 9])
    """
    if not isinstance(fill_value, SCALARS):
        fill_value = _scalar(fill_value, "full_like")
    return _like("full_like", x, "full", dtype, device, fill_value)


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *, dtype: Any = None,
           device: Any = None) -> Tensor:
    """Evenly spaced values in [start, stop) (one argument: [0, start)).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.arange(1, 7, 2).tolist()
        [1, 3, 5]
    """
    backend, raw = place(device, "arange")
    kwargs = _kwargs(backend, dtype, raw, "arange")
    if "dtype" not in kwargs and any(isinstance(v, float) for v in (start, stop, step)):
        kwargs["dtype"] = backend.default_float(raw)
    if step == 0:
        raise ValueError("arange: step must not be 0")
    return Tensor(backend.xp.arange(start, stop, step, **kwargs), backend)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None) -> Tensor:
    """Ones on the k-th diagonal of an n_rows x n_cols matrix (the default float dtype).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
        >>> xp.eye(2, 3, k=1)
        tensor([[0., 1., 0.],
                [0., 0., 1.]])
    """
    backend, raw = place(device, "eye")
    kwargs = _kwargs(backend, dtype, raw, "eye")
    kwargs.setdefault("dtype", backend.default_float(raw))
    return Tensor(backend.xp.eye(n_rows, n_cols, k=k, **kwargs), backend)


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *, dtype: Any = None,
             device: Any = None, endpoint: bool = True) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` (included unless `endpoint=False`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.linspace(0.0, 1.0, 5)
        tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
        >>> xp.linspace(0.0, 1.0, 4, endpoint=False)
        tensor([0.  , 0.25, 0.5 , 0.75])
    """
    backend, raw = place(device, "linspace")
    kwargs = _kwargs(backend, dtype, raw, "linspace")
    if "dtype" not in kwargs:
        kwargs["dtype"] = _default_for(backend, complex(0) if complex in (type(start), type(stop)) else 0.0, raw)
    return Tensor(backend.xp.linspace(start, stop, num, endpoint=endpoint, **kwargs), backend)


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Tensor:
    """`obj` (a Tensor, an array of any backend, a Python scalar, nested sequences, a buffer) as a Tensor.

    A Tensor comes back as it is when nothing is asked of it (its gradient
    still flows: code that starts with `x = xp.asarray(x)` stays
    differentiable), cast with `astype` or moved with `to_device` when
    `dtype`/`device` differ, and cloned (in the graph) with `copy=True`. An
    array is wrapped without a copy on its own backend (a `Device` of
    another backend moves it). Python data lands on the default backend.
    `copy=False` where a copy is needed is a ValueError, as the standard says.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.array_api as xp
        >>> t = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> xp.asarray(t) is t, xp.asarray([1, 2]).dtype == xp.int64
        (True, True)
    """
    if isinstance(obj, Tensor):
        out = obj
        if device is not None and device != obj.device:
            if copy is False:
                raise ValueError(f"asarray: copy=False, but moving to {device} needs a copy")
            out = out.to_device(device)
        if dtype is not None:
            target = dtype_arg(out.backend, dtype, "asarray")
            if target != out.dtype:
                if copy is False:
                    raise ValueError(f"asarray: copy=False, but a cast to {dtype} needs a copy")
                return out.astype(target)
        return out.clone() if copy and out is obj else out
    if _is_array(obj) and not isinstance(obj, SCALARS):
        source = backends.of(obj)
        if isinstance(device, Device) and device.backend is not source:
            if copy is False:
                raise ValueError(f"asarray: copy=False, but moving a {source.name!r} array to {device} needs a copy")
            return _tensor(obj, device=device, dtype=dtype)
        backend, raw = source, (None if device is None else source.resolve_device(device))
    else:
        backend, raw = place(device, "asarray")
        if isinstance(obj, (list, tuple)) and _holds_tensor(obj):
            if copy is False:
                raise ValueError("asarray: copy=False, but a sequence of arrays needs a copy")
            return _tensor(obj, backend=backend, device=raw, dtype=dtype)
    if dtype is not None:
        dtype = dtype_arg(backend, dtype, "asarray")
    elif isinstance(obj, complex) or (isinstance(obj, (list, tuple)) and _has_complex(obj)):
        dtype = _default_for(backend, complex(0), raw)
    elif DEFAULT_FLOAT[0] is not None and (isinstance(obj, float) or isinstance(obj, (list, tuple))
                                           and _has_float(obj)):
        dtype = backend.default_float(raw)  # (`tl.set_default_dtype`'s, as the other factories give)
    try:
        return Tensor(backend.asarray(obj, dtype=dtype, device=raw, copy=copy), backend)
    except OverflowError:
        raise
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"asarray: {exc}") from None


def _holds_tensor(seq: Any) -> bool:
    return any(isinstance(item, Tensor) or (isinstance(item, (list, tuple)) and _holds_tensor(item))
               for item in seq)


def _has_float(seq: Any) -> bool:
    return any(isinstance(item, float) or (isinstance(item, (list, tuple)) and _has_float(item)) for item in seq)


def _has_complex(seq: Any) -> bool:
    return any(isinstance(item, complex) or (isinstance(item, (list, tuple)) and _has_complex(item))
               for item in seq)


def from_dlpack(x: object, /, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """An array exported through DLPack (`x` has `__dlpack__`), as a Tensor of the default backend
    (or of the backend a `Device` names).

    Example:
        >>> import torchlight.array_api as xp
        >>> import numpy as np
        >>> xp.from_dlpack(np.arange(3.0))
        tensor([0., 1., 2.])
    """
    if isinstance(x, Tensor):
        return asarray(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: x must support DLPack (have __dlpack__), not {type(x).__name__}")
    backend, raw = place(device, "from_dlpack")
    kwargs: dict[str, Any] = {}
    if raw is not None:
        kwargs["device"] = raw
    if copy is not None:
        kwargs["copy"] = copy
    return Tensor(backend.xp.from_dlpack(x, **kwargs), backend)


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> list[Tensor]:
    """Coordinate grids from 1-d arrays ("xy": Cartesian, "ij": matrix indexing), differentiable.

    Example:
        >>> import torchlight.array_api as xp
        >>> gx, gy = xp.meshgrid(xp.asarray([1, 2, 3]), xp.asarray([10, 20]))
        >>> gx
        tensor([[1, 2, 3],
                [1, 2, 3]])
        >>> gy
        tensor([[10, 10, 10],
                [20, 20, 20]])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    tensors = [tensor_arg(a, "meshgrid", "each array") for a in arrays]
    return list(array_functions.meshgrid(*tensors, indexing=indexing))


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The lower triangle of the last two axes (below the k-th diagonal), zeros above.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.tril(xp.ones((3, 3)))
        tensor([[1., 0., 0.],
                [1., 1., 0.],
                [1., 1., 1.]])
    """
    return tensor_arg(x, "tril").tril(diagonal=k)


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The upper triangle of the last two axes (above the k-th diagonal), zeros below.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.triu(xp.ones((3, 3)), k=1)
        tensor([[0., 1., 1.],
                [0., 0., 1.],
                [0., 0., 0.]])
    """
    return tensor_arg(x, "triu").triu(diagonal=k)
