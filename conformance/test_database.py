"""Every (op, case) of the database as a test, on each backend and dtype tier."""

from __future__ import annotations

import pytest

from conformance.checks import run_case


def test_case(conformance_case, conformance_target):
    _, op, case, dtype = conformance_case
    result = run_case(op, case, conformance_target, dtype)
    if result.status == "skipped":
        pytest.skip(result.message)
    if result.status == "failed":
        pytest.fail(result.message, pytrace=False)
