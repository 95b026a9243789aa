"""One Backend for every other library `array_api_compat` recognises.

array_api_strict (the reference implementation of the standard), PyTorch
tensors used as plain arrays, JAX arrays (immutable) and Dask arrays (lazy)
are all served by `ArrayAPIBackend` over their compat namespace, with a
scatter-add fast path where the library has one.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from torchlight.backends.base import Backend, BackendUnavailableError

#: backend name -> (module to import, pip requirement that provides it)
LIBRARIES = {
    "array_api_strict": ("array_api_strict", "array-api-strict"),
    "torch": ("torch", "torch (the CPU build: see docs/backends.md)"),
    "jax": ("jax.numpy", "jax"),
    "dask": ("dask.array", "dask[array]"),
}


class ArrayAPIBackend(Backend):
    """A Backend over any array-API namespace, with per-library fast paths.

    Example:
        >>> from torchlight.backends.generic import ArrayAPIBackend
        >>> ArrayAPIBackend("array_api_strict").xp.__name__
        'array_api_strict'
    """

    def __init__(self, name: str) -> None:
        module_name, requirement = LIBRARIES[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise BackendUnavailableError(
                f"backend {name!r} is not usable: {module_name} is not installed ({exc}); "
                f"install {requirement}"
            ) from exc
        import array_api_compat

        xp = array_api_compat.array_namespace(module.asarray([0.0]))
        info = xp.__array_namespace_info__()
        super().__init__(name, xp, info.default_device())
        self.multi_device = len(info.devices()) > 1 if name != "dask" else False
        self.immutable = name == "jax"
        self._module = module

    def to_numpy(self, array: Any) -> np.ndarray:
        if self.name == "torch":
            return array.detach().cpu().numpy()
        if self.name == "array_api_strict":
            cpu = self.xp.asarray(array, device=self.xp.Device("CPU_DEVICE"))
            return np.asarray(cpu._array)
        return np.asarray(array)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        if self.name == "jax":
            return self.xp.zeros(shape, dtype=values.dtype, device=self.device_of(values)).at[key].add(values)
        if self.name == "torch":
            return self._torch_scatter_add(shape, key, values)
        return super().scatter_add(shape, key, values)

    def _torch_scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        torch = self._module
        device = values.device
        positions = torch.arange(int(np.prod(shape)), device=device).reshape(shape)[key]
        out = torch.zeros(int(np.prod(shape)), dtype=values.dtype, device=device)
        out.index_add_(0, positions.reshape(-1), values.reshape(-1))
        return out.reshape(shape)


def unusable_reason(name: str) -> str | None:
    """Why the library behind backend `name` cannot be imported, or None."""
    module_name, requirement = LIBRARIES[name]
    try:
        importlib.import_module(module_name)
    except ImportError as exc:
        return f"{module_name} is not installed ({exc}); install {requirement}"
    return None
