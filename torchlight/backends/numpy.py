"""The NumPy backend: `array_api_compat.numpy` on the CPU, with NumPy fast paths."""

from __future__ import annotations

from typing import Any

import numpy as np

from torchlight.backends import writes
from torchlight.backends.base import Backend, BackendError
from torchlight.backends.dtypes import DEFAULT_FLOAT


class NumpyBackend(Backend):
    """NumPy arrays; `np.add.at` for scatter-add, `np.random.Generator` for noise.

    Example:
        >>> from torchlight.backends.numpy import NumpyBackend
        >>> NumpyBackend().scatter_add((3,), np.array([0, 0, 2]), np.ones(3)).tolist()
        [2.0, 0.0, 1.0]
    """

    blocks_elementwise = True
    fused_kernels = "cpu"
    named_in_repr = False

    def __init__(self) -> None:
        import array_api_compat.numpy as xp

        super().__init__("numpy", xp, "cpu")

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """A NumPy array or NumPy scalar (`np.float64(1.0)`)."""
        import array_api_compat

        return array_api_compat.is_numpy_array(array)

    def device_of(self, array: Any) -> Any:
        return "cpu"

    def resolve_device(self, device: Any) -> Any:
        if device is None or str(device) == "cpu":
            return device
        raise BackendError(f"backend 'numpy' has only the device 'cpu', not {device!r}; use backend='cupy' for a GPU")

    def is_floating(self, dtype: Any) -> bool:
        return dtype.kind in "fc"

    def default_float(self, device: Any = None) -> Any:
        chosen = DEFAULT_FLOAT[0]  # (tl.set_default_dtype's)
        return np.float64 if chosen is None else np.dtype(chosen).type

    def owns_fresh_memory(self, array: Any) -> bool:
        # a view (reshape, broadcast_to, transpose) or a read-only array
        # shares memory with something else: such a gradient is copied.
        return isinstance(array, np.ndarray) and array.base is None and array.flags.writeable

    def call_into(self, out: Any, fn: Any, *args: Any) -> Any:
        if type(out) is not np.ndarray:  # a NumPy scalar (what a 0-d array's ufunc gives) has no memory to write
            return fn(*args)
        return fn(*args, out=out)  # a ufunc: written into `out`'s own memory

    def masked(self, values: Any, mask: Any) -> Any:
        return values * mask  # NumPy casts the booleans as it multiplies: no float copy of the mask

    @staticmethod  # (no method binding: a product's backward asks this of every gradient)
    def is_broadcast_one(array: Any) -> bool:
        # a view first (a ufunc's result is none: one attribute read), then all strides 0: every
        # element is one element, so one read says whether it is 1 everywhere
        return (array.base is not None and not any(array.strides) and array.size > 1
                and array.item(0) == 1)

    @staticmethod
    def gradient_times(g: Any, array: Any) -> Any:
        # read-only: a hook writing into its gradient raises instead of changing `array`, and a
        # leaf copies it (a view) before keeping it as its .grad
        if g.shape == array.shape and g.dtype == array.dtype and type(array) is np.ndarray:
            view = array.view()
            view.flags.writeable = False
            return view
        return g * array

    def copy(self, array: Any) -> Any:
        return np.array(array, copy=True)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        out = np.zeros(shape, dtype=values.dtype)
        np.add.at(out, key, values)
        return out

    def set_key(self, array: Any, key: Any, values: Any) -> Any:
        out = np.array(array, copy=True)  # (a NumPy scalar too: a 0-d array)
        if not writes.has_integer_array(key):
            out[key] = values
            return out
        # integer arrays: each position written once, by its last entry in the key (NumPy leaves the
        # order of an advanced assignment unspecified)
        where = writes.positions(self.xp, out.shape, key, self.take_key, "cpu")
        last = self.last_writes(out.shape, key, "cpu")
        out.reshape(-1)[where[last]] = np.broadcast_to(values, where.shape)[last]
        return out

    def host_random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        # the host is this backend's device: drawn in the asked dtype directly
        self.resolve_device(device)
        rng = self._generator(generator)
        dtype = self.default_float(device) if dtype is None else self.resolve_dtype(dtype)
        drawn = dtype if np.dtype(dtype) in (np.float32, np.float64) else np.float32  # (float16: drawn, then cast)
        out = rng.random(shape, dtype=drawn) if kind == "rand" else rng.standard_normal(shape, dtype=drawn)
        return out if drawn is dtype else out.astype(dtype)

    native_random = host_random
