"""The example scripts loaded as modules for their tests (they are files in examples/, not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_example(path: Path) -> ModuleType:
    """The script at `path` run as a fresh module named for it (`digits.py`: `digits_example`)."""
    spec = importlib.util.spec_from_file_location(f"{path.stem}_example", path)
    assert spec is not None and spec.loader is not None, f"no example at {path}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
