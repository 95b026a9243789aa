"""`python -m bench.profile`: where torchlight's time goes in W1, W3 and W5.

The benchmark says how long each workload takes; this says what the time
is made of, for the targets torchlight misses, with the same data:

- W1, whole, eager and compiled (`tl.compile`'s replays); per op kind:
  NumPy's own kernel, the op recorded (forward) and its node's
  `chain_rule` (backward), in microseconds, and the engine's walk
  (sort, dictionaries, accumulation) as the rest of a whole backward.
- W3: each node's `chain_rule` in the order the engine runs them, the rest
  of the walk (gradient sums, the leaves' `.grad`), the peak extra
  memory of forward and of backward (tracemalloc), and the page faults of
  a forward and a backward against the hand-written NumPy's whole step
  (fresh memory from the system costs a fault per page touched: glibc
  hands a freed 16 MB array back once 32 MB lie free at the heap's top).
- W5 on 0-d tensors: forward and backward with the garbage collector on
  and off, and the tracked objects the graph holds per node.

Minimums of repeated runs: the cost of the work, not of the machine's noise.

    python -m bench.profile              # all three (about 10 s)
    python -m bench.profile --only W1

Example:
    >>> from bench.profile import w1_kinds
    >>> rows = w1_kinds(number=200, repeat=2)
    >>> [row[0] for row in rows]
    ['mul', 'add', 'tanh', 'exp', 'sigmoid', 'scale']
"""

from __future__ import annotations

import argparse
import functools
import gc
import time
import tracemalloc
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

import torchlight as tl
from bench.workloads import (
    W1_CHAIN,
    W1_CONSTANT,
    W1_KINDS,
    W1_OPS,
    W5_LENGTH,
    w1_data,
    w1_forward,
    w3_data,
    w3_loss,
    w5_chain,
)
from torchlight.autograd import functions as F
from torchlight.engine import History

#: NumPy's own work for each W1 op kind on the Tensors' arrays (sigmoid: torchlight's own forward kernel)
W1_KERNELS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "mul": lambda h, w, b: h.data * w.data,
    "add": lambda h, w, b: h.data + b.data,
    "tanh": lambda h, w, b: np.tanh(h.data),
    "exp": lambda h, w, b: np.exp(h.data),
    "sigmoid": lambda h, w, b: F.Sigmoid.forward(None, h),
    "scale": lambda h, w, b: h.data * W1_CONSTANT,
}


def best_us(fn: Callable[[], Any], number: int, repeat: int) -> float:
    """The fastest of `repeat` runs of `number` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / number * 1e6


def w1_kinds(number: int = 20_000, repeat: int = 5) -> list[tuple[str, float, float, float]]:
    """(kind, NumPy kernel, recorded forward, node backward) in us, on W1's (16,) arrays."""
    d = w1_data()
    x, w, b = (tl.tensor(d[k], requires_grad=True) for k in "xwb")
    h = x * 1.0  # a non-leaf input, as every op of the chain but the first has
    g = tl.tensor(np.full(16, 0.5))
    rows = []
    for kind, op in zip(W1_KINDS, W1_CHAIN):
        node = op(h, w, b).history
        kernel = W1_KERNELS[kind]
        numpy_us = best_us(functools.partial(kernel, h, w, b), number, repeat)
        forward_us = best_us(functools.partial(op, h, w, b), number, repeat)
        with tl.no_grad():  # as the engine runs a backward without create_graph
            backward_us = best_us(functools.partial(node.chain_rule, g, True), number, repeat)
        rows.append((kind, numpy_us, forward_us, backward_us))
    return rows


def w1_whole(repeat: int = 200, compiled: bool = False) -> tuple[float, float]:
    """W1's forward and backward, us per op (minimum over `repeat` runs); `compiled`: replays of
    `tl.compile(w1_forward)`, recorded before the runs timed."""
    d = w1_data()
    x, w, b = (tl.tensor(d[k], requires_grad=True) for k in "xwb")
    fn = tl.compile(w1_forward) if compiled else w1_forward
    fn(x, w, b).backward()
    forward, backward = float("inf"), float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        loss = fn(x, w, b)
        middle = time.perf_counter()
        loss.backward()
        forward = min(forward, middle - start)
        backward = min(backward, time.perf_counter() - middle)
    return forward / W1_OPS * 1e6, backward / W1_OPS * 1e6


@contextmanager
def timed_nodes(log: list[tuple[str, float]]):
    """Record (Function name, seconds) for every `chain_rule` the engine runs meanwhile."""
    original = History.chain_rule

    def chain_rule(self: History, d: Any, retain_graph: bool = True) -> Any:
        start = time.perf_counter()
        pairs = original(self, d, retain_graph)
        log.append((self.last_fn.__name__, time.perf_counter() - start))
        return pairs

    History.chain_rule = chain_rule
    try:
        yield log
    finally:
        History.chain_rule = original


def w3_nodes(size: int | None = None, repeat: int = 7) -> dict[str, Any]:
    """W3's forward (s), its backward node by node (s), the rest of the walk, and the peak extra memory (MB)."""
    d = w3_data()
    if size is not None:
        d = {k: v[:size] for k, v in d.items()}
    x, w = (tl.tensor(d[k], requires_grad=True) for k in "xw")
    best: dict[str, Any] = {"total": float("inf")}
    forward = float("inf")
    for _ in range(repeat):
        log: list[tuple[str, float]] = []
        start = time.perf_counter()
        loss = w3_loss(x, w)
        forward = min(forward, time.perf_counter() - start)
        with timed_nodes(log):
            start = time.perf_counter()
            loss.backward()
            total = time.perf_counter() - start
        x.grad = w.grad = None
        if total < best["total"]:
            best = {"total": total, "nodes": log}
    tracemalloc.start()
    try:
        loss = w3_loss(x, w)
        forward_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        held = tracemalloc.get_traced_memory()[0]
        loss.backward()
        backward_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    best["forward"] = forward
    best["forward_peak_mb"] = forward_peak / 1e6
    best["held_after_forward_mb"] = held / 1e6
    best["backward_peak_mb"] = backward_peak / 1e6
    return best


def _faults() -> int:
    """Minor page faults of this process so far (0 where `resource` is missing: not Unix)."""
    try:
        import resource
    except ImportError:
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def w3_faults(size: int | None = None, repeat: int = 7) -> dict[str, float]:
    """Median page faults of W3: torchlight's forward and backward, and the whole hand-written step."""
    from bench.peers import Env
    from bench.peers.numpy_hand import make

    d = w3_data()
    if size is not None:
        d = {k: v[:size] for k, v in d.items()}
    x, w = (tl.tensor(d[k], requires_grad=True) for k in "xw")
    by_hand = make("W3", d, Env(xp=np)).run
    counts: dict[str, list[int]] = {"forward": [], "backward": [], "by hand": []}
    for _ in range(repeat):
        start = _faults()
        loss = w3_loss(x, w)
        middle = _faults()
        loss.backward()
        end = _faults()
        x.grad = w.grad = None
        del loss
        by_hand()
        counts["forward"].append(middle - start)
        counts["backward"].append(end - middle)
        counts["by hand"].append(_faults() - end)
    return {k: float(np.median(v)) for k, v in counts.items()}


def w5_gc(length: int = W5_LENGTH, repeat: int = 3) -> dict[str, float]:
    """W5 on 0-d tensors, seconds: forward and backward with the collector on and off; objects per node."""
    x = tl.tensor(np.asarray(0.5), requires_grad=True)
    out: dict[str, float] = {}
    for label, collect in (("on", True), ("off", False)):
        forward, backward = float("inf"), float("inf")
        for _ in range(repeat):
            gc.collect()
            if not collect:
                gc.disable()
            try:
                start = time.perf_counter()
                y = w5_chain(x, length)
                middle = time.perf_counter()
                y.backward()
                end = time.perf_counter()
            finally:
                gc.enable()
            del y
            forward, backward = min(forward, middle - start), min(backward, end - middle)
        out[f"forward gc {label}"], out[f"backward gc {label}"] = forward, backward
    gc.collect()
    before = len(gc.get_objects())
    y = w5_chain(x, length)
    out["tracked objects per node"] = (len(gc.get_objects()) - before) / length
    del y
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="W1,W3,W5", help="which of W1, W3, W5 (comma-separated)")
    only = parser.parse_args(argv).only.upper().split(",")
    if "W1" in only:
        forward, backward = w1_whole()
        print(f"W1, us per op (minimum): forward {forward:.2f}, backward {backward:.2f}")
        forward_c, backward_c = w1_whole(compiled=True)
        print(f"  compiled (tl.compile, replays): forward {forward_c:.2f}, backward {backward_c:.2f}")
        print("  kind       NumPy kernel   forward (recorded)   backward (chain_rule)")
        rows = w1_kinds()
        for kind, numpy_us, forward_us, backward_us in rows:
            print(f"  {kind:8s} {numpy_us:12.2f} {forward_us:20.2f} {backward_us:23.2f}")
        mean = [sum(r[i] for r in rows) / len(rows) for i in (1, 2, 3)]
        print(f"  {'mean':8s} {mean[0]:12.2f} {mean[1]:20.2f} {mean[2]:23.2f}")
        print(f"  the backward's walk beyond the nodes (sort, dicts, sums): {backward - mean[2]:.2f} us per op")
    if "W3" in only:
        result = w3_nodes()
        nodes = result["nodes"]
        print(f"W3 forward {result['forward'] * 1e3:.1f} ms, backward {result['total'] * 1e3:.1f} ms "
              "(fastest of 7), node by node in walk order:")
        print("  " + ", ".join(f"{name} {seconds * 1e3:.2f}" for name, seconds in nodes))
        rest = result["total"] - sum(s for _, s in nodes)
        print(f"  the rest of the walk (gradient sums, the leaves' .grad): {rest * 1e3:.2f} ms")
        print(f"  peak extra memory: forward {result['forward_peak_mb']:.1f} MB; "
              f"held by the graph after it {result['held_after_forward_mb']:.1f} MB; "
              f"backward {result['backward_peak_mb']:.1f} MB")
        faults = w3_faults()
        print(f"  page faults (median of 7): forward {faults['forward']:.0f}, backward {faults['backward']:.0f}; "
              f"NumPy by hand, forward and backward {faults['by hand']:.0f}")
    if "W5" in only:
        result = w5_gc()
        print("W5 on 0-d tensors, seconds (fastest of 3): "
              + ", ".join(f"{k} {v:.3f}" for k, v in result.items() if "gc" in k))
        print(f"  objects the collector tracks per node of the graph: {result['tracked objects per node']:.2f}")


if __name__ == "__main__":
    main()
