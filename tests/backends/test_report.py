"""`python -m torchlight`: the report names every backend, says why a missing one is missing."""

from __future__ import annotations

import runpy
import sys

import torchlight as tl
from torchlight import backends
from torchlight.backends.report import backend_rows, report


def test_the_module_prints_versions_every_backend_and_blas(capsys):
    runpy.run_module("torchlight", run_name="__main__")
    out = capsys.readouterr().out
    assert out.startswith(f"torchlight {tl.__version__}\nPython ")
    for name in backends.available():
        assert f"  {name}: " in out
    assert "  numpy: usable (numpy " in out and "array API 20" in out and "devices: cpu" in out
    assert "BLAS:" in out


def test_a_backend_whose_library_fails_to_import_is_reported_with_the_import_error(monkeypatch):
    monkeypatch.delitem(backends._instances, "dask", raising=False)  # (made anew, as in a fresh process)
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.array", None)
    rows = {row["name"]: row for row in backend_rows()}
    assert rows["dask"]["usable"] is False
    assert "dask.array is not installed" in rows["dask"]["reason"] and "halted" in rows["dask"]["reason"]
    assert rows["dask"]["devices"] == [] and rows["numpy"]["usable"] is True
    assert "  dask: not usable: dask.array is not installed" in report(version="x")


def test_each_usable_backend_reports_its_namespace_version_and_devices():
    for row in backend_rows():
        if row["usable"]:
            assert row["array_api_version"] is not None and row["array_api_version"].startswith("20")
            assert row["devices"], row["name"]
        else:
            assert row["reason"], row["name"]
