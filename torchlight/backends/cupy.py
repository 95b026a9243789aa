"""The CuPy backend: `array_api_compat.cupy` on a CUDA GPU.

CuPy is imported only when this backend is first asked for, never by
`import torchlight`. Install it with the `cuda12` or `cuda13` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchlight.backends.base import Backend, BackendUnavailableError

INSTALL_HINT = (
    "install CuPy with `pip install 'torchlight[cuda12]'` (CUDA 12) or "
    "`pip install 'torchlight[cuda13]'` (CUDA 13)"
)


def unusable_reason() -> str | None:
    """Why CuPy cannot run here, or None when it can."""
    try:
        import cupy
    except ImportError as exc:
        return f"CuPy is not installed ({exc}); {INSTALL_HINT}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError where no driver is present
        return f"CuPy is installed but no CUDA device is visible ({exc.__class__.__name__}: {exc})"
    if count == 0:
        return "CuPy is installed but no CUDA device is visible (0 devices)"
    return None


class CupyBackend(Backend):
    """CuPy arrays on CUDA devices; `cupyx.scatter_add` and CuPy's generator."""

    multi_device = True

    def __init__(self) -> None:
        reason = unusable_reason()
        if reason is not None:
            raise BackendUnavailableError(f"backend 'cupy' is not usable: {reason}")
        import array_api_compat.cupy as xp
        import cupy

        super().__init__("cupy", xp, cupy.cuda.Device())
        self._cupy = cupy

    def device_of(self, array: Any) -> Any:
        return array.device

    def to_numpy(self, array: Any) -> np.ndarray:
        return self._cupy.asnumpy(array)

    def asarray(self, data: Any, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Any:
        if isinstance(device, int):
            device = self._cupy.cuda.Device(device)
        if device is None:
            return super().asarray(data, dtype=dtype, copy=copy)
        with device:
            return super().asarray(data, dtype=dtype, copy=copy)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        import cupyx

        with values.device:
            out = self._cupy.zeros(shape, dtype=values.dtype)
            cupyx.scatter_add(out, key, values)
        return out

    def seed(self, seed: int) -> None:
        self._rng = self._cupy.random.default_rng(seed)

    def random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        if generator is None and self._rng is None:
            self._rng = self._cupy.random.default_rng()
        rng = generator if generator is not None else self._rng
        dtype = self._cupy.float64 if dtype is None else self.resolve_dtype(dtype)
        device = self.device if device is None else device
        if isinstance(device, int):
            device = self._cupy.cuda.Device(device)
        with device:
            if kind == "rand":
                return rng.random(shape, dtype=dtype)
            return rng.standard_normal(shape, dtype=dtype)
