"""The CuPy backend: `array_api_compat.cupy` on a CUDA GPU.

CuPy is imported only when this backend is first asked for, never by
`import torchlight`. Install it with the `cuda12` or `cuda13` extra (the
cupy-cuda12x / cupy-cuda13x wheels; never plain `cupy`, a source build).

Example (on a machine with CuPy and a GPU):
    >>> import torchlight as tl                                    # doctest: +SKIP
    >>> x = tl.tensor([1.0, 2.0], backend="cupy", device=0, requires_grad=True)  # doctest: +SKIP
    >>> (x * x).sum().backward(); type(x.grad.data)                # doctest: +SKIP
    <class 'cupy.ndarray'>
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchlight.backends import base as base_module
from torchlight.backends.base import Backend, BackendError, BackendUnavailableError

INSTALL_HINT = (
    "install CuPy with `pip install 'torchlight[cuda12]'` (CUDA 12 driver) or "
    "`pip install 'torchlight[cuda13]'` (CUDA 13 driver), one of the two, never plain `cupy`"
)


def unusable_reason() -> str | None:
    """Why CuPy cannot run here, or None when it can.

    On a machine without a driver `getDeviceCount()` raises
    `CUDARuntimeError` rather than returning 0, so both are checked.
    """
    try:
        import cupy
    except ImportError as exc:
        return f"CuPy is not installed ({exc}); {INSTALL_HINT}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError where no driver is present
        return (f"CuPy is installed but no CUDA device is visible ({exc.__class__.__name__}: {exc}); "
                "run on a machine with an NVIDIA GPU and driver, or check CUDA_VISIBLE_DEVICES")
    if count == 0:
        return "CuPy is installed but no CUDA device is visible (0 devices); check CUDA_VISIBLE_DEVICES"
    return None


class CupyBackend(Backend):
    """CuPy arrays on CUDA devices; `cupy.add.at` for scatter-add and CuPy's
    own generator (one per device) for random numbers."""

    multi_device = True
    library_repr = True
    fused_kernels = "cupy"

    def __init__(self) -> None:
        reason = unusable_reason()
        if reason is not None:
            raise BackendUnavailableError(f"backend 'cupy' is not usable: {reason}")
        import array_api_compat.cupy as xp
        import cupy

        self._cupy = cupy
        super().__init__("cupy", xp, cupy.cuda.Device())
        self._generators: dict[int, Any] = {}
        self._seed: int | None = None

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """A CuPy array (never imports CuPy)."""
        import array_api_compat

        return array_api_compat.is_cupy_array(array)

    def resolve_device(self, device: Any) -> Any:
        if device is None or isinstance(device, self._cupy.cuda.Device):
            return device
        text = str(device).removeprefix("cuda").lstrip(":") or "0"
        try:
            index = int(text)
        except ValueError:
            raise BackendError(f"backend 'cupy': a device is a GPU index like 0 or 'cuda:0', not {device!r}") \
                from None
        count = self._cupy.cuda.runtime.getDeviceCount()
        if not 0 <= index < count:
            raise BackendError(f"backend 'cupy': no GPU {index}; {count} visible")
        return self._cupy.cuda.Device(index)

    def device_of(self, array: Any) -> Any:
        return array.device

    def is_host(self, array: Any) -> bool:
        return False

    def to_numpy(self, array: Any) -> np.ndarray:
        return self._cupy.asnumpy(array)

    def owns_fresh_memory(self, array: Any) -> bool:
        return array.base is None

    def call_into(self, out: Any, fn: Any, *args: Any) -> Any:
        return fn(*args, out=out)  # a ufunc: written into `out`'s own memory

    def asarray(self, data: Any, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Any:
        device = self.resolve_device(device)
        if device is None:
            return super().asarray(data, dtype=dtype, copy=copy)
        with device:
            return super().asarray(data, dtype=dtype, copy=copy)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        with values.device:
            out = self._cupy.zeros(shape, dtype=values.dtype)
            self._cupy.add.at(out, key, values)
        return out

    def seed(self, seed: int) -> None:
        self._seed = seed
        self._generators.clear()

    def get_rng_state(self) -> dict[str, Any]:
        if self._generators:
            raise RuntimeError("get_rng_state: the cupy backend's generators have drawn numbers, and CuPy's "
                               "generators do not give their state; save it before the first draw (after "
                               "tl.manual_seed), or pass generator= to the random functions")
        return {**super().get_rng_state(), "seed": self._seed}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        host = base_module.checked_host_state(state, self.name)
        seed = state.get("seed")
        if not (seed is None or isinstance(seed, int)):
            raise ValueError("set_rng_state: the cupy backend's seed is an int or None")
        self._set_host_state(host)
        self._seed = seed
        self._generators.clear()

    def native_random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        device = self.resolve_device(device) or self._cupy.cuda.Device()
        dtype = self._cupy.float64 if dtype is None else self.resolve_dtype(dtype)
        with device:
            rng = generator if generator is not None else self._device_generator(device.id)
            if kind == "rand":
                return rng.random(shape, dtype=dtype)
            return rng.standard_normal(shape, dtype=dtype)

    def _device_generator(self, index: int) -> Any:
        rng = self._generators.get(index)
        if rng is None:
            rng = self._cupy.random.default_rng(self._seed)
            self._generators[index] = rng
        return rng
