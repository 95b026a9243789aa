"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

import numpy as np

from torchlight.array_api._dtypes import PROMOTION, DType, dtype_of, promote
from torchlight.array_api._helpers import dtype_arg, tensor_arg
from torchlight.backends.dtypes import DTYPES, as_dtype
from torchlight.tensor import Tensor

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def astype(x: Tensor, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Tensor:
    """`x` cast to `dtype` (differentiable between floating dtypes); `copy=False` returns `x`
    itself when nothing changes. `device=` moves it too (see `Tensor.to_device`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.astype(xp.asarray([1.5, 2.5]), xp.int32).dtype == xp.int32
        True
    """
    x = tensor_arg(x, "astype")
    if device is not None:
        x = x.to_device(device)
    target = dtype_arg(x.backend, dtype, "astype")
    if x.dtype == target:
        return x.clone() if copy else x
    return x.astype(target)


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether the standard's promotion rules cast `from_` (a dtype or an array) to `to` without
    changing kind (bool -> int, int -> float are False, as in array_api_strict).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.can_cast(xp.int8, xp.int32), xp.can_cast(xp.float64, xp.float32)
        (True, False)
    """
    source, target = dtype_of(from_, "can_cast", "from_"), dtype_of(to, "can_cast", "to")
    return PROMOTION.get((source.name, target.name)) == target.name


@dataclass(frozen=True)
class finfo_object:  # noqa: N801  (the standard's name)
    """What `finfo` returns: the standard's fields of a floating dtype."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801
    """What `iinfo` returns: the standard's fields of an integer dtype."""

    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: Any, /) -> finfo_object:  # noqa: A002  (the standard's name)
    """Machine limits of a floating dtype (of an array's dtype); a complex dtype gives its real part's.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.finfo(xp.float32).bits, xp.finfo(xp.float64).eps
        (32, 2.220446049250313e-16)
    """
    dt = dtype_of(type, "finfo", "type")
    if dt.kind not in ("real floating", "complex floating"):
        raise TypeError(f"finfo: {dt} is not a floating dtype (use iinfo for integers)")
    real = DTYPES["float32" if dt.name in ("float32", "complex64") else "float64"]
    info = np.finfo(real.dtype)
    return finfo_object(int(info.bits), float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), real)


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002
    """Machine limits of an integer dtype (of an array's dtype).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.iinfo(xp.int8).min, xp.iinfo(xp.uint16).max
        (-128, 65535)
    """
    dt = dtype_of(type, "iinfo", "type")
    if dt.kind not in ("signed integer", "unsigned integer"):
        raise TypeError(f"iinfo: {dt} is not an integer dtype (use finfo for floating dtypes)")
    info = np.iinfo(dt.dtype)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), dt)


_KIND_GROUPS = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": ("signed integer", "unsigned integer"),
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": ("signed integer", "unsigned integer", "real floating", "complex floating"),
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether `dtype` (any backend's, or torchlight's) is of `kind`: a dtype, one of the standard's
    kind names ("bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric"), or a tuple of those.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.isdtype(xp.float32, "real floating"), xp.isdtype(xp.int8, ("bool", xp.float64))
        (True, False)
    """
    dt = as_dtype(dtype)
    if dt is None:
        raise TypeError(f"isdtype: dtype must be a dtype, not {dtype!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            group = _KIND_GROUPS.get(k)
            if group is None:
                raise ValueError(f"isdtype: unknown kind {k!r} (one of {', '.join(map(repr, _KIND_GROUPS))})")
            if dt.kind in group:
                return True
        else:
            other = as_dtype(k)
            if other is None:
                raise TypeError(f"isdtype: kind must be a dtype, a kind's name or a tuple of them, not {k!r}")
            if other == dt:
                return True
    return False


def result_type(*arrays_and_dtypes: Any) -> DType:
    """The dtype the standard's promotion rules give these arrays, dtypes and Python scalars (a
    scalar takes the kind of the dtypes beside it: an int goes with integers and floats, a float
    with floats, a complex makes a real floating dtype complex). Pairs the standard leaves
    undefined (int with float arrays, int64 with uint64) are a TypeError, as in array_api_strict.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.result_type(xp.int8, xp.uint8), xp.result_type(xp.float32, 1.0), xp.result_type(xp.float32, 1j)
        (torchlight.int16, torchlight.float32, torchlight.complex64)
    """
    dtypes: list[DType] = []
    scalars = []
    for a in arrays_and_dtypes:
        if isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        else:
            dtypes.append(dtype_of(a, "result_type", "each argument"))
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is needed (Python scalars alone have none)")
    result = dtypes[0]
    for dt in dtypes[1:]:
        result = promote(result, dt, "result_type")
    for s in scalars:
        result = _with_scalar(result, s)
    return result


def _with_scalar(dt: DType, s: Any) -> DType:
    kind = dt.kind
    if isinstance(s, builtins.bool):
        ok = kind == "bool"
    elif isinstance(s, int):
        ok = kind != "bool"
    elif isinstance(s, float):
        ok = kind in ("real floating", "complex floating")
    else:
        ok = kind in ("real floating", "complex floating")
        if ok and kind == "real floating":
            return DTYPES["complex64" if dt.name == "float32" else "complex128"]
    if not ok:
        raise TypeError(f"result_type: a Python {type(s).__name__} does not promote with {dt} (the standard "
                        "mixes a scalar only with arrays of its kind)")
    return dt

