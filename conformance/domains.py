"""Input domains: float64 host arrays an op is smooth on.

Each domain is `domain(rng, shape) -> np.ndarray` (float64). Ops with a
restricted or non-smooth domain use one that keeps central differences
meaningful: `positive` for log and sqrt, `away_from_zero` for relu and abs
(so no element sits within the gradcheck step of the kink), `distinct` for
max (no ties). Cases that target a kink or a tie use `fixed(...)`.

Example:
    >>> import numpy as np
    >>> from conformance import domains
    >>> x = domains.positive(np.random.default_rng(0), (4,))
    >>> bool((x >= 0.5).all())
    True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def normal(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Standard normal samples."""
    return rng.standard_normal(shape)


def positive(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Uniform on [0.5, 2]: log, sqrt, inv and fractional powers are smooth there."""
    return rng.uniform(0.5, 2.0, shape)


def away_from_zero(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Either sign, magnitude in [0.3, 1.5]: clear of the kink of relu and abs."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 1.5, shape)


def distinct(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """All elements at least 0.1 apart (no ties for max), in random order."""
    size = int(np.prod(shape))
    values = (np.arange(size) - size / 2) * 0.25 + rng.uniform(0.0, 0.1, size)
    return rng.permutation(values).reshape(shape)


def bounded(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Uniform on [-1.5, 1.5]: keeps exp/pow/sigmoid tests well scaled."""
    return rng.uniform(-1.5, 1.5, shape)


def fixed(values: object) -> Callable[[np.random.Generator, tuple], np.ndarray]:
    """A domain that always returns `values` (kinks, ties, special points)."""
    array = np.asarray(values, dtype=np.float64)

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return np.broadcast_to(array, shape).copy()

    make.__name__ = f"fixed({array.tolist()})"
    return make
