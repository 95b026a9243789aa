"""The JAX backend: immutable arrays, through `array_api_compat`'s view of `jax.numpy`.

JAX is imported when this backend is first asked for, never by
`import torchlight` (this module's `jax` is the library: imports are
absolute). JAX arrays cannot be written in place (`immutable`: the engine
never tries), scatter-add is `.at[key].add`, an out-of-range index is
refused before JAX would clamp it, and random numbers come from a
`jax.random` key split once per draw.

Example (where JAX is installed):
    >>> import torchlight as tl                                       # doctest: +SKIP
    >>> be = tl.backends.get("jax")                                   # doctest: +SKIP
    >>> be.immutable, be.resolve_device("cpu")                        # doctest: +SKIP
    (True, CpuDevice(id=0))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchlight.backends import base as base_module
from torchlight.backends import indexing, writes
from torchlight.backends.base import BackendError
from torchlight.backends.generic import ArrayAPIBackend


class JaxBackend(ArrayAPIBackend):
    """JAX arrays: immutable (the engine never writes in place), `.at[].add`,
    and a `jax.random` key split once per draw."""

    library = "jax.numpy"
    install_hint = "run `pip install jax jaxlib`"
    immutable = True

    def __init__(self, name: str = "jax") -> None:
        super().__init__(name)
        import jax

        self._jax = jax
        self._key: Any = None

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """A JAX array (never imports JAX)."""
        import array_api_compat

        return array_api_compat.is_jax_array(array)

    def resolve_device(self, device: Any) -> Any:
        if device is None or isinstance(device, self._jax.Device):
            return device
        if isinstance(device, int):
            return self._jax.devices()[device]
        platform, _, index = str(device).partition(":")
        try:
            return self._jax.devices(platform)[int(index or 0)]
        except (RuntimeError, IndexError, ValueError) as exc:
            raise BackendError(f"backend {self.name!r} has no device {device!r}: {exc}") from exc

    def is_host(self, array: Any) -> bool:
        return all(d.platform == "cpu" for d in array.devices())

    def take_key(self, array: Any, key: Any) -> Any:
        # JAX clamps an out-of-range index where NumPy raises: check first
        indexing.check_bounds(self.xp, array, key)
        return super().take_key(array, key)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        zeros = self.xp.zeros(shape, dtype=values.dtype, device=self.device_of(values))
        return zeros.at[key].add(values)

    def set_key(self, array: Any, key: Any, values: Any) -> Any:
        # JAX drops an out-of-range write where NumPy raises: check first; `.at[].set` is JAX's
        # functional write (its order for duplicate indices is unspecified: those take the base path)
        indexing.check_bounds(self.xp, array, key)
        if not writes.has_integer_array(key):
            return array.at[key].set(values)
        return writes.set_flat(self.xp, array, key, values, self.take_key)

    # --------------------------------------------------------------- random
    def seed(self, seed: int) -> None:
        self._key = self._jax.random.key(seed)

    def random_state(self) -> Any:
        return super().random_state(), self._key

    def set_random_state(self, state: Any) -> None:
        host, self._key = state
        super().set_random_state(host)

    def get_rng_state(self) -> dict[str, Any]:
        key = None if self._key is None else {"impl": str(self._jax.random.key_impl(self._key)),
                                              "data": np.asarray(self._jax.random.key_data(self._key)).tolist()}
        return {**super().get_rng_state(), "key": key}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        host = base_module.checked_host_state(state, self.name)
        key = state.get("key")
        if key is not None:
            if not (isinstance(key, dict) and isinstance(key.get("impl"), str) and isinstance(key.get("data"), list)):
                raise ValueError("set_rng_state: the jax backend's key is None or {'impl': name, 'data': [...]}")
            data = self._jax.numpy.asarray(np.asarray(key["data"], dtype=np.uint32))
            key = self._jax.random.wrap_key_data(data, impl=key["impl"])
        self.set_random_state((host, key))

    def native_random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        device = self.resolve_device(device)
        dtype = self.default_float(device) if dtype is None else self.resolve_dtype(dtype)
        if generator is None:
            if self._key is None:
                self.seed(int(np.random.SeedSequence().generate_state(1)[0]))
            self._key, generator = self._jax.random.split(self._key)
        sample = self._jax.random.uniform if kind == "rand" else self._jax.random.normal
        out = sample(generator, shape, dtype=dtype)
        return out if device is None else self._jax.device_put(out, device)
