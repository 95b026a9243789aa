"""The backend fixture: every test that takes `backend` runs once per backend.

Default backends: numpy and array_api_strict (always installed with the
`test` extra). `--backend NAME` (repeatable) picks others: torch, jax, cupy.
A backend that cannot run here is skipped with its reason, never passed.
"""

from __future__ import annotations

import pytest

import torchlight as tl

DEFAULT_BACKENDS = ("numpy", "array_api_strict")


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        names = metafunc.config.getoption("--backend") or list(DEFAULT_BACKENDS)
        metafunc.parametrize("backend", names, indirect=True)


@pytest.fixture
def backend(request):
    """The Backend object under test (skips with the reason when unusable)."""
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
    if backend.name == "array_api_strict":
        return backend.xp.Device(chosen)
    return chosen
