"""`python -m bench.anomaly`: W1 (100 elementwise ops on (16,), sum, backward) with anomaly mode off and on.

Off, anomaly mode must cost nothing (the engine's recording is swapped only
while it is on); on, each recorded op walks the stack once for the user's
line and each gradient is checked for NaN and infinity. Rounds alternate
off, on, off; reported: the median microseconds per op of each.

Usage:

    OPENBLAS_NUM_THREADS=1 python -m bench.anomaly
    OPENBLAS_NUM_THREADS=1 python -m bench.anomaly --rounds 3     # that it runs

Example:
    >>> from bench.anomaly import w1_per_op
    >>> sorted(w1_per_op(rounds=1, inner=1))
    ['off', 'on']
"""

from __future__ import annotations

import argparse
import statistics
import time

import torchlight as tl
from bench.workloads import W1_OPS, w1_data, w1_forward


def w1_per_op(rounds: int = 15, inner: int = 20) -> dict[str, float]:
    """Median us per op of W1 with anomaly mode off and on, in alternating rounds."""
    data = w1_data()
    x = tl.tensor(data["x"], requires_grad=True)
    w, b = tl.tensor(data["w"]), tl.tensor(data["b"])

    def timed() -> float:
        start = time.perf_counter()
        for _ in range(inner):
            x.grad = None
            w1_forward(x, w, b).backward()
        return (time.perf_counter() - start) / inner / W1_OPS * 1e6

    timed()  # warm-up
    seconds: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(rounds):
        seconds["off"].append(timed())
        with tl.autograd.detect_anomaly():
            seconds["on"].append(timed())
        seconds["off"].append(timed())
    return {k: statistics.median(v) for k, v in seconds.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.anomaly", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    result = w1_per_op(rounds=args.rounds)
    print(f"W1 with anomaly mode off: {result['off']:.2f} us/op; on: {result['on']:.2f} us/op "
          f"({result['on'] / result['off']:.1f}x)")


if __name__ == "__main__":
    main()
