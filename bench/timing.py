"""Round-robin timing, the gradient agreement check, and peak extra memory.

Example:
    >>> from bench.peers import Case
    >>> out = round_robin({"a": Case(lambda: None, dict)}, reps=3, inner=2)
    >>> len(out["a"].seconds)
    3
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.peers import Case


@dataclass
class Timing:
    """Seconds per repetition, one entry per round; `error` when a run raised."""

    seconds: list[float] = field(default_factory=list)
    error: str | None = None


def describe(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:120]


def round_robin(cases: dict[str, Case], reps: int, inner: int,
                sync: Callable[[], None] = lambda: None) -> dict[str, Timing]:
    """Time each case `reps` times, A B C A B C ..., so drift hits all alike.

    Every case runs once untimed first (warm-up); each sample is `inner`
    back-to-back runs divided by `inner`, after a `gc.collect()`. What is
    alive before timing (every framework's modules, the data) is frozen out
    of the garbage collector's sight meanwhile: importing torch adds about
    170,000 tracked objects, which would make each full collection, and so
    every framework that builds its graph of Python objects (torchlight,
    micrograd), pay for a peer it never uses.
    """
    gc.collect()
    gc.freeze()
    try:
        return _rounds(cases, reps, inner, sync)
    finally:
        gc.unfreeze()


def _rounds(cases: dict[str, Case], reps: int, inner: int, sync: Callable[[], None]) -> dict[str, Timing]:
    out = {name: Timing() for name in cases}
    for name, case in cases.items():
        try:
            case.run()
            sync()
        except (Exception, RecursionError) as exc:
            out[name].error = describe(exc)
    for _ in range(reps):
        for name, case in cases.items():
            if out[name].error:
                continue
            gc.collect()
            start = time.perf_counter()
            for _ in range(inner):
                case.run()
            sync()
            out[name].seconds.append((time.perf_counter() - start) / inner)
    return out


def peak_extra_bytes(make_case: Callable[[], Case]) -> int:
    """Peak bytes allocated (tracemalloc, NumPy data included) during one run.

    The inputs are made before tracing starts, so only what the forward and
    backward allocate counts (gradients included).
    """
    case = make_case()
    case.run()
    case = make_case()
    gc.collect()
    tracemalloc.start()
    try:
        case.run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def agreement(reference: dict[str, Any], grads: dict[str, Any]) -> float:
    """The largest error over all inputs, relative to each reference's largest entry."""
    worst = 0.0
    for key, ref in reference.items():
        ref = np.asarray(ref, dtype=np.float64)
        got = np.asarray(grads[key], dtype=np.float64)
        if got.shape != ref.shape:
            return float("inf")
        scale = max(float(np.max(np.abs(ref))), 1e-30) if ref.size else 1.0
        worst = max(worst, float(np.max(np.abs(got - ref))) / scale if ref.size else 0.0)
    return worst
