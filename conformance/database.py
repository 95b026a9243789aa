"""The op database: the entries of `conformance/ops/<category>.py`, one module per op category.

Each area (a category module: `arithmetic`, `reductions`, ..., `nn`) adds
`OpInfo`s to the `OPS` list of its own module; this module collects them in
the order of `AREAS`, checks that names are unique, and selects by pattern.

Example:
    >>> from conformance import database
    >>> "exp" in [op.name for op in database.all_ops()]
    True
    >>> [op.name for op in database.select("log_s*")]
    ['log_softmax']
"""

from __future__ import annotations

import fnmatch

from conformance.opinfo import OpInfo
from conformance.ops import MODULES

#: the modules whose `OPS` lists make up the database (test_database.py: every module of conformance/ops/ but
#: `common` is here)
AREAS = tuple(f"conformance.ops.{name}" for name in MODULES)


def all_ops() -> list[OpInfo]:
    """Every entry of every area, in table order; raises on a duplicate name."""
    import importlib

    ops: list[OpInfo] = []
    seen: dict[str, str] = {}
    for area in AREAS:
        for op in importlib.import_module(area).OPS:
            if op.name in seen:
                raise ValueError(f"op {op.name!r} is in the database twice ({seen[op.name]} and {area})")
            seen[op.name] = area
            ops.append(op)
    return ops


def get(name: str) -> OpInfo:
    """The entry called `name`."""
    for op in all_ops():
        if op.name == name:
            return op
    raise KeyError(f"no op {name!r} in the conformance database")


def select(pattern: str | None) -> list[OpInfo]:
    """Entries matching a comma-separated list of glob patterns.

    A pattern without glob characters matches that exact name, else any
    name that contains it ("Back" selects every *Back Function).
    """
    ops = all_ops()
    if not pattern:
        return ops
    parts = [p.strip() for p in pattern.split(",") if p.strip()]
    names = {op.name for op in ops}

    def matches(name: str, part: str) -> bool:
        if any(c in part for c in "*?["):
            return fnmatch.fnmatchcase(name, part)
        return name == part if part in names else part in name

    return [op for op in ops if any(matches(op.name, p) for p in parts)]
