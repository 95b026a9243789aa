"""`python -m bench.einsum`: what tl.einsum's contraction path costs and buys, on 4-operand contractions.

Each workload is timed round-robin in one run (bench.timing: a warm-up, then A B C A B C ..., each sample
the mean of `inner` back-to-back calls), and reported as the median per framework and the median of the
per-round ratios (paired: drift hits both sides of a ratio alike). Two tables per workload:

- forward: torchlight (the path opt_einsum's "auto" chooses), torchlight contracting left to right
  (`optimize=False`: what the path buys), `np.einsum(..., optimize=True)` and `torch.einsum` (which
  uses opt_einsum's path too);
- forward and backward (the gradient of every operand, of `sum(out * w)` for a fixed random `w`):
  torchlight, torchlight left to right and PyTorch. NumPy has no backward.

Before timing, torchlight's values are checked against `np.einsum` and its gradients against
PyTorch's (where installed). The flops are opt_einsum's count of each order.

Usage (the OpenBLAS variables some machines set slow NumPy down; unset them for the benchmark only):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m bench.einsum
    python -m bench.einsum --quick          # tiny sizes, two rounds: that it runs, not what it costs
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import torchlight as tl
from bench.peers import Case
from bench.report import pair_ratio
from bench.timing import Timing, round_robin

TL, TL_L2R, NUMPY, TORCH = "torchlight", "torchlight left to right", "NumPy optimize=True", "PyTorch"


@dataclass(frozen=True)
class Contraction:
    """One 4-operand einsum: its subscripts, full-size and quick shapes, rounds and calls per sample."""

    key: str
    title: str
    subscripts: str
    shapes: tuple[tuple[int, ...], ...]
    quick_shapes: tuple[tuple[int, ...], ...]
    reps: int = 15
    inner: int = 3


WORKLOADS = (
    Contraction("E1", "three matrices and a vector (left to right: two matrix products; the path: three "
                "matrix-vector products)", "ij,jk,kl,l->i", ((256, 256), (256, 256), (256, 256), (256,)),
                ((6, 6), (6, 6), (6, 6), (6,))),
    Contraction("E2", "the same, batched over b", "bij,bjk,bkl,bl->bi",
                ((32, 64, 64), (32, 64, 64), (32, 64, 64), (32, 64)),
                ((2, 4, 4), (2, 4, 4), (2, 4, 4), (2, 4))),
    Contraction("E3", "a low-rank chain (the path pairs the thin sides first)", "ab,bc,cd,de->ae",
                ((512, 16), (16, 512), (512, 16), (16, 512)), ((8, 2), (2, 8), (8, 2), (2, 8))),
)


def left_to_right(n: int) -> list[tuple[int, int]]:
    """opt_einsum's spelling of ((a b) c) d: the running result (last) with the next operand (first)."""
    return [(0, 1)] + [(n - 2 - s, 0) for s in range(n - 2)]


def flops(w: Contraction, shapes: tuple[tuple[int, ...], ...]) -> tuple[float, float, list[Any]]:
    import opt_einsum

    path, info = opt_einsum.contract_path(w.subscripts, *shapes, shapes=True, optimize="auto")
    _, naive = opt_einsum.contract_path(w.subscripts, *shapes, shapes=True, optimize=left_to_right(len(shapes)))
    return float(info.opt_cost), float(naive.opt_cost), path


def load_torch(threads: int) -> Any:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def make_cases(w: Contraction, data: list[np.ndarray], weight: np.ndarray, torch: Any,
               backward: bool) -> dict[str, Case]:
    """name -> Case: `run` one forward (and backward), `grads` the operands' gradients (or the value)."""
    cases: dict[str, Case] = {}
    for name, optimize in ((TL, "auto"), (TL_L2R, False)):
        cases[name] = _torchlight(w.subscripts, data, weight, optimize, backward)
    if not backward:
        def numpy_run() -> Any:
            return np.einsum(w.subscripts, *data, optimize=True)
        cases[NUMPY] = Case(numpy_run, lambda: {"out": numpy_run()})
    if torch is not None:
        cases[TORCH] = _torch(torch, w.subscripts, data, weight, backward)
    return cases


def _torchlight(subscripts: str, data: list[np.ndarray], weight: np.ndarray, optimize: Any,
                backward: bool) -> Case:
    leaves = [tl.tensor(x, requires_grad=backward) for x in data]
    w = tl.tensor(weight)
    if not backward:
        def forward() -> Any:
            return tl.einsum(subscripts, *leaves, optimize=optimize)
        return Case(forward, lambda: {"out": forward().numpy()})

    def run() -> None:
        for t in leaves:
            t.grad = None
        (tl.einsum(subscripts, *leaves, optimize=optimize) * w).sum().backward()

    return Case(run, lambda: (run(), {str(i): t.grad.numpy() for i, t in enumerate(leaves)})[1])


def _torch(torch: Any, subscripts: str, data: list[np.ndarray], weight: np.ndarray, backward: bool) -> Case:
    leaves = [torch.tensor(x, requires_grad=backward) for x in data]
    w = torch.tensor(weight)
    if not backward:
        def forward() -> Any:
            return torch.einsum(subscripts, *leaves)
        return Case(forward, lambda: {"out": forward().numpy()})

    def run() -> None:
        for t in leaves:
            t.grad = None
        (torch.einsum(subscripts, *leaves) * w).sum().backward()

    return Case(run, lambda: (run(), {str(i): t.grad.numpy() for i, t in enumerate(leaves)})[1])


def largest_error(want: dict[str, Any], got: dict[str, Any]) -> float:
    """The largest error over the entries, relative to each reference's largest magnitude."""
    worst = 0.0
    for key, ref in want.items():
        scale = max(float(np.max(np.abs(ref))), 1e-300)
        worst = max(worst, float(np.max(np.abs(np.asarray(got[key]) - ref))) / scale)
    return worst


def check(cases: dict[str, Case], reference: Callable[[], dict[str, Any]], what: str) -> list[str]:
    """Each case's values (or gradients) against the reference; the lines saying how close they are."""
    want = reference()
    lines = []
    for name, case in cases.items():
        err = largest_error(want, case.grads())
        if err > 1e-9:
            raise SystemExit(f"bench.einsum: {name}'s {what} disagree with the reference by {err:.1e}")
        lines.append(f"{name} {err:.0e}")
    return lines


def table(timings: dict[str, Timing], pairs: list[tuple[str, str]]) -> list[str]:
    lines = []
    for name, t in timings.items():
        lines.append(f"    {name:28s} {statistics.median(t.seconds) * 1e3:10.3f} ms" if not t.error
                     else f"    {name:28s} failed: {t.error}")
    for num, den in pairs:
        if num in timings and den in timings and not timings[num].error and not timings[den].error:
            r = pair_ratio(timings[num], timings[den])
            if r is not None:
                lines.append(f"    {num} / {den}: {r[0]:.2f}x (per-round min {r[1]:.2f}, max {r[2]:.2f})")
    return lines


def run_workload(w: Contraction, quick: bool, torch: Any) -> list[str]:
    shapes = w.quick_shapes if quick else w.shapes
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) / np.sqrt(s[-1]) for s in shapes]
    weight = rng.standard_normal(np.einsum(w.subscripts, *data).shape)
    best, naive, path = flops(w, shapes)
    lines = [f"{w.key}: {w.title}", f"  {w.subscripts}  shapes {list(shapes)}",
             f"  flops: the path {path} {best:.3g}, left to right {naive:.3g} ({naive / best:.1f}x)"]
    reps, inner = (2, 1) if quick else (w.reps, w.inner)
    forward = make_cases(w, data, weight, torch, backward=False)
    agree = check(forward, lambda: {"out": np.einsum(w.subscripts, *data, optimize=True)}, "values")
    lines.append("  forward (values vs np.einsum: " + ", ".join(agree) + ")")
    lines += table(round_robin(forward, reps, inner),
                   [(TL, NUMPY), (TL, TORCH), (TL_L2R, TL), (NUMPY, TORCH)])
    both = make_cases(w, data, weight, torch, backward=True)
    if torch is not None:
        agree = check(both, both[TORCH].grads, "gradients")
        lines.append("  forward and backward (gradients vs PyTorch's: " + ", ".join(agree) + ")")
    else:
        lines.append("  forward and backward (PyTorch not installed: gradients unchecked; tests/ops/test_einsum.py)")
    lines += table(round_robin(both, reps, inner), [(TL, TORCH), (TL_L2R, TL)])
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.einsum", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny shapes, two rounds (that it runs)")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP/PyTorch threads (default 1)")
    p.add_argument("--only", metavar="E1,E3", help="run only these workloads")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    chosen = [w for w in WORKLOADS if not args.only or w.key in args.only.split(",")]
    torch = load_torch(args.threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    print(f"python -m bench.einsum{' --quick' if args.quick else ''}: {platform.machine()}, {os.cpu_count()} CPUs, "
          f"{args.threads} thread(s); numpy {np.__version__}, torch {torch.__version__ if torch else 'not installed'}")
    if threadpool_limits is None:
        print("  (threadpoolctl not installed: BLAS threads left as they are)")
    for w in chosen:
        if threadpool_limits is not None:
            with threadpool_limits(limits=args.threads):
                lines = run_workload(w, args.quick, torch)
        else:
            lines = run_workload(w, args.quick, torch)
        print("\n".join(lines), flush=True)
    print("load average at the end (1, 5, 15 min): " + ", ".join(f"{v:.1f}" for v in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
