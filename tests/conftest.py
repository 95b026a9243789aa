"""The backend fixture: every test that takes `backend` runs once per backend.

Default backends: numpy and array_api_strict (always installed with the
`test` extra, so they always run in CI). `--backend NAME` (repeatable) picks
others: torch, jax, cupy, dask; `--backend all` runs every registered
backend. A backend that cannot run here is skipped with its reason, never
passed. `device` is `--device` resolved by the backend (e.g. "device1" for
array_api_strict, "0" for cupy), else the backend's default device.
"""

from __future__ import annotations

import os

# scipy reads SCIPY_ARRAY_API once, at its first import, which any test may trigger (scikit-learn
# imports scipy): tests/array_api/test_third_party_code.py runs scipy's array-API code on Tensors
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest  # noqa: E402

import torchlight as tl
from torchlight import backends
from torchlight.backends import dtypes

DEFAULT_BACKENDS = ("numpy", "array_api_strict")


def backend_names(config: pytest.Config) -> list[str]:
    """The backends chosen on the command line (see the module docstring)."""
    names = config.getoption("--backend") or list(DEFAULT_BACKENDS)
    if "all" in names:
        names = list(tl.backends.available())
    return list(dict.fromkeys(names))


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", backend_names(metafunc.config), indirect=True)


@pytest.fixture
def backend(request):
    """The Backend object under test (skips with the reason when unusable)."""
    if request.param == "jax":
        _enable_jax_float64()
    try:
        return tl.backends.get(request.param)
    except tl.BackendUnavailableError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def device(request, backend):
    """The device under test: --device, else the backend's default."""
    chosen = request.config.getoption("--device")
    if chosen is None:
        return backend.device
    try:
        return backend.resolve_device(chosen)
    except tl.BackendError as exc:
        pytest.skip(str(exc))


def _enable_jax_float64() -> None:
    """The tests check gradients in float64, which JAX only has with x64 on."""
    try:
        import jax
    except ImportError:
        return
    jax.config.update("jax_enable_x64", True)


@pytest.fixture
def registry_restored():
    """The backend registry, default backend, seed and default dtype as they were (`register`'s
    and `set_default_backend`'s examples change them): for every test that runs those docstrings."""
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
