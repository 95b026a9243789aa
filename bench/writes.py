"""What a write costs: the median of many `x[0] = 1.0` and `x += 1.0` on the NumPy backend, on 16 and
10^6 float64 elements, with nothing requiring grad, recorded in a graph, and on a parameter under no_grad,
beside NumPy's own and the binary op's (docs/decisions.md, "Writes"). Run `python -m bench.writes`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

import torchlight as tl


def median_us(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def rows(size: int, n: int) -> dict[str, float]:
    a = np.zeros(size)
    out = {"numpy a[0] = 1.0": median_us(lambda: a.__setitem__(0, 1.0), n),
           "numpy a += 1.0": median_us(lambda: np.add(a, 1.0, out=a), n),
           "numpy a.copy()": median_us(a.copy, n)}
    c = tl.zeros(size)
    out["constant x[0] = 1.0"] = median_us(lambda: c.__setitem__(0, 1.0), n)
    out["constant x += 1.0"] = median_us(lambda: c.__iadd__(1.0), n)
    w = tl.zeros(size, requires_grad=True)
    h = w * 1.0
    out["in a graph x[0] = 1.0 (recorded)"] = median_us(lambda: h.__setitem__(0, 1.0), n)
    h = w * 1.0
    out["in a graph x += 1.0 (recorded)"] = median_us(lambda: h.__iadd__(1.0), n)
    h = w * 1.0
    held = h * 2.0  # an op holds h: each write keeps the old version  # noqa: F841
    out["in a graph x[0] = 1.0, an op holding x"] = median_us(lambda: h.__setitem__(0, 1.0), min(n, 2000))
    with tl.no_grad():
        out["parameter under no_grad w[0] = 1.0"] = median_us(lambda: w.__setitem__(0, 1.0), n)
        out["parameter under no_grad w += 1.0"] = median_us(lambda: w.__iadd__(1.0), n)
    out["x + 1.0 (the binary op, for scale)"] = median_us(lambda: c + 1.0, n)
    return out


def main() -> None:
    for size, n in ((16, 20000), (10**6, 200)):
        print(f"{size} elements, median of {n} [us]:")
        for name, us in rows(size, n).items():
            print(f"  {name:42s} {us:10.2f}")


if __name__ == "__main__":
    main()
