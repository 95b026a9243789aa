"""The backend registry: find a Backend by name or by one of its arrays.

Example:
    >>> import numpy as np
    >>> from torchlight import backends
    >>> backends.of(np.zeros(2)).name
    'numpy'
    >>> "numpy" in backends.available()
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from torchlight.backends.base import Backend, BackendError, BackendUnavailableError
from torchlight.backends.cupy import CupyBackend
from torchlight.backends.dask import DaskBackend
from torchlight.backends.jax import JaxBackend
from torchlight.backends.numpy import NumpyBackend
from torchlight.backends.strict import StrictBackend
from torchlight.backends.torch import TorchBackend

__all__ = [
    "Backend",
    "BackendError",
    "BackendUnavailableError",
    "available",
    "backend_class",
    "get",
    "get_default_backend",
    "instances",
    "of",
    "register",
    "set_default_backend",
    "get_rng_states",
    "set_rng_states",
]

_instances: dict[str, Backend] = {}
_seed: list[int] = []
_default = ["numpy"]
_by_type: dict[type, Backend] = {}


#: built-in backend name -> class: each imports its library only when it is made, so
#: importing torchlight never imports CuPy, torch, JAX or Dask. (`of` asks each class in
#: this order whether it `recognises` an array; each recognises only its own library's,
#: so the order decides nothing.)
_BUILTIN: dict[str, type[Backend]] = {
    "numpy": NumpyBackend,
    "cupy": CupyBackend,
    "array_api_strict": StrictBackend,
    "torch": TorchBackend,
    "jax": JaxBackend,
    "dask": DaskBackend,
}


def backend_class(name: str) -> type[Backend]:
    """The class of built-in backend `name` (its library is not imported).

    Example:
        >>> from torchlight import backends
        >>> backends.backend_class("torch").__name__
        'TorchBackend'
    """
    return _BUILTIN[name]


def _builtin(name: str) -> Callable[[], Backend]:
    def make() -> Backend:
        return backend_class(name)()  # type: ignore[call-arg]  # (each built-in class takes no arguments)

    return make


_factories: dict[str, Callable[[], Backend]] = {name: _builtin(name) for name in _BUILTIN}


def register(name: str, factory: Callable[[], Backend] | Backend) -> None:
    """Register a backend under `name` (a Backend or a zero-argument factory).

    The factory is called when the backend is first asked for; registering
    a name again replaces it.

    Example:
        >>> import torchlight as tl
        >>> from torchlight import backends
        >>> from torchlight.backends.generic import ArrayAPIBackend
        >>> backends.register("plain_numpy", lambda: ArrayAPIBackend("plain_numpy", library="numpy"))
        >>> x = tl.tensor([1.0, 2.0], backend="plain_numpy", requires_grad=True)
        >>> x.backend
        Backend('plain_numpy')
        >>> (x * x).sum().backward()
        >>> x.grad.tolist()
        [2.0, 4.0]
    """
    if isinstance(factory, Backend):
        instance = factory
        _factories[name] = lambda: instance
    else:
        _factories[name] = factory
    _instances.pop(name, None)
    _by_type.clear()


def get(name: str | Backend | None = None) -> Backend:
    """The Backend called `name` (the default backend when None).

    Raises `BackendError` for an unknown name (listing the known ones) and
    `BackendUnavailableError` when the library cannot run here.

    Example:
        >>> from torchlight import backends
        >>> backends.get("numpy"), backends.get() is backends.get("numpy")  # (numpy: the default)
        (Backend('numpy'), True)
        >>> backends.get("nunpy")
        Traceback (most recent call last):
        ...
        torchlight.backends.errors.BackendError: unknown backend 'nunpy'; known backends: ...
    """
    if isinstance(name, Backend):
        return name
    if name is None:
        name = _default[0]
    instance = _instances.get(name)
    if instance is not None:
        return instance
    factory = _factories.get(name)
    if factory is None:
        raise BackendError(f"unknown backend {name!r}; known backends: {', '.join(sorted(_factories))}")
    instance = factory()
    if _seed:
        instance.seed(_seed[0])
    _instances[name] = instance
    return instance


def of(array: Any) -> Backend:
    """The Backend of an existing array of any supported library.

    Example:
        >>> import numpy as np
        >>> from torchlight import backends
        >>> backends.of(np.ones(3))
        Backend('numpy')
        >>> backends.of([1.0, 2.0])
        Traceback (most recent call last):
        ...
        torchlight.backends.errors.BackendError: no backend for an object of type list
    """
    backend = _by_type.get(type(array))
    if backend is not None:
        return backend
    for name in _BUILTIN:
        if backend_class(name).recognises(array):
            backend = get(name)
            _by_type[type(array)] = backend
            return backend
    raise BackendError(f"no backend for an object of type {type(array).__name__}")


def available() -> dict[str, tuple[bool, str]]:
    """Every known backend with (usable, reason) — reason is "" when usable.

    Asking makes each backend that can run (importing its library).

    Example:
        >>> from torchlight import backends
        >>> usable = backends.available()
        >>> usable["numpy"]
        (True, '')
        >>> {"numpy", "cupy", "array_api_strict", "torch", "jax", "dask"} <= set(usable)
        True
    """
    result = {}
    for name in _factories:
        try:
            get(name)
        except BackendUnavailableError as exc:
            result[name] = (False, str(exc))
        else:
            result[name] = (True, "")
    return result


def set_default_backend(name: str) -> None:
    """Make `name` the backend of tensors made from Python data.

    Example:
        >>> import torchlight as tl
        >>> tl.set_default_backend("array_api_strict")
        >>> tl.tensor([1.0]).backend, tl.get_default_backend()
        (Backend('array_api_strict'), 'array_api_strict')
        >>> tl.set_default_backend("numpy")  # (back to the initial default)
    """
    get(name)
    _default[0] = name


def get_default_backend() -> str:
    """The name of the backend used when none is given (initially "numpy").

    Example:
        >>> import torchlight as tl
        >>> tl.get_default_backend()
        'numpy'
    """
    return _default[0]


def manual_seed(seed: int) -> None:
    """Seed the random generator of every backend, now and when first made.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(42)
        >>> a = tl.randn(3)
        >>> tl.manual_seed(42)
        >>> tl.randn(3).tolist() == a.tolist()
        True
    """
    _seed[:] = [seed]
    for instance in _instances.values():
        instance.seed(seed)


def instances() -> list[Backend]:
    """The backends made so far in this process (a recorder puts back each one's random state).

    Example:
        >>> from torchlight import backends
        >>> backends.get("numpy") in backends.instances()
        True
    """
    return list(_instances.values())


def get_rng_states(name: str | None = None) -> dict[str, Any]:
    """The random streams of every backend made so far, and the seed `manual_seed`
    gave (which a backend made later starts from), as JSON data; or, with `name`,
    that backend's streams only. What `tl.get_rng_state` writes down.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> state = tl.backends.get_rng_states()
        >>> a = tl.rand(2).tolist()
        >>> tl.backends.set_rng_states(state)
        >>> tl.rand(2).tolist() == a
        True
    """
    if name is not None:
        return {"backends": {name: get(name).get_rng_state()}}
    return {"seed": _seed[0] if _seed else None,
            "backends": {n: instance.get_rng_state() for n, instance in _instances.items()}}


def set_rng_states(states: dict[str, Any]) -> None:
    """Put back the streams `get_rng_states` gave. A state of every backend also
    puts back the seed, and reseeds from it a backend made since (as it was
    when first made), and passes over a backend it names that cannot run
    here (nothing here draws from it); a backend's own state touches that
    backend only, and must name one that runs. On bad data nothing changes.

    Example:
        >>> import torchlight as tl
        >>> state = tl.backends.get_rng_states("numpy")  # the numpy backend's streams only
        >>> a = tl.rand(2)
        >>> tl.backends.set_rng_states(state)
        >>> tl.rand(2).tolist() == a.tolist()
        True
        >>> tl.backends.set_rng_states({"seed": 0})
        Traceback (most recent call last):
        ...
        ValueError: set_rng_state: the state is a dict with a 'backends' entry (what get_rng_state gives)
    """
    if not isinstance(states, dict) or not isinstance(states.get("backends"), dict):
        raise ValueError("set_rng_state: the state is a dict with a 'backends' entry (what get_rng_state gives)")
    whole = "seed" in states
    seed = states.get("seed")
    if whole and not (seed is None or (isinstance(seed, int) and not isinstance(seed, bool))):
        raise ValueError(f"set_rng_state: the seed is an int or None, got {seed!r}")
    targets = {}
    for name in states["backends"]:  # an unknown or unusable backend: before any change
        try:
            targets[name] = get(name)
        except (BackendError, BackendUnavailableError):
            if not whole:
                raise
            # a whole state names every backend made where it was taken (`available()` makes them
            # all); one this process cannot run draws nothing here, so its stream is not needed
    whole_states = {name: states["backends"][name] for name in targets}
    prior: dict[str, Any] = {}
    try:
        for name, instance in targets.items():
            with contextlib.suppress(RuntimeError):  # a stream that cannot be read (cupy's) is not put back
                prior[name] = instance.get_rng_state()
            instance.set_rng_state(whole_states[name])
    except Exception:
        for name, state in prior.items():
            targets[name].set_rng_state(state)
        raise
    if whole:
        _seed[:] = [] if seed is None else [seed]
        for name, instance in _instances.items():
            if name not in targets and seed is not None:
                instance.seed(seed)
