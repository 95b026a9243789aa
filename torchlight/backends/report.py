"""What `python -m torchlight` prints: versions, each backend usable or why not, devices, BLAS.

`report()` builds the text from `backend_rows()` (one dict per built-in
backend) and `blas_lines()`; every library is imported here only when the
report is made, never on `import torchlight`.

Example:
    >>> text = report(version="0.1.0")
    >>> text.splitlines()[0]
    'torchlight 0.1.0'
    >>> "numpy: usable" in text
    True
"""

from __future__ import annotations

import platform
import sys
import warnings
from typing import Any

from torchlight import backends

__all__ = ["backend_rows", "blas_lines", "report"]


def backend_rows() -> list[dict[str, Any]]:
    """One entry per built-in backend, in the registry's order: `name`, `usable`, `reason` (why not,
    "" when usable), `library` (its version, where it imports), `devices` and `array_api_version`
    (what its namespace reports)."""
    rows = []
    with warnings.catch_warnings():  # (a library may warn while it is first set up: torch lists its devices)
        warnings.simplefilter("ignore")
        found = backends.available()
    for name, (usable, reason) in found.items():
        reason = reason.removeprefix(f"backend {name!r} is not usable: ")
        row: dict[str, Any] = {"name": name, "usable": usable, "reason": reason, "library": None,
                               "devices": [], "array_api_version": None}
        if usable:
            backend = backends.get(name)
            row["library"] = _library_version(backend)
            row["devices"] = _devices(backend)
            row["array_api_version"] = getattr(backend.xp, "__array_api_version__", None)
        rows.append(row)
    return rows


def _library_version(backend: Any) -> str | None:
    """The version of the library under `backend`'s namespace (`numpy 2.3.1`)."""
    module = sys.modules.get(getattr(backend, "library", backend.name).split(".")[0])
    if module is None:  # (a namespace not named after its library: array_api_compat's wrappers)
        module = sys.modules.get(backend.name)
    version = getattr(module, "__version__", None)
    return None if module is None else f"{module.__name__} {version}" if version else module.__name__


def _devices(backend: Any) -> list[str]:
    """The devices `backend` can put arrays on, as text."""
    devices = getattr(backend, "devices", None)
    if devices is None:
        try:
            with warnings.catch_warnings():  # (some namespaces warn while listing their device kinds)
                warnings.simplefilter("ignore")
                devices = list(backend.xp.__array_namespace_info__().devices())
        except Exception:  # a namespace without the inspection API: its default device only
            devices = [backend.device]
    return [str(d) for d in devices if d is not None]


def blas_lines() -> list[str]:
    """The BLAS NumPy was built with, and (with threadpoolctl installed) every BLAS/OpenMP library
    loaded now, with its thread count."""
    lines = []
    import numpy as np

    try:
        config: Any = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        lines.append(f"numpy built with {blas.get('name')} {blas.get('version', '')}".rstrip())
    except Exception as exc:  # (an old NumPy without mode="dicts")
        lines.append(f"numpy's BLAS: unknown ({type(exc).__name__}: {exc})")
    try:
        import threadpoolctl  # type: ignore[import-untyped]
    except ImportError:
        lines.append("loaded libraries: install threadpoolctl to list them with their thread counts")
        return lines
    for info in threadpoolctl.threadpool_info():
        lines.append(f"loaded: {info.get('internal_api')} {info.get('version') or ''} "
                     f"({info.get('num_threads')} threads) {info.get('filepath')}")
    return lines


def report(version: str | None = None) -> str:
    """The whole text of `python -m torchlight` (`version`: torchlight's own)."""
    lines = [f"torchlight {version or 'unknown'}",
             f"Python {platform.python_version()} ({platform.python_implementation()}, {sys.platform})",
             "", "backends:"]
    for row in backend_rows():
        if not row["usable"]:
            lines.append(f"  {row['name']}: not usable: {row['reason']}")
            continue
        lines.append(f"  {row['name']}: usable ({row['library']}); array API {row['array_api_version']}; "
                     f"devices: {', '.join(row['devices']) or 'none listed'}")
    lines += ["", "BLAS:"] + [f"  {line}" for line in blas_lines()]
    return "\n".join(lines)
