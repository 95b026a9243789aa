"""The PyTorch backend: torch tensors used as plain arrays, through `array_api_compat.torch`.

PyTorch is imported when this backend is first asked for, never by
`import torchlight` (this module's `torch` is the library: imports are
absolute). What torch does its own way: devices are `torch.device`s
("meta" ones, which hold no data, are left out), scatter-add is
`index_add_`, random numbers come from a `torch.Generator` per device,
small integer index arrays are widened, and Python floats become float64
(torch's own default is float32) so that the same code gives the same
numbers on every backend.

Example (where PyTorch is installed):
    >>> import torchlight as tl                                       # doctest: +SKIP
    >>> be = tl.backends.get("torch")                                 # doctest: +SKIP
    >>> be.asarray([1.0]).dtype, be.resolve_device("cpu")             # doctest: +SKIP
    (torch.float64, device(type='cpu'))
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

from torchlight.backends import base as base_module
from torchlight.backends.dtypes import DEFAULT_FLOAT
from torchlight.backends.generic import ArrayAPIBackend


class TorchBackend(ArrayAPIBackend):
    """PyTorch tensors used as plain arrays: `index_add_`, `torch.Generator`."""

    library = "torch"
    torch_tensors = True
    install_hint = ("install PyTorch's CPU build first, then `pip install 'torchlight[test-backends]'` "
                    "(see docs/backends.md)")

    def __init__(self, name: str = "torch") -> None:
        super().__init__(name)
        self._generators: dict[Any, Any] = {}
        self._seed: int | None = None

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """A torch tensor (never imports torch)."""
        import array_api_compat

        return array_api_compat.is_torch_array(array)

    def _usable_devices(self, devices: list[Any]) -> list[Any]:
        # "meta" tensors have shapes but no data: not a place to compute
        return [d for d in devices if d.type != "meta"]

    def resolve_device(self, device: Any) -> Any:
        return None if device is None else self._module.device(device)

    def default_float(self, device: Any = None) -> Any:
        """float64, as on every backend whose device has it (not torch's float32:
        the same code gives the same numbers on every backend)."""
        info = self.xp.__array_namespace_info__()
        floats = info.dtypes(device=self.resolve_device(device) or self.device, kind="real floating")
        return floats.get(DEFAULT_FLOAT[0] or "float64", self._module.float32)

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

    # --------------------------------------------------------------- random
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

    def get_rng_state(self) -> dict[str, Any]:
        generators = {str(d): base64.b64encode(g.get_state().numpy().tobytes()).decode() for d, g in
                      self._generators.items()}
        return {**super().get_rng_state(), "seed": self._seed, "generators": generators}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        host = base_module.checked_host_state(state, self.name)
        seed, generators = state.get("seed"), state.get("generators")
        if not (seed is None or isinstance(seed, int)) or not isinstance(generators, dict):
            raise ValueError("set_rng_state: the torch backend's state has a 'seed' (an int or None) and "
                             "'generators' (a dict device -> state)")
        torch = self._module
        made = {torch.device(d): torch.frombuffer(bytearray(base64.b64decode(b)), dtype=torch.uint8)
                for d, b in generators.items()}
        self._set_host_state(host)
        self._seed = seed
        self._generators.clear()
        for device, bits in made.items():
            self._torch_generator(device).set_state(bits)

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


def _is_python_data(data: Any) -> bool:
    """A Python number or a (nested) list/tuple of them, not an array."""
    return isinstance(data, (int, float, complex, list, tuple))
