"""`__array_namespace_info__()`: what the namespace supports, asked of the default backend (or of
the backend a `device=` names).

Capabilities: "boolean indexing" and "data-dependent shapes" are True
except where the default backend is lazy (Dask), where a mask index or
`nonzero`/`unique_*` would have to compute early; "max dimensions" is the
backend library's own answer (64 where it gives none). They follow the
default backend when it changes (`tl.set_default_backend`).
"""

from __future__ import annotations

from typing import Any

from torchlight import backends
from torchlight.array_api._helpers import place
from torchlight.backends import Backend
from torchlight.backends.dtypes import DTYPES, DType, as_dtype

__all__ = ["Info", "__array_namespace_info__"]


class Info:
    """The standard's inspection namespace for torchlight's array API namespace.

    Example:
        >>> import torchlight.array_api as xp
        >>> info = xp.__array_namespace_info__()
        >>> info.default_dtypes()["real floating"] == xp.float64, info.capabilities()["boolean indexing"]
        (True, True)
    """

    __module__ = "torchlight.array_api"

    def capabilities(self) -> dict[str, Any]:
        """What the default backend can do: boolean indexing and data-dependent shapes (False on a lazy
        backend), and the most dimensions an array may have.

        Example:
            >>> import torchlight.array_api as xp
            >>> info = xp.__array_namespace_info__()
            >>> info.capabilities()
            {'boolean indexing': True, 'data-dependent shapes': True, 'max dimensions': 64}
        """
        backend = backends.get()
        own = _own_info(backend)
        dims = 64
        if own is not None and hasattr(own, "capabilities"):
            dims = own.capabilities().get("max dimensions", 64)
        return {"boolean indexing": not backend.lazy, "data-dependent shapes": not backend.lazy,
                "max dimensions": dims}

    def default_device(self) -> Any:
        """The default backend's default device, as a `Device` (where arrays made without `device=` land).

        Example:
            >>> import torchlight.array_api as xp
            >>> info = xp.__array_namespace_info__()
            >>> info.default_device() == xp.asarray([1.0]).device
            True
        """
        backend = backends.get()
        own = _own_info(backend)
        raw = own.default_device() if own is not None and hasattr(own, "default_device") else backend.device
        return backend.device_object(raw)

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """The default dtypes ("real floating", "complex floating", "integral", "indexing") of the
        backend and device `device` names (the default backend's when None).

        Example:
            >>> import torchlight.array_api as xp
            >>> info = xp.__array_namespace_info__()
            >>> info.default_dtypes()["real floating"], info.default_dtypes()["indexing"]
            (torchlight.float64, torchlight.int64)
        """
        backend, raw = place(device, "default_dtypes")
        own = _own_info(backend)
        found = own.default_dtypes(device=raw) if own is not None else {}
        out = {kind: _ours(found.get(kind), fallback) for kind, fallback in (
            ("real floating", "float64"), ("complex floating", "complex128"), ("integral", "int64"),
            ("indexing", "int64"))}
        out["real floating"] = _ours(backend.default_float(raw), "float64")  # (`tl.set_default_dtype`'s)
        return out

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """The dtypes the backend supports, by name, of `kind` (one of `isdtype`'s kind names or a
        tuple of them; all when None).

        Example:
            >>> import torchlight.array_api as xp
            >>> info = xp.__array_namespace_info__()
            >>> info.dtypes(kind="real floating")
            {'float32': torchlight.float32, 'float64': torchlight.float64}
        """
        backend, raw = place(device, "dtypes")
        own = _own_info(backend)
        if own is None:
            return dict(DTYPES)
        found = own.dtypes(device=raw, kind=kind)
        return {name: DTYPES[name] for name in found if name in DTYPES}

    def devices(self) -> list[Any]:
        """The default backend's devices, as `Device` objects (each usable as `device=`).

        Example:
            >>> import torchlight.array_api as xp
            >>> info = xp.__array_namespace_info__()
            >>> [str(device) for device in info.devices()]
            ['numpy:cpu']
        """
        backend = backends.get()
        own = _own_info(backend)
        raws = own.devices() if own is not None else [backend.device]
        return [backend.device_object(raw) for raw in raws]


def _own_info(backend: Backend) -> Any:
    """The backend library's own inspection namespace (None where it has none)."""
    make = getattr(backend.xp, "__array_namespace_info__", None)
    return None if make is None else make()


def _ours(dtype: Any, fallback: str) -> DType:
    found = as_dtype(dtype)
    return DTYPES[fallback] if found is None else found


_INFO = Info()


def __array_namespace_info__() -> Info:  # noqa: N807  (the standard's name)
    """The inspection namespace (see `Info`).

    Example:
        >>> import torchlight.array_api as xp
        >>> info = xp.__array_namespace_info__()
        >>> info.default_dtypes()["integral"], info.dtypes(kind="bool")
        (torchlight.int64, {'bool': torchlight.bool})
        >>> [str(d) for d in info.devices()]     # the default backend's devices
        ['numpy:cpu']
    """
    return _INFO
