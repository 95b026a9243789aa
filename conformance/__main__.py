"""`python -m conformance`: run the op database on a backend, list it, or build the matrix.

    python -m conformance --backend numpy --device cpu [--dtype float64] [--ops PATTERN] [--report r.json]
    python -m conformance --list
    python -m conformance --matrix numpy.json array_api_strict.json [--output docs/conformance.md]

The last line of a run is `N passed, N failed, N skipped`; the exit status
is 1 when anything failed (2 when --ops matches nothing). An unusable backend or device is skipped with
its reason (exit status 0, nothing passed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from conformance import database, matrix, runner
from conformance.opinfo import DTYPES


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy", help="backend name (numpy, array_api_strict, cupy, torch, jax)")
    parser.add_argument("--device", default=None, help="device name (cpu, 0, device1, ...); default: the backend's")
    parser.add_argument("--dtype", action="append", choices=DTYPES,
                        help="dtype tier (repeatable); default: float64 and float32")
    parser.add_argument("--ops", default=None, help="comma-separated op names or glob patterns")
    parser.add_argument("--report", default=None, help="write the JSON report here")
    parser.add_argument("--list", action="store_true", help="print the op names, one per line")
    parser.add_argument("--matrix", nargs="+", metavar="REPORT", help="write the matrix page from these reports")
    parser.add_argument("--output", default="docs/conformance.md", help="where --matrix writes")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.list:
        for op in database.select(args.ops):
            print(op.name)
        return 0
    if args.matrix:
        matrix.write(args.matrix, args.output)
        print(f"wrote {args.output} from {len(args.matrix)} report(s)")
        return 0
    if not database.select(args.ops):
        print(f"no op matches {args.ops!r}; see python -m conformance --list", file=sys.stderr)
        return 2
    progress = sys.stderr if sys.stderr.isatty() else None
    report = runner.run(args.backend, args.device, args.dtype, args.ops, progress=progress)
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
    return 1 if report["summary"]["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
