"""Write conformance/array-api-xfails.txt from the logs of runs of the standard's test suite.

    ../shared/array-api-tests/run.sh torchlight.array_api                  # prints "log: PATH"
    python scripts/array_api_xfails.py LOG [LOG ...] > conformance/array-api-xfails.txt

Every failing id of the logs (the union: the numpy-default and the
strict-default runs) goes into the file under the reason its rule below
gives, grouped by reason; an id no rule explains is written under
"UNEXPLAINED" and the script exits 1, so that a new failure is looked at
rather than filed away. The suite reads one id per line and skips lines that
start with "#", so each reason is a comment line above its ids.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

# (pattern on the test id, reason); the first that matches gives the reason
RULES: list[tuple[str, str]] = [
    (r"test_special_cases\.py::test_(binary|iop)\[_*i?(floor_divide|floordiv)(__)?\(.*infinity",
     "NumPy's floor_divide at +-infinity (array_api_strict fails the same 18 cases: it computes with NumPy)"),
    (r"test_special_cases\.py::test_unary\[expm1\(real",
     "NumPy's complex expm1 at infinities and NaN (array_api_strict fails the same 6 cases)"),
]


def failing_ids(path: str) -> set[str]:
    """The ids of the `FAILED`/`ERROR` lines of a log (an id's brackets may hold spaces)."""
    ids = set()
    with open(path) as f:
        for line in f:
            kind, _, text = line.rstrip("\n").partition(" ")
            if kind not in ("FAILED", "ERROR") or not text.startswith("array_api_tests/"):
                continue
            head = text.split(" ", 1)[0]
            if "[" in head:  # up to the bracket that closes the first one
                depth = 0
                for i, ch in enumerate(text):
                    depth += {"[": 1, "]": -1}.get(ch, 0)
                    if ch == "]" and depth == 0:
                        head = text[:i + 1]
                        break
            ids.add(head)
    return ids


def main(paths: list[str]) -> int:
    ids: set[str] = set()
    for path in paths:
        ids |= failing_ids(path)
    groups: dict[str, list[str]] = defaultdict(list)
    for id_ in sorted(ids):
        reason = next((why for pattern, why in RULES if re.search(pattern, id_)), "UNEXPLAINED")
        groups[reason].append(id_)
    print("# Expected failures of the array API standard's test suite (../shared/array-api-tests) against")
    print("# torchlight.array_api, numpy and array_api_strict as the default backend; written by")
    print("# scripts/array_api_xfails.py from the runs' logs, one id per line under its reason.")
    order = [why for _, why in RULES] + ["UNEXPLAINED"]
    for reason in order:
        if reason in groups:
            print(f"\n# {reason}")
            print("\n".join(groups[reason]))
    return 1 if "UNEXPLAINED" in groups else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
