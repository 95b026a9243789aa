"""Random state, as `torch.random`: `get_rng_state`/`set_rng_state` (also `tl.`), `fork_rng`,
`manual_seed`, `seed`, `initial_seed`, and `Generator` (`tl.Generator`).

`get_rng_state()` is a uint8 Tensor, as PyTorch's ByteTensor: the bytes of
a JSON record of every backend's random streams (each backend's host NumPy
generator, torch's per-device generators, JAX's key) and of the seed
`manual_seed` gave, so `tl.save` keeps it in a checkpoint and
`set_rng_state` puts every stream back, in this process or a fresh one: a
run resumed with dropout (and a shuffling DataLoader) draws what the
uninterrupted run drew. `get_rng_state(backend="torch")` is one backend's
streams only. Never pickle: nothing in the state is run.

Example:
    >>> import torchlight as tl
    >>> tl.manual_seed(0)
    >>> state = tl.get_rng_state()
    >>> state.dtype == tl.uint8, state.ndim
    (True, 1)
    >>> a = tl.randn(3).tolist()
    >>> tl.set_rng_state(state)
    >>> tl.randn(3).tolist() == a
    True
    >>> with tl.random.fork_rng():
    ...     _ = tl.randn(3)       # drawn inside: the stream is put back on the way out
    >>> tl.randn(3).tolist() != a
    True
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from torchlight import backends
from torchlight.backends import manual_seed
from torchlight.creation import tensor
from torchlight.tensor import Tensor

__all__ = ["Generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

FORMAT = "torchlight-rng-state"
GENERATOR_FORMAT = "torchlight-generator-state"


def _as_bytes(record: dict[str, Any]) -> Tensor:
    data = json.dumps(record, separators=(",", ":")).encode()
    return tensor(np.frombuffer(data, dtype=np.uint8).copy(), backend="numpy")


def _record(new_state: Any, what: str, mark: str) -> dict[str, Any]:
    """The JSON record in a uint8 Tensor (or array) that `_as_bytes` made, checked."""
    if isinstance(new_state, Tensor):
        array = new_state.detach().numpy()
    elif hasattr(new_state, "shape") and hasattr(new_state, "dtype"):
        array = np.asarray(backends.of(new_state).to_numpy(new_state))
    else:
        raise TypeError(f"{what}: new_state is a uint8 Tensor from get_rng_state, got a {type(new_state).__name__}")
    if array.dtype != np.uint8 or array.ndim != 1:
        got = f"dtype {array.dtype}" if array.dtype != np.uint8 else f"{array.ndim}-d"
        raise TypeError(f"{what}: new_state is a uint8 Tensor from get_rng_state, got {got}")
    try:
        record = json.loads(array.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{what}: new_state is not a state get_rng_state gave (its bytes are not the record it "
                         "writes)") from exc
    if not isinstance(record, dict) or record.get("format") != mark:
        raise ValueError(f"{what}: new_state is not a state get_rng_state gave (no {mark} format mark)")
    if record.get("version") != 1:
        raise ValueError(f"{what}: a state of version {record.get('version')!r}; this torchlight reads version 1")
    return record


class Generator(np.random.Generator):
    """PyTorch's `torch.Generator` face on a NumPy generator (PCG64): `manual_seed`
    (returns the generator), `seed`, `initial_seed`, `get_state`/`set_state`.
    It is a `numpy.random.Generator`, so it goes wherever torchlight takes one:
    `tl.randn(..., generator=)`, `F.dropout(generator=)`, a DataLoader's
    shuffle, `random_split`. It draws on the host for every backend (and
    moves the numbers to the tensor's device); `device` is kept as given.

    Example:
        >>> import torchlight as tl
        >>> g = tl.Generator().manual_seed(0)
        >>> a = tl.randn(3, generator=g).tolist()
        >>> tl.randn(3, generator=tl.Generator().manual_seed(0)).tolist() == a
        True
        >>> state = g.get_state(); b = tl.rand(2, generator=g).tolist()
        >>> tl.rand(2, generator=g.set_state(state)).tolist() == b
        True
    """

    def __init__(self, device: Any = "cpu") -> None:
        seed_value = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        super().__init__(np.random.PCG64(seed_value))
        self.device = device
        self._initial_seed = seed_value

    def manual_seed(self, seed: int) -> Generator:
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"Generator.manual_seed: seed is an int, got {type(seed).__name__}")
        seed = int(seed) % 2**64  # PyTorch takes negative seeds the same way
        self.bit_generator.state = np.random.PCG64(seed).state
        self._initial_seed = seed
        return self

    def seed(self) -> int:  # type: ignore[override]
        value = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self) -> Tensor:
        return _as_bytes({"format": GENERATOR_FORMAT, "version": 1, "seed": self._initial_seed,
                          "state": self.bit_generator.state})

    def set_state(self, new_state: Any) -> Generator:
        record = _record(new_state, "Generator.set_state", GENERATOR_FORMAT)
        state = record.get("state")
        if not (isinstance(state, dict) and state.get("bit_generator") == "PCG64"):
            raise ValueError("Generator.set_state: the state holds no PCG64 state")
        self.bit_generator.state = state
        self._initial_seed = int(record.get("seed") or 0)
        return self

    def __repr__(self) -> str:
        return f"<torchlight.Generator device={self.device!r} initial_seed={self._initial_seed}>"


def get_rng_state(backend: str | None = None) -> Tensor:
    """The random state (see the module docstring) as a 1-d uint8 Tensor on the numpy backend.

    Example:
        >>> import torchlight as tl
        >>> tl.get_rng_state(backend="numpy").dtype == tl.uint8
        True
    """
    return _as_bytes({"format": FORMAT, "version": 1, **backends.get_rng_states(backend)})


def set_rng_state(new_state: Any) -> None:
    """Put back the random state `get_rng_state` gave (a Tensor of any backend, as
    `tl.load` returns it, or an array). Bad data changes nothing.

    Example:
        >>> import torchlight as tl
        >>> tl.set_rng_state(tl.zeros(3))
        Traceback (most recent call last):
        ...
        TypeError: set_rng_state: new_state is a uint8 Tensor from get_rng_state, got dtype float64
    """
    record = _record(new_state, "set_rng_state", FORMAT)
    backends.set_rng_states({k: v for k, v in record.items() if k not in ("format", "version")})


def seed() -> int:
    """Seed every backend from the operating system's entropy; the seed, as PyTorch's `torch.seed`.

    Example:
        >>> import torchlight as tl
        >>> s = tl.random.seed()
        >>> tl.random.initial_seed() == s
        True
    """
    value = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
    manual_seed(value)
    return value


def initial_seed() -> int | None:
    """The seed `manual_seed` (or `seed`) gave last; None if neither was called
    (then each backend drew its own from the operating system).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(7)
        >>> tl.random.initial_seed()
        7
    """
    state = backends.get_rng_states()
    value = state["seed"]
    return None if value is None else int(value)


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True) -> Iterator[None]:
    """Inside the block, draw freely; on the way out every backend's random streams
    are put back where they were (`enabled=False`: nothing is done). `devices`
    is taken for PyTorch's signature: every backend's streams, all devices
    included, are forked whatever it says.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> with tl.random.fork_rng():
        ...     inside = tl.rand(2).tolist()
        >>> tl.rand(2).tolist() == inside
        True
    """
    if not enabled:
        yield
        return
    saved = backends.get_rng_states()
    try:
        yield
    finally:
        backends.set_rng_states(saved)
