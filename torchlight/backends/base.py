"""The `Backend`: one array library, seen through its array-API namespace.

A Backend knows which namespace `xp` its arrays speak, which device is its
default, and how to run a scalar function of `torchlight.scalar` over whole
arrays (`map`, `zip`, `reduce`). Everything library-specific (scatter-add,
random numbers, telling whether the library is usable) is a method here, and
what a library's arrays allow is a capability flag (`immutable`, `lazy`,
`library_repr`, ...), so that the ops in `torchlight.autograd.functions`
stay portable and nothing outside this package asks a backend its name.

Example:
    >>> import torchlight as tl
    >>> be = tl.backends.get("numpy")
    >>> be.name, be.xp.__name__
    ('numpy', 'array_api_compat.numpy')
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from torchlight.backends import indexing, writes
from torchlight.backends.devices import Device, unwrap
from torchlight.backends.dtypes import DEFAULT_FLOAT, DType
from torchlight.backends.elementwise import mapper, reducer, zipper
from torchlight.backends.errors import BackendError, BackendUnavailableError  # noqa: F401  (re-exported)


def _unwrapping(resolve: Any) -> Any:
    """`resolve` (a Backend's `resolve_device`) first unwrapping a `Device` of that backend."""
    def resolve_device(self: Backend, device: Any) -> Any:
        if isinstance(device, Device):
            device = unwrap(self, device)
        return resolve(self, device)

    resolve_device.__doc__ = resolve.__doc__
    resolve_device._unwraps = True  # type: ignore[attr-defined]
    return resolve_device


def _floating_kinds(xp: Any) -> dict[Any, bool]:
    """The namespace's floating dtypes, each as the namespace names it and as its arrays' `.dtype`
    may (NumPy's dtype object, for NumPy, CuPy, JAX and Dask), and whether it is complex: known from
    the start, so that even a dtype's first backward takes the ops' array formulas."""
    kinds: dict[Any, bool] = {}
    for name in ("float16", "float32", "float64", "complex64", "complex128"):
        dtype = getattr(xp, name, None)
        if dtype is None:
            continue
        kinds[dtype] = name.startswith("complex")
        try:
            kinds[np.dtype(dtype)] = name.startswith("complex")
        except TypeError:  # (a library's own dtype object: PyTorch's, array-api-strict's)
            pass
    return kinds


class Backend:
    """An array library plus the helpers the engine needs from it.

    Subclasses override the few methods whose best form is library-specific,
    and the capability flags below (class attributes, each documented beside
    it and in docs/backends.md); the defaults use only the array API standard.

    Example:
        >>> import torchlight as tl
        >>> be = tl.tensor([1.0, 2.0]).backend
        >>> be, be.immutable, be.lazy
        (Backend('numpy'), False, False)
        >>> be.to_numpy(be.xp.sum(be.asarray([1.0, 2.0]))).item()  # the library's namespace, `xp`
        3.0
        >>> tl.backends.backend_class("jax").immutable  # a flag, read without importing JAX
        True
    """

    # Capability flags: what the rest of torchlight may ask of a backend instead
    # of its library's name (each library's class overrides its own; see the
    # table in docs/backends.md).

    #: arrays of this library can live on several devices (checked per op)
    multi_device = False
    #: arrays cannot be written in place (JAX): the engine never needs to
    immutable = False
    #: a value is only computed on demand (Dask): forwards never force it
    lazy = False
    #: a compiled program of elementwise ops runs a cache-sized block of elements at a time
    #: (`torchlight.compile.blocking`): for a CPU library whose every op passes over whole arrays in memory
    blocks_elementwise = False
    #: which kernels a compiled program's elementwise runs are fused into (`torchlight.compile.fusion`):
    #: "cpu" (host NumPy arrays: a CPU kernel library's, numba's where installed), "cupy" (CuPy's
    #: elementwise kernels), or None (each op stays one call of the library)
    fused_kernels: str | None = None
    #: `Tensor.__repr__` shows the array's own `repr` (CuPy: True, printed by the library where
    #: the array lives) rather than NumPy's formatting of a host copy
    library_repr = False
    #: `Tensor.__repr__` names the backend (`backend='torch'`); NumPy's class says False: it is
    #: the backend of tensors made from Python data, left unsaid as PyTorch leaves the CPU unsaid
    named_in_repr = True
    #: its arrays are torch tensors, which safetensors' torch side writes and reads in every dtype
    #: (`tl.save`/`tl.load` keep bfloat16 through it; NumPy has no bfloat16)
    torch_tensors = False

    def __init__(self, name: str, xp: Any, device: Any = None) -> None:
        self.name = name
        self.xp = xp
        self.device = device
        self._rng: Any = None
        self._float_cache: dict[Any, bool] = {}
        #: dtype -> whether it is complex, as `is_complex` has found (the ops' backwards read it
        #: directly on their hot path: `.get(dtype) is False` says real without a call)
        self.complex_of: dict[Any, bool] = _floating_kinds(xp)
        self._dtype_cache: dict[Any, Any] = {}
        self._devices: dict[Any, Device] = {}  # library device -> its Device (`device_object`)

    def __repr__(self) -> str:
        return f"Backend({self.name!r})"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every library's `resolve_device` also takes a `Device` of this backend (`x.device`)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("resolve_device")
        if own is not None and not getattr(own, "_unwraps", False):
            cls.resolve_device = _unwrapping(own)  # type: ignore[method-assign]

    def device_object(self, raw: Any) -> Device:
        """The `Device` (this backend and the library device `raw`) that `Tensor.device` gives."""
        cache = self._devices
        try:
            found = cache.get(raw)
        except TypeError:  # an unhashable library device
            return Device(self, raw)
        if found is None:
            found = cache[raw] = Device(self, raw)
        return found

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """Whether `array` is an array of this class's library (what `backends.of` asks).

        Answered without importing the library: an array of a library that
        was never imported cannot exist. The base class claims nothing.
        """
        return False

    # A backend is the registry's one instance of its name (it holds the
    # library's module, which cannot be pickled): a copy is the backend
    # itself, and a pickle names it, so that tensors and models can be
    # copied (`copy.deepcopy(model)`) and pickled.
    def __reduce__(self) -> tuple:
        # the registry's `get` (the package imports this module first, so it is loaded by now)
        return sys.modules["torchlight.backends"].get, (self.name,)

    def __copy__(self) -> Backend:
        return self

    def __deepcopy__(self, memo: dict) -> Backend:
        return self

    # ----------------------------------------------------------------- arrays
    def asarray(self, data: Any, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Any:
        """Make an array of this library (no copy when `data` already is one)."""
        kwargs: dict[str, Any] = {}
        if dtype is not None:
            kwargs["dtype"] = self.resolve_dtype(dtype)
        if device is not None:
            kwargs["device"] = self.resolve_device(device)
        if copy is not None:
            kwargs["copy"] = copy
        return self.xp.asarray(data, **kwargs)

    def resolve_dtype(self, dtype: Any) -> Any:
        """A dtype of this namespace from a name ("float32", or NumPy's "f4", "double"),
        a NumPy dtype or scalar type (`np.float32`), torchlight's own (`tl.float32`), a Python type (`float` is float64,
        `int` int64, `bool`, as NumPy reads them), or one of this namespace's dtypes.

        Every backend takes the same spellings, so `dtype=np.float32` works on
        torch and array_api_strict too. A name this namespace has no dtype for
        is a TypeError naming the backend.

        Example:
            >>> import numpy as np
            >>> import torchlight as tl
            >>> be = tl.backends.get("array_api_strict")
            >>> [str(be.resolve_dtype(d)) for d in ("f4", np.int32, bool)]
            ['array_api_strict.float32', 'array_api_strict.int32', 'array_api_strict.bool']
        """
        if not isinstance(dtype, (str, type, np.dtype, DType)):
            return dtype
        known = self._dtype_cache.get(dtype)  # (the engine casts gradients with it: keep it cheap)
        if known is not None:
            return known
        try:
            name = np.dtype(dtype).name
        except TypeError:  # a name NumPy lacks (bfloat16), or a type that is no dtype
            name = dtype if isinstance(dtype, str) else None
        found = getattr(self.xp, name, None) if name else None
        try:  # the namespace's own word on it: "exp", "pi" or "linalg" name no dtype
            is_dtype = found is not None and self.xp.isdtype(found, ("bool", "numeric"))
        except (TypeError, AttributeError):  # (torch raises AttributeError for a non-dtype)
            is_dtype = False
        if not is_dtype:
            raise TypeError(f"dtype {dtype!r}: backend {self.name!r} has no such dtype")
        found = np.dtype(found) if isinstance(found, type) and issubclass(found, np.generic) else found
        self._dtype_cache[dtype] = found
        return found

    def resolve_device(self, device: Any) -> Any:
        """The library's own device object for `device` (a name like "cpu",
        "device1", "cuda:0", an index, a `Device` of this backend, or already a
        device); None stays None."""
        return unwrap(self, device)

    def is_host(self, array: Any) -> bool:
        """Whether `array` lives in host memory (where `__array__` is allowed)."""
        return True

    def numpy_dtype(self, dtype: Any) -> np.dtype:
        """The NumPy dtype with the same name as this library's `dtype`."""
        if isinstance(dtype, (np.dtype, type)):
            return np.dtype(dtype)
        return np.dtype(str(dtype).rsplit(".", 1)[-1])

    def device_of(self, array: Any) -> Any:
        """The device an array of this library lives on."""
        import array_api_compat

        return array_api_compat.device(array)

    def is_floating(self, dtype: Any) -> bool:
        """Whether `dtype` is a real or complex floating dtype (cached)."""
        known = self._float_cache.get(dtype)
        if known is None:
            known = bool(self.xp.isdtype(dtype, ("real floating", "complex floating")))
            self._float_cache[dtype] = known
        return known

    def is_complex(self, dtype: Any) -> bool:
        """Whether `dtype` is a complex floating dtype (cached: the ops' backward asks it to conjugate)."""
        known = self.complex_of.get(dtype)
        if known is None:
            known = bool(self.xp.isdtype(dtype, "complex floating"))
            self.complex_of[dtype] = known
        return known

    def default_float(self, device: Any = None) -> Any:
        """The namespace's default real floating dtype on `device` (`tl.set_default_dtype`'s, if set)."""
        if DEFAULT_FLOAT[0] is not None:
            return self.resolve_dtype(DEFAULT_FLOAT[0])
        info = self.xp.__array_namespace_info__()
        return info.default_dtypes(device=device)["real floating"]

    def default_int(self, device: Any = None) -> Any:
        """The namespace's default integer dtype on `device`."""
        return self.xp.__array_namespace_info__().default_dtypes(device=device)["integral"]

    def to_numpy(self, array: Any) -> np.ndarray:
        """A host NumPy copy (the one explicit device-to-host transfer)."""
        return np.asarray(array)

    def owns_fresh_memory(self, array: Any) -> bool:
        """True when `array` may become a gradient without a defensive copy.

        The portable answer is "only if the library never writes in place";
        NumPy's backend looks at `.base` to avoid copies it does not need.
        """
        return self.immutable

    def checked(self, array: Any, bad: Any, error: Exception) -> Any:
        """`array`, after raising `error` if `bad(array)` (elementwise, by operators) holds anywhere.

        A lazy library's check waits for the value to be computed: Dask's
        backend returns the array with the check inside (forwards never force
        a computation).
        """
        if math.prod(array.shape) and bool(self.xp.any(bad(array))):
            raise error
        return array

    def checked_by_parts(self, arrays: tuple[Any, ...], summarise: Any, judge: Any) -> Any:
        """`arrays[0]`, after `judge([summarise(xp, *parts), ...])` has looked at every part of `arrays`.

        For a check whose message needs all the values (the first few labels
        out of range, which of two conditions failed first): `summarise` turns
        one part of each array (parts of one shape, in the namespace `xp` of
        the part's own library) into a small host value, and `judge` raises
        on the list of them. An eager array is one part, checked now; Dask's
        backend summarises each chunk and judges when the result is computed.
        """
        judge([summarise(self.xp, *arrays)])
        return arrays[0]

    def map_chunks(self, fn: Any, *arrays: Any, dtype: Any) -> Any:
        """`fn(*arrays)` of arrays already broadcast together, made chunk by chunk where the library has
        chunks (Dask, when computed: `fn` then gets NumPy blocks); an eager array is one chunk."""
        return fn(*arrays)

    def call_into(self, out: Any, fn: Any, *args: Any) -> Any:
        """`fn(*args)`, written into the array `out` where the library can (NumPy's and CuPy's `out=`).

        Called only with an `out` that nothing else reads: one that
        `owns_fresh_memory` (a compiled program's dead intermediate, an op's
        own new array) or a block of a result's new array (`compile.blocking`).
        The portable answer makes a new array; the caller uses what it returns.
        """
        return fn(*args)

    def masked(self, values: Any, mask: Any) -> Any:
        """`values` times the boolean `mask`: the values where it holds, 0 elsewhere.

        A multiply, not a select: a NaN or infinite value gives NaN even where
        the mask is False. The standard has no arithmetic between booleans
        and floats, so the mask is cast first; NumPy multiplies by a boolean
        array directly, one pass fewer (its backend says so).
        """
        return values * self.xp.astype(mask, values.dtype)

    def is_broadcast_one(self, array: Any) -> bool:
        """Whether `array` is known, without a pass over it, to be 1 everywhere: a broadcast of
        a single 1 (what a sum's backward hands on). The portable answer is False; NumPy's backend
        looks at the strides. A backward then calls `gradient_times` for its products."""
        return False

    def gradient_times(self, g: Any, array: Any) -> Any:
        """`g * array` for a backward's incoming gradient `g` where `is_broadcast_one(g)`.

        NumPy's backend hands back `array` itself, as a read-only view, where `g` has `array`'s
        shape and dtype: the same values (1 * x is x, NaN and -0.0 included), without a pass over
        memory or a new array. The portable answer multiplies.
        """
        return g * array

    def copy(self, array: Any) -> Any:
        """A copy of `array` on its own device."""
        return self.xp.asarray(array, copy=True)

    # ------------------------------------------------------------ indexing
    def index_array(self, array: Any) -> Any:
        """An index array (a key's entry) in the form this library reads as NumPy
        does: as it is here; torch widens its small integer dtypes."""
        return array

    def take_key(self, array: Any, key: Any) -> Any:
        """`array[key]` with NumPy's meaning, rewritten in standard functions
        where the library refuses the key (see `torchlight.backends.indexing`)."""
        return indexing.take(self.xp, array, key)

    def take_along_axis(self, array: Any, index: Any, axis: int) -> Any:
        """`xp.take_along_axis(array, index, axis=axis)`.

        Where the namespace lacks it (Dask's), the same values are picked by
        comparing `index` with an `arange` along a new axis and summing the
        `where` of that mask: exact, and lazy where the library is.
        """
        xp = self.xp
        take = getattr(xp, "take_along_axis", None)
        if take is not None:
            return take(array, index, axis=axis)
        axis %= array.ndim
        mask = self.index_mask(xp.expand_dims(index, axis=axis + 1), array.shape[axis], axis + 1)
        zero = xp.asarray(0, dtype=array.dtype, device=self.device_of(array))
        return xp.sum(xp.where(mask, xp.expand_dims(array, axis=axis), zero), axis=axis + 1)

    def index_mask(self, index: Any, n: int, axis: int) -> Any:
        """`index == arange(n)` along `axis`, where `index` has size 1: a boolean one-hot mask.

        Small integer labels are widened first: uint8 labels of 300 classes
        would otherwise meet an `arange` that wraps onto them.
        """
        xp = self.xp
        if xp.iinfo(index.dtype).max < n - 1:
            index = xp.astype(index, xp.int32)
        columns = xp.arange(n, dtype=index.dtype, device=self.device_of(index))
        return index == xp.reshape(columns, (n,) + (1,) * (index.ndim - axis - 1))

    # --------------------------------------------------------------- writes
    def set_key(self, array: Any, key: Any, values: Any) -> Any:
        """A new array: `array` with `values` (broadcastable to `array[key]`, of its dtype) written at
        `key`, which may be any key `take_key` reads; `array` itself is never written.

        Portable version: a copy written into by the library's `__setitem__`
        where it takes the key, else the functional `where` over flat
        positions of `torchlight.backends.writes` (integer arrays: the last
        of duplicate positions wins).
        """
        if writes.native_key(key):
            out = writes.copy_set(self.copy, array, key, values)
            if out is not None:
                return out
        return writes.set_flat(self.xp, array, key, values, self.take_key)

    def last_writes(self, shape: tuple[int, ...], key: Any, device: Any) -> Any:
        """Booleans of `x[key]`'s shape: whether each entry of the key is the last to write its
        position (what `set_key` keeps of duplicates)."""
        return writes.last_writes(self.xp, shape, key, self.take_key, device)

    def key_shape(self, array: Any, key: Any) -> tuple[int, ...]:
        """The shape of `array[key]`, found on a broadcast boolean of `array`'s shape (no copy of it)."""
        xp = self.xp
        probe = xp.broadcast_to(xp.asarray(False, device=self.device_of(array)), tuple(array.shape))
        return tuple(self.take_key(probe, key).shape)

    # ---------------------------------------------------------- scatter-add
    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        """zeros(shape) with `values` added at `x[key]`, duplicates summed.

        Portable version: the flat positions that `key` selects are found by
        indexing an `arange` with the same key, then summed per position with
        a sorted segment sum (argsort, cumulative_sum, searchsorted), which
        needs no `__setitem__` and so also serves immutable arrays.
        """
        xp = self.xp
        device = self.device_of(values)
        size = math.prod(shape)
        positions = self.take_key(xp.reshape(xp.arange(size, device=device), shape), key)
        positions = xp.reshape(positions, (-1,))
        flat = xp.reshape(values, (-1,))
        if flat.shape[0] == 0:
            return xp.zeros(shape, dtype=values.dtype, device=device)
        order = xp.argsort(positions, stable=True)
        sorted_pos = xp.take(positions, order)
        acc_dtype = self._accumulate_dtype(values.dtype, device)
        sorted_vals = xp.astype(xp.take(flat, order), acc_dtype)
        csum = xp.cumulative_sum(sorted_vals, include_initial=True)
        targets = xp.arange(size, device=device, dtype=sorted_pos.dtype)
        hi = xp.searchsorted(sorted_pos, targets, side="right")
        lo = xp.searchsorted(sorted_pos, targets, side="left")
        summed = xp.take(csum, hi) - xp.take(csum, lo)
        return xp.reshape(xp.astype(summed, values.dtype), shape)

    def _accumulate_dtype(self, dtype: Any, device: Any) -> Any:
        """float64 for the segment sum where the device has it."""
        xp = self.xp
        if dtype == xp.float32:
            info = xp.__array_namespace_info__()
            if "float64" in info.dtypes(device=device, kind="real floating"):
                return xp.float64
        return dtype

    # --------------------------------------------------------------- random
    def seed(self, seed: int) -> None:
        """Reseed this backend's generator (called by `tl.manual_seed`)."""
        self._rng = np.random.default_rng(seed)

    def random_state(self) -> Any:
        """A snapshot of this backend's own random stream, for `set_random_state`.

        A compiled function's first call runs the function once to record it
        and then replays it; the stream is put back in between, so that a
        seeded run draws the same numbers compiled as not.
        """
        return self._host_state()

    def set_random_state(self, state: Any) -> None:
        """Put this backend's random stream back where `random_state` saw it."""
        self._set_host_state(state)

    def _host_state(self) -> Any:
        return None if self._rng is None else self._rng.bit_generator.state

    def _set_host_state(self, state: Any) -> None:
        """The host stream put back (also into a backend that has not drawn yet, as in a fresh process)."""
        if state is None:
            self._rng = None
        else:
            if self._rng is None:
                self._rng = np.random.default_rng()
            self._rng.bit_generator.state = state

    def get_rng_state(self) -> dict[str, Any]:
        """Every random stream of this backend as JSON data (`tl.get_rng_state` writes it
        down), for `set_rng_state`, in this process or another."""
        return {"host": self._host_state()}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        """Put back the streams `get_rng_state` gave (a ValueError for data it could not have given)."""
        self._set_host_state(checked_host_state(state, self.name))

    def _generator(self, generator: Any) -> Any:
        if generator is not None:
            return generator
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    def random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        """Uniform [0, 1) (`kind="rand"`) or standard normal (`"randn"`) samples.

        A `numpy.random.Generator` is drawn from on the host (`host_random`),
        on every backend; otherwise the library's own generator is used
        (`native_random`, which is the host one for libraries without a
        generator of their own in the standard).
        """
        if isinstance(generator, np.random.Generator):
            return self.host_random(kind, shape, dtype, device, generator)
        return self.native_random(kind, shape, dtype, device, generator)

    def host_random(self, kind: str, shape: tuple[int, ...], dtype: Any, device: Any, generator: Any = None) -> Any:
        """Drawn on the host by a seeded NumPy generator, cast to `dtype` there, then
        moved to `device` (so a device without float64 never sees one)."""
        rng = self._generator(generator)
        host = rng.random(shape) if kind == "rand" else rng.standard_normal(shape)
        device = self.resolve_device(device)
        dtype = self.default_float(device) if dtype is None else self.resolve_dtype(dtype)
        host = host.astype(self.numpy_dtype(dtype))
        return self.xp.asarray(host, dtype=dtype, device=device if device is not None else self.device)

    native_random = host_random

    # ------------------------------------------------ scalar functions on arrays
    def map(self, fn: Callable) -> Callable:
        """Elementwise `fn(x)` over a Tensor (differentiable) or an array.

        Example:
            >>> import torchlight as tl
            >>> from torchlight import scalar
            >>> tl.backends.get("numpy").map(scalar.exp)(tl.tensor([0.0])).tolist()
            [1.0]
        """
        return mapper(self, fn)

    def zip(self, fn: Callable) -> Callable:
        """Elementwise `fn(x, y)` over Tensors (differentiable) or arrays."""
        return zipper(self, fn)

    def reduce(self, fn: Callable, start: float) -> Callable:
        """`reduce(fn, start)(x, dim)`: fold `fn` along `dim` starting at `start`."""
        return reducer(self, fn, start)


def checked_host_state(state: Any, backend: str) -> Any:
    """The NumPy bit generator state in `state["host"]` (None: not drawn yet), checked."""
    if not isinstance(state, dict) or "host" not in state:
        raise ValueError(f"set_rng_state: the {backend} backend's state is a dict with a 'host' entry, "
                         f"got {state!r:.80}")
    host = state["host"]
    if host is not None and not (isinstance(host, dict) and host.get("bit_generator") == "PCG64"):
        raise ValueError(f"set_rng_state: the {backend} backend's host state is a PCG64 state or None, "
                         f"got {host!r:.80}")
    return host
