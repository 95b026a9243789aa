"""pytest over the op database: one test per (op, case, backend, dtype).

`pytest conformance` runs every case on numpy and array_api_strict;
`pytest conformance --backend=cupy [--device 0]` on another backend. Test
ids read `op-case-backend-dtype`, so a failure names the op and the case.
A backend or device that is not usable here is skipped with its reason.
"""

from __future__ import annotations

import pytest

from conformance import database
from conformance.opinfo import DTYPES
from conformance.target import Target, Unusable, resolve

DEFAULT_BACKENDS = ("numpy", "array_api_strict")
_targets: dict[tuple, Target | str] = {}


def pytest_generate_tests(metafunc):
    if "conformance_case" not in metafunc.fixturenames:
        return
    backends = metafunc.config.getoption("--backend") or list(DEFAULT_BACKENDS)
    params = [
        pytest.param((backend, op, case, dtype), id=f"{op.name}-{case.name}-{backend}-{dtype}")
        for backend in backends
        for op in database.all_ops()
        for case in op.cases
        for dtype in DTYPES
    ]
    metafunc.parametrize("conformance_case", params)


@pytest.fixture
def conformance_target(request, conformance_case) -> Target:
    """The Target of this case's backend and --device (skips when unusable)."""
    key = (conformance_case[0], request.config.getoption("--device"))
    if key not in _targets:
        try:
            _targets[key] = resolve(*key)
        except Unusable as exc:
            _targets[key] = str(exc)
    target = _targets[key]
    if isinstance(target, str):
        pytest.skip(target)
    return target
