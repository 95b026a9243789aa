"""Run the database on one target: rows per op, a JSON report, the summary line.

Example:
    >>> import io
    >>> from conformance.runner import run
    >>> report = run("numpy", "cpu", ["float64"], "exp", out=io.StringIO())
    >>> report["summary"]
    {'passed': 5, 'failed': 0, 'skipped': 0}
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import numpy as np

import torchlight as tl
from conformance import database
from conformance.checks import Result, run_case
from conformance.opinfo import DTYPES, OpInfo
from conformance.target import Target, Unusable, resolve


def summary_line(summary: dict[str, int]) -> str:
    """`N passed, N failed, N skipped`: the last line of every run."""
    return f"{summary['passed']} passed, {summary['failed']} failed, {summary['skipped']} skipped"


def run(backend: str, device: str | None = None, dtypes: list[str] | None = None, pattern: str | None = None,
        out: IO[str] | None = None, progress: IO[str] | None = None) -> dict[str, Any]:
    """Run every selected (op, case, dtype) on `backend`/`device` and return the report.

    Prints one row per op to `out` (stdout) as it finishes; `progress` (a terminal)
    also gets a running counter. An unusable backend or device skips every
    case with its reason.
    """
    out = sys.stdout if out is None else out
    dtypes = list(dtypes or DTYPES)
    ops = database.select(pattern)
    start = time.perf_counter()
    try:
        target: Target | None = resolve(backend, device)
        unusable = None
    except Unusable as exc:
        target, unusable = None, str(exc)
    label = target.label if target is not None else f"{backend}/{device or 'default'}"
    total = sum(len(op.cases) for op in ops)
    print(f"conformance on {label} ({', '.join(dtypes)}): {len(ops)} ops, {total} cases", file=out)
    if unusable:
        print(f"skipped: {unusable}", file=out)
    short = {"float64": "f64", "float32": "f32"}
    worst = "".join(f" {'fwd ' + short[d]:>8} {'bwd ' + short[d]:>8}" for d in dtypes)
    print(f"{'op':<24} {'cases':>9}{worst}", file=out)
    results: list[Result] = []
    for k, op in enumerate(ops, 1):
        if progress is not None:
            progress.write(f"\r[{k}/{len(ops)}] {op.name:<40}")
            progress.flush()
        rows = [_run_or_skip(op, case, target, dtype, unusable) for case in op.cases for dtype in dtypes]
        results.extend(rows)
        print(_row(op, rows, dtypes), file=out, flush=True)
    if progress is not None:
        progress.write("\r" + " " * 60 + "\r")
    report = _report(backend, device, label, dtypes, pattern, unusable, ops, results, time.perf_counter() - start)
    _print_details(results, out)
    print(summary_line(report["summary"]), file=out)
    return report


def _run_or_skip(op: OpInfo, case: Any, target: Target | None, dtype: str, unusable: str | None) -> Result:
    if target is None:
        return Result(op.name, case.name, dtype, status="skipped", message=unusable or "")
    return run_case(op, case, target, dtype)


def _row(op: OpInfo, rows: list[Result], dtypes: list[str]) -> str:
    """`name  passed/run  worst forward and backward error per dtype  status`."""
    ran = [r for r in rows if r.status != "skipped"]
    passed = sum(r.status == "passed" for r in ran)
    worst = ""
    for dtype in dtypes:
        mine = [r for r in ran if r.dtype == dtype]
        fwd = max((r.errors.get(k, 0.0) for r in mine for k in ("forward", "agreement")), default=0.0)
        bwd = max((r.errors.get("backward", 0.0) for r in mine), default=0.0)
        worst += f" {fwd:>8.1e} {bwd:>8.1e}"
    status = "FAILED" if passed < len(ran) else ("skipped" if not ran else "ok")
    skipped = len(rows) - len(ran)
    note = f" ({skipped} skipped)" if skipped and ran else ""
    return f"{op.name:<24} {passed:>4}/{len(ran):<4}{worst}  {status}{note}"


def _print_details(results: list[Result], out: IO[str]) -> None:
    failed = [r for r in results if r.status == "failed"]
    if failed:
        print("\nfailures:", file=out)
        for r in failed:
            print(f"  {r.message}", file=out)
    reasons: dict[str, int] = {}
    for r in results:
        if r.status == "skipped":
            reasons[r.message] = reasons.get(r.message, 0) + 1
    if reasons:
        print("\nskipped:", file=out)
        for reason, count in reasons.items():
            print(f"  {count} x {reason}", file=out)


def _commit() -> str:
    """The checkout's commit, `+changes` when its tracked files differ from it; "unknown" outside git."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here,
                             check=False, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=here, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (rev + ("+changes" if dirty else "")) if rev else "unknown"


def _report(backend: str, device: str | None, label: str, dtypes: list[str], pattern: str | None,
            unusable: str | None, ops: list[OpInfo], results: list[Result], seconds: float) -> dict[str, Any]:
    summary = {status: sum(r.status == status for r in results) for status in ("passed", "failed", "skipped")}
    return {
        "suite": "torchlight conformance",
        "backend": backend,
        "device": device,
        "target": label,
        "dtypes": dtypes,
        "pattern": pattern,
        "unusable": unusable,
        "versions": {"torchlight": tl.__version__, "numpy": np.__version__, "python": platform.python_version()},
        "commit": _commit(),
        "ops": [{"name": op.name, "area": op.area, "method": op.method, "functions": list(op.functions()),
                 "cases": len(op.cases)} for op in ops],
        "results": [r.as_dict() for r in results],
        "summary": summary,
        "seconds": round(seconds, 2),
    }
