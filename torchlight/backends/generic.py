"""One Backend for every other library `array_api_compat` recognises.

array_api_strict (the reference implementation of the standard), PyTorch
tensors used as plain arrays, JAX arrays (immutable) and Dask arrays (lazy)
are all served by `ArrayAPIBackend` over their compat namespace. The few
things worth doing the library's own way (scatter-add, random numbers,
devices) are small subclasses here, each with the portable version of
`Backend` as its fallback.

Example:
    >>> from torchlight.backends.generic import make
    >>> make("array_api_strict").xp.__name__
    'array_api_strict'
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from torchlight.backends import indexing
from torchlight.backends.base import Backend, BackendError, BackendUnavailableError

#: backend name -> (module to import, what to install to get it)
LIBRARIES = {
    "array_api_strict": ("array_api_strict", "run `pip install array-api-strict`"),
    "torch": ("torch", "install PyTorch's CPU build first, then `pip install 'torchlight[test-backends]'` "
                       "(see docs/backends.md)"),
    "jax": ("jax.numpy", "run `pip install jax jaxlib`"),
    "dask": ("dask.array", "run `pip install 'dask[array]'`"),
}


def make(name: str) -> Backend:
    """The Backend for library `name` (raises BackendUnavailableError if missing)."""
    cls = {"torch": TorchBackend, "jax": JaxBackend, "dask": DaskBackend}.get(name, ArrayAPIBackend)
    return cls(name)


def unusable_reason(name: str) -> str | None:
    """Why the library behind backend `name` cannot be imported, or None."""
    module_name, requirement = LIBRARIES[name]
    try:
        importlib.import_module(module_name)
    except ImportError as exc:
        return f"{module_name} is not installed ({exc}); {requirement}"
    return None


class ArrayAPIBackend(Backend):
    """A Backend over any array-API namespace (portable paths throughout)."""

    def __init__(self, name: str) -> None:
        reason = unusable_reason(name)
        if reason is not None:
            raise BackendUnavailableError(f"backend {name!r} is not usable: {reason}")
        import array_api_compat

        self._module = importlib.import_module(LIBRARIES[name][0])
        xp = array_api_compat.array_namespace(self._module.asarray([0.0]))
        info = xp.__array_namespace_info__()
        devices = [d for d in info.devices() if d is not None]
        default = info.default_device()
        super().__init__(name, xp, default if default is not None else (devices[0] if devices else None))
        self.devices = devices
        self.multi_device = len(devices) > 1

    def resolve_device(self, device: Any) -> Any:
        if device is None or device in self.devices:
            return device
        text = str(device)
        for d in self.devices:
            if text in (str(d), repr(d)) or str(d) == f"{text}:0":
                return d
        if self.name == "array_api_strict":
            try:
                return self.xp.Device(text)
            except ValueError:
                pass
        raise BackendError(f"backend {self.name!r} has no device {device!r}; its devices: {self.devices}")

    def is_host(self, array: Any) -> bool:
        if self.name == "array_api_strict":
            return self.device_of(array) == self.xp.Device("CPU_DEVICE")
        return True

    def to_numpy(self, array: Any) -> np.ndarray:
        if self.name == "array_api_strict":
            # strict refuses __array__ off its CPU_DEVICE: move there first
            return np.from_dlpack(self.xp.asarray(array, device=self.xp.Device("CPU_DEVICE")))
        return np.asarray(array)


class TorchBackend(ArrayAPIBackend):
    """PyTorch tensors used as plain arrays: `index_add_`, `torch.Generator`."""

    def __init__(self, name: str = "torch") -> None:
        super().__init__(name)
        # "meta" tensors have shapes but no data: not a place to compute
        self.devices = [d for d in self.devices if d.type != "meta"]
        self.multi_device = len(self.devices) > 1
        self._generators: dict[Any, Any] = {}
        self._seed: int | None = None

    def resolve_device(self, device: Any) -> Any:
        return None if device is None else self._module.device(device)

    def default_float(self, device: Any = None) -> Any:
        """float64, as on every backend whose device has it (not torch's float32:
        the same code gives the same numbers on every backend)."""
        info = self.xp.__array_namespace_info__()
        floats = info.dtypes(device=self.resolve_device(device) or self.device, kind="real floating")
        return floats.get("float64", self._module.float32)

    def asarray(self, data: Any, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Any:
        out = super().asarray(data, dtype=dtype, device=device, copy=copy)
        if dtype is None and _is_python_data(data):  # made again where torch chose float32/complex64
            if out.dtype.is_floating_point and out.dtype != self.default_float(out.device):
                return super().asarray(data, dtype=self.default_float(out.device), device=out.device, copy=copy)
            if out.dtype == self._module.complex64:
                return super().asarray(data, dtype=self._module.complex128, device=out.device, copy=copy)
        return out

    def is_host(self, array: Any) -> bool:
        return array.device.type == "cpu"

    def to_numpy(self, array: Any) -> np.ndarray:
        return array.detach().cpu().numpy()

    def index_array(self, array: Any) -> Any:
        """An integer index array of another dtype than int32/int64 as int64: torch reads
        uint8 as a mask (x[:, uint8 [1, 0, 1]] took columns 0 and 2, with a deprecation
        warning) and refuses int8, int16 and the other unsigned dtypes."""
        torch = self._module
        if array.dtype in (torch.int64, torch.int32, torch.bool) or array.is_floating_point() \
                or array.is_complex():
            return array
        return array.to(torch.int64)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        torch = self._module
        size = math.prod(shape)
        positions = self.take_key(torch.arange(size, device=values.device).reshape(shape), key)
        out = torch.zeros(size, dtype=values.dtype, device=values.device)
        out.index_add_(0, positions.reshape(-1), values.reshape(-1))
        return out.reshape(shape)

    def seed(self, seed: int) -> None:
        self._seed = seed
        self._generators.clear()

    def random_state(self) -> Any:
        return super().random_state(), {d: g.get_state() for d, g in self._generators.items()}

    def set_random_state(self, state: Any) -> None:
        host, generators = state
        super().set_random_state(host)
        for device in list(self._generators):
            if device in generators:
                self._generators[device].set_state(generators[device])
            else:
                del self._generators[device]

    def _torch_generator(self, device: Any) -> Any:
        generator = self._generators.get(device)
        if generator is None:
            generator = self._module.Generator(device=device)
            if self._seed is None:
                generator.seed()
            else:
                generator.manual_seed(self._seed)
            self._generators[device] = generator
        return generator

    def native_random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        device = self.resolve_device(device) or self.device
        dtype = self.default_float(device) if dtype is None else self.resolve_dtype(dtype)
        generator = generator if generator is not None else self._torch_generator(device)
        sample = self._module.rand if kind == "rand" else self._module.randn
        return sample(shape, generator=generator, dtype=dtype, device=device)


class JaxBackend(ArrayAPIBackend):
    """JAX arrays: immutable (the engine never writes in place), `.at[].add`,
    and a `jax.random` key split once per draw."""

    immutable = True

    def __init__(self, name: str = "jax") -> None:
        super().__init__(name)
        import jax

        self._jax = jax
        self._key: Any = None

    def resolve_device(self, device: Any) -> Any:
        if device is None or isinstance(device, self._jax.Device):
            return device
        if isinstance(device, int):
            return self._jax.devices()[device]
        platform, _, index = str(device).partition(":")
        try:
            return self._jax.devices(platform)[int(index or 0)]
        except (RuntimeError, IndexError, ValueError) as exc:
            raise BackendError(f"backend 'jax' has no device {device!r}: {exc}") from exc

    def is_host(self, array: Any) -> bool:
        return all(d.platform == "cpu" for d in array.devices())

    def take_key(self, array: Any, key: Any) -> Any:
        # JAX clamps an out-of-range index where NumPy raises: check first
        indexing.check_bounds(self.xp, array, key)
        return super().take_key(array, key)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        zeros = self.xp.zeros(shape, dtype=values.dtype, device=self.device_of(values))
        return zeros.at[key].add(values)

    def seed(self, seed: int) -> None:
        self._key = self._jax.random.key(seed)

    def random_state(self) -> Any:
        return super().random_state(), self._key

    def set_random_state(self, state: Any) -> None:
        host, self._key = state
        super().set_random_state(host)

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


class DaskBackend(ArrayAPIBackend):
    """Dask arrays: lazy, so nothing here computes them, and a result's
    shape must be known without computing (see `take_key`)."""

    lazy = True

    def checked(self, array: Any, bad: Any, error: Exception) -> Any:
        return array.map_blocks(_checked_block, bad, error, dtype=array.dtype)  # raises when computed

    def take_key(self, array: Any, key: Any) -> Any:
        indexing.check_kinds(self.xp, key)
        if any(isinstance(k, bool) for k in (key if isinstance(key, tuple) else (key,))):
            raise IndexError(f"Gather: on Dask, the key {key!r} holds a Python bool, which Dask reads as the "
                             "index 0 or 1 (NumPy: a new axis of length 1 or 0); write None or x[None][:0] instead")
        key = self._bounds_checked(array, key)
        out = self._take_single(array, key)
        if out is None:
            out = super().take_key(array, key)
        if any(math.isnan(n) for n in out.shape):
            raise IndexError(
                f"Gather: on Dask, the key {key!r} selects a number of elements that is unknown until the "
                "mask is computed (a shape of nan), and torchlight needs known shapes to route gradients; "
                "compute the mask first, or keep the shape with tl.where(mask, x, 0.0) instead"
            )
        return out

    def _bounds_checked(self, array: Any, key: Any) -> Any:
        """`key` with each integer index array checked against its axis when computed.

        Dask takes an out-of-range entry of a lazy index array without a word
        (x[:, [0, 3]] of 3 columns gave column 0 twice); NumPy raises IndexError.
        The check is a `map_blocks` on the index, so nothing is computed here.
        """
        parts = indexing.expand(key, array.ndim)
        if parts is None or not any(isinstance(k, self._module.Array) for k in parts):
            return key
        checked, axis = [], 0
        for k in parts:
            if isinstance(k, self._module.Array) and k.dtype != self.xp.bool:
                k = k.map_blocks(_in_bounds, array.shape[axis], axis, dtype=k.dtype)
            checked.append(k)
            axis += indexing._consumes(k)
        return tuple(checked)

    def _take_single(self, array: Any, key: Any) -> Any:
        """`array[key]` for a key whose one index array is a Dask array of one element, else None.

        Dask gives such an index the size of the axis it indexes (its values
        are right, its shape is not, and the mismatch breaks later on
        compute), so the element is taken twice and one copy sliced off.
        """
        xp = self.xp
        parts = indexing.expand(key, array.ndim)
        lazy = [i for i, k in enumerate(parts or ()) if isinstance(k, self._module.Array) and k.dtype != xp.bool]
        if len(lazy) != 1 or math.prod(parts[lazy[0]].shape) != 1:
            return None
        position = lazy[0]
        index = parts[position]
        twice = xp.concat([xp.reshape(index, (1,))] * 2)
        out = super().take_key(array, parts[:position] + (twice,) + parts[position + 1:])
        axis = 0 if indexing.apart(parts, array.ndim) else indexing.array_axis(parts, position)
        return indexing.unflatten(xp, out[(slice(None),) * axis + (slice(0, 1),)], axis, index.shape)


def _checked_block(block: np.ndarray, bad: Any, error: Exception) -> np.ndarray:
    """`block` of a Dask array, or `error` raised if `bad(block)` holds anywhere in it."""
    if block.size and bool(np.any(bad(block))):
        raise error
    return block


def _in_bounds(block: np.ndarray, n: int, axis: int) -> np.ndarray:
    """`block` of a Dask index array, or NumPy's IndexError if an entry is outside an axis of `n`."""
    if block.size:
        low, high = block.min(), block.max()
        if low < -n or high >= n:
            raise IndexError(f"index {high if high >= n else low} is out of bounds for axis {axis} with size {n}")
    return block


def _is_python_data(data: Any) -> bool:
    """A Python number or a (nested) list/tuple of them, not an array."""
    return isinstance(data, (int, float, complex, list, tuple))
