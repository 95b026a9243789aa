"""Random state, as `torch.random`: `get_rng_state`/`set_rng_state` (also `tl.`), `fork_rng`,
`manual_seed`, `seed`, `initial_seed`.

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

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

FORMAT = "torchlight-rng-state"


def get_rng_state(backend: str | None = None) -> Tensor:
    """The random state (see the module docstring) as a 1-d uint8 Tensor on the numpy backend.

    Example:
        >>> import torchlight as tl
        >>> tl.get_rng_state(backend="numpy").dtype == tl.uint8
        True
    """
    record = {"format": FORMAT, "version": 1, **backends.get_rng_states(backend)}
    data = json.dumps(record, separators=(",", ":")).encode()
    return tensor(np.frombuffer(data, dtype=np.uint8).copy(), backend="numpy")


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
    if isinstance(new_state, Tensor):
        array = new_state.detach().numpy()
    elif hasattr(new_state, "shape") and hasattr(new_state, "dtype"):
        array = np.asarray(backends.of(new_state).to_numpy(new_state))
    else:
        raise TypeError(f"set_rng_state: new_state is a uint8 Tensor from get_rng_state, got a "
                        f"{type(new_state).__name__}")
    if array.dtype != np.uint8 or array.ndim != 1:
        what = f"dtype {array.dtype}" if array.dtype != np.uint8 else f"{array.ndim}-d"
        raise TypeError(f"set_rng_state: new_state is a uint8 Tensor from get_rng_state, got {what}")
    try:
        record = json.loads(array.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError("set_rng_state: new_state is not a state get_rng_state gave (its bytes are not the "
                         "record it writes)") from exc
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError("set_rng_state: new_state is not a state get_rng_state gave (no torchlight-rng-state "
                         "format mark)")
    if record.get("version") != 1:
        raise ValueError(f"set_rng_state: a state of version {record.get('version')!r}; this torchlight reads "
                         "version 1")
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
