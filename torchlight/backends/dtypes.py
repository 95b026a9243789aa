"""torchlight's dtype objects (`tl.float32`, `xp.float32`, ...): one per dtype of the array API
standard, each standing for the dtype of the same name in every backend.

A `DType` is what `torchlight.array_api` exports as its dtypes and the
PyTorch face as `tl.float32`: every backend's `resolve_dtype` takes it, and it
compares equal to any library's dtype of the same name, on either side of
`==`, so `x.dtype == xp.float32` holds whatever backend `x` lives on
(`x.dtype` stays the library's own dtype object, which the library's
functions take).

How each library's `==` reaches it: NumPy (and CuPy, JAX, Dask, which use
NumPy's dtypes) converts the other side with `np.dtype(...)`, which reads a
DType's `.dtype`; torch's dtype returns NotImplemented, so Python asks the
DType; array_api_strict's dtype answers only for an object that is an
instance of its own class, so a DType says that `__class__` is that class
once array_api_strict is imported (an `isinstance` check reads
`__class__`), and carries the `_np_dtype` it then compares. The hash is
NumPy's dtype's, as array_api_strict's, so a DType finds a NumPy or
array_api_strict dtype's entry in a dict.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> tl.float32 == np.dtype("float32"), np.dtype("float32") == tl.float32, tl.float32 == tl.float64
    (True, True, False)
    >>> tl.zeros(2, dtype=tl.float32).dtype == tl.float32
    True
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = ["DTYPES", "DType", "as_dtype"]

_KINDS = {
    "bool": "bool",
    "int8": "signed integer", "int16": "signed integer", "int32": "signed integer", "int64": "signed integer",
    "uint8": "unsigned integer", "uint16": "unsigned integer", "uint32": "unsigned integer",
    "uint64": "unsigned integer",
    "float32": "real floating", "float64": "real floating",
    "complex64": "complex floating", "complex128": "complex floating",
}


class DType:
    """One dtype of the array API standard, by name, for every backend (see the module docstring)."""

    __slots__ = ("name", "dtype", "_np_dtype", "kind")

    def __init__(self, name: str) -> None:
        self.name = name
        #: the NumPy dtype of this name: what `np.dtype(...)` and so NumPy's `==` read
        self.dtype = np.dtype(name)
        self._np_dtype = self.dtype  # (what array_api_strict's dtype compares)
        #: the standard's kind: "bool", "signed integer", "unsigned integer", "real floating", "complex floating"
        self.kind = _KINDS[name]

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        """array_api_strict's dtype class once that library is imported (its `==` then answers a
        DType; see the module docstring), else DType."""
        strict = sys.modules.get("array_api_strict._dtypes")
        return DType if strict is None else strict.DType

    def __eq__(self, other: object) -> bool:
        if type(other) is DType:
            return other is self or other.name == self.name  # type: ignore[attr-defined]
        name = _name_of(other)
        return name is not None and name == self.name

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return f"torchlight.{self.name}"

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return _by_name, (self.name,)


_NAMES: dict[tuple[type, Any], str | None] = {}


def _name_of(obj: Any) -> str | None:
    """The standard's name of a library's dtype (or of a dtype name), None for anything else."""
    key = (type(obj), obj)  # (the type first: a dict lookup never asks array_api_strict's dtype == NumPy's)
    try:
        known = _NAMES.get(key, 0)
    except TypeError:  # unhashable
        return None
    if known != 0:
        return known  # type: ignore[return-value]
    name: str | None = None
    if isinstance(obj, str):
        name = obj if obj in _KINDS else None
    elif isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
        name = np.dtype(obj).name
    elif isinstance(getattr(obj, "_np_dtype", None), np.dtype):  # array_api_strict's DType
        name = obj._np_dtype.name
    elif type(obj).__module__ == "torch" and type(obj).__name__ == "dtype":
        name = str(obj).rsplit(".", 1)[-1]
    if name not in _KINDS:
        name = None
    if len(_NAMES) < 1024:
        _NAMES[key] = name
    return name


#: the standard's dtypes by name
DTYPES: dict[str, DType] = {name: DType(name) for name in _KINDS}


def _by_name(name: str) -> DType:
    return DTYPES[name]


def as_dtype(obj: Any) -> DType | None:
    """The DType for `obj` (a DType, any library's dtype, a NumPy type or a dtype's name), None when
    `obj` names none of the standard's dtypes."""
    if type(obj) is DType:
        return obj
    name = _name_of(obj)
    return None if name is None else DTYPES[name]


#: the floating dtype `tl.set_default_dtype` chose (a name), or None: each backend's own default
DEFAULT_FLOAT: list[str | None] = [None]


def set_default_dtype(dtype: Any) -> None:
    """Make `dtype` (float32 or float64; float16 where a backend has it) the default floating dtype
    of the factories and layers on every backend (PyTorch's set_default_dtype; torchlight's own
    default is float64 wherever the device has it).

    Example:
        >>> import torchlight as tl
        >>> tl.set_default_dtype(tl.float32)
        >>> tl.zeros(2).dtype == tl.float32, tl.get_default_dtype()
        (True, torchlight.float32)
        >>> tl.set_default_dtype("float64")
    """
    name = getattr(dtype, "name", None) or str(np.dtype(dtype) if not isinstance(dtype, str) else dtype)
    name = {"float": "float64", "double": "float64", "half": "float16"}.get(name, name)
    if name not in ("float16", "float32", "float64"):
        raise TypeError(f"set_default_dtype: only floating-point dtypes can be the default (float16, float32, "
                        f"float64), not {dtype!r}")
    # float64 is torchlight's own default (where the device has it: JAX without x64 keeps float32)
    DEFAULT_FLOAT[0] = None if name == "float64" else name


def get_default_dtype() -> DType:
    """The default floating dtype: the one set with `set_default_dtype`, else float64.

    Example:
        >>> import torchlight as tl
        >>> tl.get_default_dtype(), tl.tensor([1.0]).dtype == tl.get_default_dtype()
        (torchlight.float64, True)
    """
    return DTYPES[DEFAULT_FLOAT[0] or "float64"]
