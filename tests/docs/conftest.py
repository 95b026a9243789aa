"""Fixtures of the documentation tests."""

from __future__ import annotations

import pytest

from torchlight import backends
from torchlight.backends import dtypes


@pytest.fixture
def registry_restored():
    """The backend registry, default backend, seed and default dtype as they were (`register`'s
    and `set_default_backend`'s examples change them)."""
    saved = (dict(backends._factories), dict(backends._instances), list(backends._default), list(backends._seed),
             list(dtypes.DEFAULT_FLOAT))
    yield
    factories, instances, default, seed, default_float = saved
    for name in set(backends._factories) - set(factories):
        backends._factories.pop(name)
        backends._instances.pop(name, None)
    backends._factories.update(factories)
    backends._by_type.clear()
    backends._default[:], backends._seed[:], dtypes.DEFAULT_FLOAT[:] = default, seed, default_float
    assert all(backends._instances.get(name, instance) is instance for name, instance in instances.items())
